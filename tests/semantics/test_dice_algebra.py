"""One dice algebra in the language (issue 26): the OpenD6 Wild Die and the idioms around it
(tests/fixtures/dice/opend6.rules), each chance checked against icepool, which shares no code
with dsl/runtime/; `natural` as the face a die shows first; the tiers' real conditions on cards
and in `describe`; the generated resolver held to the reference on the new forms."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from dsl.semantics.reference import resolve as reference_resolve
from tests.conftest import ROOT, compiled, module_for, run_cli
from tests.differential import Tally, compare, random_situation, texts_of

icepool = pytest.importorskip("icepool", reason="icepool is in the test extra: pip install -e '.[test]'")

OPEND6 = ROOT / "tests" / "fixtures" / "dice" / "opend6.rules"
WILD = icepool.d6.explode(depth=40)  # deep enough that no total a test asks about is cut short


def _at_least(die: Any, target: int) -> Fraction:
    return Fraction(sum(q for outcome, q in die.items() if outcome >= target), die.denominator())


def _roll(rule: str, name: str, **given: Any) -> Any:
    return module_for(OPEND6).resolve(rule, **given).roll(name)


def test_the_worked_examples_pass() -> None:
    result = run_cli("test", str(OPEND6))
    assert result.exit_code == 0, result.output
    assert "0 failed" in result.output


@pytest.mark.parametrize(
    ("ndice", "difficulty", "expected"),
    [(3, 20, Fraction(301, 7776)), (3, 15, Fraction(221, 1296)), (3, 18, Fraction(67, 972)), (5, 19, Fraction(10255, 23328))],
)
def test_wild_die_among_plain_dice(ndice: int, difficulty: int, expected: Fraction) -> None:
    """`(ndice - 1) d6 + exploding d6 as wild + pips >= difficulty`: Wild Die 3D vs 20, Running
    3D vs 15, Survival 3D vs 18, Shooting 5D vs 19."""
    theirs = _at_least((ndice - 1) @ icepool.d6 + WILD, difficulty)
    assert theirs == expected
    assert _roll("wild_check", "action", ndice=ndice, difficulty=difficulty).probability == expected


def test_exploding_die_written_first() -> None:
    """`exploding d6 + 2d6 + pips` (was E201: what is added to the dice must be a number)."""
    for pips in range(3):
        for difficulty in (8, 15, 20, 25):
            theirs = _at_least(2 @ icepool.d6 + WILD + pips, difficulty)
            assert _roll("wild_first", "action", pips=pips, difficulty=difficulty).probability == theirs


def test_every_die_exploding_is_not_the_wild_die() -> None:
    """`exploding 3d6` explodes every die: 37/324 against 20, beside the Wild Die's 301/7776."""
    theirs = _at_least(3 @ WILD, 20)
    assert theirs == Fraction(37, 324)
    assert _roll("every_die", "action", difficulty=20).probability == theirs


def test_opposed_exploding_die_against_dice() -> None:
    """`opposed exploding d6 + pips vs 2d6 + (difficulty - 14)` (was E203)."""
    for pips, difficulty in ((0, 15), (2, 14), (1, 20)):
        roll = _roll("contest", "contest", pips=pips, difficulty=difficulty)
        difference = (WILD + pips) - (2 @ icepool.d6 + (difficulty - 14))
        win = Fraction(sum(q for o, q in difference.items() if o > 0), difference.denominator())
        tie = Fraction(sum(q for o, q in difference.items() if o == 0), difference.denominator())
        assert (roll.outcomes["win"], roll.outcomes["tie"]) == (win, tie)


def test_opposed_pool_worked_out_from_a_value() -> None:
    """`opposed 2d6 vs (ndice - 1) d6` (was E001: an opposed pool was literal dice only)."""
    for ndice in (2, 3, 6):
        roll = _roll("contest", "versus", ndice=ndice)
        difference = 2 @ icepool.d6 - (ndice - 1) @ icepool.d6
        win = Fraction(sum(q for o, q in difference.items() if o > 0), difference.denominator())
        assert roll.probability == win
        assert roll.dice == f"2d6 vs {ndice - 1}d6"


