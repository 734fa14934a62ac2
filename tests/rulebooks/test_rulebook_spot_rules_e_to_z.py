"""The second half of the spot rules of source 002 (Explosions to Zero-gravity Combat).

Every number below is worked out by hand from the source text in the comment above it: on d100 a
rating of N succeeds on N of the 100 faces; a resistance roll on 50 + (active - passive) x 5.
"""

from __future__ import annotations

from fractions import Fraction
from types import ModuleType

import pytest

from tests.conftest import RULEBOOKS, compiled, module_for

BOOK = RULEBOOKS / "spot_rules_e_to_z.rules"

# Every sub-heading of this half that holds a rule (the Radiation Effects Table is a table of
# the rule Radiation; Wind, Cloud Cover and Rain are sub-headings of Weather Conditions).
HEADINGS = [
    "Explosions",
    "Extended Range",
    "Falling",
    "Fighting While Down",
    "Fire and Heat",
    "Firing Into Combat",
    "Fortified Positions",
    "Improvised Parrying Weapons",
    "Improvised Weapons",
    "Knockback",
    "Knockout Attacks",
    "Light Sources",
    "Mass Combat",
    "Missile Fire While Moving",
    "Mounted Combat",
    "Natural Weapons",
    "Point-blank Range",
    "Poisons",
    "Poison Antidotes",
    "Prone",
    "Pulling Blows",
    "Quickdraws",
    "Radiation",
    "Shields and Missile Fire",
    "Shooting Up or Down",
    "Slippery or Unstable Surfaces",
    "Stunning or Subduing",
    "Superior/Inferior Positions",
    "Superior Numbers",
    "Sweep Attacks",
    "Thrown Weapons",
    "Two Weapons",
    "Underwater Combat",
    "Vacuum",
    "Volley Fire",
    "Weapon Length",
    "Weather Conditions",
    "Wind",
    "Cloud Cover",
    "Rain",
    "Zero-gravity Combat",
]


@pytest.fixture(scope="module")
def spot() -> ModuleType:
    return module_for(BOOK)


def test_every_spot_rule_of_the_second_half_has_two_examples() -> None:
    book = compiled(BOOK).book
    assert book is not None
    per_heading: dict[str, int] = {}
    for rule in book.rules.values():
        per_heading[rule.cites or ""] = per_heading.get(rule.cites or "", 0) + len(rule.examples)
    assert {h: per_heading.get(h, 0) >= 2 for h in HEADINGS} == dict.fromkeys(HEADINGS, True)


def test_the_radiation_effects_table_is_encoded() -> None:
    book = compiled(BOOK).book
    assert book is not None
    assert book.tables["radiation_effects"].cites == "Radiation Effects Table"


def test_the_coverage_list_names_every_heading() -> None:
    header = BOOK.read_text(encoding="utf-8").split("rulebook spot_rules_e_to_z", 1)[0]
    assert [h for h in [*HEADINGS, "Radiation Effects Table"] if f"#   {h} ." not in header] == []


def test_a_stick_of_dynamite(spot: ModuleType) -> None:
    # 5D6 to two meters, one D6 less every two meters after, nothing beyond ten.
    expected = {1: "5d6", 2: "5d6", 3: "4d6", 4: "4d6", 5: "3d6", 7: "2d6", 9: "1d6", 10: "1d6"}
    for distance, dice in expected.items():
        assert str(spot.explosions(blast_dice=5, distance=distance).derived["blast"]) == dice, distance
    assert spot.explosions(blast_dice=5, distance=11).derived["caught"] is False


def test_a_large_character_thrown_down_a_cliff(spot: ModuleType) -> None:
    # 12 m: 4D6; thrown: 8D6; SIZ 30 adds (30 - 1) / 20 = 1 die: 9D6.
    result = spot.falling(fall_distance=12, thrown_down=True, SIZ=30)
    assert result.stats["fall_dice"] == 9
    assert str(result.derived["fall_damage"]) == "9d6"


def test_firing_into_combat_with_degrees_of_success(spot: ModuleType) -> None:
    # 75 - 20 = 55: critical 55/20 = 2.75 -> 3 faces, special 11 -> 8 more, fumble 100,
    # success 12..55 (44), failure 56..99 (44).
    roll = spot.firing_into_combat(skill=75, into_combat=True).roll("hit")
    assert roll.probability == Fraction(55, 100)
    assert roll.outcomes == {
        "critical": Fraction(3, 100),
        "special": Fraction(8, 100),
        "fumble": Fraction(1, 100),
        "success": Fraction(44, 100),
        "failure": Fraction(44, 100),
    }


def test_poison_and_antidote(spot: ModuleType) -> None:
    # POT 16 - antidote 5 = 11 against CON 13: 50 + (13 - 11) x 5 = 60; damage 11, or 6 resisted.
    result = spot.poison_antidotes(POT=16, antidote_pot=5, CON=13)
    assert result.roll("resist_poison").probability == Fraction(3, 5)
    assert (result.derived["poison_damage"], result.derived["poison_damage_resisted"]) == (11, 6)


