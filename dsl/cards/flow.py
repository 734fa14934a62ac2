"""Blocks as reportlab flowables, in the one type scale cards and sheets share.

Every string becomes paragraph markup through `markup`, which escapes `&`, `<` and `>`: rulebook
text is drawn as text, never read as markup, whether typeset.py sets the paragraph or reportlab's
`Paragraph` does.  No style is smaller than 7 pt (`MIN_SIZE`).
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER, TA_LEFT, TA_RIGHT
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import Flowable, Paragraph, Table, TableStyle

from dsl.cards.blocks import (
    OTHERWISE,
    Block,
    Chances,
    Condition,
    Detail,
    Entry,
    Grid,
    Heading,
    Index,
    IndexEntry,
    Inline,
    Note,
    RollHead,
    Run,
    Text,
)
from dsl.cards.fonts import BOLD, ITALIC, MM, REGULAR, text_width
from dsl.cards.memo import keep
from dsl.cards.text import NBSP, WORD, sentences, words
from dsl.cards.typeset import Line, Word, pieces
from dsl.cards.typeset import draw as typeset_draw
from dsl.cards.typeset import lines as set_lines
from dsl.cards.typeset import words as set_words

MIN_SIZE = 7.0

INK = colors.HexColor("#1c1c1c")
MUTED = colors.HexColor("#5c5c5c")
RULE = colors.HexColor("#a8a8a8")
RULE_WIDTH = 0.5
"""Rules between table rows: heavy enough to print (a press renders 0.25 pt of light grey broken)."""
SHADE = colors.HexColor("#efefef")
WHITE = colors.white


def tint(colour: colors.Color, amount: float) -> colors.Color:
    """The colour mixed with white: `amount` 0 is white, 1 the colour itself."""
    return colors.Color(1 - (1 - colour.red) * amount, 1 - (1 - colour.green) * amount, 1 - (1 - colour.blue) * amount)


class Para(Flowable):  # type: ignore[misc]
    """A paragraph of card markup: set into lines by typeset.py when it is in the markup cards
    write (nearly all), else laid out and drawn by reportlab's `Paragraph`.

    Laying out a card asks a paragraph its height many times at the same width (each trial of a
    card, the compact step, the parts, then drawing), and a deck sets the same text again and
    again (a chance, a label, a heading on card after card, a title in each size): a `Para`
    holds only its text and style, and takes its words (`words_of`, once per text and style)
    and its lines (`lines_of`, once per text, style and width), or its `Paragraph`
    (`laid_out`), from what was made before."""

    def __init__(self, text: str, style: ParagraphStyle, bulletText: str | None = None) -> None:
        super().__init__()
        self.text = text
        self.style = style
        self.bullet = bulletText
        self.words = words_of(text, style) if bulletText is None else None
        self.lines: tuple[Line, ...] | None = None  # as set at `width`
        self.laid: Paragraph | None = None  # reportlab's, at `width`, when it is not set here

    def wrap(self, availWidth: float, availHeight: float) -> tuple[float, float]:
        self.width = availWidth
        self.lines = lines_of(self.text, self.style, self.words, availWidth) if self.words is not None else None
        if self.lines is not None:
            self.laid, self.height = None, len(self.lines) * float(self.style.leading)
        else:
            self.laid, self.height = laid_out(self.text, self.style, self.bullet, availWidth)
        return self.width, self.height

    def split(self, availWidth: float, availHeight: float) -> list[Flowable]:
        self.wrap(availWidth, availHeight)
        if self.lines is not None:
            return split_lines(self, self.lines, self.style, availHeight)
        parts: list[Flowable] = Paragraph(self.text, self.style, bulletText=self.bullet).split(availWidth, availHeight)
        return parts

    def draw(self) -> None:
        if self.lines is not None:
            typeset_draw(self.canv, self.lines, self.style, self.width, self.height)
            return
        laid = self.laid if self.laid is not None else laid_out(self.text, self.style, self.bullet, self.width)[0]
        # The paragraph draws at this flowable's origin, on its canvas, as a flowable draws
        # (`canv` is set for the call), without a second translation and graphics state.
        laid.canv = self.canv
        try:
            laid.draw()
        finally:
            del laid.canv

    def getPlainText(self) -> str:
        """The text without its markup, as reportlab's paragraph gives it."""
        text: str = Paragraph(self.text, self.style, bulletText=self.bullet).getPlainText()
        return text

    def getSpaceBefore(self) -> float:
        return float(self.style.spaceBefore)

    def getSpaceAfter(self) -> float:
        return float(self.style.spaceAfter)


class SetLines(Flowable):  # type: ignore[misc]
    """Lines of a paragraph set by typeset.py: a part of one split between two frames."""

    def __init__(self, lines: tuple[Line, ...], style: ParagraphStyle, text: str) -> None:
        super().__init__()
        self.lines = lines
        self.style = style
        self.text = text

    def wrap(self, availWidth: float, availHeight: float) -> tuple[float, float]:
        self.width, self.height = availWidth, len(self.lines) * float(self.style.leading)
        return self.width, self.height

    def split(self, availWidth: float, availHeight: float) -> list[Flowable]:
        return split_lines(self, self.lines, self.style, availHeight)

    def draw(self) -> None:
        typeset_draw(self.canv, self.lines, self.style, self.width, self.height)

    def getPlainText(self) -> str:
        return " ".join("".join(p.text for p in word.pieces) for line in self.lines for word in line.words)

    def getSpaceBefore(self) -> float:
        return float(self.style.spaceBefore)

    def getSpaceAfter(self) -> float:
        return float(self.style.spaceAfter)


def split_lines(whole: Flowable, lines: tuple[Line, ...], style: ParagraphStyle, height: float) -> list[Flowable]:
    """`lines` split after the most that fit `height`, as a paragraph splits: none when a first
    line would be left alone at the foot (orphans not allowed) or a last alone at the top
    (widows not allowed) and no line can move to keep it company; `[whole]` when all fit."""
    fit = int(height / float(style.leading))
    if (not style.allowOrphans and fit <= 1) or fit == 0:
        return []
    count = len(lines)
    if count <= fit:
        return [whole]
    if not style.allowWidows and count == fit + 1:
        if (style.allowOrphans and count == 3) or count > 3:
            fit -= 1
        else:
            return []
    text = getattr(whole, "text", "")
    return [SetLines(lines[:fit], style, text), SetLines(lines[fit:], style, text)]


