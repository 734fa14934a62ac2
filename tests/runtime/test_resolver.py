"""The public contract of a generated resolver module, and situations worked out by hand.

Every probability below is computed in its comment from the dice alone: the number of ways to
roll at most N on 2d6 is 1, 3, 6, 10, 15, 21, 26, 30, 33, 35, 36 for N = 2..12; on 3d6 it is
1, 4, 10, 20, 35, 56, 81, 108, 135, 160, 180, 195, 205, 211, 214, 216 for N = 3..18.
"""

from __future__ import annotations

import inspect
import json
from fractions import Fraction
from types import ModuleType

import pytest

from tests.conftest import module_from_text


def test_rulebook_info(skirmish: ModuleType) -> None:
    info = skirmish.RULEBOOK
    assert info.name == "skirmish_terrain"
    assert info.title == "17 Terrain and Environmental Factors"
    assert info.source.startswith("17 Terrain and Environmental Factors")
    assert info.version == "1.0.0"


def test_resolve_takes_names_positionally_and_inputs_by_keyword(skirmish: ModuleType) -> None:
    parameters = inspect.signature(skirmish.resolve).parameters
    assert parameters["names"].kind is inspect.Parameter.POSITIONAL_ONLY
    assert parameters["inputs"].kind is inspect.Parameter.VAR_KEYWORD


def test_one_typed_function_per_rule(skirmish: ModuleType) -> None:
    for name in skirmish.RULES:
        assert callable(getattr(skirmish, name)), name
    signature = inspect.signature(skirmish.broken_ground)
    assert signature.parameters["DEX"].default == 10
    assert signature.parameters["moved"].annotation in ("int", int)
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in signature.parameters.values())
    assert skirmish.broken_ground.__doc__.startswith("Broken Ground (17.1).")


def test_typed_function_equals_resolve(skirmish: ModuleType) -> None:
    direct = skirmish.broken_ground(DEX=12, MOV=10, moved=6).to_dict()
    assert direct == skirmish.resolve("broken_ground", DEX=12, MOV=10, moved=6).to_dict()


def test_to_dict_is_json_with_exact_fractions(skirmish: ModuleType) -> None:
    # 3d6 <= 10: 108/216 = 1/2
    data = skirmish.resolve("broken_ground", DEX=12, MOV=10, moved=6).to_dict()
    assert json.loads(json.dumps(data)) == data
    assert set(data) >= {"stats", "modifiers", "rolls", "restrictions", "notes", "trace"}
    assert data["stats"]["DEX"] == {"start": 12, "final": 10}
    (modifier,) = data["modifiers"]
    assert modifier["target"] == "DEX"
    assert modifier["operation"] == "add"
    assert modifier["amount"] == -2
    assert modifier["source"] == "17.1"
    assert modifier["applied"] is True
    (roll,) = data["rolls"]
    assert roll["dice"] == "3d6"
    assert roll["comparison"] == "<="
    assert roll["target"] == 10
    assert roll["probability"] == {"fraction": "1/2", "float": 0.5}


def test_probability_is_an_exact_fraction(skirmish: ModuleType) -> None:
    roll = skirmish.resolve("ice", DEX=8, moved=7).roll("fall")
    # 3d6 <= 8: 56/216 = 7/27
    assert roll.probability == Fraction(7, 27)
    assert isinstance(roll.probability, Fraction)


def test_stacking_across_rules(skirmish: ModuleType) -> None:
    # mud (ankle): MOV 9 / 2 = 4.5 -> 5; spacesuit: -2 -> 3; both: DEX -2 (bad footing) -2 (suit).
    result = skirmish.resolve(["mud", "spacesuit"], DEX=12, MOV=9, weapon="melee")
    assert result.stats["MOV"] == 3
    assert result.stats["DEX"] == 8


def test_a_rule_reached_twice_applies_once(skirmish: ModuleType) -> None:
    # snow is broken ground; naming broken_ground too must not subtract the 2 DEX twice.
    result = skirmish.resolve(["snow", "broken_ground"], DEX=10, weapon="melee")
    assert result.stats["DEX"] == 8
    assert [m.text for m in result.modifiers if m.target == "DEX"] == ["DEX -2"]


def test_knee_deep_water_is_broken_ground_too(skirmish: ModuleType) -> None:
    # Knee-deep: MOV 10 / 2 = 5; DEX 12 - 2 = 10; moving 3 > 5/2 asks 3d6 <= 10: 1/2.
    result = skirmish.resolve("water", water_depth="knee", DEX=12, MOV=10, moved=3)
    assert (result.stats["MOV"], result.stats["DEX"]) == (5, 10)
    assert result.roll("fall").probability == Fraction(1, 2)


