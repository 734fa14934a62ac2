"""The first half of source 002 ("7. Spot Rules", introduction and Acid to Entangling).

Every spot rule of the half carries at least two worked examples; the header comment lists every
heading of the half; and a few situations are resolved here through the generated module, with
the numbers worked out by hand in the comments.  d100 <= N succeeds on N of the 100 faces.
"""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction
from itertools import product
from types import ModuleType

import pytest

from dsl.checks.examples import all_examples
from tests.conftest import RULEBOOKS, compiled, module_for

PATH = RULEBOOKS / "spot_rules_a_to_e.rules"

# Every heading and sub-heading of the half, as the source prints it, with the citation of the
# rules that encode it.
SECTIONS = {
    "Acid": ["7. Acid"],
    "Aerial Combat": ["7. Aerial Combat"],
    "Aimed Attacks": ["7. Aimed Attacks"],
    "Taking More Time": ["7. Aimed Attacks: Taking More Time"],
    "Targeting a Specific Area": ["7. Aimed Attacks: Targeting a Specific Area"],
    "Ambushes": ["7. Ambushes"],
    "Area Attacks": ["7. Area Attacks"],
    "Armor Damaged": ["7. Armor Damaged"],
    "Aura Attacks": ["7. Aura Attacks"],
    "Autofire": ["7. Autofire"],
    "Backstabs and Helpless Opponents": ["7. Backstabs and Helpless Opponents"],
    "Big and Little Targets": ["7. Big and Little Targets"],
    "Both Sides Surprised": ["7. Both Sides Surprised"],
    "Broken Weapons": ["7. Broken Weapons"],
    "Chases": ["7. Chases"],
    "Range Track": ["7. Chases: Range Track"],
    "Chases on Foot": ["7. Chases: Chases on Foot"],
    "Vehicular Chases": ["7. Chases: Vehicular Chases"],
    "Maneuvers": ["7. Chases: Maneuvers", "7. Chases: Maneuvers (Vehicle Damage)"],
    "Skill Roll Modifiers Chart": ["7. Chases: Skill Roll Modifiers Chart"],
    "Individual Actions": ["7. Chases: Individual Actions"],
    "Chase Trouble Table": ["7. Chases: Chase Trouble Table"],
    "Choking, Drowning, and Asphyxiation": ["7. Choking, Drowning, and Asphyxiation"],
    "Close Combat": ["7. Close Combat"],
    "Closing": ["7. Closing"],
    "Cold, Exposure, Hunger, and Thirst": ["7. Cold, Exposure, Hunger, and Thirst"],
    "Cover": ["7. Cover"],
    "Darkness": ["7. Darkness"],
    "Desperate Actions": ["7. Desperate Actions"],
    "Disarming": ["7. Disarming"],
    "Disease": ["7. Disease"],
    "Illness Severity Table": ["7. Disease: Illness Severity Table"],
    "Disengaging": ["7. Disengaging"],
    "Drawing or Exchanging a Weapon": ["7. Drawing or Exchanging a Weapon"],
    "Enclosed Environments": ["7. Enclosed Environments"],
    "Entangling": ["7. Entangling"],
}

# The entries of the chapter's index table that the second half (spot_rules_e_to_z) encodes.
OTHER_HALF = [
    "Explosions",
    "Extended Range",
    "Falling",
    "Fighting While Down",
    "Fire and Heat",
    "Firing into Combat",
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
    "Poison",
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
    "Weapon Length (Closing)",
    "Weather Condition",
    "Zero-gravity Combat",
]


@pytest.fixture(scope="module")
def spot() -> ModuleType:
    return module_for(PATH)


def _header() -> str:
    lines = []
    for line in PATH.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line)
    return " ".join(" ".join(line.lstrip("#").split()) for line in lines)


def test_every_spot_rule_has_two_examples() -> None:
    book = compiled(PATH).book
    assert book is not None
    per_rule = {name: len(rule.examples) for name, rule in book.rules.items()}
    assert {name: n >= 2 for name, n in per_rule.items()} == dict.fromkeys(per_rule, True)
    per_cite: Counter[str] = Counter()
    for rule in book.rules.values():
        per_cite[rule.cites or ""] += len(rule.examples)
    for table in book.tables.values():
        per_cite[table.cites or ""] += sum(1 for e in all_examples(book) if e.rules == [table.name])
    for heading, cites in SECTIONS.items():
        assert sum(per_cite[c] for c in cites) >= 2 or any(
            c in {t.cites for t in book.tables.values()} for c in cites
        ), heading
    assert len(all_examples(book)) >= 2 * len(SECTIONS)


