"""The quick-reference sheet as PDF: landscape A4 or Letter, three columns, flowing onto as many
pages as the rulebook needs, every page headed with the rulebook's title and numbered."""

from __future__ import annotations

import io

from reportlab.lib import colors
from reportlab.lib.pagesizes import landscape
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import BaseDocTemplate, CondPageBreak, Flowable, Frame, KeepTogether, PageTemplate, Paragraph

from dsl.cards.blocks import Sheet, SheetEntry, SheetSection
from dsl.cards.flow import INK, MUTED, WHITE, Item, flowables, markup
from dsl.cards.fonts import BOLD, MM, REGULAR, fit_text, register_fonts, text_width
from dsl.cards.pdfcards import PAPERS

MARGIN = 10 * MM
GUTTER = 6 * MM
COLUMNS = 3
BAND = 11 * MM
FOOT = 6 * MM
SHORT = 55 * MM  # entries up to this tall are kept whole in one column
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
    """Laid out twice: once to count the pages, once to number them "1 of N"."""
    register_fonts()
    _, pages = _build(sheet, paper, None)
    data, _ = _build(sheet, paper, pages)
    return data


def _build(sheet: Sheet, paper: str, pages: int | None) -> tuple[bytes, int]:
    size = landscape(PAPERS[paper])
    buffer = io.BytesIO()
    width, height = size
    frame_width = (width - 2 * MARGIN - (COLUMNS - 1) * GUTTER) / COLUMNS
    frame_height = height - 2 * MARGIN - BAND - FOOT
    frames = [
        Frame(
            MARGIN + i * (frame_width + GUTTER),
            MARGIN + FOOT,
            frame_width,
            frame_height,
            leftPadding=0,
            rightPadding=0,
            topPadding=0,
            bottomPadding=0,
            id=f"column{i}",
        )
        for i in range(COLUMNS)
    ]

    def decorate(canvas: Canvas, doc: BaseDocTemplate) -> None:
        _page_frame(canvas, sheet, size, doc.page, pages)

    doc = BaseDocTemplate(
        buffer,
        pagesize=size,
        leftMargin=MARGIN,
        rightMargin=MARGIN,
        topMargin=MARGIN,
        bottomMargin=MARGIN,
        title=f"{sheet.title} — quick reference",
        author="rulecraft",
        subject=f"Quick-reference sheet, {paper.upper()} landscape",
        creator="rulecraft",
        invariant=1,
        pageCompression=1,
        initialFontName=REGULAR,
        initialFontSize=8,
    )
    doc.addPageTemplates([PageTemplate(id="sheet", frames=frames, onPage=decorate)])
    doc.build(_story(sheet, frame_width))
    return buffer.getvalue(), doc.page


def _story(sheet: Sheet, width: float) -> list[Flowable]:
    story: list[Flowable] = [item.flowable for item in flowables(sheet.intro, width, INK)]
    for section in sheet.sections:
        story += _section(section, width)
    return story


def _section(section: SheetSection, width: float) -> list[Flowable]:
    accent = colors.HexColor(section.category.colour) if section.category else INK
    title = markup(section.title)
    if section.category is not None:
        title = f"{markup(section.category.glyph)} · {title}"
    heading = Paragraph(title, ParagraphStyle("sheet_section_c", parent=SECTION, backColor=accent))
    out: list[Flowable] = []
    for index, entry in enumerate(section.entries):
        head = [Item(_title(entry))] if entry.title != section.title else []
        items = head + flowables(entry.blocks, width, accent)
        if index == 0:
            items.insert(0, Item(heading))
        if _height(items, width) < SHORT:
            out.append(KeepTogether([item.flowable for item in items]))
        else:
            # A long entry flows from where it starts, if that leaves room for a good start; a
            # roll (its heading and the lines under it) stays in one column, as on the cards.
            out.append(CondPageBreak(LONG_START))
            out += _kept(items)
    return out


def _title(entry: SheetEntry) -> Paragraph:
    head = markup(entry.title)
    detail = " · ".join(
        x for x in (entry.kind if entry.kind not in ("Table", "Odds", "Terms") else "", entry.cites) if x
    )
    if detail:
        head += f'\u2002<font name="{REGULAR}" size="7.5" color="#5c5c5c">{markup(detail)}</font>'
    return Paragraph(head, ENTRY_TITLE)


def _height(items: list[Item], width: float) -> float:
    measure = Canvas(io.BytesIO())
    return float(sum(i.flowable.wrapOn(measure, width, 10_000)[1] + i.flowable.getSpaceBefore() for i in items))


def _kept(items: list[Item]) -> list[Flowable]:
    """Flowables with every run of items that keep with the next one joined in a KeepTogether."""
    out: list[Flowable] = []
    chain: list[Flowable] = []
    for item in items:
        chain.append(item.flowable)
        if not item.keep:
            out.append(chain[0] if len(chain) == 1 else KeepTogether(chain))
            chain = []
    if chain:
        out.append(KeepTogether(chain))
    return out


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
