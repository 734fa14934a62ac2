"""Small text helpers shared by every card writer: safe display of rulebook text, names, numbers.

Rulebook text is untrusted.  `clean` is applied to every string taken from a rulebook before it
reaches a renderer, which then escapes it for its own markup (XML for reportlab, HTML through
Jinja2's autoescape); nothing here produces markup.
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction

REPLACEMENT = "\ufffd"

MINUS = "\u2212"
"""The minus sign of printed numbers: `DEX \u22122`, not the hyphen of `DEX -2`."""

TIMES = "\u00d7"

NBSP = "\u00a0"
"""The no-break space that joins an operator to its operands: `distance\u00a0<\u00a03` never ends a
line with `<`.  Reportlab's paragraphs and every browser keep it from breaking."""

DASH = "\u2013"
"""The en dash of ranges (`1\u20135`) and of empty table cells."""

_VULGAR = {
    Fraction(1, 2): "½",
    Fraction(1, 3): "⅓",
    Fraction(2, 3): "⅔",
    Fraction(1, 4): "¼",
    Fraction(3, 4): "¾",
    Fraction(1, 5): "⅕",
    Fraction(2, 5): "⅖",
    Fraction(3, 5): "⅗",
    Fraction(4, 5): "⅘",
    Fraction(1, 6): "⅙",
    Fraction(5, 6): "⅚",
    Fraction(1, 8): "⅛",
    Fraction(3, 8): "⅜",
    Fraction(5, 8): "⅝",
    Fraction(7, 8): "⅞",
    Fraction(1, 10): "⅒",
}


_CP1252_HIGH = bytes(range(0x80, 0xA0)).decode("cp1252", errors="ignore")
"""The characters Windows-1252 puts where Latin-1 has control codes (the euro sign, curly quotes, dashes)."""
_MOJIBAKE = re.compile(f"[\u00c2-\u00f4][\u0080-\u00bf{_CP1252_HIGH}]{{1,3}}")
"""UTF-8 read as Windows-1252: `â€“` is the three bytes of an en dash, each shown as a character."""


def repair(text: str) -> str:
    """`text` with UTF-8 that was decoded as Windows-1252 turned back into the characters it
    encodes (`â€“` is an en dash): text extracted from PDFs and web pages carries such slips, and
    a player should read the dash, not its bytes.  A stretch that is not such a slip (it does not
    decode as UTF-8) is kept."""

    def fix(found: re.Match[str]) -> str:
        part = found.group(0)
        try:
            return part.encode("cp1252").decode("utf-8")
        except UnicodeError:
            return part

    return _MOJIBAKE.sub(fix, text)


def clean(text: str) -> str:
    """Rulebook text fit for display: control characters (NUL, escapes...) become U+FFFD, and
    mis-decoded UTF-8 is repaired (`repair`).

    Line breaks and tabs become spaces (a card reflows text anyway).  Everything else, including
    right-to-left marks and markup-like text, is kept as is, to be shown literally.
    """
    text = repair(text)
    if text.isprintable():  # no control character, line break or tab: nearly every text
        return text
    out = []
    for ch in text:
        if ch in "\n\t\r":
            out.append(" ")
        elif unicodedata.category(ch) == "Cc":
            out.append(REPLACEMENT)
        else:
            out.append(ch)
    return "".join(out)


def display_name(name: str) -> str:
    """A name as a player reads it: `DEX` stays, `laser_damage` becomes `laser damage`."""
    return clean(name).replace("_", " ")


def singular(words: str) -> str:
    """`smoke hexes` -> `smoke hex`, `turns` -> `turn`: the unit of a per-unit modifier."""
    last = words.rsplit(" ", 1)[-1]
    stem = words[: len(words) - len(last)]
    lower = last.lower()
    if lower.endswith(("xes", "ches", "shes", "sses")):
        last = last[:-2]
    elif lower.endswith("ies") and len(last) > 3:
        last = last[:-3] + "y"
    elif lower.endswith("s") and not lower.endswith("ss") and len(last) > 1:
        last = last[:-1]
    return stem + last


_PREPOSITIONS = frozenset({"of", "to", "for", "in", "at", "by", "per", "from", "with", "on"})


