"""Cards as PDF: poker size (63 by 88 mm) with 3 mm bleed, imposed nine to an A4 or Letter page
for cutting at home, or one card per page for a print shop.

A card too long for one face continues on the next, titled "(cont.)" and numbered "1/2", "2/2":
its blocks are reportlab flowables (flow.py) laid out by paginate.py, which keeps notes whole,
breaks text between sentences, tables between rows, and repeats the heading a face continues;
nothing is clipped.  Only what fits on no card, alone, and cannot be split (a table's header row
taller than a card) is drawn smaller (`paginate.Shrunk`): a card is never refused.
"""

from __future__ import annotations

import functools
import io
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, LETTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfgen.canvas import Canvas

from dsl.cards.blocks import Block, Card, CardsError, Deck, Detail, Text
from dsl.cards.blocks import Run as TextRun
from dsl.cards.canvas import measuring_canvas, new_canvas
from dsl.cards.flow import CONTINUED, INK, MUTED, WHITE, Item, Para, flowables, flowables_of, markup
from dsl.cards.fonts import BOLD, MM, REGULAR, fit_text, register_fonts, text_width
from dsl.cards.formats import POKER, CardFormat
from dsl.cards.memo import keep
from dsl.cards.paginate import Placed, paginate, used
from dsl.categories import Category

CARD_WIDTH = POKER.width
CARD_HEIGHT = POKER.height
BLEED = POKER.bleed
SAFE = POKER.safe  # text stays this far inside the trim
BODY_WIDTH = POKER.body_width
"""The default format's figures (poker size, see formats.py); other formats pass a `CardFormat`."""

PAPERS = {"a4": A4, "letter": LETTER}

TITLE_SIZES = (11.0, 10.0, 9.0)
TITLE_LINES = 2
SLIM_SIZES = (9.0, 8.0)
SLIM_LINES = 2
"""A face after a card's first has a slim band: its title smaller, beside the category's chip,
in two lines at most, and no citation or kind (the first face has them): the room goes to the
rule.  So has the first face of a card that does not fit one face with the full band (`_Trial`):
its kind and citation then go on one small line under the band."""
CITES_LINES = 2
BAND_ROW = 4.4 * MM  # the category row at the top of the band
FOOTER = 3.6 * MM  # the footer line above the bottom safe edge
GAP = 1.8 * MM


@dataclass
class Face:
    """One printed face: a card's content, or the part of it that fits."""

    card: Card
    part: int
    parts: int
    header: Header
    items: list[Placed]
    fmt: CardFormat = POKER


@dataclass
class Header:
    title: Para
    title_height: float
    cites: Para | None
    cites_height: float
    safe: float = SAFE
    slim: bool = False  # the title beside the category's chip, in the band's one row

    @property
    def band(self) -> float:
        """Height of the colour band below the trim's top edge."""
        if self.slim:
            return self.safe + max(BAND_ROW, self.title_height + 0.6 * MM) + 1.6 * MM
        return self.safe + BAND_ROW + self.title_height + 2.2 * MM

    @property
    def height(self) -> float:
        return self.band + (self.cites_height + 1.0 * MM if self.cites is not None else 0) + GAP


# ---------------------------------------------------------------- laying out


def _measure() -> Canvas:
    return measuring_canvas()


@functools.cache
def _title_style(size: float) -> ParagraphStyle:
    return ParagraphStyle("card_title", fontName=BOLD, fontSize=size, leading=size * 1.12, textColor=WHITE)


CITES = ParagraphStyle("card_cites", fontName=REGULAR, fontSize=7.0, leading=8.4, textColor=MUTED)