def words_of(text: str, style: ParagraphStyle) -> tuple[Word, ...] | None:
    """The words of markup in `style` as typeset.py sets them, or None when it is left to
    reportlab; made once per text and style (and remembered, within a bound)."""
    key = (text, style)
    if key in _WORDS:
        return _WORDS[key]
    found = pieces(text, style)
    return keep(_WORDS, key, None if found is None else set_words(found), _WORDS_KEPT)


def lines_of(text: str, style: ParagraphStyle, words: tuple[Word, ...], width: float) -> tuple[Line, ...] | None:
    """`words` (of `text` in `style`) set into lines `width` wide, or None when a word does not
    fit a line; made once per text, style and width."""
    key = (text, style, width)
    if key in _LINES:
        return _LINES[key]
    first = width - style.leftIndent - style.firstLineIndent - style.rightIndent
    rest = width - style.leftIndent - style.rightIndent
    return keep(_LINES, key, set_lines(words, first, rest), _LINES_KEPT)


_WORDS: dict[tuple[str, ParagraphStyle], tuple[Word, ...] | None] = {}
_WORDS_KEPT = 1 << 15
_LINES: dict[tuple[str, ParagraphStyle, float], tuple[Line, ...] | None] = {}
_LINES_KEPT = 1 << 15


def laid_out(text: str, style: ParagraphStyle, bullet: str | None, width: float) -> tuple[Paragraph, float]:
    """reportlab's paragraph of `text` in `style` wrapped at `width`, and its height; made once
    per text, style, bullet and width (and remembered, within a bound)."""
    key = (text, style, bullet, width)
    found = _LAID_OUT.get(key)
    if found is None:
        paragraph = Paragraph(text, style, bulletText=bullet)
        _, height = paragraph.wrap(width, 1e9)
        found = keep(_LAID_OUT, key, (paragraph, float(height)), _LAID_OUT_KEPT)
    return found


_LAID_OUT: dict[tuple[str, ParagraphStyle, str | None, float], tuple[Paragraph, float]] = {}
_LAID_OUT_KEPT = 1 << 15


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
INDEX_ENTRY = _style("index_entry", fontSize=7.0, leading=8.2, leftIndent=8.0, firstLineIndent=-8.0)
"""An index entry, set close as a book's index is: its head at the margin, its lines after the
first indented under it, the bold card number at its end telling one entry from the next."""
CHANCE_LABEL = _style("chance_label", fontSize=7.0, leading=8.0, alignment=TA_LEFT)

COMPACT = {
    "entry": _style("entry_compact", fontSize=7.0, leading=7.9, spaceBefore=0.5),
    "detail": _style("detail_compact", fontSize=7.0, leading=7.7, spaceBefore=0.2),
    "condition": _style(
        "condition_compact", fontName=ITALIC, fontSize=7.0, leading=7.9, spaceBefore=1.4, textColor=MUTED
    ),
    "heading": _style(
        "heading_compact", fontName=BOLD, fontSize=7.0, leading=8.0, spaceBefore=2.6, textTransform="uppercase"
    ),
    "note": _style("note_compact", fontSize=7.0, leading=7.9, spaceBefore=0.8, textColor=INK),
    "text": _style("text_compact", fontSize=7.0, leading=8.0, spaceBefore=1.2),
    "small": _style("small_compact", fontSize=7.0, leading=7.9, spaceBefore=0.8),
}
"""The compact step: a card that overflows one face by a little is set in these (no smaller
than 7 pt, `MIN_SIZE`, with tighter leading and spacing) when that keeps it on one face."""

REGULAR_STYLES = {
    "entry": ENTRY,
    "detail": DETAIL,
    "condition": CONDITION,
    "heading": HEADING,
    "note": NOTE,
    "text": TEXT,
    "small": SMALL,
}

INDENT = 7.0
CELL_PAD = 2.0


@dataclass(slots=True, eq=False)
class Item:
    """A flowable, and how the paginator (paginate.py) may place it.  Items are told apart by
    identity (a heading repeated above a card is a copy of the item it repeats, not that item)."""

    flowable: Flowable
    keep: bool = False  # stays on the same card (or sheet column) as the item after it
    split: bool = True  # may be split between lines, sentences or rows when it does not fit
    whole: bool = False  # running text: moved whole to the next card rather than split, if it fits there
    resume: tuple[Item, ...] = ()  # repeated above this item when it starts a card: "Errata (cont.)"
    need: float = 0.0  # starts a new card or column when less than this is left
    part: str = ""  # starts a part of a card (a roll, a section), named so: "Keep footing"


def loosen(text: str, width: float, size: float) -> str:
    """`text` with any part joined by no-break spaces that is wider than `width` made breakable
    before its operators: an expression too long for a line wraps as `carried x gravity` /
    `+ (gravity - 1) x 70`, never after an operator, rather than being cut inside a word."""
    if NBSP not in text:
        return text

    def fit(found: re.Match[str]) -> str:
        part = found.group(0)
        return _BEFORE_OPERATOR.sub(" ", part) if text_width(part, BOLD, size) > width else part

    return WORD.sub(fit, text)


_BEFORE_OPERATOR = re.compile(NBSP + "(?=[<>≤≥=≠+\u2212\u00d7÷/∈∉])")


def _loose(runs: Inline, width: float, size: float) -> Inline:
    return tuple(Run(loosen(run.text, width, size), run.style) for run in runs)


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


def _indented(style: ParagraphStyle, indent: int) -> ParagraphStyle:
    """A style `indent` levels in (under as many conditions)."""
    if not indent:
        return style
    return derived(style, f"_in{indent}", leftIndent=style.leftIndent + INDENT * indent)


def derived(parent: ParagraphStyle, suffix: str, **values: Any) -> ParagraphStyle:
    """A style made from another, the same object every time it is asked for (a paragraph's
    layout is remembered by its style, see `laid_out`)."""
    key = (parent, suffix, tuple(sorted((k, repr(v)) for k, v in values.items())))
    known = _DERIVED.get(key)
    if known is None:
        known = _DERIVED[key] = ParagraphStyle(parent.name + suffix, parent=parent, **values)
    return known


