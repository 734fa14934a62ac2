"""Rolling through a resolver: seeded and reproducible (`rng=`), or told what was rolled elsewhere
(`rolled=`), for every form of dice; and the clear errors for results no dice can show."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import ModuleType

import pytest

from dsl.runtime import RuleInputError, Xoshiro128
from tests.conftest import ROOT, module_for

DICE = ROOT / "tests" / "fixtures" / "dice"
FORMS = ROOT / "tests" / "fixtures" / "rolling" / "forms.rules"


def book(name: str) -> ModuleType:
    """A dice fixture book; `forms`: tests/fixtures/rolling/forms.rules, a roll of every form."""
    return module_for(FORMS if name == "forms" else Path(DICE / f"{name}.rules"))


def faces(made: object) -> list[list[int]]:
    return [list(die.faces) for side in made.sides for die in side.rolled]  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------- the generator


def test_the_generator_is_xoshiro128starstar_seeded_by_splitmix64() -> None:
    """Pinned outputs: the JavaScript runtime (tests/js/rolling.test.mjs) pins the same ones."""
    rng = Xoshiro128(0)
    assert [rng.next32() for _ in range(4)] == PINNED_OUTPUTS
    rng = Xoshiro128(20261127)
    assert [rng.below(6) + 1 for _ in range(12)] == PINNED_D6


PINNED_OUTPUTS = [3737715805, 2584255861, 2876756834, 3286328325]
PINNED_D6 = [3, 6, 3, 6, 2, 2, 2, 3, 2, 2, 6, 4]


def test_the_seed_is_expanded_by_splitmix64() -> None:
    """SplitMix64's published first outputs from 0 (0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4) are
    the generator's first state, low word first."""
    rng = Xoshiro128(0)
    assert rng.getstate() == (0x7B1DCDAF, 0xE220A839, 0xA1B965F4, 0x6E789E6A)


def test_bounded_faces_are_unbiased_by_rejection() -> None:
    """A d3 over 32 bits: 2**32 is not a multiple of 3, so the top values are drawn again."""
    rng = Xoshiro128(5)
    counts = [0, 0, 0]
    for _ in range(30_000):
        counts[rng.below(3)] += 1
    assert all(9_500 < c < 10_500 for c in counts)
    with pytest.raises(ValueError):
        rng.below(0)


# ---------------------------------------------------------------------------- seeded


def test_the_same_seed_rolls_the_same_dice(skirmish: ModuleType) -> None:
    first = skirmish.resolve("broken_ground", moved=8, rng=20261127).to_dict()
    again = skirmish.broken_ground(moved=8, rng=20261127).to_dict()
    assert first == again
    assert first["rolls"][0]["rolled"]["source"] == "rng"
    other = [skirmish.resolve("broken_ground", moved=8, rng=seed).rolled("fall").total for seed in range(40)]
    assert len(set(other)) > 5


def test_one_generator_rolls_one_situation_after_another(skirmish: ModuleType) -> None:
    stream = Xoshiro128(3)
    totals = [skirmish.resolve("broken_ground", moved=8, rng=stream).rolled("fall").total for _ in range(3)]
    again = Xoshiro128(3)
    assert totals == [skirmish.resolve("broken_ground", moved=8, rng=again).rolled("fall").total for _ in range(3)]
    assert len(set(totals)) > 1 or totals[0] != skirmish.resolve("broken_ground", moved=8, rng=3).rolled("fall").total


def test_an_apps_random_rolls_too(skirmish: ModuleType) -> None:
    made = skirmish.resolve("broken_ground", moved=8, rng=random.Random(1)).rolled("fall")
    assert 3 <= made.total <= 18 and len(made.sides[0].rolled) == 3


def test_without_rng_or_rolled_nothing_is_rolled_and_the_json_is_unchanged(skirmish: ModuleType) -> None:
    data = skirmish.resolve("broken_ground", moved=8).to_dict()
    assert "rolled" not in data["rolls"][0]
    with pytest.raises(RuleInputError, match="was not rolled"):
        skirmish.resolve("broken_ground", moved=8).rolled("fall")


def test_a_roll_reports_its_outcome_beside_its_chances(skirmish: ModuleType) -> None:
    resolution = skirmish.resolve("broken_ground", moved=8, rolled={"fall": [3, 4, 2]})
    roll = resolution.roll("fall")
    assert str(roll.probability) == "7/27"  # DEX 8 after broken ground's -2
    made = roll.rolled
    assert made is not None and made.total == 9 and made.margin == 1
    assert made.outcome == "failure" and made.success is False
    assert made.effects and "falls down" in made.effects[0]
    json.dumps(resolution.to_dict())


