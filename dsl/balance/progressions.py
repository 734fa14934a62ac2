"""The values of a varied input as sequences that make each value when it is asked for.

`--vary a=all` over `int 0..100000`, or `--vary x=0..2/0.001`, names a run of evenly spaced
numbers; a sweep reads them by position (rows.py), so holding them as a `range` (or `Steps`,
its exact-fraction twin) keeps the memory of an axis the same whatever its length, and whatever
`--limit` allows.  Several items of one `--vary` are joined end to end (`Joined`); `Gathered`
builds that join, keeping each value once as `--vary` always has.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, overload

Number = int | Fraction


def plain_number(value: Fraction) -> Number:
    """A whole Fraction as an int, the way a resolver returns it."""
    return value.numerator if value.denominator == 1 else value


@dataclass(frozen=True)
class Steps(Sequence[Number]):
    """LOW, LOW + STEP, ... (LENGTH numbers): a `range` of exact fractions."""

    low: Fraction
    step: Fraction
    length: int

    def __len__(self) -> int:
        return self.length

    @overload
    def __getitem__(self, index: int) -> Number: ...

    @overload
    def __getitem__(self, index: slice) -> Steps: ...

    def __getitem__(self, index: int | slice) -> Number | Steps:
        if isinstance(index, slice):
            positions = range(self.length)[index]
            return Steps(self.low + positions.start * self.step, self.step * positions.step, len(positions))
        if index < 0:
            index += self.length
        if not 0 <= index < self.length:
            raise IndexError("Steps index out of range")
        return plain_number(self.low + index * self.step)

    def __iter__(self) -> Iterator[Number]:
        for index in range(self.length):
            yield plain_number(self.low + index * self.step)

    def __contains__(self, value: object) -> bool:
        return self._position(value) is not None

    def index(self, value: Any, start: int = 0, stop: int | None = None) -> int:
        position = self._position(value)
        if position is None or position not in range(self.length)[start:stop]:
            raise ValueError(f"{value!r} is not in the steps")
        return position

    def _position(self, value: object) -> int | None:
        if isinstance(value, bool) or not isinstance(value, (int, Fraction)) or self.length == 0:
            return None
        offset = (value - self.low) / self.step
        if offset.denominator != 1 or not 0 <= offset < self.length:
            return None
        return int(offset)


Progression = range | Steps
"""Evenly spaced numbers: a `range` of whole numbers, `Steps` of fractions."""


@dataclass(frozen=True)
class Joined(Sequence[Any]):
    """PIECES end to end, read by position without copying them."""

    pieces: tuple[Sequence[Any], ...]
    starts: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        starts = [0]
        for piece in self.pieces:
            starts.append(starts[-1] + len(piece))
        object.__setattr__(self, "starts", tuple(starts))

    def __len__(self) -> int:
        return self.starts[-1]

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Any, ...]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return tuple(self[position] for position in range(len(self))[index])
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("Joined index out of range")
        at = bisect.bisect_right(self.starts, index) - 1
        return self.pieces[at][index - self.starts[at]]

    def __iter__(self) -> Iterator[Any]:
        for piece in self.pieces:
            yield from piece

    def __contains__(self, value: object) -> bool:
        return any(holds(piece, value) for piece in self.pieces)

    def index(self, value: Any, start: int = 0, stop: int | None = None) -> int:
        wanted = range(len(self))[start:stop]
        for at, piece in enumerate(self.pieces):
            if holds(piece, value):
                position = self.starts[at] + piece.index(value)
                if position in wanted:
                    return position
        raise ValueError(f"{value!r} is not in the values")


class Gathered:
    """The values of one `--vary`, in the order given, each once: single values are kept in a
    list, runs of numbers as progressions.  A run that repeats some value given before it is
    written out without those values when it is short enough (FEW values); a longer one is
    refused, as writing it out would cost memory in proportion to its length."""

    def __init__(self, few: int) -> None:
        self._few = few
        self._runs: list[Progression] = []
        self._pieces: list[Sequence[Any]] = []
        self._loose: list[Any] = []
        self._seen: set[Any] = set()
        self.count = 0

    def add(self, value: Any) -> None:
        if value in self._seen or any(holds(run, value) for run in self._runs):
            return
        self._seen.add(value)
        self._loose.append(value)
        self.count += 1

    def add_run(self, run: Progression) -> bool:
        """Add the numbers of RUN not given before; False (and nothing added) if RUN is too long
        to be written out and repeats some of them."""
        repeats = any(holds(run, value) for value in self._seen) or any(
            shares_value(run, other) for other in self._runs
        )
        if not repeats:
            if self._loose:
                self._pieces.append(tuple(self._loose))
                self._loose = []
            self._runs.append(run)
            self._pieces.append(run)
            self.count += len(run)
            return True
        if len(run) > self._few:
            return False
        for value in run:
            self.add(value)
        return True

    def values(self) -> Sequence[Any]:
        pieces = [*self._pieces, tuple(self._loose)] if self._loose else list(self._pieces)
        if len(pieces) == 1:
            return pieces[0]
        return Joined(tuple(pieces))


def holds(values: Sequence[Any], value: object) -> bool:
    """VALUE in VALUES, at once for a range: `in` on a range is worked out for an int, but
    searched value by value for anything else (a fraction, a name)."""
    if isinstance(values, range):
        return type(value) is int and value in values
    return value in values


def shares_value(first: Progression, second: Progression) -> bool:
    """Whether two runs of evenly spaced numbers have a number in common (worked out, not
    searched: the numbers both reach are those of one run whose step is the steps' least
    common multiple)."""
    if len(first) == 0 or len(second) == 0:
        return False
    if len(first) == 1:
        return holds(second, first[0])
    if len(second) == 1:
        return holds(first, second[0])
    low_1, step_1, high_1 = _bounds(first)
    low_2, step_2, high_2 = _bounds(second)
    scale = math.lcm(*(number.denominator for number in (low_1, step_1, low_2, step_2)))
    a_1, d_1, h_1 = int(low_1 * scale), int(step_1 * scale), int(high_1 * scale)
    a_2, d_2, h_2 = int(low_2 * scale), int(step_2 * scale), int(high_2 * scale)
    lowest, highest = max(a_1, a_2), min(h_1, h_2)
    if lowest > highest:
        return False
    common = math.gcd(d_1, d_2)
    if (a_2 - a_1) % common:
        return False
    modulus = d_2 // common
    first_common = a_1 + d_1 * (((a_2 - a_1) // common * pow(d_1 // common, -1, modulus)) % modulus)
    period = d_1 // common * d_2
    above = first_common + -((first_common - lowest) // period) * period  # the first at or above `lowest`
    return above <= highest


def _bounds(run: Progression) -> tuple[Fraction, Fraction, Fraction]:
    """The lowest number, the (positive) step and the highest number of a run of two or more."""
    first, second, last = Fraction(run[0]), Fraction(run[1]), Fraction(run[-1])
    step = second - first
    return (first, step, last) if step > 0 else (last, -step, first)