_DERIVED: dict[tuple[ParagraphStyle, str, tuple[tuple[str, str], ...]], ParagraphStyle] = {}


class RuledHeading(Para):
    """A section heading with a hairline under it, in the card's accent colour."""

    def draw(self) -> None:
        super().draw()
        canvas = self.canv
        canvas.saveState()
        canvas.setStrokeColor(self.style.textColor)
        canvas.setLineWidth(0.5)
        canvas.line(0, -1.2, self.width, -1.2)
        canvas.restoreState()


class Prose(Para):
    """Running text (a note, an erratum) that breaks between sentences rather than inside one.

    `split` (what the paginator asks first) only breaks after a whole sentence; `split_lines` is
    the ordinary line break, for a sentence taller than a whole card, whose parts are reportlab's
    own paragraphs."""

    sentences: tuple[str, ...] = ()

    def split(self, availWidth: float, availHeight: float) -> list[Flowable]:
        """The most whole sentences that fit, and the rest.  The height of the first `count`
        sentences grows with `count`: the count is found by bisection, a few layouts however long
        the note."""
        low, high = 0, len(self.sentences) - 1  # `low` sentences fit (none, to begin with)
        while low < high:
            middle = (low + high + 1) // 2
            _, height = Para(" ".join(self.sentences[:middle]), self.style).wrap(availWidth, availHeight)
            if height <= availHeight + 0.01:
                low = middle
            else:
                high = middle - 1
        if low == 0:
            return []
        return [Para(" ".join(self.sentences[:low]), self.style), prose(self.sentences[low:], self.style)]

    def first_sentence_height(self, availWidth: float) -> float:
        """The height of the first sentence alone; a part made by a line break is all one."""
        if not self.sentences:
            return float("inf")
        _, height = Para(self.sentences[0], self.style).wrap(availWidth, 1e6)
        return float(height)

    def split_lines(self, availWidth: float, availHeight: float) -> list[Flowable]:
        parts: list[Flowable] = super().split(availWidth, availHeight)
        return parts


def prose(sentences: Sequence[str], style: ParagraphStyle) -> Prose:
    """A paragraph of sentences, each already in paragraph markup."""
    paragraph = Prose(" ".join(sentences), style)
    paragraph.sentences = tuple(sentences)
    return paragraph


def flowables(
    blocks: tuple[Block, ...] | list[Block],
    width: float,
    accent: colors.Color,
    resume: tuple[Item, ...] = (),
    *,
    compact: bool = False,
) -> list[Item]:
    """The flowables of `blocks` (see `flowables_of`)."""
    return list(flowables_of(blocks, width, accent, resume, compact=compact))


def flowables_of(
    blocks: tuple[Block, ...] | list[Block],
    width: float,
    accent: colors.Color,
    resume: tuple[Item, ...] = (),
    *,
    compact: bool = False,
) -> Iterator[Item]:
    """Flowables for blocks.  A roll (its heading, the lines under it and its chances) is kept on
    one card when it fits on one, a heading or a condition with what follows it.  Each item knows
    what to repeat above it when it starts a card: the heading it is under ("Errata (cont.)"), the
    condition of an indented line, the roll of a chance table; `resume` comes first (the sheet's
    section and entry).  `compact`: set in the compact step (`COMPACT`).  Made block by block, as
    they are asked for: a trial of whether a card fits on one face makes only what it places."""
    styles = COMPACT if compact else REGULAR_STYLES
    in_roll = False
    section: tuple[Item, ...] = ()  # the heading the blocks are under, continued
    conditions: list[tuple[Item, ...]] = []  # the conditions of indented lines, by level, repeated
    roll: tuple[Item, ...] = ()  # the roll heading of its details and chances, continued
    for index, block in enumerate(blocks):
        made = _block(block, width, accent, styles)
        in_roll = isinstance(block, RollHead) or (in_roll and isinstance(block, (Detail, Chances)))
        if isinstance(block, (Entry, Detail, Condition)):
            del conditions[block.indent :]  # a line is under the conditions of the levels above it
        else:
            conditions.clear()
        if not in_roll:
            roll = ()
        context = resume + section + tuple(item for level in conditions for item in level) + roll
        if isinstance(block, RollHead):
            context = resume + section
            roll = tuple(_again(_block(RollHead(block.title + CONTINUED, block.notation), width, accent, styles)[:1]))
        elif isinstance(block, Heading):
            context = resume
            section = tuple(_again(_block(Heading(block.text + CONTINUED, block.detail), width, accent, styles)))
        elif isinstance(block, Condition):
            conditions.append(tuple(_again(made)))
        following = blocks[index + 1] if index + 1 < len(blocks) else None
        if in_roll and isinstance(following, (Detail, Chances)):
            made[-1].keep = True
        if _otherwise(following):
            made[-1].keep = True  # "Otherwise" never opens a face: the condition it denies is above it
        if isinstance(block, RollHead):
            made[0].part = block.title
        elif isinstance(block, Heading) and not block.text.startswith("As "):
            # "As Broken Ground" heads what a rule takes from another: not a part to title a card by.
            made[0].part = block.text
        for item in made:
            item.resume = context + item.resume  # a table set as rows repeats its legend
        yield from made


def _otherwise(block: Block | None) -> bool:
    """Whether a line opens with "Otherwise" (see effects.py `_otherwise`)."""
    return isinstance(block, Entry) and bool(block.runs) and block.runs[0].text == OTHERWISE + ": "


CONTINUED = " (cont.)"


def _again(items: list[Item]) -> list[Item]:
    """Copies of a heading's items to repeat at the top of a card, kept with what follows."""
    return [Item(item.flowable, keep=True, split=False) for item in items]


