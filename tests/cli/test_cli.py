"""The command line as a user meets it: outputs, exit codes 0/1/2, and never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

BOOK = "rulebooks/skirmish_terrain.rules"


pytestmark = pytest.mark.usefixtures("at_root")
run = run_cli


def test_check_clean_rulebooks() -> None:
    result = run("check", "rulebooks/")
    assert result.exit_code == 0
    count = len(list(Path("rulebooks").glob("*.rules")))
    assert count >= 1
    assert f"checked {count} rulebook{'s' if count > 1 else ''}: 0 errors, 0 warnings" in result.output


def test_check_reports_errors_with_position_and_exits_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.rules"
    bad.write_text('rulebook bad "Bad":\n    source "s"\nstat DEX: int 1..30 = 10\nrule r "R" cites "1":\n    DXE -2\n')
    result = run("check", str(bad))
    assert result.exit_code == 1
    assert f"{bad.as_posix()}:5:5: error[E101]: unknown stat `DXE`" in result.output
    assert "did you mean `DEX`?" in result.output


def test_missing_path_is_bad_usage() -> None:
    result = run("check", "no/such/file.rules")
    assert result.exit_code == 2
    assert "no such file or directory" in result.output


def test_list_by_bundled_name_and_json() -> None:
    text = run("list", "skirmish_terrain")
    assert text.exit_code == 0
    assert "broken_ground" in text.output and "[17.1]" in text.output
    data = json.loads(run("list", BOOK, "--json").output)
    assert data["rulebook"] == "skirmish_terrain"
    assert {e["name"] for e in data["entries"]} >= {"broken_ground", "recoil_push"}


def test_unknown_book_is_bad_usage() -> None:
    result = run("list", "no_such_book")
    assert result.exit_code == 2
    bundled = result.output.split("(bundled: ", 1)[1].split(")", 1)[0].split(", ")
    assert "skirmish_terrain" in bundled and bundled == sorted(bundled)


def test_describe_lists_inputs_with_types_ranges_choices_defaults() -> None:
    data = json.loads(run("describe", BOOK, "broken_ground", "--json").output)
    inputs = {i["name"]: i for i in data["inputs"]}
    assert inputs["DEX"]["range"] == [0, 30]
    assert inputs["DEX"]["default"] == 10
    assert inputs["weapon"]["choices"][:3] == ["none", "melee", "thrown"]
    assert inputs["moved"]["unit"] == "hex"
    text = run("describe", BOOK, "broken_ground").output
    assert "moved (input): int 0..60 hex, default 0" in text


def test_describe_a_rolled_table_names_its_roll_input() -> None:
    # The Hostility Level table is rolled on 1d20: the die shows 1..20, and `--set roll=N` picks a row.
    data = json.loads(run("describe", "terrain_cards", "hostility_level", "--json").output)
    roll = next(i for i in data["inputs"] if i["name"] == "roll")
    assert (roll["type"], roll["range"], roll["default"]) == ("int", [1, 20], None)
    text = run("describe", "terrain_cards", "hostility_level").output
    assert "  roll (input): int 1..20, optional  The die result; without it, the chance of every row" in text
    # A table looked up by an input, or a rule, has no roll input.
    for name in ("recoil_push", "broken_ground"):
        assert all(i["name"] != "roll" for i in json.loads(run("describe", BOOK, name, "--json").output)["inputs"])


def test_describe_unknown_rule_suggests() -> None:
    result = run("describe", BOOK, "brokenground")
    assert result.exit_code == 2
    assert "did you mean `broken_ground`?" in result.output


def test_resolve_json_across_rules() -> None:
    # broken ground + smoke, DEX 12, moving 6 of MOV 10 through 2 hexes: DEX 10, to hit 8;
    # footing 3d6 <= 10 = 1/2; hit 3d6 <= 8 = 56/216 = 7/27.
    result = run(
        "resolve", BOOK, "broken_ground", "smoke",
        "--set", "DEX=12", "--set", "MOV=10", "--set", "moved=6", "--set", "smoke_hexes=2", "--json",
    )  # fmt: skip
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["stats"]["DEX"] == {"start": 12, "final": 10} and data["stats"]["to_hit"]["final"] == 8
    assert {r["name"]: r["probability"]["fraction"] for r in data["rolls"]} == {"fall": "1/2", "hit": "7/27"}


def test_resolve_text_output() -> None:
    result = run("resolve", BOOK, "ice", "--set", "DEX=8", "--set", "moved=4")
    assert result.exit_code == 0
    # 2d6 <= 8: 26/36 = 13/18
    assert "fall (Avoid falling): 2d6 <= 8: 13/18 (72.2%)" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--set", "DEX=40"], "input `DEX` must be a number in int 0..30"),
        (["--set", "DEX"], "--set takes NAME=VALUE"),
        (["--set", "acrobatics=maybe"], "must be yes or no"),
        (["--set", "weapon=lazer"], "did you mean `laser`?"),
        (["--set", "dexterity=3"], "no input `dexterity`"),
    ],
)
def test_resolve_bad_values_are_usage_errors(args: list[str], message: str) -> None:
    result = run("resolve", BOOK, "broken_ground", *args)
    assert result.exit_code == 2
    assert message in result.output


def test_resolve_table_with_a_roll() -> None:
    data = json.loads(run("resolve", BOOK, "recoil_push", "--set", "recoil_st=9", "--json").output)
    (table,) = data["tables"]
    assert table["selected"]["values"] == {"speed": {"fraction": "1/2", "float": 0.5}}


def test_test_command_runs_examples() -> None:
    result = run("test", "rulebooks/", "-v")
    assert result.exit_code == 0
    assert "ok    rulebooks/skirmish_terrain.rules: Running 6 hexes of MOV 10 with DEX 12" in result.output


def test_test_command_fails_on_a_wrong_example(tmp_path: Path) -> None:
    book = tmp_path / "wrong.rules"
    book.write_text(
        'rulebook wrong "Wrong":\n    source "s"\nstat DEX: int 1..30 = 10\n'
        'rule r "R" cites "1":\n    DEX -2\n    example "off by one":\n        given DEX = 12\n        expect DEX = 11\n'
    )
    result = run("test", str(book))
    assert result.exit_code == 1
    assert 'error[E790]: example "off by one": expected DEX = 11, got 10' in result.output


def test_version_and_help() -> None:
    assert run("--version").exit_code == 0
    help_text = run("--help").output
    for command in ("check", "build", "cards", "list", "describe", "resolve", "test"):
        assert command in help_text
    assert run("frobnicate").exit_code == 2


def test_describe_writes_what_is_subtracted_from_the_dice(tmp_path: Path) -> None:
    book = tmp_path / "wrestling.rules"
    book.write_text(
        'rulebook wrestling "Wrestling":\n    source "s"\n\n'
        'input a "A": int -5..10 = 0\ninput b "B": int -5..10 = 0\n\n'
        'rule arm "Arm wrestling" cites "1":\n'
        '    roll arm "Arm": opposed d20 - a vs 2d10 + (a + b)\n'
        '    roll press "Press": d20 - (a + b) >= 10\n',
        encoding="utf-8",
    )
    text = run("describe", str(book), "arm").output
    assert '  roll arm "Arm": opposed d20 - a vs 2d10 + (a + b)\n' in text
    assert '  roll press "Press": d20 - (a + b) >= 10\n' in text


@pytest.mark.parametrize(
    "command",
    [["describe", "mecha_tables", "heavy_damage"], ["resolve", "mecha_tables", "heavy_damage", "--json"]],
    ids=["describe, written line by line", "resolve --json, written at once"],
)
def test_a_reader_that_stops_early_is_no_internal_error(command: list[str]) -> None:
    """`rulecraft describe BOOK TABLE | head -3`: the reader goes away while rulecraft still has
    text to write; rulecraft stops quietly (exit 141, as a shell reports SIGPIPE) with nothing on
    stderr.  The reader is gone before rulecraft writes its first byte (the pipe's reading end is
    closed before it starts): a reader that read a little first would race with the writer, and
    a text the pipe can hold whole could be written before the reader left, the run ending 0."""
    import os
    import subprocess
    import sys

    reading, writing = os.pipe()
    os.close(reading)
    try:
        process = subprocess.run(
            [sys.executable, "-c", "from dsl.cli import main; main()", *command],
            stdout=writing,
            capture_output=False,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )
    finally:
        os.close(writing)
    error = process.stderr.decode()
    assert process.returncode == 141, error
    assert error == ""


ROUNDS_INPUT = """\
rulebook diving "Diving":
    source "test"

