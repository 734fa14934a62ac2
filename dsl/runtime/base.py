"""The lowest layer of the runtime: the one error a resolver raises for bad input, the sizes of
numbers it accepts, the table cells that are not numbers (X, N/A), and how numbers are shown and
written as JSON.

The data contract (the JSON Schema is `rulecraft schema resolution`): a whole number within
+-(2**53 - 1) is a JSON integer; any other exact number, a whole number beyond that range included,
is {"fraction": "7/2", "float": 3.5}, its exact value as text, so that a reader whose numbers are
doubles (JavaScript's are) loses no digit; a probability is always that object (0 and 1 too).
"""

from __future__ import annotations

import difflib
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final, Literal


class RuleInputError(ValueError):
    """A bad input to a resolver: unknown rule, unknown input, wrong type, or out of range.

    The message names the input and what it accepts; `resolve` raises nothing else for bad input.
    """




@dataclass(frozen=True, slots=True)
class Special:
    """A table cell that is not a number: X (impassable) or N/A (not applicable)."""

    text: str

    def __str__(self) -> str:
        return self.text


IMPASSABLE: Final = Special("X")
NOT_APPLICABLE: Final = Special("N/A")


def round_value(value: Fraction | int, mode: str) -> int:
    if mode == "up":
        return math.ceil(value)
    if mode == "down":
        return math.floor(value)
    return math.floor(value + Fraction(1, 2))


def whole(value: Any) -> Any:
    """A value as a resolution reports it: a whole number as an `int`, never `Fraction(95, 1)`."""
    if type(value) is Fraction and value.denominator == 1:
        return value.numerator
    return value


def show(value: object) -> str:
    """A value as text: whole numbers plainly, exact decimals as decimals, other fractions as a/b."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return str(value.numerator)
        denominator = value.denominator
        twos = fives = 0
        while denominator % 2 == 0:
            denominator //= 2
            twos += 1
        while denominator % 5 == 0:
            denominator //= 5
            fives += 1
        if denominator == 1:
            places = max(twos, fives)
            scaled = abs(value.numerator) * (10**places // value.denominator)
            digits = str(scaled).rjust(places + 1, "0")
            sign = "-" if value < 0 else ""
            return f"{sign}{digits[:-places]}.{digits[-places:]}"
        return f"{value.numerator}/{value.denominator}"
    return str(value)


MAX_DIGITS: Final = 1000
"""The most digits of a number given to a resolver (its numerator and denominator each): far
beyond any game, and short of the 4,300 digits where Python stops turning text into numbers."""

MAX_BITS: Final = 3322
"""MAX_DIGITS in bits (10 ** 1000 < 2 ** 3322): the size checked without writing a number out."""


class HugeNumber(Exception):
    """A number of more than MAX_DIGITS digits."""


def shown(value: object) -> str:
    """A value as an error message quotes it: text in quotes, and nothing a page long (a number
    of 5,000 digits cannot even be written out by `repr`)."""
    if isinstance(value, str):
        if len(value) > 60:
            return f'"{printable(value[:40])}\u2026{printable(value[-8:])}" ({len(value)} characters)'
        return f'"{printable(value)}"'
    if isinstance(value, int) and value.bit_length() > 200:
        return f"a number of {math.floor(value.bit_length() * math.log10(2)) + 1} digits or so"
    if isinstance(value, Fraction) and max(value.numerator.bit_length(), value.denominator.bit_length()) > 200:
        return "a fraction of hundreds of digits"
    try:
        text = repr(value)
    except ValueError:
        return f"a {type(value).__name__}"
    return text if len(text) <= 80 else text[:72] + "\u2026"


def as_number(value: object) -> Fraction | None:
    """A value as an exact number; None if it is none; HugeNumber past MAX_DIGITS digits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, Fraction)):
        number = Fraction(value)
    elif isinstance(value, float):
        if not math.isfinite(value):
            return None
        number = Fraction(repr(value))
    elif isinstance(value, str):
        text = value.strip()
        if not _NUMBER_TEXT.fullmatch(text):
            return None
        if sum(ch.isdigit() for ch in text) > MAX_DIGITS:
            raise HugeNumber
        try:
            number = Fraction(text)
        except ZeroDivisionError:
            return None
    elif type(value).__name__ == "Decimal":
        try:
            if not value.is_finite() or abs(value.adjusted()) > MAX_DIGITS:  # type: ignore[attr-defined]
                raise HugeNumber if value.is_finite() else ValueError  # type: ignore[attr-defined]
            number = Fraction(str(value))
        except (ValueError, ZeroDivisionError, ArithmeticError):
            return None
    else:
        return None
    if number.numerator.bit_length() > MAX_BITS or number.denominator.bit_length() > MAX_BITS:
        raise HugeNumber
    return number


