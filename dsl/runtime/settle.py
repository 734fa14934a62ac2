"""A stat's value from its base and the modifiers that hold (docs/language.md, "The order in which
modifiers apply"): a stacking group counts one of its modifiers; scalings one at a time,
additions summed, the grade, `=`, caps and floors; whole stats stay whole.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, cast

from .base import Status, round_value, whole
from .book import MAX_CACHED, Book
from .dice import Dice, Value
from .inputs import InputSpec
from .results import Modifier
from .specs import KIND_OPS, MODIFIER_KINDS, Grade, ModSpec, StatOrder, in_rule_order


def added_total(value: Any, kind: str, held: bool) -> Value:
    """A stat changed only by additions that all count, as `_added` and then `whole` leave it:
    `held`, whether any addition held (else the base stands as it is)."""
    if type(value) is Fraction:
        if value.denominator == 1:
            return value.numerator
        if held and kind != "number":
            return round_value(value, "down")
    return value  # type: ignore[no-any-return]


def settle_held(
    book: Book,
    name: str,
    base: Any,
    held: list[tuple[ModSpec, Any]],
    out: list[Any],
    where: list[int] | None = None,
) -> Value:
    """A stat's value from the modifiers that hold, in the order of their steps; each becomes a
    Modifier in `out` (with its step from `where`, when given: the Modifiers are put in the order
    of the steps at the end).  Kept for the base and the modifiers' amounts."""
    if not held:
        return cast(Value, whole(base))
    key = (name, base, tuple([id(spec) for spec, _ in held]), tuple([amount for _, amount in held]))
    found = book.held.get(key)
    if found is None:
        value, statuses = settled_stat(book, name, base, held)
        made = tuple(
            Modifier(spec, whole(amount), status, reason)
            for (spec, amount), (status, reason) in zip(held, statuses, strict=True)
        )
        if len(book.held) >= MAX_CACHED:
            book.held.clear()
        found = book.held[key] = (whole(value), made)
    if where is None:
        out += found[1]
    else:
        out += zip(where, found[1], strict=True)
    return found[0]


def settled_stat(
    book: Book, name: str, base: Any, held: list[tuple[ModSpec, Any]]
) -> tuple[Value, list[tuple[Status, str | None]]]:
    """A stat's value from the modifiers that hold and each one's status: their sum on the base
    when they are additions that all count (`_added`), else as `settle_stat` settles them."""
    added = _added(book, name, base, held)
    if added is not None:
        return added, [("applied", None)] * len(held)
    return settle_stat(book, name, base, held)


def _added(book: Book, name: str, base: Any, held: list[tuple[ModSpec, Any]]) -> Value | None:
    """A number changed only by additions that all count (no stacking group picks one), as
    `settle_stat` works it out: their sum on the base; None for any other case."""
    spec_in = book.inputs[name]
    kind = spec_in.kind
    if kind not in ("int", "number", "percent"):
        return None
    for spec, _ in held:
        if spec.op != "add" or (spec.group is not None and spec.stacking != "cumulative"):
            return None
    order = book.orders.get(name)
    if order is not None and "additions" not in order.kinds:
        return None
    value = base + sum((amount for _, amount in held), 0)
    if type(value) is Fraction:
        if value.denominator == 1:
            return value.numerator
        if kind != "number":
            return round_value(value, "down")
    return value  # type: ignore[no-any-return]


def settle_stat(
    book: Book, name: str, base: Any, held: list[tuple[ModSpec, Any]]
) -> tuple[Value, list[tuple[Status, str | None]]]:
    """A stat's value from its base and the modifiers that hold, and what became of each: a
    stacking group counts one of its modifiers, the others are left out before the rest apply."""
    spec_in = book.inputs[name]
    grouped = _groups(book, spec_in, base, held)
    counted = [item for item, (status, _) in zip(held, grouped, strict=True) if status == "applied"]
    value, statuses = _value(book, spec_in, base, counted)
    found = iter(statuses)
    return value, [next(found) if status == "applied" else (status, why) for status, why in grouped]


def _value(
    book: Book, spec_in: InputSpec, base: Any, held: list[tuple[ModSpec, Any]]
) -> tuple[Value, list[tuple[Status, str | None]]]:
    """A stat's value from its base and the modifiers that count, by the order of its kind."""
    kind = spec_in.kind
    if not held:
        return base, []
    if kind in ("int", "number", "percent"):
        return _numeric(book, base, held, kind, book.orders.get(spec_in.name))
    if kind == "dice":
        return _dice_value(base, held, book.orders.get(spec_in.name))
    if kind == "levels":
        return _level_value(spec_in, base, held)
    return _set_only(base, held)