def test_set_value_overrides_and_is_reported(skirmish: ModuleType) -> None:
    # Firing a missile in the dark over broken ground: DEX to hit is 5 whatever the penalties.
    result = skirmish.resolve(["darkness", "broken_ground"], DEX=15, to_hit=15, weapon="missile", moved=2)
    assert result.stats["to_hit"] == 5
    # DEX: 15 - 8 - 2 = 5 too, but by arithmetic
    assert result.stats["DEX"] == 5
    statuses = {(m.target, m.text): m.status for m in result.modifiers}
    assert statuses[("to_hit", "to_hit = 5")] == "applied"


def test_to_hit_starts_from_the_effective_dex(skirmish: ModuleType) -> None:
    # Spacesuit DEX 12 - 2 = 10; through 4 smoke hexes: to hit 10 - 4 = 6; 3d6 <= 6: 20/216 = 5/54.
    result = skirmish.resolve(["spacesuit", "smoke"], DEX=12, smoke_hexes=4)
    assert result.stats["to_hit"] == 6
    assert result.roll("hit").probability == Fraction(5, 54)
    assert result.inputs["to_hit"] == 10


def test_microgravity_dice_changes_combine(skirmish: ModuleType) -> None:
    # Holding a rail (-1 die) with Astrobatics (-2 dice): 4 - 3 = 1 die; 1d6 <= (10 + 11) / 2 = 10.5:
    # always.  Recovering (+1) instead of astrobatics: 4 - 1 + 1 = 4 dice <= 10: ways 4..10 =
    # 1+4+10+20+35+56+80 = 206 of 1296 = 103/648.
    easy = skirmish.resolve("microgravity", STR=10, DEX=11, running=True, holding_on=True, astrobatics=True)
    assert easy.roll("footing").dice == "1d6"
    assert easy.roll("footing").probability == 1
    hard = skirmish.resolve("microgravity", STR=10, DEX=11, recovering=True, holding_on=True)
    assert hard.roll("footing").dice == "4d6"
    assert hard.roll("footing").probability == Fraction(103, 648)


def test_prone_is_automatic_success(skirmish: ModuleType) -> None:
    roll = skirmish.resolve("microgravity", running=True, stance="prone").roll("footing")
    assert roll.automatic == "success"
    assert roll.probability == 1


def test_gravity_formula_with_exact_decimals(skirmish: ModuleType) -> None:
    # 40 kg at 1.5 g: 40 x 1.5 + 0.5 x 70 = 60 + 35 = 95 kg.
    result = skirmish.resolve("gravity", carried="40", gravity=1.5)
    assert result.derived["load"] == 95 and type(result.derived["load"]) is int
    # 5.5 kg at 0.7 g: 5.5 x 0.7 + (0.7 - 1) x 70 = 3.85 - 21 = -17.15 = -343/20
    data = skirmish.resolve("gravity", carried=5.5, gravity=0.7).to_dict()
    assert data["derived"]["load"] == {"fraction": "-343/20", "float": -17.15}


def test_leak_damage_progression(skirmish: ModuleType) -> None:
    assert str(skirmish.resolve("spacesuit", leak_turns=5).derived["leak_damage"]) == "5d6"
    assert "leak_damage" not in skirmish.resolve("spacesuit", leak_turns=0).derived


def test_restrictions_notes_and_errata(skirmish: ModuleType) -> None:
    result = skirmish.resolve("water", water_depth="deep")
    assert [r.what for r in result.restrictions] == ["fight effectively in deep water"]
    assert [r.text for r in result.restrictions] == ["cannot fight effectively in deep water"]
    errata = [n for n in result.notes if n.erratum]
    assert errata and all(n.source for n in errata)


def test_trace_says_why(skirmish: ModuleType) -> None:
    trace = skirmish.resolve("broken_ground", moved=0, weapon="thrown").trace
    entry = next(e for e in trace if e.item == "DEX -2")
    assert entry.applied is False
    assert "unless moved == 0 and weapon in {thrown, missile, laser}" in entry.because


