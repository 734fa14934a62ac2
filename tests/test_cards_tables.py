"""Card tables styled by dsl/cards/tables.py: the cell styles, lines and backgrounds reportlab's own
`TableStyle` gives them."""

from __future__ import annotations

import types
from collections.abc import Sequence
from typing import Any

import pytest
from reportlab.platypus import Table, TableStyle
from reportlab.platypus.tables import CellStyle

from dsl.cards import card_files, flow, pdfcards, pdfsheet, tables
from dsl.cards.canvas import new_canvas
from dsl.cards.flow import CELL, RULE
from dsl.cards.fonts import BOLD, REGULAR, register_fonts
from dsl.cards.tables import CardTable, Commands, styled
from dsl.compiler import compile_file
from dsl.resources import bundled_rulebooks_dir

register_fonts()

_SETTINGS = sorted(a for a in vars(CellStyle) if not a.startswith("_") and not callable(getattr(CellStyle, a)))
"""What a cell style holds (its name, `repr((row, column))`, is only a label)."""


def _cells(table: Table) -> list[list[dict[str, Any]]]:
    return [[{a: getattr(cell, a) for a in _SETTINGS} for cell in row] for row in table._cellStyles]


def _differences(table: Table, data: Sequence[Sequence[Any]], commands: Commands, params: Any) -> list[str]:
    """How `table` differs from a table of `data` styled by a fresh `TableStyle` of the commands."""
    fresh = Table([*data])
    fresh.setStyle(TableStyle(commands(*params)))
    found = []
    if _cells(table) != _cells(fresh):
        found.append("cell styles")
    if table._linecmds != fresh._linecmds:
        found.append("lines")
    if table._bkgrndcmds != fresh._bkgrndcmds:
        found.append("backgrounds")
    if [type(c[4]) for c in table._linecmds] != [type(c[4]) for c in fresh._linecmds]:
        found.append("line colours")
    return found


def _uneven(first: int) -> list[tuple[Any, ...]]:
    """Commands naming body rows from `first` on: only 0 and 1 give every body row alike."""
    return [
        ("FONTSIZE", (0, 0), (-1, -1), CELL.fontSize),
        ("LINEBELOW", (0, first), (-1, -1), 0.25, RULE),
        ("ALIGN", (1, first), (1, -1), "CENTER"),
        ("BACKGROUND", (0, first), (-1, first), RULE),
    ]


@pytest.mark.parametrize("rows", [1, 2, 3, 7])
def test_a_table_of_any_length_is_styled_as_table_style_styles_it(rows: int) -> None:
    data = [[f"{r}.{c}" for c in range(3)] for r in range(rows)]
    for first in (0, 1):
        assert _differences(styled(Table, data, _uneven, (first,)), data, _uneven, (first,)) == []


def test_commands_naming_rows_past_the_second_are_not_what_styled_is_for() -> None:
    """The comparison fails for commands outside `styled`'s promise: a column aligned from the
    third row is worked out on a two-row table and given to every body row."""
    data = [[f"{r}.{c}" for c in range(3)] for r in range(5)]
    assert "cell styles" in _differences(styled(Table, data, _uneven, (2,)), data, _uneven, (2,))


def test_tables_of_one_kind_and_shape_share_their_cell_styles() -> None:
    one = styled(Table, [["a", "b"], ["c", "d"], ["e", "f"]], _uneven, (1,))
    other = styled(Table, [["g", "h"], ["i", "j"]], _uneven, (1,))
    assert one._cellStyles[0] is other._cellStyles[0]
    assert one._cellStyles[2] is other._cellStyles[1]
    assert one._linecmds == other._linecmds and one._linecmds is not other._linecmds


def _centred(first: int) -> list[tuple[Any, ...]]:
    return [*_uneven(first), ("VALIGN", (0, 0), (-1, -1), "MIDDLE")]


def test_a_centred_table_that_may_split_inside_a_row_has_styles_of_its_own() -> None:
    """reportlab splitting a row re-aligns a vertically centred cell's style in place."""
    data = [["a", "b"], ["c", "d"]]
    one, other = (styled(Table, data, _centred, (1,), splitInRow=1) for _ in range(2))
    assert one._cellStyles[1][0] is not other._cellStyles[1][0]
    assert _differences(one, data, _centred, (1,)) == []
    unsplit, again = (styled(Table, data, _centred, (1,)) for _ in range(2))
    assert unsplit._cellStyles[1][0] is again._cellStyles[1][0]


def test_every_table_of_the_bundled_books_is_styled_as_table_style_styles_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every roll heading, chance table and rulebook table the cards and sheets of the six bundled
    books make, against the same table styled by reportlab from its commands."""
    kinds: dict[str, int] = {}

    def compared(kind: type[Table], data: Any, commands: Commands, params: Any, **options: Any) -> Table:
        table = tables.styled(kind, data, commands, params, **options)
        assert _differences(table, data, commands, params) == []
        kinds[commands.__name__] = kinds.get(commands.__name__, 0) + 1
        return table

    monkeypatch.setattr(flow, "styled", compared)
    _forget_layouts(monkeypatch)
    for path in sorted(bundled_rulebooks_dir().glob("*.rules")):
        compiled = compile_file(path)
        assert compiled.book is not None
        card_files(compiled.book)
    # 1,000 roll headings, 127 chance tables, 301 rulebook tables when this was written
    assert kinds["_roll_head_style"] > 500 and kinds["_chances_style"] > 50 and kinds["_grid_style"] > 150, kinds


def _forget_layouts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lay out every card and sheet afresh, as a build in a process of its own does: layouts
    are remembered by content, so an earlier build of the same books would leave little to make."""
    monkeypatch.setattr(pdfcards, "_TRIALS", {})
    monkeypatch.setattr(pdfcards, "_LAYOUTS", {})
    monkeypatch.setattr(pdfsheet, "_COLUMNS", {})


