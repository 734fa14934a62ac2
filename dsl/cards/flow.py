"""Blocks as reportlab flowables, in the one type scale cards and sheets share.

Every string reaches reportlab through `markup`, which escapes `&`, `<` and `>`: rulebook text is
drawn as text, never read as paragraph markup.  No style is smaller than 7 pt (`MIN_SIZE`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER, TA_LEFT, TA_RIGHT
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import Flowable, Paragraph, Table, TableStyle

from dsl.cards.blocks import Block, Chances, Condition, Detail, Entry, Grid, Heading, Inline, Note, RollHead, Text
from dsl.cards.fonts import BOLD, ITALIC, MM, REGULAR, text_width

MIN_SIZE = 7.0

INK = colors.HexColor("#1c1c1c")
MUTED = colors.HexColor("#5c5c5c")
RULE = colors.HexColor("#bdbdbd")
SHADE = colors.HexColor("#efefef")
WHITE = colors.white


def tint(colour: colors.Color, amount: float) -> colors.Color:
    """The colour mixed with white: `amount` 0 is white, 1 the colour itself."""
    return colors.Color(1 - (1 - colour.red) * amount, 1 - (1 - colour.green) * amount, 1 - (1 - colour.blue) * amount)


def _style(name: str, **values: Any) -> ParagraphStyle:
    base: dict[str, Any] = {
        "fontName": REGULAR,
        "bulletFontName": REGULAR,
        "textColor": INK,
        "fontSize": 8.0,
        "leading": 9.6,
        "allowWidows": 0,  # no last line alone at the top of the next card
        "allowOrphans": 0,  # no first line alone at the foot of a card
    }
    base.update(values)
    style = ParagraphStyle(name, **base)
    assert style.fontSize >= MIN_SIZE, name
    return style


ENTRY = _style("entry", fontSize=8.5, leading=10.0, spaceBefore=1.2)
DETAIL = _style("detail", fontSize=7.5, leading=9.0, spaceBefore=0.6)
CONDITION = _style("condition", fontName=ITALIC, fontSize=7.5, leading=9.0, spaceBefore=2.6, textColor=MUTED)
HEADING = _style("heading", fontName=BOLD, fontSize=7.0, leading=8.4, spaceBefore=4.4, textTransform="uppercase")
NOTE = _style("note", fontSize=7.0, leading=8.5, spaceBefore=1.6, textColor=INK)
TEXT = _style("text", fontSize=8.0, leading=9.8, spaceBefore=2.4)
SMALL = _style("small", fontSize=7.0, leading=8.5, spaceBefore=1.6)
CELL = _style("cell", fontSize=7.5, leading=8.8)
CELL_KEY = _style("cell_key", fontName=BOLD, fontSize=7.5, leading=8.8)
CELL_HEAD = _style("cell_head", fontName=BOLD, fontSize=7.0, leading=8.2)
CELL_CENTRED = _style("cell_centred", fontSize=7.5, leading=8.8, alignment=TA_CENTER)
CELL_HEAD_CENTRED = _style("cell_head_centred", fontName=BOLD, fontSize=7.0, leading=8.2, alignment=TA_CENTER)
ROLL_TITLE = _style("roll_title", fontName=BOLD, fontSize=8.0, leading=9.6)
ROLL_NOTATION = _style("roll_notation", fontName=BOLD, fontSize=8.5, leading=9.6, alignment=TA_RIGHT)
CHANCE = _style("chance", fontSize=7.0, leading=8.0, alignment=TA_CENTER)
CHANCE_HEAD = _style("chance_head", fontName=BOLD, fontSize=7.0, leading=8.0, alignment=TA_CENTER)
CHANCE_LABEL = _style("chance_label", fontSize=7.0, leading=8.0, alignment=TA_LEFT)

INDENT = 7.0
CELL_PAD = 2.0


@dataclass(slots=True)
class Item:
    """A flowable and whether it must stay on the same card as the one after it."""

    flowable: Flowable
    keep: bool = False
    split: bool = True  # may be split between lines or rows when it does not fit


def markup(text: str) -> str:
    """Plain text made safe for reportlab's paragraph markup."""
    return escape(text)


def runs_markup(runs: Inline, muted_size: float | None = None) -> str:
    out = []
    for run in runs:
        text = markup(run.text)
        if run.style == "strong":
            out.append(f"<b>{text}</b>")
        elif run.style == "em":
            out.append(f"<i>{text}</i>")
        elif run.style == "muted":
            size = f' size="{muted_size}"' if muted_size else ""
            out.append(f'<font color="#5c5c5c"{size}>{text}</font>')
        else:
            out.append(text)
    return "".join(out)


def _indented(style: ParagraphStyle, indent: bool) -> ParagraphStyle:
    if not indent:
        return style
    return ParagraphStyle(style.name + "_in", parent=style, leftIndent=style.leftIndent + INDENT)


