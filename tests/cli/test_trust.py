"""What `check` accepts, `build` and every resolver handle: regression tests built from the
reproducers of /work/shared/repro (each test names its reproducer), and the promises behind them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

from dsl.compiler import compile_text
from tests.conftest import ROOT, module_from_text, run_cli

RULECRAFT = [sys.executable, "-m", "dsl.cli"]


def _run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*RULECRAFT, *args], cwd=cwd or ROOT, capture_output=True, text=True, env={**os.environ, **(env or {})}
    )


# ---------------------------------------------------------------------- composition (reproducers
# composition_diamond.py, whose output diamond28.rules is, and composition_chain.py: 28 traits
# took 44 s and 947 MB; a chain of 2,000 took 292 s and 11.3 GB)


def _diamond(count: int) -> str:
    lines = [f'rulebook diamond{count} "Gen":', '    source "s"', "", "stat DEX: int 0..3000 = 10", ""]
    for i in range(count):
        body = f"    as c{i - 1}, c{i - 2}\n" if i >= 2 else (f"    as c{i - 1}\n" if i == 1 else "")
        lines.append(f'trait c{i} "C" cites "1":\n{body}    DEX -1\n')
    return "\n".join(lines)


def _chain(count: int) -> str:
    lines = [f'rulebook chain{count} "Gen":', '    source "s"', "", "stat DEX: int 0..30 = 10", ""]
    for i in range(count):
        body = f"    as c{i - 1}\n" if i else ""
        lines.append(f'trait c{i} "C" cites "1":\n{body}    DEX -1\n')
    return "\n".join(lines)


def test_a_lattice_of_traits_is_stored_once_per_trait() -> None:
    # Each trait composes the two before it: 2^28 ways through, 28 parts of 3 effects at most.
    compiled = compile_text(_diamond(28), "diamond.rules")
    assert compiled.ok, compiled.render()
    book = compiled.book
    assert book is not None
    assert len(book.parts) == 28
    assert sum(len(part.effects) for part in book.parts.values()) <= 3 * 28


def test_a_lattice_of_traits_resolves_each_modifier_once() -> None:
    # c5 reaches c0..c5 by many paths; each `DEX -1` counts once: 10 - 6 = 4.
    module = module_from_text(_diamond(6), "diamond.rules")
    assert module.resolve("c5").stats["DEX"] == 4


def test_a_long_chain_of_traits_checks_and_resolves() -> None:
    # 1,000 traits, each composing the one before: c999 applies 1,000 modifiers of -1.
    compiled = compile_text(_chain(1000), "chain.rules")
    assert compiled.ok, compiled.render()
    assert compiled.book is not None
    assert sum(len(part.effects) for part in compiled.book.parts.values()) == 1000 + 999


# ---------------------------------------------------------------------- dice (dice_scale_dropped.rules)


def test_adding_halved_dice_keeps_the_halving() -> None:
    result = module_from_text(_SCALE, "scale.rules").resolve("halve")
    assert str(result.stats["B"]) == "1d6/2 round down"
    assert str(result.stats["A"]) == "2d6+(1d6/2 round down)"
    # 2d6 + floor(1d6 / 2): the half is 0, 1, 1, 2, 2, 3; the total 2 needs 1+1 and a 1: 1/36 * 1/6.
    totals = result.stats["A"].totals()
    assert totals[2] == Fraction(1, 216)
    assert sum(totals.values()) == 1 and min(totals) == 2 and max(totals) == 15


_SCALE = """rulebook scale "Scale":
    source "s"

stat A "A": dice = 2d6
stat B "B": dice = 1d6

rule halve "Halve" cites "1":
    B / 2 round down
    A + B
"""


def test_a_dice_stat_that_is_a_number_is_worked_out() -> None:
    # Crushing damage 7 underwater is halved, rounded up: 4, not "(7)/2 round up".
    result = run_cli(
        "resolve",
        "spot_rules_e_to_z",
        "underwater_combat",
        "--set",
        "damage=7",
        "--set",
        "damage_type=crushing",
        "--json",
    )
    assert result.exit_code == 0, result.output
    damage = json.loads(result.output)["stats"]["damage"]
    assert (damage["start"]["dice"], damage["final"]["dice"]) == ("7", "4")
    assert damage["final"]["distribution"] == [{"total": 4, "probability": {"fraction": "1", "float": 1.0}}]


# ---------------------------------------------------------------------- division (modifier_divide_by_zero.rules and
# grade_divide_by_zero.rules: each checked clean; resolving raised ZeroDivisionError, and the grade
# made `build` crash while it drew the cards)


_DIVISIONS = """rulebook dz "Divide by zero":
    source "s"