@pytest.mark.parametrize(
    ("names", "inputs", "message"),
    [
        ("broken_gruond", {}, "did you mean `broken_ground`?"),
        ("broken_ground", {"dex": 3}, "did you mean `DEX`?"),
        ("broken_ground", {"DEX": 31}, "input `DEX` must be a number in int 0..30"),
        ("broken_ground", {"DEX": "12"}, None),
        ("broken_ground", {"DEX": 7.5}, "whole number"),
        ("broken_ground", {"DEX": True}, "whole number"),
        ("broken_ground", {"acrobatics": "yes"}, "True or False"),
        ("broken_ground", {"weapon": "lazer"}, "did you mean `laser`?"),
        ("smoke", {"laser_damage": "3x6"}, "dice"),
        ([], {}, "name at least one rule"),
        ([3], {}, "rule names are text"),
        (None, {}, "name the rules as text"),
        (b"ice", {}, "name the rules as text"),
        ("broken_ground", {"DEX": "1e1"}, "whole number"),
        ("broken_ground", {"DEX": "\uff11\uff12"}, "whole number"),
        ("gravity", {"gravity": "1/0"}, "a number"),
    ],
)
def test_bad_input_raises_one_documented_error(
    skirmish: ModuleType, names: object, inputs: dict[str, object], message: str | None
) -> None:
    if message is None:
        skirmish.resolve(names, **inputs)
        return
    with pytest.raises(skirmish.RuleInputError) as raised:
        skirmish.resolve(names, **inputs)
    assert message in str(raised.value)
    assert isinstance(raised.value, ValueError)


def test_inputs_describe_themselves(skirmish: ModuleType) -> None:
    weapon = skirmish.INPUTS["weapon"]
    assert weapon.members == ("none", "melee", "thrown", "missile", "laser")
    assert weapon.default == "none"
    assert skirmish.INPUTS["MOV"].unit == "hex"
    assert skirmish.INPUTS["to_hit"].default_text == "DEX"
    assert skirmish.RULES["smoke"].reads[:2] == ("DEX", "to_hit")


def test_resolution_is_deterministic(skirmish: ModuleType) -> None:
    first = skirmish.resolve(["mud", "smoke", "darkness"], DEX=13, moved=4, smoke_hexes=1).to_dict()
    second = skirmish.resolve(["mud", "smoke", "darkness"], DEX=13, moved=4, smoke_hexes=1).to_dict()
    assert json.dumps(first) == json.dumps(second)


def test_same_named_rolls_of_several_rules_are_told_apart(skirmish: ModuleType) -> None:
    # Darkness and broken ground both ask for `fall`; with Acrobatics the two differ:
    # DEX 14 - 8 - 2 = 4; darkness 3d6 <= 4 = 4/216 = 1/54, broken ground 2d6 <= 4 = 6/36 = 1/6.
    result = skirmish.resolve(["darkness", "broken_ground"], DEX=14, MOV=10, moved=6, acrobatics=True)
    assert result.roll("fall", rule="darkness").probability == Fraction(1, 54)
    assert result.roll("fall", rule="broken_ground").probability == Fraction(1, 6)
    with pytest.raises(skirmish.RuleInputError, match="several rules call for a roll `fall`"):
        result.roll("fall")


def test_a_resolution_shares_no_state_with_the_module(skirmish: ModuleType) -> None:
    first = skirmish.broken_ground(DEX=12, moved=6)
    with pytest.raises(TypeError):  # what every resolution shares is read-only
        first.roll("fall").effects["failure"] = "changed by a caller"
    first.stats["DEX"] = 99
    again = skirmish.broken_ground(DEX=12, moved=6)
    assert again.roll("fall").effects["failure"].startswith("The figure falls down")
    assert again.stats["DEX"] == 10
    with pytest.raises(TypeError):
        skirmish.INPUTS["DEX"] = None
    with pytest.raises(TypeError):
        skirmish.RULES["ice"] = None


def test_a_pool_keeps_one_die_and_says_so(skirmish: ModuleType) -> None:
    # A 1d6 laser through anti-laser smoke: one die less would be none; it stays 1d6, -1 per hex.
    result = skirmish.resolve("smoke", weapon="laser", smoke_hexes=1, anti_laser=True, laser_damage="1d6")
    assert str(result.stats["laser_damage"]) == "1d6-1"
    capped = next(m for m in result.modifiers if m.operation == "dice")
    assert (capped.status, capped.reason) == ("capped", "a pool keeps at least one die")


def test_grade_values_are_emitted_as_fractions() -> None:
    # The runtime types a grade's value as a Fraction; a whole value (Easy doubles: 2) must be
    # emitted as one too, or the generated module fails `mypy --strict`.
    from tests.conftest import module_from_text

    module = module_from_text(
        'rulebook graded "Grades":\n    source "test"\n\n'
        'grades "Difficulty":\n    easy +1: * 2\n    difficult -1: / 2 round up\n\n'
        "stat skill: percent 0..200 = 45\n\n"
        'rule hard "Hard" cites "t":\n    skill is difficult\n'
    )
    values = [grade.value for grade in module._BOOK.grades]
    assert values == [Fraction(2), Fraction(2)]
    assert all(type(value) is Fraction for value in values)
    # 45 / 2 = 22.5, rounded up: 23.
    assert module.hard(skill=45).stats["skill"] == 23