def _groups(
    book: Book, spec_in: InputSpec, base: Any, held: list[tuple[ModSpec, Any]]
) -> list[tuple[Status, str | None]]:
    """Of the modifiers of one stacking group, only one counts: the one whose effect alone is the
    largest (`strongest`), or leaves the highest or lowest value; on a tie, the first."""
    statuses: list[tuple[Status, str | None]] = [("applied", None)] * len(held)
    groups: dict[str, list[int]] = {}
    for i, (spec, _) in enumerate(held):
        if spec.group is not None and spec.stacking != "cumulative":
            groups.setdefault(spec.group, []).append(i)
    for group, members in groups.items():
        stacking = held[members[0]][0].stacking
        start = _measure(spec_in, base)
        alone = {i: _measure(spec_in, _value(book, spec_in, base, [held[i]])[0]) for i in members}
        if stacking == "highest":
            best = max(members, key=lambda i: (alone[i], -i))
        elif stacking == "lowest":
            best = min(members, key=lambda i: (alone[i], i))
        else:
            best = max(members, key=lambda i: (abs(alone[i] - start), -i))
        winner = held[best][0]
        for i in members:
            if i != best:
                statuses[i] = (
                    "suppressed",
                    f"only the {stacking} of group `{group}` applies: {winner.rule}: {winner.text}",
                )
    return statuses


def _numeric(
    book: Book, base: Any, held: list[tuple[ModSpec, Any]], kind: str, order: StatOrder | None
) -> tuple[Value, list[tuple[Status, str | None]]]:
    """docs/language.md, "The order in which modifiers apply": scalings in order, the sum of
    additions, the grade (or these three in the order the book states), `=` (the last wins),
    caps, floors; whole stats stay whole."""
    statuses: list[tuple[Status, str | None]] = [("applied", None)] * len(held)
    ops = {spec.op for spec, _ in held}
    value: int | Fraction = base  # whole numbers stay ints: Fraction only where division needs it
    grade = _grade(book, held, statuses) if "grade" in ops else None
    for step in order.kinds if order is not None else MODIFIER_KINDS["number"]:
        if step == "scaling" and ("mul" in ops or "div" in ops):
            for i in in_rule_order(order.rules if order else (), [spec.rule for spec, _ in held]):
                spec, amount = held[i]
                if spec.op == "mul":
                    value = value * amount
                elif spec.op == "div":
                    value = _divide(value, amount)
                else:
                    continue
                if spec.rounding:
                    value = round_value(value, spec.rounding)
        elif step == "additions" and "add" in ops:
            value += sum((amount for spec, amount in held if spec.op == "add"), 0)
        elif step == "grade" and grade is not None and grade.op != "set":
            value = value * grade.value if grade.op == "mul" else _divide(value, grade.value)
            if grade.rounding:
                value = round_value(value, grade.rounding)
    if grade is not None and grade.op == "set":  # an absolute grade, like `=`, replaces them all
        value = grade.value
    if "set" in ops:
        last = max(i for i, (spec, _) in enumerate(held) if spec.op == "set")
        value = held[last][1]
        winner = held[last][0]
        for i, (spec, _) in enumerate(held):
            if i != last and spec.op in ("add", "mul", "div", "grade", "set") and statuses[i][0] == "applied":
                statuses[i] = ("overridden", f"{winner.rule}: {winner.text}")
    if "max" in ops:
        value = min(value, min(a for spec, a in held if spec.op == "max"))
    if "min" in ops:
        value = max(value, max(a for spec, a in held if spec.op == "min"))
    if isinstance(value, Fraction):
        if value.denominator == 1:
            value = value.numerator
        elif kind != "number":
            value = round_value(value, "down")
    return value, statuses


def _grade(book: Book, held: list[tuple[ModSpec, Any]], statuses: list[tuple[Status, str | None]]) -> Grade | None:
    grades = {g.name: g for g in book.grades}
    chosen = [(i, grades[str(a)]) for i, (spec, a) in enumerate(held) if spec.op == "grade"]
    if not chosen:
        return None
    absolute = [(i, g) for i, g in chosen if g.step is None]
    if absolute:
        for i, _ in chosen:
            if i != absolute[0][0]:
                statuses[i] = ("overridden", f"{held[absolute[0][0]][0].rule}: {absolute[0][1].name}")
        return absolute[0][1]
    net = sum(g.step or 0 for _, g in chosen)
    if net == 0:
        for i, _ in chosen:
            statuses[i] = ("suppressed", "grades cancel one another")
        return None
    steps = sorted((g for g in book.grades if g.step), key=lambda g: g.step or 0)
    same_side = [g for g in steps if (g.step or 0) * net > 0]
    return min(same_side, key=lambda g: abs((g.step or 0) - net))


def _measure(spec: InputSpec, value: Value) -> Fraction:
    """Where a value stands, to weigh modifiers against each other: a number itself, a dice
    expression its average total, a level its place."""
    if isinstance(value, Dice):
        return sum((total * chance for total, chance in value.totals().items()), Fraction(0))
    if spec.kind == "levels":
        return Fraction(spec.members.index(str(value)))
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        return Fraction(value)
    return Fraction(0)


