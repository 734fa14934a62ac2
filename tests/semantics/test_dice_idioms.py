"""The idioms of published games that issue 26 found unsayable, each written in the natural
syntax (tests/fixtures/dice/idioms.rules) and checked against icepool, which shares no code with
dsl/runtime/: one test per idiom."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest

from tests.conftest import ROOT, compiled, module_for
from tests.differential import Tally, compare, random_situation, texts_of

icepool = pytest.importorskip("icepool", reason="icepool is in the test extra: pip install -e '.[test]'")

IDIOMS = ROOT / "tests" / "fixtures" / "dice" / "idioms.rules"
WILD = icepool.d6.explode(depth=40)  # deep enough that no total a test asks about is cut short


def _roll(rule: str, name: str, **given: Any) -> Any:
    return module_for(IDIOMS).resolve(rule, **given).roll(name)


def _chance(die: Any, test: Any) -> Fraction:
    return Fraction(sum(q for outcome, q in die.items() if test(outcome)), die.denominator())


def _totals(die: Any) -> dict[int, Fraction]:
    return {int(o): Fraction(q, die.denominator()) for o, q in sorted(die.items()) if q}


def _count(die: Any, count: int, test: Any) -> Any:
    """How many of `count` dice like `die` pass `test`."""
    return count @ die.map(lambda face: int(test(face)))


def test_counting_successes_at_a_threshold() -> None:
    """`(ndice) d6 showing at least 5 >= 2`: two successes (a 5 or 6) among the pool."""
    for ndice in range(2, 9):
        theirs = _chance(_count(icepool.d6, ndice, lambda f: f >= 5), lambda k: k >= 2)
        assert _roll("successes", "hits", ndice=ndice).probability == theirs


def test_blades_highest_die_in_bands() -> None:
    """`highest of (dots) d6`: 6 a full success, 4-5 a partial one, else a bad outcome."""
    for dots in range(1, 5):
        highest = icepool.d6.pool(dots).highest(1).sum()
        roll = _roll("blades", "action", dots=dots)
        assert roll.outcomes["full_success"] == _chance(highest, lambda v: v == 6)
        assert roll.outcomes["partial_success"] == _chance(highest, lambda v: 4 <= v <= 5)


def test_a_critical_on_two_sixes_among_the_pool() -> None:
    """`(dots) d6 showing 6 >= 2`."""
    for dots in range(1, 5):
        theirs = _chance(_count(icepool.d6, dots, lambda f: f == 6), lambda k: k >= 2)
        assert _roll("blades", "critical", dots=dots).probability == theirs


def test_a_critical_on_two_sixes_as_a_tier_of_the_highest_die() -> None:
    """`critical: roll showing 6 >= 2` in the tiers of `highest of (dots) d6`: the roll reads
    the highest die and the tier counts the 6s among the same dice (icepool reads each sorted
    set of faces)."""
    for dots in range(1, 5):
        faces = icepool.d6.pool(dots).expand()
        roll = _roll("blades_critical", "action", dots=dots)
        assert roll.outcomes["critical"] == _chance(faces, lambda f: f.count(6) >= 2)
        assert roll.outcomes["full_success"] == _chance(faces, lambda f: f.count(6) == 1)
        assert roll.outcomes["partial_success"] == _chance(faces, lambda f: max(f) in (4, 5))
        assert roll.outcomes["bad_outcome"] == _chance(faces, lambda f: max(f) <= 3)


def test_zero_dice_roll_two_and_take_the_lowest() -> None:
    """`lowest of 2d6` in Blades' bands."""
    lowest = icepool.d6.pool(2).lowest(1).sum()
    roll = _roll("zero_dice", "desperate")
    assert roll.outcomes["full_success"] == _chance(lowest, lambda v: v == 6) == Fraction(1, 36)
    assert roll.outcomes["partial_success"] == _chance(lowest, lambda v: 4 <= v <= 5)


