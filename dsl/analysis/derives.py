"""`derive NAME = VALUE`: a value worked out from others, named for the conditions and values
that follow it (and for a resolution to report)."""

from __future__ import annotations

import dataclasses
from typing import Any

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.analysis.context import Context, text
from dsl.analysis.infer import Scope, describe
from dsl.diagnostics import did_you_mean
from dsl.model.exprs import substitute


def analyze_derive(
    cx: Context, statement: n.DeriveStmt, base: dict[str, Any], bindings: dict[str, n.Expr], scope: Scope
) -> m.DeriveEffect | None:
    """The derived value, checked; None when it is not (its error reported), and then what reads
    it later is not told again that it is used before it is derived."""
    effect = _derive(cx, statement, base, bindings, scope)
    if effect is None:
        scope.failed.add(statement.name.text)
    return effect


def _derive(
    cx: Context, statement: n.DeriveStmt, base: dict[str, Any], bindings: dict[str, n.Expr], scope: Scope
) -> m.DeriveEffect | None:
    name = statement.name.text
    if not cx.check_name(statement.name, "derived value"):
        return None
    if name in cx.book.vars:
        cx.reporter.report(
            "E102", f"`{name}` is already an input or stat", statement.name.span, f"call it `{name}_effective`"
        )
        return None
    owner = cx.derive_owner.setdefault(name, str(base["origin"]))
    if owner != base["origin"]:
        cx.reporter.report("E102", f"`{name}` is already derived by rule `{owner}`", statement.name.span)
        return None
    unit = None
    if statement.unit is not None:
        unit = statement.unit.text
        if unit not in cx.book.units:
            cx.reporter.report("E101", f"unknown unit `{unit}`", statement.unit.span, did_you_mean(unit, cx.book.units))
            return None
    value = substitute(statement.value, bindings)
    expected = t.Numeric("number", unit=unit) if unit else None
    found = cx.typer.infer(value, scope, expected)
    if found is None:
        return None
    if unit is not None:
        if not isinstance(found, t.Numeric):
            cx.reporter.report("E201", f"a value in {unit} must be a number, but this is {describe(found)}", value.span)
            return None
        if found.unit not in (None, unit):
            cx.reporter.report(
                "E202",
                f"`{name}` is in {unit}, but this is in {found.unit}",
                value.span,
                f"convert the value to {unit}, or declare `{name}` in {found.unit}",
            )
            return None
        found = dataclasses.replace(found, unit=unit)
    scope.derives[name] = found
    return m.DeriveEffect(**base, name=name, label=text(statement.label), unit=unit, value=value, type=found)
