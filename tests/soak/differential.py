"""Soak: the generated resolvers against the reference resolver, a million situations.

    python -m tests.soak.differential [--count 1000000] [--seed N]

Run from the repository's root.  Prints, per rulebook, the situations compared, those both
refused, the mismatches (the first few in full) and the time taken; exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import sys
import time

from tests.conftest import FEATURES, RULEBOOKS
from tests.semantics.test_semantics import situations


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=1_000_000, help="situations in all")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args()
    books = sorted(RULEBOOKS.glob("*.rules")) + sorted(FEATURES.glob("*.rules"))
    each = max(args.count // len(books), 1)
    total = mismatched = 0
    started = time.perf_counter()
    for index, path in enumerate(books):
        start = time.perf_counter()
        tally = situations(path, each, args.seed + index)
        total += tally.situations
        mismatched += len(tally.mismatches)
        print(
            f"{path.stem:20} {tally.situations:>9,} situations  {tally.refused:>6,} refused by both  "
            f"{len(tally.mismatches):>4} mismatches  {time.perf_counter() - start:7.1f} s",
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
