"""The typeface of every card and sheet: DejaVu Sans Condensed, shipped in dsl/cards/fonts/ with
its licence and embedded (subset) in each PDF, so a print shop sees exactly what we measured."""

from __future__ import annotations

import functools
from pathlib import Path

from reportlab.lib.fonts import addMapping
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

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


def register_fonts() -> None:
    """Register the card fonts with reportlab once per process; `<b>` and `<i>` map onto them."""
    if REGULAR in pdfmetrics.getRegisteredFontNames():
        return
    for name, filename in _FILES.items():
        pdfmetrics.registerFont(TTFont(name, str(FONT_DIR / filename)))
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
