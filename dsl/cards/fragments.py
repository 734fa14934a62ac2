"""Paragraph markup read into reportlab's fragments without its HTML tokenizer.

Reportlab reads a paragraph's markup with Python's `html.parser`, which costs as much as breaking
the paragraph into lines.  Cards write a small subset of the markup (flow.py): text with `&amp;`,
`&lt;` and `&gt;`, and `<b>`, `<i>` and `<font ...>` with quoted attributes.  That subset is
split here with one regular expression and fed to reportlab's own `ParaParser` handlers, the
same calls in the same order as `html.parser` makes them, so the fragments are reportlab's own.
Anything outside the subset returns None: the caller lets reportlab read it.
"""

from __future__ import annotations

import re
from typing import Any

from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus.paragraph import cleanBlockQuotedText, textTransformFrags
from reportlab.platypus.paraparser import ParaParser

_TOKEN = re.compile(
    r"""<(?P<start>[a-z]+)(?P<attrs>(?:\s+[a-z]+="[^"&<>]*")*)\s*>"""
    r"|</(?P<end>[a-z]+)\s*>"
    r"|&(?P<entity>[a-zA-Z][a-zA-Z0-9]*);"
    r"|(?P<data>[^<&]+)"
)
_ATTRIBUTE = re.compile(r'([a-z]+)="([^"]*)"')


def fragments(text: str, style: ParagraphStyle) -> list[Any] | None:
    """The fragments reportlab's `Paragraph(text, style)` would hold, or None when `text` is
    not in the subset read here (or reportlab would refuse it)."""
    text = cleanBlockQuotedText(text)
    if text.startswith("<para"):
        return None
    tokens = list(_TOKEN.finditer(text))
    if sum(len(token.group(0)) for token in tokens) != len(text):
        return None
    parser = ParaParser()
    parser.caseSensitive = 1  # as Paragraph sets it
    try:
        parser._setup_for_parse(style)
        parser.handle_starttag("para", [])
        for token in tokens:
            data, entity, start, end = token.group("data", "entity", "start", "end")
            if data is not None:
                parser.handle_data(data)
            elif entity is not None:
                parser.handle_entityref(entity)
            elif start is not None:
                parser.handle_starttag(start, _ATTRIBUTE.findall(token.group("attrs")))
            else:
                parser.handle_endtag(end)
        parser.handle_endtag("para")
        _, frags, bullets = parser._complete_parse()
    except Exception:
        return None
    if frags is None or bullets:
        return None
    textTransformFrags(frags, style)
    return list(frags)