def _block(block: Block, width: float, accent: colors.Color, styles: dict[str, ParagraphStyle]) -> list[Item]:
    ENTRY, DETAIL, CONDITION, HEADING = styles["entry"], styles["detail"], styles["condition"], styles["heading"]
    NOTE, TEXT, SMALL = styles["note"], styles["text"], styles["small"]
    if isinstance(block, Heading):
        text = markup(block.text)
        if block.detail:
            text += f'\u2002<font name="{REGULAR}" color="#5c5c5c">{markup(block.detail)}</font>'
        style = derived(HEADING, "_accent", textColor=accent)
        return [Item(RuledHeading(text, style), keep=True)]
    # the narrowest a line of the block gets: as far in as it is indented (at least one level), after a mark
    levels = block.indent if isinstance(block, (Condition, Entry, Detail)) else 0
    room = width - INDENT * max(1, levels) - 9
    if isinstance(block, Condition):
        style = _indented(CONDITION, block.indent)
        return [Item(Para(markup(loosen(block.text, room, CONDITION.fontSize)), style), keep=True)]
    if isinstance(block, Entry):
        style = _indented(ENTRY, block.indent)
        text = runs_markup(_loose(block.runs, room, ENTRY.fontSize), muted_size=min(7.5, ENTRY.fontSize))
        if block.mark:
            style = derived(style, "_mark", bulletIndent=style.leftIndent, leftIndent=style.leftIndent + 9)
            return [Item(Para(text, style, bulletText=block.mark), whole=True)]
        # An effect moves whole to the next card rather than break mid-sentence there.
        return [Item(Para(text, style), whole=True)]
    if isinstance(block, Detail):
        return [Item(Para(runs_markup(_loose(block.runs, room, DETAIL.fontSize)), _indented(DETAIL, block.indent)))]
    if isinstance(block, RollHead):
        head, whole = _roll_head(block, width, accent, DETAIL, compact=styles is COMPACT)
        items = [Item(head, keep=True, split=False)]
        if whole is not None:
            items.append(Item(whole, keep=True))
        return items
    if isinstance(block, Chances):
        return [Item(_chances(block, width, accent), split=False)]
    if isinstance(block, Grid):
        tables = grid_tables(block, width, accent, compact=styles is COMPACT)
        stacked = _stacked(block, tables, width, DETAIL, SMALL, compact=styles is COMPACT)
        if stacked is not None:
            return stacked
        items = [Item(table) for table in tables]
        shortened = dict.fromkeys(pair for table in tables for pair in table.data.shortened)
        if shortened:
            lines = [f"<b>{markup(short)}</b> {markup(full)}" for short, full in shortened]
            items.append(Item(prose(lines, SMALL), whole=True))
        return items
    if isinstance(block, Index):
        return index_items(block, width)
    if isinstance(block, Note):
        return [Item(prose(_note(block), NOTE), whole=True)]
    assert isinstance(block, Text)
    style = SMALL if block.small else TEXT
    if all(run.style == "plain" for run in block.runs):
        return [Item(prose([markup(s) for s in sentences("".join(r.text for r in block.runs))], style), whole=True)]
    return [Item(Para(runs_markup(_loose(block.runs, room, style.fontSize)), style))]


STACK_RATIO = 1.25
"""A table set as rows of text when its columns would take this much more height than that: a
column of long text squeezed beside short ones wraps two words a line."""

STACKED_GAP = 1.4
STACKED_GAP_COMPACT = 0.6
"""Space above each row of a stacked table, in the regular and the compact step: each row's
keys in bold and its hanging indent tell the rows apart, so the compact step closes them up."""


def _stacked(
    grid: Grid,
    tables: list[GridTable],
    width: float,
    row_style: ParagraphStyle,
    legend_style: ParagraphStyle,
    *,
    compact: bool = False,
) -> list[Item] | None:
    """A rulebook table as rows of text, when that is much shorter than its columns (see
    `STACK_RATIO`): a legend naming the columns in order, then one paragraph a row, its keys in
    bold and its cells after them in the legend's order.  Each row is moved whole to the next card
    (only a row taller than a card is broken), and the legend is repeated above the rows a card
    continues (the paginator's `resume`).  None for a table that reads better as a table."""
    if not grid.rows:
        return None
    table_height = sum(t.data.head_height + t.data.tops[-1] for t in tables)
    gap = STACKED_GAP_COMPACT if compact else STACKED_GAP
    style = derived(row_style, "_stacked", leftIndent=6.0, firstLineIndent=-6.0, spaceBefore=gap)
    legend_text = " · ".join(f"<b>{markup(label)}</b>" if i < grid.keys else markup(label) for i, label in enumerate(grid.header))
    legend = Para(legend_text, derived(legend_style, "_legend", textColor=MUTED))
    rows = []
    for row in grid.rows:
        keys = " · ".join(markup(cell) for cell in row[: grid.keys] if cell)
        rest = " · ".join(markup(cell) for cell in row[grid.keys :] if cell)
        rows.append(Para(f"<b>{keys}</b>\u2002{rest}" if keys else rest, style))
    stacked_height = legend.wrap(width, 1e6)[1] + sum(r.wrap(width, 1e6)[1] + style.spaceBefore for r in rows)
    if table_height <= STACK_RATIO * stacked_height:
        return None
    head = Item(legend, keep=True, split=False)
    again = Item(legend, keep=True, split=False)
    return [head, *(Item(row, whole=True, resume=(again,)) for row in rows)]


COLUMNS_SAVE = 0.85
"""An index is set in two columns when that takes at most this share of the height it takes in
one: when most of its entries are short enough for half the measure."""
COLUMN_GAP = 9.0
SUBENTRY = derived(INDEX_ENTRY, "_sub", leftIndent=2 * INDEX_ENTRY.leftIndent)
"""A subentry on a line of its own, in a column: indented under its head, its own lines after
the first indented further."""


def index_items(index: Index, width: float) -> list[Item]:
    """An index as a book sets one: in two columns when its entries are short enough (see
    `COLUMNS_SAVE`), each subentry on a line of its own under its head; else in one, the
    subentries run in after their head (`index_markup`)."""
    column = (width - COLUMN_GAP) / 2
    columns = IndexColumns(tuple(_entry_lines(entry, column) for entry in index.entries))
    run_in = [_fitted(index_markup(entry, held=True), index_markup(entry, held=False), INDEX_ENTRY, width) for entry in index.entries]
    if columns.wrap(width, 1e9)[1] <= COLUMNS_SAVE * sum(para.wrap(width, 1e9)[1] for para in run_in):
        return [Item(columns)]
    return [Item(para, whole=True) for para in run_in]


