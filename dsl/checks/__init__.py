"""Checks over the finished model, one module per concern, run in this order."""

from __future__ import annotations

import dataclasses
from bisect import bisect_left
from collections.abc import Callable, Iterable

from dsl import model as m
from dsl.checks.balance import check_balances
from dsl.checks.contradictions import check_contradictions
from dsl.checks.cycles import check_cycles
from dsl.checks.dice import check_dice_sizes
from dsl.checks.division import check_division
from dsl.checks.examples import check_examples
from dsl.checks.order import check_order
from dsl.checks.reachability import check_reachability
from dsl.checks.tables import check_chain_depths, check_tables
from dsl.checks.usage import check_usage
from dsl.codes import Level
from dsl.diagnostics import Reporter, Span

Check = Callable[[m.Book, Reporter], None]

CHECKS: tuple[Check, ...] = (
    check_tables,
    check_chain_depths,
    check_dice_sizes,
    check_reachability,
    check_division,
    check_contradictions,
    check_cycles,
    check_order,
    check_examples,
    check_balances,
    check_usage,
)

CHECKS_OF_DECLARATIONS: tuple[Check, ...] = (
    check_tables,
    check_dice_sizes,
    check_reachability,
    check_division,
    check_contradictions,
    check_cycles,
)
"""The checks that judge each rule or table on its own content, and so stay sound when other
declarations have errors.  Examples and usage look at the whole book: a modifier dropped for an
error would make them blame an example or an input for what is really that error.  The order of
modifiers is worked out with their amounts, which a name left undeclared by an error leaves
without a value: it waits for a book without errors too."""


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
    errors = _Lines(d.span for d in reporter.diagnostics if d.severity is Level.ERROR)
    # A table row whose range is empty (E302, `501..99`) covers no value: the table without it is
    # exactly what was written, so its coverage is still checked (speeds 501 and up have no row).
    row_errors = _Lines(d.span for d in reporter.diagnostics if d.severity is Level.ERROR and d.code != "E302")
    broken: dict[str, bool] = {}

    def touched(key: str) -> bool:
        if key not in broken:
            part = book.parts[key]
            rule = book.rules.get(part.rule)
            broken[key] = False  # a circle of `as` is an error of its own, reported at the `as`
            broken[key] = (
                rule is None
                or errors.within(rule.span)
                or any(errors.within(e.span) for e in part.effects)
                or any(touched(e.part) for e in part.effects if isinstance(e, m.PartEffect) and e.part in book.parts)
            )
        return broken[key]

    rules = {name: rule for name, rule in book.rules.items() if name in book.parts and not touched(name)}
    parts = {key: part for key, part in book.parts.items() if not touched(key)}
    tables = {name: table for name, table in book.tables.items() if not row_errors.within(table.span)}
    return dataclasses.replace(book, rules=rules, parts=parts, tables=tables)


class _Lines:
    """The lines that hold an error, by file, to ask quickly whether a span holds one."""

    def __init__(self, spans: Iterable[Span]) -> None:
        self.lines: dict[str, list[int]] = {}
        for span in spans:
            self.lines.setdefault(span.path, []).append(span.line)
        for found in self.lines.values():
            found.sort()

    def within(self, span: Span) -> bool:
        found = self.lines.get(span.path)
        if not found:
            return False
        index = bisect_left(found, span.line)
        return index < len(found) and found[index] <= span.end_line
