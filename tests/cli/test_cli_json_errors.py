"""Errors of a command run with `--json`: JSON on stdout, with a stable code (ERROR_CODES in
dsl/cli.py, the schema `rulecraft schema error`) and the exit code the text would have had; and
`--set` refusing an input named twice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli


def _error(*args: str) -> tuple[dict[str, object], int]:
    result = run_cli(*args)
    data = json.loads(result.stdout)
    assert set(data) == {"error"}, data
    error = data["error"]
    assert isinstance(error, dict) and error["exit_code"] == result.exit_code != 0
    return error, result.exit_code


@pytest.mark.parametrize(
    ("args", "code", "exit_code", "says"),
    [
        (["resolve", "skirmish_terrain", "mud", "--set", "DEX=12", "--set", "DEX=13"], "repeated-input", 2, "`DEX` twice"),
        (["resolve", "skirmish_terrain", "mudd"], "no-rule", 2, "did you mean `mud`?"),
        (["resolve", "skirmish_terrain", "mud", "--set", "DEX=zz"], "bad-input", 2, "input `DEX` must be"),
        (["resolve", "skirmish_terrain", "mud", "--set", "DEX=99"], "bad-input", 2, "a number in int 0..30"),
        (["resolve", "skirmish_terrain", "mud", "--bogus"], "usage", 2, "No such option"),
        (["resolve"], "usage", 2, "Missing argument 'BOOK'"),
        (["resolve", "no_such_book", "mud"], "no-rulebook", 2, "no rulebook file `no_such_book`"),
        (["describe", "skirmish_terrain", "mudd"], "no-rule", 2, "no rule or table `mudd`"),
        (["list", "no_such_book"], "no-rulebook", 2, "no bundled rulebook"),
        (["diff", "no_such_book", "skirmish_terrain"], "no-rulebook", 2, "no rulebook file"),
        (["no_such_command"], "usage", 2, "No such command"),
    ],
)
def test_an_error_under_json_is_json_on_stdout_with_a_stable_code(
    args: list[str], code: str, exit_code: int, says: str
) -> None:
    error, status = _error(*args, "--json")
    assert (error["code"], status) == (code, exit_code)
    assert says in str(error["message"])
    # the same command without --json still speaks text, with the same exit code
    plain = run_cli(*args)
    assert plain.exit_code == exit_code and says in plain.output and not plain.stdout.startswith("{")


def test_a_rulebook_with_errors_under_json_lists_its_diagnostics(tmp_path: Path) -> None:
    book = tmp_path / "bad.rules"
    book.write_text('rulebook bad "Bad":\n    source "x"\n\nrule r "R" cites "1":\n    DEX -2\n', encoding="utf-8")
    error, status = _error("resolve", str(book), "r", "--json")
    assert (error["code"], status) == ("rulebook-errors", 1)
    (diagnostic,) = error["diagnostics"]  # type: ignore[misc]
    assert diagnostic == {
        "path": str(book),
        "line": 5,
        "column": 5,
        "end_line": 5,
        "end_column": 8,
        "severity": "error",
        "code": "E101",
        "message": "unknown stat `DEX`",
        "hint": None,
    }


def test_an_input_set_twice_is_refused_not_overwritten() -> None:
    result = run_cli("resolve", "skirmish_terrain", "mud", "--set", "DEX=12", "--set", "DEX=13")
    assert result.exit_code == 2
    assert "--set gives `DEX` twice; give each input once" in result.output
    # an input and a stat set once each still resolve
    assert run_cli("resolve", "skirmish_terrain", "mud", "--set", "DEX=12", "--set", "moved=3").exit_code == 0


def test_json_after_a_double_dash_is_an_argument_not_the_option() -> None:
    result = run_cli("resolve", "skirmish_terrain", "mud", "--", "--json")
    assert result.exit_code == 2 and "no rule or table `--json`" in result.output
    assert not result.stdout.startswith("{")


def test_every_error_code_is_documented() -> None:
    from dsl.cli import ERROR_CODES

    docs = (Path(__file__).resolve().parents[2] / "docs" / "language.md").read_text(encoding="utf-8")
    section = docs.split("### Errors under --json", 1)[1].split("\n### ", 1)[0]
    rows = dict(
        (cells[1].strip("` "), cells[2].strip())
        for cells in (line.split("|") for line in section.splitlines() if line.startswith("| `"))
    )
    del rows["code"]  # the table's heading
    assert rows == ERROR_CODES
    schema = json.loads(run_cli("schema", "error").output)
    assert schema["properties"]["error"]["properties"]["code"]["enum"] == list(ERROR_CODES)
