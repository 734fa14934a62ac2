"""The data contract apps rely on: one JSON type per field (the shipped JSON Schemas), Python values
of one type, `export` and `diff`.

Every worked example of every bundled rulebook is resolved and its `to_dict()` validated against
`rulecraft schema resolution`; every bundled rulebook's `export` against `rulecraft schema
rulebook`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from dsl.checks.examples import all_examples
from dsl.runner import _value
from tests.conftest import RULEBOOKS, compiled, module_for, run_cli

BOOKS = sorted(RULEBOOKS.glob("*.rules"))


def _validator(name: str) -> jsonschema.Draft202012Validator:
    result = run_cli("schema", name)
    assert result.exit_code == 0, result.output
    schema = json.loads(result.output)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _problems(validator: jsonschema.Draft202012Validator, data: object) -> list[str]:
    return [f"{e.json_path}: {e.message[:300]}" for e in validator.iter_errors(data)]


def _walk(data: object, path: str = "$") -> Iterator[tuple[str, object]]:
    yield path, data
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _walk(value, f"{path}.{key}")
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _walk(value, f"{path}[{index}]")


def _examples() -> Iterator[tuple[Path, Any]]:
    for path in BOOKS:
        book = compiled(path).book
        assert book is not None
        yield from ((path, example) for example in all_examples(book))


VALIDATED_HERE = 4
"""Python's jsonschema validates one worked example in so many (it takes some 20 ms a
resolution); ajv, in strict mode, validates every one (tests/cli/test_contract_ajv.py)."""


def test_every_worked_example_resolves_to_the_schema() -> None:
    validator = _validator("resolution")
    count = 0
    for index, (path, example) in enumerate(_examples()):
        book = compiled(path).book
        assert book is not None
        module = module_for(path)
        given = {name: _value(expr, book) for name, expr in example.givens}
        data = module.resolve(list(example.rules), **given).to_dict()
        where = f"{path.name}: {example.title}"
        if index % VALIDATED_HERE == 0:
            assert _problems(validator, data) == [], where
        # JSON data and nothing else; a float only where the contract puts one, beside its fraction
        assert json.loads(json.dumps(data)) == data, where
        for at, value in _walk(data):
            if isinstance(value, float):
                assert at.endswith(".float"), (where, at)
        count += 1
    print(f"resolution schema: {count} worked examples of {len(BOOKS)} rulebooks validate")
    assert count > 300


def test_python_values_have_one_type() -> None:
    # whole numbers are int, never Fraction(n, 1); other exact numbers Fraction; dice print as dice
    for path, example in _examples():
        book = compiled(path).book
        assert book is not None
        module = module_for(path)
        given = {name: _value(expr, book) for name, expr in example.givens}
        result = module.resolve(list(example.rules), **given)
        values = [*result.stats.values(), *result.derived.values(), *(m.amount for m in result.modifiers)]
        values += [r.target for r in result.rolls] + [r.bonus for r in result.rolls]
        for value in values:
            assert not (isinstance(value, Fraction) and value.denominator == 1), (path.name, example.title, value)
            if isinstance(value, module.Dice):
                assert not str(value).startswith("Dice("), value
        assert "Dice(terms" not in repr(result)


def test_the_bugs_the_contract_fixes() -> None:
    skirmish = module_for(RULEBOOKS / "skirmish_terrain.rules")
    # a given stat is echoed, start and final, by every rule that reads it (ice returned {})
    ice = skirmish.resolve("ice", DEX=12).to_dict()
    assert ice["stats"]["DEX"]["start"] == 12
    # modifier amounts and roll targets are numbers
    mud = skirmish.resolve("broken_ground", DEX=12, moved=6).to_dict()
    assert mud["modifiers"][0]["amount"] == -2 and mud["rolls"][0]["target"] == 10
    # an erratum carries the source's words in `quote` and the rulebook's reading in `text`
    erratum = next(n for n in mud["notes"] if n["kind"] == "erratum")
    assert erratum["quote"] == "except those that do not move and use thrown or missile weapon"
    assert erratum["text"].startswith("Lasers are missile weapons here") and "erratum" not in erratum
    # a restriction says what it forbids and the whole sentence
    deep = next(
        r for name in skirmish.RULES for r in skirmish.resolve(name).restrictions if r.text.startswith("cannot ")
    )
    assert deep.text == f"cannot {deep.what}"


def test_export_of_every_bundled_book_follows_the_schema_and_is_deterministic(tmp_path: Path) -> None:
    """Every export is the same twice; the two smallest are validated by Python's jsonschema here
    (some 2 s each), every one by ajv in strict mode (tests/cli/test_contract_ajv.py)."""
    validator = _validator("rulebook")
    smallest = sorted(BOOKS, key=lambda p: p.stat().st_size)[:2]
    for path in BOOKS:
        first = run_cli("export", str(path))
        assert first.exit_code == 0, first.output
        data = json.loads(first.output)
        if path in smallest:
            assert _problems(validator, data) == [], path.name
        assert run_cli("export", str(path)).output == first.output
    out = tmp_path / "book.json"
    result = run_cli("export", "skirmish_terrain", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text(encoding="utf-8"))["rulebook"]["name"] == "skirmish_terrain"


def test_an_app_reads_a_chance_from_the_export_alone() -> None:
    # Broken ground's fall roll is 3d6 <= DEX: at DEX 10 (12 - 2 for bad footing), 108 of the 216
    # rolls are 10 or less = 1/2.  A consumer sums the export's distribution of the pool.
    data = json.loads(run_cli("export", "skirmish_terrain").output)
    rule = next(r for r in data["rules"] if r["name"] == "broken_ground")
    roll = next(e for e in rule["effects"] if e["node"] == "RollEffect")
    assert roll["pool"]["dice"] == "3d6" and roll["target"]["text"] == "DEX"
    chance = sum(Fraction(x["probability"]["fraction"]) for x in roll["pool"]["distribution"] if x["total"] <= 10)
    assert chance == Fraction(1, 2)
    resolved = module_for(RULEBOOKS / "skirmish_terrain.rules").broken_ground(DEX=12, moved=6)
    assert resolved.roll("fall").probability == chance
    # the conditions come as trees whose names say what they read
    (guard,) = roll["guard"]
    assert guard["text"] == "when moved > MOV / 2"
    assert guard["expr"]["left"] == {"node": "NameRef", "name": "moved", "ref": "input"}


OLD = """\
rulebook mini "Mini":
    source "Mini rules"
    version "1"

