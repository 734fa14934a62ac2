"""Measure rulecraft: resolver calls against hand-written Python, and compile time against size.

    python bench/benchmark.py                 # full run (about a minute)
    python bench/benchmark.py --quick         # fewer repetitions
    python bench/benchmark.py --instructions  # resolver cost in instructions (needs valgrind)

Reports ratios, not absolute times (machines differ; ratios travel).  On a shared or virtual
machine wall-clock timings swing widely; `--instructions` counts CPU instructions with callgrind
instead, which repeats exactly:
- a generated resolver call versus the same rule written by hand (bench/handwritten.py), both
  building the same Resolution (the script checks they agree on a grid of situations);
- compiling a 10,000-line rulebook versus a 1,000-line one (linear scaling gives about 10).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import re
import shutil
import subprocess
import sys
import timeit
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from handwritten import HAND_WRITTEN  # noqa: E402

from dsl.compiler import compile_file, compile_text, generate, load_module  # noqa: E402


def best(statement: object, number: int, repeat: int = 5) -> float:
    """Seconds per call: the best of `repeat` runs of `number` calls."""
    timer = timeit.Timer(statement)  # type: ignore[arg-type]
    return min(timer.repeat(repeat=repeat, number=number)) / number


# ---------------------------------------------------------------------------- resolvers
# A generated resolver call against the same rule written by hand (bench/handwritten.py), both
# building the same Resolution; tests/test_benchmark_baseline.py holds them equal on thousands
# of situations per rule, and this checks the situations timed.

RESOLVER_TARGET = 1.5
"""The most a generated resolver call may cost, as a multiple of the hand-written one."""

SITUATIONS: dict[str, dict[str, object]] = {
    "broken_ground": {"DEX": 12, "MOV": 10, "moved": 6, "weapon": "melee", "acrobatics": False},
    "lof_roll": {"attribute": 12, "burst": 3, "range_mod": -3, "other_mods": -3},
    "skill_roll": {"skill": 60, "difficult": True},
    "shooting_up_or_down": {"skill": 70, "shot_direction": "upward", "shot_angle": 60},
    "ramming": {"vehicle_size": 8, "own_speed": 6, "other_speed": 5},
    "zone_move": {"running": True, "second_move": True, "zone": "medium", "destination": "short"},
}
"""The situation each rule is timed in: one that reaches its modifiers and its roll."""


def resolver_modules() -> dict[str, ModuleType]:
    """The resolver module of each book with a hand-written rule, compiled from its source."""
    books = sorted({book for book, _ in HAND_WRITTEN.values()})
    return {book: load_module(generate(compile_file(ROOT / "rulebooks" / f"{book}.rules")), book) for book in books}


def resolver_pair(modules: dict[str, ModuleType], rule: str) -> tuple[Any, Any]:
    """The generated and the hand-written function of a rule, checked to agree where timed."""
    book, make = HAND_WRITTEN[rule]
    generated, by_hand = getattr(modules[book], rule), make(modules[book])
    situation = SITUATIONS[rule]
    assert generated(**situation).to_dict() == by_hand(**situation).to_dict(), rule
    return generated, by_hand


def resolver_ratio(quick: bool) -> None:
    modules = resolver_modules()
    number = 1_000 if quick else 10_000
    print(f"resolver calls, generated / hand-written (the target: at most {RESOLVER_TARGET}x)")
    print(f"  {'rule':<22} {'Resolution':>10} {'to_dict()':>10}   {'generated, hand-written (us)':<30} target")
    held = True
    for rule in HAND_WRITTEN:
        generated, by_hand = resolver_pair(modules, rule)
        situation = SITUATIONS[rule]
        calls = {}
        for name, function in (("generated", generated), ("hand-written", by_hand)):
            calls[name] = best(lambda f=function, s=situation: f(**s), number)
            calls[name + " json"] = best(lambda f=function, s=situation: f(**s).to_dict(), number)
        ratio = calls["generated"] / calls["hand-written"]
        ratio_json = calls["generated json"] / calls["hand-written json"]
        holds = ratio <= RESOLVER_TARGET and ratio_json <= RESOLVER_TARGET
        held = held and holds
        micro = f"{calls['generated'] * 1e6:.1f}, {calls['hand-written'] * 1e6:.1f}"
        print(f"  {rule:<22} {ratio:9.2f}x {ratio_json:9.2f}x   {micro:<30} {'holds' if holds else 'MISSED'}")
    print(f"  every rule within {RESOLVER_TARGET}x: {'yes' if held else 'no'}")
    skirmish = modules["skirmish_terrain"]
    one = best(lambda: skirmish.broken_ground(**SITUATIONS["broken_ground"]), number)
    several = best(
        lambda: skirmish.resolve(["mud", "smoke", "darkness", "spacesuit"], DEX=12, moved=4, smoke_hexes=2),
        number // 4,
    )
    print(f"  four rules together / one rule (generated): {several / one:5.2f}x")


def probe(which: str, rule: str, calls: int) -> None:
    """Make `calls` calls of a rule's resolver (run under callgrind by `instruction_ratio`)."""
    book, make = HAND_WRITTEN[rule]
    module = importlib.import_module(f"generated.{book}")  # the committed module: no compile under valgrind
    function = getattr(module, rule) if which == "generated" else make(module)
    situation = SITUATIONS[rule]
    gc.disable()  # collections at different moments would blur the difference between runs
    for _ in range(calls):
        function(**situation)


