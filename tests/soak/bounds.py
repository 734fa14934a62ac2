"""Soak: the bounds property test of tests/fuzz/test_bounds.py at any count.

    python -m tests.soak.bounds [--mutants 20000] [--grammar 10000] [--seed N]

Run from the repository's root.  Prints the figures as it goes and the first problems in full;
exits 1 on any program beyond the bound.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from hypothesis import HealthCheck, given, settings

from tests.fuzz.bounds import Tally, Worker
from tests.fuzz.programs import grammar_programs, mutant, seeds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mutants", type=int, default=20_000)
    parser.add_argument("--grammar", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    pool = seeds()
    started = time.perf_counter()
    worker = Worker()
    mutants, grammar = Tally(), Tally()
    try:
        for index in range(args.mutants):
            _, text = rng.choice(pool)
            program = mutant(text, rng)
            mutants.add(program, worker.measure(program))
            if index % 500 == 499:
                print(f"  mutants: {mutants.summary()}, {time.perf_counter() - started:.0f} s", flush=True)

        @settings(max_examples=args.grammar, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(grammar_programs())
        def run(text: str) -> None:
            grammar.add(text, worker.measure(text))

        if args.grammar:
            run()
    finally:
        worker.close()
    print(f"mutants: {mutants.summary()}")
    print(f"grammar programs: {grammar.summary()}")
    print(f"seed {args.seed}, {time.perf_counter() - started:.0f} s")
    for problem in (mutants.problems + grammar.problems)[:5]:
        print("----\n" + problem[:3000])
    return 1 if mutants.problems or grammar.problems else 0


if __name__ == "__main__":
    sys.exit(main())