input CON "Constitution": int 1..30 = 10
input rounds "Rounds already under water": int 0..10 = 0
input breath_round "Round without air": int 1..100 = 1
input breath_failed "A CON roll has failed": flag = no

rule diving "Diving" cites "7":
    unless breath_failed:
        roll hold_breath "Hold the breath": d100 <= CON * 5 - (rounds + breath_round - 1) * 10
    each round breath_round:
        until hold_breath fails then breath_failed = yes

    # CON 12, 1 round already under water: 60 - 10 = 50 in round 1, 60 - 20 = 40 in round 2;
    # over 2 rounds 1/2 * 2/5 = 1/5.
    example "Two rounds more":
        given CON = 12, rounds = 1
        over 2 rounds
        expect lasting = 1/5
"""


def test_an_input_named_rounds_is_an_input_beside_the_rounds_of_a_sequence(tmp_path: Path) -> None:
    """A rulebook may name an input `rounds`: `resolve` at its defaults, `--set rounds=`, `--rounds`
    and a worked example over rounds each mean what they say (resolve once took the missing
    `--rounds` for the input, and `--rounds` with the input for a second `rounds`)."""
    book = tmp_path / "diving.rules"
    book.write_text(ROUNDS_INPUT, encoding="utf-8")
    assert run_cli("test", str(book)).exit_code == 0
    at_defaults = json.loads(run_cli("resolve", str(book), "diving", "--json").output)
    assert at_defaults["rolls"][0]["probability"]["fraction"] == "1/2"  # 10 * 5 - 0 = 50 in 100
    given = run_cli("resolve", str(book), "diving", "--set", "rounds=2", "--set", "CON=12", "--json")
    assert json.loads(given.output)["rolls"][0]["probability"]["fraction"] == "2/5"  # 60 - 20 = 40
    over = run_cli("resolve", str(book), "diving", "--set", "rounds=1", "--set", "CON=12", "--rounds", "2", "--json")
    assert over.exit_code == 0, over.output
    assert json.loads(over.output)["sequence"]["lasting"]["fraction"] == "1/5"
