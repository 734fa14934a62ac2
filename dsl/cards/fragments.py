"""Paragraph markup read into reportlab's fragments without its parser.

Reportlab reads a paragraph's markup with Python's `html.parser` and a handler per tag that
copies the fragment on top of its stack; reading costs as much as breaking the paragraph into
lines.  Cards write a small subset of the markup (flow.py): text with `&amp;`, `&lt;` and `&gt;`,
and `<b>`, `<i>` and `<font>` with quoted `size`, `color` and `name` attributes.  That subset is
read here the way reportlab's `ParaParser` reads it, into the same fragments with the same
attributes (tests/test_cards.py compares the two on every paragraph of a deck).  Anything else
returns None, and the caller lets reportlab read it.
"""

from __future__ import annotations

import re
from typing import Any

from reportlab.lib.fonts import ps2tt, tt2ps
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus.paragraph import cleanBlockQuotedText, textTransformFrags
from reportlab.platypus.paraparser import ParaFrag, _applyAttributes, _spanAttrMap, known_entities

from dsl.cards.memo import keep

_TOKEN = re.compile(
    r"""<(?P<start>[a-z]+)(?P<attrs>(?:\s+[a-z]+="[^"&<>]*")*)\s*>"""
    r"|</(?P<end>[a-z]+)\s*>"
    r"|&(?P<entity>[a-zA-Z][a-zA-Z0-9]*);"
    r"|(?P<data>[^<&]+)"
)
_ODD_SPACE = re.compile("[^\\S \u00a0]|[\u200b]|  |^ | $")
"""Spacing reportlab's `cleanBlockQuotedText` would change: space other than single spaces
between words and no-break spaces (which it keeps), or a zero-width space (which it strips at the
ends of a line).  Text without any is returned by it as it is, so it is not asked."""
_ATTRIBUTE = re.compile(r'([a-z]+)="([^"]*)"')
_FONT_ATTRIBUTES = ("size", "color", "fg", "name", "face")


def fragments(text: str, style: ParagraphStyle) -> list[Any] | None:
    """The fragments reportlab's `Paragraph(text, style)` would hold, or None when `text` is
    not in the subset read here."""
    if not text or _ODD_SPACE.search(text):
        text = cleanBlockQuotedText(text)
    tokens = list(_TOKEN.finditer(text))
    if sum(token.end() - token.start() for token in tokens) != len(text) or text.startswith("<para"):
        return None
    try:
        stack = [_paragraph(style)]
        frags: list[Any] = []
        for token in tokens:
            data, entity, start, end = token.group("data", "entity", "start", "end")
            if data is not None:
                frags.append(_text(stack[-1], data))
            elif entity is not None:
                frags.append(_text(stack[-1], known_entities.get(entity, f"&{entity};")))
            elif start is not None:
                attributes = _tag_of(start, token.group("attrs"))
                if attributes is None:
                    return None
                frag = _copy(stack[-1])
                frag.__tag__ = start
                _applyAttributes(frag, attributes)
                stack.append(frag)
            elif len(stack) > 1 and stack[-1].__tag__ == end:
                stack.pop()
            else:
                return None
    except (ValueError, TypeError, KeyError):  # reportlab reads it again and reports the error itself
        return None
    if len(stack) != 1:
        return None
    textTransformFrags(frags, style)
    return frags


def _paragraph(style: ParagraphStyle) -> Any:
    """The fragment a paragraph starts from (`ParaParser._initial_frag` and `start_para`)."""
    frag = ParaFrag()
    frag.rise = 0
    frag.greek = 0
    frag.link = []
    frag.fontName, frag.bold, frag.italic = ps2tt(style.fontName)
    frag.fontSize = style.fontSize
    frag.textColor = style.textColor
    frag.us_lines = []
    frag.__tag__ = "para"
    return frag


def _tag_of(name: str, written: str) -> dict[str, Any] | None:
    """`_tag` of a start tag as written, remembered: a deck writes the same few tags thousands
    of times, and reading a colour or a size is most of the cost of reading one.  The attributes
    are only read (`_applyAttributes` sets them on a fragment), so one dict serves every tag
    written alike."""
    key = (name, written)
    if key in _TAGS:
        return _TAGS[key]
    attributes = _tag(name, _ATTRIBUTE.findall(written))
    return keep(_TAGS, key, attributes, 1024)


_TAGS: dict[tuple[str, str], dict[str, Any] | None] = {}


def _tag(name: str, pairs: list[tuple[str, str]]) -> dict[str, Any] | None:
    """What a start tag sets (`ParaParser.start_b`, `start_i`, `start_font`), or None."""
    if name in ("b", "i"):
        return None if pairs else {"bold" if name == "b" else "italic": 1}
    if name != "font" or any(key not in _FONT_ATTRIBUTES for key, _ in pairs):
        return None
    attributes: dict[str, Any] = {}
    for key, value in pairs:
        attribute, convert = _spanAttrMap[key]
        attributes[attribute] = convert(value) if convert is not None else value
    if "fontName" in attributes:
        attributes["fontName"], attributes["bold"], attributes["italic"] = ps2tt(attributes["fontName"])
    return attributes


def _copy(frag: Any) -> Any:
    """`copy.copy` of a fragment, without its machinery."""
    new = ParaFrag.__new__(ParaFrag)
    new.__dict__.update(frag.__dict__)
    return new


def _text(frag: Any, data: str) -> Any:
    """A run of text in the style on top of the stack (`ParaParser.handle_data`)."""
    new = _copy(frag)
    new.fontName = tt2ps(new.fontName, new.bold, new.italic)
    new.text = data
    return new
