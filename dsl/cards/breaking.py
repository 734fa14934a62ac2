"""Paragraphs broken into lines as reportlab breaks them, faster.

A paragraph that mixes styles (`<b>Hit</b> on 4+`) goes through reportlab's general line breaker
(`Paragraph.breakLines`, its "kind 1"), written for every feature of its markup: images,
`<br/>`, soft hyphens, hyphenation, right-to-left text, words split when longer than a line.
Cards use none of them, and for every other paragraph the general breaker spends most of its
time asking whether they are there: it measures each word through three calls, recounts the
spaces of the line for every word it adds, and compares styles attribute by attribute.  A
paragraph of one style ("kind 0") is broken more simply, but still measures each word through
three calls.

`break_lines` breaks the paragraphs cards write (fragments of plain text, no hyphenation or
right-to-left text) in the same steps with the same arithmetic, so that it returns the
same lines: the same words with the same widths, the same fragments with the same attributes,
and for a paragraph of several fragments, its fragments replaced by the same fragment words
(what reportlab splits a paragraph from).  Anything else, and a word wider than its line (which reportlab cuts), gives
None: the caller breaks the paragraph with reportlab.  tests/test_cards_breaking.py compares the
two on every paragraph of the bundled books' cards and on edge cases.
"""

from __future__ import annotations

from string import whitespace
from typing import Any

from reportlab.pdfbase.pdfmetrics import getAscentDescent
from reportlab.platypus.paragraph import (
    _FK_TEXT,
    FragLine,
    ParaLines,
    _handleBulletWidth,
    _HSFrag,
    lstrip,
    split,
    strip,
)

from dsl.cards.fonts import text_width
from dsl.cards.memo import keep

_SAME = ("fontName", "fontSize", "textColor", "rise", "us_lines", "link", "backColor", "nobr")
"""What reportlab's `sameFrag` compares: fragments alike in these are drawn as one."""

_SHY = "\xad"


def break_lines(paragraph: Any, widths: list[float]) -> Any:
    """The lines of `paragraph` at `widths` (first line, later lines) as reportlab's `breakLines`
    makes them, or None when it is not a paragraph this module breaks."""
    frags = paragraph.frags
    style = paragraph.style
    if not frags or not _plain_style(style):
        return None
    for frag in frags:
        state = getattr(frag, "__dict__", None)  # a list: words of a paragraph broken before
        if state is None or "text" not in state or "cbDefn" in state or "lineBreak" in state or _SHY in state["text"]:
            return None
    room = list(widths)
    _handleBulletWidth(paragraph.bulletText, style, room)  # a bullet takes its width from the first line
    lines: Any
    if len(frags) == 1 and not (style.endDots or hasattr(frags[0], "backColor")):
        simple = _simple(frags[0], room, style.spaceShrinkage, style.splitLongWords)
        if simple is None:
            return None
        lines, widest = simple
    else:
        broken = _broken(frags, room, style.spaceShrinkage, style.splitLongWords)
        if broken is None:
            return None
        runs, words, widest = broken
        paragraph.frags = words
        lines = ParaLines(kind=1, lines=runs)
    widths[:] = room  # as reportlab leaves them
    paragraph.height = 0
    paragraph._width_max = widest
    paragraph._splitLongWordCount = paragraph._hyphenations = 0
    return lines


def _simple(frag: Any, widths: list[float], shrinkage: float, split_long: bool) -> tuple[Any, float] | None:
    """The lines of a paragraph of one fragment and the widest line's width, in the steps of the
    simple branch of reportlab's `breakLines` ("kind 0": each line its unused width and its
    words); None at a word wider than its line."""
    font, size = frag.fontName, frag.fontSize
    ascent, descent = _extent(font, size)
    text = strip(frag.text)
    if not text:
        return frag.clone(kind=0, lines=[], ascent=ascent, descent=descent, fontSize=size), 0
    space = text_width(" ", font, size)
    shrink = shrinkage * space
    last_width = len(widths) - 1
    lines: list[tuple[float, list[str]]] = []
    line: list[str] = []
    number = 0
    widest = 0.0
    room = widths[0]
    current = -space  # no space before the first word
    for word in split(text):
        width = text_width(word, font, size)
        wider = current + space + width
        limit = room + shrink * len(line)
        if wider > limit and split_long and width > max(widths[min(number, last_width) : min(number, last_width) + 1]):
            return None  # reportlab cuts the word: left to it
        if wider <= limit or not line:
            if word:
                line.append(word)
            current = wider
        else:
            if current > widest:
                widest = current
            lines.append((room - current, line))
            line = [word]
            current = width
            number += 1
            room = widths[min(last_width, number)]
    if line:
        if current > widest:
            widest = current
        lines.append((room - current, line))
    return frag.clone(kind=0, lines=lines, ascent=ascent, descent=descent, fontSize=size), widest


def _plain_style(style: Any) -> bool:
    """Whether the style asks for nothing but breaking at spaces."""
    return not (
        style.wordWrap or style.shaping or style.hyphenationLang or style.uriWasteReduce or style.embeddedHyphenation
    )


def _extent(font: str, size: float) -> tuple[float, float]:
    """reportlab's `getAscentDescent`, remembered."""
    key = (font, size)
    found = _EXTENTS.get(key)
    if found is None:
        found = keep(_EXTENTS, key, getAscentDescent(font, size), 1024)
    return found


_EXTENTS: dict[tuple[str, float], tuple[float, float]] = {}


