"""Checks over the finished model, one module per concern, run in this order."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from dsl import model as m
from dsl.checks.contradictions import check_contradictions
from dsl.checks.cycles import check_cycles
from dsl.checks.examples import check_examples
from dsl.checks.reachability import check_reachability
from dsl.checks.tables import check_tables
from dsl.checks.usage import check_usage
from dsl.codes import Level
from dsl.diagnostics import Reporter, Span

Check = Callable[[m.Book, Reporter], None]

CHECKS: tuple[Check, ...] = (
    check_tables,
    check_reachability,
    check_contradictions,
    check_cycles,
    check_examples,
    check_usage,
)

CHECKS_OF_DECLARATIONS: tuple[Check, ...] = (
    check_tables,
    check_reachability,
    check_contradictions,
    check_cycles,
)
"""The checks that judge each rule or table on its own content, and so stay sound when other
declarations have errors.  Examples and usage look at the whole book: a modifier dropped for an
error would make them blame an example or an input for what is really that error."""


def run_checks(book: m.Book, reporter: Reporter) -> None:
    """Every check on a book without errors; on one with errors, the checks of declarations on the
    rules and tables that no error touches, so a run still reports every mistake it can prove."""
    if not reporter.has_errors:
        for check in CHECKS:
            check(book, reporter)
        return
    untouched = _untouched(book, reporter)
    for check in CHECKS_OF_DECLARATIONS:
        check(untouched, reporter)


def _untouched(book: m.Book, reporter: Reporter) -> m.Book:
    """The book without the rules and tables that hold an error (in their text, or in the text of
    a rule they compose with `as`): what remains of those is partial and would mislead a check."""
    errors = [d.span for d in reporter.diagnostics if d.severity is Level.ERROR]
    # A table row whose range is empty (E302, `501..99`) covers no value: the table without it is
    # exactly what was written, so its coverage is still checked (speeds 501 and up have no row).
    row_errors = [d.span for d in reporter.diagnostics if d.severity is Level.ERROR and d.code != "E302"]

    def touched(span: Span, among: list[Span] = errors) -> bool:
        return any(e.path == span.path and span.line <= e.line <= span.end_line for e in among)

    rules = {
        name: rule
        for name, rule in book.rules.items()
        if not touched(rule.span) and not any(touched(effect.span) for effect in rule.effects)
    }
    tables = {name: table for name, table in book.tables.items() if not touched(table.span, row_errors)}
    return dataclasses.replace(book, rules=rules, tables=tables)
