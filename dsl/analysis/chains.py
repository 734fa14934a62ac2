"""The rolled tables of a checked book as the runtime's chain engine reads them.

A chain (dsl/runtime.py, "chains") is worked out by the runtime from table specs; a generated
module holds them, and the cards and the reference resolver, which work from the model, build
the same specs here, so all three report the same chains.  A cell that is not a constant is its
text: a chain reports rows by their values, and sums only numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from dsl import model as m
from dsl import printer
from dsl.runtime.book import Book
from dsl.runtime.results import RulebookInfo
from dsl.runtime.specs import RowSpec, TableSpec
from dsl.semantics.values import constant_value


def cell_text(cell: m.TableCell) -> str:
    """A cell as the rulebook writes it."""
    if cell.value is not None:
        return printer.expr_text(cell.value)
    return {"impassable": "X", "na": "N/A"}.get(cell.kind, "")


def runtime_tables(book: m.Book, text: Callable[[m.TableCell], str] = cell_text) -> Book:
    """A runtime book holding only the tables of `book` (what chains read)."""
    specs = {t.name: _spec(t, book, text) for t in book.tables.values()}
    info = RulebookInfo(book.name, book.title, book.source, book.version)
    return Book(info, {}, {}, {}, specs, (), None, None, None)


def _spec(table: m.Table, book: m.Book, text: Callable[[m.TableCell], str]) -> TableSpec:
    """A rolled table as the runtime reads it; a cell that is not a constant is its text."""
    rows = []
    for row in table.rows:
        cells: list[object] = []
        steps = []
        for cell in row.cells:
            value = constant_value(cell.value, book) if cell.value is not None else None
            cells.append(value if isinstance(value, (int, Fraction, str)) else text(cell))
            if cell.step is not None:
                steps.append(printer.step_text(cell.step))
        rows.append(RowSpec(row.low, row.high, row.member, row.is_else, row.key_text(), tuple(cells), tuple(steps)))
    overflow = table.overflow
    pool = table.pool
    return TableSpec(
        name=table.name,
        title=table.title,
        source=table.cites,
        pool=(pool.count, pool.sides, pool.keep) if pool is not None else None,
        modifier=table.modifier,
        sign=table.modifier_sign,
        inputs=table.inputs,
        columns=tuple(c for c, _ in table.columns),
        rows=tuple(rows),
        above=overflow.above if overflow else None,
        becomes=overflow.becomes if overflow else None,
        overflow_step=printer.step_text(overflow.step) if overflow and overflow.step else None,
        depth=table.chain_depth,
    )
