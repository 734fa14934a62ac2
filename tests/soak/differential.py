"""Soak: the generated resolvers against the reference resolver, a million situations.

    python -m tests.soak.differential [--count 1000000] [--seed N] [--jobs N]

Run from the repository's root.  Prints, per rulebook, the situations compared, those both
refused, those past a resolver's bounds, the mismatches (the first few in full) and the CPU time
taken; exits 1 on any mismatch.  `--jobs` works on that many rulebooks at once, each in a process
of its own (the figures are the same whatever the number: each rulebook draws from its own seed).
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from tests.conftest import FEATURES, RULEBOOKS
from tests.differential import Tally
from tests.semantics.test_semantics import situations


def _soak(path: Path, count: int, seed: int) -> tuple[Tally, float]:
    start = time.process_time()
    tally = situations(path, count, seed)
    return tally, time.process_time() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=1_000_000, help="situations in all")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--jobs", type=int, default=1, help="rulebooks worked on at once")
    args = parser.parse_args()
    books = sorted(RULEBOOKS.glob("*.rules")) + sorted(FEATURES.glob("*.rules"))
    each = max(args.count // len(books), 1)
    total = mismatched = 0
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        futures = [pool.submit(_soak, path, each, args.seed + index) for index, path in enumerate(books)]
        for path, future in zip(books, futures, strict=True):
            tally, seconds = future.result()
            total += tally.situations
            mismatched += len(tally.mismatches)
            print(
                f"{path.stem:20} {tally.situations:>9,} situations  {tally.refused:>6,} refused by both  "
                f"{tally.bounded:>6,} past bounds  {len(tally.mismatches):>4} mismatches  {seconds:7.1f} s CPU",
                flush=True,
            )
            for line in tally.mismatches[:3]:
                print("    " + line[:2000])
    print(
        f"{'all':20} {total:>9,} situations  seed {args.seed}  {mismatched} mismatches  "
        f"{time.perf_counter() - started:.1f} s"
    )
    return 1 if mismatched else 0


if __name__ == "__main__":
    sys.exit(main())