def test_pushing_rerolls_the_dice_that_are_not_sixes_and_counts_banes() -> None:
    """Year Zero: `(attribute) d6 rerolling 2..5`, the 6s kept as successes and the 1s as banes."""
    pushed = icepool.d6.reroll([2, 3, 4, 5], depth=1)
    for attribute in range(1, 7):
        resolution = module_for(IDIOMS).resolve("push", attribute=attribute)
        successes = _count(pushed, attribute, lambda f: f == 6)
        banes = _count(pushed, attribute, lambda f: f == 1)
        assert resolution.roll("pushed").probability == _chance(successes, lambda k: k >= 1)
        assert resolution.derived["successes"].totals() == _totals(successes)
        assert resolution.derived["banes"].totals() == _totals(banes)


def test_step_dice_held_as_values_are_kept_and_counted_die_by_die() -> None:
    """Cortex: `highest 2 of (attribute_die + skill_die + distinction_die)` and `(...) showing 1`
    with the traits in dice stats, and the skill die stepped by a rule (`skill_die +1 step`: d6
    to d8, d12 to d20 along the ladder)."""
    step = {4: 6, 6: 8, 8: 10, 10: 12, 12: 20}
    for sizes in [(8, 6, 8), (4, 12, 6), (10, 10, 4), (12, 8, 12)]:
        given = dict(zip(("attribute_die", "skill_die", "distinction_die"), (f"1d{s}" for s in sizes), strict=True))
        two = icepool.Pool([icepool.d(size) for size in sizes]).highest(2).sum()
        ones = sum((icepool.d(size).map(lambda f: int(f == 1)) for size in sizes), icepool.Die([0]))
        for difficulty in (5, 9, 12, 17):
            resolution = module_for(IDIOMS).resolve("step_dice", difficulty=difficulty, **given)
            assert resolution.roll("test").probability == _chance(two, lambda v, d=difficulty: v >= d)
            assert resolution.derived["hitches"].totals() == _totals(ones)
        stepped = module_for(IDIOMS).resolve(["step_dice", "expertise"], difficulty=12, **given)
        up = icepool.Pool([icepool.d(size) for size in (sizes[0], step[sizes[1]], sizes[2])]).highest(2).sum()
        assert stepped.roll("test").probability == _chance(up, lambda v: v >= 12)


def test_a_trait_die_beside_a_wild_die_takes_the_better_with_aces() -> None:
    """Savage Worlds: `max(exploding d8, exploding d6) >= 4`."""
    theirs = _chance(icepool.highest(icepool.d8.explode(depth=40), WILD), lambda v: v >= 4)
    assert _roll("trait_and_wild", "trait").probability == theirs


def _cortex_pool(ndice: int) -> list[tuple[int, Any]]:
    return [(size, icepool.d(size)) for size in (*[8] * ndice, 6, 10)]


def test_cortex_hitches_are_never_kept() -> None:
    """`highest 2 of ((ndice) d8 + d6 + d10) ignoring 1 > difficulty`: a 1 is a hitch, neither
    kept nor counted; with fewer than two other dice the keep adds what stands.  icepool reads a
    hitch as a 0, kept only when fewer than two other dice stand, where it adds nothing.  Worked:
    two d8, a d6 and a d10 against 2 fail only on four hitches (0) or three hitches and a 2 on
    the fourth die (4 ways): 5 of 3840, 767/768."""
    assert _roll("cortex", "total", ndice=2, difficulty=2).probability == Fraction(767, 768)
    for ndice in range(2, 6):
        dice = [die.map(lambda face: 0 if face == 1 else face) for _, die in _cortex_pool(ndice)]
        total = icepool.Pool(dice).highest(2).sum()
        for difficulty in (1, 3, 7, 11, 15):
            roll = _roll("cortex", "total", ndice=ndice, difficulty=difficulty)
            assert roll.probability == _chance(total, lambda v, d=difficulty: v > d), (ndice, difficulty)


