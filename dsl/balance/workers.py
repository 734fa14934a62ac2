"""The worker processes of a sweep: each resolves the chunks handed to it, in turn, and sends
their rows back.

A sweep is stopped, interrupted and killed in every way (Ctrl-C, a scheduler's SIGTERM to the
whole process group, the kernel's out-of-memory killer), so its workers are plain processes,
each with a pipe of its own, rather than a pool: multiprocessing.Pool waits forever for the
rows of a worker that died, and concurrent.futures.ProcessPoolExecutor can deadlock as it shuts
down while its workers are being killed (one hung a sweep here under `timeout`; deadlocks of
this kind, such as CPython gh-125451, are fixed only from 3.12).  The sweep waits on a worker's
pipe and on its process at once, so a death is an error at once, and a sweep that stops early
terminates its workers.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Generator, Iterable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

from dsl.balance.books import BalanceError
from dsl.balance.limits import IN_FLIGHT_PER_JOB, ORPHAN_CHECK
from dsl.balance.rows import Plan, Row, compute

Worker = tuple[BaseProcess, Connection]


def resolved(
    plan: Plan, sources: Sequence[tuple[str, str]], spans: Iterator[range], count: int
) -> Generator[list[Row], None, None]:
    """The rows of SPANS, span by span in order, resolved by COUNT processes that load the
    resolver modules from SOURCES.  Each has at most IN_FLIGHT_PER_JOB spans handed to it: one it
    works on and one waiting, so none idles while the rows are written, and no more rows are held
    than these, whatever the number of spans."""
    context = multiprocessing.get_context()
    workers: list[Worker] = []
    try:
        for _ in range(count):
            ours, theirs = context.Pipe()
            started: BaseProcess = context.Process(target=_serve, args=(theirs, plan, sources), daemon=True)
            started.start()
            theirs.close()
            workers.append((started, ours))
        handed: deque[Worker] = deque()  # the worker of each span handed out, in the spans' order
        for _ in range(IN_FLIGHT_PER_JOB):
            for worker in workers:
                _hand(worker, spans, handed)
        while handed:
            worker = handed.popleft()
            rows = _receive(worker)
            _hand(worker, spans, handed)
            yield rows
        for _, connection in workers:
            connection.send(None)  # all done: each ends
        workers, ending = [], workers
        for process, connection in ending:
            process.join()
            connection.close()
    finally:
        for process, connection in workers:  # stopped early, or failed
            process.terminate()
            process.join()
            connection.close()


def _hand(worker: Worker, spans: Iterator[range], handed: deque[Worker]) -> None:
    span = next(spans, None)
    if span is not None:
        worker[1].send(span)
        handed.append(worker)


def _receive(worker: Worker) -> list[Row]:
    process, connection = worker
    wait([connection, process.sentinel])
    message: tuple[bool, Any] | None = None
    if connection.poll():
        try:
            message = connection.recv()
        except (EOFError, OSError):  # it died as it sent them
            message = None
    if message is None:
        raise BalanceError(
            "a process of the sweep ended abruptly (killed, or out of memory?); "
            "--jobs 1 resolves the sweep in this process"
        )
    done, found = message
    if not done:
        raise found
    rows: list[Row] = found
    return rows


def _serve(connection: Connection, plan: Plan, sources: Iterable[tuple[str, str]]) -> None:
    """A worker: resolve each span received, send back (True, rows), or (False, the error).

    Ctrl-C reaches every process of the group: the sweep's own process stops its workers, so a
    worker ignores it.  SIGTERM ends a worker at once: a handler the sweep's process set for its
    output (output.py) is not the worker's.  And a worker whose sweep was killed outright ends
    too, rather than wait for spans forever."""
    from dsl.compiler import load_module

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    threading.Thread(target=_end_with, args=(os.getppid(),), daemon=True).start()
    modules: list[Any] = []
    while (span := connection.recv()) is not None:
        try:
            modules = modules or [load_module(source, name) for source, name in sources]
            connection.send((True, compute(plan, modules, span.start, span.stop)))
        except Exception as error:  # sent to the sweep, which raises it
            connection.send((False, error))


def _end_with(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(ORPHAN_CHECK)
    os._exit(1)
