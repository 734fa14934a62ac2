"""The example app examples/chat_bot/bot.py, run as its README says (a process reading messages
on stdin), with the rulebooks built into a folder of its own (`rulecraft build -o`), as an app
ships them: every answer is held to the resolver's own Python API for the same situation."""

from __future__ import annotations

import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from tests.conftest import ROOT, RULEBOOKS, module_for, run_cli

BOT = ROOT / "examples" / "chat_bot" / "bot.py"


@pytest.fixture(scope="module")
def books(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("books")
    result = run_cli(
        "build",
        str(RULEBOOKS / "skirmish_terrain.rules"),
        str(RULEBOOKS / "terrain_cards.rules"),
        "-o",
        str(out),
        "--no-cards",
    )
    assert result.exit_code == 0, result.output
    return out


def _chat(books: Path, *messages: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, str(BOT), "--books", str(books)],
        input="".join(m + "\n" for m in messages),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return done.stdout.splitlines()


def test_a_seeded_roll_is_the_resolvers_and_rolls_again_the_same(books: Path) -> None:
    skirmish = module_for(RULEBOOKS / "skirmish_terrain.rules")
    resolution = skirmish.resolve("broken_ground", moved=8, rng=20261127)
    roll, made = resolution.roll("fall"), resolution.rolled("fall")
    faces = ", ".join(str(d.faces[0]) for d in made.sides[0].rolled)
    assert roll.probability == Fraction(7, 27)  # 3d6 <= 8: 56 of the 216 rolls
    lines = _chat(books, "/roll skirmish_terrain broken_ground moved=8 seed=20261127", "/quit", "/books")
    assert lines[0] == (
        f"fall: 3d6 [{faces}] = {made.total} {roll.comparison} {roll.target}: {made.outcome}; chance of success 7/27 (25.9%)"
    )
    assert lines[-1] == "(seed 20261127: `/roll skirmish_terrain broken_ground moved=8 seed=20261127` rolls it again)"
    assert len(lines) == 3  # nothing after /quit


def test_an_unseeded_roll_shows_a_seed_that_rolls_it_again(books: Path) -> None:
    first = _chat(books, "/roll skirmish_terrain broken_ground moved=8")
    again = re.fullmatch(r"\(seed (\d+): `(/roll .*)` rolls it again\)", first[-1])
    assert again is not None, first
    assert _chat(books, again.group(2)) == first


def test_a_roll_made_at_the_table_is_read_as_faces_or_a_total(books: Path) -> None:
    skirmish = module_for(RULEBOOKS / "skirmish_terrain.rules")
    told = skirmish.broken_ground(moved=8, rolled={"fall": [3, 4, 2]}).rolled("fall")
    assert (told.total, told.outcome) == (9, "failure")
    lines = _chat(
        books,
        "/told skirmish_terrain broken_ground fall=3,4,2 moved=8",
        "/told skirmish_terrain broken_ground fall=5 moved=8",
    )
    assert lines[0] == "fall: 3d6 [3, 4, 2] = 9 <= 8: failure; chance of success 7/27 (25.9%)"
    assert lines[2] == "fall: 3d6 told as 5 <= 8: success; chance of success 7/27 (25.9%)"


def test_a_rolled_table_names_its_row(books: Path) -> None:
    cards = module_for(RULEBOOKS / "terrain_cards.rules")
    row = cards.resolve("hostility_level", rng=3).tables[0]
    lines = _chat(books, "/roll terrain_cards hostility_level seed=3")
    assert lines[0].startswith(
        f"Hostility Level: 1d20 [{row.rolled.rolled[0].faces[0]}] = {row.rolled.total}: row {row.selected.key}: "
    )


def test_mistakes_are_answered_and_chatter_is_left_alone(books: Path) -> None:
    lines = _chat(
        books,
        "hello all",
        "/roll nope x",
        "/roll skirmish_terrain broken_ground DEX=abc",
        "/roll skirmish_terrain broken_ground nonsense=1",
        "/told skirmish_terrain broken_ground fall=7,7,7 moved=8",
        "/roll skirmish_terrain",
        "/dance",
        '/roll "unclosed',
    )
    assert lines[0] == "sorry: no rulebook `nope`; I know skirmish_terrain, terrain_cards"
    assert lines[1] == 'sorry: input `DEX` must be a whole number, not "abc"'
    assert lines[2].startswith("sorry: no input `nonsense`")
    assert lines[3].startswith("sorry: ") and "7" in lines[3]  # a d6 cannot show 7
    assert lines[4] == "sorry: /roll BOOK RULE [NAME=VALUE ...] [seed=N]"
    assert lines[5] == "unknown command /dance; try /help"
    assert lines[6].startswith("I could not read that")
    assert len(lines) == 7
