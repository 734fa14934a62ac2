"""The JSON Schemas of the data contract pass ajv's strict mode (draft 2020-12), and what the
commands print validates against them in ajv as in Python: every bundled rulebook's export, the
resolution of every worked example and of every rule and table at its defaults, edge cases
(numbers past 2^53, dice too many to list, rounds), `list`, `describe`, `diff` and the errors of
`--json`.  The rulebook schema is the one dsl/export_schema.py writes from the model."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from dsl.checks.examples import all_examples
from dsl.contract import SCHEMAS
from dsl.describe import describe_data
from dsl.export_schema import schema_json
from dsl.report import json_text
from dsl.runner import _value
from tests.ajv import ajv_check
from tests.conftest import RULEBOOKS, compiled, module_for, run_cli

BOOKS = sorted(RULEBOOKS.glob("*.rules"))
DICE = RULEBOOKS.parent / "tests" / "fixtures" / "dice"
ROLLING_RULES = ["plain", "explosions", "kept", "named", "better", "counted", "fate", "pairs", "contest", "arithmetic", "pool"]
SAFE = 2**53 - 1


def _schemas() -> dict[str, Any]:
    found = {}
    for name in SCHEMAS:
        result = run_cli("schema", name)
        assert result.exit_code == 0, result.output
        found[name] = json.loads(result.output)
    return found


def _json(*args: str) -> Any:
    result = run_cli(*args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _unsafe_integers(data: object, path: str = "$") -> list[str]:
    """Paths of JSON integers a double cannot hold exactly."""
    if isinstance(data, bool):
        return []
    if isinstance(data, int):
        return [path] if abs(data) > SAFE else []
    if isinstance(data, dict):
        return [p for k, v in data.items() for p in _unsafe_integers(v, f"{path}.{k}")]
    if isinstance(data, list):
        return [p for i, v in enumerate(data) for p in _unsafe_integers(v, f"{path}[{i}]")]
    return []


def _resolutions() -> list[tuple[str, str, Any]]:
    found: list[tuple[str, str, Any]] = []
    for path in BOOKS:
        book = compiled(path).book
        assert book is not None
        module = module_for(path)
        for example in all_examples(book):
            given = {name: _value(expr, book) for name, expr in example.givens}
            data = module.resolve(list(example.rules), rounds=example.rounds, **given).to_dict()
            found.append(("resolution", f"{path.stem}: {example.title}", data))
        for name in module.RULES:
            found.append(("resolution", f"{path.stem}: {name} at its defaults", module.resolve(name).to_dict()))
    edges = [
        ["spot_rules_a_to_e", "armor_damaged", "--set", "armor_cost=123456789012345678901234567890",
         "--set", "armor_state=damaged"],
        ["skirmish_terrain", "smoke", "--set", "laser_damage=100d1000"],
        ["skirmish_terrain", "smoke", "--set", "laser_damage=(100d1000)/2 round up"],
        ["skirmish_terrain", "spacesuit", "--rounds", "4"],
        ["skirmish_terrain", "broken_ground", "mud", "--set", "moved=3", "--set", "DEX=12"],
        ["mecha_tables", "skidding", "--set", "turning=yes", "--set", "terrain=mud", "--set", "pilot_skill=5"],
        # rolled (forms.rules has a roll of every dice form)
        ["skirmish_terrain", "broken_ground", "--set", "moved=8", "--seed", "7"],
        ["skirmish_terrain", "broken_ground", "--set", "moved=8", "--seed", str(2**64 + 5)],
        ["skirmish_terrain", "broken_ground", "--set", "moved=8", "--rolled", "fall=9"],
        ["mecha_tables", "fire_control", "--set", "heavy_hit=1", "--seed", "3"],
        # a rolled chain: roll twice, a roll twice rolled again, sub-tables; one told by each table
        ["mecha_tables", "light_damage", "--seed", "5"],
        ["terrain_cards", "hostility_level", "--rolled", "hostility_level=20", "--rolled", "game_conditions=14"],
        [str(DICE.parent / "rolling" / "forms.rules"), *ROLLING_RULES, "--seed", "11"],
        [str(DICE / "opend6.rules"), "wild_check", "--rolled", "action=3,4,6,6,1"],
        # a roll's outcome sending on; two tables rolled together; rounds rolled and told
        ["mecha_tables", "walker_knockdown", "--set", "unit=walker", "--set", "damage_taken=14",
         "--set", "vehicle_size=6", "--set", "MoS=3", "--seed", "97"],
        ["mecha_tables", "light_damage", "heavy_damage", "--seed", "3"],
        ["spot_rules_a_to_e", "asphyxiation", "--set", "CON=8", "--rounds", "5", "--seed", "11"],
        ["skirmish_terrain", "spacesuit", "--rounds", "3", "--rolled", "leak_damage=4", "--rolled", "2:leak_damage=1,2"],
    ]
    for args in edges:
        found.append(("resolution", " ".join(args), _json("resolve", *args, "--json")))
    return found


def test_both_schemas_pass_ajv_strict_and_every_output_validates() -> None:
    schemas = _schemas()
    documents = _resolutions()
    for path in BOOKS:
        documents.append(("rulebook", f"export {path.stem}", _json("export", str(path))))
    result = ajv_check(schemas, documents)
    assert result.schema_errors == {}
    assert sorted(result.compiled) == sorted(SCHEMAS)
    assert result.invalid == [], json.dumps(result.invalid[:3], indent=1)[:4000]
    assert result.checked == len(documents) > 700
    for _, label, data in documents:
        assert _unsafe_integers(data) == [], label
    print(f"ajv strict: {len(SCHEMAS)} schemas, {result.checked} documents valid")


def test_ajv_refuses_what_the_schemas_forbid() -> None:
    # the schemas are closed: a field they do not know, a bare integer past 2^53, an item of the
    # wrong shape are each refused (so the validation above is not vacuous)
    schemas = _schemas()
    export = _json("export", "skirmish_terrain")
    extra = copy.deepcopy(export)
    extra["rules"][0]["effects"][0]["surprise"] = 1
    untyped = copy.deepcopy(export)
    untyped["tables"] = [{"node": "Table"}]
    resolution = _json("resolve", "skirmish_terrain", "broken_ground", "--json")
    huge = copy.deepcopy(resolution)
    huge["stats"]["DEX"]["final"] = 2**60
    pair = copy.deepcopy(export)
    pair["rules"][0]["examples"][0]["givens"][0] = ["DEX", 12]
    documents = [
        ("rulebook", "extra field", extra),
        ("rulebook", "untyped table", untyped),
        ("rulebook", "a given as a pair", pair),
        ("resolution", "integer past 2^53", huge),
    ]
    result = ajv_check(schemas, documents)
    assert sorted(x["label"] for x in result.invalid) == sorted(label for _, label, _ in documents)


def test_the_rulebook_schema_is_written_from_the_model() -> None:
    """dsl/schema/rulebook.schema.json is what `python -m dsl.export_schema` writes: regenerate
    it after changing the model."""
    folder = Path(__file__).resolve().parents[2] / "dsl" / "schema"
    shipped = (folder / "rulebook.schema.json").read_text(encoding="utf-8")
    assert shipped == schema_json((folder / "resolution.schema.json").read_text(encoding="utf-8")), (
        "run `python -m dsl.export_schema`"
    )


@pytest.mark.parametrize("name", SCHEMAS)
def test_every_link_of_a_schema_names_a_section_of_the_docs(name: str) -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "language.md").read_text(encoding="utf-8")
    headings = {line.lstrip("#").strip().split(". ", 1)[-1] for line in docs.splitlines() if line.startswith("#")}
    text = run_cli("schema", name).output  # JSON: a quote in a description is \"
    sections = re.findall(r'docs/language\.md, \\"([^"\\]+)\\"', text)
    assert len(sections) == text.count("docs/language.md") > 0, 'each link is docs/language.md, "Section"'
    assert sorted(set(sections) - headings) == []


def test_every_field_of_the_export_is_documented() -> None:
    """Each node of the rulebook schema and each of its fields is explained in docs/language.md,
    "Export fields": in an entry that names the node (the fields every effect and every
    expression share, in the entry that says so)."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "language.md").read_text(encoding="utf-8")
    section = docs.split("#### Export fields", 1)[1].split("\n## ", 1)[0]
    entries = re.split(r"\n\s*- ", section)
    shared = {
        "effect": next(e for e in entries if e.startswith("Every effect has")),
        "expr": next(e for e in entries if e.startswith("Expressions:")),
    }
    schema = json.loads(run_cli("schema", "rulebook").output)
    groups = {name: set(schema["$defs"][name]["properties"]["node"]["enum"]) for name in shared}
    missing = []
    for name, definition in schema["$defs"].items():
        if "const" not in definition.get("properties", {}).get("node", {}):
            continue  # not a node, or a group of them (told apart by `node`)
        node = definition["properties"]["node"]["const"]
        mine = [e for e in entries if f"`{node}`" in e]
        places = mine + [shared[group] for group, members in groups.items() if name in members]
        for field in definition["properties"]:
            if field != "node" and not any(f"`{field}`" in place for place in places):
                missing.append(f"{node}.{field}")
    assert missing == []


