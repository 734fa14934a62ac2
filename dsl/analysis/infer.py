"""Name resolution and type inference for expressions.

`ExprTyper.infer` walks an expression once: it resolves every name (input, stat, derived value,
member of an enumeration, special name of a context such as `target`), records the result in
`Book.refs`, computes the type with its interval and unit into `Book.types`, and reports what
does not fit.  An expression that fails to type gets `None`, and its parents stay quiet about it,
so one mistake produces one diagnostic.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from dsl import nodes as n
from dsl import types as t
from dsl.codes import PLAIN_BESIDE_QUANTITY
from dsl.diagnostics import Reporter, did_you_mean
from dsl.model import Book, Ref
from dsl.model.exprs import walk
from dsl.printer import expr_text
from dsl.runtime.dice import Dice

FUNCTIONS = {"min": (2, None), "max": (2, None), "abs": (1, 1)}
"""Built-in functions: name -> (fewest, most) arguments."""


@dataclass
class Scope:
    """Names an expression may use besides the rulebook's inputs and stats."""

    derives: dict[str, t.Type] = field(default_factory=dict)
    specials: dict[str, t.Type] = field(default_factory=dict)
    later_derives: frozenset[str] = frozenset()
    failed: set[str] = field(default_factory=set)
    """Derived values whose own line failed to check (reported there): a use is not an error again."""


@dataclass
class TableShape:
    """What an expression needs to know to look a table up."""

    key_types: tuple[t.Type, ...]
    columns: dict[str, t.Type]


