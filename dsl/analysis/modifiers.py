"""Modifiers: `STAT OPERATION [in GROUP] ["label"]`, checked against the stat's type (what it
may take, whole numbers, the range a fixed value leaves it in) and turned into ModEffects."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.analysis.context import Context, num, signed, text, through
from dsl.analysis.infer import Scope, describe
from dsl.analysis.vocabulary import loose
from dsl.diagnostics import did_you_mean
from dsl.model.exprs import substitute
from dsl.printer import expr_text
from dsl.semantics import constant_value, is_number

_MOD_KINDS: dict[type, str] = {
    n.AddMod: "add",
    n.MulMod: "mul",
    n.DivMod: "div",
    n.SetMod: "set",
    n.MinMod: "min",
    n.MaxMod: "max",
    n.GradeMod: "grade",
    n.DiceMod: "dice",
    n.StepMod: "step",
    n.ShiftMod: "shift",
}

MAX_EXPONENT = 1000
"""The largest exponent worked out when compiling (`10 ^ 10 ^ 10` would never finish)."""

MAX_POOL = 100
"""The most dice a roll's pool may reach through its changes (the checker bounds pools too)."""

_COUNTED = {"dice": "dice", "step": "die steps", "shift": "levels"}

_MOD_WORDS = {
    "add": "adding or subtracting",
    "mul": "multiplying",
    "div": "dividing",
    "set": "setting",
    "min": "a minimum",
    "max": "a maximum",
    "grade": "a difficulty grade",
    "dice": "adding or removing dice",
    "step": "stepping the die size",
    "shift": "shifting by levels",
}


def _allowed(type_: t.Type, kind: str) -> bool:
    if isinstance(type_, t.Numeric):
        return kind in ("add", "mul", "div", "set", "min", "max", "grade")
    if isinstance(type_, t.Dice):
        return kind in ("add", "mul", "div", "set", "dice", "step")
    if isinstance(type_, t.Enum):
        return kind in ("set", "shift", "min", "max") if type_.ordered else kind == "set"
    return kind == "set"


def _allowed_hint(type_: t.Type) -> str:
    if isinstance(type_, t.Numeric):
        return "numbers take +N, -N, * N, / N, = N, min N, max N and `is GRADE`"
    if isinstance(type_, t.Dice):
        return "dice take +N, -N, +N dice, -N dice, +N steps, * N, / N and = NdS"
    if isinstance(type_, t.Enum) and type_.ordered:
        return "levels take = LEVEL, +N levels, -N levels, min LEVEL and max LEVEL"
    return "this stat can only be set: `= VALUE`"


def _literal(expr: n.Expr) -> Fraction:
    assert isinstance(expr, n.Number)
    return expr.value


