"""Card paragraphs set into lines and drawn with reportlab's public font metrics and text objects.

Cards write a small markup (flow.py): text with `&amp;`, `&lt;` and `&gt;`, and `<b>`, `<i>` and
`<font>` with `size`, `color` and `name`.  A paragraph in that markup, in the card fonts, without
a bullet, a background or justification, is set here: its text split into words at spaces (a
no-break space joins two words into one, as a paragraph joins them), each word measured piece
by piece (`pdfmetrics.stringWidth`), the lines filled greedily, each line drawn by one text
object writing its runs.  Laying out and drawing a deck's paragraphs is most of the work of
making its cards, and reportlab's `Paragraph` reads, breaks and draws every feature of its
markup (images, links, underlines, hyphenation, right-to-left text) for text that has none:
flow.py lets it set only what is not set here (`pieces` gives None), and a word wider than
its line, which a paragraph cuts (`lines` gives None).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER, TA_LEFT, TA_RIGHT
from reportlab.lib.styles import ParagraphStyle

from dsl.cards.fonts import BOLD, ITALIC, REGULAR, text_width

BREAK = re.compile("[\t\n\x0b\x0c\r\x1c-\x1f \x85\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000]+")
"""The spaces a line may break at, as a paragraph breaks (every Unicode space but the no-break
space); a run of them is one space."""

_TOKEN = re.compile(
    r"""<(?P<start>[a-z]+)(?P<attrs>(?:\s+[a-z]+="[^"&<>]*")*)\s*>"""
    r"|</(?P<end>[a-z]+)\s*>"
    r"|&(?P<entity>amp|lt|gt|quot|apos);"
    r"|(?P<data>[^<&]+)"
)
_ATTRIBUTE = re.compile(r'([a-z]+)="([^"]*)"')
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_HEX = re.compile(r"#[0-9a-fA-F]{6}")
_ENTITIES = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_FACES = {REGULAR: (False, False), BOLD: (True, False), ITALIC: (False, True)}
_ALIGNMENTS = (TA_LEFT, TA_CENTER, TA_RIGHT)


@dataclass(frozen=True, slots=True)
class Piece:
    """Text in one font, size and colour."""

    text: str
    font: str
    size: float
    colour: Any


@dataclass(frozen=True, slots=True)
class Word:
    """What lies between two spaces, in one or more pieces; `gap`: the space after it, in the
    font it is in, and `space` its width."""

    pieces: tuple[Piece, ...]
    width: float
    space: float = 0.0
    gap: Piece | None = None


@dataclass(frozen=True, slots=True)
class Line:
    """The words on a line, its text in runs of one font, size and colour (spaces included: one
    text operator each), and its width."""

    words: tuple[Word, ...]
    runs: tuple[Piece, ...]
    width: float


def _line(found: list[Word]) -> Line:
    runs: list[Piece] = []
    last = len(found) - 1
    for number, word in enumerate(found):
        written = word.pieces if number == last or word.gap is None else (*word.pieces, word.gap)
        for piece in written:
            before = runs[-1] if runs else None
            if before is not None and before.font == piece.font and before.size == piece.size and before.colour is piece.colour:
                runs[-1] = Piece(before.text + piece.text, piece.font, piece.size, piece.colour)
            else:
                runs.append(piece)
    width = sum(word.width for word in found) + sum(word.space for word in found[:-1])
    return Line(tuple(found), tuple(runs), width)


