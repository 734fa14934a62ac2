"""The meaning of expressions (placeholder header, replaced below)."""

from __future__ import annotations

from fractions import Fraction

from dsl import model as m
from dsl import nodes as n
from dsl import types as t

MAX_EXPONENT = 1000
"""The largest exponent worked out when compiling (`10 ^ 10 ^ 10` would never finish)."""


def constant_value(expr: n.Expr, book: m.Book) -> m.Constant | None:
    """The value of an expression made only of literals, or None."""
    if isinstance(expr, n.Number):
        return int(expr.value) if expr.value.denominator == 1 else expr.value
    if isinstance(expr, n.Boolean):
        return expr.value
    if isinstance(expr, n.TextLiteral):
        return expr.value
    if isinstance(expr, n.DiceLiteral):
        return m.DiceConst(((expr.count, expr.sides),))
    if isinstance(expr, n.NameRef):
        ref = book.refs.get(id(expr))
        return expr.name if ref is not None and ref.kind == "member" else None
    if isinstance(expr, n.Negate):
        inner = constant_value(expr.operand, book)
        return -inner if isinstance(inner, (int, Fraction)) and not isinstance(inner, bool) else None
    if isinstance(expr, n.Binary):
        left = constant_value(expr.left, book)
        right = constant_value(expr.right, book)
        if isinstance(left, m.DiceConst) or isinstance(right, m.DiceConst):
            return _dice_sum(left, right, expr.op)
        if not is_number(left) or not is_number(right):
            return None
        a, b = Fraction(left), Fraction(right)  # type: ignore[arg-type]
        if expr.op == "+":
            value = a + b
        elif expr.op == "-":
            value = a - b
        elif expr.op == "*":
            value = a * b
        elif expr.op == "/":
            if b == 0:
                return None
            value = a / b
        else:
            if b.denominator != 1 or abs(b) > MAX_EXPONENT:
                return None
            value = a ** int(b)
        return int(value) if value.denominator == 1 else value
    if isinstance(expr, n.Rounded):
        inner = constant_value(expr.operand, book)
        return t.round_value(Fraction(inner), expr.mode) if is_number(inner) else None  # type: ignore[arg-type]
    return None


def is_number(value: object) -> bool:
    return isinstance(value, (int, Fraction)) and not isinstance(value, bool)


def _dice_sum(left: object, right: object, op: str) -> m.DiceConst | None:
    if op != "+" and not (op == "-" and is_number(right)):
        return None
    terms: list[tuple[int, int]] = []
    bonus = 0
    for side, sign in ((left, 1), (right, 1 if op == "+" else -1)):
        if isinstance(side, m.DiceConst):
            terms.extend(side.terms)
            bonus += side.bonus
        elif isinstance(side, int) and not isinstance(side, bool):
            bonus += sign * side
        else:
            return None
    return m.DiceConst(tuple(terms), bonus)
