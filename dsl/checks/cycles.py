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
    circling = _on_a_circle(edges)  # only these can start one: the search stays linear when none do
    for start in sorted(circling, key=lambda node: (node.startswith("as "), node)):  # values first
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


def _on_a_circle(edges: dict[str, dict[str, Span]]) -> set[str]:
    """The nodes on some circle: those of a strongly connected component of two or more nodes,
    or with an edge to themselves (Kosaraju's two passes, without recursion: chains of values
    can be thousands long)."""
    nodes = set(edges) | {target for targets in edges.values() for target in targets}
    finished: list[str] = []
    seen: set[str] = set()
    for root in sorted(nodes):
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(sorted(edges.get(root, {}))))]
        while stack:
            node, following = stack[-1]
            step = next(following, None)
            if step is None:
                stack.pop()
                finished.append(node)
            elif step not in seen:
                seen.add(step)
                stack.append((step, iter(sorted(edges.get(step, {})))))
    backwards: dict[str, list[str]] = {}
    for source, targets in edges.items():
        for target in targets:
            backwards.setdefault(target, []).append(source)
    circling: set[str] = set()
    placed: set[str] = set()
    for root in reversed(finished):
        if root in placed:
            continue
        placed.add(root)
        component, pending = [root], [root]
        while pending:
            for source in backwards.get(pending.pop(), []):
                if source not in placed:
                    placed.add(source)
                    component.append(source)
                    pending.append(source)
        if len(component) > 1 or root in edges.get(root, {}):
            circling.update(component)
    return circling