class RuledHeading(Paragraph):  # type: ignore[misc]
    """A section heading with a hairline under it, in the card's accent colour."""

    def draw(self) -> None:
        super().draw()
        canvas = self.canv
        canvas.saveState()
        canvas.setStrokeColor(self.style.textColor)
        canvas.setLineWidth(0.5)
        canvas.line(0, -1.2, self.width, -1.2)
        canvas.restoreState()


def flowables(blocks: tuple[Block, ...] | list[Block], width: float, accent: colors.Color) -> list[Item]:
    """Flowables for blocks; a roll (its heading, the lines under it and its chances) is kept on
    one card when it fits on one."""
    items: list[Item] = []
    in_roll = False
    for index, block in enumerate(blocks):
        made = _block(block, width, accent)
        in_roll = isinstance(block, RollHead) or (in_roll and isinstance(block, (Detail, Chances)))
        following = blocks[index + 1] if index + 1 < len(blocks) else None
        if in_roll and isinstance(following, (Detail, Chances)):
            made[-1].keep = True
        items += made
    return items


def _block(block: Block, width: float, accent: colors.Color) -> list[Item]:
    if isinstance(block, Heading):
        text = markup(block.text)
        if block.detail:
            text += f'\u2002<font name="{REGULAR}" color="#5c5c5c">{markup(block.detail)}</font>'
        style = ParagraphStyle("heading_accent", parent=HEADING, textColor=accent)
        return [Item(RuledHeading(text, style), keep=True)]
    if isinstance(block, Condition):
        return [Item(Paragraph(markup(block.text), CONDITION), keep=True)]
    if isinstance(block, Entry):
        style = _indented(ENTRY, block.indent)
        text = runs_markup(block.runs, muted_size=7.5)
        if block.mark:
            style = ParagraphStyle(
                style.name + "_mark", parent=style, bulletIndent=style.leftIndent, leftIndent=style.leftIndent + 9
            )
            return [Item(Paragraph(text, style, bulletText=block.mark))]
        return [Item(Paragraph(text, style))]
    if isinstance(block, Detail):
        return [Item(Paragraph(runs_markup(block.runs), _indented(DETAIL, block.indent)))]
    if isinstance(block, RollHead):
        return [Item(_roll_head(block, width, accent), keep=True, split=False)]
    if isinstance(block, Chances):
        return [Item(_chances(block, width, accent), split=False)]
    if isinstance(block, Grid):
        return [Item(table) for table in grid_tables(block, width, accent)]
    if isinstance(block, Note):
        return [Item(Paragraph(_note(block), NOTE))]
    assert isinstance(block, Text)
    return [Item(Paragraph(runs_markup(block.runs), SMALL if block.small else TEXT))]


def _note(note: Note) -> str:
    text = ""
    if note.condition:
        text += f"<i>{markup(note.condition[:1].upper() + note.condition[1:])}:</i> "
    if note.quote is not None:
        text += f"<i>“{markup(note.quote)}”</i> — "
    return text + markup(note.text)


def _roll_head(block: RollHead, width: float, accent: colors.Color) -> Table:
    notation_width = min(text_width(block.notation, BOLD, ROLL_NOTATION.fontSize) + 2 * CELL_PAD + 1, width * 0.62)
    title = Paragraph("<b>Roll</b> · " + markup(block.title), ROLL_TITLE)
    notation = Paragraph(markup(block.notation), ROLL_NOTATION)
    table = Table([[title, notation]], colWidths=[width - notation_width, notation_width], hAlign="LEFT")
    table.setStyle(
        TableStyle(
            [
                ("FONTNAME", (0, 0), (-1, -1), REGULAR),  # reportlab's default is Helvetica, not embedded
                ("BACKGROUND", (0, 0), (-1, -1), tint(accent, 0.14)),
                ("LINEABOVE", (0, 0), (-1, 0), 0.8, accent),
                ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
                ("LEFTPADDING", (0, 0), (-1, -1), CELL_PAD),
                ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PAD),
                ("TOPPADDING", (0, 0), (-1, -1), 1.6),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 2.0),
            ]
        )
    )
    table.spaceBefore = 5.0
    table.spaceAfter = 0.6
    return table


def _chances(block: Chances, width: float, accent: colors.Color) -> Table:
    chances = block.table
    cell_width = (
        max(
            max((text_width(c, REGULAR, CHANCE.fontSize) for row in chances.rows for c in row.numbers), default=0.0),
            max((text_width(c, BOLD, CHANCE_HEAD.fontSize) for c in chances.columns), default=0.0),
        )
        + 2 * 1.4
        + 1.0
    )
    # The label column takes what the numbers leave, within reason: few columns spread out.
    label_width = min(max(width - cell_width * len(chances.columns), 12 * MM), width * 0.42)
    cell_width = (width - label_width) / max(len(chances.columns), 1)
    header = [
        Paragraph(f'<b>{markup(chances.against)}</b> <font size="7" color="#5c5c5c">chance %</font>', CHANCE_LABEL)
    ]
    header += [Paragraph(markup(c), CHANCE_HEAD) for c in chances.columns]
    rows: list[list[Any]] = [header]
    for row in chances.rows:
        label = f"<b>{markup(row.dice)}</b>"
        if row.note:
            label += f' <font color="#5c5c5c">{markup(row.note)}</font>'
        rows.append([Paragraph(label, CHANCE_LABEL), *(Paragraph(markup(c), CHANCE) for c in row.numbers)])
    table = Table(rows, colWidths=[label_width] + [cell_width] * len(chances.columns), hAlign="LEFT", repeatRows=1)
    table.setStyle(
        TableStyle(
            [
                ("FONTNAME", (0, 0), (-1, -1), REGULAR),  # reportlab's default is Helvetica, not embedded
                ("LINEBELOW", (0, 0), (-1, 0), 0.6, accent),
                ("LINEBELOW", (0, 1), (-1, -1), 0.25, RULE),
                ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
                ("LEFTPADDING", (0, 0), (-1, -1), 1.4),
                ("RIGHTPADDING", (0, 0), (-1, -1), 1.4),
                ("LEFTPADDING", (0, 0), (0, -1), 0),
                ("TOPPADDING", (0, 0), (-1, -1), 1.0),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 1.4),
            ]
        )
    )
    table.spaceBefore = 3.0
    return table