def test_natural_on_an_exploding_die_is_its_first_face() -> None:
    """Silent error 1: `critical_success: natural 6` on `exploding d6 + pips` said 0; it is 1/6."""
    roll = _roll("one_die", "action", pips=1, difficulty=9)
    assert roll.outcomes["critical_success"] == Fraction(1, 6)


def test_natural_on_the_wild_die() -> None:
    """`natural 6 on wild` and `natural 1 on wild` (a complication on the Wild Die's first 1)."""
    roll = _roll("wild_check", "action", ndice=4, difficulty=12)
    assert roll.outcomes["critical_success"] == roll.outcomes["complication"] == Fraction(1, 6)


def test_natural_leaves_out_the_pips_of_a_dice_stat() -> None:
    """Silent error 2: with `stat skill: dice = 3d6+1`, `natural` read the +1 (natural 3 said 0).
    The dice alone show 6 on 10 rolls in 216, and 3 and 18 on one each."""
    for skill, natural_six in (("3d6+1", Fraction(10, 216)), ("3d6", Fraction(10, 216)), ("2d6+2", Fraction(5, 36))):
        roll = _roll("skill_check", "use", skill=skill, difficulty=30)
        assert roll.outcomes["critical_success"] == natural_six, skill


def test_a_natural_no_named_die_shows_is_refused(tmp_path: Path) -> None:
    # a book written for this release: the check is an error there (a warning on older books)
    book = tmp_path / "faces.rules"
    book.write_text(
        'rulebook faces "Faces":\n    source "test"\n    for rulecraft 0.2\n\n'
        "tiers wild_tiers:\n    critical: natural 7 on wild\n    fumble: natural 1 on trait\n"
        "    success: roll >= target\n    failure: otherwise\n\n"
        'rule r "R" cites "x":\n    roll a "A": 2d6 + exploding d6 as wild >= 10\n        tiers wild_tiers\n',
        encoding="utf-8",
    )
    result = run_cli("check", str(book))
    assert result.exit_code == 1
    assert "error[E301]: tier `critical` of `wild_tiers` is a natural 7 on `wild`, a d6, which never shows it" in result.output
    assert "error[E101]: tier `fumble` of `wild_tiers` reads the die `trait`, which this roll does not name" in result.output


def test_dice_that_explode_without_end_in_a_derived_value_are_refused(tmp_path: Path) -> None:
    """A derived value has no target to work its dice out to: the bound is asked for, with how."""
    book = tmp_path / "breath.rules"
    book.write_text(
        'rulebook breath "Breath":\n    source "test"\n\n'
        'rule r "R" cites "x":\n    derive held = 5 * (2d6 + exploding d6)\n'
        '    derive bounded = 5 * (2d6 + exploding d6 at most 3 times)\n',
        encoding="utf-8",
    )
    result = run_cli("check", str(book))
    assert result.exit_code == 1
    assert result.output.count("error[E304]") == 1
    assert "its dice explode without end" in result.output
    assert "exploding d6 at most 5 times" in result.output


def test_cards_and_describe_print_each_tier_condition(tmp_path: Path) -> None:
    """The gallery's d20 card said "Critical: otherwise, Fumble: otherwise"."""
    d20 = ROOT / "tests" / "fixtures" / "mechanics" / "d20_check.rules"
    result = run_cli("cards", str(d20), "-o", str(tmp_path), "--format", "html")
    assert result.exit_code == 0, result.output
    html = "\n".join(path.read_text(encoding="utf-8") for path in tmp_path.rglob("*.html"))
    assert "otherwise" not in html.split("Natural results")[1].split("Fumble")[1][:80]
    assert "natural" in html and "always succeeds" in html
    described = run_cli("describe", str(OPEND6), "wild_check", "--json")
    assert described.exit_code == 0, described.output
    assert "natural 6 on wild" in described.output and "natural 1 on wild" in described.output


