"""The typed Python API of a generated module: a `Literal` alias for every choice, a TypedDict of
each rule's inputs, typed `Roll` and `Modifier` fields, and `RULES` saying what each rule
produces.  An app written against generated/mecha_tables.py passes `mypy --strict` without
`Any`; holding a terrain as a plain `str` does not."""

from __future__ import annotations

import os
import subprocess
import sys
import typing
from pathlib import Path

from tests.conftest import ROOT, RULEBOOKS, module_for

APP = '''\
from __future__ import annotations

from collections.abc import Sequence

from mecha_tables import (
    RULES,
    Modifier,
    Roll,
    SkiddingInputs,
    TerrainCostsInputs,
    TerrainType,
    resolve,
    skidding,
    terrain_costs,
)


def cost(terrain: TerrainType) -> str:
    situation: TerrainCostsInputs = {"terrain": terrain, "unit": "walker"}
    row = terrain_costs(**situation).tables[0].selected
    return "" if row is None else row.key


def slip(terrain: TerrainType, pilot_skill: int) -> Sequence[str]:
    situation: SkiddingInputs = {"terrain": terrain, "turning": True, "pilot_skill": pilot_skill}
    return [describe(roll) for roll in skidding(**situation).rolls]


def describe(roll: Roll) -> str:
    name: str = roll.name
    rule: str = roll.rule
    label: str | None = roll.label
    return f"{rule}.{name}: {label or ''} {roll.kind}"


def labels(modifiers: Sequence[Modifier]) -> list[str]:
    return [m.label or m.text for m in modifiers if m.operation == "add"]


def rolls_of(name: str) -> tuple[str, ...]:
    return RULES[name].rolls


path: list[TerrainType] = ["clear", "mud", "sand"]
print([cost(hex_) for hex_ in path], slip("mud", 5), rolls_of("skidding"))
print(labels(resolve(["skidding"], terrain="mud", turning=True).modifiers))
'''

LOOSE = '''\
from __future__ import annotations

from mecha_tables import terrain_costs

terrain: str = "clear"
terrain_costs(terrain=terrain)
'''


def _mypy(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    app = tmp_path / "app.py"
    app.write_text(text, encoding="utf-8")
    env = {**os.environ, "MYPYPATH": str(ROOT / "generated")}
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / ".mypy"), str(app)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )


def test_an_app_type_checks_against_a_generated_module(tmp_path: Path) -> None:
    done = _mypy(tmp_path, APP)
    assert done.returncode == 0, done.stdout + done.stderr
    # and runs
    ran = subprocess.run(
        [sys.executable, str(tmp_path / "app.py")],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "generated")},
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    assert "('skid',)" in ran.stdout


def test_a_terrain_held_as_str_is_a_type_error(tmp_path: Path) -> None:
    done = _mypy(tmp_path, LOOSE)
    assert done.returncode == 1
    assert 'Argument "terrain" to "terrain_costs" has incompatible type "str"' in done.stdout


def test_every_choice_has_a_literal_alias_and_every_rule_a_typed_dict() -> None:
    mecha = module_for(RULEBOOKS / "mecha_tables.rules")
    assert typing.get_args(mecha.TerrainType)[:3] == ("clear", "scrub", "sand")
    for name, spec in mecha.INPUTS.items():
        if spec.members:
            aliases = [v for k, v in vars(mecha).items() if k in mecha.__all__ and typing.get_args(v) == spec.members]
            assert aliases, name
    for name in mecha.RULES:
        form = getattr(mecha, "".join(p[:1].upper() + p[1:] for p in name.split("_")) + "Inputs")
        assert set(form.__annotations__) <= {*mecha.RULES[name].reads, "roll", "rounds"}, name
        assert form.__total__ is False


def test_rules_lists_what_each_rule_produces() -> None:
    skirmish = module_for(RULEBOOKS / "skirmish_terrain.rules")
    info = skirmish.RULES["broken_ground"]
    assert (info.stats, info.derived, info.rolls) == (("DEX",), (), ("fall",))
    # a rule composing another produces what that one does
    assert skirmish.RULES["mud"].stats[:1] == ("DEX",) and "fall" in skirmish.RULES["mud"].rolls
    assert skirmish.RULES["gravity"].derived == ("load", "jump_width")
    mecha = module_for(RULEBOOKS / "mecha_tables.rules")
    assert mecha.RULES["terrain_costs"].columns == ("infantry", "wheel", "track", "walker", "gev")
    # what the module says a rule produces is what resolving it reports
    for name, info in skirmish.RULES.items():
        result = skirmish.resolve(name).to_dict()
        assert set(result["derived"]) <= set(info.derived), name
        assert {roll["name"] for roll in result["rolls"]} <= set(info.rolls), name
        assert {m["target"] for m in result["modifiers"]} <= set(info.stats), name
