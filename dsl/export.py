"""A checked rulebook as JSON data (`rulecraft export`): everything the compiler knows of it, so an
app in any language can use a rulebook without Python.

The export is the checked model (dsl/model/) written out field by field, not a second
description of it: a field added to the model appears here without a change to this file, and
nothing is summarised away.  Each object says what it is in `node` (the model's class name); an
expression keeps its tree (`Binary`, `Compare`, `NameRef` ... as in dsl/nodes.py) with its text as
the rulebook prints it, and each name it reads says what the name stands for (`ref`).  Numbers,
dice and special cells take the forms of the resolution's data contract (dsl/runtime/,
"JSON forms"); a roll of dice known when writing carries its exact distribution, and so does
every pool its changes can make.  Where the model holds pairs (a note and its quote, a column and
its label) the export writes objects with named fields, as `describe --json` does.  The JSON
Schema (`rulecraft schema rulebook`) is written from the same dataclasses (dsl/export_schema.py).
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from fractions import Fraction
from typing import Any

from dsl import model as m
from dsl import nodes as n
from dsl import printer
from dsl import types as t
from dsl.diagnostics import Span
from dsl.runtime.base import number_json, probability_json
from dsl.runtime.dice import Dice, distribution, pool_text, value_json

FORMAT = "rulecraft-rulebook/2"
"""The export's format; the number changes only when a consumer written for it would break.
2: pairs became objects (notes, columns, members, givens, derives, a tier's natural faces, a
sequence's until and then), a dice default is dice as the resolution writes them, a text in an
example is a string, and fields that say where something is written are left out."""

PAIRS: dict[tuple[type, str], tuple[str, str]] = {
    (m.Var, "members"): ("name", "phrase"),
    (m.Table, "columns"): ("name", "label"),
    (m.Part, "derives"): ("name", "type"),
    (m.Example, "givens"): ("name", "value"),
    (m.Tier, "natural"): ("low", "high"),
    (n.PoolDice, "ignoring"): ("low", "high"),
    (m.Sequence, "until"): ("roll", "outcome"),
    (m.Sequence, "then"): ("input", "value"),
}
"""Fields the model holds as pairs, with the names of the two fields of the object each becomes."""

NOTES: frozenset[tuple[type, str]] = frozenset({(m.RollEffect, "notes"), (m.Table, "notes"), (m.Order, "notes")})
"""Fields of (text, quote) pairs: each becomes a note as the rulebook's own notes are written."""

_HORIZON = 4
"""An exploding pool's totals are listed up to this many times its plain highest total."""


@functools.cache
def exported_fields(cls: type) -> tuple[tuple[str, Any], ...]:
    """The fields of a model class the export writes, with their types: all but those that say
    where in the file something was written (an editor's business, not an app's)."""
    hints = typing.get_type_hints(cls)
    return tuple(
        (spec.name, hints[spec.name])
        for spec in dataclasses.fields(cls)
        if spec.name != "given_at" and not _mentions_span(hints[spec.name])
    )


def is_pairs(hint: Any) -> bool:
    """Whether a field of PAIRS holds many pairs (`tuple[tuple[A, B], ...]`), not one."""
    return typing.get_origin(hint) is tuple and typing.get_args(hint)[-1] is Ellipsis


def _mentions_span(hint: Any) -> bool:
    return hint is Span or any(_mentions_span(arg) for arg in typing.get_args(hint))


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
            "notes": [note_json(text, quote) for text, quote in book.notes],
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
        "settle": list(book.settle),
    }


def note_json(text: str, quote: str | None) -> dict[str, Any]:
    return {"kind": m.note_kind(quote), "text": text, "quote": quote}