class ExprTyper:
    def __init__(self, book: Book, reporter: Reporter, tables: Mapping[str, TableShape]) -> None:
        self.book = book
        self.reporter = reporter
        self.tables = tables
        self.unrounded: dict[int, n.Binary] = {}
        """Dice scaled by a factor that may leave a fraction, not (yet) seen under a `round`."""

    # ------------------------------------------------------------------ entry points

    def infer(self, expr: n.Expr, scope: Scope, expected: t.Type | None = None) -> t.Type | None:
        result = self._infer(expr, scope, expected)
        if result is not None:
            self.book.types[expr] = result
        return result

    def condition(self, expr: n.Expr, scope: Scope) -> None:
        """Type a `when` / `unless` condition: it must be a yes/no value."""
        found = self.infer(expr, scope)
        if found is not None and not isinstance(found, t.Flag):
            example = "moved > 0"
            if isinstance(expr, n.NameRef) and isinstance(found, t.Numeric):
                example = f"{expr.name} > 0"
            elif isinstance(expr, n.NameRef) and isinstance(found, t.Enum) and found.members:
                example = f"{expr.name} == {found.members[-1]}"
            self.reporter.report(
                "E201",
                f"a condition must be yes or no, but this is {_a(found)}",
                expr.span,
                f"compare it with something, e.g. `{example}`",
            )

    def expect(self, expr: n.Expr, scope: Scope, expected: t.Type, what: str) -> t.Type | None:
        """Type `expr` where a value of type `expected` is needed."""
        found = self.infer(expr, scope, expected)
        if found is None:
            return None
        if not t.same_kind(expected, found):
            self.reporter.report("E201", f"{what} must be {_a(expected)}, but this is {_a(found)}", expr.span)
            return None
        if isinstance(expected, t.Numeric) and isinstance(found, t.Numeric):
            self._check_units(expected.unit, found.unit, expr, what)
        return found

    # ------------------------------------------------------------------ dispatch

    def _infer(self, expr: n.Expr, scope: Scope, expected: t.Type | None) -> t.Type | None:
        match expr:
            case n.NameRef():
                return self._name_ref(expr, scope, expected)
            case n.Number():
                return self._number(expr, scope, expected)
            case n.Compare():
                return self._compare(expr, scope, expected)
            case n.BoolOp():
                return self._bool_op(expr, scope, expected)
            case n.Member():
                return self._member(expr, scope, expected)
            case n.Binary():
                return self._binary(expr, scope, expected)
            case n.Lookup():
                return self._lookup(expr, scope, expected)
            case n.BaseRef():
                return self._base_ref(expr, scope, expected)
            case n.Not():
                return self._not(expr, scope, expected)
            case n.Call():
                return self._call(expr, scope, expected)
            case n.PerSteps():
                return self._per_steps(expr, scope, expected)
            case n.Rounded():
                return self._rounded(expr, scope, expected)
            case n.Negate():
                return self._negate(expr, scope, expected)
            case n.TextLiteral():
                return self._text_literal(expr, scope, expected)
            case n.Boolean():
                return self._boolean(expr, scope, expected)
            case n.DiceLiteral():
                return self._dice_literal(expr, scope, expected)
            case n.DiceCount():
                return self._dice_count(expr, scope, expected)
            case n.SpecialLiteral():
                return self._special_literal(expr, scope, expected)
            case n.PoolDice():
                return self._pool_dice(expr, scope, expected)
            case n.NamedDie():
                return self._named_die(expr, scope, expected)
            case n.PairedDice():
                return self._paired_dice(expr, scope, expected)
            case n.FacedDice():
                return self._faced_dice(expr, scope, expected)
            case n.CancellingDice():
                return self._cancelling_dice(expr, scope, expected)
            case n.LeftDie():
                return self._left_die(expr, scope, expected)
        raise TypeError(f"cannot type {type(expr).__name__}")

    def _number(self, expr: n.Number, scope: Scope, expected: t.Type | None) -> t.Type | None:
        kind = "int" if expr.value.denominator == 1 else "number"
        if expr.unit is not None:
            if expr.unit.text not in self.book.units:
                self.reporter.report(
                    "E101",
                    f"unknown unit `{expr.unit.text}`",
                    expr.unit.span,
                    did_you_mean(expr.unit.text, self.book.units) or f"declare it: unit {expr.unit.text}",
                )
                return None
            return t.Numeric(kind, expr.value, expr.value, expr.unit.text)
        # a bare number takes the unit of what it stands with: `moved > 3`, `hours - 2`
        unit = expected.unit if isinstance(expected, t.Numeric) else None
        return t.Numeric(kind, expr.value, expr.value, unit)

    def _dice_literal(self, expr: n.DiceLiteral, scope: Scope, expected: t.Type | None) -> t.Type | None:
        if not check_dice(expr.count, expr.sides, expr, self.reporter):
            return None
        return t.DICE

    def _text_literal(self, expr: n.TextLiteral, scope: Scope, expected: t.Type | None) -> t.Type:
        return t.TEXT

    def _boolean(self, expr: n.Boolean, scope: Scope, expected: t.Type | None) -> t.Type:
        return t.FLAG

    def _special_literal(self, expr: n.SpecialLiteral, scope: Scope, expected: t.Type | None) -> t.Type:
        return t.Cell(t.Numeric("int", None, None))

    def _name_ref(self, expr: n.NameRef, scope: Scope, expected: t.Type | None) -> t.Type | None:
        name = expr.name
        if isinstance(expected, t.Enum) and name in expected.members:
            self._ref(expr, "member", name)
            return expected
        if name in scope.specials:
            self._ref(expr, "special", name)
            return scope.specials[name]
        if name in scope.derives:
            self._ref(expr, "derive", name)
            return scope.derives[name]
        var = self.book.vars.get(name)
        if var is not None:
            self._ref(expr, "stat" if var.is_stat else "input", name)
            return var.type
        if name in scope.failed:
            return None
        if name in scope.later_derives:
            self.reporter.report(
                "E101",
                f"`{name}` is used before it is derived",
                expr.span,
                f"move `derive {name} = ...` above its first use",
            )
            return None
        owners = [v.type for v in self.book.vars.values() if isinstance(v.type, t.Enum) and name in v.type.members]
        distinct = {o.members for o in owners if isinstance(o, t.Enum)}
        if len(distinct) == 1 and isinstance(owners[0], t.Enum):
            self._ref(expr, "member", name)
            return owners[0]
        if isinstance(expected, t.Enum):
            # `weapon == lazer`: a misspelt choice, not a missing declaration
            self.reporter.report("E105", not_a_member(name, expected), expr.span, did_you_mean(name, expected.members))
            return None
        candidates = [*self.book.vars, *scope.derives, *scope.specials]
        self.reporter.report("E101", f"unknown name `{name}`", expr.span, did_you_mean(name, candidates))
        return None

    def _base_ref(self, expr: n.BaseRef, scope: Scope, expected: t.Type | None) -> t.Type | None:
        var = self.book.vars.get(expr.name)
        if var is None:
            self.reporter.report(
                "E101", f"unknown stat `{expr.name}`", expr.span, did_you_mean(expr.name, self.book.vars)
            )
            return None
        if not var.is_stat:
            self.reporter.report(
                "E104",
                f"`base` applies to stats, and `{expr.name}` is an input",
                expr.span,
                f"an input has no modifiers, so `{expr.name}` alone is its value",
            )
            return None
        self._ref(expr, "base", expr.name)
        return var.type

    def _call(self, expr: n.Call, scope: Scope, expected: t.Type | None) -> t.Type | None:
        name = expr.function.text
        if name not in FUNCTIONS:
            self.reporter.report(
                "E101",
                f"unknown function `{name}`",
                expr.function.span,
                did_you_mean(name, FUNCTIONS) or "the functions are min, max and abs",
            )
            return None
        fewest, most = FUNCTIONS[name]
        if len(expr.args) < fewest or (most is not None and len(expr.args) > most):
            count = f"{fewest}" if most == fewest else f"at least {fewest}"
            self.reporter.report("E205", f"`{name}` takes {count} argument(s), not {len(expr.args)}", expr.span)
            return None
        types = [self.infer(a, scope, expected) for a in expr.args]
        if name in ("min", "max") and any(isinstance(found, t.Dice) for found in types):
            return self._clamped_dice(expr, types)
        numerics: list[t.Numeric] = []
        for arg, found in zip(expr.args, types, strict=True):
            if found is None:
                return None
            if not isinstance(found, t.Numeric):
                self.reporter.report("E201", f"`{name}` takes numbers, but this is {_a(found)}", arg.span)
                return None
            numerics.append(found)
        unit = self._common_unit(numerics, expr, expr.args)
        kind = _join_kind(numerics)
        if name == "abs":
            only = numerics[0]
            if only.low is not None and only.high is not None:
                values = [abs(only.low), abs(only.high)]
                smallest = Fraction(0) if only.low <= 0 <= only.high else min(values)
                return t.Numeric(kind, smallest, max(values), unit)
            return t.Numeric(kind, None, None, unit)
        # an unbounded end is infinite: min(n, 20) is at most 20 whatever n; max(n, 0) at least 0
        lows = [x.low for x in numerics if x.low is not None]
        highs = [x.high for x in numerics if x.high is not None]
        if name == "min":
            low = min(lows) if len(lows) == len(numerics) else None
            high = min(highs) if highs else None
        else:
            low = max(lows) if lows else None
            high = max(highs) if len(highs) == len(numerics) else None
        return t.Numeric(kind, low, high, unit)

    def _clamped_dice(self, expr: n.Call, types: list[t.Type | None]) -> t.Type | None:
        """`max(damage - armour, 0)`: one dice value kept within one whole number, still dice;
        `max(exploding d8, exploding d6)`: the better (or worse) of two dice values."""
        name = expr.function.text
        dice = [arg for arg, found in zip(expr.args, types, strict=True) if isinstance(found, t.Dice)]
        if len(expr.args) == 2 and len(dice) == 2:
            return t.DICE
        if len(expr.args) != 2 or len(dice) != 1:
            self.reporter.report(
                "E205", f"`{name}` keeps one dice value within one number: {name}(DICE, NUMBER)", expr.span
            )
            return None
        bound, found = next((a, f) for a, f in zip(expr.args, types, strict=True) if not isinstance(f, t.Dice))
        if found is None:
            return None
        if not isinstance(found, t.Numeric) or found.kind != "int" or found.unit is not None:
            self.reporter.report(
                "E201", f"`{name}` keeps dice within a whole number, but this is {_a(found)}", bound.span
            )
            return None
        return t.Dice()

    def _lookup(self, expr: n.Lookup, scope: Scope, expected: t.Type | None) -> t.Type | None:
        shape = self.tables.get(expr.table.text)
        if shape is None:
            self.reporter.report(
                "E101",
                f"unknown table `{expr.table.text}`",
                expr.table.span,
                did_you_mean(expr.table.text, self.tables),
            )
            return None
        self._ref(expr, "table", expr.table.text)
        if len(expr.keys) != len(shape.key_types):
            self.reporter.report(
                "E205",
                f"table `{expr.table.text}` is looked up with {len(shape.key_types)} key(s), not {len(expr.keys)}",
                expr.span,
            )
            return None
        for key, key_type in zip(expr.keys, shape.key_types, strict=True):
            self.expect(key, scope, key_type, "a key of this table")
        if expr.column is None:
            if len(shape.columns) != 1:
                self.reporter.report(
                    "E108",
                    f"table `{expr.table.text}` has several columns; name one",
                    expr.span,
                    f"write `{expr.table.text}[...].{next(iter(shape.columns))}`",
                )
                return None
            return next(iter(shape.columns.values()))
        column = shape.columns.get(expr.column.text)
        if column is None:
            self.reporter.report(
                "E108",
                f"table `{expr.table.text}` has no column `{expr.column.text}`",
                expr.column.span,
                did_you_mean(expr.column.text, shape.columns),
            )
            return None
        return column

    def _negate(self, expr: n.Negate, scope: Scope, expected: t.Type | None) -> t.Type | None:
        found = self.infer(expr.operand, scope, expected)
        if found is None:
            return None
        if not isinstance(found, t.Numeric):
            self.reporter.report("E201", f"cannot negate {_a(found)}", expr.span)
            return None
        low, high = t.interval_neg(found)
        return t.Numeric(found.kind, low, high, found.unit)

    def _binary(self, expr: n.Binary, scope: Scope, expected: t.Type | None) -> t.Type | None:
        # a bare number takes the unit of what it is added to, never of what it scales
        inner = expected if expr.op in "+-" else None
        left = self.infer(expr.left, scope, inner)
        right = self.infer(expr.right, scope, inner)
        if left is None or right is None:
            return None
        if isinstance(expr.right, n.PerSteps) and isinstance(left, t.Dice):
            self.reporter.report(
                "E201",
                f"`per` adds dice written as dice (`1d6 per 10 ft of fall`), and `{expr_text(expr.left)}` is a dice value",
                expr.left.span,
                "write the dice themselves before `per`, e.g. `2d6 per ...`",
            )
            return None
        if isinstance(left, t.Dice) or isinstance(right, t.Dice):
            return self._dice_arithmetic(expr, left, right)
        if isinstance(left, t.Cell) or isinstance(right, t.Cell):
            if expr.op in "+-":
                number = left.number if isinstance(left, t.Cell) else left
                other = right.number if isinstance(right, t.Cell) else right
                if isinstance(number, t.Numeric) and isinstance(other, t.Numeric):
                    low, high = t.interval_add(number, other)
                    return t.Cell(t.Numeric(_join_kind([number, other]), low, high, number.unit))
            self.reporter.report(
                "E201", f"a table cell (which may be X or N/A) can only be added to, not `{expr.op}`", expr.span
            )
            return None
        if not isinstance(left, t.Numeric) or not isinstance(right, t.Numeric):
            bad = left if not isinstance(left, t.Numeric) else right
            self.reporter.report("E201", f"`{expr.op}` needs numbers, but one side is {_a(bad)}", expr.span)
            return None
        if expr.op in "+-":
            unit = self._common_unit([left, right], expr, (expr.left, expr.right))
            low, high = t.interval_add(left, right if expr.op == "+" else t.Numeric("int", *t.interval_neg(right)))
            return t.Numeric(_join_kind([left, right]), low, high, unit)
        unit = self._product_unit(left, right, expr)
        if expr.op == "*":
            low, high = t.interval_mul(left, right)
            return t.Numeric(_join_kind([left, right]), low, high, unit)
        if expr.op == "/":
            if right.low is not None and right.high is not None and right.low == right.high == 0:
                self.reporter.report("E301", "division by zero", expr.right.span)
                return None
            low, high = t.interval_div(left, right)
            kind = "percent" if left.kind == "percent" and right.unit is None else "number"
            return t.Numeric(kind, low, high, unit)
        # power: only whole exponents keep arithmetic exact
        if not right.integral:
            self.reporter.report("E201", "an exponent must be a whole number", expr.right.span)
            return None
        if right.low is None or right.high is None:
            self.reporter.report(
                "E301",
                "an exponent needs a bounded range: with no upper bound, a resolver could be asked for 2 ^ 1000000000",
                expr.right.span,
                "declare the range of the inputs it reads, e.g. `int 1..20`",
            )
            return None
        largest = max(abs(right.low), abs(right.high))
        if largest > 1000:
            self.reporter.report(
                "E301",
                f"an exponent as large as {largest} is not a game value",
                expr.right.span,
                "exponents up to 1000 are worked out exactly",
            )
            return None
        low, high = _power_bounds(left, right)
        return t.Numeric(left.kind if right.low is not None and right.low >= 0 else "number", low, high, unit)

    def _dice_arithmetic(self, expr: n.Binary, left: t.Type, right: t.Type) -> t.Type | None:
        if expr.op in "+-" and all(isinstance(s, (t.Dice, t.Numeric)) for s in (left, right)):
            if isinstance(right, t.Dice) and expr.op == "-":
                self.reporter.report("E201", "dice cannot be subtracted from something", expr.span)
                return None
            return t.DICE
        scaled = isinstance(left, t.Dice) and isinstance(right, t.Numeric)
        if expr.op == "*" and isinstance(left, t.Numeric) and isinstance(right, t.Dice):
            scaled = True
            left, right = right, left
        if scaled and expr.op in "*/" and isinstance(right, t.Numeric):
            # `3d10 * 10`, `1d6 / 2 round up`: the total is scaled after rolling; a factor that
            # may leave a fraction needs a rounding around it
            whole = right.integral and expr.op == "*"
            if not whole:
                self.unrounded[id(expr)] = expr
            if expr.op == "/" and right.low is not None and right.low == right.high == 0:
                self.reporter.report("E301", "division by zero", expr.right.span)
                return None
            return t.DICE
        self.reporter.report(
            "E201",
            f"dice can be added together or to a number, or scaled by a number, not combined with `{expr.op}`",
            expr.span,
            "to change the number of dice write `N d6`, e.g. `leak_turns d6`",
        )
        return None

    def _rounded(self, expr: n.Rounded, scope: Scope, expected: t.Type | None) -> t.Type | None:
        found = self.infer(expr.operand, scope, expected)
        if found is None:
            return None
        if isinstance(found, t.Dice):
            self.unrounded.pop(id(expr.operand), None)
            if not isinstance(expr.operand, n.Binary) or expr.operand.op not in "*/":
                self.reporter.report(
                    "E201",
                    "a rounding applies to dice scaled by a number (`1d6 / 2 round up`)",
                    expr.span,
                    "remove the rounding: dice show whole numbers",
                )
                return None
            return t.DICE
        if not isinstance(found, t.Numeric):
            self.reporter.report("E201", f"only numbers can be rounded, not {_a(found)}", expr.span)
            return None
        low, high = t.interval_round(found, expr.mode)
        return t.Numeric("percent" if found.kind == "percent" else "int", low, high, found.unit)

    def _per_steps(self, expr: n.PerSteps, scope: Scope, expected: t.Type | None) -> t.Type | None:
        """`per hour of exposure`: the quantity must be in the step's unit, and the step more
        than none; the count is then `exposure / 1 hour round down`, typed as written."""
        quantity, step = expr.quantity, expr.step
        found = self.infer(quantity, scope)
        if found is None or self.infer(step, scope) is None:
            return None
        assert step.unit is not None  # the grammar writes a unit after the step
        unit = step.unit.text
        steps = f"{expr_text(step) if expr.counted else unit} of {expr_text(quantity)}"
        if not isinstance(found, t.Numeric):
            self.reporter.report("E201", f"`per {steps}` counts a quantity, but this is {_a(found)}", quantity.span)
            return None
        if found.unit is None:
            self.reporter.report(
                "E202",
                f"`per {steps}` counts {self._unit_words(unit)}, but `{expr_text(quantity)}` is a plain number",
                quantity.span,
                f"{_unit_hint(quantity, unit)}; or, if it is already a count of {self._unit_words(unit)}, "
                f"use it as it is: `N * {expr_text(quantity)}` in a formula, `per {expr_text(quantity)}` after a modifier",
            )
            return None
        if found.unit != unit:
            self.reporter.report(
                "E202",
                f"`per {steps}` counts {unit}, but `{expr_text(quantity)}` is in {found.unit}",
                quantity.span,
                f"count steps of its own unit: `per {found.unit} of {expr_text(quantity)}`",
            )
            return None
        if step.value <= 0:
            self.reporter.report("E301", f"a step of `per` must be more than 0, not {expr_text(step)}", step.span)
            return None
        return self._rounded(expr, scope, expected)

    def _unit_words(self, unit: str) -> str:
        return self.book.units.get(unit) or unit

    def _dice_count(self, expr: n.DiceCount, scope: Scope, expected: t.Type | None) -> t.Type | None:
        found = self.infer(expr.count, scope)
        if found is None:
            return None
        if not isinstance(found, t.Numeric) or not found.integral:
            self.reporter.report(
                "E201",
                f"the number of dice must be a whole number, but this is {_a(found)}",
                expr.count.span,
                "round it first, e.g. `(x / 2 round up) d6`",
            )
            return None
        if found.unit is not None:
            self.reporter.report(
                "E202",
                f"a number of dice is a plain number, and this is in {found.unit}",
                expr.count.span,
                _count_hint(expr.count, found.unit),
            )
            return None
        if not check_dice(1, expr.sides, expr, self.reporter):
            return None
        return t.DICE

    def _pool_dice(self, expr: n.PoolDice, scope: Scope, expected: t.Type | None) -> t.Type | None:
        """`exploding d6`, `exploding (skill) d10 at most 4 times`: dice that explode; `highest 3 of
        (ring + skill) d10`, `highest 2 of (2d6 + exploding d6)`: the sum of the highest few."""
        found = self.infer(expr.operand, scope)
        if found is None:
            return None
        if not isinstance(found, t.Dice):
            self.reporter.report("E201", f"`{expr.op}` applies to dice, and this is {_a(found)}", expr.operand.span)
            return None
        value = isinstance(expr.operand, n.NameRef)  # a die whose size is a value: `exploding (trait)`
        if expr.op == "exploding" and not (isinstance(expr.operand, (n.DiceLiteral, n.DiceCount)) or value):
            self.reporter.report(
                "E203",
                "dice explode as they are rolled: write `exploding` before dice, e.g. `exploding d6`,"
                " `exploding (skill) d10`, or before a dice value, `exploding (trait)`",
                expr.operand.span,
            )
            return None
        if expr.op != "exploding" and not pooled_dice(expr.operand, self.book):
            self.reporter.report(
                "E203",
                f"`{expr.op}` keeps dice of a pool: dice added together (`2d6 + exploding d6`), not numbers"
                " or dice already read another way",
                expr.operand.span,
                f"keep from dice alone, e.g. `{expr.op} 2 of (2d6 + exploding d6)`",
            )
            return None
        if expr.ignoring is not None and expr.ignoring[1] is not None and expr.ignoring[1] < 1:
            # the dice of a pool show 1 and up: no face to pass over (the resolver would refuse it)
            self.reporter.report(
                "E303",
                f"no die shows a face of at most {expr.ignoring[1]}: the dice of a pool show 1 and up",
                expr.span,
                f"e.g. `{expr.op} 2 of (d6 + d8 + d8) ignoring 1`",
            )
            return None
        if expr.ignoring is not None and not self._bounded_keep(expr, "a keep passing over faces"):
            return None
        if expr.amount is not None:
            what = "how many times the dice explode" if expr.op == "exploding" else "how many dice are kept"
            amount = self.infer(expr.amount, scope)
            if amount is None:
                return None
            if not isinstance(amount, t.Numeric) or not amount.integral or amount.unit is not None:
                self.reporter.report("E201", f"{what} is a whole number, but this is {_a(amount)}", expr.amount.span)
                return None
            if amount.low is not None and amount.low < 1 and amount.high is not None and amount.high < 1:
                self.reporter.report("E301", f"{what} is at least 1", expr.amount.span)
                return None
            if amount.high is None or amount.high > MAX_DICE:
                reach = "has no upper bound" if amount.high is None else f"can reach {amount.high}"
                self.reporter.report(
                    "E303",
                    f"{what} `{expr_text(expr.amount)}` {reach}: chances are worked out for at most {MAX_DICE}",
                    expr.amount.span,
                    f"bound it, e.g. `min({expr_text(expr.amount)}, 10)`, or give what it reads a range",
                )
                return None
        return t.DICE

    def _left_die(self, expr: n.LeftDie, scope: Scope, expected: t.Type | None) -> t.Type | None:
        """`largest die left by highest 2 of (d6 + d8 + d8) ignoring 1 else 4`: the keep is
        checked as any keep; its value, a die's size, is a dice value (a distribution)."""
        found = self.infer(expr.keep, scope)
        if found is not None and expr.keep.ignoring is None and not self._bounded_keep(expr.keep, "the die a keep leaves"):
            return None
        return found

    def _bounded_keep(self, expr: n.PoolDice, what: str) -> bool:
        """A keep that passes over some faces, or whose leftover dice are read, of dice that
        explode without end is not worked out (E304): the dice past a horizon are not told apart."""
        endless = next(
            (x for x in walk(expr.operand) if isinstance(x, n.PoolDice) and x.op == "exploding" and x.amount is None), None
        )
        if endless is None:
            return True
        self.reporter.report(
            "E304",
            f"{what} is not worked out exactly when dice explode without end",
            endless.span,
            f"bound the explosions, e.g. `{expr_text(endless)} at most 5 times`",
        )
        return False

    def _faced_dice(self, expr: n.FacedDice, scope: Scope, expected: t.Type | None) -> t.Type | None:
        """`5d6 showing 6`: how many dice show some faces; `5d6 rerolling 2..5`: a push."""
        found = self.infer(expr.operand, scope)
        if found is None:
            return None
        if not isinstance(found, t.Dice) or not pooled_dice(expr.operand, self.book):
            what = "counts the dice" if expr.op == "showing" else "re-rolls the dice"
            self.reporter.report(
                "E203",
                f"`{expr.op}` {what} of a pool: dice added together (`5d6`, `(2d6 + exploding d6)`), not"
                " numbers or dice already read another way",
                expr.operand.span,
                f"e.g. `5d6 {expr.op} 6`",
            )
            return None
        if expr.op == "rerolling" and expr.high is not None and expr.high < 1:
            # the dice of a pool show 1 and up: no face to re-roll (the resolver would refuse it)
            self.reporter.report(
                "E303",
                f"no die shows a face of at most {expr.high}: the dice of a pool show 1 and up",
                expr.span,
                "e.g. `5d6 rerolling at most 5`",
            )
            return None
        return t.DICE

    def _cancelling_dice(self, expr: n.CancellingDice, scope: Scope, expected: t.Type | None) -> t.Type | None:
        """`(2d6 + exploding d6 as wild) cancelling highest when natural 1 on wild`: a die the
        pool names (E101), on faces it shows (E301), cancels it and the highest other die."""
        found = self.infer(expr.operand, scope)
        if found is None:
            return None
        if not isinstance(found, t.Dice) or not pooled_dice(expr.operand, self.book):
            self.reporter.report(
                "E203",
                "`cancelling` takes dice away from a pool: dice added together, one of them named"
                " (`2d6 + exploding d6 as wild`), not numbers or dice already read another way",
                expr.operand.span,
                "e.g. `(2d6 + exploding d6 as wild) cancelling highest when natural 1 on wild`",
            )
            return None
        named = {x.name.text: x for x in walk(expr.operand) if isinstance(x, n.NamedDie)}
        die = named.get(expr.die.text)
        if die is None:
            self.reporter.report(
                "E101",
                f"`cancelling` reads the die `{expr.die.text}`, which these dice do not name",
                expr.die.span,
                did_you_mean(expr.die.text, named) or "name a die of the pool: `2d6 + exploding d6 as wild`",
            )
            return None
        sides = die_sides(die.operand)
        if sides is not None and (expr.high < 1 or expr.low > sides):
            faces = str(expr.low) if expr.low == expr.high else f"{expr.low}..{expr.high}"
            self.reporter.report(
                "E301",
                f"`{expr.die.text}`, a d{sides}, never shows a natural {faces}: it cancels no dice",
                expr.span,
                f"the die shows 1 to {sides}",
            )
            return None
        return t.DICE

    def _paired_dice(self, expr: n.PairedDice, scope: Scope, expected: t.Type | None) -> t.Type | None:
        """`opposed 3d6 vs 2d6 by pairs`: the pairs the first side wins, its dice and the second's
        sorted and paired highest against highest."""
        found = True
        for side in (expr.first, expr.second):
            kind = self.infer(side, scope)
            if kind is None:
                found = False
            elif not isinstance(kind, t.Dice) or not pooled_dice(side, self.book):
                self.reporter.report(
                    "E203",
                    "pairs are dice against dice: each side dice added together (`3d6`, `(2d6 + d8)`), not"
                    " numbers or dice already read another way",
                    side.span,
                    "e.g. `opposed 3d6 vs 2d6 by pairs`",
                )
                found = False
        return t.DICE if found else None

    def _named_die(self, expr: n.NamedDie, scope: Scope, expected: t.Type | None) -> t.Type | None:
        """`exploding d6 as wild`: one die with a name (its natural face: `natural 1 on wild`)."""
        found = self.infer(expr.operand, scope)
        if found is None:
            return None
        if not isinstance(found, t.Dice) or (die_sides(expr.operand) is None and not self._one_die_value(expr.operand)):
            self.reporter.report(
                "E203",
                "a name belongs to one die: `d6 as wild`, `exploding d6 as wild`, or a dice stat of one die",
                expr.operand.span,
                "name one die and add the others: `2d6 + exploding d6 as wild`",
            )
            return None
        return t.DICE

    def _one_die_value(self, expr: n.Expr) -> bool:
        """A dice value of one die (`trait`, `exploding (trait)` with `stat trait: dice = 1d8`): a
        die whose size is a value, stepped by the rules; its default is one die (a value given
        with more is refused when resolving, as a bad input is)."""
        if isinstance(expr, n.PoolDice) and expr.op == "exploding":
            expr = expr.operand
        var = self.book.vars.get(expr.name) if isinstance(expr, n.NameRef) else None
        default = var.default if var is not None else None
        if not isinstance(default, Dice) or default.bonus or default.parts:
            return False
        return len(default.terms) == 1 and default.terms[0][0] == 1

    def _compare(self, expr: n.Compare, scope: Scope, expected: t.Type | None) -> t.Type | None:
        left = self.infer(expr.left, scope)
        right = self.infer(expr.right, scope, left)
        if left is None or right is None:
            return None
        if isinstance(expr.right, n.SpecialLiteral) and not isinstance(left, t.Cell):
            self.reporter.report(
                "E201", f"only a table cell may be {expr.right.text}, and this is {_a(left)}", expr.span
            )
            return None
        if isinstance(left, t.Numeric) and isinstance(right, t.Numeric):
            self._common_unit([left, right], expr, (expr.left, expr.right))
            return t.FLAG
        if isinstance(left, (t.Cell, t.Numeric)) and isinstance(right, (t.Cell, t.Numeric)):
            if expr.op in ("==", "!="):
                return t.FLAG
            self.reporter.report(
                "E201",
                f"a table cell may be X or N/A, which have no order: compare it with `==` or `!=`, not `{expr.op}`",
                expr.span,
            )
            return None
        if isinstance(left, t.Enum) and isinstance(right, t.Enum) and left.members == right.members:
            if expr.op not in ("==", "!=") and not left.ordered:
                self.reporter.report(
                    "E203",
                    f"`{expr.op}` needs ordered levels, and {left.describe()} has no order",
                    expr.span,
                    "declare the type as `levels {a < b < c}` to compare with < and >",
                )
                return None
            return t.FLAG
        if type(left) is type(right) and isinstance(left, (t.Flag, t.Text)) and expr.op in ("==", "!="):
            return t.FLAG
        hint = None
        if isinstance(left, t.Flag) and isinstance(expr.left, n.NameRef):
            hint = f"a flag is yes or no: write `{expr.left.name}` or `not {expr.left.name}`"
        self.reporter.report("E201", f"cannot compare {_a(left)} with {_a(right)} using `{expr.op}`", expr.span, hint)
        return None

    def _member(self, expr: n.Member, scope: Scope, expected: t.Type | None) -> t.Type | None:
        found = self.infer(expr.operand, scope)
        if found is None:
            return None
        if not isinstance(found, t.Enum):
            self.reporter.report(
                "E201", f"`in {{...}}` tests a choice among names, but this is {_a(found)}", expr.operand.span
            )
            return None
        for member in expr.members:
            if member.text not in found.members:
                self.reporter.report(
                    "E105",
                    not_a_member(member.text, found),
                    member.span,
                    did_you_mean(member.text, found.members),
                )
        return t.FLAG

    def _not(self, expr: n.Not, scope: Scope, expected: t.Type | None) -> t.Type | None:
        self.condition(expr.operand, scope)
        return t.FLAG

    def _bool_op(self, expr: n.BoolOp, scope: Scope, expected: t.Type | None) -> t.Type | None:
        self.condition(expr.left, scope)
        self.condition(expr.right, scope)
        return t.FLAG

    # ------------------------------------------------------------------ helpers

    def _ref(self, expr: n.Expr, kind: str, name: str) -> None:
        self.book.refs[expr] = Ref(kind, name)  # type: ignore[arg-type]

    def _check_units(self, want: str | None, got: str | None, expr: n.Node, what: str) -> None:
        if want is not None and got is not None and want != got:
            self.reporter.report("E202", f"{what} is in {want}, but this is in {got}", expr.span)

    def _common_unit(self, sides: list[t.Numeric], expr: n.Node, operands: tuple[n.Expr, ...]) -> str | None:
        """The unit of quantities added, compared or weighed together: the same for all.  A bare
        number takes it (`moved > 3`); a value read from a name without a unit does not: hours
        and a plain count are not one quantity."""
        units = {s.unit for s in sides if s.unit is not None}
        if len(units) > 1:
            self.reporter.report("E202", f"cannot combine {' and '.join(sorted(units))} in one quantity", expr.span)
            return None
        if units:
            unit = next(iter(units))
            for side, operand in zip(sides, operands, strict=True):
                if side.unit is None and not _plain_number(operand):
                    carrier = next(o for s, o in zip(sides, operands, strict=True) if s.unit == unit)
                    self.reporter.report(
                        "E202",
                        f"`{expr_text(operand)}` is a plain number, combined here with a quantity in {unit}",
                        operand.span,
                        self._plain_hint(operand, carrier, unit),
                        new=PLAIN_BESIDE_QUANTITY,
                    )
                    return None
        return units.pop() if units else None

    def _plain_hint(self, operand: n.Expr, carrier: n.Expr, unit: str) -> str:
        """Either side may be the mistake: the plain value lacks the unit, or the quantity took
        a unit it should not have (`derive heat_DC = 4 + hours` is in hours, where the rules mean
        a DC that grows by 1 per hour).  The second fix divides by one of the unit where the
        unit comes in: `hours / 1 hour` is a plain count."""
        first = _unit_hint(operand, unit)
        counted = self.book.units.get(unit) or unit
        declared = {v.name: v.type for v in self.book.vars.values() if isinstance(v.type, t.Numeric) and v.type.unit == unit}
        read = [x.name for x in _names(carrier)]
        if len(declared) == 1 and read != list(declared):
            source, type_ = next(iter(declared.items()))
            return (
                f"{first}; or, if `{expr_text(carrier)}` is not a number of {counted}, count the {counted} where "
                f"`{source}` comes into it: {_count_of(source, type_, unit, counted)}"
            )
        if read:
            count = _count_of(read[0], declared.get(read[0]), unit, counted)
            return f"{first}; or, if `{read[0]}` is a plain count here, write {count}"
        return first

    def _product_unit(self, left: t.Numeric, right: t.Numeric, expr: n.Binary) -> str | None:
        if left.unit and right.unit:
            if expr.op == "/" and left.unit == right.unit:
                return None  # feet / feet: a plain number (`height / 10 ft`)
            self.reporter.report(
                "E202",
                f"multiplying or dividing {left.unit} by {right.unit} gives a unit rulecraft does not track",
                expr.span,
            )
            return None
        if right.unit and expr.op == "/":
            self.reporter.report(
                "E202",
                f"dividing by a quantity in {right.unit} gives a unit rulecraft does not track",
                expr.span,
                f"divide a quantity in {right.unit} by it to get a plain number",
            )
            return None
        return left.unit or right.unit