def _entry_lines(entry: IndexEntry, width: float) -> tuple[Para, ...]:
    """An entry in a column `width` wide: its head, then a paragraph a subentry."""

    def line(text: str, numbers: tuple[int, ...], style: ParagraphStyle) -> Para:
        return _fitted(_located(text, numbers, held=True), _located(text, numbers, held=False), style, width)

    return (line(entry.head, entry.numbers, INDEX_ENTRY), *(line(sub.text, sub.numbers, SUBENTRY) for sub in entry.subs))


def _fitted(held: str, loose: str, style: ParagraphStyle, width: float) -> Para:
    """The entry with its numbers held to the word before them, unless that makes a word too
    wide for its line (`jam communications 40` in a column): then they may start a line."""
    para = Para(held, style)
    para.wrap(width, 1e9)
    return para if para.lines is not None else Para(loose, style)


def _located(text: str, numbers: tuple[int, ...], *, held: bool) -> str:
    """A title and its card numbers in bold, `held` to the word before them: `Wind 49, 50`."""
    if not numbers:
        return markup(text)
    return f"{markup(text)}{NBSP if held else ' '}<b>{', '.join(str(number) for number in numbers)}</b>"


def index_markup(entry: IndexEntry, *, held: bool) -> str:
    """`Chases 25; attacks on the Range Track 27; on Foot 28`, `Zone trait: COVER 28; DEBRIS
    34`: the head, then each subentry run in."""
    head = _located(entry.head, entry.numbers, held=held)
    if not entry.subs:
        return head
    subs = "; ".join(_located(sub.text, sub.numbers, held=held) for sub in entry.subs)
    return f"{head}{';' if entry.numbers else ':'} {subs}"


class IndexColumns(Flowable):  # type: ignore[misc]
    """Index entries in two columns, read down the first and then the second, as a book's index
    is set.  An entry (its head and its subentries) stays in one column; the index is split
    between entries, each face's two columns filled from the top and the last face's balanced.
    Only an entry taller than a whole column is broken between its lines."""

    def __init__(self, entries: tuple[tuple[Para, ...], ...]) -> None:
        super().__init__()
        self.entries = entries
        self.cut = 0  # how many entries the first column holds

    def _heights(self, width: float) -> list[float]:
        column = (width - COLUMN_GAP) / 2
        return [sum(float(line.wrap(column, 1e9)[1]) for line in entry) for entry in self.entries]

    def wrap(self, availWidth: float, availHeight: float) -> tuple[float, float]:
        heights = self._heights(availWidth)
        tallest = [max(sum(heights[:cut]), sum(heights[cut:])) for cut in range(len(heights) + 1)]
        self.cut = min(range(len(tallest)), key=lambda cut: (tallest[cut], -cut))
        self.width, self.height = availWidth, tallest[self.cut]
        return self.width, self.height

    def split(self, availWidth: float, availHeight: float) -> list[Flowable]:
        heights = self._heights(availWidth)
        if heights and heights[0] > availHeight + 0.01 and len(self.entries[0]) > 1:
            # Taller than a column: its lines go on as entries of their own.
            return IndexColumns((*((line,) for line in self.entries[0]), *self.entries[1:])).split(availWidth, availHeight)
        fit = 0
        for _ in range(2):  # a column, then the next
            filled = 0.0
            while fit < len(heights) and filled + heights[fit] <= availHeight + 0.01:
                filled += heights[fit]
                fit += 1
        if fit >= len(heights):
            return [self]
        if fit == 0:
            return []
        return [IndexColumns(self.entries[:fit]), IndexColumns(self.entries[fit:])]

    def draw(self) -> None:
        column = (self.width - COLUMN_GAP) / 2
        for left, entries in ((0.0, self.entries[: self.cut]), (column + COLUMN_GAP, self.entries[self.cut :])):
            top = self.height
            for entry in entries:
                for line in entry:
                    _, height = line.wrap(column, 1e9)
                    top -= height
                    line.drawOn(self.canv, left, top)

    def getPlainText(self) -> str:
        return "\n".join(line.getPlainText() for entry in self.entries for line in entry)


def _note(note: Note) -> list[str]:
    """A note's sentences in markup; its condition and the quoted source come with the first."""
    lead = ""
    if note.condition:
        lead += f"<i>{markup(note.condition[:1].upper() + note.condition[1:])}:</i> "
    if note.quote is not None:
        lead += f"<i>“{markup(note.quote)}”</i> — "
    parts = [markup(s) for s in sentences(note.text)] or [""]
    return [lead + parts[0], *parts[1:]]


class RollHeading(Table):  # type: ignore[misc]
    """The band that starts a roll: its title, and its notation on the right."""


def _roll_head(
    block: RollHead, width: float, accent: colors.Color, detail: ParagraphStyle = DETAIL, *, compact: bool = False
) -> tuple[Table, Paragraph | None]:
    """The band that starts a roll; and, when its title or notation is too long for the band
    (`TALLEST_HEAD`), the whole of both as a paragraph to follow it.  `compact`: the band of the
    compact step, with less padding and less space above it."""
    notation_width = min(text_width(block.notation, BOLD, ROLL_NOTATION.fontSize) + 2 * CELL_PAD + 1, width * 0.62)
    notation_text = loosen(block.notation, notation_width - 2 * CELL_PAD, 8.5)
    short_title = capped(block.title, ROLL_TITLE, width - notation_width - 2 * CELL_PAD, "<b>Roll</b> · ")
    short_notation = capped(notation_text, ROLL_NOTATION, notation_width - 2 * CELL_PAD)
    title = Para("<b>Roll</b> · " + markup(short_title or block.title), ROLL_TITLE)
    notation = Para(markup(short_notation or notation_text), ROLL_NOTATION)
    whole = None
    if short_title is not None or short_notation is not None:
        whole = Para(f"<b>Roll</b> · {markup(block.title)}: <b>{markup(block.notation)}</b>", detail)
    side_by_side = max(
        title.wrap(width - notation_width - 2 * CELL_PAD, 1e6)[1], notation.wrap(notation_width - 2 * CELL_PAD, 1e6)[1]
    )
    if whole is None and side_by_side > 2 * ROLL_TITLE.leading + 0.1:
        # A long title beside a long notation wraps both into a tall band: the notation goes
        # under the title, each across the whole band.
        table = RollHeading(
            [[Para("<b>Roll</b> · " + markup(block.title), ROLL_TITLE)], [Para(markup(block.notation), ROLL_NOTATION)]],
            colWidths=[width],
            hAlign="LEFT",
            style=_roll_head_style(accent, compact),
        )
    else:
        table = RollHeading(
            [[title, notation]],
            colWidths=[width - notation_width, notation_width],
            hAlign="LEFT",
            style=_roll_head_style(accent, compact),
        )
    table.spaceBefore = 2.0 if compact else 5.0
    table.spaceAfter = 0.6
    return table, whole


