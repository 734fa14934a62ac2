"""Checks over the finished model, one module per concern, run in this order."""

from __future__ import annotations

from collections.abc import Callable

from dsl import model as m
from dsl.checks.contradictions import check_contradictions
from dsl.checks.cycles import check_cycles
from dsl.checks.examples import check_examples
from dsl.checks.reachability import check_reachability
from dsl.checks.tables import check_tables
from dsl.checks.usage import check_usage
from dsl.diagnostics import Reporter

CHECKS: tuple[Callable[[m.Book, Reporter], None], ...] = (
    check_tables,
    check_reachability,
    check_contradictions,
    check_cycles,
    check_examples,
    check_usage,
)


def run_checks(book: m.Book, reporter: Reporter) -> None:
    for check in CHECKS:
        check(book, reporter)
