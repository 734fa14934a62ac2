"""E501 / W502: conditions that can never hold, or always hold, given the inputs' ranges.

Each condition is judged in its context (the conditions enclosing it), so `when depth == knee`
inside `when depth == ankle` is caught as well as `when moved > 60` for an input that stops at 60.
"""

from __future__ import annotations

import dataclasses

from dsl import model as m
from dsl import nodes as n
from dsl.checks.domain import DNF, TRUE, conjoin, dnf, readable, satisfiable
from dsl.diagnostics import Reporter
from dsl.model.exprs import walk
from dsl.printer import expr_text


def check_reachability(book: m.Book, reporter: Reporter) -> None:
    for part in book.parts.values():
        for effect in part.effects:
            context = _judge(effect.guard, TRUE, book, reporter)
            if context is not None and isinstance(effect, m.RollEffect):
                for change in effect.changes:
                    _judge(change.guard, context, book, reporter)


def _judge(guard: tuple[m.Condition, ...], context: DNF, book: m.Book, reporter: Reporter) -> DNF | None:
    """Walk a guard's conditions in order; report the first that cannot hold; return the context."""
    current = context
    outer: list[m.Condition] = []
    for condition in guard:
        holds = dnf(condition.expr, book, condition.negated)
        after = conjoin(current, holds)
        if not satisfiable(after, book):
            _never(condition, outer, satisfiable(holds, book), book, reporter)
            return None
        fails = conjoin(current, dnf(condition.expr, book, not condition.negated))
        if readable(condition.expr, book) and not satisfiable(fails, book):
            text = expr_text(condition.expr)
            if condition.negated:
                message = f"`{text}` can never hold here, so `unless` / `else` changes nothing"
            else:
                message = f"`{text}` always holds here"
            reporter.report("W502", message, condition.expr.span, _always_hint(condition.expr))
        current = after
        outer.append(condition)
    return current


def _always_hint(expr: n.Expr) -> str:
    if isinstance(expr, n.Compare) and expr.op in ("<=", ">="):
        strict = expr_text(dataclasses.replace(expr, op="<" if expr.op == "<=" else ">"))
        return f"remove the condition, or fix the comparison: did you mean `{strict}`?"
    return "remove the condition, or fix the comparison"


def _never(condition: m.Condition, outer: list[m.Condition], alone: bool, book: m.Book, reporter: Reporter) -> None:
    text = expr_text(condition.expr)
    if condition.negated:
        message = f"`{text}` always holds, so what depends on `unless` / `else` never applies"
    else:
        message = f"`{text}` can never hold"
    if alone and outer:
        enclosing = "; ".join(f"{'unless' if c.negated else 'when'} {expr_text(c.expr)}" for c in outer)
        message += f" together with `{enclosing}`"
        hint: str | None = "the enclosing conditions already rule it out"
    else:
        hint = _ranges(condition, book)
    reporter.report("E501", message, condition.expr.span, hint)


def _ranges(condition: m.Condition, book: m.Book) -> str | None:
    parts = []
    for node in walk(condition.expr):
        ref = book.refs.get(node)
        if ref is not None and ref.kind in ("input", "base") and ref.name in book.vars:
            described = f"`{ref.name}` is {book.vars[ref.name].type.describe()}"
            if described not in parts:
                parts.append(described)
    return "; ".join(parts) if parts else None
