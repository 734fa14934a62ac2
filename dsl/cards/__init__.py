"""Print-ready reference cards and quick-reference sheets for any rulebook.

`card_files` renders everything a build ships (generated/cards/); `card_set` what `rulecraft
cards` asks for, which `write_cards` writes.  Output is deterministic: the same book gives the same bytes.

The package reads a checked `dsl.model.Book` one way, each step handing plain data to the next
and never called back by it: deck.py / sheet.py decide once what each card and the sheet say
(blocks.py: a `Deck`, a `Sheet`); flow.py / paginate.py / pdfcards.py / pdfsheet.py lay that
out (and decide what a long card leaves to the appendix) and draw it as PDF, html.py as HTML.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dsl import model as m
from dsl import outdir
from dsl.cards.deck import deck_of
from dsl.cards.formats import POKER, CardFormat
from dsl.cards.html import cards_html, sheet_html
from dsl.cards.pdfcards import PAPERS, fitted_faces, imposed_pdf
from dsl.cards.pdfsheet import sheet_pdf
from dsl.cards.press import Back, press_pdf
from dsl.cards.sheet import build_sheet
from dsl.cards.text import clean
from dsl.files import collector_tuned

__all__ = [
    "ERRATA",
    "FORMATS",
    "LAYOUTS",
    "Back",
    "PrintOptions",
    "card_files",
    "card_set",
    "render_cards",
    "write_cards",
]

FORMATS = ("pdf", "html")
LAYOUTS = ("cards", "sheet")
ERRATA = ("appendix", "card", "none")


# Cards make hundreds of thousands of short-lived objects (words, lines, PDF operators) and
# keep few: the collector scanning the compiled books again and again was a fifth of the time,
# so both entry points run with it tuned.


@collector_tuned()
def card_files(book: m.Book, *, errata: str = "appendix") -> dict[str, bytes]:
    """Every card and sheet file of a bundled build, by file name: cards imposed on A4 and
    Letter, the press file (poker size, 1/8 in bleed, PDF/X-1a in CMYK, fronts and backs,
    duplex), the sheet on A4 and Letter, and both as HTML.  `errata`: where the deck puts them (see `ERRATA`)."""
    name = _file_stem(book)
    title = clean(book.title)
    deck = deck_of(book, errata=errata)
    faces = fitted_faces(deck)
    sheet = build_sheet(book)
    files = {
        f"{name}-cards-a4.pdf": imposed_pdf(faces, "a4", title),
        f"{name}-cards-letter.pdf": imposed_pdf(faces, "letter", title),
        f"{name}-cards-press.pdf": press_pdf(faces, title, name=name),
        f"{name}-sheet-a4.pdf": sheet_pdf(sheet, "a4"),
        f"{name}-sheet-letter.pdf": sheet_pdf(sheet, "letter"),
        f"{name}.html": cards_html(deck.whole(screen=True), title),
        f"{name}-sheet.html": sheet_html(sheet),
    }
    return dict(sorted(files.items()))


@dataclass(frozen=True, slots=True)
class PrintOptions:
    """What `rulecraft cards` may choose beyond the layout (docs/cards.md): the card format
    (formats.py: poker by default, 1/8 in of bleed), the back design, duplex or simplex, the
    page order a shop wants, padding to a multiple of a shop's deck size, the rules a deck
    holds (`only`), large type, and image exports (a PNG per face, Tabletop Simulator sheets)."""

    card: CardFormat = POKER
    back: Back | None = None
    duplex: bool = True
    back_first: bool = False
    pad: int | None = None
    only: tuple[str, ...] | None = None
    large: bool = False
    images: bool = False
    tts: bool = False


@collector_tuned()
def card_set(
    book: m.Book,
    *,
    fmt: str,
    layout: str,
    paper: str,
    errata: str = "appendix",
    gutters: bool = False,
    options: PrintOptions | None = None,
) -> dict[str, bytes]:
    """The files `rulecraft cards` makes for a book, by file name, rendered in memory.

    PDF cards come as two files: imposed for `paper` (`gutters`: spaced, each card with its own
    bleed), and the press file (PDF/X-1a, CMYK, fronts and backs); with `options.images` a PNG
    per face, with `options.tts` Tabletop Simulator deck sheets.  `errata`: an appendix of the
    deck, on each card, or none."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format `{fmt}`: expected one of {', '.join(FORMATS)}")
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout `{layout}`: expected one of {', '.join(LAYOUTS)}")
    if paper not in PAPERS:
        raise ValueError(f"unknown paper `{paper}`: expected one of {', '.join(PAPERS)}")
    if errata not in ERRATA:
        raise ValueError(f"unknown errata placement `{errata}`: expected one of {', '.join(ERRATA)}")
    chosen = options or PrintOptions()
    name = _file_stem(book)
    title = clean(book.title)
    files: dict[str, bytes] = {}
    if layout == "cards":
        deck = deck_of(book, errata=errata, only=chosen.only)
        if fmt == "pdf":
            card = chosen.card.large() if chosen.large else chosen.card
            faces = fitted_faces(deck, card)
            back = chosen.back or Back(title)
            files[f"{name}-cards-{paper}.pdf"] = imposed_pdf(faces, paper, title, gutters=gutters)
            files[f"{name}-cards-press.pdf"] = press_pdf(
                faces,
                title,
                name=name,
                back=back,
                duplex=chosen.duplex,
                back_first=chosen.back_first,
                pad=chosen.pad,
            )
            if chosen.images:
                from dsl.cards.images import face_images

                files.update(face_images(faces, name))
            if chosen.tts:
                from dsl.cards.images import tts_sheets

                files.update(tts_sheets(faces, back, name))
        else:
            files[f"{name}.html"] = cards_html(deck.whole(screen=True), title)
    else:
        sheet = build_sheet(book)
        if fmt == "pdf":
            files[f"{name}-sheet-{paper}.pdf"] = sheet_pdf(sheet, paper)
        else:
            files[f"{name}-sheet.html"] = sheet_html(sheet)
    return files


def write_cards(files: dict[str, bytes], output: Path, *, waiting: Callable[[], None] | None = None) -> list[Path]:
    """Write card files into `output` (created if needed), all or nothing, never over a file
    rulecraft did not write and removing nothing (see dsl/outdir.py); the paths of `files`."""
    output.mkdir(parents=True, exist_ok=True)
    with outdir.locked(output, waiting=waiting):
        outdir.recover(output)
        changes = outdir.plan(output, files, removable=lambda path: False)
        if not changes.empty:
            outdir.apply(changes)
    return [output / name for name in files]


def render_cards(
    book: m.Book,
    output: Path,
    *,
    fmt: str,
    layout: str,
    paper: str,
    errata: str = "appendix",
    gutters: bool = False,
    options: PrintOptions | None = None,
) -> list[Path]:
    """Write the requested cards or sheet of one book into `output`; the paths written."""
    files = card_set(book, fmt=fmt, layout=layout, paper=paper, errata=errata, gutters=gutters, options=options)
    return write_cards(files, output)


def _file_stem(book: m.Book) -> str:
    """The rulebook's name, which the grammar makes an identifier; anything else is replaced."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", book.name) or "rulebook"