def _header(
    card: Card, continued: bool, fmt: CardFormat = POKER, *, slim: bool = False, first: bool = False
) -> tuple[Header, list[Item]]:
    """The title in the largest size that fits in three lines; a title that fits in none is
    shortened in the band and printed in full at the top of the body.

    Made once per title, citation, kind and category: a card is tried in several layouts (with
    and without its notes, each asking for its first and its continued header), and the faces
    that share a header draw the same one."""
    key = (card.title, card.cites, card.kind, card.category, continued, fmt.body_width, fmt.safe, slim, first)
    known = _HEADERS.get(key)
    if known is None:
        known = keep(_HEADERS, key, _new_header(card, continued, fmt, slim=slim, first=first), _HEADERS_KEPT)
    return known[0], list(known[1])


_HEADERS: dict[tuple[str, str, str, Category, bool, float, float, bool, bool], tuple[Header, list[Item]]] = {}
_HEADERS_KEPT = 4096


def _new_header(
    card: Card, continued: bool, fmt: CardFormat = POKER, *, slim: bool = False, first: bool = False
) -> tuple[Header, list[Item]]:
    """See `_header`; `first`: the slim band of a card's first face, with its kind and citation
    on a line under it."""
    canvas = _measure()
    width = fmt.body_width - ((_chip_width(card) + 1.6 * MM) if slim else 0.0)
    title = card.title + (CONTINUED if continued else "")
    sizes, lines = (SLIM_SIZES, SLIM_LINES) if slim else (TITLE_SIZES, TITLE_LINES)
    extra: list[Item] = []
    for size in sizes:
        style = _title_style(size)
        paragraph = Para(markup(title), style)
        _, height = paragraph.wrapOn(canvas, width, 1000)
        if height <= style.leading * lines + 0.1:
            break
    else:
        style = _title_style(sizes[-1])
        paragraph = Para(markup(title), style)
        _, height = paragraph.wrapOn(canvas, width, 1000)
        # a band takes one line more rather than cut a title; only a longer one is cut there,
        # and printed whole at the top of the body
        if height > style.leading * (lines + 1) + 0.1:
            paragraph = Para(markup(_shorten(title, style, width * lines * 0.9)), style)
            _, height = paragraph.wrapOn(canvas, width, 1000)
            if not slim or first:
                extra = flowables([Text((TextRun(card.title, "strong"),))], width, INK)
    cites = None
    cites_height = 0.0
    said = " \u00b7 ".join(x for x in (card.kind, card.cites) if x) if slim and first else card.cites
    if said and ((slim and first) or (not slim and not _cites_in_band(card, width))):
        cites = Para(markup(said), CITES)
        _, cites_height = cites.wrapOn(canvas, fmt.body_width, 1000)
        if cites_height > CITES.leading * CITES_LINES + 0.1:
            # A citation as long as a paragraph would crowd out the card: the band gets its
            # start, the body all of it.
            cites = Para(markup(_shorten(said, CITES, fmt.body_width * CITES_LINES * 0.9)), CITES)
            _, cites_height = cites.wrapOn(canvas, fmt.body_width, 1000)
            if not continued:
                extra += flowables([Detail((TextRun("Cites: ", "strong"), TextRun(card.cites)))], fmt.body_width, INK)
    return Header(paragraph, height, cites, cites_height, fmt.safe, slim), extra


def _chip_width(card: Card) -> float:
    return text_width(card.category.glyph, BOLD, 7.0) + 2.6 * MM


def _band_right(card: Card, width: float) -> str:
    """The kind of card, and its citation when that is short enough to share the band's top row."""
    return card.kind.upper() + (f" · {card.cites}" if _cites_in_band(card, width) else "")


def _cites_in_band(card: Card, width: float) -> bool:
    if not card.cites:
        return False
    used = _chip_width(card) + 1.6 * MM + text_width(card.category.label.upper(), BOLD, 7.0) + 3 * MM
    return used + text_width(f"{card.kind.upper()} · {card.cites}", REGULAR, 7.0) <= width


def _shorten(text: str, style: ParagraphStyle, width: float) -> str:
    return fit_text(text, style.fontName, style.fontSize, width, always=True)[:-1].rstrip() + "…"


