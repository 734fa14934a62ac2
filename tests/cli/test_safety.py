"""Rulebook text cannot become code: hostile titles, notes and names compile to inert literals.

Every string below is placed where a careless generator would paste it into source: a docstring,
a string literal, a comment, a name.  The generated module must compile, lint and type-check
clean, return each text unchanged through `resolve`, and run nothing else.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from dsl.cli import main
from dsl.compiler import compile_text, generate, load_module

MARKER = Path("/tmp/rulecraft-safety-marker")

HOSTILE_TEXTS = [
    "quote \" and ' apostrophe",
    'triple """ quotes \'\'\' and a trailing quote "',
    "back\\slash \\n not a newline \\",
    "line one\nline two",
    "{{ 7 * 7 }} {% if x %} ${x} %(x)s {0}",
    "<script>alert(1)</script> & <b>bold</b>",
    "nul \x00 byte and bell \x07",
    "right-to-left \u202e mark \u200f and \u2066 isolate",
    f'"""); __import__("pathlib").Path("{MARKER}").touch()  # ',
    f"'); open('{MARKER}', 'w'); print('",
    "look-alikes: an en dash \u2013, a multiplication sign \u00d7 and \u00e2\u20ac\u201c",
]


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def hostile_rulebook() -> str:
    notes = "\n".join(f'    note "{_escape(text)}"' for text in HOSTILE_TEXTS)
    cannots = "\n".join(f'    cannot "{_escape(text)}"' for text in HOSTILE_TEXTS)
    return f'''rulebook hostile "{_escape(HOSTILE_TEXTS[1])}":
    source "{_escape(HOSTILE_TEXTS[8])}"
    version "{_escape(HOSTILE_TEXTS[2])}"

stat class "{_escape(HOSTILE_TEXTS[0])}": int 0..20 = 10
input def "{_escape(HOSTILE_TEXTS[9])}": flag = no
input None: one of {{lambda, import, print, True}} = lambda
stat print: int 0..9 = 1

rule resolve "{_escape(HOSTILE_TEXTS[8])}" cites "{_escape(HOSTILE_TEXTS[4])}":
    category hazard
    class -1 "{_escape(HOSTILE_TEXTS[5])}"
    when def and None == import:
        print +1 "{_escape(HOSTILE_TEXTS[7])}"
{notes}
{cannots}
    erratum "{_escape(HOSTILE_TEXTS[6])}": "{_escape(HOSTILE_TEXTS[3])}"

rule Roll "{_escape(HOSTILE_TEXTS[2])}" cites "x":
    as resolve

rule show "{_escape(HOSTILE_TEXTS[9])}" cites "y":
    class = 3

table exec "{_escape(HOSTILE_TEXTS[5])}" cites "z" roll d6:
    columns __class__x "{_escape(HOSTILE_TEXTS[4])}"
    1..6: "{_escape(HOSTILE_TEXTS[8])}"
'''


@pytest.fixture(scope="module")
def generated() -> str:
    MARKER.unlink(missing_ok=True)
    result = compile_text(hostile_rulebook(), "hostile.rules")
    assert result.ok, result.render()
    return generate(result)


def test_generated_module_compiles_and_runs_nothing(generated: str) -> None:
    compile(generated, "hostile.py", "exec")
    module = load_module(generated, "hostile")
    module.resolve(["resolve", "Roll", "show", "exec"], **{"def": True, "None": "import"})
    assert not MARKER.exists()


