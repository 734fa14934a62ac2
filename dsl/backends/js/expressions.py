"""Expressions of the checked model written as JavaScript, for the code of a generated ES module.

As dsl/backends/python/expressions.py, one `match` over the node writes each expression, with the
values it reads reached through a `Frame` (locals `v`, `e` and `s` in a rule's functions; the
scope `s.v`, `s.e` in the small functions of a module's constants).  Arithmetic is exact: a number
is a BigInt or the runtime's Fraction, so operators are written as the runtime's functions
(`add(a, b)`, `lt(a, b)`); only the boolean operators are JavaScript's, always bracketed.
"""

from __future__ import annotations

import json
from fractions import Fraction

from dsl import model as m
from dsl import nodes as n
from dsl import printer
from dsl import types as t
from dsl.backends.python.expressions import Frame, is_constant

ARITHMETIC = {"+": "add", "-": "sub", "*": "mul", "/": "div", "^": "pow"}
COMPARE = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}
FLIPPED = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}


class Unsupported(Exception):
    """A construct of a checked book the JavaScript target cannot write yet: `construct` says
    which, `where` (filled in by the module writer) in which rule, table or input.  A build turns
    it into an error naming the rulebook (dsl/build.py), never into a module that would resolve
    differently from the Python one."""

    def __init__(self, construct: str, where: str | None = None) -> None:
        super().__init__(construct)
        self.construct = construct
        self.where = where


def js_string(text: str) -> str:
    """Text as a JavaScript string literal: JSON's escapes, ASCII only (so no line separator or
    other character can end it or the line)."""
    return json.dumps(text, ensure_ascii=True)


