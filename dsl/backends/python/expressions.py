"""Expressions of the checked model written as Python source, for the code of a generated module.

Every expression is written by one `match` over its node (`Expressions.code`), with the values it
reads reached through a `Frame`: the code a rule's functions are made of reads its locals `v`
and `e` (and the scope `s` for a table lookup); the small functions of a module's constants
(`lambda s: ...`: a formula default, a table cell, a tier's bound) read the scope.  The frame is
passed, never kept: writing one rule's code cannot change how another is written.  The model is
read, never written: a negated comparison is written with its operator flipped, not as a new node.

Arithmetic is exact (`Fraction`), with the fewest parentheses Python needs (each piece of code
comes with the precedence of its outermost operator).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from dsl import model as m
from dsl import nodes as n
from dsl import printer
from dsl import types as t
from dsl.model.exprs import walk
from dsl.writer import literal

# Python operator precedence, loosest first, for parenthesizing generated expressions.
OR, AND, NOT, COMPARE, ADD, MUL, UNARY, POWER, ATOM = 1, 2, 3, 4, 6, 7, 8, 9, 10

Code = tuple[str, int]
"""Python source and the precedence of its outermost operator."""


@dataclass
class Frame:
    """Where the code being written reads a situation's values: through the scope (`scope` is
    "s.": `s.v[...]`, `s.e[...]`) or through locals (`scope` is "": `v[...]`, `e[...]`), and what
    it has read (`v`, the inputs; `e`, the settled values; `s`, the scope, for a lookup; `trace`),
    so a function makes only the locals it uses."""

    scope: str = "s."
    read: set[str] = field(default_factory=set)


def tuple_code(items: list[str]) -> str:
    """A tuple of the items (code) as Python writes it: `()`, `(a,)`, `(a, b)`."""
    if not items:
        return "()"
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def wrap(code: Code, minimum: int) -> str:
    """Code as an operand that needs at least `minimum` precedence."""
    return code[0] if code[1] >= minimum else f"({code[0]})"


def fraction_literal(value: Fraction | int | None) -> str:
    if value is None:
        return "None"
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    return f"Fraction({value.numerator}, {value.denominator})"


def is_constant(expr: n.Expr, book: m.Book) -> bool:
    """The expression reads nothing of a situation (numbers, members, text)."""
    for node in walk(expr):
        if isinstance(node, (n.NameRef, n.BaseRef)):
            ref = book.refs.get(node)
            if ref is None or ref.kind != "member":
                return False
        if isinstance(node, (n.Lookup, n.Call)):
            return False
    return True


class Expressions:
    """Writes the expressions of one book."""

    def __init__(self, book: m.Book) -> None:
        self.book = book

    def expression(self, expr: n.Expr, frame: Frame) -> str:
        return self.code(expr, frame)[0]

    def code(self, expr: n.Expr, frame: Frame) -> Code:
        """The source of an expression, with its precedence."""
        book = self.book
        match expr:
            case n.Number(value=value):
                return fraction_literal(value), (UNARY if value < 0 else ATOM)
            case n.DiceLiteral(count=count, sides=sides):
                return f"Dice((({count}, {sides}),))", ATOM
            case n.TextLiteral(value=value):
                return literal(value), ATOM
            case n.Boolean(value=value):
                return ("True" if value else "False"), ATOM
            case n.SpecialLiteral(text=text):
                return ("IMPASSABLE" if text == "X" else "NOT_APPLICABLE"), ATOM
            case n.NameRef() | n.BaseRef():
                ref = book.refs[expr]
                if ref.kind == "member":
                    return literal(ref.name), ATOM
                if ref.kind == "special":
                    return ref.name, ATOM
                if ref.kind in ("stat", "derive"):
                    frame.read.add("e")
                    return f"{frame.scope}e[{literal(ref.name)}]", ATOM  # after its modifiers / once derived
                frame.read.add("v")
                return f"{frame.scope}v[{literal(ref.name)}]", ATOM  # an input, or a stat's base value
            case n.Call(function=function, args=args):
                arguments = ", ".join(self.expression(a, frame) for a in args)
                if isinstance(book.types.get(expr), t.Dice):  # max(damage - armour, 0)
                    return f"clamp_dice({literal(function.text)}, {arguments})", ATOM
                return f"{function.text}({arguments})", ATOM
            case n.Lookup(table=table, keys=keys, column=column):
                found = tuple_code([self.expression(k, frame) for k in keys])
                name = column.text if column else book.tables[table.text].columns[0][0]
                frame.read.add("s")
                return f"s.lookup({literal(table.text)}, {found}, {literal(name)})", ATOM
            case n.Negate(operand=operand):
                return "-" + wrap(self.code(operand, frame), UNARY), UNARY
            case n.Binary():
                return self._binary(expr, frame)
            case n.Rounded(operand=operand, mode=mode):
                if isinstance(operand, n.Binary) and isinstance(book.types.get(operand), t.Dice):
                    return self._scaled(operand, mode, frame), ATOM
                return f"round_value({self.expression(operand, frame)}, {literal(mode)})", ATOM
            case n.DiceCount(count=count, sides=sides):
                if isinstance(count, n.Number) and count.value.denominator == 1:
                    return f"Dice.pool({int(count.value)}, {sides})", ATOM  # `1 d6`
                return f"Dice.pool(int({self.expression(count, frame)}), {sides})", ATOM
            case n.PoolDice(op=op, operand=operand, amount=amount):
                dice = self.expression(operand, frame)
                times = "None" if amount is None else self.expression(amount, frame)
                if op == "exploding":
                    return f"exploding_dice({dice}, {times})", ATOM
                if expr.ignoring is not None:
                    return f"kept_dice({dice}, {literal(op)}, {times}, {_faces(expr.ignoring)})", ATOM
                return f"kept_dice({dice}, {literal(op)}, {times})", ATOM
            case n.LeftDie(keep=keep, otherwise=otherwise):
                dice = self.expression(keep.operand, frame)
                times = "None" if keep.amount is None else self.expression(keep.amount, frame)
                ignoring = "None" if keep.ignoring is None else _faces(keep.ignoring)
                return f"left_die({dice}, {literal(keep.op)}, {times}, {ignoring}, {literal(otherwise)})", ATOM
            case n.FacedDice(op=op, operand=operand, low=low, high=high):
                reader = "counted_dice" if op == "showing" else "rerolled_dice"
                return f"{reader}({self.expression(operand, frame)}, {literal(low)}, {literal(high)})", ATOM
            case n.CancellingDice(operand=operand, low=low, high=high, die=die):
                dice = self.expression(operand, frame)
                return f"cancelled_dice({dice}, {literal(die.text)}, {literal(low)}, {literal(high)})", ATOM
            case n.PairedDice(first=first, second=second):
                return f"paired_dice({self.expression(first, frame)}, {self.expression(second, frame)})", ATOM
            case n.NamedDie(operand=operand, name=name):
                return f"named_die({self.expression(operand, frame)}, {literal(name.text)})", ATOM
            case n.Compare():
                return self._compare(expr, expr.op, frame)
            case n.Member():
                return self._member(expr, frame, negate=False)
            case n.Not(operand=operand):
                return self.negation(operand, frame)
            case n.BoolOp(op=op, left=left, right=right):
                return _bool(op, self.code(left, frame), self.code(right, frame))
        raise TypeError(f"cannot write {type(expr).__name__}")

    def negation(self, expr: n.Expr, frame: Frame) -> Code:
        """`not expr`, written the way a reader expects: `x not in (...)`, `x != y`."""
        if isinstance(expr, n.Member):
            return self._member(expr, frame, negate=True)
        if isinstance(expr, n.Compare) and expr.op in ("==", "!="):
            return self._compare(expr, "!=" if expr.op == "==" else "==", frame)
        return "not " + wrap(self.code(expr, frame), NOT), NOT

    def holds(self, condition: m.Condition, frame: Frame) -> str:
        """A clause as the condition that holds (`unless` negated)."""
        if condition.negated:
            return self.negation(condition.expr, frame)[0]
        return self.code(condition.expr, frame)[0]

    def fails(self, condition: m.Condition, frame: Frame) -> str:
        """A clause as the condition that it does not hold."""
        if condition.negated:
            return self.code(condition.expr, frame)[0]
        return self.negation(condition.expr, frame)[0]

    def amount(self, effect: m.ModEffect, frame: Frame) -> tuple[str, bool]:
        """A modifier's amount: its code, and whether that is a constant (else it reads the
        situation)."""
        var = self.book.vars[effect.target]
        if effect.op in ("add", "mul", "div", "set", "min", "max"):
            assert effect.value is not None
            value = effect.value
            if effect.op in ("set", "min", "max") and isinstance(var.type, t.Enum) and is_constant(value, self.book):
                return literal(printer.expr_text(value)), True
            if is_constant(value, self.book) and effect.per is None:
                return self.expression(value, frame), True
            code = self.code(value, frame)
            if effect.per is not None:
                code = (f"{wrap(code, MUL)} * {wrap(self.code(effect.per, frame), MUL + 1)}", MUL)
            return code[0], False
        if effect.op == "grade":
            return literal(effect.grade), True
        if effect.value is None:
            return str(effect.delta), True
        return self.expression(effect.value, frame), False

    def _compare(self, expr: n.Compare, op: str, frame: Frame) -> Code:
        """`a OP b`: levels compared by their order; a side divided by a whole number `k`
        compared multiplied out (`moved > MOV / 2` as `moved * 2 > MOV`): the same answer for
        every rational, as `k` is positive, without making a Fraction on every call."""
        left, right = expr.left, expr.right
        left_type = self.book.types.get(left)
        if isinstance(left_type, t.Enum) and op not in ("==", "!="):
            members = tuple_code([literal(x) for x in left_type.members])
            order = f"{members}.index({wrap(self.code(left, frame), ADD)})"
            return f"{order} {op} {members}.index({wrap(self.code(right, frame), ADD)})", COMPARE
        numeric = isinstance(left_type, t.Numeric) and isinstance(self.book.types.get(right), t.Numeric)
        if numeric and _divided_by_whole(right):
            assert isinstance(right, n.Binary)
            return f"{self._times(left, right.right, frame)} {op} {wrap(self.code(right.left, frame), ADD)}", COMPARE
        if numeric and _divided_by_whole(left):
            assert isinstance(left, n.Binary)
            return f"{wrap(self.code(left.left, frame), ADD)} {op} {self._times(right, left.right, frame)}", COMPARE
        return f"{wrap(self.code(left, frame), ADD)} {op} {wrap(self.code(right, frame), ADD)}", COMPARE

    def _times(self, value: n.Expr, factor: n.Expr, frame: Frame) -> str:
        """`value * factor`, each side bracketed as a product needs."""
        return f"{wrap(self.code(value, frame), MUL)} * {wrap(self.code(factor, frame), MUL + 1)}"

    def _binary(self, expr: n.Binary, frame: Frame) -> Code:
        left = self.code(expr.left, frame)
        right = self.code(expr.right, frame)
        result_type = self.book.types.get(expr)
        if isinstance(result_type, t.Dice):
            if expr.op in "*/":
                return self._scaled(expr, None, frame), ATOM
            if isinstance(self.book.types.get(expr.left), t.Dice):
                other = right[0] if expr.op == "+" else "-" + wrap(right, UNARY)
                return f"{wrap(left, ATOM)}.plus({other})", ATOM
            return f"{wrap(right, ATOM)}.plus({left[0]})", ATOM
        if isinstance(result_type, t.Cell):
            other = right[0] if expr.op == "+" else "-" + wrap(right, UNARY)
            return f"cell_add({left[0]}, {other})", ATOM
        match expr.op:
            case "+":
                return f"{wrap(left, ADD)} + {wrap(right, ADD)}", ADD
            case "-":
                return f"{wrap(left, ADD)} - {wrap(right, ADD + 1)}", ADD
            case "*":
                return f"{wrap(left, MUL)} * {wrap(right, MUL + 1)}", MUL
            case "/":
                return f"Fraction({left[0]}) / {wrap(right, MUL + 1)}", MUL
        return f"Fraction({left[0]}) ** {wrap(right, UNARY)}", POWER

    def _scaled(self, expr: n.Binary, rounding: str | None, frame: Frame) -> str:
        """Dice scaled by a number, after rolling: `3d10 * 10`, `1d6 / 2 round up`."""
        left_dice = isinstance(self.book.types.get(expr.left), t.Dice)
        dice, factor = (expr.left, expr.right) if left_dice else (expr.right, expr.left)
        amount = f"Fraction({self.expression(factor, frame)})"
        if expr.op == "/":
            amount = f"1 / {amount}"
        return f"{wrap(self.code(dice, frame), ATOM)}.scaled({amount}, {literal(rounding)})"

    def _member(self, expr: n.Member, frame: Frame, *, negate: bool) -> Code:
        members = tuple_code([literal(x.text) for x in expr.members])
        word = "not in" if expr.negated != negate else "in"
        return f"{wrap(self.code(expr.operand, frame), ADD)} {word} {members}", COMPARE


def _bool(op: str, left: Code, right: Code) -> Code:
    level = OR if op == "or" else AND
    # `a and b` inside `or` is parenthesized, so precedence never has to be remembered
    left_code = left[0] if left[1] == level or left[1] >= NOT else f"({left[0]})"
    right_code = right[0] if right[1] >= NOT else f"({right[0]})"
    return f"{left_code} {op} {right_code}", level


def _divided_by_whole(expr: n.Expr) -> bool:
    """`x / k` for a whole number k > 0 (a literal)."""
    return (
        isinstance(expr, n.Binary)
        and expr.op == "/"
        and isinstance(expr.right, n.Number)
        and expr.right.value > 0
        and expr.right.value.denominator == 1
    )


def _faces(faces: tuple[int | None, int | None]) -> str:
    """Faces (low, high; None open) as a Python literal: `(1, 1)`."""
    return f"({literal(faces[0])}, {literal(faces[1])})"
