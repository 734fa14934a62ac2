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
parts of a split table (drawing, measuring and splitting between rows only read them; a table
that may be split inside a row has styles of its own when a cell of it is vertically centred,
which such a split changes).
tests/test_cards_tables.py holds them equal to a fresh `TableStyle`'s on every table of the
bundled books' cards.

`CardTable` keeps its measure at a width, and draws the text of a plain string cell as
reportlab's `drawString` and `drawCentredString` write it, without a text object per cell; the
same test file compares both with reportlab's on every table of those cards.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

import reportlab.pdfgen.canvas
import reportlab.pdfgen.textobject
from reportlab.platypus import Table, TableStyle

from dsl.cards.memo import keep, kept_for

T = TypeVar("T", bound=Table)

Commands = Callable[..., list[tuple[Any, ...]]]
"""The style commands of a kind of table, from its parameters; every cell command must name
whole columns from row 0 or row 1 to the last, or row 0 alone (see the module's docstring)."""


def styled(
    kind: type[T], data: Sequence[Sequence[Any]], commands: Commands, params: tuple[Hashable, ...], **options: Any
) -> T:
    """A `kind` of table of `data` (rows of equal length, at least one), with `options`, styled
    as `TableStyle(commands(*params))` styles it."""
    rows, columns = len(data), len(data[0])
    shape = min(rows, 2)
    key = (commands, params, shape, columns)
    known = _STYLES.get(key)
    if known is None:
        template = Table([[""] * columns for _ in range(shape)])
        template.setStyle(TableStyle(commands(*params)))
        known = (template._cellStyles, tuple(template._linecmds), tuple(template._bkgrndcmds))
        keep(_STYLES, key, known, _STYLES_KEPT)
    cells, lines, backgrounds = known
    if options.get("splitInRow") and any(cell.valign == "MIDDLE" for row in cells for cell in row):
        # reportlab splitting such a table inside a row re-aligns the split cells' styles in place
        alone: T = kind([*data], **options)
        alone.setStyle(TableStyle(commands(*params)))
        return alone
    table: T = kind([*data], cellStyles=[cells[0], *[cells[-1]] * (rows - 1)], **options)
    table._linecmds = list(lines)
    table._bkgrndcmds = list(backgrounds)
    return table


_STYLES: dict[tuple[Any, ...], tuple[list[list[Any]], tuple[Any, ...], tuple[Any, ...]]] = {}
_STYLES_KEPT = 1 << 10


class CardTable(Table):  # type: ignore[misc]
    """A reportlab table measured once per width, whose plain one-line string cells (a rulebook
    table's short cells) are drawn without a text object per cell.

    Laying out a card measures a roll heading or a chance table again and again at the same
    width (each card it is tried on, the parts, drawing).  reportlab's measure of a table without
    spanned cells depends only on the width, the cells and their styles (the height offered only
    stops it early for spans), and sets the same sizes and positions each time: a table measured
    at a width keeps them.

    reportlab draws such a cell with `drawString` (left) or `drawCentredString`, which make a
    text object that writes `BT`, the origin (`1 0 0 1 x y Tm`), the text in the font's subsets
    (`_formatText`), `T*` and `ET`.  The text part depends only on the canvas's font, size and
    leading, the text and the codes the document gave its characters, which stay as they were
    first given: it is worked out by reportlab once per document, font and text, and written
    again after each cell's own origin, worked out as reportlab works it out."""

    _curcellstyle: Any  # the cell style drawn last (reportlab's)
    _measured_at: float | None = None  # the width it was last measured at

    def wrap(self, availWidth: float, availHeight: float) -> tuple[float, float]:
        if self._measured_at == availWidth and not self._spanCmds:
            self.availWidth = availWidth
            return self._width, self._height
        size: tuple[float, float] = super().wrap(availWidth, availHeight)
        self._measured_at = availWidth
        return size

    def _drawCell(self, cellval: Any, cellstyle: Any, pos: tuple[float, float], size: tuple[float, float]) -> None:
        canvas = self.canv
        just = cellstyle.alignment
        if (
            type(cellval) is not str
            or "\n" in cellval
            or just not in _PLAIN
            or cellstyle.valign not in _PLAIN_VALIGN
            or cellstyle.direction
            or cellstyle.shaping
            or cellstyle.href
            or cellstyle.destination
            or not canvas.bottomup
        ):
            super()._drawCell(cellval, cellstyle, pos, size)
            return
        cur = self._curcellstyle
        if cur is not cellstyle:  # reportlab's own change of fill and font
            if cur is None or cellstyle.color != cur.color:
                canvas.setFillColor(cellstyle.color)
            if (
                cur is None
                or cellstyle.leading != cur.leading
                or cellstyle.fontname != cur.fontname
                or cellstyle.fontsize != cur.fontsize
            ):
                canvas.setFont(cellstyle.fontname, cellstyle.fontsize, cellstyle.leading)
            self._curcellstyle = cellstyle
        colpos, rowpos = pos
        colwidth, rowheight = size
        leading = cellstyle.leading
        fontsize = cellstyle.fontsize
        valign = cellstyle.valign
        if valign == "BOTTOM":
            y = rowpos + cellstyle.bottomPadding + 1 * leading - fontsize
        elif valign == "TOP":
            y = rowpos + rowheight - cellstyle.topPadding - fontsize
        else:
            y = rowpos + (cellstyle.bottomPadding + rowheight - cellstyle.topPadding + 1 * leading) / 2.0 - fontsize
        written = _written(canvas, cellval)
        if just == "LEFT":
            x = colpos + cellstyle.leftPadding
        else:
            x = colpos + (colwidth + cellstyle.leftPadding - cellstyle.rightPadding) * 0.5
            x = x - 0.5 * written[1]
        origin = reportlab.pdfgen.textobject.fp_str(x, y)
        canvas._code.append(" ".join(("BT", f"1 0 0 1 {origin} Tm", f"{written[0]} T*", "ET")))


_PLAIN = frozenset(("LEFT", "CENTRE", "CENTER"))
_PLAIN_VALIGN = frozenset(("TOP", "BOTTOM", "MIDDLE"))


def _written(canvas: Any, text: str) -> tuple[str, float]:
    """The text operators of `text` in the canvas's font, size and leading, and its width, as
    reportlab's `drawString` works them out; remembered per document."""
    known = kept_for(_WRITTEN, canvas._doc)
    key = (canvas._fontname, canvas._fontsize, canvas._leading, text)
    found = known.get(key)
    if found is None:
        shaped, width = reportlab.pdfgen.canvas.bidiShapedText(
            text, None, fontName=canvas._fontname, fontSize=canvas._fontsize, shaping=False
        )
        found = (canvas.beginText(0, 0)._formatText(shaped), width)
        keep(known, key, found, _WRITTEN_KEPT)
    return found


_WRITTEN: weakref.WeakKeyDictionary[Any, dict[tuple[str, float, float, str], tuple[str, float]]] = (
    weakref.WeakKeyDictionary()
)
_WRITTEN_KEPT = 1 << 13
