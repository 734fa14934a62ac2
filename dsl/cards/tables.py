"""Card tables (roll headings, chance tables, rulebook tables) with their styles made once.

A deck makes about fifteen hundred small tables of a few kinds (a roll's band, a chance table, a
rulebook table's rows), and every table of one kind with the same parameters (accent colour,
padding, header or not) is styled by the same commands: `style` makes each such `TableStyle`
once, and every table of that kind shares it (reportlab reads a table's style when the table is
made, and never changes it).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from reportlab.platypus import Table, TableStyle

from dsl.cards.memo import keep

Commands = Callable[..., list[tuple[Any, ...]]]
"""The style commands of a kind of table, from its parameters."""


def style(commands: Commands, params: tuple[Hashable, ...]) -> TableStyle:
    """`TableStyle(commands(*params))`, made once per kind of table and parameters."""
    key = (commands, params)
    found = _STYLES.get(key)
    if found is None:
        found = keep(_STYLES, key, TableStyle(commands(*params)), _STYLES_KEPT)
    return found


_STYLES: dict[tuple[Commands, tuple[Hashable, ...]], TableStyle] = {}
_STYLES_KEPT = 1 << 10


def styled(kind: type[Table], data: Sequence[Sequence[Any]], commands: Commands, params: tuple[Hashable, ...], **options: Any) -> Table:
    """A `kind` of table of `data`, with `options`, styled by `commands(*params)`."""
    return kind([list(row) for row in data], style=style(commands, params), **options)