# ---------------------------------------------------------------------------- every form, told


def test_exploding_named_die_and_its_natural_tier() -> None:
    opend6 = book("opend6")
    made = opend6.resolve("wild_check", rolled={"action": [3, 4, 6, 6, 1]}).rolled("action")
    wild = made.sides[0].rolled[2]
    assert (wild.name, wild.faces, wild.explosions, wild.value, wild.natural) == ("wild", (6, 6, 1), 2, 13, 6)
    assert made.total == 20 and made.outcomes[0] == "critical_success" and made.success
    complication = opend6.resolve("wild_check", rolled={"action": [6, 6, 1]}).rolled("action")
    assert complication.outcome == "complication"
    assert complication.effects == ("Something goes wrong.",)


def test_a_tier_on_two_named_dice_reads_each_first_face() -> None:
    """`natural 1 on trait_die and natural 1 on wild always fails`: the dice told die by die."""
    forms = book("forms")
    both = forms.resolve("both", bonus=5, target=3, rolled={"trait_wild": [1, 1]}).rolled("trait_wild")
    assert both.total == 6 and both.outcome == "critical_failure" and not both.success
    one = forms.resolve("both", bonus=5, target=3, rolled={"trait_wild": [1, 2]}).rolled("trait_wild")
    assert one.outcome == "success" and one.success
    # the trait die aces (4, then 3): its first face is 4, an `ace` with `or`
    ace = forms.resolve("both", bonus=0, target=12, rolled={"trait_wild": [4, 3, 2]}).rolled("trait_wild")
    assert ace.total == 7 and ace.outcome == "ace" and not ace.success


def test_keep_highest_and_lowest_mark_the_dice_kept() -> None:
    idioms = book("idioms")
    made = idioms.resolve("blades", rolled={"action": [2, 5], "critical": [6, 6]})
    action = made.rolled("action")
    assert action.total == 5 and action.outcome == "partial_success"
    assert [d.kept for d in action.sides[0].rolled] == [False, True]
    assert made.rolled("critical").total == 2 and made.rolled("critical").success
    lowest = idioms.resolve("zero_dice", rolled={"desperate": [2, 5]}).rolled("desperate")
    assert lowest.total == 2 and [d.kept for d in lowest.sides[0].rolled] == [True, False]


def test_a_keep_passing_over_faces_and_the_die_it_leaves() -> None:
    """`highest 2 of (d6+d8+d8) ignoring 1`: the 1s are never kept, and with fewer dice standing
    the keep adds what stands; `largest die left by ... else 4` reads the size of the largest die
    after the two kept (marked kept), the smaller of two equal dice kept, 4 when none is left."""
    forms = book("forms")
    made = forms.resolve("kept", rolled={"hitches": [1, 8, 1]}).rolled("hitches")
    assert made.total == 8 and [d.kept for d in made.sides[0].rolled] == [False, True, False]
    # d4, d6, d8, d10 on 4, 4, 1, 7: the d10 and the d4 (the smaller of the two 4s) are kept, the
    # d6 left; the d8 is a hitch
    left = forms.resolve("kept", rolled={"effect": [4, 4, 1, 7]}).rolled("effect")
    assert left.total == 6 and [d.kept for d in left.sides[0].rolled] == [False, True, False, False]
    none = forms.resolve("kept", rolled={"effect": [1, 3, 1, 9]}).rolled("effect")
    assert none.total == 4 and not any(d.kept for d in none.sides[0].rolled)


def test_rerolled_dice_show_both_faces() -> None:
    made = book("idioms").resolve("push", rolled={"pushed": [6, 3, 1, 2, 6]}).rolled("pushed")
    dice = made.sides[0].rolled
    assert [d.faces for d in dice] == [(6,), (3, 1), (2, 6)]
    assert [d.rerolled for d in dice] == [False, True, True]
    assert made.total == 2 and made.success


def test_the_better_of_two_and_at_most_n_explosions() -> None:
    made = book("idioms").resolve("trait_and_wild", rolled={"trait": [8, 3, 2]}).rolled("trait")
    assert made.total == 11 and faces(made) == [[8, 3], [2]]
    capped = book("forms").resolve("explosions", rolled={"capped": [6, 6, 6, 2]}).rolled("capped")
    assert faces(capped) == [[6, 6, 6], [2]]  # at most 2 explosions: the third 6 stands
    assert capped.total == 20


