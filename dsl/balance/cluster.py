"""A sweep on a Dask cluster: the same chunks as on one machine, resolved by Dask's workers.

Dask's distributed scheduler is the established way to spread Python work over machines (SSH,
Kubernetes, a batch system), with its own dashboard, retries and worker management; a sweep only
hands it work.  Each task resolves one chunk (a range of situation indices, rows.compute) with
the rulebook's generated module, loaded once per worker from the module's source that travels
with the plan, so a worker needs rulecraft installed and nothing else: no shared folder, no
rulebook file.  The rows come back to the machine that runs the command, in situation order,
so the table is the one a local sweep writes.

Few chunks are out at a time (two per worker thread): a sweep of a billion situations holds
what one of a thousand does, here as on one machine; a chunk is handed out as one is taken.
"""

from __future__ import annotations

import functools
import pickle
from collections import deque
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path
from typing import Any

from dsl.balance.books import BalanceError
from dsl.balance.limits import IN_FLIGHT_PER_JOB
from dsl.balance.rows import Plan, Row, compute

EXTRA = "pip install 'rulecraft[cluster]'"


def connect(scheduler: str) -> Any:
    """A Dask client of the scheduler at SCHEDULER: an address (`tcp://host:8786`) or a scheduler
    file (`dask scheduler --scheduler-file FILE` writes one)."""
    try:
        import distributed
    except ImportError:
        raise BalanceError(f"a sweep on a cluster needs Dask's distributed scheduler: {EXTRA}") from None
    client: Any = distributed.Client  # untyped: its arguments are read when it connects
    try:
        if Path(scheduler).is_file():
            return client(scheduler_file=scheduler, timeout="10s")
        return client(scheduler, timeout="10s")
    except (OSError, TimeoutError, ValueError) as error:
        raise BalanceError(f"--scheduler {scheduler}: cannot reach a Dask scheduler ({error})") from None


def threads(client: Any) -> int:
    """The worker threads of the cluster (at least 1: a cluster may still be starting workers)."""
    workers = client.scheduler_info().get("workers", {})
    return max(1, sum(int(worker.get("nthreads", 1)) for worker in workers.values()))


def on_cluster(
    client: Any, plan: Plan, sources: Sequence[tuple[str, str]], spans: Iterator[range]
) -> Generator[list[Row], None, None]:
    """The rows of SPANS, span by span in order, each resolved by a task on the cluster."""
    [shared] = client.scatter([(plan, tuple(sources))], broadcast=True)
    most = threads(client) * IN_FLIGHT_PER_JOB
    pending: deque[Any] = deque()
    try:
        for span in spans:
            pending.append(client.submit(_resolve, shared, span.start, span.stop, pure=False))
            if len(pending) >= most:
                yield _rows(pending.popleft())
        while pending:
            yield _rows(pending.popleft())
    finally:
        for future in pending:  # stopped early, or failed: nothing left running for us
            future.cancel()


def _rows(future: Any) -> list[Row]:
    try:
        packed: bytes = future.result()
    except BalanceError:
        raise
    except Exception as error:  # a worker lost, a task cancelled: the scheduler's words
        raise BalanceError(f"a task of the sweep failed on the cluster: {error}") from None
    rows: list[Row] = pickle.loads(packed)
    return rows


def _resolve(shared: tuple[Plan, tuple[tuple[str, str], ...]], start: int, stop: int) -> bytes:
    """A task: the rows of situations START..STOP-1 (run on a worker), pickled in one piece.

    Dask serializes a list by walking its items (looking for arrays to send apart): for the
    thousands of small tuples of a chunk that costs several times resolving them, where one
    pickle of the whole list costs a few milliseconds.  Dask pickles between its own machines
    anyway, so this trusts no one new."""
    plan, sources = shared
    return pickle.dumps(compute(plan, _modules(sources), start, stop), protocol=pickle.HIGHEST_PROTOCOL)


@functools.lru_cache(maxsize=4)
def _modules(sources: tuple[tuple[str, str], ...]) -> list[Any]:
    """The resolver modules, loaded once per worker process for every task of a sweep."""
    from dsl.compiler import load_module

    return [load_module(source, name) for source, name in sources]