def test_every_section_is_cited_by_a_rule_or_table() -> None:
    book = compiled(PATH).book
    assert book is not None
    cited = {rule.cites for rule in book.rules.values()} | {table.cites for table in book.tables.values()}
    assert {h: all(c in cited for c in cites) for h, cites in SECTIONS.items()} == dict.fromkeys(SECTIONS, True)


def test_the_header_lists_every_heading_and_the_other_half() -> None:
    header = _header()
    for heading in [*SECTIONS, *OTHER_HALF]:
        assert heading in header, heading
    assert "spot_rules_e_to_z" in header
    book = compiled(PATH).book
    assert book is not None
    words = set(re.findall(r"[a-z_]+", header))
    assert sorted(name for name in [*book.rules, *book.tables] if name not in words) == []


def test_conventions(spot: ModuleType) -> None:
    # Skill 72 at 1/5: 72 / 5 = 14.4, rounded up to 15.  Easy and Difficult cancel: 72.
    assert spot.skill_roll(skill=72, at_one_fifth=True).stats["skill"] == 15
    cancel = spot.skill_roll(skill=72, easy=True, difficult=True)
    assert cancel.stats["skill"] == 72
    assert cancel.roll("skill_check").probability == Fraction(72, 100)
    # CON 10 x 5 = 50 for a Stamina roll; POW 14 against POW 10: 50 + 4 x 5 = 70.
    assert spot.characteristic_roll(CON=10).roll("stamina_roll").probability == Fraction(1, 2)
    assert spot.resistance_roll(POW=14, opponent_POW=10).roll("resist").probability == Fraction(7, 10)


def test_aerial_modifiers_are_cumulative(spot: ModuleType) -> None:
    # Fly 95: loop-the-loop -50, windstorm -50 (tail wind -25), medium armor -25.
    # Head wind: 95 - 125 < 1, no chance; tail wind: 95 - 100 still below 1.
    head = spot.aerial_combat(fly=95, stunt="extremely_difficult", wind="windstorm", armor_worn="medium_armor")
    assert head.roll("fly_roll").probability == 0
    # Without the armor and with the tail wind: 95 - 50 - 25 = 20.
    tail = spot.aerial_combat(fly=95, stunt="extremely_difficult", wind="windstorm", tail_wind=True)
    assert tail.stats["fly"] == 20
    assert tail.roll("fly_roll").probability == Fraction(1, 5)


def test_cover_splits_the_roll(spot: ModuleType) -> None:
    # 72 halved to 36: 1..36 hit the target, 37..72 the wall, 73..100 miss.
    result = spot.cover(skill=72, partial_cover=True)
    hit = result.roll("hit_target").probability
    either = result.roll("hit_target_or_cover").probability
    assert (hit, either - hit, 1 - either) == (Fraction(36, 100), Fraction(36, 100), Fraction(28, 100))