@functools.lru_cache(maxsize=256)
def _roll_head_style(accent: colors.Color, compact: bool = False) -> TableStyle:
    """The style of a roll's band, made once per colour and step (a table reads its style when
    made, and a deck makes hundreds of bands of a few colours)."""
    top, bottom = (0.8, 1.1) if compact else (1.6, 2.0)
    return TableStyle([
        ("FONTNAME", (0, 0), (-1, -1), REGULAR),  # reportlab's default is Helvetica, not embedded
        ("BACKGROUND", (0, 0), (-1, -1), tint(accent, 0.14)),
        ("LINEABOVE", (0, 0), (-1, 0), 0.8, accent),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ("LEFTPADDING", (0, 0), (-1, -1), CELL_PAD),
        ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PAD),
        ("TOPPADDING", (0, 0), (-1, -1), top),
        ("BOTTOMPADDING", (0, 0), (-1, -1), bottom),
    ])


TALLEST_HEAD = 30 * MM
"""The tallest a roll's heading, or a cell of a table's header row, gets: a third of a card,
beyond the longest in the bundled rulebooks (a roll title of eight lines in a narrow band).
These never break across cards (a header row repeats on each), so a longer label is cut short
there, with an ellipsis, and printed whole below, where it breaks like any text."""


_TAG = re.compile(r"<[^>]*>")


def capped(text: str, style: ParagraphStyle, width: float, lead: str = "") -> str | None:
    """`text` cut short with an ellipsis to be at most `TALLEST_HEAD` high at `width` after the
    markup `lead`; None when it fits as it is."""
    lines = TALLEST_HEAD // style.leading
    limit = style.leading * lines + 0.1
    # A line leaves unused less than the word that goes on to the next: text that fits the lines
    # with a longest word to spare on each fits, without laying it out (nearly every label).
    plain = _TAG.sub("", lead) + text
    longest = max((text_width(word, style.fontName, style.fontSize) for word in plain.split()), default=0.0)
    if text_width(plain, style.fontName, style.fontSize) + lines * longest <= width * lines:
        return None

    def height(candidate: str) -> float:
        return float(Para(lead + markup(candidate), style).wrap(width, 1e9)[1])

    if height(text) <= limit:
        return None
    low, high = 0, len(text)
    while low < high:  # the longest start that fits: bisection, as a label may be a page long
        middle = (low + high + 1) // 2
        if height(text[:middle].rstrip() + "\u2026") <= limit:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + "\u2026"


CHANCE_PAD = 1.0
"""Padding either side of a chance, when the labels leave room for it."""

CHANCE_CELL_MAX = 9 * MM
"""The widest a chance column gets: a table of one or two values stays compact."""


def _chances(block: Chances, width: float, accent: colors.Color) -> Table:
    chances = block.table
    count = max(len(chances.columns), 1)
    numbers = max(
        max((text_width(c, REGULAR, CHANCE.fontSize) for row in chances.rows for c in row.numbers), default=0.0),
        max((text_width(c, BOLD, CHANCE_HEAD.fontSize) for c in chances.columns), default=0.0),
    )
    # The labels get what they need to stay on one line and the header's longest unbreakable
    # part (`(STR + DEX) / 2`) what it needs not to be cut, the numbers giving up padding for
    # it if need be; the numbers share the rest, up to a comfortable width each.
    size = CHANCE_LABEL.fontSize
    labels = max(
        (
            text_width(row.dice, BOLD, size) + (text_width(" " + row.note, REGULAR, size) if row.note else 0.0)
            for row in chances.rows
        ),
        default=0.0,
    )
    head = max((text_width(word, BOLD, size) for word in words(chances.against)), default=0.0)
    needed = max(labels, head) + CHANCE_PAD + 0.5
    pad = CHANCE_PAD
    if needed + count * (numbers + 2 * pad + 0.5) > width:
        pad = max(0.3, ((width - needed) / count - numbers - 0.5) / 2)
    cell_least = numbers + 2 * pad + 0.5
    label_width = max(min(max(needed, width * 0.42), width - cell_least * count), 12 * MM)
    cell_width = min((width - label_width) / count, max(CHANCE_CELL_MAX, cell_least))
    header: list[str | Para] = [
        Para(
            f'<b>{markup(loosen(chances.against, label_width - pad, size))}</b> <font size="7" color="#5c5c5c">'
            "chance %</font>",
            CHANCE_LABEL,
        )
    ]
    room = cell_width - 2 * pad
    header += [_chance_cell(c, CHANCE_HEAD, room) for c in chances.columns]
    rows: list[list[Any]] = [header]
    for row in chances.rows:
        label = f"<b>{markup(row.dice)}</b>"
        if row.note:
            label += f' <font color="#5c5c5c">{markup(row.note)}</font>'
        rows.append([Para(label, CHANCE_LABEL), *(_chance_cell(c, CHANCE, room) for c in row.numbers)])
    table = Table(
        rows,
        colWidths=[label_width] + [cell_width] * len(chances.columns),
        hAlign="LEFT",
        repeatRows=1,
        style=_chances_style(accent, pad),
    )
    table.spaceBefore = 3.0
    return table


def _chance_cell(text: str, style: ParagraphStyle, room: float) -> str | Para:
    """A number or column label of a chance table: a plain string, which the table draws in its
    cell's font, when it fits on one line (a paragraph is laid out and drawn at many times the
    cost, and a deck draws thousands of these); else a paragraph, which wraps."""
    if text_width(text, style.fontName, style.fontSize) <= room and text == text.strip() and "  " not in text:
        return text
    return Para(markup(text), style)