def test_a_rule_takes_the_inputs_its_stats_start_from(skirmish: ModuleType) -> None:
    # Walls change `to_hit`, which starts from DEX: the typed function takes DEX too, and reads
    # it as resolve() does.
    assert "DEX" in inspect.signature(skirmish.wall_cover).parameters
    assert "DEX" in skirmish.RULES["wall_cover"].reads
    typed = skirmish.wall_cover(DEX=13, stance="kneeling")
    assert typed.stats["to_hit"] == skirmish.resolve("wall_cover", DEX=13, stance="kneeling").stats["to_hit"]


def test_a_value_derived_under_exclusive_conditions_takes_the_one_that_holds() -> None:
    from tests.conftest import module_from_text

    module = module_from_text(
        'rulebook barrier "Barrier":\n'
        '    source "docs"\n'
        "input level: one of {flimsy, moderate, strong} = flimsy\n"
        "input hits: int 0..20 = 0\n"
        'rule barrier "Barrier" cites "B":\n'
        "    when level == flimsy: derive tuffness = 8\n"
        "    when level == moderate: derive tuffness = 10\n"
        "    when level == strong: derive tuffness = 12\n"
        "    derive left = tuffness - hits\n"
    )
    # Each level its own Tuffness, 8, 10 or 12, and a later line reads the one that holds: 12 - 5 = 7.
    assert [module.barrier(level=x).derived["tuffness"] for x in ("flimsy", "moderate", "strong")] == [8, 10, 12]
    assert module.barrier(level="strong", hits=5).derived["left"] == 7
    trace = [(t.item, t.applied) for t in module.barrier(level="moderate").trace]
    assert trace[:3] == [("derive tuffness", False), ("derive tuffness", True), ("derive tuffness", False)]


def test_a_level_set_or_capped_by_an_input_takes_the_input_value() -> None:
    from tests.conftest import module_from_text

    module = module_from_text(
        'rulebook tiles "Tiles":\n'
        '    source "docs"\n'
        "type intensity = levels {light < moderate < heavy}\n"
        "stat level: intensity = light\n"
        "input chosen: intensity = moderate\n"
        "input cap: intensity = heavy\n"
        "input court: flag\n"
        'rule draw "Draw" cites "D":\n'
        "    level +2 levels\n"
        "    level max cap\n"
        "    when court: level = chosen\n"
    )
    # light + 2 levels = heavy, capped at moderate.  A court card sets the chosen level first, then the
    # shift applies (section 8: `=`, then shifts, then `max`): light + 2 = heavy, or the moderate cap.
    assert module.draw(cap="moderate").stats["level"] == "moderate"
    assert module.draw(court=True, chosen="light", cap="heavy").stats["level"] == "heavy"
    assert module.draw(court=True, chosen="light", cap="moderate").stats["level"] == "moderate"


def test_a_value_derived_under_several_conditions_takes_the_one_that_holds() -> None:
    from tests.conftest import module_from_text

    module = module_from_text(
        'rulebook d "D":\n    source "s"\n'
        "input state: one of {a, b, c} = a\ninput cost: int 0..100 = 10\n"
        'rule r "R" cites "1":\n'
        "    when state == a: derive price = cost * 2\n"
        "    when state == b: derive price = cost * 3\n"
        "    when price > 25: derive dear = yes\n"
    )
    # a: 10 x 2 = 20; b: 10 x 3 = 30 (not the first definition's 20), and 30 > 25 makes it dear.
    assert module.resolve("r", state="a").derived["price"] == 20
    b = module.resolve("r", state="b")
    assert b.derived["price"] == 30
    assert b.derived["dear"] is True
    assert "price" not in module.resolve("r", state="c").derived


def test_a_typed_function_takes_the_inputs_its_stats_start_from() -> None:
    from tests.conftest import module_from_text

    module = module_from_text(
        'rulebook s "S":\n    source "s"\n'
        'input CON: int 1..30 = 10\nstat stamina "Stamina roll": percent 0..150 = CON * 5\n'
        'rule r "R" cites "1":\n    roll stamina_roll: d100 <= stamina\n'
    )
    assert module.RULES["r"].reads == ("CON", "stamina")
    # CON 12: stamina starts at 12 x 5 = 60, and d100 <= 60 is 3/5.
    assert module.r(CON=12).roll("stamina_roll").probability == Fraction(3, 5)


