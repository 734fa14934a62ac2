"""The problems of Table 1 of icepool's AIIDE 2022 paper (Ross, "Icepool: Efficient Computation
of Dice Pool Probabilities"), written as a rulebook and worked out by its generated resolver,
beside icepool working out the same distributions, in one run: identical fractions required,
times printed side by side.

    python bench/dice_vs_icepool.py [--repeat 5]

Each time is the best of `--repeat` runs from nothing worked out: rulecraft's with the
resolver's caches emptied (a first call), icepool's with its caches cleared.  The RISK problems
(sorted pairs of attacker and defender dice compared) have no form in the language yet and are
listed as such.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import icepool

from dsl.compiler import compile_text, generate, load_module

BOOK = '''rulebook table1 "icepool's Table 1":
    source "Ross, Icepool, AIIDE 2022, Table 1"

rule sum_12d6 "12d6" cites "Table 1":
    roll sum_12d6 "12d6": 12d6

rule l5r_5k3 "Roll 5 keep 3" cites "Table 1":
    roll l5r_5k3 "Roll 5 keep 3": highest 3 of exploding 5d10 at most 4 times

rule l5r_6k3 "Roll 6 keep 3" cites "Table 1":
    roll l5r_6k3 "Roll 6 keep 3": highest 3 of exploding 6d10 at most 4 times

rule l5r_10k5 "Roll 10 keep 5" cites "Table 1":
    roll l5r_10k5 "Roll 10 keep 5": highest 5 of exploding 10d10 at most 4 times
'''

PROBLEMS: dict[str, Callable[[], Any]] = {
    "sum_12d6": lambda: 12 @ icepool.d6,
    "l5r_5k3": lambda: icepool.d10.explode(depth=4).pool(5).highest(3).sum(),
    "l5r_6k3": lambda: icepool.d10.explode(depth=4).pool(6).highest(3).sum(),
    "l5r_10k5": lambda: icepool.d10.explode(depth=4).pool(10).highest(5).sum(),
}
MISSING = ("RISK 3v3", "RISK 4v4", "RISK 5v5", "RISK 10v10")


def _chances(die: Any) -> dict[int, Fraction]:
    denominator = die.denominator()
    return {int(o): Fraction(q, denominator) for o, q in die.items() if q}


def _clear_icepool() -> None:
    for cached in (icepool.Die._new_cached if hasattr(icepool.Die, "_new_cached") else None,):
        if cached is not None and hasattr(cached, "cache_clear"):
            cached.cache_clear()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    compiled = compile_text(BOOK, "table1.rules")
    assert compiled.ok, compiled.render()
    module = load_module(generate(compiled), "table1")
    book = module._BOOK
    failed = 0
    print(f"{'problem':<12} {'rulecraft':>12} {'icepool':>12} {'ratio':>7}  same fractions")
    for name, make in PROBLEMS.items():
        mine_best = theirs_best = float("inf")
        mine: dict[int, Fraction] = {}
        theirs: dict[int, Fraction] = {}
        for _ in range(args.repeat):
            book.values.clear()
            book.chances.clear()
            book.rolled.clear()
            start = time.perf_counter()
            mine = dict(module.resolve(name).roll(name).totals)
            mine_best = min(mine_best, time.perf_counter() - start)
            _clear_icepool()
            start = time.perf_counter()
            theirs = _chances(make())
            theirs_best = min(theirs_best, time.perf_counter() - start)
        same = mine == theirs
        failed += not same
        ratio = mine_best / theirs_best
        print(f"{name:<12} {mine_best * 1000:>10.2f}ms {theirs_best * 1000:>10.2f}ms {ratio:>6.2f}x  {same}")
    for name in MISSING:
        print(f"{name:<12} {'not expressible yet (sorted pairs of two pools)':>40}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
