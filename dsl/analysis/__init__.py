"""AST -> checked model.

The analysis declares every name, resolves types, flattens rule bodies into guarded effects,
keeps `as OTHER` compositions as references to analysed parts, and types every expression
(through dsl/analysis/infer.py).  It reports what breaks the language's rules of names and types; the
checks in dsl/checks/ then look at the finished model for logical problems (gaps,
contradictions, dead conditions, cycles).

One module per construct, each a set of `analyze_<construct>` functions over a shared Context:
vocabulary (types, inputs, stats, groups, grades, tiers, resistance), tables, rules (and
composition), modifiers, derives, rolls, examples, balance.  This module runs them in order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import TypeVar

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.analysis.balance import analyze_balance
from dsl.analysis.context import Context, Unparsed, note_pair
from dsl.analysis.examples import analyze_example
from dsl.analysis.precedence import analyze_order, settle_orders
from dsl.analysis.rules import analyze_rule
from dsl.analysis.tables import analyze_table, analyze_table_shape
from dsl.analysis.vocabulary import (
    analyze_default,
    analyze_grades,
    analyze_group,
    analyze_resistance,
    analyze_statblock,
    analyze_tiers,
    analyze_type,
    analyze_var,
)
from dsl.codes import CURRENT, RELEASES, Release, parse_release, parse_release_loose, release_text
from dsl.diagnostics import Reporter
from dsl.model.exprs import effect_exprs, names_read, substitute, table_reads, walk, with_starts
from dsl.model.order import settle_order
from dsl.model.parts import PartFilter, flat_effects, part_closure
from dsl.printer import expr_text

__all__ = ["PartFilter", "analyze", "effect_exprs", "flat_effects", "names_read", "part_closure", "substitute", "walk"]

_T = TypeVar("_T")


def analyze(tree: n.Rulebook, reporter: Reporter) -> m.Book:
    header = tree.header
    book = m.Book(
        name=header.name.text,
        title=header.title.value,
        source=header.source.value if header.source else None,
        version=header.version.value if header.version else None,
        notes=tuple(note_pair(s) for s in header.notes),
        path=header.span.path,
    )
    reporter.written_for = _written_for(header, reporter)
    cx = Context(tree, Unparsed(inner=reporter, names=set(tree.unparsed)), book)
    cx.check_name(header.name, "rulebook")
    decls = tree.declarations
    for unit in _of(decls, n.UnitDecl):
        if cx.declare(unit.name, "unit"):
            book.units[unit.name.text] = unit.label.value if unit.label else None
    for alias in _of(decls, n.TypeDecl):
        if cx.declare(alias.name, "type"):
            resolved = analyze_type(cx, alias.type)
            if resolved is not None:
                if isinstance(resolved, t.Enum):
                    resolved = dataclasses.replace(resolved, name=alias.name.text)
                cx.type_aliases[alias.name.text] = resolved
    var_decls = [d for d in decls if isinstance(d, (n.InputDecl, n.StatDecl))]
    for var_decl in var_decls:
        analyze_var(cx, var_decl)
    for group in _of(decls, n.GroupDecl):
        analyze_group(cx, group)
    grades = list(_of(decls, n.GradesDecl))
    for extra_grades in grades[1:]:
        cx.reporter.report("E102", "a rulebook has one `grades` scale", extra_grades.span, "merge the two lists")
    if grades:
        analyze_grades(cx, grades[0])
    for tiers in _of(decls, n.TiersDecl):
        analyze_tiers(cx, tiers)
    resistances = list(_of(decls, n.ResistanceDecl))
    for extra in resistances[1:]:
        cx.reporter.report("E102", "a rulebook has one `resistance` formula", extra.span)
    if resistances:
        analyze_resistance(cx, resistances[0])
    for rule in _of(decls, n.RuleDecl):
        if cx.declare(rule.name, "rule or table"):
            cx.rule_decls[rule.name.text] = rule
    # only the first declaration of a name counts: a second table of that name is reported (E102)
    # and not analysed against the first one's shape
    tables = [table for table in _of(decls, n.TableDecl) if cx.declare(table.name, "rule or table")]
    for table in tables:
        analyze_table_shape(cx, table)
    for table in tables:
        if table.name.text in cx.table_shapes:
            analyze_table(cx, table)
    # defaults after tables: a stat may start from a lookup (`stat pace = pace_by_class[class]`)
    for var_decl in var_decls:
        analyze_default(cx, var_decl)
    for name, found in book.tables.items():
        book.tables[name] = dataclasses.replace(found, reads=with_starts(book, table_reads(book, name)))
    for name, rule_decl in cx.rule_decls.items():
        book.rules[name] = analyze_rule(cx, rule_decl)
    for statblock in _of(decls, n.StatBlockDecl):
        analyze_statblock(cx, statblock)
    for order in _of(decls, n.OrderDecl):
        analyze_order(cx, order)
    settle_orders(cx)
    for example in _of(decls, n.ExampleDecl):
        checked = analyze_example(cx, example, None)
        if checked is not None:
            book.examples.append(checked)
    for balance in _of(decls, n.BalanceDecl):
        stated = analyze_balance(cx, balance)
        if stated is not None:
            book.balances.append(stated)
    for scaled in cx.typer.unrounded.values():
        cx.reporter.report(
            "E204",
            "dice scaled by a factor that may leave a fraction: say how to round the total",
            scaled.span,
            f"write `{expr_text(scaled)} round down` (or `round up`, `round nearest`)",
        )
    book.settle = settle_order(book)
    return book


def _written_for(header: n.Header, reporter: Reporter) -> Release | None:
    """The release the header says the book is written for (`for rulecraft 0.2`), which decides
    whether a check new in a later release warns or fails (dsl/codes.py, NEW_CHECKS)."""
    if header.release is None:
        return None
    written = header.release.value
    release = parse_release(written)
    if release is None:
        known = ", ".join(release_text(r) for r in RELEASES)
        newer = parse_release_loose(written)
        what = (
            f"this rulebook is written for rulecraft {written}, newer than this rulecraft ({release_text(CURRENT)})"
            if newer is not None and newer > CURRENT
            else f"rulecraft has had no release {written}"
        )
        reporter.report("E007", what, header.release.span, f"the releases are {known}: upgrade rulecraft, or say one of them")
    return release


def _of(items: Iterable[object], kind: type[_T]) -> Iterator[_T]:
    return (i for i in items if isinstance(i, kind))