SAVAGE = ROOT / "tests" / "fixtures" / "mechanics" / "savage_worlds.rules"
FORMS = ROOT / "tests" / "fixtures" / "rolling" / "forms.rules"


def test_a_tier_on_two_named_dice_is_said_in_words(tmp_path: Path) -> None:
    """`critical_failure: natural 1 on trait_die and natural 1 on wild` on cards and in describe."""
    result = run_cli("cards", str(SAVAGE), "-o", str(tmp_path), "--format", "html")
    assert result.exit_code == 0, result.output
    html = "\n".join(path.read_text(encoding="utf-8") for path in tmp_path.rglob("*.html"))
    assert "Critical failure</strong>: a 1 on both the trait die and the wild die, always fails" in html
    described = run_cli("describe", str(FORMS), "both", "--json")
    assert described.exit_code == 0, described.output
    levels = {level["name"]: level["text"] for level in json.loads(described.output)["effects"][0]["tier_levels"]}
    assert levels["critical_failure"] == "a 1 on both the trait die and the wild die always fails"
    assert levels["ace"] == "a 4 on the trait die or a 6 on the wild die"
    formatted = run_cli("fmt", "--check", str(SAVAGE))
    assert formatted.exit_code == 0, formatted.output


def test_a_tier_joins_its_naturals_with_and_or_with_or_not_both(tmp_path: Path) -> None:
    book = tmp_path / "mixed.rules"
    book.write_text(
        SAVAGE.read_text(encoding="utf-8").replace(
            "natural 1 on wild always", "natural 1 on wild or natural 6 on wild always"
        ),
        encoding="utf-8",
    )
    result = run_cli("check", str(book))
    assert result.exit_code == 1
    assert "error[E001]: unexpected `or`; expected the end of the line, `always`, `and`" in result.output


@pytest.mark.parametrize("path", [SAVAGE, FORMS], ids=["savage_worlds", "forms"])
def test_tiers_on_two_named_dice_agree_with_the_reference(path: Path) -> None:
    """The joint chances of two dice's first faces and the total, worked out by the resolver and
    by the reference (dsl/semantics) from the same book."""
    book = compiled(path).book
    assert book is not None
    module = module_for(path)
    rng = random.Random(2026)
    tally = Tally()
    texts = texts_of(book)
    rules = [r for r in book.rules if r in ("trait_roll", "both")]
    assert rules
    for _ in range(40):
        for rule in rules:
            compare(book, module, [rule], random_situation(book, [rule], rng, texts), tally)
    assert not tally.mismatches, tally.mismatches[:3]
    assert tally.situations - tally.refused >= 30


def test_the_resolver_agrees_with_the_reference() -> None:
    book = compiled(OPEND6).book
    assert book is not None
    module = module_for(OPEND6)
    rng = random.Random(26)
    tally = Tally()
    texts = texts_of(book)
    for _ in range(60):
        for rule in book.rules:
            compare(book, module, [rule], random_situation(book, [rule], rng, texts), tally)
    assert not tally.mismatches, tally.mismatches[:3]
    assert tally.situations - tally.refused >= 250


def test_the_reference_reads_the_wild_die() -> None:
    book = compiled(OPEND6).book
    assert book is not None
    roll = reference_resolve(book, ["wild_check"], {"ndice": 3, "difficulty": 20}).roll("action")
    assert roll.probability == Fraction(301, 7776)
    assert json.loads(json.dumps(roll.to_dict()))["dice"] == "2d6+(exploding 1d6 as wild)"


RISK = ROOT / "tests" / "fixtures" / "dice" / "risk.rules"


