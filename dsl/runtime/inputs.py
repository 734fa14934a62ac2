"""The inputs a resolver accepts (`InputSpec`): each value checked, or refused with a
RuleInputError that names the input and what it takes.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .base import MAX_BITS, MAX_DIGITS, HugeNumber, RuleInputError, as_number, clip, close_match, show, shown, surrogate
from .dice import Dice, Value

if TYPE_CHECKING:
    from .book import Scope


@dataclass(frozen=True, slots=True)
class InputSpec:
    """An input a resolver accepts: its type, range or choices, unit and default."""

    name: str
    label: str | None
    kind: str  # int | number | percent | flag | dice | text | one of | levels
    low: Fraction | int | None
    high: Fraction | int | None
    unit: str | None
    members: tuple[str, ...]
    default: Value | None
    is_stat: bool
    derived: Callable[[Scope], Any] | None = None  # computes the default from other values
    default_text: str | None = None  # how the default reads, e.g. "DEX"

    def describe(self) -> str:
        if self.members:
            sep = " < " if self.kind == "levels" else ", "
            return f"{self.kind} {{{sep.join(self.members)}}}"
        text = self.kind
        if self.low is not None or self.high is not None:
            low = "" if self.low is None else show(self.low)
            high = "" if self.high is None else show(self.high)
            text += f" {low}..{high}"
        if self.unit:
            text += f" {self.unit}"
        return text

    def coerce(self, value: object) -> Value:
        """Check a Python value for this input; raise RuleInputError naming what is accepted."""
        kind = self.kind
        if (
            type(value) is int
            and kind in ("int", "percent")
            and (self.low is None or value >= self.low)
            and (self.high is None or value <= self.high)
            and value.bit_length() <= MAX_BITS
        ):
            return value
        if kind == "flag":
            if isinstance(value, bool):
                return value
            raise self._error(value, "True or False")
        if kind in ("one of", "levels"):
            if isinstance(value, str) and value in self.members:
                return value
            hint = close_match(value, self.members) if isinstance(value, str) and len(value) <= 100 else ""
            raise self._error(value, "one of " + ", ".join(self.members), hint)
        if kind == "text":
            if isinstance(value, str):
                half = surrogate(value)
                if half is None:
                    return value
                why = f"`\\u{half:04x}` is no character: half of a UTF-16 surrogate pair, or a byte that is not UTF-8"
                raise self._error(value, "text", why)
            raise self._error(value, "text")
        if kind == "dice":
            if isinstance(value, Dice):
                return value
            if isinstance(value, str):
                try:
                    return Dice.parse(value)
                except ValueError as error:
                    raise self._error(value, "dice such as 3d6 or 1d6+2", str(error)) from None
            raise self._error(value, "dice such as 3d6 or 1d6+2")
        try:
            number = as_number(value)
        except HugeNumber:
            raise self._error(value, f"a number of at most {MAX_DIGITS} digits") from None
        if number is None:
            raise self._error(value, "a number" if kind == "number" else "a whole number")
        if kind != "number" and number.denominator != 1:
            raise self._error(value, "a whole number")
        if (self.low is not None and number < self.low) or (self.high is not None and number > self.high):
            raise self._error(value, "a number in " + self.describe())
        return number.numerator if number.denominator == 1 else number

    def parse(self, text: str) -> Value:
        """Read a value from text (a command line): yes/no, names, numbers, 7/10, 0.7, 3d6."""
        if self.kind == "flag":
            lowered = text.strip().lower()
            if lowered in ("yes", "true", "1", "on"):
                return True
            if lowered in ("no", "false", "0", "off"):
                return False
            raise self._error(text, "yes or no")
        if self.kind in ("one of", "levels", "text", "dice"):
            return self.coerce(text)
        return self.coerce(text.strip())

    def _error(self, value: object, wanted: str, detail: str = "") -> RuleInputError:
        extra = f" ({clip(detail, 200)})" if detail else ""
        return RuleInputError(f"input `{self.name}` must be {wanted}, not {shown(value)}{extra}")


def accepted(spec: InputSpec) -> tuple[type, Container[object]]:
    """The values of an input `coerce` returns as they are, when they are simply told: whole
    numbers between bounds (a range), flags, members; for any other kind, none (every value is
    checked by `coerce`).  It must agree with `InputSpec.coerce`, whose first test it restates
    (tests/test_fast_path.py holds them together on every input's edge values)."""
    low, high = spec.low, spec.high
    if (
        spec.kind in ("int", "percent")
        and type(low) is int
        and type(high) is int
        and max(abs(low), abs(high)).bit_length() <= MAX_BITS
    ):
        return int, range(low, high + 1)
    if spec.kind == "flag":
        return bool, (False, True)
    if spec.kind in ("one of", "levels"):
        return str, frozenset(spec.members)
    return object, ()