def body_height(header: Header, fmt: CardFormat = POKER) -> float:
    return fmt.height - header.height - fmt.safe - FOOTER - GAP


def layout(card: Card, trial: _Trial | None = None, fmt: CardFormat = POKER) -> list[Face]:
    """The faces a card needs: its content over as many cards as it takes (see paginate.py),
    keeping headings with what follows them.

    A card a little too long for one face is set in the compact step (flow.COMPACT) when that
    keeps it on one.  A card longer than that is laid out by its parts (its rolls and sections):
    a part that fits on one face starts on a fresh face rather than breaking across two (unless
    that costs the card a face), and a face that starts a part is titled by it ("Microgravity:
    Keep footing"), not "(cont.)": a player finds the part by its title and reads it whole.  `trial`: the card's trial, when a
    count made it first (see `Layouts`)."""
    if card.pages:
        # every face of a card of pages has the first face's header (its title, not "(cont.)")
        header, extra = _header(card, continued=False, fmt=fmt)
        accent = colors.HexColor(card.category.colour)
        items = extra + flowables(card.blocks, fmt.body_width, accent)
        room = body_height(header, fmt)
        pages = paginate(items, (room,), fmt.body_width, balance=True)
        return [Face(card, i + 1, len(pages), header, page, fmt) for i, page in enumerate(pages)]
    trial = trial or _Trial(card, fmt)
    first, following, items = trial.first, trial.following, trial.items
    if trial.one is not None:
        return [Face(card, 1, 1, first, trial.one, fmt)]
    titled = {item.flowable: item.part for item in items if item.part}
    part_headers = {part: _part_header(card, part, fmt) for part in titled.values()}
    # Faces after the first leave room for the tallest title they may get.
    following = max([following, *part_headers.values()], key=lambda h: h.height)
    headers = [first, following]
    rooms = [body_height(header, fmt) for header in headers]
    whole = _parts_whole(items, body_height(following, fmt), fmt.body_width)
    loose = {item: item.need for item in whole}
    _set_needs(whole)
    pages = paginate(items, rooms, fmt.body_width, balance=True)
    if len(pages) > 2:
        # Parts kept whole that cost the card a face: they break across faces instead.
        _set_needs(loose)
        broken = paginate(items, rooms, fmt.body_width, balance=True)
        if len(broken) < len(pages):
            pages = broken
        else:
            _set_needs(whole)
    repeated = {again.flowable for item in items for again in item.resume}
    continued = trial.following  # a face that starts no part: "(cont.)"

    def titled_faces(pages: list[list[Placed]]) -> list[Face]:
        faces = []
        for index, page in enumerate(pages):
            header = first
            if index:
                # The part a face starts, after the headings repeated above it (the section it is in).
                lead = next((p.flowable for p in page if p.flowable not in repeated), None)
                part = titled.get(lead) if lead is not None else None
                header = part_headers[part] if part is not None else continued
            faces.append(Face(card, index + 1, len(pages), header, page, fmt))
        return faces

    faces = titled_faces(pages)
    if len(faces) > 2:
        # Every face after the first was given the room the tallest title leaves; laid out again
        # in the room each face's own title leaves, the card may take a face less.
        again = paginate(items, [body_height(face.header, fmt) for face in faces], fmt.body_width, balance=True)
        if len(again) < len(faces):
            fewer = titled_faces(again)
            if all(used(page) <= body_height(face.header, fmt) + 0.01 for page, face in zip(again, fewer, strict=True)):
                faces = fewer
    return faces


def _part_header(card: Card, part: str, fmt: CardFormat) -> Header:
    """The slim header of a face that starts a part: "Aerial Combat: Fly roll", or the part's
    name alone when the two would not fit the band whole (a title is never cut there)."""
    header = _header(replace(card, title=f"{card.title}: {part}"), continued=False, fmt=fmt, slim=True)[0]
    if header.title.getPlainText().endswith("\u2026"):
        header = _header(replace(card, title=part), continued=False, fmt=fmt, slim=True)[0]
    return header