def _pairs_won(attackers: int, defenders: int) -> dict[int, Fraction]:
    """icepool: each side's d6s sorted, compared highest against highest, ties to the defender."""
    from tests.dice_expressions import PairsWon

    die = PairsWon()(icepool.d6.pool(attackers), icepool.d6.pool(defenders))
    return {int(o): Fraction(q, die.denominator()) for o, q in die.items() if q}


def test_risk_pairs_compared_highest_against_highest() -> None:
    """`opposed (attackers) d6 vs (defenders) d6 by pairs` (icepool's Table 1 RISK problems had no
    form in the language): every battle of RISK, and the sweep, against icepool."""
    module = module_for(RISK)
    for attackers in range(1, 4):
        for defenders in range(1, 3):
            theirs = _pairs_won(attackers, defenders)
            battle = module.resolve("battle", attackers=attackers, defenders=defenders).roll("battle")
            assert dict(battle.totals) == theirs
            sweep = module.resolve("sweep", attackers=attackers, defenders=defenders).roll("sweep")
            assert sweep.probability == theirs[min(attackers, defenders)]
    assert run_cli("test", str(RISK)).exit_code == 0


def test_risk_pairs_resolver_agrees_with_the_reference() -> None:
    book = compiled(RISK).book
    assert book is not None
    module = module_for(RISK)
    rng = random.Random(3)
    tally = Tally()
    texts = texts_of(book)
    for _ in range(20):
        for rule in book.rules:
            compare(book, module, [rule], random_situation(book, [rule], rng, texts), tally)
    assert not tally.mismatches, tally.mismatches[:3]
    assert tally.situations - tally.refused >= 30


def test_pairs_of_what_is_not_dice_added_together_are_refused(tmp_path: Path) -> None:
    book = tmp_path / "pairs.rules"
    book.write_text(
        'rulebook pairs "Pairs":\n    source "test"\n\n'
        'rule r "R" cites "x":\n    derive won = opposed (highest 2 of 3d6) vs 2d6 by pairs\n'
        "    derive fine = opposed (2d6 + d8) vs 3d6 by pairs\n",
        encoding="utf-8",
    )
    result = run_cli("check", str(book))
    assert result.exit_code == 1
    assert result.output.count("error[E203]") == 1
    assert "pairs are dice against dice" in result.output
    assert "derive won =" in result.output and "derive fine =" not in result.output  # both sides dice added


def test_rerolling_faces_no_die_shows_is_an_error_when_checking(tmp_path: Path) -> None:
    """Found by the fuzz soak: `3d6 rerolling at most 0` passed check and the resolver refused
    its defaults (faces 1..0 of 3d6 cannot be re-rolled); it is E303 where it is written."""
    book = tmp_path / "push.rules"
    book.write_text(
        'rulebook push "Push":\n    source "s"\n\nrule r "R" cites "c":\n    roll x: 3d6 rerolling at most 0 >= 10\n',
        encoding="utf-8",
    )
    result = run_cli("check", str(book))
    assert result.exit_code == 1
    assert "error[E303]: no die shows a face of at most 0" in result.output


def test_a_dice_target_is_one_error_and_a_failed_derive_no_cascade(tmp_path: Path) -> None:
    """The issue's "Diagnostics that misled": a spurious E303 (no upper bound) beside the E201 of
    a target that is dice, and `E101 'margin' is used before it is derived` after the derive of
    `margin` itself failed.  (A target of dice is now a roll against them: only the derive's
    E201 is left.)"""
    book = tmp_path / "misled.rules"
    book.write_text(
        'rulebook misled "Misled":\n    source "test"\n\ninput difficulty "D": int 1..30 = 10\n\n'
        'rule r "R" cites "x":\n    roll a "A": exploding d6 + 2 >= difficulty + 1d6\n'
        '    derive margin = difficulty + "x"\n    derive after = margin + 1\n',
        encoding="utf-8",
    )
    result = run_cli("check", str(book))
    assert result.exit_code == 1
    assert "E303" not in result.output and "E101" not in result.output
    assert result.output.count("error[E201]") == 1


