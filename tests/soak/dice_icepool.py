"""Soak: random dice expressions over the whole algebra (tests/dice_expressions.py), worked out by
rulecraft and by icepool as exact fractions, 200,000 of them.

    python -m tests.soak.dice_icepool [--count 200000] [--seed N] [--minutes M]

Run from the repository's root.  Prints the expressions compared, the refused (past the
algebra's bounds, with the reason; none expected), the mismatches (the first few in full, with
the seed that rebuilds them) and the time taken; exits 1 on any mismatch.  `--minutes` stops
early, saying how many were compared.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from tests.dice_expressions import agree, build


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=200_000, help="expressions in all")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--minutes", type=float, default=None, help="stop after this long")
    args = parser.parse_args()
    started = time.perf_counter()
    compared = refused = 0
    mismatches: list[str] = []
    for index in range(args.count):
        if args.minutes is not None and time.perf_counter() - started > args.minutes * 60:
            break
        seed = args.seed + index
        rng = random.Random(seed)
        built = build(rng)
        try:
            mine, theirs = agree(built, rng)
        except ValueError as error:
            refused += 1
            print(f"refused (seed {seed}): {built.dice}: {error}")
            continue
        compared += 1
        if mine != theirs:
            mismatches.append(f"seed {seed}: {built.dice}")
            if len(mismatches) <= 5:
                print("MISMATCH", mismatches[-1])
        if compared % 5000 == 0:
            print(f"{compared:,} compared, {len(mismatches)} mismatches, {time.perf_counter() - started:.0f} s", flush=True)
    elapsed = time.perf_counter() - started
    print(f"{compared:,} expressions compared with icepool, {refused} refused, {len(mismatches)} mismatches, {elapsed:.0f} s")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