class _Writer:
    def __init__(self, book: m.Book) -> None:
        self.book = book

    def value(self, item: object, in_expr: bool = False) -> Any:
        if item is None or isinstance(item, (bool, str)):
            return item
        if isinstance(item, (int, Fraction)):
            return number_json(item)
        if isinstance(item, Dice):
            return value_json(item)
        if isinstance(item, (tuple, list)):
            return [self.value(x, in_expr) for x in item]
        if isinstance(item, dict):
            return {str(k): self.value(v, in_expr) for k, v in item.items()}
        if isinstance(item, n.Name):
            return item.text
        if isinstance(item, n.Text):
            return item.value
        if isinstance(item, n.Pool):
            return pool_json(item.count, item.sides, item.keep)
        if isinstance(item, n.Expr):
            return self.expr(item, in_expr)
        if dataclasses.is_dataclass(item) and not isinstance(item, type):
            return self.record(item, in_expr)
        raise TypeError(f"no JSON form for {type(item).__name__}")  # a model class this file does not know

    def record(self, item: Any, in_expr: bool = False) -> dict[str, Any]:
        cls: type = type(item)
        found: dict[str, Any] = {"node": cls.__name__}
        for name, hint in exported_fields(cls):
            value = getattr(item, name)
            if (cls, name) in NOTES:
                found[name] = [note_json(text, quote) for text, quote in value]
            elif (cls, name) in PAIRS and value is not None:
                names = PAIRS[cls, name]
                pairs = value if is_pairs(hint) else (value,)
                written = [{key: self.value(x, in_expr) for key, x in zip(names, pair, strict=True)} for pair in pairs]
                found[name] = written if is_pairs(hint) else written[0]
            else:
                found[name] = self.value(value, in_expr)
        if isinstance(item, m.Condition):
            found["text"] = printer.condition_text(item)
        elif isinstance(item, m.TableRow):
            found["key"] = item.key_text()
        elif isinstance(item, t.Type):
            found["text"] = item.describe()
        elif isinstance(item, m.RollEffect):
            self.roll_pools(item, found)
        return found

    def roll_pools(self, roll: m.RollEffect, found: dict[str, Any]) -> None:
        """A dice change's pool (the roll's pool with that change alone), and `pools`: every pool
        the roll can be made with, its changes holding in any combination (dice changes add up,
        and apply to the pool a pool change gives)."""
        if roll.pool is None:
            found["pools"] = []
            return
        base = roll.pool
        for change, written in zip(roll.changes, found["changes"], strict=True):
            if change.kind == "dice":
                written["pool"] = pool_json(max(base.count + change.delta, 1), base.sides, base.keep)
        starts = [(base.count, base.sides, base.keep)]
        starts += [(c.pool.count, c.pool.sides, c.pool.keep) for c in roll.changes if c.pool is not None]
        deltas = {0}
        for change in roll.changes:
            if change.kind == "dice":
                deltas |= {d + change.delta for d in deltas}
        pools = sorted(
            {(max(count + d, 1), sides, keep) for count, sides, keep in starts for d in deltas},
            key=lambda pool: (pool[1], pool[2] or "", pool[0]),
        )
        found["pools"] = [pool_json(*pool) for pool in pools]

    def expr(self, expr: n.Expr, in_expr: bool) -> dict[str, Any]:
        """An expression's tree; its root also has its text, and each name what it stands for."""
        found = self.record(expr, in_expr=True)
        ref = self.book.refs.get(expr)
        if ref is not None:
            found["ref"] = ref.kind
        if not in_expr:
            found["text"] = printer.expr_text(expr)
        return found


def pool_json(count: int, sides: int, keep: str | None) -> dict[str, Any]:
    """Dice known when writing, with the exact chance of each total."""
    horizon = None
    if keep == "exploding":
        horizon = count * sides * _HORIZON
    dist = distribution(count, sides, keep, horizon)
    return {
        "node": "Pool",
        "count": number_json(count),
        "sides": number_json(sides),
        "keep": keep,
        "dice": pool_text((count, sides, keep)),
        "min": number_json(dist.low),
        "max": None if dist.limit is not None else number_json(dist.high),
        "listed_up_to": None if dist.limit is None else number_json(dist.limit),
        "distribution": [
            {"total": number_json(k), "probability": probability_json(p)} for k, p in dist.chances().items()
        ],
    }
