"""The zone_combat rulebook (source 004, abstract zone combat): its examples per family, its
coverage list, and resolutions worked out by hand through the generated module.

A zone move succeeds on d6 <= Pace: n allowed faces of 6 give n/6.  RUN rolls 2d6 and keeps the
better (lower) die: it fails only when both dice fail, so 1 - (1 - n/6)^2.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from types import ModuleType

import pytest

from tests.conftest import RULEBOOKS, compiled, module_for

PATH = RULEBOOKS / "zone_combat.rules"
LEVELLED_TILES = (
    "rain",
    "fog",
    "cover_tile",
    "debris_tile",
    "lighting",
    "noise",
    "buzz",
    "wind",
    "wall_tile",
    "barrier",
)


@pytest.fixture(scope="module")
def zc() -> ModuleType:
    return module_for(PATH)


def test_every_family_of_the_source_has_three_examples() -> None:
    book = compiled(PATH).book
    assert book is not None
    per_family: dict[str, int] = {}
    for rule in book.rules.values():
        per_family[rule.cites or ""] = per_family.get(rule.cites or "", 0) + len(rule.examples)
    families = [
        "Range diagram; RANGE",
        "MOVE",
        "MOVE: Pace",
        "When it comes to your action",
        "Flank zones",
        "COVER",
        "Targeting",
        "Targeting: wound effects",
        "Zone Traits",
        "Sporadics",
        "List of sporadic",
        "Step 2; Step 3",
        "Initiative: cards",
        "Damage",
        "Armour",
        "AoE attacks",
        "Modifiers: Stun",
        "Condition tiles: ground",
        "Condition tiles: hazards",
        "Condition tiles: alarms",
        "Condition tiles: positions",
    ] + [
        f"Condition tiles: {tile}"
        for tile in ("RAIN", "FOG", "COVER", "DEBRIS", "LIGHT", "NOISE", "BUZZ", "WIND", "WALL", "BARRIER")
    ]
    assert "" not in per_family
    assert set(families) <= set(per_family)
    assert {f: n for f, n in per_family.items() if n < 3} == {}


def test_every_trait_and_levelled_tile_has_three_examples() -> None:
    book = compiled(PATH).book
    assert book is not None
    traits = [r for r in book.rules.values() if r.kind == "trait"]
    assert len(traits) == 8
    counts = {r.name: len(r.examples) for r in traits} | {t: len(book.rules[t].examples) for t in LEVELLED_TILES}
    assert {name: n for name, n in counts.items() if n < 3} == {}


def test_the_coverage_list_names_every_rule_and_table() -> None:
    book = compiled(PATH).book
    assert book is not None
    header = PATH.read_text(encoding="utf-8").split("\nrulebook ")[0]
    named = set(re.findall(r"[a-z][a-z_]+", header))
    assert sorted(set(book.rules) - named) == []
    assert sorted(set(book.tables) - named) == []


def test_heavy_rain_answers_for_pace_and_shot_with_a_trace(zc: ModuleType) -> None:
    # RAIN - Heavy: -2 visibility, which the shot follows; nothing changes Pace: d6 <= 6 = 1.
    # At Medium the range adds -2: shot -4.
    result = zc.resolve(["rain", "range_bands", "zone_move"], rain_level="heavy", range="medium")
    assert result.stats["shot"] == -4
    assert result.stats["pace"] == result.inputs["pace"] == 6  # no rule of the situation changes it
    assert (str(result.roll("move").target), result.roll("move").probability) == ("6", 1)
    applied = {(m.target, m.amount, m.rule) for m in result.modifiers if m.status == "applied"}
    assert ("visibility", "-2", "rain") in {(t, str(v), r) for t, v, r in applied}
    trace = [(t.item, t.applied) for t in result.trace if t.rule == "rain"]
    assert ("visibility -2", True) in trace and ("visibility -1", False) in trace


def test_light_rain_spares_short_range(zc: ModuleType) -> None:
    # RAIN - Light: -1 visibility only at Medium and beyond.  Short: 0; Long: -1 - 4 = -5.
    assert zc.resolve(["rain", "range_bands"], rain_level="light", range="short").stats["shot"] == 0
    assert zc.resolve(["rain", "range_bands"], rain_level="light", range="long").stats["shot"] == -5


@pytest.mark.parametrize("pace", range(1, 7))
def test_run_keeps_the_better_of_two_dice(zc: ModuleType, pace: int) -> None:
    # Pace n: walking n/6, running 1 - (1 - n/6)^2; e.g. n = 4: 4/6 = 2/3 and 1 - (2/6)^2 = 8/9.
    walk = zc.resolve("zone_move", pace=pace).roll("move").probability
    run = zc.resolve("zone_move", pace=pace, running=True).roll("move").probability
    assert walk == Fraction(pace, 6)
    assert run == 1 - (1 - Fraction(pace, 6)) ** 2


def test_second_move_at_minus_three(zc: ModuleType) -> None:
    # Fast (8): d6 <= 8 - 3 = 5: 5/6; running 1 - (1/6)^2 = 35/36.
    names = ["pace_class_rule", "zone_move"]
    given = {"pace_class": "fast", "second_move": True, "zone": "short", "destination": "close"}
    assert zc.resolve(names, **given).roll("move").probability == Fraction(5, 6)
    assert zc.resolve(names, running=True, **given).roll("move").probability == Fraction(35, 36)
    out = zc.resolve(names, pace_class="fast", second_move=True, zone="long", destination="medium")
    assert [r.what for r in out.restrictions] == [
        "move a second time: a second move only involves the Medium, Short and Close zones"
    ]


def test_reconstructed_debris_levels(zc: ModuleType) -> None:
    # Moderate takes the lines printed under "Heavy" (-2 MA, cover 2, +1 Stealth); Heavy the
    # orphan block after Stun (-3 MA, cover 4, +2 Stealth).  Heavy: Pace 3, d6 <= 3 = 1/2.
    moderate = zc.resolve(["debris_tile", "zone_move"], debris_level="moderate")
    heavy = zc.resolve(["debris_tile", "zone_move"], debris_level="heavy")
    assert (moderate.stats["pace"], moderate.stats["cover"], moderate.stats["stealth"]) == (4, 2, 1)
    assert (heavy.stats["pace"], heavy.stats["cover"], heavy.stats["stealth"]) == (3, 4, 2)
    assert heavy.roll("move").probability == Fraction(1, 2)
    assert zc.resolve("debris_tile", debris_level="heavy", debris_choice="roll_ag").derived["debris_ag"] == 8
    assert any(n.erratum and "DEBRIS" in n.erratum for n in heavy.notes)


def test_cover_options_take_the_best_and_firing_from_cover_halves(zc: ModuleType) -> None:
    # A zone of 2 with a strong wall (4): 4; taken in full, Defence 4 + 4 = 8; firing from it -(4/2) = -2.
    result = zc.resolve(
        ["zone_cover", "wall_tile", "take_cover"], zone_cover_value=2, wall_level="heavy", target_cover=4, own_cover=4
    )
    assert (result.stats["cover"], result.stats["defence"], result.stats["shot"]) == (4, 8, -2)
    suppressed = [m for m in result.modifiers if m.status == "suppressed"]
    assert [m.rule for m in suppressed] == ["zone_cover"]


def test_card_draw(zc: ModuleType) -> None:
    # 5D and 8D together: Medium sight (RAIN); the king of spades at the player's Heavy, with a benny.
    pair = zc.resolve("card_draw", suit="diamonds", high_rank=8, same_suit=2)
    assert (pair.derived["tile_category"], pair.stats["tile_level"]) == ("sight", "moderate")
    king = zc.resolve("card_draw", suit="spades", high_rank=13, chosen_level="heavy")
    assert (king.derived["tile_category"], king.stats["tile_level"], king.derived["starts_with_benny"]) == (
        "barriers",
        "heavy",
        True,
    )


def test_wound_effects_need_final_damage_at_least_tuffness(zc: ModuleType) -> None:
    # Broken Leg: Pace 6 - 4 = 2 (d6 <= 2 = 1/3), duration 1d4+1 raised one step to 1d6+1.
    hit = zc.resolve(["broken_leg", "zone_move"], final_damage=6, tuffness=6, dice_raises=1)
    assert hit.stats["pace"] == 2 and str(hit.stats["wound_duration"]) == "1d6+1"
    assert hit.roll("move").probability == Fraction(1, 3)
    miss = zc.resolve(["broken_leg", "zone_move"], final_damage=5, tuffness=6)
    assert miss.stats["pace"] == 6 and miss.roll("move").probability == 1


def test_targeting_a_vulnerability(zc: ModuleType) -> None:
    # Three levels: Defence 4 + 6 = 10; the damage gains a copy of its d8.
    result = zc.resolve("targeting_rule", targeting=3, vulnerability=True, extra_die="1d8")
    assert result.stats["defence"] == 10
    assert str(result.stats["damage"]) == "1d6+1d8+1d8+4"


def test_aoe_example_of_the_source(zc: ModuleType) -> None:
    # 6 targets, one raise: enemies 1, 3, 5 and 2 = 4, friends 4 and 6 = 2.  Dropping to 3: -4.
    result = zc.resolve("aoe_targets", aoe="medium_template", targets_rolled=6, targets_final=6, aoe_raises=1)
    assert (result.derived["enemies"], result.derived["friends"], result.stats["cast"]) == (4, 2, 0)
    dropped = zc.resolve("aoe_targets", aoe="medium_template", targets_rolled=6, targets_final=3)
    assert (dropped.derived["enemies"], dropped.derived["friends"], dropped.stats["cast"]) == (2, 1, -4)


def test_to_dict_gives_exact_fractions(zc: ModuleType) -> None:
    # Slowing halves the actual MA: (6 - 1) / 2 = 2.5, down to 2: d6 <= 2 = 1/3; running 1 - (4/6)^2 = 5/9.
    data = zc.resolve(["tile_slowing", "debris_tile", "zone_move"], debris_level="light", running=True).to_dict()
    assert json.loads(json.dumps(data)) == data
    (roll,) = data["rolls"]
    assert (roll["dice"], roll["target"], roll["probability"]["fraction"]) == ("lowest of 2d6", 2, "5/9")


def test_rough_terrain_takes_three_quarters_of_the_actual_pace(zc: ModuleType) -> None:
    # Slow (4) on rough ground: 4 x 3/4 = 3 (not 6 x 3/4 = 4, then -2): d6 <= 3 = 1/2.
    names = ["pace_class_rule", "zone_terrain", "zone_move"]
    slow = zc.resolve(names, pace_class="slow", rough=True)
    assert (slow.stats["pace"], slow.stats["move_target"]) == (4, 3)
    assert slow.roll("move").probability == Fraction(1, 2)
    # A Burst creature bursting: 8 x 3/4 = 6, automatic.
    burst = zc.resolve(names, pace_class="burst", bursting=True, rough=True)
    assert burst.stats["move_target"] == 6 and burst.roll("move").probability == 1


def test_cover_tile_default_cover_and_knockdown_reach_defence(zc: ModuleType) -> None:
    # Moderate COVER tile, no COVER taken: 4 + 1 = 5; Heavy, COVER 1 taken: the default 2 counts: 6.
    assert zc.resolve(["cover_tile", "take_cover"], cover_level="moderate").stats["defence"] == 5
    assert zc.resolve(["cover_tile", "take_cover"], cover_level="heavy", target_cover=1).stats["defence"] == 6
    # Knockdown with one raise: 4 - 2 - 2 = 0.
    assert zc.resolve("knockdown", final_damage=5, tuffness=5, penalty_raises=1).stats["defence"] == 0


def test_same_flanking_zone_sees_and_width_allows_one_melee_from_short(zc: ModuleType) -> None:
    same = zc.resolve("flank_zones", same_flank=True)
    assert list(same.restrictions) == []
    assert list(zc.resolve("action_limits", action="melee", zone="short", width_melee=True).restrictions) == []
    assert [r.what for r in zc.resolve("action_limits", action="melee", zone="short").restrictions] == [
        "MELEE: melee only occurs in the CLOSE zone; drag the opponent into it first"
    ]
