"""Tables consulted in a situation: every row with its chance (for a rolled table) and the row the
situation selects; cells that read inputs are worked out in the situation.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .base import IMPASSABLE, NOT_APPLICABLE, show, whole
from .book import Scope
from .dice import Value, pool_text
from .results import TableResult, TableRow, TraceEntry
from .specs import RowSpec, TableSpec, TraceSpec


def table_result(scope: Scope, table: TableSpec) -> TableResult:
    """A table consulted: every row (with its chance, for a rolled table), and the row the
    situation selects."""

    def row_result(row: RowSpec, probability: Fraction | None, steps: tuple[str, ...] = ()) -> TableRow:
        values: dict[str, Value] = {}
        for column, cell in zip(table.columns, row.cells, strict=True):
            values[column] = whole(cell(scope) if callable(cell) else cell)
        return TableRow(row.key, values, row.steps + steps, probability)

    def traced(item: str, clause: str, names: tuple[str, ...], verdict: str) -> None:
        spec = TraceSpec(table.name, table.source, item, (clause,), (names,), verdict)
        scope.trace.append(TraceEntry(spec, -1, scope.v, scope.e))

    keys = {name: scope.v[name] for name in table.inputs}
    if table.pool is None:
        row = table.row_for(tuple(keys.values())[:1])
        rows = tuple(row_result(r, None) for r in table.rows)
        selected = row_result(row, None) if row is not None else None
        shown = ", ".join(show(k) for k in keys.values())
        found = f"row {row.key}" if row is not None else "no row"
        traced(f"look up {table.name}: {found}", f"{table.name}[{shown}]", table.inputs, found)
        return TableResult(table.name, table.title, table.source, None, keys, None, selected, rows)
    dist = scope.book.pool(table.pool)
    offset = table.sign * int(scope.v[table.modifier]) if table.modifier else 0
    if table.modifier:
        keys[table.modifier] = scope.v[table.modifier]
    chances: dict[int, Fraction] = {}
    for index, row in enumerate(table.rows):
        if row.is_else:
            continue
        low = row.low if row.low is not None else dist.low
        high = row.high if row.high is not None else dist.high + max(offset, 0)
        probability = dist.between_p(low - offset, high - offset)
        if table.above is not None and table.becomes is not None and low <= table.becomes <= high:
            probability += 1 - dist.at_most_p(table.above - offset)
        chances[index] = probability
    rest = 1 - sum(chances.values(), Fraction(0))  # what the `else` row takes
    rows_out = [row_result(row, chances.get(index, rest)) for index, row in enumerate(table.rows)]
    selected = None
    result = None
    rolled = scope.v.get("roll")
    if rolled is not None:
        result = int(rolled) + offset
        steps: tuple[str, ...] = ()
        if table.above is not None and table.becomes is not None and result > table.above:
            result = table.becomes
            steps = (table.overflow_step,) if table.overflow_step else ()
        row = table.row_for((result,))
        if row is not None:
            selected = row_result(row, None, steps)
    dice = pool_text(table.pool)
    if table.modifier:
        dice += f" {'+' if table.sign > 0 else '-'} {table.modifier}"
    if result is not None:
        found = f"row {selected.key}" if selected is not None else "no row"
        rolled_as = f"roll {'+' if table.sign > 0 else '-'} {table.modifier}" if table.modifier else "roll"
        read = ("roll", table.modifier) if table.modifier else ("roll",)
        traced(f"roll on {table.name}: {result}, {found}", f"{rolled_as} = {result}", read, found)
    else:
        traced(f"roll {dice} on {table.name}", "no roll given", (), "every row with its chance")
    return TableResult(table.name, table.title, table.source, dice, keys, result, selected, tuple(rows_out))


def cell_add(left: Any, right: Any) -> Any:
    """Add table cells: X (impassable) absorbs everything, then N/A."""
    for special in (IMPASSABLE, NOT_APPLICABLE):
        if left == special or right == special:
            return special
    return left + right


def sends_on(table: TableSpec) -> bool:
    return table.overflow_step is not None or any(row.steps for row in table.rows)
