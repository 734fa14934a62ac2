"""rulecraft new: a project that checks, tests, builds and prints as it is, driven as a designer
drives it (the command line in a real process), and that never overwrites a file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dsl.fmt import format_text
from tests.conftest import run_cli


def _rulecraft(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dsl.cli", *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=300
    )


def test_a_new_project_checks_tests_builds_and_prints_as_it_is(tmp_path: Path) -> None:
    made = _rulecraft("new", "marsh", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    book = tmp_path / "marsh" / "marsh.rules"
    assert made.stdout.splitlines()[:2] == ["created marsh/marsh.rules", "created marsh/README.md"]
    assert sorted(p.name for p in book.parent.iterdir()) == ["README.md", "marsh.rules"]
    project = book.parent

    checked = _rulecraft("check", "marsh.rules", cwd=project)
    assert checked.returncode == 0 and "checked 1 rulebook: 0 errors, 0 warnings" in checked.stderr

    tested = _rulecraft("test", "marsh.rules", "-v", cwd=project)
    assert tested.returncode == 0, tested.stdout
    assert "4 examples passed, 0 failed" in tested.stdout

    built = _rulecraft("build", "marsh.rules", "-o", "generated", cwd=project)
    assert built.returncode == 0, built.stderr
    assert (project / "generated" / "marsh.py").is_file()
    printed = {p.name for p in (project / "generated" / "cards").iterdir()}
    assert {"marsh-cards-a4.pdf", "marsh-sheet-a4.pdf", "marsh.html"} <= printed
    fresh = _rulecraft("build", "marsh.rules", "-o", "generated", "--check", cwd=project)
    assert fresh.returncode == 0, fresh.stderr

    cards = _rulecraft("cards", "marsh.rules", "-o", "cards", cwd=project)
    assert cards.returncode == 0 and (project / "cards" / "marsh-cards-a4.pdf").read_bytes().startswith(b"%PDF")

    resolved = _rulecraft("resolve", "marsh.rules", "rough_ground", "--set", "ground=mud", "--set", "moved=2", cwd=project)
    assert resolved.returncode == 0 and "slip (Keep your footing): 3d6 <= 8: 7/27" in resolved.stdout

    formatted = _rulecraft("fmt", "--check", "marsh.rules", cwd=project)
    assert formatted.returncode == 0, formatted.stderr


def test_the_project_is_already_formatted_and_names_itself(tmp_path: Path) -> None:
    assert run_cli("new", "high_moor", "--dir", str(tmp_path / "moor")).exit_code == 0
    text = (tmp_path / "moor" / "high_moor.rules").read_text(encoding="utf-8")
    assert format_text(text) == text
    assert 'rulebook high_moor "High moor":' in text
    readme = (tmp_path / "moor" / "README.md").read_text(encoding="utf-8")
    assert readme.startswith("# High moor\n") and "rulecraft test high_moor.rules" in readme


def test_existing_files_are_never_overwritten(tmp_path: Path) -> None:
    project = tmp_path / "fen"
    project.mkdir()
    (project / "README.md").write_text("mine\n", encoding="utf-8")
    result = run_cli("new", "fen", "--dir", str(project))
    assert result.exit_code == 2
    assert f"{project / 'README.md'} already exists: nothing was written" in result.output
    assert (project / "README.md").read_text(encoding="utf-8") == "mine\n"
    assert not (project / "fen.rules").exists()


def test_a_file_in_the_way_of_the_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "fen").write_text("", encoding="utf-8")
    result = run_cli("new", "fen", "--dir", str(tmp_path / "fen"))
    assert result.exit_code == 2
    assert "exists and is not a directory" in result.output


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("9lives", "cannot name a rulebook: use a letter"),
        ("_hidden", "cannot name a rulebook: use a letter"),
        ("dark-wood", "cannot name a rulebook: use a letter"),
        ("when", "is a word of the rulecraft language"),
        ("class", "is a Python keyword"),
        ("random", "is a module of Python's standard library"),
    ],
)
def test_a_name_that_cannot_name_a_rulebook_is_refused(name: str, message: str, tmp_path: Path) -> None:
    result = run_cli("new", name, "--dir", str(tmp_path / "p"))
    assert result.exit_code == 2
    assert message in result.output
    assert not (tmp_path / "p").exists()
