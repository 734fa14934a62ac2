"""E503 / W504: modifiers that cannot all be true at once.

Two `= value` modifiers of one stat with different values, or a minimum above a maximum, whose
conditions can hold together: within one rule that is an error (the rule says two things); across
rules it is a warning, since only resolving both together brings them into conflict.

Only the pairs that can conflict are looked at: `=` modifiers grouped by their value (two of one
value agree), and each minimum against the maximums below it.  A book where every terrain says
`MOV min 1` costs one pass, not one comparison per pair of terrains.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Hashable, Iterator
from fractions import Fraction

from dsl import model as m
from dsl.checks.domain import DNF, TRUE, conjoin, dnf, satisfiable
from dsl.diagnostics import Reporter
from dsl.model.parts import PartFilter, flat_effects
from dsl.printer import modifier_text
from dsl.semantics import constant_value


def check_contradictions(book: m.Book, reporter: Reporter) -> None:
    seen: set[tuple[str, str]] = set()
    by_stat: dict[str, list[tuple[str, m.ModEffect]]] = {}
    bounding = PartFilter(book, _bounding)
    for rule in book.rules.values():
        for effect in flat_effects(book, rule.effects, bounding):
            assert isinstance(effect, m.ModEffect)
            by_stat.setdefault(effect.target, []).append((rule.name, effect))
    for stat, pairs in by_stat.items():
        # in the order of a walk over every pair, so the first of equal pairs is the one reported
        for i, j in sorted(_candidates(stat, [effect for _, effect in pairs], book)):
            (rule_a, a), (rule_b, b) = pairs[i], pairs[j]
            if a.key == b.key or (a.key, b.key) in seen:
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


def _bounding(effect: m.Effect) -> bool:
    return isinstance(effect, m.ModEffect) and effect.op in ("set", "min", "max")


def _candidates(stat: str, effects: list[m.ModEffect], book: m.Book) -> Iterator[tuple[int, int]]:
    """The pairs (i, j), i < j, of `effects` (all on `stat`) whose values contradict: `=` with
    different values, or a minimum above a maximum.  Their conditions are not looked at here."""
    sets: dict[Hashable, list[int]] = {}
    floors: dict[str, list[tuple[Fraction | int, int]]] = {"number": [], "member": []}
    ceilings: dict[str, list[tuple[Fraction | int, int]]] = {"number": [], "member": []}
    members = tuple(getattr(book.vars[stat].type, "members", ())) if stat in book.vars else ()
    for index, effect in enumerate(effects):
        if effect.value is None:
            continue
        value = constant_value(effect.value, book)
        if value is None:
            continue
        if effect.op == "set":
            sets.setdefault(value, []).append(index)
            continue
        ordered = _ordered(value, members)
        if ordered is not None:
            (floors if effect.op == "min" else ceilings)[ordered[0]].append((ordered[1], index))
    groups = list(sets.values())
    for g, group in enumerate(groups):
        for other in groups[g + 1 :]:
            for i in group:
                for j in other:
                    yield (i, j) if i < j else (j, i)
    for kind, lows in floors.items():
        highs = sorted(ceilings[kind])
        keys = [value for value, _ in highs]
        for low, i in lows:
            for _, j in highs[: bisect_left(keys, low)]:
                yield (i, j) if i < j else (j, i)


def _ordered(value: m.Constant, members: tuple[str, ...]) -> tuple[str, Fraction | int] | None:
    """Where a minimum or maximum lies: a number, or a member of the stat's ordered levels."""
    if isinstance(value, (int, Fraction)):
        return ("number", Fraction(value))
    if isinstance(value, str) and value in members:
        return ("member", members.index(value))
    return None


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
