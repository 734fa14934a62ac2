"""Soak: random dice expressions over the whole algebra (tests/dice_expressions.py), worked out by
rulecraft and by icepool as exact fractions, 200,000 of them.

    python -m tests.soak.dice_icepool [--count 200000] [--seed N] [--minutes M] [--jobs J]

Run from the repository's root.  Prints the expressions compared, the refused (past the
algebra's bounds, with the reason; none expected), the mismatches (the first few in full, with
the seed that rebuilds them) and the time taken; exits 1 on any mismatch.  `--minutes` stops
early, saying how many were compared.

The seeds go out in chunks of CHUNK to J worker processes, each replaced after its chunk:
icepool keeps every pool it has built (its pool constructor is cached without bound), so one
process comparing a hundred thousand expressions grows past ten gigabytes.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time

CHUNK = 500
"""Expressions a worker process compares before it is replaced."""


def _chunk(first: int, count: int) -> tuple[int, list[str], list[str]]:
    """Seeds first .. first + count - 1: (compared, refused lines, mismatched seeds)."""
    from tests.dice_expressions import agree, build

    compared = 0
    refused: list[str] = []
    mismatches: list[str] = []
    for seed in range(first, first + count):
        rng = random.Random(seed)
        built = build(rng)
        try:
            mine, theirs = agree(built, rng)
        except ValueError as error:
            refused.append(f"refused (seed {seed}): {built.dice}: {error}")
            continue
        compared += 1
        if mine != theirs:
            mismatches.append(f"seed {seed}: {built.dice}")
    return compared, refused, mismatches


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=200_000, help="expressions in all")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--minutes", type=float, default=None, help="stop after this long")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    args = parser.parse_args()
    started = time.perf_counter()
    chunks = [(args.seed + at, min(CHUNK, args.count - at)) for at in range(0, args.count, CHUNK)]
    compared = refused = 0
    mismatches: list[str] = []
    reported = 0
    with multiprocessing.get_context("spawn").Pool(args.jobs, maxtasksperchild=1) as pool:
        for done, refusals, wrong in pool.imap(_unpack, chunks):
            compared += done
            refused += len(refusals)
            for line in refusals:
                print(line)
            for line in wrong:
                mismatches.append(line)
                if len(mismatches) <= 5:
                    print("MISMATCH", line, flush=True)
            if compared // 5000 > reported:
                reported = compared // 5000
                print(f"{compared:,} compared, {len(mismatches)} mismatches, {time.perf_counter() - started:.0f} s", flush=True)
            if args.minutes is not None and time.perf_counter() - started > args.minutes * 60:
                pool.terminate()
                break
    elapsed = time.perf_counter() - started
    print(f"{compared:,} expressions compared with icepool, {refused} refused, {len(mismatches)} mismatches, {elapsed:.0f} s")
    return 1 if mismatches else 0


def _unpack(chunk: tuple[int, int]) -> tuple[int, list[str], list[str]]:
    return _chunk(*chunk)


if __name__ == "__main__":
    sys.exit(main())