def names_many(label: str) -> bool:
    """Whether a label names a plural ("Initiative cards", "DEX ranks to ready the weapon",
    "D6s of damage"): its head noun, the word before its first preposition or else its last,
    is a plural, so that its verb agrees ("Initiative cards start at 1")."""
    words = re.sub(r"\([^)]*\)", "", label).split()
    if not words:
        return False
    at = next((index for index, word in enumerate(words) if word.lower() in _PREPOSITIONS), len(words))
    head = words[at - 1].lower() if at > 0 else words[-1].lower()
    return head in ("dice", "people") or (head.endswith("s") and not head.endswith(("ss", "us", "is")) and len(head) > 2)


def title_case_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def signed(value: Fraction | int) -> str:
    """`+2`, `+½`, and negative numbers with a true minus sign (MINUS)."""
    value = Fraction(value)
    sign = MINUS if value < 0 else "+"
    return sign + number(abs(value))


def number(value: Fraction | int) -> str:
    """A number for print: `3`, `½`, `1½`, `2.5` only when it was written so elsewhere."""
    value = Fraction(value)
    if value < 0:
        return MINUS + number(-value)
    if value.denominator == 1:
        return str(value.numerator)
    whole, part = divmod(value, 1)
    glyph = _VULGAR.get(Fraction(part))
    if glyph is not None:
        return (str(whole) if whole else "") + glyph
    return f"{value.numerator}/{value.denominator}"


def vulgar(value: Fraction) -> str | None:
    """The single glyph for a simple fraction (½, ¾ ...), if there is one."""
    return _VULGAR.get(value)


def percent(p: Fraction) -> str:
    """A probability for print: exact value rounded half up to a whole percent, never 0% or 100%
    for something that can or cannot happen."""
    if p <= 0:
        return "0%"
    if p >= 1:
        return "100%"
    scaled = p * 100
    whole = int(scaled + Fraction(1, 2))
    if whole < 1:
        return "<1%"
    if whole > 99:
        return ">99%"
    return f"{whole}%"


def plural(count: int, one: str, many: str) -> str:
    return one if abs(count) == 1 else many


_SPACES = "\t\n\x0b\x0c\r\x1c-\x1f \x85\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000"
"""The spaces reportlab may break a line at: every space but the no-break space (NBSP)."""

_BREAKS = re.compile(f"[{_SPACES}]+")
WORD = re.compile(f"[^{_SPACES}]+")
"""What no line breaks inside: a word, or an expression joined by no-break spaces."""


def words(text: str) -> list[str]:
    """The parts of `text` no line breaks inside: `3d6\u00a0≤\u00a0DEX` is one word."""
    return [word for word in _BREAKS.split(text) if word]


_SENTENCE_END = re.compile(r"(?<=[.!?])([\u201d\u2019\"')\]]*)\s+(?=[A-Z0-9\u201c\u2018\"'(\[])")


def sentences(text: str) -> list[str]:
    """`text` cut after each full stop (or ! or ?) that a space and a capital, digit or opening
    quote follow; joined with spaces, the sentences give back the text (up to the spaces)."""
    out = []
    start = 0
    for found in _SENTENCE_END.finditer(text):
        out.append(text[start : found.start() + len(found.group(1))])
        start = found.end()
    out.append(text[start:])
    return [s for s in out if s]


def _plain(text: str) -> str:
    """Words only, lower case, without articles: to tell whether a text says a step."""
    return " ".join(w for w in re.findall(r"[\w+-]+", text.lower()) if w not in ("the", "a", "an"))


def then_step(before: str, step: str) -> str:
    """What an outcome or a cell says, and the step it leads to: "Skid as on a failure; something
    nasty happens. Then roll on Skidding fumble." after a sentence, "Fishtail, then roll again"
    after a phrase, the step alone as a sentence when nothing comes before it."""
    before = before.rstrip()
    if not before:
        return title_case_first(step) + "."
    if f" {_plain(step)} " in f" {_plain(before)} ":
        return before  # "Roll on the Chase Trouble Table." says the step already
    if before.endswith((".", "!", "?", "”")):
        return f"{before} {title_case_first(step)}."
    return f"{before}, then {step}"
