"""The quick-reference sheet as PDF: landscape A4 or Letter, three columns, flowing onto as many
pages as the rulebook needs, every page headed with the rulebook's title and numbered.

The columns are as wide and as tall as both papers allow, so the sheet is laid out once and drawn
on either paper (centred): the same columns, and the same page breaks, on A4 and on Letter."""

from __future__ import annotations

from reportlab.lib import colors
from reportlab.lib.pagesizes import landscape
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfgen.canvas import Canvas

from dsl.cards.blocks import Sheet, SheetEntry, SheetSection
from dsl.cards.canvas import measuring_canvas
from dsl.cards.flow import CONTINUED, INK, MUTED, WHITE, Item, Para, derived, flowables, markup
from dsl.cards.fonts import BOLD, MM, REGULAR, fit_text, register_fonts, text_width
from dsl.cards.paginate import Placed, paginate
from dsl.cards.pdfcards import PAPERS, document

MARGIN = 10 * MM
GUTTER = 6 * MM
COLUMNS = 3
BAND = 11 * MM
FOOT = 6 * MM
SHORT = 70 * MM  # entries up to this tall are kept whole in one column
LONG_START = 30 * MM  # a longer entry starts in a new column when less than this is left

SECTION = ParagraphStyle(
    "sheet_section",
    fontName=BOLD,
    fontSize=8.5,
    leading=10.5,
    textColor=WHITE,
    borderPadding=(2.2, 3, 2.6, 3),
    spaceBefore=9,
    spaceAfter=4,
    textTransform="uppercase",
)
ENTRY_TITLE = ParagraphStyle(
    "sheet_entry", fontName=BOLD, fontSize=9.0, leading=11.0, textColor=INK, spaceBefore=7, spaceAfter=0.5
)