_NUMBER_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]+)?|[0-9]+/[0-9]+)", re.ASCII)
"""Numbers written as text: 12, -3, 0.7, 7/10 (no exponents, separators or other digits)."""


def close_match(word: str, choices: Sequence[str]) -> str:
    """A "did you mean" hint: the same word in another case, else the closest spelling."""
    same = [c for c in choices if c.lower() == word.lower()]
    matches = same or difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean `{matches[0]}`?" if matches else ""


Status = Literal["applied", "suppressed", "overridden", "capped"]
"""What became of a modifier whose condition held: it counted; stacking suppressed it; a later
`= value` or absolute grade overrode it; or a limit stopped it (a pool keeps at least one die)."""


SAFE_INTEGER: Final = 2**53 - 1
"""The largest whole number every JSON reader holds exactly (JavaScript's Number.MAX_SAFE_INTEGER):
beyond it, a double skips whole numbers, so the data contract writes the number as text."""


def number_json(value: int | Fraction) -> object:
    """A number as JSON: an integer within +-SAFE_INTEGER; else {"fraction": "a/b", "float": ...}
    ("a" alone for a whole number beyond that range)."""
    if type(value) is int and -SAFE_INTEGER <= value <= SAFE_INTEGER:
        return value
    fraction = Fraction(value)
    if fraction.denominator == 1:
        if -SAFE_INTEGER <= fraction.numerator <= SAFE_INTEGER:
            return fraction.numerator
        text = str(fraction.numerator)
    else:
        text = f"{fraction.numerator}/{fraction.denominator}"
    return {"fraction": text, "float": _nearest_float(fraction)}


def _nearest_float(value: Fraction) -> float:
    """The double nearest `value`, or the largest double of its sign past the range of doubles
    (JSON has no infinity)."""
    try:
        return float(value)
    except OverflowError:
        return sys.float_info.max if value > 0 else -sys.float_info.max


def probability_json(value: Fraction | int) -> dict[str, object]:
    fraction = Fraction(value)
    text = str(fraction.numerator) if fraction.denominator == 1 else f"{fraction.numerator}/{fraction.denominator}"
    return {"fraction": text, "float": float(fraction)}


def clip(text: str, limit: int = 60) -> str:
    """A name or text quoted in a message, cut short if it is long."""
    return printable(text if len(text) <= limit else text[: limit - 20] + "\u2026")


def surrogate(text: str) -> int | None:
    """The first half of a UTF-16 surrogate pair standing alone in `text`, if any: Python text can
    hold one (decoded with `surrogateescape` from bytes that are not UTF-8, say, or written as
    "\\ud800"), but no UTF-8 output can, so it is refused where it comes in, not where it is printed."""
    if text.isascii():
        return None
    found = _SURROGATE.search(text)
    return None if found is None else ord(found.group())


def printable(text: str) -> str:
    """`text` with each lone surrogate written as its escape, so that a message quoting it can be
    printed and written as UTF-8."""
    return text if text.isascii() else _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


_SURROGATE = re.compile("[\ud800-\udfff]")
