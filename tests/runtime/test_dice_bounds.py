"""Dice distributions: exact, bounded, computed once.

An opposed roll's difference is a sum (first + mirrored second), computed by adding dice with
running sums; it must equal the term-by-term convolution it replaced, on every kind of pool.
A generated module embeds no distribution: it computes each on first use and keeps it.  Every
distribution a roll needs, written or reached, has a bound with a located E303.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import pytest

from dsl.compiler import Compiled, compile_text, generate
from dsl.runtime.base import round_value
from dsl.runtime.dice import Dice, Distribution, difference, distribution
from tests.conftest import module_from_text

HEAD = 'rulebook odds "Odds":\n    source "s"\n\nstat DEX: int 0..20 = 10\ninput hurry: flag = no\n\n'


def _term_by_term(first: Distribution, second: Distribution) -> Distribution:
    """The reference: every total of first against every total of second."""
    a = [y - x for x, y in zip((0, *first.at_most), first.at_most, strict=False)]
    b = [y - x for x, y in zip((0, *second.at_most), second.at_most, strict=False)]
    ways = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            ways[i + (len(b) - 1 - j)] += x * y
    return Distribution(
        first.low - second.high, first.denominator * second.denominator, tuple(itertools.accumulate(ways))
    )


POOLS = [
    (count, sides, keep)
    for count in (1, 2, 3, 7)
    for sides in (2, 3, 6, 10, 13)
    for keep in (None, "highest", "lowest")
]


def test_the_difference_of_any_two_pools_is_the_term_by_term_one() -> None:
    pairs = 0
    for first, second in itertools.product(POOLS, repeat=2):
        expected = _term_by_term(distribution(*first), distribution(*second))
        assert difference(distribution(*first), distribution(*second)) == expected, (first, second)
        pairs += 1
    assert pairs == 3600


@pytest.mark.parametrize(("first", "second"), [((20, 20, None), (15, 20, None)), ((12, 30, None), (40, 4, None))])
def test_the_difference_of_larger_pools_is_the_term_by_term_one(
    first: tuple[int, int, None], second: tuple[int, int, None]
) -> None:
    assert difference(distribution(*first), distribution(*second)) == _term_by_term(
        distribution(*first), distribution(*second)
    )


def test_a_distribution_without_its_pool_takes_the_term_by_term_road() -> None:
    plain = Distribution(1, 6, (1, 2, 3, 4, 5, 6))
    assert plain == distribution(1, 6)
    assert difference(plain, distribution(2, 6)) == _term_by_term(plain, distribution(2, 6))


def test_the_sum_of_dice_is_the_classic_one() -> None:
    assert distribution(3, 6).at_most[:4] == (1, 4, 10, 20)
    assert distribution(3, 6).at_most[-1] == 216
    assert distribution(2, 6, "highest").at_most == (1, 4, 9, 16, 25, 36)


def _checked(text: str) -> Compiled:
    return compile_text(HEAD + text, "dice.rules")


def test_a_module_embeds_no_distribution_and_computes_each_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # the reproducer opposed_dice_slow_build.rules: its module was built for 19.5 s, and a
    # 100d100 pair made a 7.4 MB module
    text = (
        'rule r "R" cites "1":\n    roll fight "Fight": opposed 50d100 + DEX vs 50d100\n'
        '    roll duel "Duel": opposed 12d20 + DEX vs 12d20\n'
    )
    compiled = _checked(text)
    assert compiled.ok, compiled.render()
    source = generate(compiled)
    assert len(source) < len(generate(_checked('rule r "R" cites "1":\n    DEX -1\n'))) + 5000
    module = module_from_text(HEAD + text)
    calls: list[Any] = []
    from dsl.runtime import book

    real = book.difference

    def counting(first: Distribution, second: Distribution) -> Distribution:
        calls.append((first, second))
        return real(first, second)  # type: ignore[no-any-return]

    monkeypatch.setattr(book, "difference", counting)
    first = module.resolve("r", DEX=0)
    second = module.resolve("r", DEX=3)
    assert len(calls) == 2  # one per pair of pools, on the first call only
    pool = distribution(12, 20)
    reference = _term_by_term(pool, pool)
    assert first.roll("duel").outcomes["win"] == 1 - reference.at_most_p(0)
    assert second.roll("duel").outcomes["win"] == 1 - reference.at_most_p(-3)
    assert second.roll("fight").probability > first.roll("fight").probability > 0


def test_an_opposed_roll_whose_difference_is_too_big_is_an_error() -> None:
    compiled = _checked('rule r "R" cites "1":\n    roll fight "Fight": opposed 10d1000 vs 10d1000\n')
    assert [(d.code, d.span.line, d.span.column, d.span.end_column) for d in compiled.errors] == [("E303", 8, 33, 51)]
    assert "19,981 possible totals" in compiled.errors[0].message


def test_an_opposed_roll_just_within_the_bound_is_fine() -> None:
    within = _checked('rule r "R" cites "1":\n    roll fight "Fight": opposed 50d100 vs 51d100\n')
    assert within.ok, within.render()  # 4,951 + 5,050 - 1 = 10,000 totals
    beyond = _checked('rule r "R" cites "1":\n    roll fight "Fight": opposed 51d100 vs 51d100\n')
    assert [d.message for d in beyond.errors] == [
        "`51d100 vs 51d100` is too big a roll: the difference of the two has 10,099 possible totals;"
        " exact probabilities for more than 10,000 are out of reach"
    ]


def test_dice_added_by_a_roll_s_changes_count_towards_the_bound() -> None:
    text = 'rule r "R" cites "1":\n    roll climb "Climb": 5d1000 <= DEX\n        when hurry: +6 dice\n'
    compiled = _checked(text)
    assert [(d.code, d.span.line, d.span.column) for d in compiled.errors] == [("E303", 8, 25)]
    assert "`5d1000` becomes `11d1000`: it has 10,990 possible totals" in compiled.errors[0].message
    assert _checked(text.replace("+6 dice", "+5 dice")).ok


def test_a_dice_value_given_when_resolving_is_bounded_before_any_work() -> None:
    """A dice input (`--set damage=5000d6`) past the pool bound is refused at once: adding 5,000
    dice one by one would take minutes.  100d6 is inside: totals 100..600, 501 of them."""
    assert len(Dice.parse("100d6").totals()) == 501
    for text in ("5000d6", "101d6", "2d1001", "3d6+101d4"):
        with pytest.raises(ValueError, match="at most 100 dice of at most 1000 sides"):
            Dice.parse(text).totals()


def _pairwise_totals(dice: Dice) -> dict[int, Any]:
    """The reference: every piece's chances (a pool's from `distribution`, a scaled part's from
    its own totals) combined pair by pair, as dice values were worked out before running sums."""
    result = {dice.bonus: Fraction(1)}
    pieces = []
    for count, sides in dice.terms:
        dist = distribution(count, sides)
        pieces.append({t: p for t, p in dist.chances().items()} if count else {0: Fraction(1)})
    for part in dice.parts:
        inner: dict[int, Fraction] = {}
        for total, chance in _pairwise_totals(part.dice).items():
            value = total * part.factor
            key = round_value(value, part.rounding) if part.rounding else int(value)
            inner[key] = inner.get(key, Fraction(0)) + chance
        pieces.append(inner)
    for piece in pieces:
        combined: dict[int, Fraction] = {}
        for a, pa in result.items():
            for b, pb in piece.items():
                combined[a + b] = combined.get(a + b, Fraction(0)) + pa * pb
        result = combined
    return dict(sorted(result.items()))


def test_dice_values_added_by_running_sums_equal_the_pairwise_reference() -> None:
    pool = Dice.pool
    values = [
        pool(3, 6),
        pool(2, 6).plus(pool(1, 4)).plus(3),
        pool(2, 6).plus(-2),
        pool(3, 6).scaled(10, None),
        pool(3, 6).scaled(Fraction(1, 2), "up").plus(pool(2, 4)),
        pool(2, 10).scaled(Fraction(1, 3), "down").plus(pool(1, 6).scaled(2, None)).plus(1),
        pool(1, 20).plus(pool(1, 20)).plus(pool(1, 20)),
        pool(4, 6).with_dice(-1),
        pool(10, 10).plus(pool(5, 8)),
    ]
    for value in values:
        assert value.totals() == _pairwise_totals(value), str(value)
    # 50d100 + 50d100 is 100d100: 9,901 totals (100..10,000), where pairs of the two pools'
    # 4,951 totals each (24.5 million) were past the bound before
    assert Dice.parse("50d100+50d100").totals() == Dice.parse("100d100").totals()
    assert len(Dice.parse("100d100").totals()) == 9901


def test_a_dice_value_past_the_work_bound_is_refused_naming_it() -> None:
    # five 100d100: 500 dice, 500 * 99 + 1 = 49,501 totals; 500 * 49,501 is past 2,000,000
    with pytest.raises(
        ValueError, match=r"500 dice with 49,501 possible totals \(dice times totals at most 2,000,000\)"
    ):
        Dice.parse("+".join(["100d100"] * 5)).totals()
