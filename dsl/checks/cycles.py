"""E601: stats and derived values that depend on themselves.

A modifier of MOV whose condition reads DEX makes MOV depend on DEX; if a modifier of DEX reads
MOV, neither can settle.  The resolver settles stats lazily, so the only thing that can go wrong
is a cycle, and this check rules cycles out.
"""

from __future__ import annotations

from dsl import model as m
from dsl.analysis import effect_exprs, walk
from dsl.diagnostics import Reporter, Span


def check_cycles(book: m.Book, reporter: Reporter) -> None:
    edges: dict[str, dict[str, Span]] = {}
    for part in book.parts.values():
        for effect in part.effects:
            if isinstance(effect, m.ModEffect):
                node = effect.target
                exprs = [c.expr for c in effect.guard] + [x for x in (effect.value, effect.per) if x is not None]
            elif isinstance(effect, m.DeriveEffect):
                node = effect.name
                exprs = list(effect_exprs(effect))
            else:
                continue
            for expr in exprs:
                for name in _reads(expr, book, set()):
                    edges.setdefault(node, {}).setdefault(name, effect.span)
    for var in book.vars.values():
        if var.default_expr is not None:
            for name in _reads(var.default_expr, book, set()):
                edges.setdefault(var.name, {}).setdefault(name, var.default_expr.span)
    reported: set[frozenset[str]] = set()
    for start in sorted(edges):
        path = _find_cycle(start, edges)
        if path is None:
            continue
        members = frozenset(path)
        if members in reported:
            continue
        reported.add(members)
        span = edges[path[-2]][path[-1]] if len(path) > 1 else edges[start][start]
        reporter.report(
            "E601",
            "circular dependency: " + " -> ".join(path),
            span,
            "a stat's modifiers cannot read a value that itself depends on the stat; use `base NAME`",
        )


def _reads(expr: object, book: m.Book, seen: set[str]) -> set[str]:
    found: set[str] = set()
    for node in walk(expr):  # type: ignore[arg-type]
        ref = book.refs.get(id(node))
        if ref is None:
            continue
        if ref.kind in ("stat", "derive"):
            found.add(ref.name)
        elif ref.kind == "table" and ref.name not in seen:
            seen.add(ref.name)
            table = book.tables.get(ref.name)
            for row in table.rows if table else ():
                for cell in row.cells:
                    if cell.value is not None:
                        found |= _reads(cell.value, book, seen)
    return found


def _find_cycle(start: str, edges: dict[str, dict[str, Span]]) -> list[str] | None:
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    visited: set[str] = set()
    while stack:
        node, path = stack.pop()
        for nxt in sorted(edges.get(node, {})):
            if nxt == start:
                return [*path, start]
            if nxt not in visited:
                visited.add(nxt)
                stack.append((nxt, [*path, nxt]))
    return None
