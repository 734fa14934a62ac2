"""Queries over the expressions of the checked model: walking them, substituting the bindings of
`as RULE with ...`, and finding the inputs and stats they read.  Every stage after analysis
(checks, emitter, cards) asks these questions, so they live apart from the analysis itself."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterable, Iterator
from typing import Any

from dsl import model as m
from dsl import nodes as n


def walk(expr: n.Expr) -> Iterator[n.Expr]:
    """Every node of an expression, parents before children (an explicit stack, so a long sum
    costs time in proportion to its length, not to the square of its depth)."""
    stack = [expr]
    pop = stack.pop
    push = stack.append
    backwards = _BACKWARDS
    while stack:
        node = pop()
        yield node
        names = backwards.get(node.__class__)
        if names is None:
            names = _backwards(node)
        for f in names:  # the last child pushed first: the first comes off the stack next
            value = getattr(node, f)
            if isinstance(value, n.Expr):
                push(value)
            elif isinstance(value, tuple):
                for item in reversed(value):
                    if isinstance(item, n.Expr):
                        push(item)


_FIELDS: dict[type, tuple[str, ...]] = {}
_BACKWARDS: dict[type, tuple[str, ...]] = {}


def _fields(node: n.Node) -> tuple[str, ...]:
    """The fields of a node that may hold an expression, or a tuple of them (by their types:
    `Compare.op`, a string, and `Call.function`, a Name, never do), in order."""
    names = _FIELDS.get(type(node))
    if names is None:
        hints = typing.get_type_hints(type(node), vars(n))
        names = _FIELDS[type(node)] = tuple(
            f.name for f in dataclasses.fields(node) if f.name != "span" and _may_hold_expr(hints[f.name])
        )
    return names


def _backwards(node: n.Node) -> tuple[str, ...]:
    names = _BACKWARDS[type(node)] = tuple(reversed(_fields(node)))
    return names


def _may_hold_expr(hint: Any) -> bool:
    if hint is Any or hint is object:
        return True
    if typing.get_origin(hint) is typing.Literal:
        return False
    args = typing.get_args(hint)
    if args:
        return any(_may_hold_expr(a) for a in args if a is not Ellipsis)
    return isinstance(hint, type) and (issubclass(hint, n.Expr) or issubclass(n.Expr, hint))


def substitute(expr: n.Expr, bindings: dict[str, n.Expr]) -> n.Expr:
    """`expr` with the names bound by `as RULE with name = value` replaced by their values."""
    if not bindings:
        return expr
    if isinstance(expr, n.NameRef) and expr.name in bindings:
        return bindings[expr.name]
    changes: dict[str, object] = {}
    for name in _fields(expr):
        value = getattr(expr, name)
        if isinstance(value, n.Expr):
            new = substitute(value, bindings)
            if new is not value:
                changes[name] = new
        elif isinstance(value, tuple) and value and isinstance(value[0], n.Expr):
            items = tuple(substitute(v, bindings) for v in value)
            if any(a is not b for a, b in zip(items, value, strict=True)):
                changes[name] = items
    return dataclasses.replace(expr, **changes) if changes else expr  # type: ignore[arg-type]


def names_in(node: object) -> frozenset[str]:
    """Every name a statement or expression reads, nested statements included."""
    names: set[str] = set()
    stack: list[object] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, (n.NameRef, n.BaseRef)):
            names.add(item.name)
        if isinstance(item, n.Node):
            stack.extend(getattr(item, f.name) for f in dataclasses.fields(item))
        elif isinstance(item, (tuple, list)):
            stack.extend(item)
    return frozenset(names)


def effect_exprs(effect: m.Effect) -> Iterator[n.Expr]:
    """Every expression of an effect: its guard, its values, its roll's targets and changes."""
    for condition in effect.guard:
        yield condition.expr
    if isinstance(effect, m.ModEffect):
        yield from (x for x in (effect.value, effect.per) if x is not None)
    elif isinstance(effect, m.DeriveEffect):
        yield effect.value
    elif isinstance(effect, m.RollEffect):
        yield from (
            x
            for x in (
                effect.target,
                effect.dice,
                effect.needed,
                effect.active,
                effect.passive,
                effect.bonus,
                effect.against_bonus,
                effect.against_dice,
            )
            if x is not None
        )
        yield from effect.adds
        for change in effect.changes:
            for condition in change.guard:
                yield condition.expr
            if change.value is not None:
                yield change.value
        for outcome in effect.outcomes:
            for consequence in outcome.changes:
                yield from (x for x in (consequence.value, consequence.per) if x is not None)


