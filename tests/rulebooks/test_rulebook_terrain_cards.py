"""The terrain cards of the second source (001): worked examples per family, and situations
resolved through the generated module's public API, every number worked out by hand.

A d20 at or under A succeeds on A faces of 20; at least one success among B such dice is
1 - ((20 - A)/20)^B.
"""

from __future__ import annotations

from fractions import Fraction
from types import ModuleType

import pytest

from dsl.checks.examples import all_examples
from tests.conftest import RULEBOOKS, compiled, module_for

BOOK = RULEBOOKS / "terrain_cards.rules"

TERRAINS = [
    "woods", "jungle", "steep_hills", "high_mountain", "primeval_forest", "dense_jungle",
    "arctic_plains", "mid_mountain", "swamp", "open_sea", "rocky_ground", "sand_dunes", "beach",
    "zero_g", "generator_room", "engine_room", "energy_core_room",
]  # fmt: skip
TRAITS = [
    "difficult", "very_difficult", "saturation", "high_saturation", "low_visibility",
    "poor_visibility", "zero_visibility", "white_noise",
    "insecure", "adverse", "dangerous", "aggressive", "lethal", "savage",
]  # fmt: skip
CONDITIONS = ["storm", "lof_roll", "other_mods_stack", "hostility_level", "damage_value"]

ZERO_LOF = (
    "draw LoF through a Zero Visibility Zone: only Skills that need no LoF, or base to base contact "
    "with a target inside"
)
NO_STORM = "occur over this terrain: a Storm occurs only in Jungle, Aquatic, Desert or Mountain terrain"


@pytest.fixture(scope="module")
def cards() -> ModuleType:
    return module_for(BOOK)


def test_every_terrain_trait_and_condition_has_three_examples() -> None:
    book = compiled(BOOK).book
    assert book is not None
    counts: dict[str, int] = {}
    for example in all_examples(book):
        for name in set(example.rules):
            counts[name] = counts.get(name, 0) + 1
    names = TERRAINS + TRAITS + CONDITIONS
    assert {n: counts.get(n, 0) >= 3 for n in names} == dict.fromkeys(names, True)
    # Every terrain of the source is a terrain of the rulebook, Storm a condition.
    kinds = {name: rule.kind for name, rule in book.rules.items()}
    assert {kinds[t] for t in TERRAINS} == {"terrain"}
    assert kinds["storm"] == "condition"
    assert {kinds[t] for t in TRAITS} == {"trait"}


def test_rulebook_info(cards: ModuleType) -> None:
    assert cards.RULEBOOK.name == "terrain_cards"
    assert cards.RULEBOOK.source.startswith("Terrain cards of a 28 mm skirmish wargame")


def test_storm_over_woods_shifts_low_to_poor(cards: ModuleType) -> None:
    # Woods are Low VIS; the Storm makes them Poor: -6, and the woods' -3 is suppressed (never two
    # Zone of Visibility MODs).  BS 13 - 6 = 7: 7/20.  SAT as the woods: B3 - 1 = B2, so at least
    # one of 2d20 <= 7 is 1 - (13/20)^2 = 1 - 169/400 = 231/400.
    result = cards.resolve(["woods", "storm", "lof_roll"], attribute=13, burst=3)
    assert result.stats["vis"] == "poor"
    assert result.stats["zone_vis"] == "low"
    assert result.stats["attribute"] == 7
    assert result.stats["burst"] == 2
    statuses = {(m.rule, m.text): m.status for m in result.modifiers if m.target == "attribute"}
    assert statuses[("low_visibility", "attribute -3")] == "suppressed"
    assert statuses[("poor_visibility", "attribute -6")] == "applied"
    assert result.roll("lof").probability == Fraction(7, 20)
    assert result.roll("hit").probability == Fraction(231, 400)
    # Insecure, as the woods: only on 20.
    assert result.roll("hostile").probability == Fraction(1, 20)


def test_range_mod_stacks_without_naming_the_roll(cards: ModuleType) -> None:
    # Woods under a Storm, -3 Range: 13 - 6 - 3 = 4; the roll is not called for unless named.
    result = cards.resolve(["woods", "storm"], attribute=13, range_mod=-3)
    assert result.stats["attribute"] == 4
    assert [r.name for r in result.rolls] == ["hostile"]


def test_low_and_poor_zones_give_minus_six_and_range_still_stacks(cards: ModuleType) -> None:
    # A LoF through a Low and a Poor zone: -6, not -9.  With a -3 Range MOD: -9 in all.
    both = ["low_visibility", "poor_visibility", "lof_roll"]
    assert cards.resolve(both, attribute=12).stats["attribute"] == 12 - 6
    assert cards.resolve(both, attribute=12, range_mod=-3).stats["attribute"] == 12 - 9
    # The two terrains do the same: Woods (Low) and Dense Jungle (Poor); their Burst MODs never
    # stack either: only the -2B, B4 - 2 = B2.  BS 12 - 6 = 6: 1 - (14/20)^2 = 51/100.
    result = cards.resolve(["woods", "dense_jungle", "lof_roll"], attribute=12, burst=4)
    assert (result.stats["attribute"], result.stats["burst"]) == (6, 2)
    assert result.roll("hit").probability == Fraction(51, 100)


