"""Golden tests of the checker's diagnostics, run through the CLI as a designer runs it.

tests/fixtures/ holds readable input/expected pairs, named by code and intent:

- invalid/<CODE>_<intent>.rules: a designer's mistake; <same name>.out is the exact stderr of
  `rulecraft check` run from the repository root (exit 1 with errors, 0 with warnings only);
- valid/<same name>.rules: the same intent written right: it checks clean and its examples pass;
- failing_examples/E790_<intent>.rules (E990_<intent>.rules): worked examples (balance claims)
  that fail; .out is what `rulecraft test` prints (on stdout);
- mixed/: a first draft with several mistakes, all reported at once and sorted by position.

Run with RULECRAFT_UPDATE_FIXTURES=1 to rewrite the .out files from the current output; then read
every changed file as a designer would before committing it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from dsl.cli import main
from dsl.codes import CODES
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"
INVALID = FIXTURES / "invalid"
VALID = FIXTURES / "valid"
FAILING = FIXTURES / "failing_examples"
MIXED = FIXTURES / "mixed"
UPDATE = os.environ.get("RULECRAFT_UPDATE_FIXTURES") == "1"
RUNTIME_ONLY = {"E790", "E990"}
"""Codes that `rulecraft test` reports when an example runs or a balance claim is checked, never
`rulecraft check`."""

CLEAN = "checked 1 rulebook: 0 errors, 0 warnings\n"
_HEADER = re.compile(
    r"^(?P<path>\S+?):(?P<line>\d+):(?P<column>\d+): (?P<severity>error|warning)\[(?P<code>[EW]\d{3})\]: "
)


def _fixtures(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.rules"))


def _id(path: Path) -> str:
    return path.stem


def _runner() -> CliRunner:
    """stderr apart from stdout: click < 8.2 needs mix_stderr=False, click >= 8.2 always keeps it."""
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        return CliRunner()


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Diagnostics name files relative to the working directory: run from the repository root."""
    monkeypatch.chdir(ROOT)


def _run(*args: str) -> Result:
    return _runner().invoke(main, list(args), catch_exceptions=False)


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _golden(path: Path, actual: str) -> str:
    """The expected output stored next to a fixture; rewritten first when updating."""
    expected = path.with_suffix(".out")
    if UPDATE:
        expected.write_text(actual, encoding="utf-8", newline="\n")
    if not expected.exists():
        pytest.fail(f"{_relative(expected)} is missing; run with RULECRAFT_UPDATE_FIXTURES=1 and read it")
    return expected.read_text(encoding="utf-8")


def _code(path: Path) -> str:
    return path.name.split("_", 1)[0]


# ---------------------------------------------------------------------- one code, one mistake


@pytest.mark.parametrize("path", _fixtures(INVALID), ids=_id)
def test_invalid_fixture(path: Path) -> None:
    result = _run("check", _relative(path))
    assert _golden(path, result.stderr) == result.stderr
    assert result.stdout == ""
    has_errors = "error[" in result.stderr
    assert result.exit_code == (1 if has_errors else 0)
    assert f"[{_code(path)}]" in result.stderr, f"{path.name} does not trigger {_code(path)}"


@pytest.mark.parametrize("path", _fixtures(VALID), ids=_id)
def test_valid_fixture(path: Path) -> None:
    checked = _run("check", _relative(path))
    assert (checked.exit_code, checked.stderr) == (0, CLEAN)
    tested = _run("test", _relative(path))
    assert tested.exit_code == 0, tested.output


@pytest.mark.parametrize("path", _fixtures(FAILING), ids=_id)
def test_failing_example_fixture(path: Path) -> None:
    result = _run("test", _relative(path))
    assert _golden(path, result.stdout) == result.stdout
    assert result.stderr == ""
    assert result.exit_code == 1
    assert f"error[{_code(path)}]" in result.stdout


# ---------------------------------------------------------------------- the set of fixtures


