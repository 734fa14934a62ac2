"""A sweep: the product of the varied inputs, every situation resolved exactly by the rulebook's
compiled resolver, as a tidy table (one row per situation).

Large products run in worker processes, each loading the same generated module from its source;
the situations are cut into chunks of consecutive indices and gathered in order, so the rows
are the same, in the same order, whatever the number of processes.  Nothing grows with the size
of the sweep: the axes are ranges read by position, the chunks are made as they are asked for,
and only a few are handed to the processes at a time, so a sweep of a billion situations holds
what one of a thousand does while its rows stream out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dsl.balance.books import BalanceError, Edition, load_edition
from dsl.balance.layout import Column, build_layout, columns, combinations
from dsl.balance.limits import CHUNK_MOST, CHUNKS_PER_JOB, DEFAULT_LIMIT, PARALLEL_FROM, cores
from dsl.balance.rows import Plan, Row, compute, plain
from dsl.balance.spec import RULE_AXIS, Axis, check_read, input_axis, no_rule, rule_axis, setting
from dsl.balance.workers import resolved

Vary = Mapping[str, Any] | Sequence[tuple[str, Any]]
"""Inputs to vary, in order: NAME to a text (`"3..18"`, `"3..18/3"`, `"all"`, `"a,b,c"`) or to
the values themselves (`range(3, 19)`, `["knee", "deep"]`).  The name `rule` varies the rules."""


@dataclass(frozen=True)
class Sweep:
    """A planned sweep: its editions (the book, and the `against` book), situations and columns."""

    editions: tuple[Edition, ...]
    plan: Plan
    columns: tuple[Column, ...]

    @property
    def total(self) -> int:
        return self.plan.total

    @property
    def axes(self) -> tuple[Axis, ...]:
        return self.plan.axes

    def processes(self, jobs: int | None = None) -> int:
        """The processes that resolve the sweep for JOBS (see `chunks`)."""
        return _workers(jobs, self.total)

    def spans(self, jobs: int | None = None) -> Iterator[range]:
        """The situations cut into chunks, each a range of consecutive indices into the product
        (rows.compute resolves one anywhere), made as they are asked for: never a list of them."""
        return _cut(self.total, _workers(jobs, self.total))

    def chunks(
        self,
        jobs: int | None = None,
        progress: Callable[[int], None] | None = None,
        scheduler: str | None = None,
    ) -> Generator[list[Row], None, None]:
        """The rows, chunk by chunk, in situation order.  JOBS processes (None: every core, for
        products of PARALLEL_FROM situations or more; 1: this process only), or the workers of
        the Dask cluster whose scheduler is SCHEDULER (an address or a scheduler file: see
        cluster.py).  Each process (worker thread) has at most IN_FLIGHT_PER_JOB chunks handed
        to it at a time, and the next is handed out only as a finished one is taken: the memory
        held is the same whatever the size of the sweep."""
        if scheduler is not None:
            yield from self._on_cluster(scheduler, progress)
            return
        workers = _workers(jobs, self.total)
        spans = self.spans(jobs)
        if workers == 1:
            modules = [edition.module for edition in self.editions]
            found: Generator[list[Row], None, None] = (
                compute(self.plan, modules, span.start, span.stop) for span in spans
            )
        else:
            sources = tuple((edition.source, edition.name) for edition in self.editions)
            found = resolved(self.plan, sources, spans, workers)
        with closing(found):  # stopped early: the workers are stopped too
            for rows in found:
                if progress is not None:
                    progress(len(rows))
                yield rows

    def _on_cluster(self, scheduler: str, progress: Callable[[int], None] | None) -> Generator[list[Row], None, None]:
        from dsl.balance.cluster import connect, on_cluster, threads

        client = connect(scheduler)
        try:
            sources = tuple((edition.source, edition.name) for edition in self.editions)
            found = on_cluster(client, self.plan, sources, _cut(self.total, threads(client)))
            with closing(found):
                for rows in found:
                    if progress is not None:
                        progress(len(rows))
                    yield rows
        finally:
            client.close()

    def rows(self, jobs: int | None = None) -> list[dict[str, Any]]:
        """Every row as a dict keyed by column name (exact chances as Fractions)."""
        names = [column.name for column in self.columns]
        return [dict(zip(names, row, strict=True)) for chunk in self.chunks(jobs) for row in chunk]

    def frame(self, jobs: int | None = None) -> Any:
        """The rows as a pandas DataFrame (pandas is optional: ImportError names it)."""
        try:
            import pandas
        except ImportError:
            raise ImportError("a DataFrame needs pandas: pip install pandas") from None
        names = [column.name for column in self.columns]
        return pandas.DataFrame.from_records([row for chunk in self.chunks(jobs) for row in chunk], columns=names)


Book = str | Path | Edition
"""A rulebook path, the name of a bundled rulebook, or an Edition already loaded (`load_edition`):
compiling a big rulebook takes a second, so a script sweeping one many times loads it once."""


def prepare(
    book: Book,
    rules: str | Sequence[str] = (),
    *,
    vary: Vary | None = None,
    given: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
    against: Book | None = None,
    limit: int = DEFAULT_LIMIT,
) -> Sweep:
    """Plan a sweep of RULES of BOOK; BalanceError for a request it cannot answer as asked."""
    editions = [_edition(book)]
    if against is not None:
        editions.append(_edition(against))
    return plan_sweep(editions, rules, vary=vary, given=given, limit=limit)


def _edition(book: Book) -> Edition:
    return book if isinstance(book, Edition) else load_edition(book)


def plan_sweep(
    editions: Sequence[Edition],
    rules: str | Sequence[str] = (),
    *,
    vary: Vary | None = None,
    given: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
    limit: int = DEFAULT_LIMIT,
) -> Sweep:
    if limit < 1:
        raise BalanceError(f"the limit must be at least 1, not {limit}")
    fixed = _rules(editions, [rules] if isinstance(rules, str) else list(rules))
    pairs = _pairs(vary)
    settings = _pairs(given)
    names = [name for name, _ in pairs]
    for name in names:
        if names.count(name) > 1:
            raise BalanceError(f"--vary {name} is given twice; list its values once: {name}=a,b,c")
    for name, _ in settings:
        if name in names:
            raise BalanceError(f"{name} is both varied (--vary) and set (--set); keep one")
    rules_vary = RULE_AXIS not in editions[0].module.INPUTS  # a book may name an input `rule`
    axes: list[Axis] = []
    varied_rules: tuple[str, ...] = ()
    for name, raw in pairs:
        if name == RULE_AXIS and rules_vary:
            axis = rule_axis(editions, raw)
            varied_rules = tuple(str(value) for value in axis.values)
            axes.append(axis)
    if not fixed and not varied_rules:
        raise BalanceError("name a rule to sweep (RULE), or vary the rules with --vary rule=NAME,NAME")
    chosen = list(dict.fromkeys([*fixed, *varied_rules]))
    for name, raw in pairs:
        if name == RULE_AXIS and rules_vary:
            continue
        axes.append(input_axis(editions, name, raw, limit))
    axes.sort(key=lambda axis: names.index(axis.name))
    check_read(editions, [axis.name for axis in axes if axis.kind != "rule"], chosen, "--vary")
    fixed_values = tuple((name, _portable(setting(editions, name, raw))) for name, raw in settings)
    check_read(editions, [name for name, _ in fixed_values], chosen, "--set")
    axes = [_portable_axis(axis) for axis in axes]
    total = math.prod(len(axis.values) for axis in axes)
    if total > limit:
        sizes = " x ".join(f"{len(axis.values)} {axis.name}" for axis in axes)
        raise BalanceError(
            f"the sweep has {total:,} situations ({sizes}), more than the bound of {limit:,}; "
            f"narrow a --vary, or raise the bound with --limit {total}"
        )
    layout = build_layout(editions, combinations(fixed, axes))
    plan = Plan(tuple(fixed), tuple(axes), fixed_values, layout, len(editions))
    return Sweep(tuple(editions), plan, columns(axes, layout, len(editions)))


def sweep(
    book: Book,
    rules: str | Sequence[str] = (),
    *,
    vary: Vary | None = None,
    given: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
    against: Book | None = None,
    limit: int = DEFAULT_LIMIT,
    jobs: int | None = None,
) -> list[dict[str, Any]]:
    """The rows of a sweep: one dict per situation (see docs/balance.md for the columns)."""
    return prepare(book, rules, vary=vary, given=given, against=against, limit=limit).rows(jobs)


def sweep_frame(
    book: Book,
    rules: str | Sequence[str] = (),
    *,
    vary: Vary | None = None,
    given: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
    against: Book | None = None,
    limit: int = DEFAULT_LIMIT,
    jobs: int | None = None,
) -> Any:
    """The same rows as a pandas DataFrame."""
    return prepare(book, rules, vary=vary, given=given, against=against, limit=limit).frame(jobs)


def _cut(total: int, workers: int) -> Iterator[range]:
    """TOTAL situations in chunks of consecutive indices, about CHUNKS_PER_JOB for each of
    WORKERS (at most CHUNK_MOST situations each)."""
    size = max(1, min(CHUNK_MOST, math.ceil(total / (workers * CHUNKS_PER_JOB))))
    return (range(start, min(start + size, total)) for start in range(0, total, size))


def _workers(jobs: int | None, total: int) -> int:
    if jobs is not None and jobs < 1:
        raise BalanceError(f"--jobs must be at least 1, not {jobs}")
    if jobs is None:
        jobs = cores() if total >= PARALLEL_FROM else 1
    return max(1, min(jobs, math.ceil(total / 1_000)))


def _rules(editions: Sequence[Edition], names: list[str]) -> list[str]:
    for name in names:
        for edition in editions:
            if name not in edition.module.RULES:
                where = f" ({edition.path})" if edition is not editions[0] else ""
                raise BalanceError(no_rule(edition, name) + where)
    return list(dict.fromkeys(names))


def _pairs(items: Mapping[str, Any] | Sequence[tuple[str, Any]] | None) -> list[tuple[str, Any]]:
    if items is None:
        return []
    if isinstance(items, Mapping):
        return [(str(name), value) for name, value in items.items()]
    return [(str(name), value) for name, value in items]


def _portable(value: Any) -> Any:
    """Dice are sent to workers as their text (the resolver reads `3d6` as well as a Dice)."""
    return plain(value)


def _portable_axis(axis: Axis) -> Axis:
    if axis.kind != "dice":
        return axis
    return Axis(axis.name, axis.label, axis.kind, tuple(str(v) for v in axis.values))