class _Trial:
    """Whether a card that is not `pages` takes one face: what it puts on it (`one`), in the
    regular or the compact step; or None, and its `items` in the compact step, to be laid out by
    its parts.  The trials only ask whether the card takes one face (and are not balanced): they
    make and place the card's items until one does not fit.  Kept for `layout` when a count
    asked for it first (see `Layouts`)."""

    def __init__(self, card: Card, fmt: CardFormat = POKER) -> None:
        self.first, first_extra = _header(card, continued=False, fmt=fmt)
        self.following, _ = _header(card, continued=True, fmt=fmt, slim=True)
        self.rooms = (body_height(self.first, fmt), body_height(self.following, fmt))
        accent = colors.HexColor(card.category.colour)
        trial = itertools.chain(first_extra, flowables_of(card.blocks, fmt.body_width, accent))
        self.items: list[Item] = []
        self.one: list[Placed] | None = None
        pages = paginate(trial, self.rooms, fmt.body_width, most=1)
        if len(pages) == 1:
            self.one = pages[0]
            return
        # The compact step: a little too long for a face, set a little tighter.
        body = flowables(card.blocks, fmt.body_width, accent, compact=True)
        self.items = first_extra + body
        pages = paginate(self.items, self.rooms, fmt.body_width, most=1)
        if len(pages) == 1:
            self.one = pages[0]
            return
        # Still too long: the first face gets the slim band too, with the kind and citation
        # on a small line under it, on one face or as the first of several.
        self.first, first_extra = _header(card, continued=False, fmt=fmt, slim=True, first=True)
        self.rooms = (body_height(self.first, fmt), body_height(self.following, fmt))
        self.items = first_extra + body
        pages = paginate(self.items, self.rooms, fmt.body_width, most=1)
        if len(pages) == 1:
            self.one = pages[0]


def _parts_whole(items: list[Item], room: float, width: float) -> dict[Item, float]:
    """The first item of each part that fits on a face, and that part's height: what it needs
    left on a face to start there rather than on a fresh one (see `_set_needs`)."""
    measure = _measure()
    starts = [index for index, item in enumerate(items) if item.part] + [len(items)]
    needs: dict[Item, float] = {}
    for start, stop in itertools.pairwise(starts):
        height = 0.0
        for item in items[start:stop]:
            height += item.flowable.wrapOn(measure, width, room)[1] + item.flowable.getSpaceBefore()
        if height <= room:
            needs[items[start]] = height
    return needs


def _set_needs(needs: dict[Item, float]) -> None:
    for item, need in needs.items():
        item.need = need


# ---------------------------------------------------------------- drawing one face


def draw_face(canvas: Canvas, face: Face) -> None:
    """Draw a face with its trim box's lower-left corner at the origin; the band bleeds."""
    card = face.card
    accent = colors.HexColor(card.category.colour)
    header = face.header
    fmt = face.fmt
    top = fmt.height
    canvas.saveState()
    canvas.scale(fmt.scale, fmt.scale)  # large type: laid out smaller, drawn larger
    canvas.setFillColor(WHITE)
    canvas.rect(-fmt.bleed, -fmt.bleed, fmt.width + 2 * fmt.bleed, fmt.height + 2 * fmt.bleed, stroke=0, fill=1)
    canvas.setFillColor(accent)
    canvas.rect(-fmt.bleed, top - header.band, fmt.width + 2 * fmt.bleed, header.band + fmt.bleed, stroke=0, fill=1)
    if header.slim:
        _chip(canvas, card, top - fmt.safe, fmt.safe)
        header.title.drawOn(canvas, fmt.safe + _chip_width(card) + 1.6 * MM, top - fmt.safe - header.title_height - 0.2 * MM)
    else:
        _category_row(canvas, face, top - fmt.safe)
        header.title.drawOn(canvas, fmt.safe, top - fmt.safe - BAND_ROW - header.title_height)
    y = top - header.band
    if header.cites is not None:
        y -= 1.0 * MM + header.cites_height
        header.cites.drawOn(canvas, fmt.safe, y)
    y -= GAP
    for placed in face.items:
        y -= placed.space + placed.height
        placed.flowable.drawOn(canvas, fmt.safe, y)
    _footer(canvas, face)
    canvas.restoreState()