def _drawn_both_ways(table: Table) -> tuple[list[str], list[str]]:
    """The operators `CardTable` writes for the table (wrapped, with its canvas), and those
    reportlab's own cell drawing writes after it on the same canvas, taken back out."""
    code = table.canv._code
    start = len(code)
    Table.draw(table)
    middle = len(code)
    table._drawCell = types.MethodType(Table._drawCell, table)
    try:
        Table.draw(table)
    finally:
        del table._drawCell
    theirs = code[middle:]
    del code[middle:]
    return code[start:], theirs


def _grid(accent: Any, valign: str) -> list[tuple[Any, ...]]:
    return [
        ("FONTNAME", (0, 0), (-1, -1), REGULAR),
        ("FONTNAME", (0, 0), (-1, 0), BOLD),
        ("TEXTCOLOR", (0, 1), (0, -1), accent),
        ("LEADING", (0, 0), (-1, -1), 9.1),
        ("VALIGN", (0, 0), (-1, -1), valign),
        ("ALIGN", (1, 0), (1, -1), "CENTER"),
        ("ALIGN", (2, 0), (2, -1), "RIGHT"),  # left to reportlab
        ("LEFTPADDING", (0, 0), (-1, -1), 1.7),
        ("RIGHTPADDING", (0, 0), (-1, -1), 2.3),
        ("TOPPADDING", (0, 0), (-1, -1), 0.9),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 1.3),
    ]


@pytest.mark.parametrize("valign", ["TOP", "MIDDLE", "BOTTOM"])
def test_string_cells_are_drawn_as_reportlab_draws_them(valign: str) -> None:
    data = [
        ["Roll", "Result", "Right"],
        ["2\u20133", "Überschreitung — ½ ≤ 5 (brackets) \\ back", "x"],
        ["", "two\nlines", "\u4e2d\u6587 \U0001f3b2"],
        ["12", "  spaced  ", "7"],
    ]
    table = styled(CardTable, data, _grid, (RULE, valign), colWidths=[30.0, 80.5, 41.25], rowHeights=None)
    canvas = new_canvas()
    table.wrapOn(canvas, 200, 200)
    table.canv = canvas
    ours, theirs = _drawn_both_ways(table)
    assert ours == theirs
    assert sum(part.startswith("BT 1 0 0 1 ") for part in ours) >= 8


def test_every_table_of_the_bundled_books_is_drawn_as_reportlab_draws_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every table the cards and sheets of the six bundled books draw, drawn as a `CardTable` and
    then with reportlab's own cell drawing on the same canvas: the same operators."""
    drawn: list[int] = []
    written: list[str] = []
    remembered = tables._written

    def counted(canvas: Any, text: str) -> tuple[str, float]:
        written.append(text)
        return remembered(canvas, text)

    def draw(table: CardTable) -> None:
        ours, theirs = _drawn_both_ways(table)
        assert ours == theirs
        drawn.append(len(ours))

    monkeypatch.setattr(tables, "_written", counted)
    monkeypatch.setattr(CardTable, "draw", draw, raising=False)
    for path in sorted(bundled_rulebooks_dir().glob("*.rules")):
        compiled = compile_file(path)
        assert compiled.book is not None
        card_files(compiled.book)
    assert len(drawn) > 400  # 569 tables, 4,810 string cells when this was written
    assert len(written) > 3000


_SIZES = ("_width", "_height", "_rowHeights", "_colWidths", "_rowpositions", "_colpositions", "_hmax", "availWidth")


def test_every_table_of_the_bundled_books_is_measured_as_reportlab_measures_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every time the cards and sheets of the six bundled books measure a table, what `CardTable`
    answers and keeps against what reportlab works out afresh for the same width and height."""
    kept: list[bool] = []
    measure = CardTable.wrap

    def both(table: CardTable, width: float, height: float) -> tuple[float, float]:
        again = table._measured_at == width
        ours = measure(table, width, height)
        sizes = [getattr(table, name) for name in _SIZES]
        assert Table.wrap(table, width, height) == ours
        assert [getattr(table, name) for name in _SIZES] == sizes
        kept.append(again)
        return ours

    monkeypatch.setattr(CardTable, "wrap", both)
    _forget_layouts(monkeypatch)
    for path in sorted(bundled_rulebooks_dir().glob("*.rules")):
        compiled = compile_file(path)
        assert compiled.book is not None
        card_files(compiled.book)
    assert sum(kept) > 500 and len(kept) - sum(kept) > 800  # 705 of 1,637 kept when this was written


def test_a_table_measured_at_another_width_is_measured_again() -> None:
    data = [["Roll", "a longer label that wraps at a narrow width"]]
    cells = [[flow.Para(c, CELL) for c in row] for row in data]
    table = styled(CardTable, cells, _uneven, (0,), colWidths=["30%", "70%"])
    canvas = new_canvas()
    wide = table.wrapOn(canvas, 400, 100)
    narrow = table.wrapOn(canvas, 90, 100)
    assert narrow[1] > wide[1]  # two lines of 8.8 pt, not one
    assert table.wrapOn(canvas, 400, 5) == wide