def sheet_pdf(sheet: Sheet, paper: str) -> bytes:
    """Laid out into columns first (see paginate.py), so that every page can say "of N"."""
    size = landscape(PAPERS[paper])
    frame_width, frame_height = _frame()
    left = (size[0] - COLUMNS * frame_width - (COLUMNS - 1) * GUTTER) / 2
    bottom = (size[1] - frame_height - BAND - FOOT) / 2
    columns = sheet_columns(sheet)
    pages = max(1, -(-len(columns) // COLUMNS))
    canvas, buffer = document(f"{sheet.title} — quick reference", f"Quick-reference sheet, {paper.upper()} landscape")
    canvas.setPageSize(size)
    for page in range(pages):
        _page_frame(canvas, sheet, size, page + 1, pages)
        for column, placed in enumerate(columns[page * COLUMNS : (page + 1) * COLUMNS]):
            canvas.saveState()
            canvas.translate(left + column * (frame_width + GUTTER), bottom + FOOT)
            _column(canvas, placed, frame_height)
            canvas.restoreState()
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def _column(canvas: Canvas, placed: list[Placed], height: float) -> None:
    """A column's items, top down, from its lower-left corner at the origin."""
    y = height
    for item in placed:
        y -= item.space + item.height
        item.flowable.drawOn(canvas, 0, y)


def sheet_columns(sheet: Sheet) -> list[list[Placed]]:
    """What each column holds, page after page (three columns to a page), on either paper."""
    columns = _COLUMNS.get(sheet)
    if columns is None:
        register_fonts()
        frame_width, frame_height = _frame()
        columns = paginate(_items(sheet, frame_width), (frame_height,), frame_width, space_after=True)
        _COLUMNS.clear()  # the sheet just laid out is the one drawn next, on each paper
        _COLUMNS[sheet] = columns
    return columns


_COLUMNS: dict[Sheet, list[list[Placed]]] = {}


def _frame() -> tuple[float, float]:
    """The width and height of a column: what the smaller of the papers' widths and heights leave
    inside the margins, band and foot."""
    width = min(landscape(size)[0] for size in PAPERS.values())
    height = min(landscape(size)[1] for size in PAPERS.values())
    return (width - 2 * MARGIN - (COLUMNS - 1) * GUTTER) / COLUMNS, height - 2 * MARGIN - BAND - FOOT


def _items(sheet: Sheet, width: float) -> list[Item]:
    items = flowables(sheet.intro, width, INK)
    for section in sheet.sections:
        items += _section(section, width)
    return items


def _section(section: SheetSection, width: float) -> list[Item]:
    """A section's band and entries.  A short entry is kept whole in one column; a longer one flows
    from where it starts if that leaves room for a good start.  The band keeps with the first
    entry's title, a title with its first block; a column that continues a section starts with its
    band, marked "(cont.)", and with the title of the entry it continues."""
    accent = colors.HexColor(section.category.colour) if section.category else INK
    again = Item(_band(section, accent, continued=True), keep=True, split=False)
    out: list[Item] = []
    for index, entry in enumerate(section.entries):
        items: list[Item] = []
        resume: tuple[Item, ...] = (again,)
        if entry.title != section.title:
            items.append(Item(_title(entry), keep=True, resume=resume))
            resume = (again, Item(_title(entry, continued=True), keep=True, split=False))
        items += flowables(entry.blocks, width, accent, resume)
        if index == 0:
            items.insert(0, Item(_band(section, accent, continued=False), keep=True))
        if _height(items, width) < SHORT:
            for item in items[:-1]:
                item.keep = True
        else:
            items[0].need = LONG_START
        out += items
    return out


def _band(section: SheetSection, accent: colors.Color, *, continued: bool) -> Para:
    title = markup(section.title + (CONTINUED if continued else ""))
    if section.category is not None:
        title = f"{markup(section.category.glyph)} · {title}"
    return Para(title, derived(SECTION, "_c", backColor=accent))


def _title(entry: SheetEntry, *, continued: bool = False) -> Para:
    if continued:
        return Para(markup(entry.title + CONTINUED), ENTRY_TITLE)
    head = markup(entry.title)
    detail = " · ".join(
        x for x in (entry.kind if entry.kind not in ("Table", "Odds", "Terms") else "", entry.cites) if x
    )
    if detail:
        head += f'\u2002<font name="{REGULAR}" size="7.5" color="#5c5c5c">{markup(detail)}</font>'
    return Para(head, ENTRY_TITLE)


def _height(items: list[Item], width: float) -> float:
    measure = measuring_canvas()
    return float(sum(i.flowable.wrapOn(measure, width, 10_000)[1] + i.flowable.getSpaceBefore() for i in items))


def _page_frame(canvas: Canvas, sheet: Sheet, size: tuple[float, float], page: int, pages: int | None) -> None:
    width, height = size
    canvas.saveState()
    top = height - MARGIN
    canvas.setFillColor(INK)
    canvas.rect(MARGIN, top - BAND + 2 * MM, width - 2 * MARGIN, BAND - 2 * MM, stroke=0, fill=1)
    canvas.setFillColor(WHITE)
    canvas.setFont(BOLD, 13)
    baseline = top - BAND + 2 * MM + 2.6 * MM
    room = width - 2 * MARGIN - 8 * MM - text_width(sheet.subtitle, REGULAR, 7.5)
    canvas.drawString(MARGIN + 3 * MM, baseline, fit_text(sheet.title, BOLD, 13, room))
    canvas.setFont(REGULAR, 7.5)
    canvas.drawRightString(
        width - MARGIN - 3 * MM, baseline, fit_text(sheet.subtitle, REGULAR, 7.5, (width - 2 * MARGIN) / 2)
    )
    canvas.setFillColor(MUTED)
    canvas.setFont(REGULAR, 7)
    canvas.drawString(MARGIN, MARGIN + 1 * MM, "Printed by rulecraft · modifiers stack unless a group says otherwise")
    number = f"Page {page} of {pages}" if pages else f"Page {page}"
    canvas.drawRightString(width - MARGIN, MARGIN + 1 * MM, number)
    canvas.restoreState()