def _divide(value: int | Fraction, by: int | Fraction) -> int | Fraction:
    """Exact division that keeps whole results as ints."""
    if type(value) is int and type(by) is int and value % by == 0:
        return value // by
    return Fraction(value) / by


def _dice_value(
    base: Value, held: list[tuple[ModSpec, Any]], order: StatOrder | None
) -> tuple[Value, list[tuple[Status, str | None]]]:
    statuses: list[tuple[Status, str | None]] = [("applied", None)] * len(held)
    sets = [i for i, (spec, _) in enumerate(held) if spec.op == "set"]
    value = held[sets[-1]][1] if sets else base
    for i in sets[:-1]:
        statuses[i] = ("overridden", f"{held[sets[-1]][0].rule}: {held[sets[-1]][0].text}")
    assert isinstance(value, Dice)
    indexes = in_rule_order(order.rules if order else (), [spec.rule for spec, _ in held])
    for step in order.kinds if order is not None else MODIFIER_KINDS["dice"]:
        for i in indexes:
            spec, amount = held[i]
            if spec.op not in KIND_OPS[step]:
                continue
            if spec.op == "dice":
                wanted = value.first_count() + int(amount)
                value = value.with_dice(int(amount))
                if value.first_count() != wanted and not value.constant:
                    statuses[i] = ("capped", "a pool keeps at least one die")
            elif spec.op == "step":
                value = value.stepped(int(amount))
            elif spec.op == "add":
                value = value.plus(amount if isinstance(amount, Dice) else int(amount))
            else:
                factor = Fraction(amount) if spec.op == "mul" else 1 / Fraction(amount)
                value = value.scaled(factor, spec.rounding)
    return value, statuses


def _level_value(
    spec_in: InputSpec, base: Value, held: list[tuple[ModSpec, Any]]
) -> tuple[Value, list[tuple[Status, str | None]]]:
    statuses: list[tuple[Status, str | None]] = [("applied", None)] * len(held)
    members = spec_in.members
    sets = [i for i, (spec, _) in enumerate(held) if spec.op == "set"]
    value = str(held[sets[-1]][1]) if sets else str(base)
    for i in sets[:-1]:
        statuses[i] = ("overridden", f"{held[sets[-1]][0].rule}: {held[sets[-1]][0].text}")
    index = members.index(value)
    index += sum(int(a) for spec, a in held if spec.op == "shift")
    index = min(max(index, 0), len(members) - 1)
    caps = [members.index(str(a)) for spec, a in held if spec.op == "max"]
    floors = [members.index(str(a)) for spec, a in held if spec.op == "min"]
    if caps:
        index = min(index, min(caps))
    if floors:
        index = max(index, max(floors))
    return members[index], statuses


def _set_only(base: Value, held: list[tuple[ModSpec, Any]]) -> tuple[Value, list[tuple[Status, str | None]]]:
    statuses: list[tuple[Status, str | None]] = [("applied", None)] * len(held)
    for i in range(len(held) - 1):
        statuses[i] = ("overridden", f"{held[-1][0].rule}: {held[-1][0].text}")
    return held[-1][1], statuses


def apply_one(spec: InputSpec, current: Value, op: str, amount: Any, rounding: str | None) -> Value:
    """A stat's value with one more modifier on top: what an outcome's consequence makes of it."""
    if spec.kind == "dice":
        assert isinstance(current, Dice)
        if op == "set":
            return amount  # type: ignore[no-any-return]
        if op == "dice":
            return current.with_dice(int(amount))
        if op == "step":
            return current.stepped(int(amount))
        if op == "add":
            return current.plus(amount if isinstance(amount, Dice) else int(amount))
        factor = Fraction(amount) if op == "mul" else 1 / Fraction(amount)
        return current.scaled(factor, rounding)
    if spec.kind == "levels":
        members = spec.members
        index = members.index(str(current))
        if op == "set":
            return str(amount)
        if op == "shift":
            return members[min(max(index + int(amount), 0), len(members) - 1)]
        other = members.index(str(amount))
        return members[max(index, other) if op == "min" else min(index, other)]
    if spec.kind not in ("int", "number", "percent") or op == "set":
        return amount  # type: ignore[no-any-return]
    value: Fraction | int = current  # type: ignore[assignment]
    if op == "add":
        value = value + amount
    elif op in ("mul", "div"):
        value = value * amount if op == "mul" else Fraction(value) / amount
        if rounding:
            value = round_value(value, rounding)
    elif op == "min":
        value = max(value, amount)
    elif op == "max":
        value = min(value, amount)
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return value.numerator
        if spec.kind != "number":
            return round_value(value, "down")
    return value
