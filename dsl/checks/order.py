"""W505: modifiers from different rules whose order decides the result.

A stat's modifiers apply by kind, not by line (docs/language.md, "The order in which modifiers
apply"): for numbers, scalings (one at a time), then the sum of the additions, then the
difficulty grade; for dice, dice added or removed, steps, additions, then scalings.  A reader of
the source may apply two of them the other way round: water halves MOV and a spacesuit takes 2
off it, and from MOV 10 that is 3 halving first, 4 subtracting first.  Where two modifiers of one
stat from different rules can apply together and some value within the declared ranges comes out
differently in the two orders, the checker says so, with that value, unless the book states the
order (`order MOV: scaling before additions`, `order MP: weather before night`,
dsl/analysis/precedence.py).

The pairs whose order can matter:
- modifiers of two kinds: scaling, additions and grade of a number; any two of dice, steps,
  additions and scaling of a dice value;
- two modifiers of a kind applied one at a time (scalings; for dice also dice and steps) from
  different rules: they apply in the order the rules are named, so whoever names them decides.
Not: additions with additions (a sum), grades with grades (their steps add up), `=`, `min` and
`max` (they state the final value or its bounds, whatever came before), absolute grades
(`impossible: = 0`, the same), levels (shifts add up, then stop at the ends); nor two modifiers
of one rule: its author wrote them together, and the language's order is documented.

A pair is reported only when proven: its conditions can hold together (dsl/checks/domain.py),
and a witness is found, values of the stat (within its range and the conditions) and of the
inputs the amounts read, at which the two orders give different results within the stat's range,
each worked out by the reference semantics.  Each pair is judged alone: another modifier that
would apply with them in a situation (a grade that cancels, a `=`) is not looked at.

Cost, kept linear in the book and bounded: modifiers are grouped by stat and kind, alike ones
(same text, same conditions) are tried once, and the search stops at the first witness of a stat
and pair of kinds.  A witness search tries every whole value of the stat's range when the range is
bounded and holds at most `MAX_VALUES` (exact: no difference within it is missed), else the
`MAX_VALUES` values nearest where the stat starts, with a few values of each input an amount reads
(its start and the ends of its range: an amount's extremes are where orders part).  Past
`MAX_TRIES` pairs or `MAX_SEARCHES` searches in one group it stops and reports nothing it has not
proven.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

from dsl import model as m
from dsl import types as t
from dsl.analysis.precedence import family, modifier_kind
from dsl.checks.domain import TRUE, Allowed, Clause, Interval, allowed, conjoin, dnf
from dsl.diagnostics import Reporter
from dsl.model.exprs import table_reads, walk
from dsl.model.parts import Guard, PartFilter, flat_effects
from dsl.printer import modifier_text, number_text
from dsl.runtime.base import show
from dsl.runtime.dice import Dice, Value
from dsl.runtime.specs import MODIFIER_KINDS, ONE_AT_A_TIME
from dsl.semantics import NoValue, constant_value, reference
from dsl.semantics.reference import modified

MAX_TRIES = 20_000
"""Pairs of modifiers whose conditions are compared, per stat and pair of kinds: past it a book
that keeps every pair exclusive (a thousand terrains, each under its own `terrain == X`) stops
costing more, and what was not proven is not reported."""

MAX_SEARCHES = 64
"""Witness searches per stat and pair of kinds: pairs whose conditions can hold together but whose
orders agree everywhere (two halvings) each cost one; real books need a handful."""

MAX_VALUES = 256
"""Values of the stat tried in one witness search: its whole range when the range is no wider
(every stat of the bundled books: percentages, counts, movement), else this many outward from
where it starts.  The orders of a scaling and an addition differ almost everywhere, two
roundings within a few steps, so a search that finds a witness ends early; one that finds none
(two halvings) costs this many tries at most."""

MAX_COMBINATIONS = 16
"""Combinations of the values of the inputs an amount reads (`-1 per smoke_hexes`) tried."""

MAX_TOTALS = 100_000
"""The most totals worked out to compare two dice values."""

@dataclass(frozen=True, slots=True)
class _Mod:
    rule: str  # the rule it was reached from
    effect: m.ModEffect
    kind: str


@dataclass(frozen=True, slots=True)
class _Witness:
    base: Value
    given: tuple[tuple[str, Value], ...]
    first: Value  # a applied first
    second: Value  # b applied first
    language: Value


def check_order(book: m.Book, reporter: Reporter) -> None:
    if reporter.has_errors:  # a circle of values (E601) would leave a witness without a value
        return
    stated = _stated(book)
    by_stat: dict[str, dict[str, list[_Mod]]] = {}
    seen: set[tuple[str, tuple[tuple[int, bool], ...]]] = set()
    stepwise = PartFilter(book, lambda e: isinstance(e, m.ModEffect) and modifier_kind(e, book) is not None)
    entered: set[tuple[str, Guard]] = set()  # each modifier is wanted once under each guard
    for rule in book.rules.values():
        for effect in flat_effects(book, rule.effects, stepwise, entered):
            assert isinstance(effect, m.ModEffect)
            kind = modifier_kind(effect, book)
            var = book.vars.get(effect.target)
            if kind is None or var is None or family(var.type) is None:
                continue
            identity = (effect.key, tuple((id(c.expr), c.negated) for c in effect.guard))
            if identity not in seen:
                seen.add(identity)
                by_stat.setdefault(effect.target, {}).setdefault(kind, []).append(_Mod(rule.name, effect, kind))
    for stat, kinds in by_stat.items():
        kind_family = family(book.vars[stat].type)
        assert kind_family is not None
        order = book.stat_orders.get(stat)
        ranked = frozenset(order.rules if order is not None else ())
        for first, second in _pairs(kind_family):
            if (stat, first, second) in stated or (stat, second, first) in stated:
                continue
            left = _alike_once(kinds.get(first, []), book)
            right = _alike_once(kinds.get(second, []), book)
            found = _first_witness(book, stat, left, right, ranked if first == second else None)
            if found is not None:
                _report(book, reporter, stat, *found)


def _stated(book: m.Book) -> set[tuple[str, str, str]]:
    """(stat, earlier, later) for each two kinds whose order the book's `order` statements settle,
    directly or through a third (`a before b`, `b before c`: a before c)."""
    found: set[tuple[str, str, str]] = set()
    for order in book.orders:
        if order.stat not in book.stat_orders or order.items[0] in book.rules:
            continue  # refused (E506), or an order of rules
        found.update((order.stat, a, b) for i, a in enumerate(order.items) for b in order.items[i + 1 :])
    while True:
        more = {(s, a, d) for s, a, b in found for s2, c, d in found if s == s2 and b == c} - found
        if not more:
            return found
        found |= more


def _pairs(kind_family: str) -> Iterator[tuple[str, str]]:
    """Every pair of kinds whose order can matter: two kinds, or one applied one at a time."""
    kinds = MODIFIER_KINDS[kind_family]
    for i, first in enumerate(kinds):
        if first in ONE_AT_A_TIME[kind_family]:
            yield first, first
        for second in kinds[i + 1 :]:
            yield first, second


def _alike_once(mods: list[_Mod], book: m.Book) -> list[_Mod]:
    """One modifier of each text and conditions, the first written (alike ones give alike pairs),
    the plainest first: a fixed amount under few conditions makes the clearest witness."""
    out: dict[tuple[str, str, tuple[tuple[int, bool], ...]], _Mod] = {}
    for mod in sorted(mods, key=lambda x: x.effect.span):
        signature = (modifier_text(mod.effect), mod.effect.origin, tuple((id(c.expr), c.negated) for c in mod.effect.guard))
        out.setdefault(signature, mod)
    return sorted(out.values(), key=lambda x: (not _fixed(x.effect, book), len(x.effect.guard), x.effect.span))


def _fixed(effect: m.ModEffect, book: m.Book) -> bool:
    return all(x is None or constant_value(x, book) is not None for x in (effect.value, effect.per))


def _first_witness(
    book: m.Book,
    stat: str,
    left: list[_Mod],
    right: list[_Mod],
    ranked: frozenset[str] | None,
) -> tuple[_Mod, _Mod, _Witness] | None:
    """The first pair of modifiers of different rules, one of `left` and one of `right` (two of
    `left` when `ranked` is given: one kind, where two rules the book ranks are settled), whose
    orders part, with the witness."""
    guards: dict[int, list[Clause]] = {}
    tries = searches = 0
    for i, a in enumerate(left):
        for b in right[i + 1 :] if ranked is not None else right:
            if a.effect.origin == b.effect.origin or (ranked is not None and {a.effect.origin, b.effect.origin} <= ranked):
                continue
            tries += 1
            if tries > MAX_TRIES or searches >= MAX_SEARCHES:
                return None
            clauses = [
                c for c in conjoin(_guard(a, book, guards), _guard(b, book, guards)) if allowed(c, book) is not None
            ]
            if not clauses:
                continue
            searches += 1
            witness = _witness(book, stat, a, b, clauses)
            if witness is not None:
                return a, b, witness
    return None


def _guard(mod: _Mod, book: m.Book, cache: dict[int, list[Clause]]) -> list[Clause]:
    found = cache.get(id(mod))
    if found is None:
        found = TRUE
        for condition in mod.effect.guard:
            found = conjoin(found, dnf(condition.expr, book, condition.negated))
        cache[id(mod)] = found
    return found


def _witness(book: m.Book, stat: str, a: _Mod, b: _Mod, clauses: list[Clause]) -> _Witness | None:
    """Values at which applying `a` first and `b` first differ, the first found outward from the
    defaults, or None."""
    reads = _amount_reads(book, stat, (a.effect, b.effect))
    if reads is None:
        return None
    stat_var = book.vars[stat]
    for clause in clauses[:4]:
        allows = allowed(clause, book)
        assert allows is not None
        choices = [[(name, value) for value in _choices(book, book.vars[name], allows.get(name))] for name in reads]
        for given in itertools.islice(itertools.product(*choices), MAX_COMBINATIONS):
            for base in _stat_values(book, stat_var, allows.get(stat)):
                values = {**dict(given), stat: base}
                try:
                    first = modified(book, stat, modified(book, stat, base, [a.effect], values), [b.effect], values)
                    second = modified(book, stat, modified(book, stat, base, [b.effect], values), [a.effect], values)
                    if _same(first, second) or not (_within(stat_var, first) and _within(stat_var, second)):
                        continue
                    language = modified(book, stat, base, [a.effect, b.effect], values)
                except (NoValue, ValueError, ZeroDivisionError):
                    break
                return _Witness(base, tuple(given), first, second, language)
    return None


def _amount_reads(book: m.Book, stat: str, effects: Sequence[m.ModEffect]) -> list[str] | None:
    """The inputs (and stats' starting values) the amounts read, but the stat itself; None when an
    amount reads what only a whole situation settles (another stat's effective value, a derived
    value): no value of it can be chosen alone."""
    found: dict[str, None] = {}
    for effect in effects:
        for expr in (effect.value, effect.per):
            if expr is None:
                continue
            for node in walk(expr):
                ref = book.refs.get(node)
                if ref is None:
                    continue
                if ref.kind in ("stat", "derive"):
                    return None
                if ref.kind in ("input", "base"):
                    found[ref.name] = None
                elif ref.kind == "table":
                    found.update(dict.fromkeys(sorted(table_reads(book, ref.name))))
    found.pop(stat, None)
    return [name for name in book.vars if name in found]


def _choices(book: m.Book, var: m.Var, allows: Allowed | None) -> list[Value]:
    """A few values of an input within what the conditions allow: where it starts first, then the
    ends of its range."""
    type_ = var.type
    if isinstance(type_, t.Numeric):
        near = _numbers(book, var, allows)[:1]
        low, high = _bounds(type_, allows)
        ends = [e for e in (low, high) if e is not None and (not type_.integral or e.denominator == 1)]
        return [_whole(v) for v in dict.fromkeys([*near, *ends])]
    options: list[Value] = []
    if isinstance(type_, t.Enum):
        options = list(type_.members)
    elif isinstance(type_, t.Flag):
        options = [True, False]
    else:
        return [reference.start(book, var.name)]
    if isinstance(allows, frozenset):
        options = [x for x in options if x in allows]
    return sorted(options, key=lambda x: x != var.default)[:3]


def _stat_values(book: m.Book, var: m.Var, allows: Allowed | None) -> list[Value]:
    if isinstance(var.type, t.Numeric):
        return [_whole(v) for v in _numbers(book, var, allows)]
    assert isinstance(var.type, t.Dice)
    first = reference.start(book, var.name)
    return list(dict.fromkeys([first, Dice.pool(1, 6), Dice.pool(2, 6), Dice.pool(3, 6)]))


def _numbers(book: m.Book, var: m.Var, allows: Allowed | None) -> list[Fraction]:
    """Up to MAX_VALUES numbers within the type's range and what the conditions allow, outward from
    where the value starts: +0, +1, -1, +2, -2 ..."""
    assert isinstance(var.type, t.Numeric)
    low, high = _bounds(var.type, allows)
    try:
        first = reference.start(book, var.name)
    except (NoValue, ValueError, ZeroDivisionError):
        first = 0
    start = Fraction(first) if isinstance(first, (int, Fraction)) and not isinstance(first, bool) else Fraction(0)
    if low is not None and start < low:
        start = low
    if high is not None and start > high:
        start = high
    found: list[Fraction] = []
    for step in range(MAX_VALUES):
        for value in (start + step, start - step) if step else (start,):
            if (low is None or value >= low) and (high is None or value <= high):
                found.append(value)
    return found[:MAX_VALUES]


def _bounds(type_: t.Numeric, allows: Allowed | None) -> tuple[Fraction | None, Fraction | None]:
    """The range of a number within what the conditions allow (whole numbers for whole types)."""
    low, high = type_.low, type_.high
    if isinstance(allows, Interval):
        if allows.low is not None and (low is None or allows.low > low):
            low = allows.low
        if allows.high is not None and (high is None or allows.high < high):
            high = allows.high
    if type_.integral:
        low = None if low is None else Fraction(-(-low // 1))
        high = None if high is None else Fraction(high // 1)
    return low, high


def _within(var: m.Var, value: Value) -> bool:
    """Whether a result lies within the stat's range: one beyond it (a penalty taking a count below
    0) shows a difference a `min` of the stat may well erase, and proves nothing."""
    if isinstance(var.type, t.Numeric) and isinstance(value, (int, Fraction)):
        return var.type.contains(Fraction(value))
    return True


def _whole(value: Fraction) -> int | Fraction:
    return value.numerator if value.denominator == 1 else value


def _same(a: Value, b: Value) -> bool:
    if isinstance(a, Dice) and isinstance(b, Dice):
        return a == b or a.totals(MAX_TOTALS) == b.totals(MAX_TOTALS)
    return a == b


# ---------------------------------------------------------------------- the message


def _report(book: m.Book, reporter: Reporter, stat: str, a: _Mod, b: _Mod, witness: _Witness) -> None:
    first, second = sorted((a, b), key=lambda x: x.effect.span)
    message = (
        f"the order of `{modifier_text(second.effect)}` and `{modifier_text(first.effect)}`"
        f" (line {first.effect.span.line}) decides `{stat}`"
    )
    if first.rule != second.rule:
        message += f" when rules `{first.rule}` and `{second.rule}` apply together"
    message += f": from {stat} {show(witness.base)}"
    if witness.given:
        message += ", with " + ", ".join(f"{name} = {show(value)}" for name, value in witness.given)
    message += (
        f", {_doing(a, book, witness)} first gives {show(witness.first)},"
        f" {_doing(b, book, witness)} first gives {show(witness.second)}"
    )
    if a.kind == b.kind:
        hint = (
            "rulecraft applies them in the order a situation names the rules, so whoever names them decides;"
            f" say which the source applies first: `order {stat}: {first.effect.origin} before {second.effect.origin}`"
        )
    else:
        earlier, later = (a, b) if _same(witness.language, witness.first) else (b, a)
        hint = (
            f"rulecraft applies {earlier.kind} before {later.kind} ({show(witness.language)}); if the source means"
            f" that, or to accept it, say so: `order {stat}: {earlier.kind} before {later.kind}`"
        )
    reporter.report("W505", message, second.effect.span, hint)


def _doing(mod: _Mod, book: m.Book, witness: _Witness) -> str:
    """What a modifier does, in words, with its amount at the witness: `halving`, `subtracting 2`."""
    effect = mod.effect
    if effect.op == "grade":
        return f"the grade `{effect.grade}`"
    try:
        amount = reference.amount(book, effect, {**dict(witness.given), effect.target: witness.base})
    except (NoValue, ValueError, ZeroDivisionError):
        return f"`{modifier_text(effect)}`"
    if effect.op in ("mul", "div") and isinstance(amount, (int, Fraction)):
        factor = Fraction(amount) if effect.op == "mul" else 1 / Fraction(amount)
        names = {Fraction(1, 2): "halving", Fraction(2): "doubling", Fraction(1, 4): "quartering"}
        if factor in names:
            return names[factor]
        if factor.numerator == 1:
            return f"dividing by {factor.denominator}"
        return f"multiplying by {number_text(factor)}"
    if effect.op == "add":
        suffix = "%" if effect.percent else ""
        if isinstance(amount, (int, Fraction)) and amount < 0:
            return f"subtracting {number_text(Fraction(-amount))}{suffix}"
        return f"adding {show(amount)}{suffix}"
    if effect.op == "dice" and isinstance(amount, int):
        count = "a die" if abs(amount) == 1 else f"{abs(amount)} dice"
        return f"{'adding' if amount > 0 else 'removing'} {count}"
    if effect.op == "step" and isinstance(amount, int):
        steps = "a step" if abs(amount) == 1 else f"{abs(amount)} steps"
        return f"stepping the dice {'up' if amount > 0 else 'down'} {steps}"
    return f"`{modifier_text(effect)}`"
