"""The typeface of every card and sheet: DejaVu Sans Condensed, shipped in dsl/cards/fonts/ with
its licence and embedded (subset) in each PDF, so a print shop sees exactly what we measured."""

from __future__ import annotations

import functools
import weakref
from itertools import repeat
from pathlib import Path
from typing import Any

from reportlab.lib.fonts import addMapping
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

from dsl.cards.memo import keep

MM: float = mm
"""One millimetre in points (reportlab's `mm`, typed)."""

FONT_DIR = Path(__file__).resolve().parent / "fonts"

REGULAR = "RulecraftSans"
BOLD = "RulecraftSans-Bold"
ITALIC = "RulecraftSans-Oblique"

_FILES = {
    REGULAR: "DejaVuSansCondensed.ttf",
    BOLD: "DejaVuSansCondensed-Bold.ttf",
    ITALIC: "DejaVuSansCondensed-Oblique.ttf",
}


class _MeasuredFont(TTFont):  # type: ignore[misc]
    """A TrueType font that remembers the widths it measured.  Reportlab's line breaking measures
    every word of every paragraph, again for each card a paragraph is tried on, and the words of a
    deck recur: measuring is most of laying out a card."""

    def __init__(self, name: str, filename: str) -> None:
        super().__init__(name, filename)
        self._widths: dict[tuple[str, float], float] = {}
        self._split: weakref.WeakKeyDictionary[Any, _Codes] = weakref.WeakKeyDictionary()
        # The subsets a document embeds, made once each: a deck's print-shop file and its A4 and
        # Letter files embed the same subsets (the imposed files take over the press file's codes),
        # and so do a sheet's two papers.  A subset is the font file cut to its characters: it
        # depends on the characters alone.
        make, made = self.face.makeSubset, dict[tuple[int, ...], bytes]()

        def make_subset(subset: list[int]) -> bytes:
            key = tuple(subset)
            found = made.get(key)
            if found is None:
                found = keep(made, key, make(subset), _SUBSETS_KEPT)
            return found

        self.face.makeSubset = make_subset

    def splitString(self, text: str | bytes, doc: Any, encoding: str = "utf-8") -> Any:
        """The codes of `text` in the font's subsets of document `doc`, remembered per document.
        A document gives a character its code when it first meets it and never changes it, so
        text split once splits alike ever after; a deck draws the same labels and words on
        face after face."""
        codes = self._split.get(doc)
        if codes is None:
            codes = self._split[doc] = _Codes()
        split = codes.texts.get(text)
        if split is None:
            split = codes.texts[text] = self._coded(text, doc, codes) or super().splitString(text, doc, encoding)
        return split

    def _coded(self, text: str | bytes, doc: Any, codes: _Codes) -> list[tuple[int, bytes]] | None:
        """What reportlab's `splitString` returns for text whose characters all have their codes
        in the document already (nearly all text after a deck's first cards); None when one has
        none yet (reportlab gives it one) or the text is empty.  Like reportlab, a no-break space
        is set as a space.  Text all in the first subset (codes below 256) is read through two
        `str.translate`s: one that deletes every character with such a code (nothing may be
        left), one that writes each as its code."""
        state = self.state.get(doc)
        if state is None or not text or not isinstance(text, str):
            return None
        assigned = state.assignments
        if codes.size != len(assigned):  # characters met since: the tables again
            low = {char: code for char, code in assigned.items() if code < 256}
            if 32 in low:
                low[0xA0] = low[32]
            codes.low, codes.drop, codes.size = low, dict.fromkeys(low), len(assigned)
        if not text.translate(codes.drop):
            return [(0, text.translate(codes.low).encode("latin-1"))]
        try:
            found = [assigned[32 if char == "\xa0" else ord(char)] for char in text]
        except KeyError:
            return None
        split: list[tuple[int, bytes]] = []
        start = 0
        for index in range(1, len(found) + 1):  # runs of one subset (the high byte)
            if index == len(found) or found[index] >> 8 != found[start] >> 8:
                split.append((found[start] >> 8, bytes(code & 0xFF for code in found[start:index])))
                start = index
        return split

    def stringWidth(self, text: str, size: float, encoding: str = "utf8") -> float:
        key = (text, size)
        width = self._widths.get(key)
        if width is None:
            if isinstance(text, str):
                # reportlab's own sum of the characters' widths, in the same order, without a
                # Python step per character: the lines a paragraph draws are new text each
                face = self.face
                width = 0.001 * size * sum(map(face.charWidths.get, map(ord, text), repeat(face.defaultWidth)))
            else:
                width = super().stringWidth(text, size, encoding)
            width = keep(self._widths, key, float(width), _WIDTHS_KEPT)
        return width


class _Codes:
    """A document's codes for one font, as `_MeasuredFont.splitString` reads them: the text it
    split, and tables of the characters in the first subset, made for `size` characters."""

    __slots__ = ("drop", "low", "size", "texts")

    def __init__(self) -> None:
        self.texts: dict[str | bytes, Any] = {}
        self.size = -1
        self.low: dict[int, int] = {}
        self.drop: dict[int, None] = {}


_SUBSETS_KEPT = 64
"""Subsets a font remembers (each some tens of kilobytes) before it starts afresh."""

_WIDTHS_KEPT = 1 << 17
"""Widths a font remembers before it starts afresh (a few megabytes: the words of many decks)."""


def register_fonts() -> None:
    """Register the card fonts with reportlab once per process; `<b>` and `<i>` map onto them."""
    if REGULAR in pdfmetrics.getRegisteredFontNames():
        return
    for name, filename in _FILES.items():
        pdfmetrics.registerFont(_MeasuredFont(name, str(FONT_DIR / filename)))
    addMapping(REGULAR, 0, 0, REGULAR)
    addMapping(REGULAR, 1, 0, BOLD)
    addMapping(REGULAR, 0, 1, ITALIC)
    addMapping(REGULAR, 1, 1, BOLD)


@functools.lru_cache(maxsize=1 << 16)
def text_width(text: str, font: str, size: float) -> float:
    """The width of `text` set in `font` at `size` points (remembered: tables measure every cell
    and every word, and the same words recur)."""
    width: float = pdfmetrics.stringWidth(text, font, size)
    return width


def fit_text(text: str, font: str, size: float, width: float, *, always: bool = False) -> str:
    """`text` shortened with an ellipsis until it fits `width` (for one-line labels only);
    `always`: with the ellipsis even when it fits (the text goes on elsewhere)."""
    if not always and text_width(text, font, size) <= width:
        return text
    # The longest start that fits with the ellipsis, by bisection: a label may be a whole page long.
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if pdfmetrics.stringWidth(text[:middle] + "\u2026", font, size) <= width:
            low = middle
        else:
            high = middle - 1
    return text[:low] + "\u2026"
