"""E503 / W504: modifiers that cannot all be true at once.

Two `= value` modifiers of one stat with different values, or a minimum above a maximum, whose
conditions can hold together: within one rule that is an error (the rule says two things); across
rules it is a warning, since only resolving both together brings them into conflict.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

from dsl import model as m
from dsl.analysis import constant_value
from dsl.checks.domain import DNF, TRUE, conjoin, dnf, satisfiable
from dsl.diagnostics import Reporter
from dsl.printer import modifier_text


def check_contradictions(book: m.Book, reporter: Reporter) -> None:
    seen: set[tuple[str, str]] = set()
    by_stat: dict[str, list[tuple[str, m.ModEffect]]] = {}
    for rule in book.rules.values():
        for effect in rule.effects:
            if isinstance(effect, m.ModEffect) and effect.op in ("set", "min", "max"):
                by_stat.setdefault(effect.target, []).append((rule.name, effect))
    for pairs in by_stat.values():
        for (rule_a, a), (rule_b, b) in combinations(pairs, 2):
            if a.key == b.key or (a.key, b.key) in seen:
                continue
            if not _conflict(a, b, book):
                continue
            guard = conjoin(_guard(a, book), _guard(b, book))
            if not satisfiable(guard, book):
                continue
            seen.add((a.key, b.key))
            first, second = sorted((a, b), key=lambda e: (e.span.path, e.span.line, e.span.column))
            message = f"`{modifier_text(second)}` contradicts `{modifier_text(first)}` (line {first.span.line})"
            if rule_a == rule_b:
                reporter.report(
                    "E503",
                    message,
                    second.span,
                    "their conditions can hold at the same time: make them exclusive (`else`), or keep one",
                )
            elif a.origin != b.origin:
                reporter.report(
                    "W504",
                    message + f" when rules `{rule_a}` and `{rule_b}` apply together",
                    second.span,
                    _resolution(a, b, book) + "; make their conditions exclusive if they should never meet",
                )


def _guard(effect: m.ModEffect, book: m.Book) -> DNF:
    result = TRUE
    for condition in effect.guard:
        result = conjoin(result, dnf(condition.expr, book, condition.negated))
    return result


def _resolution(a: m.ModEffect, b: m.ModEffect, book: m.Book) -> str:
    """What the resolver does with the pair: the minimum beats a maximum; the last `=` applied wins."""
    if {a.op, b.op} == {"min", "max"}:
        floor = a if a.op == "min" else b
        assert floor.value is not None
        return f"resolved together, the minimum wins: `{floor.target}` is {constant_value(floor.value, book)}"
    return "resolved together, the one applied last wins"


def _conflict(a: m.ModEffect, b: m.ModEffect, book: m.Book) -> bool:
    if a.value is None or b.value is None:
        return False
    va = constant_value(a.value, book)
    vb = constant_value(b.value, book)
    if va is None or vb is None:
        return False
    if a.op == b.op == "set":
        return va != vb
    ops = {a.op: va, b.op: vb}
    if set(ops) == {"min", "max"}:
        low, high = ops["min"], ops["max"]
        if isinstance(low, (int, Fraction)) and isinstance(high, (int, Fraction)):
            return Fraction(low) > Fraction(high)
        var = book.vars[a.target]
        members = getattr(var.type, "members", ())
        if low in members and high in members:
            return members.index(low) > members.index(high)
    return False