def _category_row(canvas: Canvas, face: Face, top: float) -> None:
    """The glyph in a white chip, the category's name, and the kind of card: what identifies the
    category without its colour."""
    card = face.card
    safe, width = face.fmt.safe, face.fmt.width
    size = 7.0
    chip_width = _chip_width(card)
    baseline = _chip(canvas, card, top, safe)
    canvas.setFillColor(WHITE)
    canvas.setFont(BOLD, size)
    canvas.drawString(safe + chip_width + 1.6 * MM, baseline, card.category.label.upper())
    canvas.setFont(REGULAR, size)
    canvas.drawRightString(width - safe, baseline, _band_right(card, face.fmt.body_width))


def _chip(canvas: Canvas, card: Card, top: float, left: float) -> float:
    """The category's glyph in a white chip at the band's top left; the baseline of its row."""
    chip_width = _chip_width(card)
    chip_height = 3.6 * MM
    baseline = top - chip_height + 1.05 * MM
    canvas.setFillColor(WHITE)
    canvas.roundRect(left, top - chip_height, chip_width, chip_height, 0.8 * MM, stroke=0, fill=1)
    canvas.setFillColor(colors.HexColor(card.category.colour))
    canvas.setFont(BOLD, 7.0)
    canvas.drawCentredString(left + chip_width / 2, baseline, card.category.glyph)
    return baseline


def _number(face: Face) -> str:
    """The card's number in its deck, as the index names it: `No. 12`."""
    return f"No.\u00a0{face.card.number}" if face.card.number else ""


def _footer(canvas: Canvas, face: Face) -> None:
    size = 7.0
    safe, width = face.fmt.safe, face.fmt.width
    baseline = safe + 0.8 * MM
    canvas.setStrokeColor(colors.HexColor(face.card.category.colour))
    canvas.setLineWidth(0.5)
    canvas.line(safe, safe + FOOTER - 0.4 * MM, width - safe, safe + FOOTER - 0.4 * MM)
    part = " \u00b7 ".join(x for x in (_number(face), f"{face.part}/{face.parts}" if face.parts > 1 else "") if x)
    room = face.fmt.body_width - (text_width(part, BOLD, size) + 2 * MM if part else 0)
    canvas.setFillColor(MUTED)
    canvas.setFont(REGULAR, size)
    canvas.drawString(safe, baseline, short_title(face.card.footer, REGULAR, size, room))
    if part:
        canvas.setFillColor(INK)
        canvas.setFont(BOLD, size)
        canvas.drawRightString(width - safe, baseline, part)


def short_title(title: str, font: str, size: float, room: float) -> str:
    """The deck's title as the footer names it in `room`: whole; else its head, before a colon or
    a dash ("7. Spot Rules"); else its first words that fit ("Mecha and Vehicle Terrain"), never
    a word cut with an ellipsis."""
    if text_width(title, font, size) <= room:
        return title
    head = re.split(r"\s*[:\u2013\u2014]\s*|\s+-\s+", title, maxsplit=1)[0]
    if head != title and text_width(head, font, size) <= room:
        return head
    words = title.split()
    while len(words) > 1 and text_width(" ".join(words), font, size) > room:
        words.pop()
    while len(words) > 1 and words[-1].lower() in ("and", "or", "of", "the", "a", "an", "to", "in", "for", "with"):
        words.pop()  # a name does not end on a joining word
    return " ".join(words) if text_width(words[0], font, size) <= room else fit_text(title, font, size, room)


