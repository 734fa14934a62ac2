"""Semantic types.

Numeric types carry the interval of values an expression can take (from the declared ranges of
the inputs it reads, by interval arithmetic) and its unit.  That one piece of information lets
the checker prove ranges (a d6 table has no row 7), find conditions that can never hold, and
check units (hexes are not kilograms) without a separate analysis.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction


@dataclass(frozen=True, slots=True)
class Type:
    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Numeric(Type):
    """int, number and percent: exact rationals with an optional interval and unit."""

    kind: str  # "int" | "number" | "percent"
    low: Fraction | None = None
    high: Fraction | None = None
    unit: str | None = None

    def describe(self) -> str:
        text = self.kind
        if self.low is not None or self.high is not None:
            text += f" {_bound(self.low)}..{_bound(self.high)}"
        if self.unit:
            text += f" {self.unit}"
        return text

    @property
    def integral(self) -> bool:
        return self.kind in ("int", "percent")

    def with_bounds(self, low: Fraction | None, high: Fraction | None) -> Numeric:
        return replace(self, low=low, high=high)

    def contains(self, value: Fraction) -> bool:
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)


def _bound(value: Fraction | None) -> str:
    if value is None:
        return ""
    return str(value) if value.denominator != 1 else str(value.numerator)


@dataclass(frozen=True, slots=True)
class Flag(Type):
    def describe(self) -> str:
        return "flag"


@dataclass(frozen=True, slots=True)
class Dice(Type):
    def describe(self) -> str:
        return "dice"


@dataclass(frozen=True, slots=True)
class Text(Type):
    def describe(self) -> str:
        return "text"


@dataclass(frozen=True, slots=True)
class Enum(Type):
    """`one of {...}` (unordered) or `levels {a < b < c}` (ordered)."""

    members: tuple[str, ...]
    ordered: bool
    name: str | None = None

    def describe(self) -> str:
        if self.name:
            return self.name
        sep = " < " if self.ordered else ", "
        word = "levels" if self.ordered else "one of"
        return f"{word} {{{sep.join(self.members)}}}"


@dataclass(frozen=True, slots=True)
class Cell(Type):
    """A table cell of a movement-cost style table: a number, X (impassable) or N/A."""

    number: Numeric

    def describe(self) -> str:
        return f"{self.number.describe()} or X or N/A"


INT = Numeric("int")
NUMBER = Numeric("number")
FLAG = Flag()
DICE = Dice()
TEXT = Text()


def same_kind(a: Type, b: Type) -> bool:
    """Whether a value of type b may stand where a is expected (ignoring intervals)."""
    if isinstance(a, Numeric) and isinstance(b, Numeric):
        return True
    if isinstance(a, Enum) and isinstance(b, Enum):
        return a.members == b.members
    if isinstance(a, Cell):
        return isinstance(b, (Numeric, Cell))
    return type(a) is type(b)


# ---------------------------------------------------------------- interval arithmetic


def interval_add(a: Numeric, b: Numeric) -> tuple[Fraction | None, Fraction | None]:
    low = None if a.low is None or b.low is None else a.low + b.low
    high = None if a.high is None or b.high is None else a.high + b.high
    return low, high


def interval_neg(a: Numeric) -> tuple[Fraction | None, Fraction | None]:
    return (None if a.high is None else -a.high, None if a.low is None else -a.low)


def interval_mul(a: Numeric, b: Numeric) -> tuple[Fraction | None, Fraction | None]:
    if None in (a.low, a.high, b.low, b.high):
        return None, None
    assert a.low is not None and a.high is not None and b.low is not None and b.high is not None
    products = [a.low * b.low, a.low * b.high, a.high * b.low, a.high * b.high]
    return min(products), max(products)


def interval_div(a: Numeric, b: Numeric) -> tuple[Fraction | None, Fraction | None]:
    if b.low is None or b.high is None or b.low <= 0 <= b.high:
        return None, None
    inverse = Numeric("number", 1 / b.high, 1 / b.low)
    return interval_mul(a, inverse)


def round_value(value: Fraction, mode: str) -> int:
    if mode == "up":
        return math.ceil(value)
    if mode == "down":
        return math.floor(value)
    return math.floor(value + Fraction(1, 2))


def interval_round(a: Numeric, mode: str) -> tuple[Fraction | None, Fraction | None]:
    low = None if a.low is None else Fraction(round_value(a.low, mode))
    high = None if a.high is None else Fraction(round_value(a.high, mode))
    return low, high
