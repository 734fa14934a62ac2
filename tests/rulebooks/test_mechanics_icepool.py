"""The game mechanics of the gallery (docs/mechanics.md) against icepool: for each idiom, the
chances its compiled resolver reports over a sweep of situations equal those icepool works out
for the game's own rule, as exact fractions.  icepool shares no code with rulecraft, so an
agreement is evidence that the rulebook says what the game says, not only that it is consistent
with itself; the worked examples in the rulebooks check a few situations by hand."""

from __future__ import annotations

from fractions import Fraction
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import ROOT, module_for

icepool = pytest.importorskip("icepool", reason="icepool is in the test extra: pip install -e '.[test]'")

GALLERY = ROOT / "tests" / "fixtures" / "mechanics"


def _book(name: str) -> ModuleType:
    return module_for(GALLERY / f"{name}.rules")


def _chance(die: Any, op: str, target: int) -> Fraction:
    """The chance that icepool's `die` compares with `target` by `op`, as a fraction."""
    return Fraction(die.probability(op, target))


def _exploding_d6(target: int) -> Any:
    """A d6 that explodes on 6 without end, deep enough to be exact up to `target`: a die cut
    short after `target // 6 + 1` explosions already shows more than `target`."""
    return icepool.d6.explode(depth=target // 6 + 1)


@pytest.mark.parametrize("skill", range(1, 11))
def test_opend6_wild_die_matches_icepool(skill: int) -> None:
    """OpenD6: one Wild Die exploding on 6 among plain d6, plus pips; a complication on the
    Wild Die's first 1."""
    book = _book("opend6")
    for pips in range(3):
        for difficulty in range(1, 41, 3):
            plain = (skill - 1) @ icepool.d6
            total = plain + _exploding_d6(difficulty) + pips
            check = book.skill_check(skill=skill, pips=pips, difficulty=difficulty).roll("check")
            succeeds = _chance(total, ">=", difficulty)
            # a complication is the Wild Die's first face 1: the total is then the plain dice + 1
            succeeds_on_one = _chance(plain + 1 + pips, ">=", difficulty) / 6
            assert check.probability == succeeds, (skill, pips, difficulty)
            assert check.outcomes["complication"] == Fraction(1, 6)
            assert check.outcomes["success"] == succeeds - succeeds_on_one, (skill, pips, difficulty)


@pytest.mark.parametrize("skill", range(1, 11))
def test_opend6_a_1_cancelling_matches_icepool(skill: int) -> None:
    """OpenD6's other reading of a 1 on the Wild Die: it and the highest other die are taken away
    from the total (`cancelling highest when natural 1 on wild`)."""
    book = _book("opend6")
    plain = [icepool.d6] * (skill - 1)
    left = icepool.Pool(plain).lowest(skill - 2).sum() if skill >= 2 else icepool.Die([0])
    for pips in range(3):
        for difficulty in range(1, 41, 3):
            others = sum(plain, icepool.Die([0]))
            wild = _exploding_d6(difficulty)
            # the Wild Die by its first face: 1 cancels, 2..5 add, 6 adds and explodes
            total = icepool.Die([left, *(others + face for face in range(2, 6)), others + 6 + wild]) + pips
            check = book.skill_check(skill=skill, pips=pips, difficulty=difficulty, cancelling=True).roll("check")
            succeeds = _chance(total, ">=", difficulty)
            assert check.probability == succeeds, (skill, pips, difficulty)
            assert check.outcomes["complication"] == Fraction(1, 6)
            on_one = _chance(left + pips, ">=", difficulty) / 6
            assert check.outcomes["success"] == succeeds - on_one, (skill, pips, difficulty)


def _percentile(tens: int, units: int) -> int:
    """Call of Cthulhu's reading of a tens die and a units die, each 0..9: 00 with 0 is 100."""
    return 10 * tens + units or 100


@pytest.mark.parametrize("penalty", [False, True], ids=["bonus", "penalty"])
def test_percentile_bonus_and_penalty_dice_match_icepool(penalty: bool) -> None:
    """Call of Cthulhu 7e: one units die and two tens dice, the better (bonus) or worse (penalty)
    result kept; icepool works it out from the game's own reading of the digits."""
    book = _book("percentile")
    digit = icepool.Die(range(10))
    keep = max if penalty else min
    result = icepool.map(lambda u, a, b: keep(_percentile(a, u), _percentile(b, u)), digit, digit, digit)
    for skill in range(0, 101, 3):
        for hurried in (False, True):
            target = skill - 20 if hurried else skill
            check = book.extra_die_roll(skill=skill, hurried=hurried, penalty=penalty).roll("check")
            succeeds = Fraction(
                sum(q for r, q in result.items() if r != 100 and r <= max(target, 5)), result.denominator()
            )
            assert check.probability == succeeds, (skill, hurried)
            assert check.outcomes["fumble"] == _chance(result, "==", 100)
            assert check.outcomes.get("critical", 0) == _chance(result, "<=", -(-target // 20)), (skill, hurried)


def _sixes(die: Any) -> Any:
    return die.map(lambda face: int(face == 6))


@pytest.mark.parametrize("attribute", range(1, 7))
def test_year_zero_push_matches_icepool(attribute: int) -> None:
    """Year Zero: a pool of d6 counting 6s; a push rolls again every die that shows neither a 6
    nor, on an attribute die, a 1, and the 1s on attribute dice are then banes."""
    book = _book("year_zero")
    attribute_die = icepool.d6.reroll([2, 3, 4, 5], depth=1)
    skill_die = icepool.d6.reroll([1, 2, 3, 4, 5], depth=1)
    banes = attribute @ attribute_die.map(lambda face: int(face == 1))
    for skill in range(6):
        rolled = (attribute + skill) @ _sixes(icepool.d6)
        pushed = attribute @ _sixes(attribute_die) + skill @ _sixes(skill_die)
        for needed in range(1, 4):
            plain = book.action(attribute=attribute, skill=skill, needed=needed)
            assert plain.roll("action").probability == _chance(rolled, ">=", needed), (skill, needed)
            push = book.action(attribute=attribute, skill=skill, needed=needed, pushed=True)
            assert push.roll("action").probability == _chance(pushed, ">=", needed), (skill, needed)
            for count in range(attribute + 1):
                assert push.derived["banes"].at_least(count) == _chance(banes, ">=", count), (skill, count)


def _bands(die: Any) -> dict[str, Fraction]:
    """Blades in the Dark's reading of a die: 6, 4 or 5, 1 to 3."""
    return {
        "full_success": _chance(die, "==", 6),
        "partial_success": _chance(die, ">=", 4) - _chance(die, "==", 6),
        "bad_outcome": _chance(die, "<=", 3),
    }


@pytest.mark.parametrize("dots", range(7))
def test_blades_action_roll_matches_icepool(dots: int) -> None:
    """Blades in the Dark: the highest die of a pool (6, 4-5, 1-3), two 6s a critical; with zero
    dice the lowest of two."""
    outcomes = _book("blades").action(dots=dots).roll("action").outcomes
    if dots:
        # the critical is read first: two 6s or more among the dice; a full success is a 6 alone
        read = icepool.d6.pool(dots).highest(1).sum()
        critical = _chance(dots @ _sixes(icepool.d6), ">=", 2)
        bands = _bands(read)
        expected = {"critical": critical, **bands, "full_success": bands["full_success"] - critical}
    else:  # the roll changed to the lowest of two, read with tiers that have no critical
        expected = _bands(icepool.d6.pool(2).lowest(1).sum())
    assert outcomes == expected


@pytest.mark.parametrize("trait", range(1, 6))
def test_legend_five_rings_roll_and_keep_matches_icepool(trait: int) -> None:
    """Legend of the Five Rings: (trait + skill)k(trait) on d10 exploding on 10 without end, a
    Void Point adding a die rolled and kept, raises 5 each on the target; unskilled, 3d10 plain."""
    book = _book("legend_five_rings")
    targets = [(TN, raises) for TN in (5, 15, 25, 40) for raises in (0, 2)]
    deepest = max(TN + 5 * raises for TN, raises in targets)
    for skill in range(5):
        for void in range(2):
            rolled, kept = trait + skill + void, trait + void
            if skill:
                # a d10 cut short after `deepest // 10 + 1` explosions already shows more
                total = icepool.d10.explode(depth=deepest // 10 + 1).pool(rolled).highest(kept).sum()
            else:
                total = rolled @ icepool.d10
            for TN, raises in targets:
                check = book.skill_roll(trait=trait, skill=skill, void=void, TN=TN, raises=raises).roll("check")
                # an unskilled roll calls no raises: the target is the TN
                target = TN + 5 * raises if skill else TN
                assert check.probability == _chance(total, ">=", target), (skill, void, TN, raises)


@pytest.mark.parametrize("sides", [4, 6, 8, 10, 12])
def test_savage_worlds_trait_and_wild_die_match_icepool(sides: int) -> None:
    """Savage Worlds: the better of the trait die and a d6 Wild Die, both acing (exploding), plus
    the modifier against the target; a raise every 4 over it; a 1 on both dice a critical failure
    (`natural 1 on trait_die and natural 1 on wild always fails`), read by icepool from the first
    face of each die, the joint distribution of the two first faces and the total."""
    book = _book("savage_worlds")
    # the highest bound asked is a raise on 16 at -4: 24 on the dice; a die cut short after
    # `24 // its sides + 1` aces already shows more
    critical = -1000  # an outcome no total reaches: the dice showed 1 and 1

    def ace(first: int, size: int) -> Any:
        """A die whose first face is `first`: it aces on its highest face."""
        return first if first < size else size + icepool.d(size).explode(depth=24 // size)

    def read(trait: int, wild: int) -> Any:
        return critical if trait == wild == 1 else icepool.highest(ace(trait, sides), ace(wild, 6))

    better = icepool.map(read, icepool.d(sides), icepool.d6)
    crit = _chance(better, "==", critical)
    assert crit == Fraction(1, 6 * sides)
    for modifier in range(-4, 5):
        for TN in range(1, 17):
            trait = book.trait_roll(trait=f"1d{sides}", modifier=modifier, TN=TN).roll("trait")
            succeeds, raises = _chance(better, ">=", TN - modifier), _chance(better, ">=", TN + 4 - modifier)
            assert trait.probability == succeeds, (modifier, TN)
            expected = {"critical_failure": crit, "raise": raises, "success": succeeds - raises}
            assert trait.outcomes == {**expected, "failure": 1 - succeeds - crit}, (modifier, TN)


@pytest.mark.parametrize("hindered", [False, True])
def test_cortex_two_highest_match_icepool(hindered: bool) -> None:
    """Cortex: the two highest of a d6, a d8 and a d8 (a d4 when the distinction hinders)
    against a difficulty, heroic by 5 more; a 1 is a hitch, never kept, which icepool reads as a
    0 (kept only when fewer than two other dice stand, where it adds nothing); the hitches
    counted."""
    sizes = (6, 8, 4 if hindered else 8)
    kept = icepool.Pool([icepool.d(size).map(lambda face: 0 if face == 1 else face) for size in sizes])
    total = kept.highest(2).sum()
    hitches = sum(icepool.d(size).map(lambda face: int(face == 1)) for size in sizes)
    for difficulty in range(3, 20):
        result = _book("cortex").test(difficulty=difficulty, hindered=hindered)
        test = result.roll("test")
        beats, heroic = _chance(total, ">", difficulty), _chance(total, ">=", difficulty + 5)
        assert test.probability == beats, difficulty
        assert test.outcomes == {"heroic_success": heroic, "success": beats - heroic, "failure": 1 - beats}
        for count in range(4):
            assert result.derived["hitches"].at_least(count) == _chance(hitches, ">=", count), count


@pytest.mark.parametrize("hindered", [False, True])
def test_cortex_effect_die_matches_icepool(hindered: bool) -> None:
    """Cortex's effect die: the largest die left after the two kept, a hitch never left, a d4
    when none is.  icepool keeps by a key that orders the dice as the player does (the face, then
    the smaller die first among equal faces; a hitch below every face), and the dice its
    `lowest(1)` leaves are read for their size."""
    sizes = (6, 8, 4 if hindered else 8)

    def key(size: int) -> Any:
        return icepool.d(size).map(lambda face: 0 if face == 1 else face * 100 + (50 - size))

    def size_of(keys: tuple[int, ...]) -> int:
        return max((50 - k % 100 for k in keys if k), default=4)

    left = icepool.Pool([key(size) for size in sizes]).lowest(len(sizes) - 2).expand().map(size_of)
    effect = _book("cortex").test(hindered=hindered).derived["effect_die"]
    for size in (4, 6, 8, 10):
        assert effect.at_least(size) == _chance(left, ">=", size), size
    assert {size: effect.chance(size) for size in (4, 6, 8)} == {
        size: Fraction(left.probability(size)) for size in (4, 6, 8)
    }


@pytest.mark.parametrize("advanced", [False, True])
def test_pbta_bands_match_icepool(advanced: bool) -> None:
    """Powered by the Apocalypse: 2d6 + stat + forward + ongoing, read as 10+, 7-9 and 6-, and
    12+ with the advanced move."""
    book = _book("pbta")
    for sharp in range(-2, 4):
        for forward in range(-2, 3):
            for ongoing in range(3):
                total = 2 @ icepool.d6 + sharp + forward + ongoing
                result = book.read_a_situation(sharp=sharp, forward=forward, ongoing=ongoing, advanced=advanced)
                read = result.roll("read")
                hits = _chance(total, ">=", 7)
                strong = _chance(total, ">=", 10)
                expected = {"strong_hit": strong, "weak_hit": hits - strong, "miss": 1 - hits}
                if advanced:
                    expected["advanced_hit"] = _chance(total, ">=", 12)
                    expected["strong_hit"] = strong - expected["advanced_hit"]
                assert read.outcomes == expected, (sharp, forward, ongoing)
