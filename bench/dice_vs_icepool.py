"""The problems of Table 1 of icepool's AIIDE 2022 paper (Ross, "Icepool: Efficient Computation
of Dice Pool Probabilities"), written as a rulebook and worked out by its generated resolver,
beside icepool working out the same distributions, in one run: identical fractions required,
times printed side by side.

    python bench/dice_vs_icepool.py [--repeat 5]

Each time is the best of `--repeat` runs, each in a fresh Python process with nothing worked
out yet, as the paper measured icepool (its times are of a fresh process, without the start-up):
icepool keeps what it has worked out (each evaluator caches the pools it evaluated, and a
second identical evaluation is a look-up), and rulecraft's resolver keeps each distribution in
its book.  A process imports its library and loads the resolver untimed, then times one problem.
The last column is icepool working the same problem out a second time in its process (its
caches then hold the answer), shown for what the caches are worth, not compared.  (Warming
icepool up on another problem first leaves its first times as they are: 12d6 1.7 ms, roll 5
keep 3 15 ms, roll 10 keep 5 39 ms, measured 2026-11-27; the time is the evaluation's.)

RISK is the paper's RISK mechanic counted from the attacker's side: each side's dice sorted,
paired highest against highest, a tie won by the defender; the distribution of the pairs the
attacker wins (icepool: the multiset evaluator of icepool's RISK notebook, written here).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

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

rule risk_3v3 "RISK 3d6 vs. 3d6" cites "Table 1":
    roll risk_3v3 "Pairs the attacker wins": opposed 3d6 vs 3d6 by pairs

rule risk_4v4 "RISK 4d6 vs. 4d6" cites "Table 1":
    roll risk_4v4 "Pairs the attacker wins": opposed 4d6 vs 4d6 by pairs

rule risk_5v5 "RISK 5d6 vs. 5d6" cites "Table 1":
    roll risk_5v5 "Pairs the attacker wins": opposed 5d6 vs 5d6 by pairs

rule risk_10v10 "RISK 10d6 vs. 10d6" cites "Table 1":
    roll risk_10v10 "Pairs the attacker wins": opposed 10d6 vs 10d6 by pairs
'''


def _icepool_problems() -> dict[str, Callable[[], Any]]:
    import icepool

    class PairsWon(icepool.MultisetEvaluator):  # type: ignore[misc]
        """Pairs the first pool wins, outcomes seen highest first (icepool's RISK notebook)."""

        def initial_state(self, order: Any, outcomes: Any, *sizes: int) -> tuple[int, int]:
            if order > 0:  # outcomes highest first only
                raise icepool.UnsupportedOrder()
            return 0, 0

        def next_state(self, state: tuple[int, int], order: Any, outcome: int, a: int, b: int) -> tuple[int, int]:
            won, advantage = state
            if advantage > 0:
                won += min(b, advantage)
            return won, advantage + a - b

        def final_outcome(self, final_state: tuple[int, int], *rest: Any) -> int:
            return final_state[0]

    def risk(count: int) -> Callable[[], Any]:
        return lambda: PairsWon()(icepool.d6.pool(count), icepool.d6.pool(count))

    return {
        "sum_12d6": lambda: 12 @ icepool.d6,
        "l5r_5k3": lambda: icepool.d10.explode(depth=4).pool(5).highest(3).sum(),
        "l5r_6k3": lambda: icepool.d10.explode(depth=4).pool(6).highest(3).sum(),
        "l5r_10k5": lambda: icepool.d10.explode(depth=4).pool(10).highest(5).sum(),
        "risk_3v3": risk(3),
        "risk_4v4": risk(4),
        "risk_5v5": risk(5),
        "risk_10v10": risk(10),
    }


def _child(side: str, problem: str, module_path: str) -> None:
    """One problem worked out once in this fresh process: its time and fractions as JSON."""
    if side == "icepool":
        make = _icepool_problems()[problem]
        start = time.perf_counter()
        die = make()
        denominator = die.denominator()
        chances = {int(o): Fraction(q, denominator) for o, q in die.items() if q}
        seconds = time.perf_counter() - start
        start = time.perf_counter()
        make().denominator()
        again = time.perf_counter() - start
    else:
        from dsl.compiler import load_module

        module = load_module(Path(module_path).read_text(encoding="utf-8"), "table1")
        start = time.perf_counter()
        chances = dict(module.resolve(problem).roll(problem).totals)
        seconds = again = time.perf_counter() - start
    shown = {str(k): f"{v.numerator}/{v.denominator}" for k, v in sorted(chances.items())}
    print(json.dumps({"seconds": seconds, "again": again, "chances": shown}))


def _run(side: str, problem: str, module_path: str) -> tuple[float, float, dict[str, str]]:
    found = subprocess.run(
        [sys.executable, __file__, "--child", side, problem, module_path],
        capture_output=True,
        text=True,
        check=True,
    )
    answer = json.loads(found.stdout)
    return float(answer["seconds"]), float(answer["again"]), dict(answer["chances"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--child", nargs=3, metavar=("SIDE", "PROBLEM", "MODULE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return 0
    from dsl.compiler import compile_text, generate

    compiled = compile_text(BOOK, "table1.rules")
    assert compiled.ok, compiled.render()
    failed = 0
    with tempfile.TemporaryDirectory() as folder:
        module_path = str(Path(folder) / "table1.py")
        Path(module_path).write_text(generate(compiled), encoding="utf-8")
        print(f"{'problem':<12} {'rulecraft':>12} {'icepool':>12} {'ratio':>7}  same fractions  {'icepool again':>13}")
        for name in _icepool_problems():
            mine_best = theirs_best = again_best = float("inf")
            mine: dict[str, str] = {}
            theirs: dict[str, str] = {}
            for _ in range(args.repeat):
                seconds, _, mine = _run("rulecraft", name, module_path)
                mine_best = min(mine_best, seconds)
                seconds, again, theirs = _run("icepool", name, module_path)
                theirs_best = min(theirs_best, seconds)
                again_best = min(again_best, again)
            same = mine == theirs
            failed += not same
            ratio = mine_best / theirs_best
            print(
                f"{name:<12} {mine_best * 1000:>10.2f}ms {theirs_best * 1000:>10.2f}ms {ratio:>6.2f}x  {same!s:<14}"
                f"  {again_best * 1000:>11.2f}ms"
            )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
