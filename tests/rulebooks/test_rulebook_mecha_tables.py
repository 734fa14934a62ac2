"""The mecha and vehicle tables of source 003: worked examples per heading, and situations
resolved through the generated module's public API, every number worked out by hand.

A piloting roll is the highest of the pilot's skill dice (d6 each) against a threshold: the
highest of n d6 is at most k in (k/6)^n of the rolls.
"""

from __future__ import annotations

from fractions import Fraction
from types import ModuleType

import pytest

from tests.conftest import RULEBOOKS, compiled, module_for, run_cli

BOOK = RULEBOOKS / "mecha_tables.rules"

HEADINGS = [
    "TERRAIN TYPE",
    "TERRAIN MODIFIERS",
    "WEATHER/ENVIRONMENT MODIFIERS",
    "VEHICLE SIZE FOREST ADJUSTMENT TABLE",
    "SKIDDING",
    "TERRAIN",
    "NUMBER OF ACTIONS",
    "FIRING MODIFIERS",
    "RANGE TO TARGET",
    "ATTACKER MOVEMENT",
    "ATTACKER AIMING",
    "TARGET MOVEMENT",
    "TARGET DEFENSIVE ARC",
    "BURST FIRE",
    "WALKING FIRE",
    "SATURATION FIRE",
    "AREA OF EFFECT (AOE) ATTACK",
    "INDIRECT FIRE",
    "ANTI-MISSILE FIRE",
    "RAMMING",
    "ECM - JAM COMMUNICATIONS",
    "ECM - DEGRADE SENSORS",
    "ECM - SPOOF ATTACK",
    "EECM - COUNTERACT ECM",
    "EECM - DEGRADE ECM RANGE",
    "DAMAGE EFFECTS",
    "SYSTEM DAMAGE TABLES",
    "SUBTABLE A: FIRE CONTROL DAMAGE",
    "SUBTABLE B: STRUCTURAL DAMAGE",
    "OVERKILL EJECTING",
    "WALKER KNOCKDOWN",
    "DETECTION MODIFIERS",
    "BASE SENSOR RATINGS",
]


@pytest.fixture(scope="module")
def mecha() -> ModuleType:
    return module_for(BOOK)


def _examples_by_heading() -> dict[str, int]:
    book = compiled(BOOK).book
    assert book is not None
    counted: set[int] = set()
    per_heading: dict[str, int] = {}
    for rule in book.rules.values():
        for example in rule.examples:
            counted.add(id(example))
            per_heading[rule.cites or ""] = per_heading.get(rule.cites or "", 0) + 1
    for example in book.examples:
        if id(example) in counted:
            continue
        first = example.rules[0]
        item = book.rules.get(first) or book.tables[first]
        per_heading[item.cites or ""] = per_heading.get(item.cites or "", 0) + 1
    return per_heading


def test_every_heading_of_the_source_has_three_examples() -> None:
    per_heading = _examples_by_heading()
    assert {h: per_heading.get(h, 0) >= 3 for h in HEADINGS} == dict.fromkeys(HEADINGS, True)


def test_every_table_is_looked_up_three_times_or_once_per_row() -> None:
    book = compiled(BOOK).book
    assert book is not None
    examples = list(book.examples) + [e for r in book.rules.values() for e in r.examples]
    for name, table in book.tables.items():
        direct = sum(1 for e in examples if name in e.rules)
        assert direct >= min(3, len(table.rows)), name


def test_every_heading_is_in_the_coverage_list() -> None:
    header = BOOK.read_text(encoding="utf-8").split("rulebook mecha_tables")[0]
    missing = [h for h in [*HEADINGS, "DEFENSE ARCS", "HYDROGRAPHIC TERRAIN", "ECM/EECM"] if h not in header]
    assert missing == []


