"""Situations a second of one sweep, resolved by 1 and 2 local processes and by Dask clusters of
1 and 2 worker processes on this machine (a LocalCluster: the code a real cluster runs).

    python bench/sweeps.py                  # broken ground, 50,220 situations, each way twice
    python bench/sweeps.py --repeat 1 --dex 0..10

The rows are only counted (nothing written): what is measured is resolving and gathering.  Each
way is timed in wall time from the first chunk asked for to the last taken, with its start-up
(the worker processes, or the cluster, started beforehand and not counted).  Prints a table and
the speed-up of two workers over one, for the processes and for Dask.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from dsl.balance import load_edition, prepare
from dsl.balance.sweeps import Sweep


def _plan(dex: str) -> Sweep:
    edition = load_edition("skirmish_terrain")
    vary = {"DEX": dex, "MOV": "1..30", "moved": "0..30", "acrobatics": "all"}
    return prepare(edition, "broken_ground", vary=vary, limit=10_000_000)


def _count(run: Callable[[], int]) -> float:
    started = time.perf_counter()
    count = run()
    return count / (time.perf_counter() - started)


def local(sweep: Sweep, jobs: int) -> float:
    return _count(lambda: sum(len(rows) for rows in sweep.chunks(jobs)))


def dask(sweep: Sweep, workers: int) -> float:
    from distributed import LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        # a first small pass loads the resolver on every worker, as a long sweep would once
        sum(len(rows) for rows in _plan("3").chunks(scheduler=address))
        return _count(lambda: sum(len(rows) for rows in sweep.chunks(scheduler=address)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dex", default="0..26", help="the DEX values swept (default 0..26: 50,220 situations)")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each way; the best is kept")
    options = parser.parse_args()
    sweep = _plan(options.dex)
    print(f"broken ground, {sweep.total:,} situations; best of {options.repeat}")
    ways: dict[str, Callable[[], float]] = {
        "1 process": lambda: local(sweep, 1),
        "2 processes": lambda: local(sweep, 2),
        "Dask, 1 worker": lambda: dask(sweep, 1),
        "Dask, 2 workers": lambda: dask(sweep, 2),
    }
    rates = {}
    for name, way in ways.items():
        rates[name] = max(way() for _ in range(options.repeat))
        print(f"  {name:<16} {rates[name]:>9,.0f} situations a second")
    print(f"two over one: processes {rates['2 processes'] / rates['1 process']:.2f}x, "
          f"Dask {rates['Dask, 2 workers'] / rates['Dask, 1 worker']:.2f}x")


if __name__ == "__main__":
    main()