def test_storm_over_dense_jungle_is_zero_visibility(cards: ModuleType) -> None:
    result = cards.resolve(["dense_jungle", "storm"])
    assert result.stats["vis"] == "zero"
    assert ZERO_LOF in [r.what for r in result.restrictions]


def test_storm_over_a_terrain_without_vis_adds_none(cards: ModuleType) -> None:
    # Steep Hills: VIS N/A, so no VIS conditions to increase; MOV 6-2 is Difficult: 2 and 2.
    result = cards.resolve(["steep_hills", "storm"], MOV_1=6, MOV_2=2)
    assert result.stats["vis"] == "none"
    assert (result.stats["MOV_1"], result.stats["order_move"]) == (2, 4)
    assert not [m for m in result.modifiers if m.target == "attribute"]
    assert any(n.erratum and "VIS: N/A" in n.text for n in result.notes)


def test_no_storm_in_zero_g(cards: ModuleType) -> None:
    result = cards.resolve(["engine_room", "storm"], attribute=12)
    assert NO_STORM in [r.what for r in result.restrictions]
    # The Engine Room's Low Visibility stays Low: 12 - 3 = 9.
    assert (result.stats["vis"], result.stats["attribute"]) == ("low", 9)


def test_very_difficult_movement(cards: ModuleType) -> None:
    # Jungle, MOV 6-4: the second value only, 4, for one Short Movement Skill.
    result = cards.jungle(MOV_1=6, MOV_2=4)
    assert (result.stats["MOV_1"], result.stats["order_move"]) == (4, 4)
    assert "declare two Short Movement Skills in the same order" in [r.what for r in result.restrictions]
    # A Dodge in Reactive Turn moves no more than 1 inch.
    assert cards.jungle(turn="reactive", movement="dodge", reaction_move=2).stats["reaction_move"] == 1
    # A BS Attack declares no Movement Skill: MOV 6-4 stays, nothing is forbidden.
    still = cards.resolve("jungle", MOV_1=6, MOV_2=4, movement="none")
    assert still.stats["MOV_1"] == 6
    assert still.restrictions == ()


def test_optional_mov_of_the_rooms(cards: ModuleType) -> None:
    # With the option the Generator Room is Difficult: MOV 6-2 gives 2 and 2; without it, 6 and 2.
    assert cards.resolve("generator_room", MOV_1=6, MOV_2=2).stats["order_move"] == 4
    free = cards.resolve("generator_room", MOV_1=6, MOV_2=2, optional_mov=False)
    assert free.stats["MOV_1"] == 6
    assert free.restrictions == ()


def test_white_noise_only_for_multispectral_visors(cards: ModuleType) -> None:
    # Energy Core Room: Low VIS for all, 12 - 3 = 9.  An MSV trooper's ARO is at -6, which
    # suppresses the -3: 12 - 6 = 6, 6/20 = 3/10.
    plain = cards.resolve(["energy_core_room", "lof_roll"], attribute=12, responding=True)
    assert plain.stats["attribute"] == 9
    msv = cards.resolve(["energy_core_room", "lof_roll"], attribute=12, responding=True, msv=True)
    assert (msv.stats["attribute"], msv.stats["vis"]) == (6, "zero")
    assert msv.roll("lof").probability == Fraction(3, 10)
    # Not responding, the MSV trooper cannot draw LoF at all.
    blind = cards.resolve("energy_core_room", msv=True)
    assert ZERO_LOF in [r.what for r in blind.restrictions]


def test_hostility_then_damage_value(cards: ModuleType) -> None:
    # Dense Jungle is Dangerous: 18, 19 or 20 on a d20, 3/20; then roll or choose a Damage Value.
    result = cards.resolve(["dense_jungle", "damage_value"], roll=19)
    hostile = result.roll("hostile")
    assert hostile.probability == Fraction(3, 20)
    assert hostile.effects["success"].startswith("The Game Conditions strike the trooper")
    (table,) = result.tables
    assert table.selected is not None
    assert dict(table.selected.values) == {"damage_type": "ARM/BTS", "strength": "12 (DA Special Ammunition)"}
    # The damage rows: 1..3 is 3 faces of 20, 15 is 1 face.
    probabilities = {row.key: row.probability for row in table.rows}
    assert probabilities["1..3"] == Fraction(3, 20)
    assert probabilities["15"] == Fraction(1, 20)


def test_hostility_level_table(cards: ModuleType) -> None:
    # 11..14 is 4 faces of 20 = 1/5; Savage is the 20 alone.
    (table,) = cards.hostility_level(roll=12).tables
    assert table.selected is not None
    assert table.selected.values["level"] == "Dangerous"
    probabilities = {row.key: row.probability for row in table.rows}
    assert probabilities == {
        "1..5": Fraction(1, 4),
        "6..10": Fraction(1, 4),
        "11..14": Fraction(1, 5),
        "15..17": Fraction(3, 20),
        "18..19": Fraction(1, 10),
        "20": Fraction(1, 20),
    }


def test_minimum_burst_is_one(cards: ModuleType) -> None:
    # Primeval Forest is High Saturation: B2 - 2 = 0, raised to 1.
    result = cards.resolve("primeval_forest", burst=2, responding=True)
    assert result.stats["burst"] == 1
    floors = [m for m in result.modifiers if m.target == "burst" and m.operation == "min"]
    assert floors and floors[0].text == "burst min 1"
