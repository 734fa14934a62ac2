"""The mechanics gallery (docs/mechanics.md, tests/fixtures/mechanics/): one small rulebook per
family of resolution mechanic.  Each checks clean, builds a resolver and its cards, prints its
cards, and passes its worked examples (whose chances are worked out by hand in a comment); the
doc shows each rulebook as it is on disk, and what `rulecraft resolve` really prints."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

GALLERY = ROOT / "tests" / "fixtures" / "mechanics"
DOC = ROOT / "docs" / "mechanics.md"
BOOKS = sorted(GALLERY.glob("*.rules"))
FAMILIES = {
    "d20_check": "d20 vs DC with advantage and natural 20/1",
    "stat_bands": "2d6 + stat in bands (10+ / 7-9 / 6-)",
    "success_pool": "success-counting pool, at least N successes",
    "exploding_dice": "exploding dice",
    "fate_dice": "4dF",
    "roll_and_keep": "roll and keep (5d10 keep 3)",
    "percentile": "d100 roll-under with criticals, specials and 00, bonus and penalty dice",
    "opposed_rolls": "opposed rolls",
    "opend6": "OpenD6: a Wild Die exploding among plain d6, a complication or a cancelling 1",
    "year_zero": "Year Zero: a pool counting 6s, pushed (2..5 rolled again), banes on 1s",
    "blades": "Blades in the Dark: the highest die in bands, two 6s critical, zero dice",
    "legend_five_rings": "L5R roll and keep: exploding d10, rolled and kept counts from the character",
    "savage_worlds": "Savage Worlds: the better of a trait die and a wild d6, both acing, raises",
    "cortex": "Cortex: the two highest of step dice, hitches never kept, the effect die, heroic success",
    "pbta": "PbtA move: 2d6 + stat + forward + ongoing in bands, 12+ advanced, XP on a miss",
}
_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def _ids(path: Path) -> str:
    return path.stem


def _blocks(language: str) -> list[tuple[str | None, str]]:
    found = []
    for match in _FENCE.finditer(DOC.read_text(encoding="utf-8")):
        words = match.group(1).split()
        if words and words[0] == language:
            found.append((words[1] if len(words) > 1 else None, match.group(2)))
    return found


def test_the_gallery_has_one_book_per_family() -> None:
    assert {p.stem for p in BOOKS} == set(FAMILIES)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every gallery book built at once, cards included, by the command a designer runs."""
    out = tmp_path_factory.mktemp("gallery")
    result = subprocess.run(
        [sys.executable, "-m", "dsl.cli", "build", str(GALLERY), "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return out


@pytest.mark.parametrize("book", BOOKS, ids=_ids)
def test_the_book_checks_clean(book: Path) -> None:
    result = run_cli("check", str(book))
    assert result.exit_code == 0, result.output
    assert "0 errors, 0 warnings" in result.output


@pytest.mark.parametrize("book", BOOKS, ids=_ids)
def test_the_book_builds_with_its_cards(book: Path, built: Path) -> None:
    module = built / f"{book.stem}.py"
    assert module.is_file()
    for card in (f"{book.stem}-cards-a4.pdf", f"{book.stem}.html", f"{book.stem}-sheet.html"):
        assert (built / "cards" / card).stat().st_size > 0, card
    # the generated module is a resolver that runs on its own: its first rule resolves with
    # defaults, and the chances of its roll's outcomes add up to 1 exactly
    code = f"import {book.stem} as m; print(sum(m.resolve(next(iter(m.RULES))).rolls[0].outcomes.values()))"
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=built,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "1\n", result.stdout


@pytest.mark.parametrize("book", BOOKS, ids=_ids)
def test_the_book_prints_its_cards(book: Path, tmp_path: Path) -> None:
    result = run_cli("cards", str(book), "--format", "html", "-o", str(tmp_path))
    assert result.exit_code == 0, result.output
    page = (tmp_path / f"{book.stem}.html").read_text(encoding="utf-8")
    title = re.search(r'^rulebook \w+ "([^"]+)"', book.read_text(encoding="utf-8"), re.MULTILINE)
    assert title is not None
    assert title.group(1) in page


@pytest.mark.parametrize("book", BOOKS, ids=_ids)
def test_the_worked_examples_pass(book: Path) -> None:
    text = book.read_text(encoding="utf-8")
    examples = len(re.findall(r"^\s+example ", text, re.MULTILINE))
    assert examples >= 3, "a gallery book shows at least three worked examples"
    # every example has its chances worked out by hand in the comment just above it
    for match in re.finditer(r"^\s+example \"([^\"]+)\"", text, re.MULTILINE):
        before = text[: match.start()].rstrip("\n").split("\n")[-1].strip()
        assert before.startswith("#"), f"{book.name}: {match.group(1)} has no working"
    result = run_cli("test", str(book))
    assert result.exit_code == 0, result.output
    assert f"{examples} examples passed, 0 failed" in result.output


def test_the_doc_shows_every_book_as_it_is() -> None:
    shown = {name: text for name, text in _blocks("rules")}
    for book in BOOKS:
        relative = book.relative_to(ROOT).as_posix()
        assert shown.get(relative) == book.read_text(encoding="utf-8"), f"docs/mechanics.md shows {relative} otherwise"
    assert len(shown) == len(BOOKS)


CONSOLE = [text for _, text in _blocks("console")]


@pytest.mark.parametrize("block", CONSOLE, ids=lambda text: text.split()[3])
def test_the_doc_shows_what_resolve_prints(block: str) -> None:
    previous = Path.cwd()
    os.chdir(ROOT)
    try:
        for command in re.split(r"^\$ ", block, flags=re.MULTILINE)[1:]:
            line, _, expected = command.partition("\n")
            words = shlex.split(line)
            assert words[:2] == ["rulecraft", "resolve"]
            result = run_cli(*words[1:])
            assert result.exit_code == 0, result.output
            assert result.stdout.rstrip("\n") == expected.rstrip("\n"), f"`{line}` prints:\n{result.stdout}"
    finally:
        os.chdir(previous)
