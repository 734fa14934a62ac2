"""Whether one condition implies another, decided exactly, for what a card says of it.

A check's card keys its chances by the stat on the player's sheet and folds in the card's own
modifiers of that stat that hold whenever the roll is made: `DEX -2` under `moved > 0` holds
whenever a roll made under `moved > MOV / 2` does.  The question is answered by the reference
evaluator (dsl/semantics), over every situation of the values the two conditions read: each
input or stat takes every value its type allows (a flag yes and no, a choice each member, a
whole number each value of its range).  When the situations are too many to go through
(`MOST_SITUATIONS`), or a condition reads what has no finite set of values (a number that is
not whole, a stat without a range, a derived value, a table), the card says nothing: the
modifier is not folded in, and the chance table shows the stat as it is.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.model.exprs import walk
from dsl.runtime import Value
from dsl.semantics.values import Constants, NotConstant, NoValue, evaluate

MOST_SITUATIONS = 20_000
"""The most situations gone through to decide one implication (each evaluates a condition or
two): a hex count of 0..60 against a MOV of 0..30 and a choice of five weapons is 9,455."""

_FREE = ("input", "stat", "base")
"""What a situation gives a value to: an input, a stat (its value after modifiers, free within
its range, as a situation may give it any), and a stat's `base`."""


def implies(book: m.Book, guard: Sequence[m.Condition], by: Sequence[m.Condition]) -> bool:
    """Whether `guard` holds in every situation in which `by` holds, and `by` holds in one at
    least; False when that cannot be decided exactly (see the module's docstring).

    The values only `by` reads and those only `guard` reads are independent: the implication
    holds when, for every value of what both read, either no value of `by`'s own makes `by`
    hold or every value of `guard`'s own makes `guard` hold.  So a roll's condition on the
    hexes moved and MOV against a modifier's on the hexes moved and the weapon goes through
    61 x (31 + 5) situations, not 61 x 31 x 5."""
    read_by, read_guard = _read(book, by), _read(book, guard)
    if read_by is None or read_guard is None:
        return False
    both = tuple(name for name in read_by if name in read_guard)
    own_by = tuple(name for name in read_by if name not in both)
    own_guard = tuple(name for name in read_guard if name not in both)
    values: dict[str, tuple[Value, ...]] = {}
    for name in (*both, *own_by, *own_guard):
        found = _domain(book, name)
        if found is None:
            return False
        values[name] = found

    def size(names: tuple[str, ...]) -> int:
        return math.prod(len(values[name]) for name in names)

    def situations(names: tuple[str, ...]) -> itertools.product[tuple[Value, ...]]:
        return itertools.product(*(values[name] for name in names))

    if size(both) * (size(own_by) + size(own_guard)) > MOST_SITUATIONS:
        return False
    met = False
    try:
        for common in situations(both):
            known = dict(zip(both, common, strict=True))
            if not any(_all(by, book, {**known, **dict(zip(own_by, v, strict=True))}) for v in situations(own_by)):
                continue
            met = True
            if not all(_all(guard, book, {**known, **dict(zip(own_guard, v, strict=True))}) for v in situations(own_guard)):
                return False
    except (NotConstant, NoValue, ArithmeticError, TypeError, ValueError):
        return False  # a value the situations do not give, or none in some situation
    return met


def _domain(book: m.Book, name: str) -> tuple[Value, ...] | None:
    var = book.vars.get(name)
    return _values(var.type) if var is not None else None


def _all(conditions: Sequence[m.Condition], book: m.Book, values: dict[str, Value]) -> bool:
    """Whether every condition holds in the situation of `values`."""
    situation = _Situation(values)
    return all(bool(evaluate(c.expr, book, situation)) != c.negated for c in conditions)


def _read(book: m.Book, conditions: Sequence[m.Condition]) -> tuple[str, ...] | None:
    """The names of the inputs and stats the conditions read, in a fixed order; None when one
    reads anything else by name (a derived value, a special name)."""
    names: set[str] = set()
    for condition in conditions:
        for node in walk(condition.expr):
            if not isinstance(node, (n.NameRef, n.BaseRef)):
                continue
            ref = book.refs.get(node)
            if ref is None:
                return None
            if ref.kind in _FREE:
                names.add(ref.name)
            elif ref.kind != "member":
                return None
    return tuple(sorted(names))


def _values(kind: t.Type) -> tuple[Value, ...] | None:
    """Every value of a type, or None when there are not finitely many (or not whole numbers)."""
    if isinstance(kind, t.Flag):
        return (False, True)
    if isinstance(kind, t.Enum):
        return tuple(kind.members)
    if isinstance(kind, t.Numeric) and kind.kind != "number" and kind.low is not None and kind.high is not None:
        if kind.high - kind.low > MOST_SITUATIONS:
            return None
        return tuple(range(math.ceil(kind.low), math.floor(kind.high) + 1))
    return None


class _Situation(Constants):
    """The values of one situation; anything else has none (a table, a derived value)."""

    def __init__(self, values: dict[str, Value]) -> None:
        self.values = values

    def value(self, ref: m.Ref) -> Value:
        if ref.kind in _FREE and ref.name in self.values:
            return self.values[ref.name]
        raise NotConstant(ref.name)