def test_list_describe_diff_and_errors_validate_against_their_schemas(tmp_path: Path) -> None:
    documents: list[tuple[str, str, Any]] = []
    for path in BOOKS:
        documents.append(("list", f"list {path.stem}", _json("list", str(path), "--json")))
        # every rule's description as `describe --json` prints it (the facts it prints from,
        # tests/cli/test_cli_cache.py), and three rules a book through the command itself
        module = module_for(path)
        book = compiled(path).book
        assert book is not None
        names = list(module.RULES)
        for name in names:
            inputs = [module.INPUTS[read] for read in module.RULES[name].reads]
            data = json.loads(json_text(describe_data(book, name, inputs, module)))
            documents.append(("describe", f"describe {path.stem} {name}", data))
        for name in dict.fromkeys([names[0], names[len(names) // 2], names[-1]]):
            documents.append(("describe", f"describe {path.stem} {name} (command)", _json("describe", str(path), name, "--json")))
    old = tmp_path / "old.rules"
    old.write_text((RULEBOOKS / "skirmish_terrain.rules").read_text(encoding="utf-8"), encoding="utf-8")
    new = tmp_path / "new.rules"
    edited = old.read_text(encoding="utf-8").replace("DEX -2", "DEX -3", 1).replace("3d6 <= DEX", "2d6 <= DEX", 1)
    new.write_text(edited, encoding="utf-8")
    documents.append(("diff", "diff of two editions", _json("diff", str(old), str(new), "--json")))
    documents.append(("diff", "diff of one edition", _json("diff", str(old), str(old), "--json")))
    failing = [
        ["resolve", "skirmish_terrain", "mud", "--set", "DEX=12", "--set", "DEX=13"],
        ["resolve", "skirmish_terrain", "mudd"],
        ["resolve", "skirmish_terrain", "broken_ground", "--set", "moved=8", "--rolled", "fall=3,4,9"],
        ["resolve", "nobook", "mud"],
        ["describe", "skirmish_terrain", "nothing"],
        ["list", "--bogus"],
        ["diff", "skirmish_terrain"],
    ]
    broken = tmp_path / "broken.rules"
    broken.write_text('rulebook broken "B":\n    source "x"\n\nrule r "R" cites "1":\n    DEX -2\n', encoding="utf-8")
    failing.append(["resolve", str(broken), "r"])
    for args in failing:
        result = run_cli(*args, "--json")
        assert result.exit_code != 0
        documents.append(("error", " ".join(args), json.loads(result.stdout)))
    result = ajv_check(_schemas(), documents)
    assert result.schema_errors == {}
    assert result.invalid == [], json.dumps(result.invalid[:3], indent=1)[:4000]
    assert result.checked == len(documents) > 300
    for _, label, data in documents:
        assert _unsafe_integers(data) == [], label


def test_a_form_is_the_same_in_every_schema() -> None:
    # the forms of numbers, dice and chances are copied from the resolution schema: one meaning
    schemas = _schemas()
    forms = schemas["resolution"]["$defs"]
    for name, schema in schemas.items():
        for form, definition in schema.get("$defs", {}).items():
            if form in forms and form in ("number", "fraction", "whole", "probability", "dice", "special", "value"):
                assert definition == forms[form], (name, form)
