"""`cancelling highest when natural N on NAME` (OpenD6's other reading of a 1 on the Wild Die):
the mistakes a designer can make with it are diagnostics with a hint, never a traceback; the form
reads back as written (`rulecraft fmt`), and the resolver reads it as dice text."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from dsl.runtime import Dice, RuleInputError
from tests.conftest import run_cli

HEADER = '''rulebook cancel "Cancelling":
    source "tests"

input skill "Skill dice": int 2..6 = 3

rule check "Check" cites "tests":
'''


def _check(tmp_path: Path, roll: str) -> str:
    book = tmp_path / "cancel.rules"
    book.write_text(HEADER + f"    roll check \"Check\": {roll}\n", encoding="utf-8")
    result = run_cli("check", str(book))
    assert result.exit_code != 0, result.output
    return result.output


def test_a_die_the_pool_does_not_name(tmp_path: Path) -> None:
    output = _check(tmp_path, "((skill - 1) d6 + exploding d6 as wild) cancelling highest when natural 1 on wyld >= 8")
    assert "E101" in output and "`cancelling` reads the die `wyld`, which these dice do not name" in output
    assert "hint: did you mean `wild`?" in output


def test_a_face_the_die_never_shows(tmp_path: Path) -> None:
    output = _check(tmp_path, "(2d6 + d6 as wild) cancelling highest when natural 7 on wild >= 8")
    assert "E301" in output and "`wild`, a d6, never shows a natural 7: it cancels no dice" in output


def test_dice_read_another_way_do_not_cancel(tmp_path: Path) -> None:
    output = _check(tmp_path, "(highest of 3d6 + d6 as wild) cancelling highest when natural 1 on wild >= 8")
    assert "E203" in output and "`cancelling` takes dice away from a pool" in output


def test_faces_that_run_downwards(tmp_path: Path) -> None:
    output = _check(tmp_path, "(2d6 + d6 as wild) cancelling highest when natural 2..1 on wild >= 8")
    assert "E303" in output and "faces 2..1 run downwards" in output


def test_the_form_round_trips_through_fmt(tmp_path: Path) -> None:
    book = tmp_path / "cancel.rules"
    roll = "((skill - 1) d6 + exploding d6 as wild) cancelling highest when natural 1..2 on wild >= 8"
    book.write_text(HEADER + f"    roll check \"Check\": {roll}\n", encoding="utf-8")
    assert run_cli("check", str(book)).exit_code == 0
    assert run_cli("fmt", "--check", str(book)).exit_code == 0
    assert roll in book.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "text",
    [
        "(2d6 + 1d6 as wild) cancelling highest when natural 1 on wild",
        "(exploding 1d6 as wild + 3d6) cancelling highest when natural 1..2 on wild",
        "((2d6 + 1d6 as wild) cancelling highest when natural at least 5 on wild)/2 round up",
    ],
)
def test_the_dice_text_reads_back(text: str) -> None:
    assert str(Dice.parse(text)) == text


def test_dice_text_without_the_named_die_is_refused() -> None:
    with pytest.raises(RuleInputError, match="has no die named wyld"):
        Dice.parse("(2d6 + 1d6 as wild) cancelling highest when natural 1 on wyld")


def test_two_plain_dice_and_a_cancelling_die() -> None:
    """By hand, of 216: W = 1 leaves the lower of two d6, 1 in 11 ways and 6 in 1; W = 2..6 adds
    W to 2d6, at least 4.  A total of 1 comes only from W = 1 (11); a total of 6 from W = 1 with
    6 and 6 (1), or W = 2, 3, 4 with 2d6 = 4, 3, 2 (3 + 2 + 1): 7."""
    totals = Dice.parse("(2d6 + 1d6 as wild) cancelling highest when natural 1 on wild").totals()
    assert totals[1] == Fraction(11, 216)
    assert totals[6] == Fraction(7, 216)
    assert sum(totals.values()) == 1