def test_cortex_effect_die_is_the_largest_die_left() -> None:
    """`largest die left by highest 2 of ((ndice) d8 + d6 + d10) ignoring 1 else 4`: the size of
    the largest die after the two kept, a hitch never left, the smaller of two equal dice kept;
    a d4 when none is left.  icepool keeps by a key (the face, then the smaller die first; a
    hitch below every face) and reads the sizes of the dice its `lowest` leaves.  Worked: two
    d8, a d6 and a d10 leave none with two hitches or more, 1 - (2205 + 2 x 315 + 441 + 245) /
    3840 = 319/3840 (the rulebook's example works it out)."""
    effect = module_for(IDIOMS).resolve("cortex", ndice=2).derived["effect_die"]
    assert effect.chance(4) == Fraction(319, 3840)

    def size_of(keys: tuple[int, ...]) -> int:
        return max((50 - key % 100 for key in keys if key), default=4)

    for ndice in range(2, 6):
        keys = [die.map(lambda face, s=size: 0 if face == 1 else face * 100 + (50 - s)) for size, die in _cortex_pool(ndice)]
        left = icepool.Pool(keys).lowest(len(keys) - 2).expand().map(size_of)
        effect = module_for(IDIOMS).resolve("cortex", ndice=ndice).derived["effect_die"]
        assert effect.totals() == _totals(left), ndice


def test_roll_and_keep_counts_from_values() -> None:
    """L5R: `highest ring of exploding (ring + skill) d10 at most 4 times >= target_number`."""
    for ring, skill, target in ((2, 2, 20), (3, 1, 25), (1, 0, 10), (4, 5, 40)):
        kept = icepool.d10.explode(depth=4).pool(ring + skill).highest(ring).sum()
        roll = _roll("roll_and_keep", "strike", ring=ring, skill=skill, target_number=target)
        assert roll.probability == _chance(kept, lambda v, t=target: v >= t)


def test_a_fate_point_doubles_the_dice() -> None:
    """OpenD6: `(2 * ndice - 1) d6 + exploding d6 as wild >= difficulty`."""
    for ndice, difficulty in ((2, 15), (3, 20), (4, 30)):
        theirs = _chance((2 * ndice - 1) @ icepool.d6 + WILD, lambda v, d=difficulty: v >= d)
        assert _roll("fate_point", "doubled", ndice=ndice, difficulty=difficulty).probability == theirs


def test_character_points_add_dice_that_explode() -> None:
    """OpenD6: extra wild dice, `+ exploding (character_points) d6`."""
    for points, difficulty in ((1, 15), (2, 20), (3, 25)):
        theirs = _chance(2 @ icepool.d6 + WILD + points @ WILD, lambda v, d=difficulty: v >= d)
        roll = _roll("character_points", "boosted", ndice=3, character_points=points, difficulty=difficulty)
        assert roll.probability == theirs


def test_five_times_a_roll_of_physique() -> None:
    """OpenD6: holding breath for `5 * ((physique - 1) d6 + exploding d6 as wild)` rounds (was: a
    derived value cannot explode)."""
    for physique, seconds in ((2, 30), (3, 60), (5, 120)):
        theirs = _chance(5 * ((physique - 1) @ icepool.d6 + WILD), lambda v, s=seconds: v >= s)
        assert _roll("breath", "held", physique=physique, seconds=seconds).probability == theirs


def test_the_resolver_agrees_with_the_reference() -> None:
    book = compiled(IDIOMS).book
    assert book is not None
    module = module_for(IDIOMS)
    rng = random.Random(26)
    tally = Tally()
    texts = texts_of(book)
    for _ in range(8):
        for rule in book.rules:
            compare(book, module, [rule], random_situation(book, [rule], rng, texts), tally)
    assert not tally.mismatches, tally.mismatches[:3]
    assert tally.situations - tally.refused >= 60
