"""What an expression means: the one definition of the value of every expression node.

Constant folding in the analysis, the cards' chance tables and the reference resolver
(dsl/semantics/reference.py) all evaluate expressions here; the code generator writes the same
meaning as Python, and the tests compare the two on every rule of every bundled rulebook.  Clear
before fast: one function per kind of node, no shortcuts.

Values are those of a resolver (dsl/runtime/): `int` for whole numbers, `Fraction` otherwise,
`bool` for flags, `str` for members of a choice and for text, `Dice`, and the table cells X and
N/A (`Special`).  What a name stands for comes from an `Env`: the values of a situation, or
nothing at all when folding constants.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Protocol

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.printer import expr_text
from dsl.runtime.base import IMPASSABLE, NOT_APPLICABLE, RuleInputError, Special, round_value
from dsl.runtime.dice import (
    Dice,
    Value,
    cancelled_dice,
    clamp_dice,
    counted_dice,
    exploding_dice,
    kept_dice,
    left_die,
    named_die,
    paired_dice,
    rerolled_dice,
)

MAX_EXPONENT = 1000
"""The largest exponent worked out (`10 ^ 10 ^ 10` would never finish)."""


class NotConstant(Exception):
    """Raised by an environment asked for a value it does not know (folding: any input)."""


class NoValue(Exception):
    """An expression without a value in this situation (a division by zero, a table without a
    row for the key).  A checked rulebook never meets one; the message says what happened."""


class Env(Protocol):
    """Where the values of names come from."""

    def value(self, ref: m.Ref) -> Value:
        """The value of an input, stat (effective), `base` stat, derived value or special name."""
        ...

    def lookup(self, table: str, keys: tuple[Value, ...], column: str) -> Value:
        """A cell of a table."""
        ...


class Constants:
    """The environment of constant folding: no name has a value."""

    def value(self, ref: m.Ref) -> Value:
        raise NotConstant(ref.name)

    def lookup(self, table: str, keys: tuple[Value, ...], column: str) -> Value:
        raise NotConstant(table)


class Specials(Constants):
    """Only the special names of a context (`target`; `active`, `passive`) have values."""

    def __init__(self, values: Mapping[str, Value]) -> None:
        self.values = values

    def value(self, ref: m.Ref) -> Value:
        if ref.kind == "special" and ref.name in self.values:
            return self.values[ref.name]
        raise NotConstant(ref.name)


def evaluate(expr: n.Expr, book: m.Book, env: Env) -> Value:
    """The value of `expr` where names take their values from `env`."""
    match expr:
        case n.NameRef():
            return _name(expr, book, env)
        case n.Number():
            return _number(expr, book, env)
        case n.Compare():
            return _compare(expr, book, env)
        case n.BoolOp():
            return _bool_op(expr, book, env)
        case n.Member():
            return _member(expr, book, env)
        case n.Binary():
            return _binary(expr, book, env)
        case n.Lookup():
            return _lookup(expr, book, env)
        case n.BaseRef():
            return _name(expr, book, env)
        case n.Not():
            return _not(expr, book, env)
        case n.Call():
            return _call(expr, book, env)
        case n.Rounded():
            return _rounded(expr, book, env)
        case n.Negate():
            return _negate(expr, book, env)
        case n.TextLiteral():
            return _text(expr, book, env)
        case n.Boolean():
            return _boolean(expr, book, env)
        case n.DiceLiteral():
            return _dice(expr, book, env)
        case n.DiceCount():
            return _dice_count(expr, book, env)
        case n.SpecialLiteral():
            return _special(expr, book, env)
        case n.PoolDice():
            return _pool_dice(expr, book, env)
        case n.NamedDie():
            return _named_die(expr, book, env)
        case n.PairedDice():
            return _paired_dice(expr, book, env)
        case n.FacedDice():
            return _faced_dice(expr, book, env)
        case n.CancellingDice():
            return _cancelling_dice(expr, book, env)
        case n.LeftDie():
            return _left_die(expr, book, env)
    raise TypeError(f"cannot evaluate {type(expr).__name__}")


def constant_value(expr: n.Expr, book: m.Book) -> m.Constant | None:
    """The value of an expression that reads no input, stat or table, or None."""
    try:
        value = evaluate(expr, book, Constants())
    except (NotConstant, NoValue):
        return None
    return None if isinstance(value, Special) else value


def special_value(expr: n.Expr, book: m.Book, values: Mapping[str, Value]) -> Value | None:
    """The value of a formula of special names only (a tier's bound, the resistance formula)."""
    try:
        return evaluate(expr, book, Specials(values))
    except (NotConstant, NoValue):
        return None


def is_number(value: object) -> bool:
    return isinstance(value, (int, Fraction)) and not isinstance(value, bool)


def number(value: Fraction | int) -> int | Fraction:
    """Whole numbers as `int`, others as `Fraction`."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    return value


# ---------------------------------------------------------------------- one function per node


def _number(expr: n.Number, book: m.Book, env: Env) -> Value:
    return number(expr.value)


def _dice(expr: n.DiceLiteral, book: m.Book, env: Env) -> Value:
    return Dice(((expr.count, expr.sides),))


def _text(expr: n.TextLiteral, book: m.Book, env: Env) -> Value:
    return expr.value


def _boolean(expr: n.Boolean, book: m.Book, env: Env) -> Value:
    return expr.value


def _special(expr: n.SpecialLiteral, book: m.Book, env: Env) -> Value:
    return IMPASSABLE if expr.text == "X" else NOT_APPLICABLE


def _name(expr: n.NameRef | n.BaseRef, book: m.Book, env: Env) -> Value:
    ref = book.refs.get(expr)
    if ref is None:
        # A name the compiler could not resolve (its declaration lost to a syntax error): the
        # error is reported; a check that folds the expression learns only that it has no value.
        raise NotConstant(expr.name)
    if ref.kind == "member":
        return ref.name
    return env.value(ref)


def _call(expr: n.Call, book: m.Book, env: Env) -> Value:
    name = expr.function.text
    values = [evaluate(a, book, env) for a in expr.args]
    if name in ("min", "max") and all(isinstance(v, Dice) for v in values) and len(values) == 2:
        return clamp_dice("max" if name == "max" else "min", values[0], values[1])  # type: ignore[arg-type]
    if name in ("min", "max") and any(isinstance(v, Dice) for v in values):
        dice, bound = (values[0], values[1]) if isinstance(values[0], Dice) else (values[1], values[0])
        if isinstance(dice, Dice) and is_number(bound) and Fraction(bound).denominator == 1:  # type: ignore[arg-type]
            return dice.clamped("max" if name == "max" else "min", int(bound))  # type: ignore[arg-type]
        raise NoValue(f"`{expr_text(expr)}` keeps one dice value within one whole number")
    args = [Fraction(_numeric(v, expr)) for v in values]
    if name == "min":
        return number(min(args))
    if name == "max":
        return number(max(args))
    return number(abs(args[0]))


def _lookup(expr: n.Lookup, book: m.Book, env: Env) -> Value:
    keys = tuple(evaluate(k, book, env) for k in expr.keys)
    table = book.tables[expr.table.text]
    column = expr.column.text if expr.column is not None else table.columns[0][0]
    return env.lookup(table.name, keys, column)


def _negate(expr: n.Negate, book: m.Book, env: Env) -> Value:
    return number(-_numeric(evaluate(expr.operand, book, env), expr))


def _binary(expr: n.Binary, book: m.Book, env: Env) -> Value:
    left = evaluate(expr.left, book, env)
    right = evaluate(expr.right, book, env)
    if isinstance(left, Dice) or isinstance(right, Dice):
        return _dice_arithmetic(expr, left, right)
    if isinstance(left, Special) or isinstance(right, Special):
        # a table cell: X (impassable) absorbs everything, then N/A
        for special in (IMPASSABLE, NOT_APPLICABLE):
            if special in (left, right):
                return special
    a, b = _numeric(left, expr), _numeric(right, expr)
    if expr.op == "+":
        return number(Fraction(a) + b)
    if expr.op == "-":
        return number(Fraction(a) - b)
    if expr.op == "*":
        return number(Fraction(a) * b)
    if expr.op == "/":
        if b == 0:
            raise NoValue(f"division by zero in `{_shown(expr)}`")
        return number(Fraction(a) / b)
    exponent = Fraction(b)
    if exponent.denominator != 1 or abs(exponent) > MAX_EXPONENT:
        raise NoValue(f"`{_shown(expr)}`: exponents are whole numbers up to {MAX_EXPONENT}")
    if a == 0 and exponent < 0:
        raise NoValue(f"division by zero in `{_shown(expr)}`")
    return number(Fraction(a) ** int(exponent))


def _dice_arithmetic(expr: n.Binary, left: Value, right: Value, rounding: str | None = None) -> Value:
    """Dice add to dice and to numbers; a number subtracts from dice; dice are scaled by a number
    (the total, after rolling: `3d10 * 10`, `1d6 / 2 round up`)."""
    if expr.op in "*/":
        dice, factor = (left, right) if isinstance(left, Dice) else (right, left)
        if not isinstance(dice, Dice) or isinstance(factor, Dice):
            raise NoValue(f"`{_shown(expr)}`: dice are scaled by a number")
        amount = Fraction(_numeric(factor, expr))
        if expr.op == "/":
            if amount == 0:
                raise NoValue(f"division by zero in `{_shown(expr)}`")
            amount = 1 / amount
        return dice.scaled(amount, rounding)
    if expr.op == "+":
        if isinstance(left, Dice):
            return left.plus(right if isinstance(right, Dice) else int(_numeric(right, expr)))
        assert isinstance(right, Dice)
        return right.plus(int(_numeric(left, expr)))
    if expr.op == "-" and isinstance(left, Dice) and not isinstance(right, Dice):
        return left.plus(-int(_numeric(right, expr)))
    raise NoValue(f"`{_shown(expr)}`: dice are added, or a number subtracted from them")


def _rounded(expr: n.Rounded, book: m.Book, env: Env) -> Value:
    operand = expr.operand
    if isinstance(operand, n.Binary) and isinstance(book.types.get(operand), t.Dice):
        # dice scaled, then rounded: the rounding is part of the scaling
        left = evaluate(operand.left, book, env)
        right = evaluate(operand.right, book, env)
        return _dice_arithmetic(operand, left, right, expr.mode)
    return round_value(_numeric(evaluate(operand, book, env), expr), expr.mode)


def _dice_count(expr: n.DiceCount, book: m.Book, env: Env) -> Value:
    count = _numeric(evaluate(expr.count, book, env), expr)
    return Dice.pool(int(count), expr.sides)


def _pool_dice(expr: n.PoolDice, book: m.Book, env: Env) -> Value:
    """Dice that explode, or the highest or lowest few of a pool (dsl/runtime/pools.py)."""
    dice = evaluate(expr.operand, book, env)
    amount = None if expr.amount is None else _numeric(evaluate(expr.amount, book, env), expr)
    if not isinstance(dice, Dice):
        raise NoValue(f"`{expr_text(expr)}`: {expr.op} applies to dice")
    try:
        if expr.op == "exploding":
            return exploding_dice(dice, amount)
        return kept_dice(dice, expr.op, amount, expr.ignoring)
    except RuleInputError as error:
        raise NoValue(str(error)) from None


def _left_die(expr: n.LeftDie, book: m.Book, env: Env) -> Value:
    """The size of the largest die a keep leaves, or the number said (dsl/runtime/pools.py)."""
    keep = expr.keep
    dice = evaluate(keep.operand, book, env)
    amount = None if keep.amount is None else _numeric(evaluate(keep.amount, book, env), expr)
    if not isinstance(dice, Dice) or keep.op == "exploding":
        raise NoValue(f"`{expr_text(expr)}`: the dice a keep leaves are read from dice")
    try:
        return left_die(dice, keep.op, amount, keep.ignoring, expr.otherwise)
    except RuleInputError as error:
        raise NoValue(str(error)) from None


def _faced_dice(expr: n.FacedDice, book: m.Book, env: Env) -> Value:
    """How many dice show some faces, or the dice re-rolled once on them (dsl/runtime/pools.py)."""
    dice = evaluate(expr.operand, book, env)
    if not isinstance(dice, Dice):
        raise NoValue(f"`{expr_text(expr)}`: {expr.op} applies to dice")
    try:
        if expr.op == "showing":
            return counted_dice(dice, expr.low, expr.high)
        return rerolled_dice(dice, expr.low, expr.high)
    except RuleInputError as error:
        raise NoValue(str(error)) from None


def _cancelling_dice(expr: n.CancellingDice, book: m.Book, env: Env) -> Value:
    """The dice added together, a named die and the highest other die taken away when it first
    shows some faces (dsl/runtime/pools.py)."""
    dice = evaluate(expr.operand, book, env)
    if not isinstance(dice, Dice):
        raise NoValue(f"`{expr_text(expr)}`: a named die cancels dice")
    try:
        return cancelled_dice(dice, expr.die.text, expr.low, expr.high)
    except RuleInputError as error:
        raise NoValue(str(error)) from None


def _paired_dice(expr: n.PairedDice, book: m.Book, env: Env) -> Value:
    """The pairs the first side's dice win against the second's (dsl/runtime/pools.py)."""
    first, second = evaluate(expr.first, book, env), evaluate(expr.second, book, env)
    if not isinstance(first, Dice) or not isinstance(second, Dice):
        raise NoValue(f"`{expr_text(expr)}`: pairs are dice against dice")
    try:
        return paired_dice(first, second)
    except RuleInputError as error:
        raise NoValue(str(error)) from None


def _named_die(expr: n.NamedDie, book: m.Book, env: Env) -> Value:
    dice = evaluate(expr.operand, book, env)
    if not isinstance(dice, Dice):
        raise NoValue(f"`{expr_text(expr)}`: a name belongs to a die")
    try:
        return named_die(dice, expr.name.text)
    except RuleInputError as error:
        raise NoValue(str(error)) from None


def _compare(expr: n.Compare, book: m.Book, env: Env) -> Value:
    left = evaluate(expr.left, book, env)
    right = evaluate(expr.right, book, env)
    kind = book.types.get(expr.left)
    if isinstance(kind, t.Enum) and expr.op not in ("==", "!="):
        left, right = kind.members.index(str(left)), kind.members.index(str(right))
    if expr.op == "==":
        return _same(left, right)
    if expr.op == "!=":
        return not _same(left, right)
    a, b = _numeric(left, expr), _numeric(right, expr)
    if expr.op == "<":
        return a < b
    if expr.op == "<=":
        return a <= b
    if expr.op == ">":
        return a > b
    return a >= b


def _same(left: Value, right: Value) -> bool:
    if is_number(left) and is_number(right):
        return Fraction(left) == Fraction(right)  # type: ignore[arg-type]
    return type(left) is type(right) and left == right


def _member(expr: n.Member, book: m.Book, env: Env) -> Value:
    value = evaluate(expr.operand, book, env)
    inside = value in {x.text for x in expr.members}
    return inside != expr.negated


def _not(expr: n.Not, book: m.Book, env: Env) -> Value:
    return not _flag(evaluate(expr.operand, book, env), expr)


def _bool_op(expr: n.BoolOp, book: m.Book, env: Env) -> Value:
    left = _flag(evaluate(expr.left, book, env), expr)
    if expr.op == "and":
        return left and _flag(evaluate(expr.right, book, env), expr)
    return left or _flag(evaluate(expr.right, book, env), expr)




# ---------------------------------------------------------------------- helpers


def _numeric(value: Value, where: n.Expr) -> int | Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise NoValue(f"`{_shown(where)}` needs a number, not {value!r}")
    return value


def _flag(value: Value, where: n.Expr) -> bool:
    if not isinstance(value, bool):
        raise NoValue(f"`{_shown(where)}` needs yes or no, not {value!r}")
    return value


def _shown(expr: n.Expr) -> str:
    return expr_text(expr)


def row_for(table: m.Table, key: Value) -> m.TableRow | None:
    """The row a key selects: a member's row, the row whose range holds a number, else the `else` row."""
    numeric = isinstance(key, (int, Fraction)) and not isinstance(key, bool)
    for row in table.rows:
        if row.member is not None and row.member == key:
            return row
        if numeric and row.low is not None and row.low <= key and (row.high is None or key <= row.high):  # type: ignore[operator]
            return row
    return next((row for row in table.rows if row.is_else), None)