def test_damaged_random_armor_is_exactly_1d4(spot: ModuleType) -> None:
    # 1D8+1 halved, rounded down: faces 2..9 give 1, 1, 2, 2, 3, 3, 4, 4: each of 1..4 is 2/8.
    dice = spot.armor_damaged(armor_state="damaged").stats["armor_roll"]
    assert str(dice) == "(1d8+1)/2 round down"
    (half,) = dice.parts
    assert (half.factor, half.rounding) == (Fraction(1, 2), "down")
    totals: Counter[int] = Counter()
    for faces in product(*(range(1, sides + 1) for count, sides in half.dice.terms for _ in range(count))):
        totals[(sum(faces) + half.dice.bonus) // 2] += 1
    assert {k: Fraction(v, 8) for k, v in totals.items()} == {n: Fraction(1, 4) for n in range(1, 5)}
    assert dice.totals() == {n: Fraction(1, 4) for n in range(1, 5)}


def test_acid_halved_under_armor(spot: ModuleType) -> None:
    # Strong acid, armored, round 1: 1D4 halved rounding up; the armor still slows it for sure (d3 >= 1).
    result = spot.acid(acid="strong", armored=True, acid_round=1)
    assert str(result.stats["acid_damage"]) == "1d4/2 round up"
    assert result.roll("armor_slows").probability == 1


def test_asphyxiation_progression(spot: ModuleType) -> None:
    # CON 10: x10, x5, x4, x3, x2, x1, x1 ... -> 100, 50, 40, 30, 20, 10, 10.
    chances = [spot.asphyxiation(CON=10, asphyxiation_round=r).roll("hold_breath").probability for r in range(1, 8)]
    assert chances == [Fraction(n, 100) for n in (100, 50, 40, 30, 20, 10, 10)]
    # Surprised without a breath: x3, x2, x1, x1: 30, 20, 10, 10.
    surprised = [
        spot.asphyxiation(CON=10, asphyxiation_round=r, asphyxiation_start="surprised_no_breath")
        .roll("hold_breath")
        .probability
        for r in range(1, 5)
    ]
    assert surprised == [Fraction(n, 100) for n in (30, 20, 10, 10)]


def test_chase_trouble_table_with_a_re_roll_modifier(spot: ModuleType) -> None:
    # d10 + 4: totals 5..14; 10 and above count as 10: 5 faces of 10 = 1/2; Skid keeps 5 and 6: 1/5.
    table = spot.resolve("chase_trouble", roll=9, trouble_modifier=4).to_dict()["tables"][0]
    rows = {row["key"]: Fraction(row["probability"]["fraction"]) for row in table["rows"]}
    assert rows["10"] == Fraction(1, 2)
    assert rows["4..6"] == Fraction(1, 5)
    assert rows["1"] == 0
    assert table["selected"]["values"]["result"] == "Roll or Tumble"
    assert table["selected"]["then"] == ["roll again"]


def test_aura_total_and_resistance(spot: ModuleType) -> None:
    # SIZ 12, POW 15, CHA 14: 41 / 3 = 13.67 -> 14; a critical Command +3: 17.
    # Target POW 13: 50 + (13 - 17) x 5 = 30.
    result = spot.aura_attacks(SIZ=12, POW=15, CHA=14, command_roll="critical_result", opponent_POW=13)
    assert result.stats["aura"] == 17
    assert result.roll("resist_aura").probability == Fraction(3, 10)


def test_disease_recovery_rises_by_day(spot: ModuleType) -> None:
    # CON 9: day 2 x2 = 18, day 3 x3 = 27, day 4 x4 = 36; in bed and unstrained.
    chances = [
        spot.disease_recovery(diseased=True, CON=9, disease_day=d).roll("recover").probability for d in (2, 3, 4)
    ]
    assert chances == [Fraction(18, 100), Fraction(27, 100), Fraction(36, 100)]


def test_autofire_bonus_by_mode(spot: ModuleType) -> None:
    # Skill 30: burst +20 = 50, autofire +40 = 70, narrow corridor autofire +40 +20 = 90.
    assert spot.autofire(skill=30, fire_mode="burst").stats["skill"] == 50
    assert spot.autofire(skill=30, fire_mode="full_autofire").stats["skill"] == 70
    assert spot.autofire(skill=30, fire_mode="full_autofire", autofire_targets="narrow_targets").stats["skill"] == 90


def test_maneuver_modifier_applies_once(spot: ModuleType) -> None:
    # Drive 60, high-speed turn: 60 - 10 = 50 from maneuvers alone; with the chart named too and
    # fog at Speed 2: 60 - 10 (turn) - 10 (fog) + 10 (Speed 2) = 50, the turn's -10 counted once.
    alone = spot.maneuvers(skill=60, maneuver="high_speed_turn")
    assert alone.roll("maneuver_roll").probability == Fraction(1, 2)
    both = spot.resolve(["maneuvers", "skill_roll_modifiers"], skill=60, maneuver="high_speed_turn", fog=True, speed=2)
    assert both.stats["skill"] == 50
    # A collision carries the chart's -10 as well: 50 - 10 = 40.
    assert spot.maneuvers(skill=50, maneuver="collide", speed=3).roll("maneuver_roll").probability == Fraction(2, 5)


def test_a_called_shot_resolves_from_either_aiming_rule(spot: ModuleType) -> None:
    # Skill 64, called shot, 10 DEX ranks: 5 ranks cancel the Difficult grade, 5 add 64 / 10 =
    # 6.4 -> 7: 71, whichever rule, or both, is named.  With 3 ranks: Difficult, 32.
    for names in (["targeting_specific_area"], ["taking_more_time"], ["taking_more_time", "targeting_specific_area"]):
        assert spot.resolve(names, skill=64, target_area=True, aim_ranks=10).stats["skill"] == 71
        assert spot.resolve(names, skill=64, target_area=True, aim_ranks=3).stats["skill"] == 32


def test_a_master_readies_for_nothing(spot: ModuleType) -> None:
    # 101%+: draw, exchange, or drop and draw all cost 0; at 100%: 5, 10, 5.
    for change in ("draw", "exchange", "drop_and_draw"):
        assert spot.drawing_weapons(skill=101, weapon_change=change).stats["ready_ranks"] == 0
    assert [
        spot.drawing_weapons(skill=100, weapon_change=c).stats["ready_ranks"]
        for c in ("draw", "exchange", "drop_and_draw")
    ] == [5, 10, 5]