def js_literal(value: object) -> str:
    """A constant of a module as JavaScript: null, true/false, a string, a BigInt or a Fraction."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return js_string(value)
    if isinstance(value, (int, Fraction)):
        return number_literal(value)
    raise Unsupported(f"the constant {value}")


def number_literal(value: int | Fraction | None) -> str:
    if value is None:
        return "null"
    value = Fraction(value)
    if value.denominator == 1:
        return f"{value.numerator}n"
    return f"frac({value.numerator}n, {value.denominator}n)"


def faces_array(faces: tuple[int | None, int | None]) -> str:
    """Faces (low, high; None open) as the runtime takes them: `[1n, 1n]`."""
    return array([number_literal(face) for face in faces])


def array(items: list[str]) -> str:
    return "[" + ", ".join(items) + "]"


class JsExpressions:
    """Writes the expressions of one book as JavaScript."""

    def __init__(self, book: m.Book) -> None:
        self.book = book

    def code(self, expr: n.Expr, frame: Frame) -> str:
        book = self.book
        match expr:
            case n.Number(value=value):
                return number_literal(value)
            case n.DiceLiteral(count=count, sides=sides):
                return f"new Dice([[{count}n, {sides}n]])"
            case n.TextLiteral(value=value):
                return js_string(value)
            case n.Boolean(value=value):
                return "true" if value else "false"
            case n.SpecialLiteral(text=text):
                return "IMPASSABLE" if text == "X" else "NOT_APPLICABLE"
            case n.NameRef() | n.BaseRef():
                ref = book.refs[expr]
                if ref.kind == "member":
                    return js_string(ref.name)
                if ref.kind == "special":
                    return ref.name
                if ref.kind in ("stat", "derive"):
                    frame.read.add("e")
                    return f"{frame.scope}e.get({js_string(ref.name)})"
                frame.read.add("v")
                return f"{frame.scope}v.get({js_string(ref.name)})"
            case n.Call(function=function, args=args):
                arguments = ", ".join(self.code(a, frame) for a in args)
                if isinstance(book.types.get(expr), t.Dice):
                    return f"clampDice({js_string(function.text)}, {arguments})"
                return f"{function.text}({arguments})"
            case n.Lookup(table=table, keys=keys, column=column):
                found = array([self.code(k, frame) for k in keys])
                name = column.text if column else book.tables[table.text].columns[0][0]
                frame.read.add("s")
                return f"s.lookup({js_string(table.text)}, {found}, {js_string(name)})"
            case n.Negate(operand=operand):
                return f"neg({self.code(operand, frame)})"
            case n.Binary():
                return self._binary(expr, frame)
            case n.Rounded(operand=operand, mode=mode):
                if isinstance(operand, n.Binary) and isinstance(book.types.get(operand), t.Dice):
                    return self._scaled(operand, mode, frame)
                return f"roundValue({self.code(operand, frame)}, {js_string(mode)})"
            case n.DiceCount(count=count, sides=sides):
                return f"Dice.pool(integer({self.code(count, frame)}), {sides}n)"
            case n.Compare():
                return self._compare(expr, expr.op, frame)
            case n.Member():
                return self._member(expr, frame, negate=False)
            case n.Not(operand=operand):
                return self.negation(operand, frame)
            case n.BoolOp(op=op, left=left, right=right):
                joiner = " || " if op == "or" else " && "
                return f"({self.code(left, frame)}{joiner}{self.code(right, frame)})"
            case n.PoolDice(op=op, operand=operand, amount=amount):
                dice = self.code(operand, frame)
                times = "null" if amount is None else self.code(amount, frame)
                if op == "exploding":
                    return f"explodingDice({dice}, {times})"
                if expr.ignoring is not None:
                    return f"keptDice({dice}, {js_string(op)}, {times}, {faces_array(expr.ignoring)})"
                return f"keptDice({dice}, {js_string(op)}, {times})"
            case n.LeftDie(keep=keep, otherwise=otherwise):
                dice = self.code(keep.operand, frame)
                times = "null" if keep.amount is None else self.code(keep.amount, frame)
                ignoring = "null" if keep.ignoring is None else faces_array(keep.ignoring)
                return f"leftDie({dice}, {js_string(keep.op)}, {times}, {ignoring}, {number_literal(otherwise)})"
            case n.FacedDice(op=op, operand=operand, low=low, high=high):
                reader = "countedDice" if op == "showing" else "rerolledDice"
                return f"{reader}({self.code(operand, frame)}, {number_literal(low)}, {number_literal(high)})"
            case n.CancellingDice(operand=operand, low=low, high=high, die=die):
                dice = self.code(operand, frame)
                return f"cancelledDice({dice}, {js_string(die.text)}, {number_literal(low)}, {number_literal(high)})"
            case n.PairedDice(first=first, second=second):
                return f"pairedDice({self.code(first, frame)}, {self.code(second, frame)})"
            case n.NamedDie(operand=operand, name=name):
                return f"namedDie({self.code(operand, frame)}, {js_string(name.text)})"
        raise Unsupported(f"the expression `{printer.expr_text(expr)}`")

    def negation(self, expr: n.Expr, frame: Frame) -> str:
        if isinstance(expr, n.Member):
            return self._member(expr, frame, negate=True)
        if isinstance(expr, n.Compare) and expr.op in ("==", "!="):
            return self._compare(expr, FLIPPED[expr.op], frame)
        return f"!({self.code(expr, frame)})"

    def holds(self, condition: m.Condition, frame: Frame) -> str:
        return self.negation(condition.expr, frame) if condition.negated else self.code(condition.expr, frame)

    def fails(self, condition: m.Condition, frame: Frame) -> str:
        return self.code(condition.expr, frame) if condition.negated else self.negation(condition.expr, frame)

    def amount(self, effect: m.ModEffect, frame: Frame) -> tuple[str, bool]:
        """A modifier's amount: its code, and whether that is a constant."""
        var = self.book.vars[effect.target]
        if effect.op in ("add", "mul", "div", "set", "min", "max"):
            assert effect.value is not None
            value = effect.value
            if effect.op in ("set", "min", "max") and isinstance(var.type, t.Enum) and is_constant(value, self.book):
                return js_string(printer.expr_text(value)), True
            if is_constant(value, self.book) and effect.per is None:
                return self.code(value, frame), True
            code = self.code(value, frame)
            if effect.per is not None:
                code = f"mul({code}, {self.code(effect.per, frame)})"
            return code, False
        if effect.op == "grade":
            return js_string(effect.grade or ""), True
        if effect.value is None:
            return f"{effect.delta}n", True
        return self.code(effect.value, frame), False

    def _compare(self, expr: n.Compare, op: str, frame: Frame) -> str:
        left, right = expr.left, expr.right
        left_type = self.book.types.get(left)
        if isinstance(left_type, t.Enum) and op not in ("==", "!="):
            members = array([js_string(x) for x in left_type.members])
            return f"{COMPARE[op]}(BigInt({members}.indexOf({self.code(left, frame)})), BigInt({members}.indexOf({self.code(right, frame)})))"
        return f"{COMPARE[op]}({self.code(left, frame)}, {self.code(right, frame)})"

    def _binary(self, expr: n.Binary, frame: Frame) -> str:
        left = self.code(expr.left, frame)
        right = self.code(expr.right, frame)
        result_type = self.book.types.get(expr)
        if isinstance(result_type, t.Dice):
            if expr.op in "*/":
                return self._scaled(expr, None, frame)
            if isinstance(self.book.types.get(expr.left), t.Dice):
                other = right if expr.op == "+" else f"neg({right})"
                return f"{left}.plus({other})"
            return f"{right}.plus({left})"
        if isinstance(result_type, t.Cell):
            other = right if expr.op == "+" else f"neg({right})"
            return f"cellAdd({left}, {other})"
        return f"{ARITHMETIC[expr.op]}({left}, {right})"

    def _scaled(self, expr: n.Binary, rounding: str | None, frame: Frame) -> str:
        left_dice = isinstance(self.book.types.get(expr.left), t.Dice)
        dice, factor = (expr.left, expr.right) if left_dice else (expr.right, expr.left)
        amount = self.code(factor, frame)
        if expr.op == "/":
            amount = f"div(1n, {amount})"
        rounding_code = "null" if rounding is None else js_string(rounding)
        return f"{self.code(dice, frame)}.scaled({amount}, {rounding_code})"

    def _member(self, expr: n.Member, frame: Frame, *, negate: bool) -> str:
        members = array([js_string(x.text) for x in expr.members])
        test = f"{members}.includes({self.code(expr.operand, frame)})"
        return f"!{test}" if expr.negated != negate else test