# ---------------------------------------------------------------- rulebook tables


def grid_tables(grid: Grid, width: float, accent: colors.Color) -> list[Table]:
    """A rulebook table, ruled, with its header repeated when it runs onto another card; when
    its columns cannot all fit side by side, several tables that each repeat the key columns."""
    widths = _column_widths(grid, width)
    if widths is not None:
        return [_grid_table(grid, widths, accent)]
    keys = grid.keys
    values = list(range(keys, len(grid.header)))
    tables = []
    while values:
        take = len(values)
        while take > 1:
            part = _columns(grid, [*range(keys), *values[:take]])
            if _column_widths(part, width) is not None:
                break
            take -= 1
        part = _columns(grid, [*range(keys), *values[:take]])
        found = _column_widths(part, width) or _even(part, width)
        tables.append(_grid_table(part, found, accent))
        values = values[take:]
    return tables


def _columns(grid: Grid, indexes: list[int]) -> Grid:
    return Grid(
        tuple(grid.header[i] for i in indexes), tuple(tuple(r[i] for i in indexes) for r in grid.rows), grid.keys
    )


def _even(grid: Grid, width: float) -> list[float]:
    return [width / len(grid.header)] * len(grid.header)


def _column_widths(grid: Grid, width: float) -> list[float] | None:
    """Widths from the text: every column at least as wide as its longest word, the rest of the
    width shared by how much text each column holds.  None when even the words do not fit."""
    count = len(grid.header)
    natural = []
    least = []
    for index in range(count):
        column = [(grid.header[index], CELL_HEAD)] + [
            (row[index], CELL_KEY if index < grid.keys else CELL) for row in grid.rows
        ]
        natural.append(max(text_width(text, s.fontName, s.fontSize) for text, s in column) + 2 * CELL_PAD + 0.5)
        words = [w for text, s in column for w in [(x, s) for x in text.split()]] or [("", CELL)]
        least.append(max(text_width(w, s.fontName, s.fontSize) for w, s in words) + 2 * CELL_PAD + 0.5)
    if sum(least) > width:
        return None
    if sum(natural) <= width:
        values = range(grid.keys, count) if count > grid.keys else range(count)
        share = (width - sum(natural)) / len(values)
        return [w + (share if i in values else 0) for i, w in enumerate(natural)]
    spare = width - sum(least)
    wanted = [n - m for n, m in zip(natural, least, strict=True)]
    total = sum(wanted) or 1.0
    return [m + spare * w / total for m, w in zip(least, wanted, strict=True)]


def _grid_table(grid: Grid, widths: list[float], accent: colors.Color) -> Table:
    centred = [grid.numeric(i) for i in range(len(grid.header))]
    rows: list[list[Any]] = [
        [Paragraph(markup(h), CELL_HEAD_CENTRED if centred[i] else CELL_HEAD) for i, h in enumerate(grid.header)]
    ]
    for row in grid.rows:
        cells = []
        for i, cell in enumerate(row):
            style = CELL_KEY if i < grid.keys else CELL_CENTRED if centred[i] else CELL
            cells.append(Paragraph(markup(cell), style))
        rows.append(cells)
    table = Table(rows, colWidths=widths, hAlign="LEFT", repeatRows=1, splitInRow=1)
    table.setStyle(
        TableStyle(
            [
                ("FONTNAME", (0, 0), (-1, -1), REGULAR),  # reportlab's default is Helvetica, not embedded
                ("BACKGROUND", (0, 0), (-1, 0), tint(accent, 0.16)),
                ("LINEABOVE", (0, 0), (-1, 0), 0.8, accent),
                ("LINEBELOW", (0, 0), (-1, 0), 0.6, accent),
                ("LINEBELOW", (0, 1), (-1, -1), 0.25, RULE),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("LEFTPADDING", (0, 0), (-1, -1), CELL_PAD),
                ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PAD),
                ("TOPPADDING", (0, 0), (-1, -1), 1.4),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 1.8),
            ]
        )
    )
    table.spaceBefore = 3.0
    return table