def _count_of(name: str, type_: t.Type | None, unit: str, counted: str) -> str:
    """The plain count of a quantity, as the fix of an E202 writes it: `1 per hour of hours`
    ("+1 per hour": the whole hours, which for whole numbers is all of them), or, for a value
    that may be a fraction, `hours / 1 hour` (exact)."""
    if isinstance(type_, t.Numeric) and type_.integral:
        return f"`1 per {unit} of {name}`"
    return f"`{name} / 1 {unit}` (exact; `1 per {unit} of {name}` counts the whole {counted})"


def _count_hint(count: n.Expr, unit: str) -> str:
    """How to turn a quantity into a count: divide it by a quantity of the same unit."""
    names = _names(count)
    subject = names[0].name if names else expr_text(count)
    return f"divide by the {unit} one counts for: `{subject} / 2 {unit}` is a plain number (round it as needed)"


def _unit_hint(operand: n.Expr, unit: str) -> str:
    """Where the unit is missing: a number written in the formula, or a value declared without it."""
    stack = [operand]
    while stack:
        node = stack.pop()
        if isinstance(node, n.Number) and node.unit is None:
            return f"write the number with its unit: `{node.literal} {unit}`"
        if isinstance(node, n.Binary) and node.op in "*/":
            stack += [node.right, node.left]
    names = sorted({x.name for x in _names(operand)})
    if names:
        return f"declare `{names[0]}` in {unit} (`... {unit}` after its range)"
    return f"give the value the unit {unit}"


