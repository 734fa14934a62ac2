"""A checked rulebook as JSON data (`rulecraft export`): everything the compiler knows of it, so an
app in any language can use a rulebook without Python.

The export is the checked model (dsl/model/) written out field by field, not a second
description of it: a field added to the model appears here without a change to this file, and
nothing is summarised away.  Each object says what it is in `node` (the model's class name); an
expression keeps its tree (`Binary`, `Compare`, `NameRef` ... as in dsl/nodes.py) with its text as
the rulebook prints it, and each name it reads says what the name stands for (`ref`).  Numbers,
dice and special cells take the forms of the resolution's data contract (dsl/runtime/,
"JSON forms"); a roll of dice known when writing carries its exact distribution.  The JSON Schema
is `rulecraft schema rulebook`.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

from dsl import model as m
from dsl import nodes as n
from dsl import printer
from dsl import types as t
from dsl.diagnostics import Span
from dsl.model.order import settle_order
from dsl.runtime.base import number_json, probability_json
from dsl.runtime.dice import distribution, pool_text

FORMAT = "rulecraft-rulebook/1"
"""The export's format; the number changes only when a consumer written for it would break."""

_SKIPPED = frozenset({"span", "given_at"})
"""Fields that say where in the file something was written: an editor's business, not an app's."""

_HORIZON = 4
"""An exploding pool's totals are listed up to this many times its plain highest total."""


def export_book(book: m.Book) -> dict[str, Any]:
    """The whole checked rulebook as JSON data."""
    writer = _Writer(book)
    return {
        "format": FORMAT,
        "rulebook": {
            "name": book.name,
            "title": book.title,
            "source": book.source,
            "version": book.version,
            "notes": [_note(text, quote) for text, quote in book.notes],
        },
        "units": dict(book.units),
        "inputs": [writer.value(var) for var in book.vars.values()],
        "groups": [writer.value(group) for group in book.groups.values()],
        "grades": [writer.value(grade) for grade in book.grades],
        "tiers": [writer.value(tiers) for tiers in book.tiers.values()],
        "resistance": writer.value(book.resistance),
        "rules": [writer.value(rule) for rule in book.rules.values()],
        "parts": [writer.value(part) for part in book.parts.values()],
        "tables": [writer.value(table) for table in book.tables.values()],
        "examples": [writer.value(example) for example in book.examples],
        "orders": [writer.value(order) for order in book.orders],
        "stat_orders": {stat: writer.value(order) for stat, order in book.stat_orders.items()},
        "settle": list(settle_order(book)),
    }


def _note(text: str, quote: str | None) -> dict[str, Any]:
    return {"kind": "erratum" if quote is not None else "note", "text": text, "quote": quote}


class _Writer:
    def __init__(self, book: m.Book) -> None:
        self.book = book

    def value(self, item: object, in_expr: bool = False) -> Any:
        if item is None or isinstance(item, (bool, str)):
            return item
        if isinstance(item, (int, Fraction)):
            return number_json(item)
        if isinstance(item, (tuple, list)):
            return [self.value(x, in_expr) for x in item]
        if isinstance(item, dict):
            return {str(k): self.value(v, in_expr) for k, v in item.items()}
        if isinstance(item, n.Name):
            return item.text
        if isinstance(item, n.Pool):
            return self.pool(item)
        if isinstance(item, n.Expr):
            return self.expr(item, in_expr)
        if dataclasses.is_dataclass(item) and not isinstance(item, type):
            return self.record(item, in_expr)
        raise TypeError(f"no JSON form for {type(item).__name__}")  # a model class this file does not know

    def record(self, item: Any, in_expr: bool = False) -> dict[str, Any]:
        found: dict[str, Any] = {"node": type(item).__name__}
        for spec in dataclasses.fields(item):
            if spec.name in _SKIPPED or isinstance(getattr(item, spec.name), Span):
                continue
            found[spec.name] = self.value(getattr(item, spec.name), in_expr)
        if isinstance(item, m.Condition):
            found["text"] = printer.condition_text(item)
        elif isinstance(item, m.TableRow):
            found["key"] = item.key_text()
        elif isinstance(item, t.Type):
            found["text"] = item.describe()
        return found

    def expr(self, expr: n.Expr, in_expr: bool) -> dict[str, Any]:
        """An expression's tree; its root also has its text, and each name what it stands for."""
        found = self.record(expr, in_expr=True)
        ref = self.book.refs.get(expr)
        if ref is not None:
            found["ref"] = ref.kind
        if not in_expr:
            found["text"] = printer.expr_text(expr)
        return found

    def pool(self, pool: n.Pool) -> dict[str, Any]:
        """Dice known when writing, with the exact chance of each total."""
        horizon = None
        if pool.keep == "exploding":
            horizon = pool.count * pool.sides * _HORIZON
        dist = distribution(pool.count, pool.sides, pool.keep, horizon)
        return {
            "node": "Pool",
            "count": pool.count,
            "sides": pool.sides,
            "keep": pool.keep,
            "dice": pool_text((pool.count, pool.sides, pool.keep)),
            "min": dist.low,
            "max": None if dist.limit is not None else dist.high,
            "listed_up_to": dist.limit,
            "distribution": [{"total": k, "probability": probability_json(p)} for k, p in dist.chances().items()],
        }
