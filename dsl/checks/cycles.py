"""E601: stats and derived values that depend on themselves.

A modifier of MOV whose condition reads DEX makes MOV depend on DEX; if a modifier of DEX reads
MOV, neither can settle.  The dependencies are those of dsl/model/order.py, whose order the
resolver settles values in; this check rules circles out.
"""

from __future__ import annotations

from dsl import model as m
from dsl.diagnostics import Reporter, Span
from dsl.model.order import dependencies


def check_cycles(book: m.Book, reporter: Reporter) -> None:
    edges = dependencies(book)
    reported: set[frozenset[str]] = set()
    for start in sorted(edges, key=lambda node: (node.startswith("as "), node)):  # values first
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
            "circular dependency: " + " -> ".join(_label(node) for node in path),
            span,
            "the conditions of an `as` cannot read a value the rule it brings in changes; use `base NAME`"
            if any(node.startswith("as ") for node in path)
            else "a stat's modifiers cannot read a value that itself depends on the stat; use `base NAME`",
        )


def _label(node: str) -> str:
    """`MOV`, `pace` (a derived value), `base to_hit` (where a value starts from a formula), `as
    storm` (the conditions under which a composed rule applies)."""
    kind, _, name = node.partition(" ")
    return node if kind in ("base", "as") else name


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