def _names(expr: n.Expr) -> list[n.NameRef]:
    found: list[n.NameRef] = []
    stack: list[object] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, n.NameRef):
            found.append(node)
        if isinstance(node, n.Expr):
            stack += [getattr(node, f) for f in node.__dataclass_fields__ if f != "span"]
        elif isinstance(node, tuple):
            stack += list(node)
    return found


def _plain_number(expr: n.Expr) -> bool:
    """A number written as it is (`3`, `-2`, `1/2`): it takes the unit of what it stands with."""
    if isinstance(expr, n.Number):
        return expr.unit is None
    if isinstance(expr, n.Negate):
        return _plain_number(expr.operand)
    if isinstance(expr, n.Binary):
        return _plain_number(expr.left) and _plain_number(expr.right)
    return False


def _power_bounds(base: t.Numeric, exponent: t.Numeric) -> tuple[Fraction | None, Fraction | None]:
    """The range of base ^ exponent, when both ranges are known and the exponents few."""
    if None in (base.low, base.high, exponent.low, exponent.high):
        return None, None
    assert base.low is not None and base.high is not None
    assert exponent.low is not None and exponent.high is not None
    first, last = int(exponent.low), int(exponent.high)
    if last - first > 64 or max(abs(first), abs(last)) > 1000:
        return None, None
    bases = {base.low, base.high} | ({Fraction(0)} if base.low < 0 < base.high else set())
    if first < 0 and base.low <= 0 <= base.high:
        return None, None
    values = [b**e for b in bases for e in range(first, last + 1)]
    return min(values), max(values)