# ---------------------------------------------------------------- documents


def document(title: str, subject: str, **options: Any) -> tuple[Canvas, io.BytesIO]:
    """A canvas for a whole PDF (cards or sheet), writing into the buffer returned with it;
    `options` go to reportlab's Canvas (the press file's `enforceColorSpace`)."""
    register_fonts()
    buffer = io.BytesIO()
    # The initial font is ours too, so that no page refers to a font that is not embedded.
    canvas = new_canvas(buffer, pageCompression=1, initialFontName=REGULAR, initialFontSize=8, **options)
    canvas.setTitle(title)
    canvas.setAuthor("rulecraft")
    canvas.setSubject(subject)
    canvas.setCreator("rulecraft")
    return canvas, buffer


def faces_of(cards: Sequence[Card], fmt: CardFormat = POKER) -> list[Face]:
    """Every printed face of cards as they are, in order: the same for every paper and for the
    press file."""
    layouts = Layouts(fmt)
    return [face for card in cards for face in layouts.faces(card)]


def fitted_faces(deck: Deck, fmt: CardFormat = POKER) -> list[Face]:
    """Every printed face of a deck, each card on as few faces as it can take: a card that
    takes more than one leaves what it may to the appendix (`Deck.movable`: a rule's notes, the
    rulebook's introduction) when that saves a face, so that the rule itself reads on one card."""
    layouts = Layouts(fmt)
    movable = dict(deck.movable)
    cards: list[Card] = []
    moved: dict[int, tuple[Block, ...]] = {}
    for card in deck.cards:
        found = movable.get(card.number)
        keep = 1 if card.number == 1 else ONE_CARD  # the book's introduction is reading matter
        if found is not None and layouts.count(card, keep) > keep:
            fewer = layouts.count(found.trimmed)
            if layouts.count(card, fewer) > fewer:
                card = found.trimmed
                moved[card.number] = found.blocks
        cards.append(card)
    appendix = deck.appendix.card(moved)
    if appendix is not None:
        cards.append(appendix)
    return [face for card in cards for face in layouts.faces(card)]


ONE_CARD = 2
"""The faces of one physical card printed duplex: a rule's notes stay on its card (front and
back) when they fit there, and go to the appendix only when they would take another card."""


class Layouts:
    """The layouts of a deck's cards, each made once: fitting a deck asks how many faces a card
    takes (only whether it takes more than one, for most cards), then its faces are drawn."""

    def __init__(self, fmt: CardFormat = POKER) -> None:
        register_fonts()
        self.fmt = fmt
        self.trials: dict[Card, _Trial] = {}
        self.laid: dict[Card, list[Face]] = {}

    def count(self, card: Card, most: int | None = None) -> int:
        """How many faces `card` takes; with `most`, a card that takes more is counted as
        `most + 1`.  Asked whether it takes more than one, only its trials are made."""
        if most == 1 and card not in self.laid and not card.pages:
            trial = self.trials.get(card)
            if trial is None:
                trial = self.trials[card] = _Trial(card, self.fmt)
            return 1 if trial.one is not None else 2
        count = len(self.faces(card))
        return count if most is None else min(count, most + 1)

    def faces(self, card: Card) -> list[Face]:
        found = self.laid.get(card)
        if found is None:
            found = self.laid[card] = layout(card, self.trials.pop(card, None), self.fmt)
        return found


EDGE = 5 * MM
"""Nothing is printed nearer the paper's edge than this: where desktop printers do not print."""

MARK = 5 * MM  # the longest a crop mark gets
MARK_LEAST = 2 * MM  # the shortest: an outer bleed gives up room for it
MARK_GAP = 0.5 * MM  # between a mark and the bleed it points at


