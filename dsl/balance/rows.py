"""Resolving situations into rows: the part of a sweep that runs in every worker process.

A situation is numbered: its index, read in the mixed radix of the varied inputs' value counts
(the last `--vary` turning fastest), gives the value of each, so any slice of the sweep can be
computed anywhere and the rows still come back in one fixed order.  Values are made plain
(int, Fraction, bool, str, float) so rows pickle between processes and print the same anywhere.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dsl.balance.books import BalanceError
from dsl.balance.layout import Layout
from dsl.balance.spec import Axis

Row = tuple[Any, ...]


@dataclass(frozen=True)
class Plan:
    """Everything a worker needs besides the resolver modules: picklable, plain data."""

    rules: tuple[str, ...]  # applied in every situation
    axes: tuple[Axis, ...]
    given: tuple[tuple[str, Any], ...]  # --set
    layout: Layout
    editions: int

    @property
    def total(self) -> int:
        return math.prod(len(axis.values) for axis in self.axes)

    def situation(self, index: int) -> tuple[list[Any], tuple[str, ...], dict[str, Any]]:
        """The varied values, the rules applied and the inputs of situation INDEX."""
        values: list[Any] = []
        for axis in reversed(self.axes):
            index, digit = divmod(index, len(axis.values))
            values.append(axis.values[digit])
        values.reverse()
        names = self.rules
        inputs = dict(self.given)
        for axis, value in zip(self.axes, values, strict=True):
            if axis.kind == "rule":
                names = tuple(dict.fromkeys([*self.rules, value]))
            else:
                inputs[axis.name] = value
        return values, names, inputs


def compute(plan: Plan, modules: Sequence[Any], start: int, stop: int) -> list[Row]:
    """The rows of situations START..STOP-1, in order."""
    rows: list[Row] = []
    for index in range(start, stop):
        values, names, inputs = plan.situation(index)
        row: list[Any] = list(values)
        editions = []
        for module in modules:
            # a varied rule reads only some of the inputs set for the whole sweep: give it those
            read = {key for name in names for key in module.RULES[name].reads} | {"roll"}
            try:
                resolution = module.resolve(names, **{k: v for k, v in inputs.items() if k in read})
            except module.RuleInputError as error:
                raise BalanceError(f"situation {_describe(names, inputs)}: {error}") from None
            editions.append(_edition_values(resolution, plan.layout, names))
        for part in editions:
            row.extend(part)
        if len(editions) == 2:
            row.extend(_differences(plan.layout, editions[0], editions[1]))
        rows.append(tuple(row))
    return rows


def plain(value: Any) -> Any:
    """A resolver value as plain data: dice and X / N/A cells become their text."""
    if isinstance(value, (bool, int, Fraction, str, float)) or value is None:
        return value
    return str(value)


def _edition_values(resolution: Any, layout: Layout, names: tuple[str, ...]) -> list[Any]:
    # a stat no modifier of the situation touched keeps the value it was given (or its default),
    # when the rules read it; a value derived only under a condition that failed stays empty
    found = {**resolution.inputs, **resolution.stats, **resolution.derived}
    values: list[Any] = [plain(found.get(name)) for name, _, _ in layout.stats]
    keys = layout.roll_keys.get(names, {})
    rolls: dict[str, Any] = {}
    for roll in resolution.rolls:
        key = keys.get((roll.rule, roll.name))
        if key is not None:
            rolls.setdefault(key, roll)
    for column in layout.rolls:
        roll = rolls.get(column.key)
        if roll is None:
            values += [None, None] * (1 + len(column.outcomes))
            continue
        values += [roll.probability, float(roll.probability)]
        for outcome in column.outcomes:
            chance = roll.outcomes.get(outcome)
            values += [chance, None if chance is None else float(chance)]
    tables = {table.name: table for table in resolution.tables}
    for columns in layout.tables:
        table = tables.get(columns.name)
        selected = None if table is None else table.selected
        if columns.two_d is not None:
            column = resolution.inputs.get(columns.two_d[1])
            values.append(None if selected is None else plain(selected.values.get(str(column))))
        else:
            values += [None if selected is None else plain(selected.values.get(name)) for name, _ in columns.values]
        chances = {} if table is None else {row.key: row.probability for row in table.rows}
        for key in columns.rows:
            chance = chances.get(key)
            values += [chance, None if chance is None else float(chance)]
    values.append(tuple(restriction.what for restriction in resolution.restrictions))
    return values


def _differences(layout: Layout, book: list[Any], other: list[Any]) -> list[Any]:
    """BOOK - OTHER for every numeric stat and every chance, in the order of the columns."""
    found: list[Any] = []
    at = 0
    for _, _, numeric in layout.stats:
        if numeric:
            found.append(_minus(book[at], other[at]))
        at += 1
    for column in layout.rolls:
        for _ in range(1 + len(column.outcomes)):
            found += _chance_minus(book[at], other[at])
            at += 2
    for table in layout.tables:
        at += 1 if table.two_d is not None else len(table.values)
        for _ in table.rows:
            found += _chance_minus(book[at], other[at])
            at += 2
    return found


def _minus(first: Any, second: Any) -> Any:
    numbers = (int, Fraction)
    if isinstance(first, bool) or isinstance(second, bool):
        return None
    if isinstance(first, numbers) and isinstance(second, numbers):
        difference = Fraction(first) - Fraction(second)
        return difference.numerator if difference.denominator == 1 else difference
    return None


def _chance_minus(first: Fraction | None, second: Fraction | None) -> list[Any]:
    if first is None or second is None:
        return [None, None]
    difference = first - second
    return [difference, float(difference)]


def _describe(names: tuple[str, ...], inputs: dict[str, Any]) -> str:
    shown = ", ".join(f"{key}={plain(value)}" for key, value in inputs.items())
    return " + ".join(names) + (f" with {shown}" if shown else "")