def _join_kind(sides: list[t.Numeric]) -> str:
    kinds = {s.kind for s in sides}
    if "number" in kinds:
        return "number"
    if "percent" in kinds:
        return "percent"
    return "int"


def _a(type_: t.Type) -> str:
    if isinstance(type_, t.Numeric) and type_.low is not None and type_.low == type_.high:
        number = type_.low
        shown = str(number.numerator) if number.denominator == 1 else str(number)
        return f"the number {shown}" + (f" {type_.unit}" if type_.unit else "")
    if isinstance(type_, t.Enum) and type_.name is None:
        return ("one of " if not type_.ordered else "a level of ") + choices(type_)
    text = type_.describe()
    return ("an " if text[:1] in "aeiou" else "a ") + text


def describe(type_: t.Type) -> str:
    return _a(type_)


def choices(type_: t.Enum) -> str:
    """The members of an enumeration as a designer wrote them: `{a, b, c}` or `{a < b < c}`."""
    return "{" + (" < " if type_.ordered else ", ").join(type_.members) + "}"


def not_a_member(name: str, type_: t.Enum) -> str:
    return f"`{name}` is not one of {choices(type_)}"


MAX_DICE = 100
MAX_SIDES = 1000
MAX_TOTALS = 10_000
"""A pool's distribution is computed exactly when compiling and written into the generated module:
these bound its size (100d100 has 9,901 totals; d100, 10d10 and 4d6 are far inside)."""