def analyze_modifier(
    cx: Context, statement: n.Modifier, base: dict[str, Any], bindings: dict[str, n.Expr], scope: Scope
) -> m.ModEffect | None:
    target = statement.target.text
    var = cx.book.vars.get(target)
    if var is None:
        cx.reporter.report(
            "E101",
            f"unknown stat `{target}`",
            statement.target.span,
            did_you_mean(target, [v for v, x in cx.book.vars.items() if x.is_stat]),
        )
        return None
    if not var.is_stat:
        cx.reporter.report(
            "E206",
            f"`{target}` is an input of the situation; only stats can be modified",
            statement.target.span,
            f"declare it with `stat {target}: ...` if rules change it",
        )
        return None
    op = statement.op
    kind = _MOD_KINDS[type(op)]
    if not _allowed(var.type, kind):
        cx.reporter.report(
            "E203",
            f"{_MOD_WORDS[kind]} cannot apply to `{target}`, which is {describe(var.type)}",
            statement.span,
            _allowed_hint(var.type),
        )
        return None
    fields: dict[str, Any] = {
        "target": target,
        "op": kind,
        "value": None,
        "rounding": None,
        "per": None,
        "percent": False,
        "delta": 0,
        "grade": None,
        "group": None,
        "label": text(statement.label),
    }
    stat_type = var.type
    if isinstance(op, n.AddMod):
        value = substitute(op.value, bindings)
        if op.percent and not (isinstance(stat_type, t.Numeric) and stat_type.kind == "percent"):
            cx.reporter.report(
                "E203",
                f"`%` changes a percentage, and `{target}` is {describe(stat_type)}",
                op.span,
                f"write `{target} {signed(_literal(op.value))}` to change it by points"
                if isinstance(op.value, n.Number)
                else None,
            )
            return None
        if isinstance(stat_type, t.Dice):
            found = cx.typer.infer(value, scope)
            if found is not None and not isinstance(found, (t.Numeric, t.Dice)):
                cx.reporter.report("E201", f"dice are changed by a number or dice, not {describe(found)}", value.span)
        else:
            found_change = cx.typer.expect(value, scope, loose(stat_type), "the change")
            if op.per is None:
                _whole(cx, found_change, stat_type, op.value, target, "+")
        fields["value"] = value
        fields["percent"] = op.percent
        if op.per is not None:
            per = substitute(op.per, bindings)
            found = cx.typer.infer(per, scope)
            if found is not None and not (isinstance(found, t.Numeric) and found.integral):
                cx.reporter.report(
                    "E201",
                    f"`per` counts whole units, but this is {describe(found)}",
                    per.span,
                    "`per N` applies the change N times: N is a count, such as a number of hexes",
                )
            fields["per"] = per
    elif isinstance(op, (n.MulMod, n.DivMod)):
        value = substitute(op.factor if isinstance(op, n.MulMod) else op.divisor, bindings)
        cx.typer.expect(value, scope, t.Numeric("number"), "the factor")
        needs_rounding = not (isinstance(stat_type, t.Numeric) and stat_type.kind == "number")
        if op.rounding is None and needs_rounding:
            scaled = f"{target} {'*' if isinstance(op, n.MulMod) else '/'} {expr_text(value)}"
            cx.reporter.report(
                "E204",
                f"`{target}` holds whole numbers: say how to round",
                through(statement.target.span, op.span),
                f"write `{scaled} round up`, `round down` or `round nearest`",
            )
            return None
        fields["value"] = value
        fields["rounding"] = op.rounding
    elif isinstance(op, (n.SetMod, n.MinMod, n.MaxMod)):
        value = substitute(op.value, bindings)
        found_value = cx.typer.expect(value, scope, loose(stat_type), "the value")
        if found_value is None:
            return None
        _whole(cx, found_value, stat_type, value, target)
        if not _within(cx, target, kind, value, stat_type, statement):
            return None
        fields["value"] = value
    elif isinstance(op, n.GradeMod):
        names = [g.name for g in cx.book.grades]
        if op.grade.text not in names:
            cx.reporter.report(
                "E101",
                f"unknown grade `{op.grade.text}`",
                op.grade.span,
                did_you_mean(op.grade.text, names) or "declare the scale with `grades:`",
            )
            return None
        fields["grade"] = op.grade.text
    else:
        assert isinstance(op, (n.DiceMod, n.StepMod, n.ShiftMod))
        count = substitute(op.delta, bindings)
        found_count = cx.typer.expect(count, scope, t.Numeric("int"), "the number of " + _COUNTED[kind])
        if found_count is None:
            return None
        if not (isinstance(found_count, t.Numeric) and found_count.integral):
            cx.reporter.report(
                "E204",
                f"the number of {_COUNTED[kind]} may be a fraction: say how to round it",
                count.span,
                f"write `({expr_text(count)} round down)`",
            )
            return None
        constant = constant_value(count, cx.book)
        if isinstance(constant, int) and not isinstance(constant, bool):
            fields["delta"] = constant
        else:
            fields["value"] = count
    if statement.group is not None:
        if statement.group.text not in cx.book.groups:
            cx.reporter.report(
                "E101",
                f"unknown group `{statement.group.text}`",
                statement.group.span,
                did_you_mean(statement.group.text, cx.book.groups),
            )
            return None
        fields["group"] = statement.group.text
    return m.ModEffect(**base, **fields)


def _within(cx: Context, target: str, kind: str, value: n.Expr, stat_type: t.Type, statement: n.Modifier) -> bool:
    """A fixed `= N`, `min N` or `max N` must leave the stat a value its range allows."""
    constant = constant_value(value, cx.book)
    if not isinstance(stat_type, t.Numeric) or not is_number(constant):
        return True
    number = Fraction(constant)  # type: ignore[arg-type]
    low, high = stat_type.low, stat_type.high
    outside = (
        (kind == "set" and not stat_type.contains(number))
        or (kind == "min" and high is not None and number > high)
        or (kind == "max" and low is not None and number < low)
    )
    if outside:
        word = "=" if kind == "set" else kind
        cx.reporter.report(
            "E301",
            f"`{target} {word} {num(number)}` takes `{target}` outside its range, {stat_type.describe()}",
            through(statement.target.span, statement.op.span),
            f"fix the value, or widen the range of `{target}`",
        )
    return not outside


def _whole(cx: Context, found: t.Type | None, stat_type: t.Type, value: n.Expr, target: str, op: str = "=") -> None:
    """A stat of whole numbers takes whole-number values: a fraction must say how it rounds."""
    if isinstance(found, t.Numeric) and isinstance(stat_type, t.Numeric) and stat_type.integral and not found.integral:
        cx.reporter.report(
            "E204",
            f"`{target}` holds whole numbers, but this value may be a fraction: say how to round it",
            value.span,
            f"write `{target} {op} ({expr_text(value)} round down)` (or `round up`, `round nearest`)",
        )