def pieces(markup: str, style: ParagraphStyle) -> tuple[Piece, ...] | None:
    """The pieces of a paragraph of card markup in `style`; None when it is not one set here."""
    if style.fontName not in _FACES or style.backColor or style.borderWidth or style.alignment not in _ALIGNMENTS:
        return None
    transform = {"uppercase": str.upper, "lowercase": str.lower}.get(style.textTransform or "")
    if style.textTransform and transform is None:
        return None
    bold, italic = _FACES[style.fontName]
    stack = [("", bold, italic, float(style.fontSize), style.textColor)]
    found: list[Piece] = []
    at = 0
    for token in _TOKEN.finditer(markup):
        if token.start() != at:
            return None
        at = token.end()
        data, entity, start, end = token.group("data", "entity", "start", "end")
        tag, bold, italic, size, colour = stack[-1]
        if data is not None or entity is not None:
            text = data if data is not None else _ENTITIES[entity]
            font = BOLD if bold else ITALIC if italic else REGULAR
            found.append(Piece(transform(text) if transform else text, font, size, colour))
        elif start == "b" and not token.group("attrs"):
            stack.append((start, True, italic, size, colour))
        elif start == "i" and not token.group("attrs"):
            stack.append((start, bold, True, size, colour))
        elif start == "font":
            for name, value in _ATTRIBUTE.findall(token.group("attrs")):
                if name == "size" and _NUMBER.fullmatch(value):
                    size = float(value)
                elif name == "color" and _HEX.fullmatch(value):
                    colour = _colour(value)
                elif name == "name" and value in _FACES:
                    bold, italic = _FACES[value]
                else:
                    return None
            stack.append((start, bold, italic, size, colour))
        elif end is not None and len(stack) > 1 and end == tag:
            stack.pop()
        else:
            return None
    if at != len(markup) or len(stack) != 1:
        return None
    return tuple(found)


@functools.lru_cache(maxsize=64)
def _colour(value: str) -> colors.Color:
    """A colour of the markup, one object per value (runs of one colour are told by identity)."""
    return colors.HexColor(value)


def words(found: tuple[Piece, ...]) -> tuple[Word, ...]:
    """The words of a paragraph's pieces, the spaces at its ends dropped."""
    made: list[Word] = []
    current: list[Piece] = []
    for piece in found:
        parts = BREAK.split(piece.text)
        for index, part in enumerate(parts):
            if index and current:  # a space: the word before it ends
                gap = Piece(" ", piece.font, piece.size, piece.colour)
                made.append(Word(tuple(current), _width(current), text_width(" ", piece.font, piece.size), gap))
                current = []
            if part:
                current.append(Piece(part, piece.font, piece.size, piece.colour))
    if current:
        made.append(Word(tuple(current), _width(current)))
    return tuple(made)


def _width(found: list[Piece]) -> float:
    return sum(text_width(p.text, p.font, p.size) for p in found)


def lines(found: tuple[Word, ...], first: float, rest: float) -> tuple[Line, ...] | None:
    """The words filled into lines `first` wide, then `rest` wide; None when a word is wider
    than its line (a paragraph cuts it: it is left to one)."""
    made: list[Line] = []
    line: list[Word] = []
    used = 0.0
    width = first
    for word in found:
        needed = used + line[-1].space + word.width if line else word.width
        if line and needed > width + 1e-6:
            made.append(_line(line))
            line, width = [], rest
            needed = word.width
        if not line and word.width > width + 1e-6:
            return None
        line.append(word)
        used = needed
    if line:
        made.append(_line(line))
    return tuple(made)


def draw(canvas: Any, found: tuple[Line, ...], style: ParagraphStyle, width: float, height: float) -> None:
    """Draw lines of a paragraph `width` wide and `height` high from its lower-left corner: the
    first baseline the largest size of the first line below the top, one `leading` apart."""
    if not found:
        return
    leading = style.leading
    y = height - max(piece.size for piece in found[0].runs)
    text = canvas.beginText()
    font: tuple[str, float] | None = None
    colour = None
    for index, line in enumerate(found):
        left = style.leftIndent + (style.firstLineIndent if index == 0 else 0)
        room = width - left - style.rightIndent
        if style.alignment == TA_CENTER:
            left += (room - line.width) / 2
        elif style.alignment == TA_RIGHT:
            left += room - line.width
        text.setTextOrigin(left, y - index * leading)
        for piece in line.runs:
            if font != (piece.font, piece.size):
                font = (piece.font, piece.size)
                text.setFont(piece.font, piece.size, leading)
            if colour is not piece.colour:
                colour = piece.colour
                text.setFillColor(piece.colour)
            text.textOut(piece.text)
    canvas.drawText(text)