@dataclass(frozen=True, slots=True)
class Imposition:
    """Where the cards of a sheet go: a grid of `columns` by `rows` cards of `card`'s format on a
    page of `size`, `gap` apart (0: neighbours share their cut lines), and the bleed kept on the
    block's outer edges (left, right, bottom, top), less than the card's bleed where a crop mark
    needs the room."""

    size: tuple[float, float]
    columns: int
    rows: int
    gap: float
    bleeds: tuple[float, float, float, float]
    card: CardFormat = POKER

    @property
    def left(self) -> float:
        return (self.size[0] - self.block[0]) / 2

    @property
    def bottom(self) -> float:
        return (self.size[1] - self.block[1]) / 2

    @property
    def block(self) -> tuple[float, float]:
        return (
            self.columns * self.card.width + (self.columns - 1) * self.gap,
            self.rows * self.card.height + (self.rows - 1) * self.gap,
        )

    @property
    def per_page(self) -> int:
        return self.columns * self.rows

    def origin(self, slot: int) -> tuple[float, float]:
        """The lower-left corner of the trim of the card in `slot` (reading order)."""
        column, row = slot % self.columns, slot // self.columns
        x = self.left + column * (self.card.width + self.gap)
        y = self.bottom + (self.rows - 1 - row) * (self.card.height + self.gap)
        return x, y