MAX_KEPT = 1_200
"""Dice times sides of a pool whose highest or lowest few are summed (`highest 3 of 5d10`): the
work grows with both, and 30d40 (a second to compile) is far past any table's pool."""


MAX_EXPLODING = 1_000
"""The highest total of exploding dice whose chances are worked out (they have no highest total):
a resolver adds the dice one by one up to it, in whole numbers that grow with the total, and
1,000 (past any target a table sets: 20d6 reaching 1,000 is a tenth of a second) keeps the first
call quick."""

MAX_EXPLODING_DICE = 20
"""Exploding dice in one pool: a resolver works their totals out to twice their dice times sides
at least, within MAX_EXPLODING."""


def pooled_dice(expr: n.Expr, book: Book | None = None) -> bool:
    """Dice that can be kept from as one pool: dice added together, each plain, exploding or
    named (`2d6 + exploding d6 as wild`, `(ring + skill) d10`), or dice values of the book (by
    their inferred type) such as Cortex's traits held in dice stats (`attribute + skill +
    distinction`), whose default is dice alone; their dice are pooled when resolving (a value
    given with a number added to its dice is refused then, as a bad input is).  A derived value
    is not: it may be dice with a number added, or dice already read another way."""
    if isinstance(expr, (n.DiceLiteral, n.DiceCount)):
        return True
    if isinstance(expr, n.NameRef):
        if book is None or not isinstance(book.types.get(expr), t.Dice):
            return False
        var = book.vars.get(expr.name)  # a stat or an input; a derived value may be dice read another way
        if var is None:
            return False
        default = var.default
        return not isinstance(default, Dice) or (not default.bonus and not default.parts)
    if isinstance(expr, n.PoolDice):
        return expr.op == "exploding"
    if isinstance(expr, n.NamedDie):
        return pooled_dice(expr.operand, book)
    if isinstance(expr, n.FacedDice) and expr.op == "rerolling":
        return pooled_dice(expr.operand, book)
    if isinstance(expr, n.Binary) and expr.op == "+":
        return pooled_dice(expr.left, book) and pooled_dice(expr.right, book)
    return False