DIFFICULTY = ROOT / "tests" / "fixtures" / "dice" / "difficulty_dice.rules"


def test_a_roll_against_dice_is_the_roll_less_the_dice() -> None:
    """"+1D to the difficulty" (was `E201 the target of a roll must be a number, but this is a
    dice`): `3d6 + pips >= difficulty` with the difficulty dice, `> 2d6 + 4`, `<=`, an exploding
    Wild Die against dice, a target change, a named natural tier
    (tests/fixtures/dice/difficulty_dice.rules): each chance is icepool's P(roll - target op 0),
    a tie succeeding for `>=` and `<=` and failing for `>`, and the margin is that difference."""
    assert run_cli("test", str(DIFFICULTY)).exit_code == 0
    module = module_for(DIFFICULTY)
    two = 2 @ icepool.d6

    def chance(die: Any, holds: Any) -> Fraction:
        return Fraction(sum(q for o, q in die.items() if holds(o)), die.denominator())

    for pips in range(3):
        resolved = module.resolve("climb", pips=pips)
        assert resolved.roll("climb").probability == chance(3 @ icepool.d6 + pips - two, lambda o: o >= 0)
        assert resolved.roll("leap").probability == chance(3 @ icepool.d6 + pips - (two + 4), lambda o: o > 0)
        assert resolved.roll("under").probability == chance(two - two, lambda o: o <= 0)
        wild = WILD + pips - (two + icepool.d6)
        roll = resolved.roll("wild")
        assert roll.probability == chance(wild, lambda o: o >= 0)
        assert 0 in roll.margins  # listed as far as the explosions are followed (as against a number)
        for margin, listed in roll.margins.items():
            assert listed == chance(wild, lambda o, m=margin: o == m)
        strike = resolved.roll("strike")
        goal = 3 if pips > 1 else 0
        assert strike.probability == chance(icepool.d20 + pips - (two + 10), lambda o, g=goal: o >= g)
        assert strike.outcomes["critical"] == Fraction(1, 20)


def test_a_roll_against_dice_resolver_agrees_with_the_reference() -> None:
    book = compiled(DIFFICULTY).book
    assert book is not None
    module = module_for(DIFFICULTY)
    rng = random.Random(26)
    tally = Tally()
    texts = texts_of(book)
    for _ in range(40):
        compare(book, module, list(book.rules), random_situation(book, list(book.rules), rng, texts), tally)
    assert not tally.mismatches, tally.mismatches[:3]
    assert tally.situations - tally.refused >= 30


def test_a_roll_against_dice_that_cannot_be_worked_out_is_refused(tmp_path: Path) -> None:
    """Against dice that explode without end there is no highest total to subtract (E303, also
    for a dice stat whose default explodes); a natural tier reading "the dice" of a roll against
    dice is not defined (E203): name the die."""
    book = tmp_path / "endless.rules"
    book.write_text(
        'rulebook endless "Endless":\n    source "test"\n\n'
        'tiers t "T":\n    critical: natural 20\n    success: roll >= target\n    failure: otherwise\n\n'
        'stat wild "W": dice = exploding d6\n\n'
        'rule r "R" cites "x":\n    roll a: 3d6 >= exploding d6 + 2\n    roll b: 3d6 >= wild\n'
        "    roll c: d20 >= 2d6 + 5\n        tiers t\n",
        encoding="utf-8",
    )
    result = run_cli("check", str(book))
    assert result.exit_code == 1
    assert result.output.count("error[E303]: the target's dice explode without end") == 2
    assert "error[E203]: tier `critical` of `t` reads the natural result of the dice" in result.output
    assert "hint: name the die the tier reads, e.g. `d20 as d`, and write `natural 20 on d`" in result.output