def test_every_code_has_an_invalid_fixture() -> None:
    covered = {_code(p) for p in _fixtures(INVALID)}
    missing = sorted(set(CODES) - RUNTIME_ONLY - covered)
    assert not missing, f"codes without a fixture in {_relative(INVALID)}: {', '.join(missing)}"
    assert {_code(p) for p in _fixtures(FAILING)} >= RUNTIME_ONLY


def test_fixtures_are_named_by_a_code() -> None:
    for path in _fixtures(INVALID) + _fixtures(VALID) + _fixtures(FAILING):
        assert _code(path) in CODES, f"{_relative(path)} is not named <CODE>_<intent>.rules"
        assert "_" in path.stem, f"{_relative(path)} names no intent"


def test_every_valid_fixture_fixes_an_invalid_one() -> None:
    broken = {p.name for p in _fixtures(INVALID) + _fixtures(FAILING)}
    orphans = [p.name for p in _fixtures(VALID) if p.name not in broken]
    assert not orphans, f"valid fixtures with no invalid counterpart: {orphans}"


def test_no_stale_expected_output() -> None:
    for folder in (INVALID, FAILING, MIXED):
        for out in folder.glob("*.out"):
            assert out.with_suffix(".rules").exists(), f"{_relative(out)} belongs to no fixture"


def test_the_non_utf8_fixture_is_still_not_utf8() -> None:
    """An editor that re-saves the fixture as UTF-8 would silently turn it into a valid file."""
    data = (INVALID / "E005_latin1_multiplication_sign.rules").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")


# ---------------------------------------------------------------------- several mistakes at once


MIXED_DRAFT = MIXED / "first_draft.rules"
MIXED_CODES = ["E001", "E002", "E101", "E204", "E201", "E401", "E302", "E301", "E401", "E501", "W102"]
"""What the draft gets wrong, in source order, every one reported: one mistake of each kind, and
the values its empty table row (E302) leaves without a row (E401)."""


def test_every_mistake_of_a_file_is_reported_sorted() -> None:
    result = _run("check", _relative(MIXED_DRAFT))
    assert _golden(MIXED_DRAFT, result.stderr) == result.stderr
    assert result.exit_code == 1
    headers = [m for m in (_HEADER.match(line) for line in result.stderr.splitlines()) if m]
    positions = [(int(m["line"]), int(m["column"])) for m in headers]
    assert positions == sorted(positions)
    assert [m["code"] for m in headers] == MIXED_CODES
    assert {m["path"] for m in headers} == {_relative(MIXED_DRAFT)}
    errors = sum(m["severity"] == "error" for m in headers)
    summary = result.stderr.splitlines()[-1]
    assert re.fullmatch(rf"checked 1 rulebook: {errors} errors?, {len(headers) - errors} warnings?", summary)


# ---------------------------------------------------------------------- never a traceback


def test_no_fixture_makes_the_real_command_print_a_traceback() -> None:
    """The installed entry point, in a fresh process: what a designer's terminal shows."""
    runs = [
        ["check", _relative(INVALID), _relative(MIXED)],
        ["test", _relative(FAILING)],
        ["check", _relative(VALID)],
        ["test", _relative(VALID)],
    ]
    for args in runs:
        done = subprocess.run(
            [sys.executable, "-m", "dsl.cli", *args], cwd=ROOT, capture_output=True, text=True, check=False
        )
        output = done.stdout + done.stderr
        assert "Traceback" not in output, output
        assert done.returncode in (0, 1), output


def test_a_resistance_formula_that_reads_an_input_is_rejected() -> None:
    # It would compile to a formula with no situation to read from: reported, not a crash.
    from dsl.compiler import compile_text

    result = compile_text(
        'rulebook r "R":\n    source "s"\n'
        'resistance "Resistance": d100 <= 50 + (active - passive) * 5 + bonus\n'
        "input bonus: int 0..10\ninput POW: int 1..30 = 10\n"
        'rule r "R" cites "1":\n    roll res "Resist": resist POW vs 10\n',
        "book.rules",
    )
    assert [(d.code, d.message) for d in result.errors] == [
        ("E104", "the resistance formula cannot read `bonus`: it may use only `active`, `passive` and numbers")
    ]