def test_a_name_derived_under_when_and_else_takes_the_branch_that_holds() -> None:
    module = module_from_text(
        'rulebook branches "Branches":\n    source "test"\n\n'
        "input wet: flag = no\ninput y: int 0..10 = 3\n\n"
        'rule r "R" cites "1":\n'
        "    when wet:\n"
        "        derive b = y + 1\n"
        "        derive a = b * 2\n"
        "    else:\n"
        "        derive c = y + 5\n"
        "        derive a = c * 2\n"
    )
    # Dry: c = 3 + 5 = 8, a = 8 x 2 = 16.  Wet: b = 3 + 1 = 4, a = 4 x 2 = 8.
    assert module.r(y=3).derived["a"] == 16
    assert module.r(y=3, wet=True).derived["a"] == 8


def test_a_stat_may_start_from_a_table_lookup() -> None:
    module = module_from_text(
        'rulebook paces "Paces":\n    source "test"\n\n'
        "input class: one of {slow, normal, fast} = normal\n"
        'table pace_by_class "Pace" by class:\n    slow: 4\n    normal: 6\n    fast: 8\n'
        'stat pace "Pace": int 0..12 = pace_by_class[class]\n\n'
        'rule mud "Mud" cites "1":\n    pace -1\n    roll move: d6 <= pace\n'
    )
    # Slow: 4 - 1 = 3, and d6 <= 3 is 3/6 = 1/2.  Fast: 8 - 1 = 7, so d6 <= 7 always: 1.
    slow = module.mud(**{"class_": "slow"})
    assert (slow.stats["pace"], slow.roll("move").probability) == (3, Fraction(1, 2))
    assert module.resolve("mud", **{"class": "fast"}).roll("move").probability == 1
    # Given, the stat ignores its formula: pace 2 - 1 = 1, 1/6.
    assert module.resolve("mud", pace=2).roll("move").probability == Fraction(1, 6)


def test_a_trait_reached_with_and_without_bindings_it_never_reads_applies_once() -> None:
    module = module_from_text(
        'rulebook reached "Reached":\n    source "test"\n\n'
        'stat skill "Skill": percent 0..200 = 50\ninput flag_a: flag = no\ninput flag_b: flag = no\n\n'
        'trait attack "The roll" cites "s":\n    roll hit "Skill roll": d100 <= skill\n\n'
        'rule inner "Inner" cites "s":\n    as attack\n    when flag_a:\n        skill +10% "bonus"\n\n'
        'rule outer "Outer" cites "s":\n    as attack\n    as inner with flag_a = flag_b\n'
    )
    # The roll reads no bound input: one roll, whichever way it is reached.  The bonus reads
    # flag_a, bound to flag_b: 50 + 10 = 60, and d100 <= 60 is 3/5.
    result = module.resolve("outer", flag_b=True)
    assert [roll.name for roll in result.rolls] == ["hit"]
    assert (result.stats["skill"], result.roll("hit").probability) == (60, Fraction(3, 5))
    assert [roll.name for roll in module.resolve(["outer", "inner"], flag_b=True).rolls] == ["hit"]


def test_lines_of_one_outcome_add_up() -> None:
    """`on failure:` said on two lines does what both say: the text of the first is kept, and
    every change is reported with the outcome's chance (d20 + 2 >= 15 fails on 1..12: 3/5)."""
    module = module_from_text(
        """rulebook heat "Heat":
    source "test"

stat exhaustion "Exhaustion": int 0..6 = 0
stat fatigue "Fatigue": int 0..6 = 0
stat speed "Speed": int 0..60 = 30
input CON "Constitution bonus": int -5..10 = 0

rule heat "Extreme heat" cites "x":
    roll heat "Endure the heat": d20 + CON >= 15
        on failure: exhaustion +1, "You gain a level of exhaustion."
        on failure: as prone, fatigue +2
        on failure: "Drink, or save again next hour."

rule prone "Prone" cites "x":
    speed / 2 round down
"""
    )
    roll = module.heat(CON=2).roll("heat")
    assert roll.effects == {"failure": "You gain a level of exhaustion. Drink, or save again next hour."}
    assert [(c.text, c.stat, c.value, c.probability) for c in roll.consequences] == [
        ("exhaustion +1", "exhaustion", 1, Fraction(3, 5)),
        ("fatigue +2", "fatigue", 2, Fraction(3, 5)),
        ("as prone", None, None, Fraction(3, 5)),
    ]