stat DEX "Dexterity": int 0..20 = 10
input moved "Hexes moved": int 0..24

rule mud "Mud" cites "3.2":
    DEX -2 "bad footing"
    roll fall "Avoid falling": 3d6 <= DEX

rule snow "Snow" cites "3.3":
    DEX -1

table wind "Wind" cites "3.4" roll d6:
    columns speed
    1..3: 0
    4..6: 2
"""

NEW = (
    OLD.replace('version "1"', 'version "2"')
    .replace("roll fall \"Avoid falling\": 3d6 <= DEX", "roll fall \"Avoid falling\": 2d6 <= DEX")
    .replace('rule snow "Snow" cites "3.3":\n    DEX -1\n', 'rule ice "Ice" cites "3.5":\n    DEX -3\n')
    .replace("    4..6: 2\n", "    4..5: 2\n    6: 4\n")
)


def test_diff_names_each_change_and_the_chances_it_moved(tmp_path: Path) -> None:
    (tmp_path / "old.rules").write_text(OLD, encoding="utf-8")
    (tmp_path / "new.rules").write_text(NEW, encoding="utf-8")
    result = run_cli("diff", str(tmp_path / "old.rules"), str(tmp_path / "new.rules"))
    assert result.exit_code == 0, result.output
    # DEX 10 - 2 = 8: 3d6 <= 8 is 56/216 = 7/27 (25.9%); 2d6 <= 8 is 26/36 = 13/18 (72.2%)
    assert result.output.splitlines() == [
        "mini 1 -> mini 2",
        "",
        "rules:",
        '  + rule ice "Ice" [3.5]',
        '  - rule snow "Snow" [3.3]',
        "  ~ mud",
        "      - roll fall: 3d6 <= DEX",
        "      + roll fall: 2d6 <= DEX",
        "      at defaults, roll fall: 7/27 (25.9%) -> 13/18 (72.2%)",
        "",
        "tables:",
        "  ~ wind",
        "      + row 4..5: 2",
        "      + row 6: 4",
        "      - row 4..6: 2",
        "",
        "situations (rules applied together, one input away from the defaults):",
        "  ~ mud: 3 of 5 situations changed",
        "      at the defaults: roll fall: 7/27 (25.9%) -> 13/18 (72.2%)",
        "      DEX = 5: roll fall: 1/216 (0.5%) -> 1/12 (8.3%)",
        "      DEX = 15: roll fall: 181/216 (83.8%) -> 1 (100.0%)",
    ]
    data = json.loads(run_cli("diff", str(tmp_path / "old.rules"), str(tmp_path / "new.rules"), "--json").output)
    (mud,) = data["rules"]["changed"]
    assert mud["at_defaults"] == [
        {
            "what": "roll fall",
            "old": {"fraction": "7/27", "float": 7 / 27},
            "new": {"fraction": "13/18", "float": 13 / 18},
        }
    ]
    same = run_cli("diff", str(tmp_path / "old.rules"), str(tmp_path / "old.rules"))
    assert same.output.splitlines() == ["mini 1 -> mini 1", "", "no changes"]


def test_schema_of_an_unknown_name_is_a_usage_error() -> None:
    result = run_cli("schema", "rules")
    assert result.exit_code == 2 and "resolution" in result.output


@pytest.mark.parametrize("args", [["export", "no_such_book"], ["diff", "no_such_book", "skirmish_terrain"]])
def test_export_and_diff_of_a_missing_book_are_usage_errors(args: list[str]) -> None:
    result = run_cli(*args)
    assert result.exit_code == 2 and "no rulebook file `no_such_book`" in result.output


def test_the_trace_names_the_clause_that_decided_and_the_values_it_read() -> None:
    skirmish = module_for(RULEBOOKS / "skirmish_terrain.rules")
    # standing still with a missile weapon: the `unless` decides (its condition holds)
    (entry, *_) = skirmish.broken_ground(moved=0, weapon="missile").trace
    assert entry.to_dict() == {
        "rule": "broken_ground",
        "source": "17.1",
        "item": "DEX -2",
        "applied": False,
        "clause": "unless moved == 0 and weapon in {thrown, missile, laser}",
        "reads": {"moved": 0, "weapon": "missile"},
        "because": "unless moved == 0 and weapon in {thrown, missile, laser}: holds, "
        "because moved = 0 and weapon = missile",
    }
    # moving: the `when` holds and the `unless` does not, so bad footing applies
    (entry, *_) = skirmish.broken_ground(moved=6).trace
    assert entry.applied and entry.because == (
        "when moved > 0 or weapon != none: holds; unless moved == 0 and weapon in {thrown, missile, laser}: "
        "does not hold, because moved = 6 and weapon = none"
    )
    # a change of a roll is traced too: Acrobatics rolls 2d6
    (_, _, change) = skirmish.broken_ground(moved=6, acrobatics=True).trace
    assert (change.item, change.because) == ("roll fall: roll 2d6", "when acrobatics: holds, because acrobatics = yes")


def test_a_table_resolved_on_its_own_is_traced_with_its_key_and_row() -> None:
    mecha = module_for(RULEBOOKS / "mecha_tables.rules")
    (entry,) = mecha.resolve("terrain_costs", terrain="clear", unit="walker").trace
    assert (entry.item, entry.because) == (
        "look up terrain_costs: row clear",
        "terrain_costs[clear, walker]: row clear, because terrain = clear and unit = walker",
    )
    spot = module_for(RULEBOOKS / "spot_rules_a_to_e.rules")
    # a d10 showing 5, +4 for trouble: 9 selects the row 9
    (entry,) = spot.resolve("chase_trouble", roll=5, trouble_modifier=4).trace
    assert (entry.item, entry.because) == (
        "roll on chase_trouble: 9, row 9",
        "roll + trouble_modifier = 9: row 9, because roll = 5 and trouble_modifier = 4",
    )
    (entry,) = spot.resolve("chase_trouble").trace
    assert entry.because == "no roll given: every row with its chance"


def test_integers_past_2_to_the_53_travel_as_text() -> None:
    # armor_cost * 3/2 ...: both the input and the derived repair cost are past 2^53; a reader
    # with doubles (JavaScript) would lose digits of a bare number
    data = json.loads(
        run_cli(
            "resolve", "spot_rules_a_to_e", "armor_damaged", "--set", "armor_cost=123456789012345678901234567890",
            "--set", "armor_state=damaged", "--json",
        ).stdout
    )
    assert data["inputs"]["armor_cost"] == {
        "fraction": "123456789012345678901234567890",
        "float": 123456789012345678901234567890.0,
    }
    repair = data["derived"]["repair_cost"]
    assert isinstance(repair, dict) and Fraction(repair["fraction"]).denominator == 1
    # the largest safe integer is still an integer; one more is text
    from dsl.runtime.base import number_json

    assert number_json(2**53 - 1) == 2**53 - 1 and number_json(-(2**53) + 1) == -(2**53) + 1
    assert number_json(2**53) == {"fraction": "9007199254740992", "float": 9007199254740992.0}
    assert number_json(Fraction(-(10**400), 3))["float"] < -1e308  # type: ignore[index]


def test_dice_too_many_to_list_still_have_min_max_and_mean() -> None:
    data = json.loads(run_cli("resolve", "skirmish_terrain", "smoke", "--set", "laser_damage=100d1000", "--json").stdout)
    dice = data["stats"]["laser_damage"]["final"]
    assert (dice["dice"], dice["min"], dice["max"], dice["mean"]) == ("100d1000", 100, 100000, 50050)
    assert dice["distribution"] is None and dice["at_least"] is None
    from dsl.runtime import Dice
    from dsl.runtime.dice import dice_json

    # a clamp that never bites keeps the average; one that bites on dice past the bounds leaves it unknown
    assert dice_json(Dice.parse("max(100d1000, 50)+2"))["mean"] == 50052
    assert dice_json(Dice.parse("max(100d1000, 50000)"))["min"] == 50000
    assert dice_json(Dice.parse("max(100d1000, 50000)"))["mean"] is None
    assert dice_json(Dice.parse("100d1000*3"))["mean"] == 150150


def test_dice_parse_refuses_impossible_dice_with_rule_input_error() -> None:
    from dsl.runtime import Dice, RuleInputError

    for text in ("3d-6", "0d6", "d", "3d6+", "2d6*"):
        with pytest.raises(RuleInputError):
            Dice.parse(text)
    with pytest.raises(RuleInputError):
        Dice(((3, -6),))


def test_a_stat_starts_from_its_default_worked_out_after_the_rules() -> None:
    # to_hit "DEX to hit" = DEX: in complete darkness DEX 11 is cut by 8 to 3, and to_hit, not
    # given, starts from that (docs/language.md, `stats`); a value given is where it starts
    skirmish = module_for(RULEBOOKS / "skirmish_terrain.rules")
    dark = skirmish.resolve("darkness", DEX=11).to_dict()
    assert dark["stats"]["DEX"] == {"start": 11, "final": 3}
    assert dark["stats"]["to_hit"] == {"start": 3, "final": 3} and dark["inputs"]["to_hit"] == 3
    given = skirmish.resolve("darkness", DEX=11, to_hit=9, weapon="missile").to_dict()
    assert given["stats"]["to_hit"] == {"start": 9, "final": 5}


def test_diff_follows_a_change_into_the_rules_that_compose_it_or_share_its_stats(tmp_path: Path) -> None:
    # Broken ground's DEX -2 made -3: mud composes broken ground, and every rule reading DEX
    # applies beside it.  Moving 15 hexes (more than half of MOV 10): DEX 10 - 2 = 8 becomes 7,
    # and 3d6 <= DEX from 56/216 = 7/27 to 35/216.
    text = (RULEBOOKS / "skirmish_terrain.rules").read_text(encoding="utf-8")
    (tmp_path / "old.rules").write_text(text, encoding="utf-8")
    assert text.count('DEX -2 "bad footing"') == 1
    (tmp_path / "new.rules").write_text(text.replace('DEX -2 "bad footing"', 'DEX -3 "bad footing"'), encoding="utf-8")
    result = run_cli("diff", str(tmp_path / "old.rules"), str(tmp_path / "new.rules"), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    sets = {tuple(found["rules"]): found for found in data["situations"]["sets"]}
    # mud's own lines did not change: only the composition shows it
    assert "mud" not in {entry["name"] for entry in data["rules"]["changed"]}
    first = sets[("mud",)]["shown"][0]
    assert first["inputs"] == {"moved": 15}
    assert first["changes"] == [
        {"what": "stat DEX", "old": 8, "new": 7},
        {
            "what": "roll fall",
            "old": {"fraction": "7/27", "float": 7 / 27},
            "new": {"fraction": "35/216", "float": 35 / 216},
        },
    ]
    # the new edition resolved directly says the same
    direct = json.loads(run_cli("resolve", str(tmp_path / "new.rules"), "mud", "--set", "moved=15", "--json").stdout)
    assert direct["stats"]["DEX"]["final"] == 7 and direct["rolls"][0]["probability"]["fraction"] == "35/216"
    # rules that share DEX with broken ground are resolved beside it; a rule that shares nothing is not
    assert ("broken_ground", "darkness") in sets and ("broken_ground", "mud") in sets
    assert not any("gravity" in names for names in sets)
    assert data["situations"]["not_tried"] == 0
    text_lines = run_cli("diff", str(tmp_path / "old.rules"), str(tmp_path / "new.rules")).output.splitlines()
    assert "  ~ mud: 5 of 21 situations changed" in text_lines
    assert "      moved = 15: stat DEX: 8 -> 7; roll fall: 7/27 (25.9%) -> 35/216 (16.2%)" in text_lines


def test_the_export_carries_the_pool_of_every_dice_change() -> None:
    # skidding: highest of 2d6 >= ..., one die fewer at pilot skill 1, one to three more at 3 to 5:
    # each change carries its pool (it was null), and `pools` every pool the roll can be made with
    data = json.loads(run_cli("export", "mecha_tables").output)
    rule = next(r for r in data["rules"] if r["name"] == "skidding")
    roll = next(e for e in rule["effects"] if e["node"] == "RollEffect")
    assert [(c["delta"], c["pool"]["dice"]) for c in roll["changes"] if c["kind"] == "dice"] == [
        (-1, "highest of 1d6"),
        (1, "highest of 3d6"),
        (2, "highest of 4d6"),
        (3, "highest of 5d6"),
    ]
    assert [pool["dice"] for pool in roll["pools"]] == [f"highest of {n}d6" for n in range(1, 9)]
    # the chance read from the export is the resolver's: pilot skill 5, highest of 5d6 >= 3
    five = next(c["pool"] for c in roll["changes"] if c["delta"] == 3)
    chance = sum(Fraction(x["probability"]["fraction"]) for x in five["distribution"] if x["total"] >= 3)
    mecha = module_for(RULEBOOKS / "mecha_tables.rules")
    skid = mecha.resolve("skidding", turning=True, terrain="sand", unit="wheel", pilot_skill=5).roll("skid")
    assert (skid.dice, skid.comparison, skid.target) == ("highest of 5d6", ">=", 3)
    assert skid.probability == chance == 1 - Fraction(2, 6) ** 5
