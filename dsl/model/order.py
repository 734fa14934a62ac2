"""What depends on what: the order in which a situation's values can be worked out.

Nodes are the values a resolver settles: `stat X` (a stat's effective value), `base X` (the value
of an input or stat that starts from a formula, `stat to_hit = DEX`) and `derive X`.  An effective
stat depends on its base and on what its modifiers read (conditions and amounts); a base on what
its formula reads; a derived value on what its conditions and formula read.  The checker reports a
circle (E601); the resolver settles values in `settle_order`, each after what it reads, so no chain
of values, however long, recurses.
"""

from __future__ import annotations

from dsl import model as m
from dsl import nodes as n
from dsl.diagnostics import Span
from dsl.model.exprs import effect_exprs, walk

Node = str
"""`stat NAME`, `base NAME` or `derive NAME`; and `as PART`, the conditions under which a composed
part applies (what the part sets reads them)."""


def dependencies(book: m.Book) -> dict[Node, dict[Node, Span]]:
    """Each node with the nodes it reads, and where (the first place it reads each)."""
    edges: dict[Node, dict[Node, Span]] = {}
    reads = _Reads(book)
    for var in book.vars.values():
        if var.is_stat:
            edges.setdefault(f"stat {var.name}", {})
        if var.default_expr is not None:
            found = edges.setdefault(f"base {var.name}", {})
            for name in reads.of(var.default_expr):
                found.setdefault(name, var.default_expr.span)
            if var.is_stat:
                edges[f"stat {var.name}"].setdefault(f"base {var.name}", var.span)
    for part in book.parts.values():
        gate = f"as {part.key}"
        for effect in part.effects:
            if isinstance(effect, m.ModEffect):
                node = f"stat {effect.target}"
                exprs = [c.expr for c in effect.guard] + [x for x in (effect.value, effect.per) if x is not None]
            elif isinstance(effect, m.DeriveEffect):
                node = f"derive {effect.name}"
                exprs = list(effect_exprs(effect))
            elif isinstance(effect, m.PartEffect):
                # the `as` guard gates what the part composed sets: those values read it too
                node = f"as {effect.part}"
                exprs = [c.expr for c in effect.guard]
                edges.setdefault(node, {}).setdefault(gate, effect.span)
            else:
                continue
            found = edges.setdefault(node, {})  # every node, even one that reads no other
            if node != gate and not node.startswith("as "):
                found.setdefault(gate, effect.span)
            for expr in exprs:
                for name in reads.of(expr):
                    found.setdefault(name, effect.span)
    return edges


def settle_order(book: m.Book) -> tuple[Node, ...]:
    """Every node after the nodes it reads (the checker has ruled circles out; a node met again
    while being visited is skipped)."""
    edges = dependencies(book)
    order: list[Node] = []
    done: set[Node] = set()
    for start in edges:
        stack: list[tuple[Node, bool]] = [(start, False)]
        entered: set[Node] = set()
        while stack:
            node, children_done = stack.pop()
            if node in done:
                continue
            if children_done:
                done.add(node)
                order.append(node)
                continue
            if node in entered:
                continue
            entered.add(node)
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(list(edges.get(node, {}))) if child not in done)
    return tuple(order)


class _Reads:
    """The nodes an expression reads: stats (effective), derived values, the bases of values that
    start from a formula, through table lookups into the cells they may read."""

    def __init__(self, book: m.Book) -> None:
        self.book = book
        self.tables: dict[str, dict[Node, None]] = {}

    def of(self, expr: n.Expr) -> dict[Node, None]:
        """In the order they are read (an ordered set: the resolver's order must not depend on
        the hashing of strings)."""
        found: dict[Node, None] = {}
        for node in walk(expr):
            ref = self.book.refs.get(node)
            if ref is None:
                continue
            if ref.kind in ("stat", "derive"):
                found[f"{ref.kind} {ref.name}"] = None
            elif ref.kind in ("input", "base") and self.book.vars[ref.name].default_expr is not None:
                found[f"base {ref.name}"] = None
            elif ref.kind == "table":
                found.update(self._table(ref.name))
        return found

    def _table(self, name: str) -> dict[Node, None]:
        if name not in self.tables:
            self.tables[name] = {}  # a table whose cells look itself up adds nothing more
            table = self.book.tables.get(name)
            found: dict[Node, None] = {}
            for row in table.rows if table else ():
                for cell in row.cells:
                    if cell.value is not None:
                        found.update(self.of(cell.value))
            self.tables[name] = found
        return self.tables[name]
