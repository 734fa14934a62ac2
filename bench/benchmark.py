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
import os
import re
import shutil
import subprocess
import sys
import timeit
from itertools import product
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from handwritten import make  # noqa: E402

from dsl.compiler import compile_file, compile_text, generate, load_module  # noqa: E402


def best(statement: object, number: int, repeat: int = 5) -> float:
    """Seconds per call: the best of `repeat` runs of `number` calls."""
    timer = timeit.Timer(statement)  # type: ignore[arg-type]
    return min(timer.repeat(repeat=repeat, number=number)) / number


def resolver_ratio(quick: bool) -> None:
    compiled = compile_file(ROOT / "rulebooks" / "skirmish_terrain.rules")
    module = load_module(generate(compiled), "skirmish_terrain")
    by_hand = make(module)
    grid = list(product((8, 12), (6, 10), (0, 3, 6), ("none", "melee", "thrown"), (False, True)))
    for dex, mov, moved, weapon, acrobatics in grid:
        generated = module.broken_ground(DEX=dex, MOV=mov, moved=moved, weapon=weapon, acrobatics=acrobatics)
        manual = by_hand(DEX=dex, MOV=mov, moved=moved, weapon=weapon, acrobatics=acrobatics)
        assert generated.to_dict() == manual.to_dict(), (dex, mov, moved, weapon, acrobatics)
    number = 2_000 if quick else 20_000
    situation = SITUATION
    generated_call = best(lambda: module.broken_ground(**situation), number)
    manual_call = best(lambda: by_hand(**situation), number)
    generated_json = best(lambda: module.broken_ground(**situation).to_dict(), number)
    manual_json = best(lambda: by_hand(**situation).to_dict(), number)
    several = best(
        lambda: module.resolve(["mud", "smoke", "darkness", "spacesuit"], DEX=12, moved=4, smoke_hexes=2), number // 4
    )
    print("resolver calls (broken_ground, agreeing on", len(grid), "situations)")
    print(f"  generated / hand-written, Resolution:           {generated_call / manual_call:5.2f}x")
    print(f"  generated / hand-written, Resolution.to_dict(): {generated_json / manual_json:5.2f}x")
    print(f"  four rules together / one rule (generated):     {several / generated_call:5.2f}x")
    print(f"  (one generated call: {generated_call * 1e6:.1f} us on this machine)")


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


SITUATION = {"DEX": 12, "MOV": 10, "moved": 6, "weapon": "melee", "acrobatics": False}


def probe(which: str, calls: int) -> None:
    """Make `calls` resolver calls (run under callgrind by `instruction_ratio`)."""
    module = load_module(generate(compile_file(ROOT / "rulebooks" / "skirmish_terrain.rules")), "skirmish_terrain")
    function = module.broken_ground if which == "generated" else make(module)
    gc.disable()  # collections at different moments would blur the difference between runs
    for _ in range(calls):
        function(**SITUATION)


def instruction_ratio() -> None:
    if shutil.which("valgrind") is None:
        sys.exit("--instructions needs valgrind (apt-get install valgrind)")
    counts = {}
    for which in ("generated", "hand-written"):
        for calls in (500, 1500):
            command = [
                "valgrind",
                "--tool=callgrind",
                "--callgrind-out-file=/dev/null",
                sys.executable,
                __file__,
                "--probe",
                which,
                str(calls),
            ]
            environment = {**os.environ, "PYTHONHASHSEED": "0"}
            out = subprocess.run(command, capture_output=True, text=True, check=True, env=environment).stderr
            counts[which, calls] = int(re.search(r"Collected : (\d+)", out).group(1))  # type: ignore[union-attr]
    per_call = {w: (counts[w, 1500] - counts[w, 500]) / 1000 for w in ("generated", "hand-written")}
    print("resolver calls, CPU instructions per call (callgrind, setup subtracted)")
    print(f"  generated {per_call['generated']:,.0f}, hand-written {per_call['hand-written']:,.0f}")
    print(f"  generated / hand-written: {per_call['generated'] / per_call['hand-written']:5.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--instructions", action="store_true", help="count instructions with callgrind")
    parser.add_argument("--probe", nargs=2, metavar=("WHICH", "CALLS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        probe(args.probe[0], int(args.probe[1]))
        return
    if args.instructions:
        instruction_ratio()
        return
    resolver_ratio(args.quick)
    compile_ratio(args.quick)


if __name__ == "__main__":
    main()