def test_the_question_of_the_issue(mecha: ModuleType) -> None:
    # A size 8 wheeled vehicle entering dense forest uphill, on ice, in heavy fog:
    # Clear 1 + Dense 7 + Ice 2 + Elevation Up 2 = 12; MP 8 x 1/2 = 4; threshold 3 + Ice 2 = 5.
    result = mecha.resolve(
        ["terrain_movement", "weather", "skidding"],
        unit="wheel",
        forest="dense",
        elevation="elevation_up",
        surface="ice",
        weather="heavy_fog",
        MP=8,
        turning=True,
    )
    assert result.derived["cost"] == 12
    assert result.stats["MP"] == 4
    assert result.stats["skid_threshold"] == 5
    skid = result.roll("skid")
    # Highest of 2d6 >= 5: 1 - (4/6)^2 = 5/9.  Fails on highest 4: 16 - 9 = 7 of 36 (MoE 1),
    # 3: 9 - 4 = 5 (MoE 2), 2: 4 - 1 = 3 (MoE 3), and the fumble, both 1: 1 (MoE 4).
    assert skid.probability == Fraction(5, 9)
    assert skid.margins == {1: Fraction(7, 36), 2: Fraction(5, 36), 3: Fraction(3, 36), 4: Fraction(1, 36)}
    assert skid.outcomes["fumble"] == Fraction(1, 36)
    # The trace says why each part applied.
    assert any(t.rule == "skidding" and t.item == "roll skid" and t.applied for t in result.trace)


def test_impassable_and_not_applicable_are_restrictions(mecha: ModuleType) -> None:
    # GEV in dense forest: X.  Tracks on calm water: N/A.
    hover = mecha.terrain_movement(unit="gev", forest="dense")
    assert str(hover.derived["cost"]) == "X"
    assert [r.what for r in hover.restrictions] == ["enter this hex: impassable (X) for this movement type"]
    tank = mecha.terrain_movement(unit="track", terrain="calm_water")
    assert str(tank.derived["cost"]) == "N/A"
    assert len(tank.restrictions) == 1


def test_forest_shift_then_the_infantry_entry(mecha: ModuleType) -> None:
    # Size 3 walker, Closed forest: -2 levels, Open: Mud 3 + Open 2 = 5.
    walker = mecha.terrain_movement(unit="walker", vehicle_size=3, forest="closed", terrain="mud")
    assert walker.stats["forest_entry"] == "open"
    assert walker.derived["cost"] == 5
    # Size 26 tank, Sparse forest: +3 levels, Closed: X for tracks.
    tank = mecha.terrain_movement(unit="track", vehicle_size=26, forest="sparse")
    assert tank.stats["forest_entry"] == "closed"
    assert str(tank.derived["cost"]) == "X"


def test_sub_table_chain_probabilities(mecha: ModuleType) -> None:
    # Heavy damage: each row 1/6; row 1 sends to Sub-table A with the +1 of a heavy hit.
    heavy = mecha.heavy_damage(roll=1)
    table = heavy.tables[0]
    assert table.selected.values["effect"] == "Roll on Sub-table A, +1"
    assert all(row.probability == Fraction(1, 6) for row in table.rows)
    # Sub-table A with the +1: d6 + 1 is 2..7, so row 1 is never rolled and row 7 is 1/6.
    fire = mecha.fire_control(roll=6, heavy_hit=1).tables[0]
    probabilities = {row.key: row.probability for row in fire.rows}
    assert probabilities["1"] == 0
    assert probabilities["7"] == Fraction(1, 6)
    assert fire.selected.values["effect"] == "Ammunition/Fuel Hit (Roll 1d6)"
    # The ammunition roll: 4-6 is a chain reaction, 1/2.  So 1/6 x 1/6 x 1/2 = 1/72 of heavy hits
    # end in a chain reaction through the first row (before any roll twice).
    ammo = mecha.ammunition_hit(roll=5).tables[0]
    chain = {row.key: row.probability for row in ammo.rows}["4..6"]
    assert chain == Fraction(1, 2)
    assert Fraction(1, 6) * probabilities["7"] * chain == Fraction(1, 72)


def test_walker_knockdown_fumble_sends_to_light_damage(mecha: ModuleType) -> None:
    # Size 6, 12 damage (2 x 6) and MoS 2: threshold 3; highest of 2d6 >= 3: 1 - (2/6)^2 = 8/9.
    result = mecha.walker_knockdown(unit="walker", vehicle_size=6, damage_taken=12, MoS=2)
    roll = result.roll("knockdown")
    assert roll.probability == Fraction(8, 9)
    assert roll.outcomes["fumble"] == Fraction(1, 36)
    assert "light_damage" in str(roll.effects["fumble"])