def test_knockback_distance(spot: ModuleType) -> None:
    # SIZ 10 against 27 damage: 50 - 85 < 0, no chance; 17 over SIZ: 3 meters.
    result = spot.knockback(SIZ=10, knockback_damage=27)
    assert result.roll("resist_knockback").probability == 0
    assert result.derived["knocked_meters"] == 3


def test_vacuum_doubles_every_round(spot: ModuleType) -> None:
    assert [spot.vacuum(vacuum_round=r, exhaled=True).derived["hemorrhage"] for r in range(1, 6)] == [1, 2, 4, 8, 16]


def test_volley_fire_every_five_dex_ranks(spot: ModuleType) -> None:
    # DEX 17, four attacks a round allowed: ranks 17, 12, 7, 2 -> 4; 20 a round: still 4.
    assert spot.volley_fire(DEX=17, attacks_per_round=4).derived["volley_attacks"] == 4
    assert spot.volley_fire(DEX=17, attacks_per_round=20).derived["last_volley_rank"] == 2


def test_weather_stacks_wind_and_rain(spot: ModuleType) -> None:
    # Windstorm (STR 11) -50 and snow -25 on a Navigation 90: 15; the rain roll under complete
    # cover: 90/100; STR 13 vs 11: 60.
    result = spot.weather_conditions(skill=90, wind_str=11, precipitation_kind="snow", clouds="complete_clouds")
    assert result.stats["skill"] == 15
    assert result.roll("rains").probability == Fraction(9, 10)
    assert spot.wind(STR=13, wind_str=11).roll("stand_upright").probability == Fraction(3, 5)


def test_radiation_table_by_potency(spot: ModuleType) -> None:
    names = [spot.radiation(radiation_pot=p).derived["radiation_intensity"] for p in (3, 5, 10, 17, 20, 29, 30, 60)]
    assert names == ["Low", "Low", "Moderate", "Medium", "High", "Acute", "Fatal", "Fatal"]


def test_sweeps_and_underwater_blows_do_half_damage(spot: ModuleType) -> None:
    # A worked example cannot state a halved pool; the resolver reports it as the total halved,
    # rounded up.  A sweep is Easy: 40 x 2 = 80.  Impaling weapons keep their damage underwater.
    sweep = spot.sweep_attacks(skill=40, damage="2d6")
    assert (sweep.stats["skill"], str(sweep.stats["damage"])) == (80, "2d6/2 round up")
    assert str(spot.underwater_combat(damage="1d8+1", damage_type="slashing").stats["damage"]) == "(1d8+1)/2 round up"
    assert str(spot.underwater_combat(damage="1d8+1", damage_type="impaling").stats["damage"]) == "1d8+1"


def test_grades_compose_by_steps() -> None:
    # Long range (1/5) and a prone target at long range (Difficult): 1/10, 45 / 10 = 4.5 -> 5,
    # the same as 45 / 5 = 9, / 2 = 4.5 -> 5.  Medium range (Difficult) and a volley (Difficult):
    # 1/5, 60 / 5 = 12.  Long range (1/5) and a volley (Difficult): 1/10, 60 / 10 = 6.
    module = module_for(BOOK)
    long_prone = module.resolve(
        ["extended_range", "prone"], skill=45, attack_kind="missile", base_range=20, target_range=70, target_prone=True
    )
    assert long_prone.stats["skill"] == 5
    medium_volley = module.resolve(["volley_fire", "extended_range"], skill=60, base_range=20, target_range=30)
    assert medium_volley.stats["skill"] == 12
    long_volley = module.resolve(["volley_fire", "extended_range"], skill=60, base_range=20, target_range=70)
    assert long_volley.stats["skill"] == 6


def test_armor_counts_half_only_up_to_three_meters(spot: ModuleType) -> None:
    # Armor 6: 3 at 3 m, 0 at 4 m and beyond.
    assert [spot.falling(fall_distance=d, armor=6).derived["fall_armor"] for d in (1, 3, 4, 12)] == [3, 3, 0, 0]


def test_the_ride_skill_caps_the_superior_position_bonus(spot: ModuleType) -> None:
    # 80 + 10 = 90, limited to Ride 45; with Ride 95 the bonus counts: 90.
    assert spot.mounted_combat(skill=80, mounted=True, ride=45, target_on_foot=True).stats["skill"] == 45
    assert spot.mounted_combat(skill=80, mounted=True, ride=95, target_on_foot=True).stats["skill"] == 90


def test_acute_radiation_sterilizes_without_a_roll(spot: ModuleType) -> None:
    # High (POT 20-24): a CON x1 roll, CON 12 -> 12/100; Acute and Fatal: immediate, no roll.
    assert spot.radiation(radiation_pot=22, CON=12).roll("sterility").probability == Fraction(12, 100)
    names = [r["name"] for r in spot.radiation(radiation_pot=26, CON=12).to_dict()["rolls"]]
    assert "sterility" not in names