stat MOV: int 0..30 = 10
stat skill: int 0..100 = 50
input moved: int 0..10

grades:
    hard: / 0 round up

rule r "R" cites "1":
    MOV / 0 round up

rule s "S" cites "1":
    derive pace = 10 / moved

rule t "T" cites "1":
    skill is hard
"""


def test_every_division_that_can_be_by_zero_is_an_error_where_it_is_written(tmp_path: Path) -> None:
    compiled = compile_text(_DIVISIONS, "dz.rules")
    assert [(d.code, d.span.line, d.span.column) for d in compiled.diagnostics] == [
        ("E301", 9, 5),  # the grade
        ("E301", 12, 11),  # MOV / 0
        ("E301", 15, 24),  # 10 / moved, moved 0..10
    ]
    (tmp_path / "dz.rules").write_text(_DIVISIONS)
    built = _run("build", str(tmp_path / "dz.rules"), "-o", str(tmp_path / "out"))
    assert built.returncode == 1 and "Traceback" not in built.stderr, built.stderr
    assert not (tmp_path / "out").exists()


def test_a_division_proven_safe_builds_and_resolves_at_zero() -> None:
    text = _DIVISIONS.replace("/ 0", "/ 2").replace("10 / moved", "10 / max(moved, 1)")
    module = module_from_text(text, "dz.rules")
    assert module.resolve("s", moved=0).derived["pace"] == 10
    assert module.resolve("r").stats["MOV"] == 5
    assert module.resolve("t").stats["skill"] == 25


# ---------------------------------------------------------------------- chains of values (stat_default_chain_250.rules)


def test_a_chain_of_250_defaults_resolves_at_the_default_recursion_limit(tmp_path: Path) -> None:
    lines = ['rulebook chain250 "Chain":', '    source "s"', "", "stat s0: int 0..10 = 1"]
    lines += [f"stat s{i}: int 0..10 = s{i - 1}" for i in range(1, 250)]
    lines += ["", 'rule r "R" cites "1":', "    s249 + 1", ""]
    (tmp_path / "chain250.rules").write_text("\n".join(lines))
    built = _run("build", str(tmp_path / "chain250.rules"), "-o", str(tmp_path / "out"), "--no-cards")
    assert built.returncode == 0, built.stderr
    used = subprocess.run(
        [sys.executable, "-c", "import chain250; print(chain250.resolve('r').stats['s249'])"],
        cwd=tmp_path / "out",
        capture_output=True,
        text=True,
    )
    assert used.returncode == 0, used.stderr
    assert used.stdout.strip() == "2"


# ---------------------------------------------------------------------- tables (duplicate_table_two_way_crash.rules)


def test_a_second_table_of_one_name_is_a_duplicate_not_a_crash() -> None:
    text = (
        'rulebook dup "Dup":\n    source "s"\n\ninput a: one of {p, q}\n\n'
        'table t "T" cites "1" roll 2d6:\n    2..12: 1\n\n'
        'table t "T" cites "1" by a, a:\n    columns p, q\n    p: 1, 2\n    q: 3, 4\n'
    )
    compiled = compile_text(text, "dup.rules")
    assert [(d.code, d.span.line) for d in compiled.diagnostics] == [("E102", 9)]


# ---------------------------------------------------------------------- determinism


def test_generated_modules_do_not_depend_on_the_hash_seed_locale_or_time_zone(tmp_path: Path) -> None:
    outputs = []
    settings = (
        {"PYTHONHASHSEED": "1", "LC_ALL": "C.UTF-8", "TZ": "UTC"},
        {"PYTHONHASHSEED": "2", "LC_ALL": "C", "TZ": "Pacific/Kiritimati"},
    )
    books = tmp_path / "books"  # the book with the most tables and chains, and the largest
    books.mkdir()
    for name in ("mecha_tables", "spot_rules_a_to_e"):
        shutil.copy(ROOT / "rulebooks" / f"{name}.rules", books)
    for number, env in enumerate(settings):
        out = tmp_path / str(number)
        done = _run("build", str(books), "-o", str(out), "--no-cards", env=env)
        assert done.returncode == 0, done.stderr
        outputs.append({p.name: p.read_bytes() for p in sorted(out.glob("*.py"))})
    assert outputs[0] == outputs[1] and len(outputs[0]) == 3  # the two modules and __init__.py