def imposition(paper: str, *, gutters: bool = False, fmt: CardFormat = POKER) -> Imposition:
    """As many cards to a page as fit with room for crop marks, neighbours sharing their cut
    lines (poker cards: nine on A4, eight on Letter turned landscape); or, with `gutters`, with a
    gutter holding each card's own bleed.  Portrait or landscape, whichever holds more; either
    way every crop mark lies at least EDGE from the paper's edge and is at least MARK_LEAST long."""
    width, height = PAPERS[paper]
    shared = not gutters
    margin = EDGE + MARK_LEAST + MARK_GAP + (0.0 if shared else fmt.bleed)
    gap = 0.0 if shared else 2 * fmt.bleed
    best: Imposition | None = None
    for size in ((width, height), (height, width)):
        columns = int((size[0] - 2 * margin + gap) // (fmt.width + gap))
        rows = int((size[1] - 2 * margin + gap) // (fmt.height + gap))
        if not columns * rows or (best is not None and columns * rows <= best.per_page):
            continue
        if shared:
            side = _outer_bleed((size[0] - columns * fmt.width) / 2, fmt.bleed)
            end = _outer_bleed((size[1] - rows * fmt.height) / 2, fmt.bleed)
            best = Imposition(size, columns, rows, 0.0, (side, side, end, end), fmt)
        else:
            best = Imposition(size, columns, rows, gap, (fmt.bleed,) * 4, fmt)
    if best is None:
        raise CardsError(f"a {fmt.name} card with its crop marks does not fit on {paper.upper()} paper")
    return best


def _outer_bleed(margin: float, bleed: float) -> float:
    """The bleed an outer edge of the block keeps when the trim is `margin` from the paper's
    edge: all of it if a crop mark of MARK_LEAST still fits outside it, else what leaves that."""
    return max(0.0, min(bleed, margin - EDGE - MARK_LEAST - MARK_GAP))


def imposed_pdf(faces: list[Face], paper: str, title: str, *, gutters: bool = False) -> bytes:
    """The cards on pages of `paper` (see `imposition`), bleed around the block (around every card
    with `gutters`), crop marks outside it."""
    fmt = faces[0].fmt.printed if faces else POKER
    layout = imposition(paper, gutters=gutters, fmt=fmt)
    per_page = layout.per_page
    how = "with gutters" if gutters else f"{per_page} per page"
    canvas, buffer = document(f"{title} — reference cards", f"Reference cards, {paper.upper()}, {how}")
    canvas.setPageSize(layout.size)
    sheets = -(-len(faces) // per_page)
    for start in range(0, max(len(faces), 1), per_page):
        for slot, face in enumerate(faces[start : start + per_page]):
            x, y = layout.origin(slot)
            canvas.saveState()
            canvas.translate(x, y)
            _clip_bleed(canvas, layout, slot)
            draw_face(canvas, face)
            canvas.restoreState()
        _crop_marks(canvas, layout)
        _slug(canvas, layout, (title, f"Sheet {start // per_page + 1} of {sheets} · {paper.upper()}"))
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def _clip_bleed(canvas: Canvas, layout: Imposition, slot: int) -> None:
    """Clip a card to its trim, extended by its bleed on the block's outer edges (on every edge
    with gutters)."""
    column, row = slot % layout.columns, slot // layout.columns
    left, right, bottom, top = layout.bleeds
    own = layout.gap > 0
    x0 = -left if column == 0 or own else 0.0
    x1 = layout.card.width + (right if column == layout.columns - 1 or own else 0.0)
    y0 = -bottom if row == layout.rows - 1 or own else 0.0
    y1 = layout.card.height + (top if row == 0 or own else 0.0)
    path = canvas.beginPath()
    path.rect(x0, y0, x1 - x0, y1 - y0)
    canvas.clipPath(path, stroke=0, fill=0)


def crop_marks(layout: Imposition) -> list[tuple[float, float, float, float]]:
    """The crop marks of a sheet, as lines (x0, y0, x1, y1): on every cut line, outside the
    bleed, from MARK_GAP beyond it towards the paper's edge, stopping EDGE short of it."""
    width, height = layout.size
    card_width, card_height = layout.card.width, layout.card.height
    left, bottom = layout.left, layout.bottom
    right, top = left + layout.block[0], bottom + layout.block[1]
    xs = sorted({x + dx for slot in range(layout.columns) for x in [layout.origin(slot)[0]] for dx in (0, card_width)})
    ys = sorted(
        {
            y + dy
            for slot in range(0, layout.per_page, layout.columns)
            for y in [layout.origin(slot)[1]]
            for dy in (0, card_height)
        }
    )
    bleed_left, bleed_right, bleed_bottom, bleed_top = layout.bleeds
    lines = []
    for x in xs:
        start = top + bleed_top + MARK_GAP
        lines.append((x, start, x, min(start + MARK, height - EDGE)))
        start = bottom - bleed_bottom - MARK_GAP
        lines.append((x, start, x, max(start - MARK, EDGE)))
    for y in ys:
        start = left - bleed_left - MARK_GAP
        lines.append((start, y, max(start - MARK, EDGE), y))
        start = right + bleed_right + MARK_GAP
        lines.append((start, y, min(start + MARK, width - EDGE), y))
    return lines


def _crop_marks(canvas: Canvas, layout: Imposition) -> None:
    canvas.saveState()
    canvas.setStrokeColor(colors.black)
    canvas.setLineWidth(0.3)
    for x0, y0, x1, y1 in crop_marks(layout):
        canvas.line(x0, y0, x1, y1)
    canvas.restoreState()


def _slug(canvas: Canvas, layout: Imposition, lines: tuple[str, str]) -> None:
    """Printing instructions in the left margin, between the crop marks and clear of the edge."""
    texts = [*lines, "Print at 100% (actual size) · cut on the marks"]
    while len(texts) > layout.rows:
        texts[-2:] = [" · ".join(texts[-2:])]
    card_height = layout.card.height
    canvas.saveState()
    canvas.setFillColor(MUTED)
    canvas.setFont(REGULAR, 7)
    baseline = max(EDGE + 2.2 * MM, layout.left - layout.bleeds[0] - 3.2 * MM)
    canvas.translate(baseline, layout.bottom)
    canvas.rotate(90)
    for row, text in enumerate(reversed(texts)):
        middle = row * (card_height + layout.gap) + card_height / 2
        canvas.drawCentredString(middle, 0, fit_text(text, REGULAR, 7, card_height - 12 * MM))
    canvas.restoreState()