@functools.lru_cache(maxsize=256)
def _chances_style(accent: colors.Color, pad: float) -> TableStyle:
    """The style of a chance table, made once per colour and padding."""
    return TableStyle([
        ("FONTNAME", (0, 0), (-1, -1), REGULAR),  # reportlab's default is Helvetica, not embedded
        ("FONTSIZE", (0, 0), (-1, -1), CHANCE.fontSize),
        ("LEADING", (0, 0), (-1, -1), CHANCE.leading),
        ("TEXTCOLOR", (0, 0), (-1, -1), INK),
        ("ALIGN", (1, 0), (-1, -1), "CENTER"),
        ("FONTNAME", (1, 0), (-1, 0), CHANCE_HEAD.fontName),
        ("LINEBELOW", (0, 0), (-1, 0), 0.6, accent),
        ("LINEBELOW", (0, 1), (-1, -1), RULE_WIDTH, RULE),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ("LEFTPADDING", (0, 0), (-1, -1), pad),
        ("RIGHTPADDING", (0, 0), (-1, -1), pad),
        ("LEFTPADDING", (0, 0), (0, -1), 0),
        ("TOPPADDING", (0, 0), (-1, -1), 1.0),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 1.4),
    ])


# ---------------------------------------------------------------- rulebook tables


def grid_tables(grid: Grid, width: float, accent: colors.Color, *, compact: bool = False) -> list[GridTable]:
    """A rulebook table, ruled, with its header repeated when it runs onto another card; when
    its columns cannot all fit side by side, several tables that each repeat the key columns."""
    natural, least = _measures(grid)
    widths = _column_widths(grid.keys, natural, least, width)
    if widths is not None:
        return [GridTable(_GridData(grid, widths, accent, compact))]
    keys = grid.keys
    values = list(range(keys, len(grid.header)))
    tables = []
    while values:
        take = len(values)
        while take > 1:
            indexes = [*range(keys), *values[:take]]
            if _column_widths(keys, [natural[i] for i in indexes], [least[i] for i in indexes], width) is not None:
                break
            take -= 1
        indexes = [*range(keys), *values[:take]]
        part = _columns(grid, indexes)
        found = _column_widths(keys, [natural[i] for i in indexes], [least[i] for i in indexes], width)
        tables.append(GridTable(_GridData(part, found or _even(part, width), accent, compact)))
        values = values[take:]
    return tables


def _columns(grid: Grid, indexes: list[int]) -> Grid:
    return Grid(
        tuple(grid.header[i] for i in indexes),
        tuple(tuple(r[i] for i in indexes) for r in grid.rows),
        grid.keys,
    )


def _even(grid: Grid, width: float) -> list[float]:
    return [width / len(grid.header)] * len(grid.header)


def _measures(grid: Grid) -> tuple[list[float], list[float]]:
    """Each column's natural width (its longest cell on one line) and least width (its longest
    word), with padding: a table is laid out at several widths (cards, sheets, the compact step),
    from the same text."""
    known = _MEASURED.get(grid)
    if known is not None:
        return known
    natural = []
    least = []
    for index in range(len(grid.header)):
        column = [(grid.header[index], CELL_HEAD)] + [
            (row[index], CELL_KEY if index < grid.keys else CELL) for row in grid.rows
        ]
        natural.append(max(text_width(text, s.fontName, s.fontSize) for text, s in column) + 2 * CELL_PAD + 0.5)
        widest = max((text_width(w, s.fontName, s.fontSize) for text, s in column for w in words(text)), default=0.0)
        least.append(widest + 2 * CELL_PAD + 0.5)
    return keep(_MEASURED, grid, (natural, least), _MEASURED_KEPT)


_MEASURED: dict[Grid, tuple[list[float], list[float]]] = {}
_MEASURED_KEPT = 1 << 9


def _column_widths(keys: int, natural: list[float], least: list[float], width: float) -> list[float] | None:
    """Widths from the text (the columns' `_measures`): every column at least as wide as its
    longest word, the rest of the width shared by how much text each column holds.  None when
    even the words do not fit."""
    count = len(natural)
    if sum(least) > width:
        return None
    if sum(natural) <= width:
        values = range(keys, count) if count > keys else range(count)
        share = (width - sum(natural)) / len(values)
        return [w + (share if i in values else 0) for i, w in enumerate(natural)]
    spare = width - sum(least)
    wanted = [n - m for n, m in zip(natural, least, strict=True)]
    total = sum(wanted) or 1.0
    return [m + spare * w / total for m, w in zip(least, wanted, strict=True)]


_CELL_TOP = 1.4
_CELL_BOTTOM = 1.8