def names_read(expr: n.Expr, book: m.Book) -> set[str]:
    """The inputs and stats an expression reads, following table lookups into their keys."""
    found: set[str] = set()
    for node in walk(expr):
        ref = book.refs.get(node)
        if ref is None:
            continue
        if ref.kind in ("input", "stat", "base"):
            found.add(ref.name)
        elif ref.kind == "table":
            found |= table_reads(book, ref.name)
    return found


def table_reads(book: m.Book, name: str) -> frozenset[str]:
    """The inputs and stats a lookup of a table reads: its keys, its modifier, and what its cells
    read (worked out once per table)."""
    found = book.table_reads.get(name)
    if found is not None:
        return found
    book.table_reads[name] = frozenset()  # a cell that looks its own table up adds nothing more
    table = book.tables.get(name)
    names: set[str] = set()
    if table is not None:
        names.update(table.inputs)
        if table.modifier:
            names.add(table.modifier)
        for row in table.rows:
            for cell in row.cells:
                if cell.value is not None:
                    names |= names_read(cell.value, book)
    found = book.table_reads[name] = frozenset(names)
    return found


def with_starts(book: m.Book, names: Iterable[str]) -> tuple[str, ...]:
    """Inputs and stats, with what their values start from (`stat stamina = CON * 5` reads CON
    too: whatever reads stamina needs CON to resolve), in declaration order."""
    found = set(names)
    pending = list(found)
    while pending:
        var = book.vars.get(pending.pop())
        if var is not None and var.default_expr is not None:
            for more in names_read(var.default_expr, book) - found:
                found.add(more)
                pending.append(more)
    return tuple(v for v in book.vars if v in found)


def stats_read(expr: n.Expr, book: m.Book) -> set[str]:
    return {r.name for node in walk(expr) if (r := book.refs.get(node)) is not None and r.kind == "stat"}


def trace_names(book: m.Book, expr: n.Expr) -> list[str]:
    """The values a clause reads, by the names a trace shows them under (`base DEX` for a stat's
    value before its modifiers), in the order they are met."""
    found: dict[str, None] = {}
    for node in walk(expr):
        ref = book.refs.get(node)
        if ref is None or ref.kind in ("member", "special", "function", "table"):
            continue
        found[f"base {ref.name}" if ref.kind == "base" else ref.name] = None
    return list(found)


def input_places(book: m.Book, effect: m.Effect) -> dict[str, int]:
    """The inputs an effect reads, each with the clause of its guard that reads it first (the
    number of clauses for the values read once they all hold): what makes an input given to a
    situation have no effect, when no clause before it held."""
    amounts: list[n.Expr] = []
    if isinstance(effect, m.ModEffect):
        amounts = [x for x in (effect.value, effect.per) if x is not None]
    elif isinstance(effect, m.RollEffect):
        amounts = list(effect_exprs(dataclasses.replace(effect, guard=())))
    elif isinstance(effect, m.DeriveEffect):
        amounts = [effect.value]
    guard = effect.guard
    found: dict[str, int] = {}
    places = [(index, c.expr) for index, c in enumerate(guard)] + [(len(guard), x) for x in amounts]
    for index, expr in places:
        for node in walk(expr):
            ref = book.refs.get(node)
            if ref is not None and ref.kind == "input" and ref.name not in found:
                found[ref.name] = index
    return found