def test_ramming_and_firing(mecha: ModuleType) -> None:
    # Rear ram, 30 - 8 = 22: 20-99, air/space +5; size 10 + 5 = 15.
    ram = mecha.resolve("ramming", ram_direction="rear", own_speed=30, other_speed=8, air_space=True, vehicle_size=10)
    assert ram.stats["impact_speed"] == 22
    assert ram.stats["ram_dm"] == 15
    # Long -2, half top speed -2, target moving 25 +3, 1 obscurement: -2; aiming for AUX: 3 - 1 dice.
    fire = mecha.firing(
        range_band="long",
        speed="half_top_speed",
        target_speed=25,
        obscurement_points=1,
        aim="aux_systems",
        attack_dice=3,
    )
    assert fire.stats["attack"] == -2
    assert fire.stats["attack_dice"] == 2


def test_ejection_odds(mecha: ModuleType) -> None:
    # One die: 6 alone is 1/6; 2 or more is 5/6.
    assert mecha.overkill_ejecting(ejection="no_ejection_system").roll("eject").probability == Fraction(1, 6)
    assert mecha.overkill_ejecting(ejection="has_ejection_system").roll("eject").probability == Fraction(5, 6)


def test_the_target_movement_table_as_written_is_reported() -> None:
    # The fixture types the source's "501-99" as written.  The band is empty (it ends below where
    # it starts), so it covers nothing: speeds 501 to 1000 have no row at all.
    path = "tests/fixtures/invalid/E302_target_movement_as_written.rules"
    result = run_cli("check", path)
    assert result.exit_code == 1
    assert result.output == (
        f"{path}:18:5: error[E401]: table `target_movement` has no row for 501..1000 (`target_speed` is int 0..1000)\n"
        "  18 |     100..500: +5\n"
        "     |     ^^^^^^^^^^^^\n"
        "     = hint: add a row for 501..1000, or an `else` row\n"
        f"{path}:19:5: error[E302]: the range 501..99 is empty: it ends below where it starts\n"
        "  19 |     501..99: +6\n"
        "     |     ^^^^^^^\n"
        "     = hint: did you mean 501..999?\n"
        "checked 1 rulebook: 2 errors, 0 warnings\n"
    )


def test_chain_reactions_per_hit_through_every_roll_twice(mecha: ModuleType) -> None:
    # Expected chain reactions per hit, Roll Twice followed to any depth, from the row chances the
    # resolver gives.  Sub-table A: E_A = P(7) x P(4-6) + P(6) x 2 E_A, so E_A = P(7) P(4-6) / (1 - 2 P(6)).
    # Heavy: E_H = P(1) E_A + P(6) x 2 E_H, so E_H = P(1) E_A / (1 - 2 P(6)).
    def rows(result: object) -> dict[str, Fraction]:
        return {row.key: row.probability for row in result.tables[0].rows}  # type: ignore[attr-defined]

    chain = rows(mecha.ammunition_hit(roll=1))["4..6"]
    heavy = rows(mecha.heavy_damage(roll=1))
    light = rows(mecha.light_damage(roll=1))
    a_heavy = rows(mecha.fire_control(roll=1, heavy_hit=1))
    a_light = rows(mecha.fire_control(roll=1, heavy_hit=0))
    # Heavy: 1/6 x 1/2 / (1 - 1/3) = 1/8 per roll on Sub-table A; 1/6 x 1/8 / (2/3) = 1/32 per hit.
    e_a = a_heavy["7"] * chain / (1 - 2 * a_heavy["6"])
    assert e_a == Fraction(1, 8)
    assert heavy["1"] * e_a / (1 - 2 * heavy["6"]) == Fraction(1, 32)
    # Light: Sub-table A without the +1 never reaches row 7: no chain reaction, ever.
    assert a_light["7"] == 0
    assert light["1"] * a_light["7"] * chain == 0


def test_the_size_shift_does_not_move_the_trees(mecha: ModuleType) -> None:
    # Size 16 tank in Open forest: pays Dense (Clear 1 + 5 = 6), but the hex stays Open:
    # obscurement 1 and hull down +2, alone or resolved with the movement cost.
    alone = mecha.resolve(["hex_obscurement", "hull_down"], unit="track", vehicle_size=16, forest="open")
    together = mecha.resolve(
        ["terrain_movement", "hex_obscurement", "hull_down"], unit="track", vehicle_size=16, forest="open"
    )
    for result in (alone, together):
        assert result.stats["obscurement"] == 1
        assert result.derived["forest_hull_down"] == 2
    assert together.derived["cost"] == 6
    assert together.stats["forest_entry"] == "dense"
