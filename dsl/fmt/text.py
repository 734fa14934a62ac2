"""Free text laid out anew: joined into one string while it fits, else cut at spaces.

A free text (`note`, `cannot`, `erratum`, the text of an outcome) may be written as several
strings in parentheses, joined without a separator: `("A flashlight " "removes ...")`.  The
formatter joins them and, when the line is wider than its width, cuts the text again after a
space, filling each string as far as the width allows:

    note ("A flashlight completely removes all penalties for 3 MH in the direction it is "
          "pointed, for the one holding it and anyone firing at him.")

The strings line up after the `(`, unless the text follows another text on its line (an
erratum's explanation after its quote) or the `(` stands right of ALIGN_COLUMN: then they start
on the next lines, one level in:

    erratum "except those that do not move and use thrown or missile weapon": (
        "Lasers are missile weapons here, ...")

A string is only ever cut between two characters of its text, never inside an escape (`\\"`),
so the joined text is the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ALIGN_COLUMN = 40
"""The strings of a cut text follow its `(` when the `(` stands left of this column."""

_UNIT = re.compile(r"\\.|.", re.DOTALL)


@dataclass
class TextRun:
    """A piece of an output line; `body` is set when the piece is a free text that may be cut."""

    text: str
    body: str | None = None


def joined_text(values: list[str]) -> str:
    """The inside of the one string that a text's strings (`"a"`, or `(`, `"a"`, `"b"`, `)`) make."""
    return "".join(value[1:-1] for value in values if value.startswith('"'))


def wrap(body: str, prefix: str, suffix: str, hanging: int, width: int, after_text: bool) -> list[str] | None:
    """The lines of a text cut to `width`: the first starts with `prefix` (all the line holds
    before the text), the last ends with `suffix` (all it holds after).  `hanging` is the
    indentation of strings that start on lines of their own, as they do when the text follows
    another text on its line (`after_text`).  None when cutting does not help."""
    if not body:
        return None
    column = len(prefix)
    words = _words(body)
    if column < ALIGN_COLUMN and not after_text:
        start = column + 1
        chunks = _fill(words, width - start - 2, len(suffix) + 1)
        if len(chunks) < 2:
            return None
        lines = [f'{prefix}("{chunks[0]}"'] + [f'{" " * start}"{chunk}"' for chunk in chunks[1:]]
    else:
        chunks = _fill(words, width - hanging - 2, len(suffix) + 1)
        lines = [f"{prefix}("] + [f'{" " * hanging}"{chunk}"' for chunk in chunks]
    lines[-1] += ")" + suffix
    return lines


def _words(body: str) -> list[str]:
    """The text cut after every run of spaces; an escape (`\\"`, `\\\\`) is never cut."""
    words: list[str] = []
    current = ""
    after_space = False
    for unit in _UNIT.findall(body):
        if after_space and unit != " ":
            words.append(current)
            current = ""
        current += unit
        after_space = unit == " "
    words.append(current)
    return words


def _fill(words: list[str], room: int, tail: int) -> list[str]:
    """Words filled greedily into strings of at most `room` characters (a longer word stands
    alone); the last string keeps `tail` characters free for what ends the line."""
    chunks: list[str] = []
    current = ""
    for position, word in enumerate(words):
        need = len(word) + (tail if position == len(words) - 1 else 0)
        if current and len(current) + need > room:
            chunks.append(current)
            current = word
        else:
            current += word
    chunks.append(current)
    return chunks
