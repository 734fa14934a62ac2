"""Paragraphs drawn with the operators reportlab's `Paragraph.drawPara` writes, faster.

Reportlab draws a line of mixed styles (`_putFragLine`) by tracking, run by run, where underlines,
links, background colours, rises and justification would start and end, measuring every run to
do so, through a text object that formats each run on its own.  A card's paragraph has none of
them: left-aligned runs of text in embedded fonts and flat colours, lines that fit their width.
(A paragraph of one style may also be centred or right-aligned.)
`draw_lines` writes, for such a paragraph, the operators reportlab writes, in the same order and
from the same formatting (`fp_str`, the font's subsets and the canvas's escaping): the font and
leading when the subset changes, the colour when it changes, each run's text, `T*` after a line.
Anything else is left to reportlab (False, nothing drawn).  tests/test_cards_drawing.py compares
the two on every paragraph of the bundled books' cards.
"""

from __future__ import annotations

from typing import Any

import reportlab.pdfgen.textobject as textobject
from reportlab.lib.enums import TA_CENTER, TA_LEFT, TA_RIGHT
from reportlab.pdfbase.pdfmetrics import getFont
from reportlab.platypus.paragraph import setXPos
from reportlab.rl_config import paraFontSizeHeightOffset


def draw_lines(paragraph: Any) -> bool:
    """Draw `paragraph` (wrapped, with its canvas) as reportlab draws it, if it is one this module
    draws; whether it did."""
    style = paragraph.style
    lines = paragraph.blPara
    if not lines.lines or not _plain(paragraph, style):
        return False
    if lines.kind == 0:
        if not _simple_fits(lines):
            return False
        _draw_simple(paragraph, style, lines)
        return True
    if style.alignment != TA_LEFT or not _runs_fit(lines.lines):
        return False
    _draw_runs(paragraph, style, lines.lines)
    return True


_PLACED = {TA_LEFT: 0.0, TA_CENTER: 0.5, TA_RIGHT: 1.0}
"""How much of a line's unused width goes before it, by alignment (reportlab's `_leftDrawParaLine`,
`_centerDrawParaLine`, `_rightDrawParaLine` for a line that fits)."""


def _plain(paragraph: Any, style: Any) -> bool:
    """A paragraph drawn without the features `draw_lines` leaves to reportlab."""
    leading = getattr(paragraph, "autoLeading", getattr(style, "autoLeading", ""))
    return not (
        paragraph.bulletText
        or "_offsets" in paragraph.__dict__
        or style.alignment not in _PLACED
        or style.firstLineIndent
        or style.backColor
        or (style.borderColor and style.borderWidth)
        or style.wordWrap
        or style.endDots
        or leading in ("min", "max")
    )


def _simple_fits(lines: Any) -> bool:
    """A paragraph of one style whose lines all fit (no spacing squeezed), in an embedded font,
    with no underline or link."""
    return (
        not (lines.us_lines or lines.link)
        and getFont(lines.fontName)._dynamicFont
        and all(extra > -1e-8 for extra, _ in lines.lines)
    )


def _runs_fit(lines: list[Any]) -> bool:
    """Lines of runs that all fit, each run plain text in an embedded font."""
    for line in lines:
        if not line.extraSpace > -1e-8:
            return False
        for run in line.words:
            state = run.__dict__
            if (
                "cbDefn" in state
                or state.get("us_lines")
                or state.get("link")
                or state.get("rise")
                or state.get("backColor")
                or not getFont(run.fontName)._dynamicFont
            ):
                return False
    return True


def _top(paragraph: Any, first: Any) -> Any:
    """Where reportlab sets the first line's baseline."""
    drop = first.fontSize if paraFontSizeHeightOffset else getattr(first, "ascent", first.fontSize)
    return paragraph.height - drop


def _draw_simple(paragraph: Any, style: Any, lines: Any) -> None:
    """The one-style branch of `drawPara` with `_leftDrawParaLine` (or its centred or right-aligned
    twin) for each line."""
    canvas = paragraph.canv
    canvas.saveState()
    canvas.setFillColor(lines.textColor)
    text = paragraph.beginText(style.leftIndent, _top(paragraph, lines))
    leading = style.leading
    text.setFont(lines.fontName, lines.fontSize, leading)
    font = getFont(lines.fontName)
    subset = -1
    share = _PLACED[style.alignment]
    for extra, words in lines.lines:
        # the line moved right by its share of the unused width, and back (as reportlab moves it)
        across = 0 if not share else 0.5 * extra if share == 0.5 else extra
        setXPos(text, across)
        subset = _write(text._code, " ".join(words), font, lines.fontSize, leading, canvas, subset, True)
        setXPos(text, -across)
    canvas.drawText(text)
    canvas.restoreState()


def _draw_runs(paragraph: Any, style: Any, lines: list[Any]) -> None:
    """The mixed-style branch of `drawPara` with `_leftDrawParaLineX` and `_putFragLine` for
    each line: a run's font is chosen when it differs from the last (for an embedded font that
    writes nothing until its text), its colour set when it differs."""
    canvas = paragraph.canv
    canvas.saveState()
    text = paragraph.beginText(style.leftIndent, _top(paragraph, lines[0]))
    code = text._code
    leading = style.leading
    current: Any = None  # the leading, font name, size and colour the text object holds
    name: Any = None
    size: Any = None
    colour: Any = None
    font: Any = None
    subset = -1
    for line in lines:
        if current != leading:
            text.setLeading(leading)
            current = leading
        last = line.words[-1]
        for run in line.words:
            if (name, size) != (run.fontName, run.fontSize):
                name, size = run.fontName, run.fontSize
                font = getFont(name)
                subset = -1
            if colour != run.textColor:
                colour = run.textColor
                text.setFillColor(colour)
            subset = _write(code, run.text, font, size, leading, canvas, subset, run is last)
    canvas.drawText(text)
    canvas.restoreState()


def _write(
    code: list[str], text: str, font: Any, size: float, leading: float, canvas: Any, subset: int, end: bool
) -> int:
    """The operators of `PDFTextObject._textOut` for an embedded font (its `_formatText`): the
    subset's font name, size and leading where the subset changes, each piece's codes escaped;
    `T*` at the end of a line.  The subset it ends in."""
    doc = canvas._doc
    escape = canvas._escape
    parts = []
    template = None
    for piece_subset, piece in font.splitString(text, doc):
        if piece_subset != subset:
            if template is None:
                template = f"{textobject.fp_str(size)} Tf {textobject.fp_str(leading)} TL"
            parts.append(f"{font.getSubsetInternalName(piece_subset, doc)} {template}")
            subset = piece_subset
        parts.append(f"({escape(piece)}) Tj")
    written = " ".join(parts)
    code.append(written + " T*" if end else written)
    return subset