def test_a_roll_against_dice_is_printed_as_written(tmp_path: Path) -> None:
    """`describe` and the cards say the roll as the designer wrote it (`3d6 + pips >= difficulty`),
    not as it is worked out (`3d6 + difficulty * -1 + pips >= 0`)."""
    described = run_cli("describe", str(DIFFICULTY), "climb")
    assert described.exit_code == 0, described.output
    assert 'roll climb "Climb": 3d6 + pips >= difficulty' in described.output
    assert 'roll leap "Leap": 3d6 + pips > 2d6 + 4' in described.output
    assert "* -1" not in described.output
    cards = run_cli("cards", str(DIFFICULTY), "-o", str(tmp_path), "--format", "html")
    assert cards.exit_code == 0, cards.output
    page = (tmp_path / "difficulty_dice.html").read_text(encoding="utf-8")
    text = page.replace("\u00a0", " ")
    assert "3d6 + pips ≥ difficulty" in text and "exploding d6 + pips ≥ difficulty + d6" in text
    assert "roll both; success at or above difficulty" in text and "success on 0" not in text


COUNTED = ROOT / "tests" / "fixtures" / "dice" / "counted_tiers.rules"


def _faces_of(die: str) -> dict[int, int]:
    """The weight of each value one die shows: `d6`; `x6` a d6 exploding at most twice."""
    if die == "x6":
        return {**{v: 36 for v in range(1, 6)}, **{6 + v: 6 for v in range(1, 6)}, **{12 + v: 1 for v in range(1, 7)}}
    return {v: 1 for v in range(1, int(die[1:]) + 1)}


def _enumerated(dice: list[str], read: Any, counted: Any) -> dict[tuple[int, int], Fraction]:
    """Every way the dice fall, one by one: (how many show a counted value, what the roll reads)."""
    import itertools

    weights = [_faces_of(d) for d in dice]
    denominator = 1
    for w in weights:
        denominator *= sum(w.values())
    found: dict[tuple[int, int], Fraction] = {}
    for values in itertools.product(*(list(w) for w in weights)):
        weight = 1
        for w, v in zip(weights, values, strict=True):
            weight *= w[v]
        key = (sum(1 for v in values if counted(v)), read(values))
        found[key] = found.get(key, Fraction(0)) + Fraction(weight, denominator)
    return found


def _tiered(rows: dict[tuple[int, int], Fraction], tiers: list[tuple[str, Any]]) -> dict[str, Fraction]:
    found = {name: Fraction(0) for name, _ in tiers}
    for (count, value), chance in rows.items():
        found[next(name for name, holds in tiers if holds(count, value))] += chance
    return found


def test_a_tier_counts_the_dice_showing_a_face_beside_every_reading() -> None:
    """`roll showing 6 >= 2` in the tiers of plain dice, a keep, a Wild Die that explodes, the
    better of two dice and a count of hits: each die counted, kept or not, by the value it shows
    (an exploded Wild Die shows 7 or more, never 6), against every way the dice fall."""
    sixes = [
        ("many_sixes", lambda c, v: c >= 2),
        ("one_six", lambda c, v: c == 1),
        ("high", lambda c, v: v >= 10),
        ("low", lambda c, v: True),
    ]
    six = lambda v: v == 6  # noqa: E731
    expected = {
        "plain": _tiered(_enumerated(["d6"] * 3, sum, six), sixes),
        "kept": _tiered(_enumerated(["d6"] * 4, lambda f: sum(sorted(f)[-2:]), six), sixes),
        "wild": _tiered(_enumerated(["d6", "d6", "x6"], sum, six), sixes),
        "better": _tiered(
            _enumerated(["d8", "d6"], lambda f: max(f) + 2, lambda v: v >= 5),
            [("none_high", lambda c, v: c == 0), ("few_high", lambda c, v: c <= 1), ("many_high", lambda c, v: True)],
        ),
        "hits": _tiered(
            _enumerated(["d6"] * 4, lambda f: sum(1 for v in f if v >= 5), lambda v: v == 1),
            [("two_ones", lambda c, v: c >= 2), ("some_hits", lambda c, v: v >= 1), ("nothing", lambda c, v: True)],
        ),
    }
    resolution = module_for(COUNTED).resolve("counted")
    book = compiled(COUNTED).book
    assert book is not None
    reference = reference_resolve(book, ["counted"], {})
    for name, outcomes in expected.items():
        assert dict(resolution.roll(name).outcomes) == outcomes, name
        assert dict(reference.roll(name).outcomes) == outcomes, name