class _GridData:
    """What every part of one rulebook table shares, measured once: the cells (a plain string
    for text that fits on one line, drawn as the table's font; a paragraph for text that wraps)
    and the height of every row."""

    def __init__(self, grid: Grid, widths: list[float], accent: colors.Color, compact: bool = False) -> None:
        self.widths = widths
        self.keys = grid.keys
        self.accent = accent
        self.centred = [grid.numeric(i) for i in range(len(grid.header))]
        head_styles = [CELL_HEAD_CENTRED if c else CELL_HEAD for c in self.centred]
        body_styles = [
            CELL_KEY if i < grid.keys else CELL_CENTRED if self.centred[i] else CELL for i in range(len(grid.header))
        ]
        self.top, self.bottom = (0.9, 1.2) if compact else (_CELL_TOP, _CELL_BOTTOM)
        header = list(grid.header)
        self.shortened: list[tuple[str, str]] = []  # header labels cut short, with the whole label
        for index, (text, style) in enumerate(zip(grid.header, head_styles, strict=True)):
            short = capped(text, style, widths[index] - 2 * CELL_PAD)
            if short is not None:
                header[index] = short
                self.shortened.append((short, text))
        self.head, self.head_height = self._row(tuple(header), head_styles)
        self.rows: list[list[Any]] = []
        self.tops = [0.0]  # tops[i]: the height of rows before row i
        for row in grid.rows:
            cells, height = self._row(row, body_styles)
            self.rows.append(cells)
            self.tops.append(self.tops[-1] + height)

    def _row(self, texts: tuple[str, ...], styles: list[ParagraphStyle]) -> tuple[list[Any], float]:
        cells: list[Any] = []
        height = 0.0
        for text, style, width in zip(texts, styles, self.widths, strict=True):
            room = width - 2 * CELL_PAD
            # Reportlab's paragraphs fold runs of spaces: a string cell would keep them.
            if text_width(text, style.fontName, style.fontSize) <= room and text == text.strip() and "  " not in text:
                cells.append(text)
                height = max(height, style.leading)
            else:
                paragraph = Para(markup(text), style)
                height = max(height, paragraph.wrap(room, 1e6)[1])
                cells.append(paragraph)
        return cells, height + self.top + self.bottom

    def height(self, start: int, stop: int) -> float:
        return self.tops[stop] - self.tops[start]

    def table(self, start: int, stop: int, header: bool, *, measured: bool = True) -> Table:
        """Rows `start` to `stop` as a reportlab table, under the header row if `header`.  Not
        `measured`: reportlab measures the rows itself (and may split inside one)."""
        body = self.rows[start:stop]
        data = [self.head, *body] if header else body
        heights: list[float] | None = None
        if measured:
            heights = [self.tops[i + 1] - self.tops[i] for i in range(start, stop)]
            if header:
                heights.insert(0, self.head_height)
        options: dict[str, Any] = {
            "colWidths": self.widths,
            "rowHeights": heights,
            "hAlign": "LEFT",
            "repeatRows": 1 if header else 0,
            "splitInRow": 1,
        }
        params = (header, self.keys, tuple(self.centred), self.top, self.bottom, self.accent)
        return Table([list(row) for row in data], style=_grid_style(*params), **options)


@functools.lru_cache(maxsize=256)
def _grid_style(
    header: bool, keys: int, centred: tuple[bool, ...], top: float, bottom: float, accent: colors.Color
) -> TableStyle:
    """The style of a rulebook table's rows, made once per shape and colour."""
    first = 1 if header else 0
    commands: list[tuple[Any, ...]] = [
        ("FONTNAME", (0, 0), (-1, -1), REGULAR),  # reportlab's default is Helvetica, not embedded
        ("FONTSIZE", (0, 0), (-1, -1), CELL.fontSize),
        ("LEADING", (0, 0), (-1, -1), CELL.leading),
        ("TEXTCOLOR", (0, 0), (-1, -1), INK),
        ("LINEBELOW", (0, first), (-1, -1), RULE_WIDTH, RULE),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LEFTPADDING", (0, 0), (-1, -1), CELL_PAD),
        ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PAD),
        ("TOPPADDING", (0, 0), (-1, -1), top),
        ("BOTTOMPADDING", (0, 0), (-1, -1), bottom),
    ]
    if keys:
        commands.append(("FONTNAME", (0, first), (keys - 1, -1), BOLD))
    commands += [("ALIGN", (i, 0), (i, -1), "CENTER") for i, c in enumerate(centred) if c]
    if header:
        commands += [
            ("FONTNAME", (0, 0), (-1, 0), BOLD),
            ("FONTSIZE", (0, 0), (-1, 0), CELL_HEAD.fontSize),
            ("LEADING", (0, 0), (-1, 0), CELL_HEAD.leading),
            ("BACKGROUND", (0, 0), (-1, 0), tint(accent, 0.16)),
            ("LINEABOVE", (0, 0), (-1, 0), 0.8, accent),
            ("LINEBELOW", (0, 0), (-1, 0), 0.6, accent),
        ]
    return TableStyle(commands)


class GridTable(Flowable):  # type: ignore[misc]
    """A rulebook table (or the rows of one from `start` on) that splits between rows, repeating
    its header row.  Splitting takes time in proportion to the rows placed, however long the table:
    reportlab's own Table measures every remaining row again at each split, which makes a table of
    thousands of rows take minutes over hundreds of cards."""

    def __init__(self, data: _GridData, start: int = 0, header: bool = True) -> None:
        super().__init__()
        self.data = data
        self.start = start
        self.header = header
        self.spaceBefore = 3.0 if start == 0 else 0.0

    @property
    def stop(self) -> int:
        return len(self.data.rows)

    def _height(self, stop: int) -> float:
        return (self.data.head_height if self.header else 0.0) + self.data.height(self.start, stop)

    def wrap(self, availWidth: float, availHeight: float) -> tuple[float, float]:
        self.width = sum(self.data.widths)
        self.height = self._height(self.stop)
        return self.width, self.height

    def splits_a_row(self, availHeight: float) -> bool:
        """Whether splitting into `availHeight` would break a row: not one whole row fits."""
        data = self.data
        limit = availHeight + 0.01 - (data.head_height if self.header else 0.0) + data.tops[self.start]
        return bisect.bisect_right(data.tops, limit, lo=self.start + 1, hi=self.stop + 1) - 1 <= self.start

    def split(self, availWidth: float, availHeight: float) -> list[Flowable]:
        data = self.data
        # The most whole rows that fit (at least one, or none can be placed here).
        limit = availHeight + 0.01 - (data.head_height if self.header else 0.0) + data.tops[self.start]
        fit = bisect.bisect_right(data.tops, limit, lo=self.start + 1, hi=self.stop + 1) - 1
        if fit >= self.stop:
            return [self]
        if self.stop - fit < 2 and fit - self.start > 2:
            fit = self.stop - 2  # never one row alone on the next card: take two there
        if fit > self.start:
            return [data.table(self.start, fit, self.header), GridTable(data, fit)]
        # Not one row fits: a row taller than the room left splits inside, as reportlab does.
        row = data.table(self.start, self.start + 1, self.header, measured=False)
        parts: list[Flowable] = row.split(availWidth, availHeight)
        if len(parts) < 2:
            return []
        parts[1].spaceBefore = 0.0
        if self.start + 1 == self.stop:
            return parts
        return [*parts, GridTable(data, self.start + 1, header=False)]

    def draw(self) -> None:
        table = self.data.table(self.start, self.stop, self.header)
        table.wrapOn(self.canv, self.width, self.height)
        table.drawOn(self.canv, 0, 0)

