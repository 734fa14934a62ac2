"""E301: a division whose divisor can be zero, or zero raised to a negative power.

A resolver must never fail on a situation within the declared ranges, so every division is proven
safe where it stands: the values its divisor can take leave zero out, or the conditions around it
do (`when moved > 0: derive pace = 10 / moved`, `moved > 0 and 10 / moved > 2`, a table row keyed
`1..5`).  The divisor's values come from the ranges of the inputs it reads, which a resolver
enforces; an effective stat, a derived value or a table cell may leave any declared range, so it is
taken as unbounded unless the expression bounds it (`max(MOV, 1)`).  What cannot be proven safe
is reported, with the ways to make it so.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.checks.domain import DNF, TRUE, Atom, Interval, conjoin, dnf, satisfiable
from dsl.diagnostics import Reporter
from dsl.printer import expr_text

Bounds = tuple[Fraction | None, Fraction | None]
_ANY: Bounds = (None, None)


def check_division(book: m.Book, reporter: Reporter) -> None:
    for expr, context in _expressions(book):
        _visit(expr, context, book, reporter)
    for part in book.parts.values():
        for effect in part.effects:
            if isinstance(effect, m.ModEffect) and effect.op == "div" and effect.value is not None:
                context = TRUE
                for condition in effect.guard:
                    context = conjoin(context, dnf(condition.expr, book, condition.negated))
                _divisor(effect.value, context, book, reporter)
    for grade in book.grades:
        if grade.op == "div" and grade.value == 0:
            reporter.report(
                "E301", f"grade `{grade.name}` divides by zero", grade.span, "divide by a number other than 0"
            )


def _expressions(book: m.Book) -> Iterator[tuple[n.Expr, DNF]]:
    """Every expression of the book, with the conditions under which it is evaluated."""
    for part in book.parts.values():
        for effect in part.effects:
            context = TRUE
            for condition in effect.guard:
                yield condition.expr, context
                context = conjoin(context, dnf(condition.expr, book, condition.negated))
            if isinstance(effect, m.ModEffect):
                yield from ((x, context) for x in (effect.value, effect.per) if x is not None)
            elif isinstance(effect, m.DeriveEffect):
                yield effect.value, context
            elif isinstance(effect, m.RollEffect):
                values = (effect.target, effect.dice, effect.needed, effect.active, effect.passive, effect.bonus)
                for value in (*values, effect.against_bonus, effect.against_dice, *effect.adds):
                    if value is not None:
                        yield value, context
                for outcome in effect.outcomes:
                    for consequence in outcome.changes:
                        yield from ((x, context) for x in (consequence.value, consequence.per) if x is not None)
                for change in effect.changes:
                    inner = context
                    for condition in change.guard:
                        yield condition.expr, inner
                        inner = conjoin(inner, dnf(condition.expr, book, condition.negated))
                    if change.value is not None:
                        yield change.value, inner
    for var in book.vars.values():
        if var.default_expr is not None:
            yield var.default_expr, TRUE
    for table in book.tables.values():
        key = table.inputs[0] if len(table.inputs) == 1 else None
        for row in table.rows:
            context = _row_context(key, row)
            for cell in row.cells:
                if cell.value is not None:
                    yield cell.value, context
    for system in book.tiers.values():
        for tier in system.tiers:
            if tier.bound is not None:
                yield tier.bound, TRUE
    if book.resistance is not None:
        yield book.resistance.target, TRUE


def _row_context(key: str | None, row: m.TableRow) -> DNF:
    """A cell is read only for the keys of its row."""
    if key is None or row.is_else:
        return TRUE
    if row.member is not None:
        return [(Atom(key, frozenset({row.member})),)]
    low = None if row.low is None else Fraction(row.low)
    high = None if row.high is None else Fraction(row.high)
    return [(Atom(key, Interval(low, high)),)]


def _visit(expr: n.Expr, context: DNF, book: m.Book, reporter: Reporter) -> None:
    """Check the divisions of an expression; `and` / `or` evaluate their right side only when the
    left allows it, so the left side is part of the right side's context."""
    if isinstance(expr, n.BoolOp):
        _visit(expr.left, context, book, reporter)
        left_holds = expr.op == "and"
        _visit(expr.right, conjoin(context, dnf(expr.left, book, not left_holds)), book, reporter)
        return
    if isinstance(expr, n.Binary) and expr.op in ("/", "^"):
        _division(expr, context, book, reporter)
    for child in _children(expr):
        _visit(child, context, book, reporter)


def _children(expr: n.Expr) -> Iterator[n.Expr]:
    for name in expr.__dataclass_fields__:
        if name == "span":
            continue
        value = getattr(expr, name)
        if isinstance(value, n.Expr):
            yield value
        elif isinstance(value, tuple):
            yield from (item for item in value if isinstance(item, n.Expr))