def test_a_count_rolled_is_read_from_the_faces() -> None:
    """Faces told: [6, 2, 6] holds two 6s, a critical beside a highest of 6; a total told
    cannot say how many dice showed 6."""
    module = module_for(COUNTED)
    made = module.resolve("counted", rolled={"plain": [6, 2, 6], "kept": [6, 1, 1, 1]}).rolled("plain")
    assert made.outcome == "many_sixes"
    kept = module.resolve("counted", rolled={"plain": [1, 1, 1], "kept": [6, 1, 1, 1]}).rolled("kept")
    assert (kept.outcome, kept.total) == ("one_six", 7)
    with pytest.raises(Exception, match="reads how many dice show a face; tell the faces, not the total"):
        module.resolve("counted", rolled={"plain": 12})


@pytest.mark.parametrize(
    ("tiers", "message"),
    [
        ("    a: roll showing 6 >= 2\n    b: roll showing 1 >= 1\n", "count the dice showing 6 and showing 1"),
        ("    a: roll showing 6 >= 2\n    b: natural 3\n", "read the dice alone (`natural ...`) and count the dice"),
        ("    a: roll showing 6 >= 2\n", "and dice of this roll explode without end"),
        ("    a: roll showing 6 >= 2\n", "and this roll's target is dice too"),
    ],
    ids=["two_sets_of_faces", "beside_the_dice_alone", "dice_exploding_without_end", "against_dice"],
)
def test_tiers_count_one_set_of_faces_and_no_natural_beside_it(tmp_path: Path, tiers: str, message: str) -> None:
    """Each refused when checking, never first when resolving."""
    book = tmp_path / "counts.rules"
    dice = "exploding 3d6 >= 12" if "explode" in message else "3d6 >= 2d6 + 1" if "target" in message else "3d6"
    book.write_text(
        'rulebook counts "Counts":\n    source "t"\n    for rulecraft 0.2\n\n'
        f'tiers both "Both":\n{tiers}    c: otherwise\n\n'
        f'rule r "R" cites "t":\n    roll x "X": {dice}\n        tiers both\n',
        encoding="utf-8",
    )
    result = run_cli("check", str(book))
    assert result.exit_code == 1
    assert "error[E203]" in result.output and message in result.output, result.output


def test_a_count_of_dice_is_printed_as_written_and_in_words(tmp_path: Path) -> None:
    """fmt keeps `roll showing 6 >= 2`; describe prints it as written, the cards in words."""
    formatted = run_cli("fmt", "--check", str(COUNTED))
    assert formatted.exit_code == 0, formatted.output
    described = run_cli("describe", str(COUNTED), "counted", "--json")
    assert described.exit_code == 0, described.output
    levels = {level["name"]: level["text"] for level in json.loads(described.output)["effects"][0]["tier_levels"]}
    assert levels == {"many_sixes": "roll showing 6 >= 2", "one_six": "roll showing 6 == 1", "high": "roll >= 10", "low": "otherwise"}
    result = run_cli("cards", str(COUNTED), "-o", str(tmp_path), "--format", "html")
    assert result.exit_code == 0, result.output
    html = "\n".join(path.read_text(encoding="utf-8") for path in tmp_path.rglob("*.html"))
    assert "Many sixes</strong>: 2 or more dice show 6" in html
    assert "None high</strong>: no die shows at least 5" in html