def die_sides(expr: n.Expr) -> int | None:
    """The sides of one die written alone (`d6`, `exploding d6`), else None."""
    if isinstance(expr, n.DiceLiteral) and expr.count == 1:
        return expr.sides
    if isinstance(expr, n.PoolDice) and expr.op == "exploding":
        return die_sides(expr.operand)
    return None


def check_dice(count: int, sides: int, node: n.Node, reporter: Reporter) -> bool:
    """A pool someone can roll, and whose exact probabilities can be computed; else E303."""
    what = f"{count}d{sides}" if count != 1 else f"d{sides}"
    if isinstance(node, n.Pool) and node.keep == "fate":
        what = f"{count}dF"
    if sides < 2 or count < 1:
        hint = "a die has 2 sides or more" if sides < 2 else "roll at least one die"
        reporter.report("E303", f"`{what}` is not a roll anyone can make", node.span, hint)
        return False
    keep = node.keep if isinstance(node, n.Pool) else None
    kept = keep.partition(" ")[2] if keep else ""
    if keep in ("highest", "lowest"):
        totals = sides
    elif keep == "fate":
        totals = 2 * count + 1
    elif kept:
        totals = int(kept) * (sides - 1) + 1
    else:
        totals = count * (sides - 1) + 1
    if kept and int(kept) > count:
        reporter.report(
            "E303",
            f"`{keep} of {what}` keeps more dice than it rolls",
            node.span,
            f"keep at most {count}",
        )
        return False
    if keep and kept and count * sides > MAX_KEPT:
        reporter.report(
            "E303",
            f"`{keep} of {what}` is too big a roll: summing the {keep.split()[0]} dice of a pool is worked out "
            f"for dice times sides up to {MAX_KEPT:,}",
            node.span,
            f"keep from fewer or smaller dice: {count}d{sides} is {count * sides:,} dice times sides",
        )
        return False
    if keep == "exploding" and (count > MAX_EXPLODING_DICE or 2 * count * sides > MAX_EXPLODING):
        reporter.report(
            "E303",
            f"`exploding {what}` is too big a roll: exploding dice are worked out for at most "
            f"{MAX_EXPLODING_DICE} dice, and dice times sides up to {MAX_EXPLODING // 2}",
            node.span,
            f"roll fewer or smaller exploding dice: {count}d{sides} is {count * sides:,} dice times sides",
        )
        return False
    if count > MAX_DICE:
        reason = f"exact probabilities for more than {MAX_DICE} dice are out of reach"
    elif sides > MAX_SIDES:
        reason = f"exact probabilities for dice of more than {MAX_SIDES} sides are out of reach"
    elif totals > MAX_TOTALS:
        reason = f"it has {totals:,} possible totals; exact probabilities for more than {MAX_TOTALS:,} are out of reach"
    else:
        return True
    reporter.report(
        "E303",
        f"`{what}` is too big a roll: {reason}",
        node.span,
        f"roll at most {MAX_DICE} dice of at most {MAX_SIDES} sides ({MAX_TOTALS:,} totals at most);"
        " describe a bigger roll in a `note`",
    )
    return False
