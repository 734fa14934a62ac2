"""Card tables (roll headings, chance tables, rulebook tables) styled from styles worked out once.

reportlab styles a table by running each command of its `TableStyle` over the cells it names,
setting one attribute of one cell's `CellStyle` at a time: a deck makes about fifteen hundred
small tables, each styled afresh (100,000 cell settings for the six bundled books).  A card
table's cell commands are the same for every body row (they name the whole table, the header
row, the key columns or a column), so the styles of a table of any number of rows are those of
a table of two, its first row's and its second's; and its line and background commands, once
reportlab has read them, name rows from the end, which do not depend on the number of rows.
`styled` styles such a table of the first two rows, once per kind and shape, and gives every
table of that kind and shape the same cell styles, as reportlab itself shares them between the
parts of a split table (drawing and measuring only read them).
tests/test_cards_tables.py holds them equal to a fresh `TableStyle`'s on every table of the
bundled books' cards.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

from reportlab.platypus import Table, TableStyle

from dsl.cards.memo import keep

T = TypeVar("T", bound=Table)

Commands = Callable[..., list[tuple[Any, ...]]]
"""The style commands of a kind of table, from its parameters; every cell command must name
whole columns from row 0 or row 1 to the last, or row 0 alone (see the module's docstring)."""


def styled(kind: type[T], data: Sequence[Sequence[Any]], commands: Commands, params: Hashable, **options: Any) -> T:
    """A `kind` of table of `data` (rows of equal length, at least one), with `options`, styled
    as `TableStyle(commands(*params))` styles it."""
    rows, columns = len(data), len(data[0])
    shape = min(rows, 2)
    key = (commands, params, shape, columns)
    known = _STYLES.get(key)
    if known is None:
        template = Table([[""] * columns for _ in range(shape)])
        template.setStyle(TableStyle(commands(*params)))  # type: ignore[misc]
        known = (template._cellStyles, tuple(template._linecmds), tuple(template._bkgrndcmds))
        keep(_STYLES, key, known, _STYLES_KEPT)
    cells, lines, backgrounds = known
    table: T = kind([*data], cellStyles=[cells[0], *[cells[-1]] * (rows - 1)], **options)
    table._linecmds = list(lines)
    table._bkgrndcmds = list(backgrounds)
    return table


_STYLES: dict[tuple[Any, ...], tuple[list[list[Any]], tuple[Any, ...], tuple[Any, ...]]] = {}
_STYLES_KEPT = 1 << 10