def instruction_ratio() -> None:
    if shutil.which("valgrind") is None:
        sys.exit("--instructions needs valgrind (apt-get install valgrind)")
    print("resolver calls, CPU instructions per call (callgrind, setup subtracted)")
    print(f"  {'rule':<22} {'generated':>10} {'by hand':>10} {'ratio':>7} target")
    for rule in HAND_WRITTEN:
        counts = {}
        for which in ("generated", "hand-written"):
            for calls in (200, 600):
                command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable]
                command += [__file__, "--probe", which, rule, str(calls)]
                environment = {**os.environ, "PYTHONHASHSEED": "0"}
                out = subprocess.run(command, capture_output=True, text=True, check=True, env=environment).stderr
                counts[which, calls] = int(re.search(r"Collected : (\d+)", out).group(1))  # type: ignore[union-attr]
        per_call = {w: (counts[w, 600] - counts[w, 200]) / 400 for w in ("generated", "hand-written")}
        ratio = per_call["generated"] / per_call["hand-written"]
        holds = "holds" if ratio <= RESOLVER_TARGET else "MISSED"
        print(f"  {rule:<22} {per_call['generated']:10,.0f} {per_call['hand-written']:10,.0f} {ratio:6.2f}x {holds}")


# ---------------------------------------------------------------------------- end of resolvers


def synthetic_rulebook(rules: int) -> str:
    """A rulebook of `rules` rules in the style of the bundled one: about ten lines each."""
    head = [
        'rulebook synthetic "Synthetic":',
        '    source "benchmark"',
        '    version "1"',
        "unit hex",
        'stat DEX "Dexterity": int 0..30 = 10',
        'stat MOV "Movement": int 0..30 hex = 10',
        'input moved "Hexes moved": int 0..60 hex = 0',
        "input weapon: one of {none, melee, thrown, missile} = none",
        "input skilled: flag = no",
        'group vis "Visibility": strongest',
    ]
    body = []
    for i in range(rules):
        body += [
            f'terrain t{i} "Terrain {i}" cites "{i}":',
            "    category movement",
            f"    when moved > {i % 7} and weapon != none:",
            f"        DEX -{1 + i % 3} in vis",
            f"    MOV / {2 + i % 3} round up",
            "    MOV min 1",
            "    when moved > MOV / 2:",
            f'        roll fall{i} "Avoid falling": 3d6 <= DEX',
            "            when skilled: 2d6",
            f'    note "Terrain {i} is hard going."',
        ]
    return "\n".join(head + body) + "\n"


def compile_ratio(quick: bool) -> None:
    sizes = {}
    for rules in (100, 1000):
        text = synthetic_rulebook(rules)
        lines = text.count("\n")

        def run(text: str = text) -> None:
            result = compile_text(text, "synthetic.rules")
            assert result.ok, result.render()[:500]
            generate(result)

        seconds = best(run, 1, repeat=2 if quick else 3)
        sizes[rules] = (lines, seconds)
    (small_lines, small), (large_lines, large) = sizes[100], sizes[1000]
    print(f"compiling (parse, check, emit): {small_lines} lines vs {large_lines} lines")
    print(f"  time ratio {large / small:5.2f}x for {large_lines / small_lines:.1f}x the lines")
    print(f"  ({small:.2f} s and {large:.2f} s on this machine)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--instructions", action="store_true", help="count instructions with callgrind")
    parser.add_argument("--probe", nargs=3, metavar=("WHICH", "RULE", "CALLS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        probe(args.probe[0], args.probe[1], int(args.probe[2]))
        return
    if args.instructions:
        instruction_ratio()
        return
    resolver_ratio(args.quick)
    compile_ratio(args.quick)


if __name__ == "__main__":
    main()