def _division(expr: n.Binary, context: DNF, book: m.Book, reporter: Reporter) -> None:
    if expr.op == "^":
        base_low, base_high = bounds(expr.left, book)
        exponent_low, _ = bounds(expr.right, book)
        negative = exponent_low is None or exponent_low < 0
        if not (negative and _may_be_zero(expr.left, (base_low, base_high), context, book)):
            return
        divisor = expr.left
        what = f"`{expr_text(divisor)}` can be 0 where it is raised to a negative power"
        reporter.report("E301", what, divisor.span, _hint(divisor, book))
    else:
        _divisor(expr.right, context, book, reporter)


def _divisor(divisor: n.Expr, context: DNF, book: m.Book, reporter: Reporter) -> None:
    if not _may_be_zero(divisor, bounds(divisor, book), context, book):
        return
    what = f"`{expr_text(divisor)}` can be 0 here: the division would have no value"
    if _constant_zero(divisor, book):
        what = "division by zero"
    reporter.report("E301", what, divisor.span, _hint(divisor, book))


def _may_be_zero(divisor: n.Expr, found: Bounds, context: DNF, book: m.Book) -> bool:
    low, high = found
    if (low is not None and low > 0) or (high is not None and high < 0):
        return False
    name = _input(divisor, book)
    if name is None:
        return True
    zero: DNF = [(Atom(name, Interval(Fraction(0), Fraction(0))),)]
    return satisfiable(conjoin(context, zero), book)


def _constant_zero(expr: n.Expr, book: m.Book) -> bool:
    return bounds(expr, book) == (Fraction(0), Fraction(0))


def _hint(divisor: n.Expr, book: m.Book) -> str:
    if _constant_zero(divisor, book):
        return "divide by a number other than 0"
    text = expr_text(divisor)
    if not isinstance(divisor, (n.NameRef, n.BaseRef, n.Number)):
        text = f"({text})"
    return f"rule 0 out with a condition (`when {text} > 0:`), or write `max({expr_text(divisor)}, 1)` in its place"


def _input(expr: n.Expr, book: m.Book) -> str | None:
    if isinstance(expr, (n.NameRef, n.BaseRef)):
        ref = book.refs.get(expr)
        if ref is not None and ref.kind in ("input", "base"):
            return ref.name
    return None


# ---------------------------------------------------------------------- sound bounds


def bounds(expr: n.Expr, book: m.Book) -> Bounds:
    """Bounds every value of `expr` keeps in any situation the resolver accepts (None: no bound)."""
    if isinstance(expr, n.Number):
        return (expr.value, expr.value)
    if isinstance(expr, (n.NameRef, n.BaseRef)):
        ref = book.refs.get(expr)
        if ref is not None and ref.kind in ("input", "base"):
            kind = book.vars[ref.name].type
            if isinstance(kind, t.Numeric):
                return (kind.low, kind.high)
        return _ANY
    if isinstance(expr, n.Negate):
        low, high = bounds(expr.operand, book)
        return (None if high is None else -high, None if low is None else -low)
    if isinstance(expr, n.Rounded):
        low, high = bounds(expr.operand, book)
        return (_rounded(low, expr.mode), _rounded(high, expr.mode))
    if isinstance(expr, n.Call):
        found = [bounds(a, book) for a in expr.args]
        if expr.function.text == "abs":
            low, high = found[0]
            if low is not None and low >= 0:
                return (low, high)
            if high is not None and high <= 0:
                return (-high, None if low is None else -low)
            return (Fraction(0), None if low is None or high is None else max(-low, high))
        lows = [f[0] for f in found]
        highs = [f[1] for f in found]
        known_lows = [x for x in lows if x is not None]
        known_highs = [x for x in highs if x is not None]
        if expr.function.text == "max":
            # max(a, b) is at least the highest known lower bound, whatever the others are
            return (max(known_lows) if known_lows else None, max(known_highs) if None not in highs else None)
        return (min(known_lows) if None not in lows else None, min(known_highs) if known_highs else None)
    if isinstance(expr, n.Binary):
        left, right = bounds(expr.left, book), bounds(expr.right, book)
        a = t.Numeric("number", left[0], left[1])
        b = t.Numeric("number", right[0], right[1])
        if expr.op == "+":
            return t.interval_add(a, b)
        if expr.op == "-":
            return t.interval_add(a, t.Numeric("number", *t.interval_neg(b)))
        if expr.op == "*":
            return t.interval_mul(a, b)
        if expr.op == "/":
            return t.interval_div(a, b)
    return _ANY


def _rounded(value: Fraction | None, mode: str) -> Fraction | None:
    if value is None:
        return None
    if mode == "up":
        return Fraction(math.ceil(value))
    if mode == "down":
        return Fraction(math.floor(value))
    return Fraction(math.floor(value + Fraction(1, 2)))
