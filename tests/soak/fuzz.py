"""Soak: the fuzzing of tests/fuzz/test_fuzz.py at any count (default 100,000 programs).

    python -m tests.soak.fuzz [--mutants 80000] [--grammar 20000] [--seed N]

Run from the repository's root.  Prints the figures and the first problems in full; exits 1 on
any problem.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from hypothesis import HealthCheck, given, settings

from tests.fuzz.programs import Outcome, exercise, grammar_programs, mutant, seeds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mutants", type=int, default=80_000)
    parser.add_argument("--grammar", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    pool = seeds()
    started = time.perf_counter()
    mutants = Outcome()
    for index in range(args.mutants):
        name, text = rng.choice(pool)
        exercise(mutant(text, rng), name, mutants, rng, situations=2)
        if index % 1000 == 999:
            print(
                f"  {index + 1:,} mutants, {len(mutants.problems)} problems, {time.perf_counter() - started:.0f} s",
                flush=True,
            )
    grammar = Outcome()

    @settings(max_examples=args.grammar, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(grammar_programs())
    def run(text: str) -> None:
        exercise(text, "generated.rules", grammar, rng)

    if args.grammar:
        run()
    for what, outcome in (("mutants", mutants), ("grammar programs", grammar)):
        print(
            f"{what}: {outcome.programs:,} programs, {outcome.accepted:,} accepted, "
            f"{outcome.resolved:,} situations resolved both ways, {len(outcome.problems)} problems"
        )
    print(f"seed {args.seed}, {time.perf_counter() - started:.0f} s")
    for problem in (mutants.problems + grammar.problems)[:5]:
        print("----\n" + problem[:3000])
    return 1 if mutants.problems or grammar.problems else 0


if __name__ == "__main__":
    sys.exit(main())
