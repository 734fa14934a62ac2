"""What a condition allows, as sets of input values: enough to prove a condition can never hold.

A condition is put in disjunctive normal form over atoms that constrain one input each
(`moved > 3`, `weapon in {thrown, missile}`, `prone`).  Atoms the domain cannot read (comparisons
between two inputs, effective stats, derived values) constrain nothing, which keeps every
conclusion sound: "never holds" is only reported when no values at all satisfy the condition.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.semantics import constant_value

_MAX_CLAUSES = 512


@dataclass(frozen=True, slots=True)
class Interval:
    low: Fraction | None
    high: Fraction | None


Allowed = Interval | frozenset[str] | frozenset[bool]
"""The values of one input a condition allows."""


@dataclass(frozen=True, slots=True)
class Atom:
    var: str
    allowed: Allowed


Clause = tuple[Atom, ...]
DNF = list[Clause]

TRUE: DNF = [()]
FALSE: DNF = []


def dnf(expr: n.Expr, book: m.Book, negated: bool = False) -> DNF:
    """The condition (or its negation) as a list of clauses; an empty list never holds."""
    if isinstance(expr, n.Not):
        return dnf(expr.operand, book, not negated)
    if isinstance(expr, n.BoolOp):
        op = expr.op
        if negated:
            op = "or" if op == "and" else "and"
        left = dnf(expr.left, book, negated)
        right = dnf(expr.right, book, negated)
        if op == "or":
            return left + right
        return conjoin(left, right)
    if isinstance(expr, n.Boolean):
        return TRUE if expr.value != negated else FALSE
    atom = _atoms(expr, book, negated)
    return atom if atom is not None else TRUE


def conjoin(left: DNF, right: DNF) -> DNF:
    if len(left) * len(right) > _MAX_CLAUSES:
        return TRUE
    return [a + b for a in left for b in right]


def satisfiable(clauses: DNF, book: m.Book) -> bool:
    return any(_consistent(clause, book) for clause in clauses)


def _consistent(clause: Clause, book: m.Book) -> bool:
    return allowed(clause, book) is not None


def allowed(clause: Clause, book: m.Book) -> dict[str, Allowed] | None:
    """The values a clause leaves each input it constrains (an Interval, or a set of members or of
    yes/no), or None when it leaves one of them none: where a check looks for a witness."""
    merged: dict[str, Allowed] = {}
    for atom in clause:
        var = book.vars[atom.var]
        current = merged.get(atom.var, _domain(var.type))
        merged[atom.var] = _intersect(current, atom.allowed, var.type)
    if any(_empty(value) for value in merged.values()):
        return None
    return merged


def _domain(type_: t.Type) -> Allowed:
    if isinstance(type_, t.Numeric):
        return Interval(type_.low, type_.high)
    if isinstance(type_, t.Enum):
        return frozenset(type_.members)
    return frozenset({True, False})


def _intersect(a: Allowed, b: Allowed, type_: t.Type) -> Allowed:
    if isinstance(a, Interval) and isinstance(b, Interval):
        low = _max(a.low, b.low)
        high = _min(a.high, b.high)
        if isinstance(type_, t.Numeric) and type_.integral:
            low = None if low is None else Fraction(math.ceil(low))
            high = None if high is None else Fraction(math.floor(high))
        return Interval(low, high)
    assert isinstance(a, frozenset) and isinstance(b, frozenset)
    return a & b


def _empty(value: Allowed) -> bool:
    if isinstance(value, Interval):
        return value.low is not None and value.high is not None and value.low > value.high
    assert isinstance(value, frozenset)
    return not value


def _max(a: Fraction | None, b: Fraction | None) -> Fraction | None:
    return b if a is None else a if b is None else max(a, b)


def _min(a: Fraction | None, b: Fraction | None) -> Fraction | None:
    return b if a is None else a if b is None else min(a, b)


_FLIP = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_EPSILON = Fraction(1, 10**9)


def _input(expr: n.Expr, book: m.Book) -> str | None:
    """The input an expression reads directly (an input, or a stat's base value), or None."""
    if isinstance(expr, (n.NameRef, n.BaseRef)):
        ref = book.refs.get(expr)
        if ref is not None and ref.kind in ("input", "base"):
            return ref.name
    return None


def _atoms(expr: n.Expr, book: m.Book, negated: bool) -> DNF | None:
    if isinstance(expr, (n.NameRef, n.BaseRef)):
        name = _input(expr, book)
        if name is not None and isinstance(book.vars[name].type, t.Flag):
            return [(Atom(name, frozenset({not negated})),)]
        return None
    if isinstance(expr, n.Member):
        name = _input(expr.operand, book)
        if name is None:
            return None
        var_type = book.vars[name].type
        assert isinstance(var_type, t.Enum)
        chosen = frozenset(x.text for x in expr.members)
        if expr.negated != negated:
            chosen = frozenset(var_type.members) - chosen
        return [(Atom(name, chosen),)]
    if isinstance(expr, n.Compare):
        op = _FLIP[expr.op] if negated else expr.op
        name = _input(expr.left, book)
        other = expr.right
        if name is None:
            name = _input(expr.right, book)
            other = expr.left
            op = _MIRROR[op]
        if name is None:
            return None
        value = constant_value(other, book)
        if value is None:
            return None
        var_type = book.vars[name].type
        if isinstance(var_type, t.Enum):
            return _enum_atoms(name, var_type, op, str(value))
        if isinstance(var_type, t.Flag):
            wanted = bool(value) if op == "==" else not bool(value)
            return [(Atom(name, frozenset({wanted})),)]
        if isinstance(var_type, t.Numeric) and isinstance(value, (int, Fraction)):
            return _numeric_atoms(name, op, Fraction(value))
    return None


def _numeric_atoms(name: str, op: str, value: Fraction) -> DNF:
    if op == "==":
        return [(Atom(name, Interval(value, value)),)]
    if op == "!=":
        return [(Atom(name, Interval(None, value - _EPSILON)),), (Atom(name, Interval(value + _EPSILON, None)),)]
    if op == "<":
        return [(Atom(name, Interval(None, value - _EPSILON)),)]
    if op == "<=":
        return [(Atom(name, Interval(None, value)),)]
    if op == ">":
        return [(Atom(name, Interval(value + _EPSILON, None)),)]
    return [(Atom(name, Interval(value, None)),)]


def _enum_atoms(name: str, var_type: t.Enum, op: str, value: str) -> DNF:
    members = var_type.members
    if value not in members:
        return TRUE
    index = members.index(value)
    chosen = {
        "==": {value},
        "!=": set(members) - {value},
        "<": set(members[:index]),
        "<=": set(members[: index + 1]),
        ">": set(members[index + 1 :]),
        ">=": set(members[index:]),
    }[op]
    return [(Atom(name, frozenset(chosen)),)]


def readable(expr: n.Expr, book: m.Book) -> bool:
    """Whether the domain understands any part of the condition (so a verdict means something)."""
    clauses = dnf(expr, book)
    return any(clause for clause in clauses) or clauses == FALSE