def _fragment_words(frags: list[Any]) -> list[Any]:
    """The words of the fragments, as reportlab's `_getFragWords` reads plain text: each word a
    list of its width and its (fragment, text) pieces, an `_HSFrag` when a space follows it."""
    found: list[Any] = []
    word: list[Any] = []
    width = 0.0
    leading = True  # spaces at the start of the paragraph are dropped
    for frag in frags:
        text = frag.text
        if text == "":
            continue
        frag._fkind = _FK_TEXT
        if leading:
            text = lstrip(text)
            if not text:
                continue
            leading = False
        parts = split(text)
        if text[0] in whitespace or not parts:
            if word:
                found.append([width, *word])
                word = []
                width = 0
                parts.insert(0, "")
            elif not (found and isinstance(found[-1], _HSFrag)):
                parts.insert(0, "")
            elif not parts:
                continue
        font, size = frag.fontName, frag.fontSize
        for part in parts[:-1]:
            word.append((frag, part))
            width += text_width(part, font, size)
            found.append(_HSFrag([width, *word]))
            word = []
            width = 0
        part = parts[-1]
        word.append((frag, part))
        width += text_width(part, font, size)
        if text[-1] in whitespace:
            found.append(_HSFrag([width, *word]))
            word = []
            width = 0
    if word:
        found.append([width, *word])
    if not found:
        frags[0]._fkind = _FK_TEXT
        found = [[0, (frags[0], "")]]
    return found


def _broken(
    frags: list[Any], widths: list[float], shrinkage: float, split_long: bool
) -> tuple[list[Any], list[Any], float] | None:
    """The lines, the fragment words and the widest line's width, in the steps of the general
    branch of reportlab's `breakLines`; None at a word wider than its line."""
    last_width = len(widths) - 1
    lines: list[Any] = []
    taken: list[Any] = []
    start = 0  # the index in `taken` of the line's first word (`sFW`)
    number = 0
    widest = 0.0
    room = widths[0]
    line: list[Any] = []  # the line's runs: fragments with their text, alike ones joined
    count = 0
    space = current = 0.0
    size = top = bottom = 0.0
    run: Any = None
    source: Any = None  # the fragment `run` was copied from
    for word in _fragment_words(frags):
        taken.append(word)
        last = word[-1][0]
        if not line:
            count = 0
            space = current = 0
            size = last.fontSize
            top, bottom = _extent(last.fontName, size)
        word_width = word[0]
        first, text = word[1]
        wider = current + space + word_width if word_width > 0 else current
        # A line may shrink its spaces a little (`spaceShrinkage`): the room with that allowed
        # only matters past the room itself.
        if wider > room or shrinkage < 0:
            limit = room
            if shrinkage:
                shrink = space
                for each in line:
                    spaces = each.text.count(" ")
                    if spaces:
                        shrink += spaces * text_width(" ", each.fontName, each.fontSize)
                limit += shrink * shrinkage
            if wider > limit:
                if split_long and word_width > max(widths[min(number, last_width) : min(number, last_width) + 1]):
                    return None  # reportlab cuts the word: left to it
                if count > 0:  # the line is full: the word starts the next one
                    if current > widest:
                        widest = current
                    lines.append(_line(line, room, current, count, size, top, bottom, start))
                    start = len(taken) - 1
                    number += 1
                    room = widths[min(last_width, number)]
                    space = text_width(" ", last.fontName, last.fontSize) if isinstance(word, _HSFrag) else 0
                    current = word_width
                    count = 1
                    run = _run(first, text)
                    source = first
                    size = first.fontSize
                    top, bottom = _extent(first.fontName, size)
                    line = [run]
                    for piece, piece_text in word[2:]:
                        run = _run(piece, piece_text)
                        source = piece
                        line.append(run)
                        size, top, bottom = _taller(size, top, bottom, piece)
                    continue
        if text:
            count += 1
        if source is not first:  # a fragment already on the line leaves its extent as it is
            size, top, bottom = _taller(size, top, bottom, first)
        if not line:
            run = _run(first, text)
            source = first
            line = [run]
        elif source is not first and _key(source) != _key(first):
            if space:
                for before in reversed(line):
                    if before._fkind == _FK_TEXT:
                        if not before.text.endswith(" "):
                            before.text += " "
                        break
            run = _run(first, text)
            source = first
            line.append(run)
        elif space and not run.text.endswith(" "):
            run.text += " " + text
        else:
            run.text += text
        space = text_width(" ", last.fontName, first.fontSize) if isinstance(word, _HSFrag) else 0
        real = False
        for piece, piece_text in word[2:]:
            run = _run(piece, piece_text)
            source = piece
            if piece_text:
                real = True
            line.append(run)
            size, top, bottom = _taller(size, top, bottom, piece)
        if not text and real:
            count += 1
        current = wider
    if line:
        if current > widest:
            widest = current
        lines.append(_line(line, room, current, count, size, top, bottom, start))
    return lines, taken, widest


def _line(
    runs: list[Any], room: float, used: float, count: int, size: float, top: float, bottom: float, start: int
) -> Any:
    return FragLine(
        extraSpace=room - used,
        wordCount=count,
        lineBreak=False,
        words=runs,
        fontSize=size,
        ascent=top,
        descent=bottom,
        maxWidth=room,
        sFW=start,
    )


def _run(frag: Any, text: str) -> Any:
    """`frag.clone()` holding `text`, without the keyword-argument round trip."""
    run = frag.__class__.__new__(frag.__class__)
    run.__dict__.update(frag.__dict__)
    run.text = text
    return run


def _key(frag: Any) -> tuple[Any, ...]:
    """What reportlab's `sameFrag` compares of a fragment."""
    get = frag.__dict__.get
    return tuple([get(name) for name in _SAME])


def _taller(size: float, top: float, bottom: float, frag: Any) -> tuple[float, float, float]:
    """The line's largest size, ascent and lowest descent with `frag` on it."""
    ascent, descent = _extent(frag.fontName, frag.fontSize)
    return max(size, frag.fontSize), max(top, ascent), min(bottom, descent)
