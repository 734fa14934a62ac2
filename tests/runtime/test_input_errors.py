"""The resolver's contract holds at its edges: one documented exception, RuleInputError, for
every bad input, and typed functions that stay typed.  Each test reproduces a report of the
reliability review (the reproducer's file is named in its docstring)."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner, Result

from dsl.cli import main
from tests.conftest import RULEBOOKS, module_for

CONTROL = [chr(c) for c in (*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))] + [
    "\u061c",
    "\u200e",
    "\u200f",
    "\u2028",
    "\u2029",
    *map(chr, range(0x202A, 0x202F)),
    *map(chr, range(0x2066, 0x206A)),
]


def _run(*args: str, env: dict[str, str] | None = None) -> Result:
    try:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        runner = CliRunner()
    result = runner.invoke(main, list(args), env=env)
    assert "Traceback" not in result.stdout + result.stderr
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.fixture(scope="module")
def skirmish() -> ModuleType:
    return module_for(RULEBOOKS / "skirmish_terrain.rules")


@pytest.fixture(scope="module")
def mecha() -> ModuleType:
    return module_for(RULEBOOKS / "mecha_tables.rules")


# ---------------------------------------------------------------------------- numbers


def test_a_number_of_5000_digits_is_a_usage_error() -> None:
    """huge_number_input.sh: a numeric input of more than 4,300 digits was an internal error
    (exit 1) instead of a usage error."""
    result = _run("resolve", "skirmish_terrain", "broken_ground", "--set", "DEX=" + "9" * 5000)
    assert result.exit_code == 2
    assert 'input `DEX` must be a number of at most 1000 digits, not "999999' in result.stderr
    assert "(5000 characters)" in result.stderr and len(result.stderr) < 600


@pytest.mark.parametrize(
    "value",
    [10**5000, "9" * 5000, -(10**1001), Fraction(1, 10**1200), "1/" + "3" * 1500, Decimal("1e5000"), Decimal("9e99999")],
    ids=["int", "text", "negative", "fraction", "fraction text", "decimal", "decimal exponent"],
)
def test_numbers_past_1000_digits_are_rule_input_errors(skirmish: ModuleType, value: object) -> None:
    """huge_number_input.sh, from Python: a plain ValueError from int(), or from repr() writing
    the message."""
    with pytest.raises(skirmish.RuleInputError, match="must be a number of at most 1000 digits"):
        skirmish.resolve("broken_ground", DEX=value)


def test_numbers_of_1000_digits_are_still_numbers(skirmish: ModuleType) -> None:
    with pytest.raises(skirmish.RuleInputError, match=r"must be a number in int 0\.\.30, not a number of 1000 digits or so"):
        skirmish.resolve("broken_ground", DEX=10**999)
    assert skirmish.resolve("broken_ground", DEX="0" * 990 + "12").stats["DEX"] == 12


def test_a_roll_of_5000_digits_is_a_rule_input_error(mecha: ModuleType) -> None:
    rolled = next(name for name, spec in mecha._BOOK.tables.items() if spec.pool is not None)
    with pytest.raises(mecha.RuleInputError, match="input `roll` must be a whole number"):
        mecha.resolve(rolled, roll=10**5000)


# ---------------------------------------------------------------------------- the API


def test_a_rule_function_refuses_a_misspelled_input_with_rule_input_error(skirmish: ModuleType) -> None:
    """api_contract.py: per-rule functions raised TypeError for a misspelled input."""
    with pytest.raises(skirmish.RuleInputError, match=r"broken_ground\(\) has no input `DXE`; did you mean `DEX`\?"):
        skirmish.broken_ground(DXE=3)
    with pytest.raises(skirmish.RuleInputError, match="has no input `in_smoke`; it reads DEX, MOV, acrobatics"):
        skirmish.broken_ground(in_smoke=True)


def test_a_rule_function_refuses_a_positional_input_with_rule_input_error(skirmish: ModuleType) -> None:
    """api_contract.py: per-rule functions raised TypeError for a positional input."""
    with pytest.raises(skirmish.RuleInputError, match=r"takes its inputs by name, as in broken_ground\(DEX=...\)"):
        skirmish.broken_ground(12)


def test_a_rule_function_keeps_its_typed_signature(skirmish: ModuleType, tmp_path: Path) -> None:
    """The check sits in a wrapper; `help()`, IDEs and mypy still see the typed keywords."""
    signature = inspect.signature(skirmish.broken_ground)
    assert str(signature.parameters["DEX"]) == "DEX: 'int' = 10"
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in signature.parameters.values())
    assert skirmish.broken_ground(DEX=12, moved=3).stats["DEX"] == 10
    out = tmp_path / "out"
    assert _run("build", str(RULEBOOKS / "skirmish_terrain.rules"), "-o", str(out), "--no-cards").exit_code == 0
    (out / "app.py").write_text("import skirmish_terrain\n\nskirmish_terrain.broken_ground(DXE=3)\n")
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "app.py"], cwd=out, capture_output=True, text=True, check=False
    )
    assert 'Unexpected keyword argument "DXE" for "broken_ground"' in checked.stdout, checked.stdout


@pytest.mark.parametrize(
    ("terms", "bonus"),
    [(((3, -6),), 0), (((0, 0),), 0), (((2, 1),), 0), (((-1, 6),), 0), (((1.5, 6),), 0), (((True, 6),), 0),
     ([(3, 6)], 0), (((3, 6, 1),), 0), (((3, 6),), 1.5), (((10**1200, 6),), 0)],
)  # fmt: skip
def test_impossible_dice_are_refused_when_made(skirmish: ModuleType, terms: object, bonus: object) -> None:
    """api_contract.py: `Dice(((3, -6),))` was accepted, and read "3d-6"."""
    with pytest.raises(skirmish.RuleInputError, match=r"roll|dice"):
        skirmish.Dice(terms, bonus)


def test_possible_dice_are_still_dice(skirmish: ModuleType) -> None:
    assert str(skirmish.Dice(((3, 6), (1, 8)), 2)) == "3d6+1d8+2"
    assert str(skirmish.Dice.pool(0, 6)) == "0"
    assert skirmish.resolve("smoke", laser_damage=skirmish.Dice(((2, 6),))).inputs["laser_damage"] == skirmish.Dice(
        ((2, 6),)
    )


def test_roll_is_refused_for_a_table_looked_up_by_an_input(mecha: ModuleType) -> None:
    """api_contract.py: `roll=99` was accepted, and ignored, by a table keyed by an input."""
    by_input = next(name for name, spec in mecha._BOOK.tables.items() if spec.pool is None)
    with pytest.raises(mecha.RuleInputError, match=f"`roll` selects a row of a table rolled with dice; {by_input} is looked up by its inputs"):
        mecha.resolve(by_input, roll=99)
    with pytest.raises(mecha.RuleInputError, match=f"{by_input}\\(\\) has no input `roll`"):
        getattr(mecha, by_input)(roll=99)


# ---------------------------------------------------------------------------- text that is no character

SURROGATE_BOOK = r'''rulebook sur "T":
    source "s \ud800"

rule r "R" cites "c":
    note "x \udfff y"
'''

TEXTY = r'''rulebook texty "Texty":
    source "s"

stat DEX "Dexterity": int 0..30 = 10
input word "Word": text = "mud"
input footing "Footing": one of {firm, soft} = firm

rule mire "Mire" cites "1":
    when word == "bog \ud83d\udc1b": DEX -2
    when word == "\udb40\udc01": DEX -3
    when footing == soft: DEX -1
    note "a \ud83d\udc0a here"
'''


@pytest.fixture(scope="module")
def texty() -> ModuleType:
    from tests.conftest import module_from_text

    return module_from_text(TEXTY, "texty.rules")


@pytest.mark.parametrize(
    "command",
    ["check BOOK", "test BOOK", "build BOOK -o OUT", "resolve BOOK r", "describe BOOK r", "export BOOK",
     "cards BOOK --format html -o OUT"],
)  # fmt: skip
def test_a_lone_surrogate_escape_is_an_error_of_every_command(tmp_path: Path, command: str) -> None:
    """surrogate.sh: `"\\ud800"` in a string passed check and test, then build, resolve, describe,
    export and cards ended in `internal error: UnicodeEncodeError`."""
    book = tmp_path / "surrogate.rules"
    book.write_text(SURROGATE_BOOK, encoding="utf-8")
    places = {"BOOK": str(book), "OUT": str(tmp_path / "out")}
    args = [places.get(word, word) for word in command.split()]
    run = subprocess.run([sys.executable, "-m", "dsl.cli", *args], capture_output=True, text=True, check=False)
    assert run.returncode == 1, run.stderr
    assert "internal error" not in run.stderr and "Traceback" not in run.stderr
    assert f"{book}:2:15: error[E006]: `\\ud800` is half of a UTF-16 surrogate pair, not a character" in run.stderr
    assert f"{book}:5:13: error[E006]: `\\udfff` is half of a UTF-16 surrogate pair" in run.stderr
    assert not (tmp_path / "out").exists()


def test_a_surrogate_pair_escape_is_one_character(texty: ModuleType) -> None:
    """The two halves of a pair, as JSON writes a character beyond U+FFFF, read as that character;
    an unprintable one is written back the same way where the resolver quotes its condition."""
    resolution = texty.resolve("mire", word="bog \U0001f41b")
    assert resolution.stats["DEX"] == 8
    assert [note.text for note in resolution.notes] == ["a \U0001f40a here"]
    clause = next(entry.clause for entry in texty.resolve("mire").trace if entry.clause and "\\u" in entry.clause)
    assert clause == 'when word == "\\udb40\\udc01"'
    assert texty.resolve("mire", word="\U000e0001").stats["DEX"] == 7


@pytest.mark.parametrize("value", ["b\ud800", "\udfff", "ok \udcff", "\ud83d"])
def test_a_text_input_holding_a_lone_surrogate_is_a_rule_input_error(texty: ModuleType, value: str) -> None:
    """surrogate.sh: a text value no UTF-8 output can hold is refused where it comes in (the
    resolver, a rule's function, `--set` reading), with a message that itself prints."""
    for attempt in (
        lambda: texty.resolve("mire", word=value),
        lambda: texty.mire(word=value),
        lambda: texty.INPUTS["word"].parse(value),
    ):
        with pytest.raises(texty.RuleInputError, match=r"input `word` must be text, not .* is no character") as caught:
            attempt()
        str(caught.value).encode("utf-8")
    for attempt in (
        lambda: texty.resolve("mire", footing=value),
        lambda: texty.resolve(value),
        lambda: texty.resolve("mire", **{value: 1}),
        lambda: texty.resolve("mire").roll(value),
    ):
        with pytest.raises(texty.RuleInputError) as caught:
            attempt()
        assert "\\u" in str(caught.value)
        str(caught.value).encode("utf-8")


def test_set_bytes_that_are_not_utf8_is_a_usage_error(tmp_path: Path) -> None:
    """surrogate.sh: `--set word=<byte 0xff>` reached the resolver as a lone surrogate (Python's
    reading of a command line that is not UTF-8), and its output could not be written."""
    book = tmp_path / "texty.rules"
    book.write_text(TEXTY, encoding="utf-8")
    base = [sys.executable, "-m", "dsl.cli", "resolve", str(book).encode()]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    for extra in ([b"mire", b"--set", b"word=ab\xffcd"], [b"mire", b"--set", b"\xed\xa0\x80=1"], [b"\xff"]):
        run = subprocess.run([*base, *extra], capture_output=True, check=False, env=env)
        stderr = run.stderr.decode("utf-8")
        assert run.returncode == 2, stderr
        assert "\\udc" in stderr and "Traceback" not in stderr and "internal error" not in stderr