def test_pairs_sort_each_side_and_give_ties_to_the_defender() -> None:
    made = book("risk").resolve("battle", rolled={"battle": [6, 3, 2, 5, 5]}).rolled("battle")
    assert made.total == 1
    assert [d.kept for d in made.sides[0].rolled] == [True, False, False, False, True]


def test_opposed_rolls_have_two_sides() -> None:
    made = book("forms").resolve("contest", rolled={"contest": [6, 2, 3, 4]}).rolled("contest")
    assert [side.total for side in made.sides] == [10, 7]  # exploding d6 (6+2) + bonus 2 vs 2d6
    assert made.outcome == "win" and made.success


def test_fate_counts_pools_and_dice_arithmetic() -> None:
    rolling = book("forms")
    fate = rolling.resolve("fate", rolled={"fate": [-1, 0, 1, 1]}).rolled("fate")
    assert fate.total == 3  # +1, and the bonus 2
    pool = rolling.resolve("pool", rolled={"pool": [5, 6, 1, 2]}).rolled("pool")
    assert pool.total == 2 and pool.success and [d.kept for d in pool.sides[0].rolled] == [True, True, False, False]
    half = rolling.resolve("arithmetic", rolled={"half": [1, 1, 1], "floor": [1, 2]})
    assert half.rolled("half").total == 2 and half.rolled("floor").total == 0


def test_a_total_told() -> None:
    rolling = book("forms")
    made = rolling.resolve("plain", rolled={"check": 15}).rolled("check")
    assert made.source == "total" and made.total == 17 and made.success  # d20 15 + bonus 2 >= 12
    assert made.sides[0].rolled == () and made.consequences == ()
    failed = rolling.resolve("plain", rolled={"check": 3}).rolled("check")
    assert [(c.outcome, c.stat, c.value) for c in failed.consequences] == [("failure", "exhaustion", 1)]
    assert rolling.resolve("pool", rolled={"pool": 3}).rolled("pool").success


def test_a_table_rolled_on_dice() -> None:
    import generated.mecha_tables as mecha

    seeded = mecha.resolve("heavy_damage", rng=4)
    table = seeded.tables[0]
    assert table.rolled is not None and table.result == table.rolled.total
    assert table.selected is not None and table.selected.key == str(table.result)
    told = mecha.resolve("fire_control", heavy_hit=1, rolled={"fire_control": [6]})
    assert told.tables[0].result == 7 and told.tables[0].rolled.bonus == 1
    assert told.rolled("fire_control").outcome == f"row {told.tables[0].selected.key}"


# ---------------------------------------------------------------------------- bad results


@pytest.mark.parametrize(
    ("rolled", "message"),
    [
        ({"fall": [3, 4, 9]}, r"face 9 \(the 3rd told\) is not a face of a d6 \(1\.\.6\)"),
        ({"fall": [3, 4]}, "2 faces told, and the dice take more"),
        ({"fall": [3, 4, 2, 1]}, "4 faces told, but the dice take 3"),
        ({"fall": 2}, r"2 is not a total 3d6 can show \(3\.\.18\)"),
        ({"fall": 19}, "19 is not a total"),
        ({"fall": "nine"}, "a total told is a whole number"),
        ({"fall": [3, 4.5, 2]}, "the faces told are whole numbers"),
        ({"fal": 9}, r"no roll `fal` in this situation \(rolled: fall\)"),
        (["fall", 9], "rolled maps each roll's name"),
    ],
)
def test_bad_results_told_are_clear_errors(skirmish: ModuleType, rolled: object, message: str) -> None:
    with pytest.raises(RuleInputError, match=message):
        skirmish.resolve("broken_ground", moved=8, rolled=rolled)


def test_bad_rng_and_forms_that_need_faces() -> None:
    rolling = book("forms")
    with pytest.raises(RuleInputError, match="rng is a whole-number seed"):
        rolling.resolve("plain", rng="seven")
    with pytest.raises(RuleInputError, match="opposed roll is told by the faces"):
        rolling.resolve("contest", rolled={"contest": 9})
    with pytest.raises(RuleInputError, match=r"reads a named die|first rolled"):
        rolling.resolve("named", rolled={"action": 12})
    with pytest.raises(RuleInputError, match="the dice that met the target"):
        rolling.resolve("pool", rolled={"pool": 5})