def test_texts_come_back_unchanged(generated: str) -> None:
    module = load_module(generated, "hostile")
    result = module.resolve("resolve", **{"def": True, "None": "import"})
    assert [n.text for n in result.notes if n.erratum is None] == HOSTILE_TEXTS
    assert [r.what for r in result.restrictions] == HOSTILE_TEXTS
    erratum = next(n for n in result.notes if n.erratum is not None)
    assert (erratum.erratum, erratum.text) == (HOSTILE_TEXTS[6], HOSTILE_TEXTS[3])
    labels = {m.target: m.label for m in result.modifiers}
    assert labels == {"class": HOSTILE_TEXTS[5], "print": HOSTILE_TEXTS[7]}
    assert module.RULEBOOK.title == HOSTILE_TEXTS[1]
    assert module.RULEBOOK.source == HOSTILE_TEXTS[8]
    assert module.RULES["resolve"].title == HOSTILE_TEXTS[8]
    assert module.RULES["resolve"].source == HOSTILE_TEXTS[4]
    assert module.INPUTS["def"].label == HOSTILE_TEXTS[9]
    assert result.stats == {"class": 9, "print": 2}
    table = module.resolve("exec", roll=3).tables[0]
    assert table.selected.values == {"__class__x": HOSTILE_TEXTS[8]}


def test_keyword_and_builtin_names_are_mangled_not_shadowed(generated: str) -> None:
    module = load_module(generated, "hostile")
    # the module's own API is intact, and each rule has a function under a safe name
    assert callable(module.resolve) and module.resolve is not module.resolve_
    assert module.resolve_(class_=5).stats["class"] == 4
    assert module.Roll_.__name__ == "Roll_" and isinstance(module.Roll, type)
    assert module.show_().stats["class"] == 3
    assert module.exec_(roll=1).tables[0].name == "exec"
    assert "print" in dir(__builtins__) or callable(print)


def test_generated_module_lints_and_type_checks(generated: str, tmp_path: Path) -> None:
    path = tmp_path / "hostile.py"
    path.write_text(generated, encoding="utf-8")
    root = Path(__file__).resolve().parents[2]
    ruff = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--config", str(root / "pyproject.toml"), str(path)],
        capture_output=True,
        text=True,
    )
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr


def test_generated_module_lints_with_whole_grade_values_and_literal_dice_counts(tmp_path: Path) -> None:
    result = compile_text(
        'rulebook lint "Lint":\n    source "s"\n'
        "grades:\n    easy +1: * 2\n    difficult -1: / 2 round up\n    impossible: = 0\n"
        "stat skill: percent 0..200 = 50\ninput easy_task: flag\n"
        'rule r "R" cites "1":\n    when easy_task: skill is easy\n    derive hurt = 1 d6\n',
        "lint.rules",
    )
    assert result.ok, result.render()
    module = load_module(generate(result), "lint")
    assert module.r(skill=30, easy_task=True).stats["skill"] == 60
    assert str(module.r().derived["hurt"]) == "1d6"
    test_generated_module_lints_and_type_checks(generate(result), tmp_path)


def test_identifiers_are_validated_by_the_grammar() -> None:
    result = compile_text('rulebook x "X":\n    source "s"\nstat D\u200fEX: int = 1\n', "rtl.rules")
    assert not result.ok
    assert [d.code for d in result.diagnostics] == ["E002"]
    assert "U+200F" in result.diagnostics[0].message


def test_underscore_names_are_reserved_for_generated_code() -> None:
    result = compile_text('rulebook x "X":\n    source "s"\nstat __class__: int = 1\n', "dunder.rules")
    assert [d.code for d in result.errors] == ["E103"]


def test_failed_build_writes_nothing(tmp_path: Path) -> None:
    good = tmp_path / "good.rules"
    good.write_text('rulebook good "Good":\n    source "s"\nstat DEX: int = 1\nrule r "R" cites "1":\n    DEX -1\n')
    bad = tmp_path / "bad.rules"
    bad.write_text('rulebook bad "Bad":\n    source "s"\nrule r "R" cites "1":\n    DXE -1\n')
    output = tmp_path / "out"
    runner = CliRunner()
    result = runner.invoke(main, ["build", "--no-cards", str(good), str(bad), "-o", str(output)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert not output.exists()
    assert "nothing was written" in result.output
