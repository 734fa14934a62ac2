"""Keeping books working across releases (issue 26, "Upgrading broke a book"): a check new in a
release warns on a book written before it, with the fix in the hint, and fails on a book that
says it is written for the release (docs/language.md, "Keeping books working across releases")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dsl import __version__
from dsl.codes import CODES, CURRENT, NEW_CHECKS, RELEASES, graced, release_text
from tests.conftest import ROOT, run_cli

HEAT = ROOT / "tests" / "fixtures" / "invalid" / "E202_a_dc_that_took_the_hours.rules"
DOCS = ROOT / "docs" / "language.md"


def _heat(tmp_path: Path, header_line: str | None, fixed: bool = False) -> Path:
    """The issue's d20 heat book (`derive heat_DC = 4 + hour_of_exposure`, `con_save` plain),
    with a release stated in its header or not, and with the hint's fix applied or not."""
    text = HEAT.read_text(encoding="utf-8")
    if header_line is not None:
        text = text.replace('    source "d20 rules"\n', f'    source "d20 rules"\n    {header_line}\n')
    if fixed:
        text = text.replace("4 + hour_of_exposure", "4 + 1 per hour of hour_of_exposure")
    path = tmp_path / "heat.rules"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_heat_book_without_a_release_gets_a_warning_with_the_fix(tmp_path: Path) -> None:
    result = run_cli("check", str(_heat(tmp_path, None)))
    assert result.exit_code == 0, result.output
    assert "warning[E202]: `con_save + 10` is a plain number" in result.output
    assert "a check new in rulecraft 0.2: it will be an error from rulecraft 0.3" in result.output
    assert "`1 per hour of hour_of_exposure`" in result.output
    assert "`for rulecraft 0.2`" in result.output
    assert "error[" not in result.output
    assert run_cli("build", str(_heat(tmp_path, None)), "-o", str(tmp_path / "out")).exit_code == 0


def test_the_heat_book_for_the_current_release_gets_an_error(tmp_path: Path) -> None:
    result = run_cli("check", str(_heat(tmp_path, f"for rulecraft {release_text(CURRENT)}")))
    assert result.exit_code == 1
    assert "error[E202]: `con_save + 10` is a plain number, combined here with a quantity in hour\n" in result.output
    assert "a check new in" not in result.output


def test_the_heat_book_for_an_older_release_gets_a_warning(tmp_path: Path) -> None:
    result = run_cli("check", str(_heat(tmp_path, "for rulecraft 0.1")))
    assert result.exit_code == 0
    assert "warning[E202]" in result.output
    assert "say `for rulecraft 0.2` in the header, where it says `for rulecraft 0.1`" in result.output


@pytest.mark.parametrize("header_line", [None, "for rulecraft 0.1", "for rulecraft 0.2"])
def test_the_fix_in_the_hint_applied_checks_clean(tmp_path: Path, header_line: str | None) -> None:
    result = run_cli("check", str(_heat(tmp_path, header_line, fixed=True)))
    assert result.exit_code == 0, result.output
    assert "0 errors, 0 warnings" in result.output


def test_a_release_rulecraft_does_not_know_is_e007(tmp_path: Path) -> None:
    future = run_cli("check", str(_heat(tmp_path, "for rulecraft 9.0", fixed=True)))
    assert future.exit_code == 1
    assert "error[E007]: this rulebook is written for rulecraft 9.0, newer than this rulecraft (0.2)" in future.output
    never = run_cli("check", str(_heat(tmp_path, "for rulecraft 0.0", fixed=True)))
    assert "error[E007]: rulecraft has had no release 0.0" in never.output


def test_bundled_rulebooks_are_unaffected() -> None:
    result = run_cli("check", str(ROOT / "rulebooks"))
    assert result.exit_code == 0
    assert "0 errors, 0 warnings" in result.output


def test_a_new_book_states_the_current_release(tmp_path: Path) -> None:
    assert run_cli("new", "marsh", "--dir", str(tmp_path)).exit_code == 0
    text = (tmp_path / "marsh.rules").read_text(encoding="utf-8")
    assert f"    for rulecraft {release_text(CURRENT)}\n" in text
    assert run_cli("check", str(tmp_path / "marsh.rules")).exit_code == 0


def test_the_releases_and_the_package_version_agree() -> None:
    assert release_text(CURRENT) == ".".join(__version__.split(".")[:2])
    assert RELEASES[-1] == CURRENT
    assert list(RELEASES) == sorted(RELEASES)


def test_every_new_check_is_graced_only_until_its_error_release() -> None:
    for check in NEW_CHECKS:
        assert check.code in CODES and check.code.startswith("E")
        assert check.since in RELEASES and check.error_from > check.since
        assert graced(check, None, check.since) and not graced(check, check.since, check.since)
        assert not graced(check, None, check.error_from)


def test_the_docs_print_the_table_of_new_checks() -> None:
    """One table, in dsl/codes.py; docs/language.md prints it row for row."""
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("### Keeping books working across releases", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (E\d{3}) \| ([^|]+) \| ([\d.]+) \| ([\d.]+) \|$", section, re.MULTILINE)
    expected = [(c.code, c.title, release_text(c.since), release_text(c.error_from)) for c in NEW_CHECKS]
    assert [(code, title.strip(), since, until) for code, title, since, until in rows] == expected
