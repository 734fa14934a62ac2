"""The resolver runtime: the part of every generated module that is the same in all of them.

The code generator copies everything below the body marker into each module it writes, so a
module is self-contained (standard library only) and an app can copy one file in.  The compiler
also imports this module directly: the cards show the chances of the same functions that a
module runs (it computes each dice distribution it needs once, when first asked), and
`rulecraft test` exercises exactly the code an app runs.
"""

from __future__ import annotations

import difflib
import functools
import math
import re
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import accumulate
from operator import add, itemgetter, sub
from types import MappingProxyType
from typing import Any, Final, Literal, TypeVar, cast

# rulecraft-runtime-body


class RuleInputError(ValueError):
    """A bad input to a resolver: unknown rule, unknown input, wrong type, or out of range.

    The message names the input and what it accepts; `resolve` raises nothing else for bad input.
    """


# ---------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class Special:
    """A table cell that is not a number: X (impassable) or N/A (not applicable)."""

    text: str

    def __str__(self) -> str:
        return self.text


IMPASSABLE: Final = Special("X")
NOT_APPLICABLE: Final = Special("N/A")

DIE_LADDER: Final = (2, 3, 4, 6, 8, 10, 12, 20)
"""Die sizes from smallest to largest, for stepping a die up or down."""


@dataclass(frozen=True, slots=True)
class Dice:
    """A dice expression: pools of dice and a flat bonus, summed, and scaled parts (a dice
    expression multiplied or divided after rolling, then rounded) or clamped ones (a dice
    expression kept at or above a bound, or at or below it).  Written as a rulebook writes it:
    `3d6`, `1d6+1d8+4`, `2d6-1`, `1d6/2 round up`, `2d6+(1d6/2 round down)`, `max(2d6-3, 0)`.

    Pools have at least one die of at least two sides; an expression without dice is a number
    (`Dice((), 4)` is `4`), and scaling one works the number out."""

    terms: tuple[tuple[int, int], ...] = ()
    bonus: int = 0
    parts: tuple[Scaled | Clamped, ...] = ()

    def __post_init__(self) -> None:
        """Refuse, when they are made, dice no one can roll (`3d-6`, `0d6`, `1.5d6`): RuleInputError,
        as for any bad input."""
        if not isinstance(self.terms, tuple):
            raise RuleInputError(f"the pools of dice are a tuple of (count, sides) pairs, not {_shown(self.terms)}")
        for term in self.terms:
            count, sides = term if isinstance(term, tuple) and len(term) == 2 else (None, None)
            if type(count) is not int or type(sides) is not int or count < 1 or sides < 2:
                raise RuleInputError(
                    f"{_shown(term)} is not a pool anyone can roll: at least one die of two sides or more"
                )
            if count.bit_length() > _MAX_BITS or sides.bit_length() > _MAX_BITS:
                raise RuleInputError(f"a pool of dice has numbers of at most {MAX_DIGITS} digits")
        if type(self.bonus) is not int or self.bonus.bit_length() > _MAX_BITS:
            raise RuleInputError(
                f"a dice bonus is a whole number of at most {MAX_DIGITS} digits, not {_shown(self.bonus)}"
            )
        if not isinstance(self.parts, tuple) or not all(isinstance(part, (Scaled, Clamped)) for part in self.parts):
            raise RuleInputError(f"the parts of dice are a tuple of Scaled or Clamped, not {_shown(self.parts)}")

    @classmethod
    def pool(cls, count: int, sides: int) -> Dice:
        """`count` dice of `sides` sides; none at all (a count of 0 or less) is the number 0."""
        return cls(((count, sides),)) if count > 0 else cls()

    @property
    def constant(self) -> bool:
        return not self.terms and not self.parts

    def __str__(self) -> str:
        if not self.terms and not self.bonus and len(self.parts) == 1:
            return self.parts[0].text()
        items = [f"{count}d{sides}" for count, sides in self.terms] + [f"({p.text()})" for p in self.parts]
        text = "+".join(items)
        if self.bonus:
            text = f"{text}{self.bonus:+d}" if text else str(self.bonus)
        return text or "0"

    @classmethod
    def parse(cls, text: str) -> Dice:
        """Read a dice expression as `str` writes it (spaces allowed; `d20` is `1d20`)."""
        reader = _DiceReader(text)
        value = reader.expression()
        reader.end()
        return value

    def plus(self, other: Dice | int) -> Dice:
        if isinstance(other, Dice):
            return Dice(self.terms + other.terms, self.bonus + other.bonus, self.parts + other.parts)
        return Dice(self.terms, self.bonus + other, self.parts)

    def with_dice(self, delta: int) -> Dice:
        """Add or remove dice of the first kind in the expression; a pool never drops below one die."""
        if self.terms:
            count, sides = self.terms[0]
            return Dice(((max(count + delta, 1), sides), *self.terms[1:]), self.bonus, self.parts)
        if self.parts:
            first = self.parts[0]
            return Dice(self.terms, self.bonus, (first.rebuilt(first.dice.with_dice(delta)), *self.parts[1:]))
        return self

    def first_count(self) -> int:
        """How many dice of the first kind the expression has (0 for a number)."""
        if self.terms:
            return self.terms[0][0]
        return self.parts[0].dice.first_count() if self.parts else 0

    def stepped(self, steps: int) -> Dice:
        """Move every die up or down the ladder d2 < d3 < d4 < d6 < d8 < d10 < d12 < d20."""
        return Dice(
            tuple((count, step_die(sides, steps)) for count, sides in self.terms),
            self.bonus,
            tuple(p.rebuilt(p.dice.stepped(steps)) for p in self.parts),
        )

    def scaled(self, factor: Fraction | int, rounding: str | None) -> Dice:
        """The expression multiplied by `factor` after rolling, then rounded (a number is
        worked out: `7 / 2 round up` is 4)."""
        factor = Fraction(factor)
        if self.constant:
            value = self.bonus * factor
            if value.denominator != 1 and rounding is None:
                raise ValueError(f"{self} * {factor} is not a whole number: say how to round it")
            return Dice((), round_value(value, rounding or "down"))
        if factor == 1:
            return self
        return Dice((), 0, (Scaled(self, factor, rounding),))

    def clamped(self, op: Literal["max", "min"], bound: int) -> Dice:
        """The rolled total kept at or above `bound` (`max`) or at or below it (`min`): what is
        left after armour never goes below 0, `max(2d6-3, 0)` (a number is worked out)."""
        if self.constant:
            return Dice((), max(self.bonus, bound) if op == "max" else min(self.bonus, bound))
        return Dice((), 0, (Clamped(self, op, bound),))

    def totals(self, limit: int = 1_000_000) -> dict[int, Fraction]:
        """The exact chance of every total.  ValueError, before any work, past the bounds: a pool
        of more than 100 dice or 1000 sides, dice times totals past 2,000,000, or more than `limit`
        pairs of totals combined with a scaled part (`3d6 * 10`).

        The dice are added one by one with running sums (`_add_dice`): 50d100 + 50d100 costs what
        100d100 costs, never the product of the two pools' totals; counts are whole numbers over
        one denominator until the end."""
        self.check_size()
        ways = [1]
        low, denominator = self.bonus, 1
        for count, sides in self.terms:
            ways = _add_dice(ways, count, sides)
            low += count
            denominator *= sides**count
        result = {low + index: way for index, way in enumerate(ways) if way}
        for part in self.parts:
            chances = part.dice.totals(limit)
            scale = math.lcm(*(p.denominator for p in chances.values()))
            piece: dict[int, int] = {}
            for total, chance in chances.items():
                key = part.value(total)
                piece[key] = piece.get(key, 0) + chance.numerator * (scale // chance.denominator)
            if len(result) * len(piece) > limit:
                raise ValueError(f"{self} has too many totals to work out exactly")
            combined: dict[int, int] = {}
            for a, wa in result.items():
                for b, wb in piece.items():
                    combined[a + b] = combined.get(a + b, 0) + wa * wb
            result = combined
            denominator *= scale
        return {total: Fraction(result[total], denominator) for total in sorted(result)}

    def check_size(self) -> None:
        """ValueError when the distribution is past the bounds `totals` works within."""
        for count, sides in self.terms:
            if count > _MAX_POOL_DICE or sides > _MAX_POOL_SIDES:
                raise ValueError(
                    f"{self} has too many totals to work out exactly: at most {_MAX_POOL_DICE} dice of at most"
                    f" {_MAX_POOL_SIDES} sides in a pool"
                )
        dice = sum(count for count, _ in self.terms)
        span = 1 + sum(count * (sides - 1) for count, sides in self.terms)
        if dice * span > _MAX_DICE_WORK:
            raise ValueError(
                f"{self} has too many totals to work out exactly: {dice} dice with {span:,} possible totals"
                f" (dice times totals at most {_MAX_DICE_WORK:,})"
            )
        for part in self.parts:
            part.dice.check_size()

    def chances(self) -> Chances:
        """The exact distribution of the total, to ask questions of: `.mean`, `.at_least(6)`."""
        return Chances.of(self)

    @property
    def low(self) -> int:
        return int(self.chances().low)

    @property
    def high(self) -> int:
        return int(self.chances().high)

    @property
    def mean(self) -> Fraction:
        return self.chances().mean

    def chance(self, total: int) -> Fraction:
        """P(the total is exactly `total`)."""
        return self.chances().chance(total)

    def at_least(self, total: Fraction | int) -> Fraction:
        """P(the total is `total` or more): "at least 6 targets"."""
        return self.chances().at_least(total)

    def at_most(self, total: Fraction | int) -> Fraction:
        """P(the total is `total` or less)."""
        return self.chances().at_most(total)


@dataclass(frozen=True, slots=True)
class Scaled:
    """A dice expression multiplied by `factor` after rolling, then rounded (`rounding` is None
    only when the factor is whole)."""

    dice: Dice
    factor: Fraction
    rounding: str | None

    def text(self) -> str:
        inner = str(self.dice)
        if len(self.dice.terms) + len(self.dice.parts) + (1 if self.dice.bonus else 0) > 1:
            inner = f"({inner})"
        factor = self.factor
        scale = f"/{factor.denominator}" if factor.numerator == 1 else f"*{factor}"
        return inner + scale + (f" round {self.rounding}" if self.rounding else "")

    def value(self, total: int) -> int:
        """What a rolled total of `dice` becomes."""
        scaled = total * self.factor
        return round_value(scaled, self.rounding) if self.rounding else int(scaled)

    def rebuilt(self, dice: Dice) -> Scaled:
        return Scaled(dice, self.factor, self.rounding)


@dataclass(frozen=True, slots=True)
class Clamped:
    """A dice expression kept at or above `bound` (`op` max) or at or below it (`op` min)."""

    dice: Dice
    op: Literal["max", "min"]
    bound: int

    def text(self) -> str:
        return f"{self.op}({self.dice}, {self.bound})"

    def value(self, total: int) -> int:
        return max(total, self.bound) if self.op == "max" else min(total, self.bound)

    def rebuilt(self, dice: Dice) -> Clamped:
        return Clamped(dice, self.op, self.bound)


class _DiceReader:
    """Reads the notation `Dice.__str__` writes."""

    _TOKEN = re.compile(
        r"\s*(?:(\d*)[dD](\d+)|(\d+)(?:/(\d+))?|(round)\s+(up|down|nearest)|(max|min)\s*\(|([-+*/(),]))"
    )

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, tuple[str, ...]]] = []
        position = 0
        stripped = text.rstrip()
        while position < len(stripped):
            match = self._TOKEN.match(stripped, position)
            if match is None or match.end() == position:
                raise ValueError(f"cannot read dice `{_clip(text)}`")
            if any(len(group) > MAX_DIGITS for group in match.groups() if group):
                raise ValueError(f"a number in dice has at most {MAX_DIGITS} digits")
            position = match.end()
            if match.group(2) is not None:
                self.tokens.append(("pool", (match.group(1) or "1", match.group(2))))
            elif match.group(3) is not None:
                self.tokens.append(("number", (match.group(3), match.group(4) or "1")))
            elif match.group(5) is not None:
                self.tokens.append(("round", (match.group(6),)))
            elif match.group(7) is not None:
                self.tokens.append(("clamp", (match.group(7),)))
            else:
                self.tokens.append((match.group(8), ()))
        if not self.tokens:
            raise ValueError("empty dice expression")
        self.index = 0

    def _peek(self) -> str:
        return self.tokens[self.index][0] if self.index < len(self.tokens) else "end"

    def _take(self) -> tuple[str, tuple[str, ...]]:
        if self.index >= len(self.tokens):
            raise ValueError(f"cannot read dice `{_clip(self.text)}`: it ends too soon")
        token = self.tokens[self.index]
        self.index += 1
        return token

    def end(self) -> None:
        if self.index != len(self.tokens):
            raise ValueError(f"cannot read dice `{_clip(self.text)}`")

    def expression(self) -> Dice:
        value = self.item(1)
        while self._peek() in ("+", "-"):
            sign = 1 if self._take()[0] == "+" else -1
            value = value.plus(self.item(sign))
        if self._peek() in ("*", "/"):
            value = self.scale(value)
        return value

    def item(self, sign: int) -> Dice:
        kind, values = self._take()
        if kind == "number":
            if values[1] != "1":
                raise ValueError(f"cannot read dice `{_clip(self.text)}`: a bonus is a whole number")
            return Dice((), sign * int(values[0]))
        if sign < 0:
            raise ValueError(f"cannot read dice `{_clip(self.text)}`: dice are added, not subtracted")
        if kind == "pool":
            count, sides = int(values[0]), int(values[1])
            if count < 1 or sides < 2:
                raise ValueError(f"`{count}d{sides}` is not a roll anyone can make")
            return Dice(((count, sides),))
        if kind == "(":
            inner = self.expression()
            if self._take()[0] != ")":
                raise ValueError(f"cannot read dice `{_clip(self.text)}`: a bracket is not closed")
            return inner
        if kind == "clamp":
            inner = self.expression()
            if self._take()[0] != ",":
                raise ValueError(f"cannot read dice `{_clip(self.text)}`: {values[0]}(DICE, NUMBER)")
            negative = self._peek() == "-"
            if negative:
                self._take()
            bound_kind, bound = self._take()
            if bound_kind != "number" or bound[1] != "1" or self._take()[0] != ")":
                raise ValueError(f"cannot read dice `{_clip(self.text)}`: {values[0]}(DICE, NUMBER)")
            return inner.clamped("max" if values[0] == "max" else "min", -int(bound[0]) if negative else int(bound[0]))
        raise ValueError(f"cannot read dice `{_clip(self.text)}`")

    def scale(self, value: Dice) -> Dice:
        operator = self._take()[0]
        kind, values = self._take()
        if kind != "number":
            raise ValueError(f"cannot read dice `{_clip(self.text)}`: dice are scaled by a number")
        factor = Fraction(int(values[0]), int(values[1]))
        if operator == "/":
            if factor == 0:
                raise ValueError(f"cannot read dice `{_clip(self.text)}`: division by zero")
            factor = 1 / factor
        rounding = self._take()[1][0] if self._peek() == "round" else None
        if rounding is None and factor.denominator != 1:
            raise ValueError(f"cannot read dice `{_clip(self.text)}`: say how the division rounds")
        return value.scaled(factor, rounding)


Value = int | Fraction | bool | str | Dice | Special
"""A value of an input or stat: a number (int, or Fraction when not whole), a flag, the name of
a member of an enumeration, text, a dice expression, or a table's X / N/A."""


def step_die(sides: int, steps: int) -> int:
    if sides not in DIE_LADDER:
        return sides
    index = min(max(DIE_LADDER.index(sides) + steps, 0), len(DIE_LADDER) - 1)
    return DIE_LADDER[index]


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


# ---------------------------------------------------------------------------- distributions


@dataclass(frozen=True, slots=True)
class Distribution:
    """The exact distribution of a dice total: `at_most[i]` outcomes give a total <= low + i.

    `limit` is set when the totals go on without end (exploding dice): the chances are worked out
    up to it, and asking beyond it is an error, never a wrong answer."""

    low: int
    denominator: int
    at_most: tuple[int, ...]
    limit: int | None = None
    uniform: tuple[int, int] | None = field(default=None, compare=False, repr=False)
    """(count, sides) when the total is the sum of `count` dice each showing one of `sides`
    consecutive faces, equally likely (3d6, 4dF): `difference` adds such dice with running sums."""

    @property
    def high(self) -> int:
        return self.low + len(self.at_most) - 1

    def count_at_most(self, total: int) -> int:
        index = total - self.low
        if index < 0:
            return 0
        if index >= len(self.at_most):
            if self.limit is not None:
                raise ValueError(f"the chance of totals above {self.limit} was not worked out")
            return self.denominator
        return self.at_most[index]

    def at_most_p(self, total: Fraction | int) -> Fraction:
        return Fraction(self.count_at_most(math.floor(total)), self.denominator)

    def between_p(self, low: Fraction | int, high: Fraction | int) -> Fraction:
        """P(low <= total <= high)."""
        below = self.count_at_most(math.ceil(low) - 1)
        return Fraction(max(self.count_at_most(math.floor(high)) - below, 0), self.denominator)

    def chances(self) -> dict[int, Fraction]:
        """The chance of each total that can come up (up to `limit`, if set)."""
        found: dict[int, Fraction] = {}
        previous = 0
        for index, cumulative in enumerate(self.at_most):
            if cumulative != previous:
                found[self.low + index] = Fraction(cumulative - previous, self.denominator)
            previous = cumulative
        return found

    def compare_p(self, op: str, target: Fraction | int) -> Fraction:
        """P(total op target) for op in <, <=, >, >=, ==, !=."""
        if op == "<=":
            return self.at_most_p(target)
        if op == "<":
            return Fraction(self.count_at_most(math.ceil(target) - 1), self.denominator)
        if op == ">":
            return 1 - self.at_most_p(target)
        if op == ">=":
            return 1 - Fraction(self.count_at_most(math.ceil(target) - 1), self.denominator)
        exact = self.between_p(target, target) if Fraction(target).denominator == 1 else Fraction(0)
        return exact if op == "==" else 1 - exact


def listed_reach(count: int, sides: int, keep: str | None) -> int:
    """The highest total a pool's chances are listed for: its highest face total; of exploding
    dice, which have no highest total, twice that (above it, the chance of the rest is told as
    one figure).  Resolvers and the sheet's odds grid list exploding dice this far."""
    return count * sides * (2 if keep == "exploding" else 1)


def distribution(count: int, sides: int, keep: str | None = None, horizon: int | None = None) -> Distribution:
    """The exact distribution of a pool's total.

    `keep` says what of the dice counts: None, the sum of them all; `highest` or `lowest`, one
    die; `highest 3` or `lowest 2`, the sum of that many (`highest 3 of 5d10`); `fate`, the sum
    of Fate dice (faces -1, 0, +1; `sides` is 3); `exploding`, the sum of dice that are rolled
    again, and added, each time they show their highest face (`horizon`: the highest total whose
    chance is needed, for an exploding total has no highest value)."""
    if keep is None:
        return _from_ways(count, sides**count, _add_dice([1], count, sides), (count, sides))
    if keep == "fate":
        return _from_ways(-count, 3**count, _add_dice([1], count, 3), (count, 3))
    if keep == "exploding":
        return _exploding(count, sides, count if horizon is None else horizon)
    side, _, kept = keep.partition(" ")
    total = sides**count
    if not kept:
        if side == "highest":
            return Distribution(1, total, tuple(x**count for x in range(1, sides + 1)))
        return Distribution(1, total, tuple(total - (sides - x) ** count for x in range(1, sides + 1)))
    return _kept(count, sides, side, int(kept))


def _from_ways(low: int, denominator: int, ways: list[int], uniform: tuple[int, int] | None = None) -> Distribution:
    return Distribution(low, denominator, tuple(accumulate(ways)), uniform=uniform)


def _kept(count: int, sides: int, side: str, kept: int) -> Distribution:
    """The sum of the `kept` highest (or lowest) of `count` dice.  Faces are taken from the kept
    end inwards: for each face, how many dice show it (all arrangements counted by binomials),
    and how many of those are still kept."""
    kept = min(kept, count)
    faces = range(sides, 0, -1) if side == "highest" else range(1, sides + 1)
    # (dice placed, dice kept) -> {sum of the kept: arrangements}
    states: dict[tuple[int, int], dict[int, int]] = {(0, 0): {0: 1}}
    for face in faces:
        following: dict[tuple[int, int], dict[int, int]] = {}
        for (placed, taken), sums in states.items():
            for showing in range(count - placed + 1):
                ways = math.comb(count - placed, showing)
                more = min(showing, kept - taken)
                key = (placed + showing, taken + more)
                bucket = following.setdefault(key, {})
                for value, arrangements in sums.items():
                    total = value + more * face
                    bucket[total] = bucket.get(total, 0) + arrangements * ways
        states = following
    sums = states.get((count, kept), {})
    low, high = min(sums), max(sums)
    return _from_ways(low, sides**count, [sums.get(v, 0) for v in range(low, high + 1)])


def _exploding(count: int, sides: int, horizon: int) -> Distribution:
    """Exploding dice, exactly, for every total up to `horizon`: a die showing its highest face
    is rolled again and added, so a die shows s*k + r (k explosions, then r in 1..s-1) with
    chance (1/s)^(k+1).  Totals above the horizon are not listed (`Distribution.limit`)."""
    if sides < 2:
        raise ValueError("an exploding die has two sides or more")
    horizon = max(horizon, count)
    depth = horizon // sides + 1  # explosions a die can have below the horizon, and one more
    denominator = sides ** (count * depth)
    one = [0] * (horizon + 1)  # ways (over sides ** depth) of each total of one die
    for explosions in range(depth):
        for rest in range(1, sides):
            value = sides * explosions + rest
            if value <= horizon:
                one[value] = sides ** (depth - explosions - 1)
    ways = [1] + [0] * horizon  # no dice yet: total 0
    for _ in range(count):
        ways = [sum(ways[t - v] * one[v] for v in range(1, t + 1) if one[v]) for t in range(horizon + 1)]
    low = count
    found = _from_ways(low, denominator, ways[low:])
    return Distribution(found.low, found.denominator, found.at_most, limit=horizon)


def difference(first: Distribution, second: Distribution) -> Distribution:
    """The distribution of first - second, both rolled independently.

    Minus `second` is `second` mirrored (its counts in reverse order), so the difference is a sum:
    the mirror's counts convolved with `first`'s.  When either side is a sum of uniform dice, the
    other side's counts have its dice added one by one (running sums, as in `distribution`; the
    mirror of such a sum is the same sum): `5d1000 vs 5d1000` is the work of one 10d1000 pool.
    Only other distributions are multiplied out term by term (two highest-die pools: 1,000 by 1,000).
    """
    counts = _counts(first)
    mirrored = _counts(second)[::-1]
    if first.uniform is not None:
        ways = _add_dice(mirrored, *first.uniform)
    elif second.uniform is not None:
        ways = _add_dice(counts, *second.uniform)
    else:
        ways = [0] * (len(counts) + len(mirrored) - 1)
        for offset, times in enumerate(mirrored):
            end = offset + len(counts)
            ways[offset:end] = map(add, ways[offset:end], [x * times for x in counts])
    return Distribution(first.low - second.high, first.denominator * second.denominator, tuple(accumulate(ways)))


def _add_dice(ways: list[int], count: int, sides: int) -> list[int]:
    """`ways` (ways to roll each total, lowest first) with `count` dice of `sides` sides added.

    Each new total sums a window of `sides` old ones: the difference of two running sums, read
    from the running sums padded with `sides - 1` zeros before and the grand total after.
    """
    for _ in range(count):
        running = list(accumulate(ways, initial=0))
        padded = [0] * (sides - 1) + running + [running[-1]] * (sides - 1)
        size = len(ways) + sides - 1
        ways = list(map(sub, padded[sides : sides + size], padded[:size]))
    return ways


def _counts(dist: Distribution) -> list[int]:
    return list(map(sub, dist.at_most, (0, *dist.at_most[:-1])))


# ---------------------------------------------------------------------------- the resolution


@dataclass(frozen=True, slots=True)
class RulebookInfo:
    name: str
    title: str
    source: str | None
    version: str | None
    notes: tuple[Note, ...] = ()


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
            and value.bit_length() <= _MAX_BITS
        ):
            return value
        if kind == "flag":
            if isinstance(value, bool):
                return value
            raise self._error(value, "True or False")
        if kind in ("one of", "levels"):
            if isinstance(value, str) and value in self.members:
                return value
            hint = _close(value, self.members) if isinstance(value, str) and len(value) <= 100 else ""
            raise self._error(value, "one of " + ", ".join(self.members), hint)
        if kind == "text":
            if isinstance(value, str):
                half = _surrogate(value)
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
            number = _as_number(value)
        except _HugeNumber:
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
        extra = f" ({_clip(detail, 200)})" if detail else ""
        return RuleInputError(f"input `{self.name}` must be {wanted}, not {_shown(value)}{extra}")


MAX_DIGITS: Final = 1000
"""The most digits of a number given to a resolver (its numerator and denominator each): far
beyond any game, and short of the 4,300 digits where Python stops turning text into numbers."""

_MAX_BITS: Final = 3322
"""MAX_DIGITS in bits (10 ** 1000 < 2 ** 3322): the size checked without writing a number out."""


class _HugeNumber(Exception):
    """A number of more than MAX_DIGITS digits."""


def _shown(value: object) -> str:
    """A value as an error message quotes it: text in quotes, and nothing a page long (a number
    of 5,000 digits cannot even be written out by `repr`)."""
    if isinstance(value, str):
        if len(value) > 60:
            return f'"{_printable(value[:40])}\u2026{_printable(value[-8:])}" ({len(value)} characters)'
        return f'"{_printable(value)}"'
    if isinstance(value, int) and value.bit_length() > 200:
        return f"a number of {math.floor(value.bit_length() * math.log10(2)) + 1} digits or so"
    if isinstance(value, Fraction) and max(value.numerator.bit_length(), value.denominator.bit_length()) > 200:
        return "a fraction of hundreds of digits"
    try:
        text = repr(value)
    except ValueError:
        return f"a {type(value).__name__}"
    return text if len(text) <= 80 else text[:72] + "\u2026"


def _as_number(value: object) -> Fraction | None:
    """A value as an exact number; None if it is none; _HugeNumber past MAX_DIGITS digits."""
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
            raise _HugeNumber
        try:
            number = Fraction(text)
        except ZeroDivisionError:
            return None
    elif type(value).__name__ == "Decimal":
        try:
            if not value.is_finite() or abs(value.adjusted()) > MAX_DIGITS:  # type: ignore[attr-defined]
                raise _HugeNumber if value.is_finite() else ValueError  # type: ignore[attr-defined]
            number = Fraction(str(value))
        except (ValueError, ZeroDivisionError, ArithmeticError):
            return None
    else:
        return None
    if number.numerator.bit_length() > _MAX_BITS or number.denominator.bit_length() > _MAX_BITS:
        raise _HugeNumber
    return number


_NUMBER_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]+)?|[0-9]+/[0-9]+)", re.ASCII)
"""Numbers written as text: 12, -3, 0.7, 7/10 (no exponents, separators or other digits)."""


def _close(word: str, choices: Sequence[str]) -> str:
    """A "did you mean" hint: the same word in another case, else the closest spelling."""
    same = [c for c in choices if c.lower() == word.lower()]
    matches = same or difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean `{matches[0]}`?" if matches else ""


Status = Literal["applied", "suppressed", "overridden", "capped"]
"""What became of a modifier whose condition held: it counted; stacking suppressed it; a later
`= value` or absolute grade overrode it; or a limit stopped it (a pool keeps at least one die)."""


# ---------------------------------------------------------------------------- JSON forms
#
# The data contract (docs/contract.md; the JSON Schema is `rulecraft schema resolution`): whole
# numbers are JSON integers; any other exact number is {"fraction": "7/2", "float": 3.5}; a
# probability is always that object (0 and 1 too); dice are {"dice": "2d6+1", "min": 3, ...};
# the table cells X and N/A are {"special": "X"}.


def number_json(value: int | Fraction) -> object:
    """A number as JSON: an integer, or {"fraction": "a/b", "float": ...} when not whole."""
    if type(value) is int:
        return value
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    fraction = Fraction(value)
    return {"fraction": f"{fraction.numerator}/{fraction.denominator}", "float": float(fraction)}


def probability_json(value: Fraction | int) -> dict[str, object]:
    fraction = Fraction(value)
    text = str(fraction.numerator) if fraction.denominator == 1 else f"{fraction.numerator}/{fraction.denominator}"
    return {"fraction": text, "float": float(fraction)}


def value_json(value: object) -> object:
    """The value of an input, stat, derived value or table cell as JSON."""
    if isinstance(value, (bool, str)) or value is None:
        return value
    if isinstance(value, (int, Fraction)):
        return number_json(value)
    if isinstance(value, Dice):
        return dice_json(value)
    if isinstance(value, Special):
        return {"special": value.text}
    return str(value)


def dice_json(dice: Dice) -> dict[str, object]:
    """Dice in their one notation, with their lowest, highest and average total and the chance of
    each total (none listed past a million combinations)."""
    try:
        totals = dice.totals(limit=_MAX_COMBINATIONS)
    except ValueError:
        return {"dice": str(dice), "min": None, "max": None, "mean": None, "distribution": None, "at_least": None}
    mean = sum((total * chance for total, chance in totals.items()), Fraction(0))
    return {
        "dice": str(dice),
        "min": min(totals),
        "max": max(totals),
        "mean": number_json(mean),
        "distribution": [{"total": total, "probability": probability_json(p)} for total, p in totals.items()],
        "at_least": [{"total": total, "probability": probability_json(p)} for total, p in _at_least(totals).items()],
    }


def _chances_json(chances: Mapping[int, Fraction], key: str) -> list[dict[str, object]]:
    return [{key: k, "probability": probability_json(p)} for k, p in chances.items()]


# ---------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class Modifier:
    """A modifier whose condition held: applied, or suppressed by stacking, or overridden."""

    spec: ModSpec
    amount: Value
    status: Status
    reason: str | None

    rule = property(lambda self: self.spec.rule)
    source = property(lambda self: self.spec.source)
    target = property(lambda self: self.spec.target)
    operation = property(lambda self: self.spec.op)
    text = property(lambda self: self.spec.text)
    group = property(lambda self: self.spec.group)
    label = property(lambda self: self.spec.label)

    @property
    def applied(self) -> bool:
        return self.status == "applied"

    def __repr__(self) -> str:
        return f"<Modifier {self.spec.text} ({self.spec.rule}): {self.status}>"

    def to_dict(self) -> dict[str, object]:
        spec = self.spec
        return {
            "target": spec.target,
            "operation": spec.op,
            "amount": value_json(self.amount),
            "text": spec.text,
            "label": spec.label,
            "rule": spec.rule,
            "source": spec.source,
            "group": spec.group,
            "status": self.status,
            "applied": self.status == "applied",
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class Consequence:
    """What an outcome does, with the chance of that outcome: "exhaustion +1: 9/20"."""

    outcome: str
    text: str
    probability: Fraction
    stat: str | None
    value: Value | None  # the stat's value if the outcome comes

    def to_dict(self) -> dict[str, object]:
        return {
            "outcome": self.outcome,
            "text": self.text,
            "probability": probability_json(self.probability),
            "stat": self.stat,
            "value": value_json(self.value),
        }


@dataclass(frozen=True, slots=True)
class Roll:
    """A roll the situation calls for, with its exact chance of success and of each outcome."""

    spec: RollSpec
    dice: str  # what is rolled, in the notation of dice: `1d20`, `highest 3 of 5d10`, `2d6 vs 2d6`
    bonus: int | Fraction  # added to the dice: `d20 + 5`
    comparison: str | None  # <=, >=, ... (`vs` for an opposed roll; None for a roll without a target)
    target: int | Fraction | None
    probability: Fraction | None  # of success (of winning); None for a roll without a target
    automatic: str | None  # "success" | "failure" when no dice need rolling
    outcomes: Mapping[str, Fraction]
    margins: Mapping[int, Fraction]  # `by margin` outcomes: the chance of each margin
    totals: Mapping[int, Fraction]  # a roll without a target: the chance of each total
    successes: Mapping[int, Fraction]  # a count: the chance of each number of dice meeting the target
    needed: int | None  # a count: how many dice must meet it
    consequences: tuple[Consequence, ...] = ()
    merged: tuple[Roll, ...] = ()  # the same roll asked for by other rules, rolled once with this one

    rule = property(lambda self: self.spec.rule)
    source = property(lambda self: self.spec.source)
    name = property(lambda self: self.spec.name)
    label = property(lambda self: self.spec.label)
    kind = property(lambda self: self.spec.kind)
    effects = property(lambda self: self.spec.outcomes)
    notes = property(lambda self: self.spec.notes)

    def __repr__(self) -> str:
        target = f" {self.comparison} {show(self.target)}" if self.target is not None else ""
        chance = f": {show(self.probability)}" if self.probability is not None else ""
        return f"<Roll {self.spec.name} {self.dice}{target}{chance}>"

    def to_dict(self) -> dict[str, object]:
        spec = self.spec
        return {
            "name": spec.name,
            "label": spec.label,
            "rule": spec.rule,
            "source": spec.source,
            "kind": spec.kind,
            "dice": self.dice,
            "bonus": number_json(self.bonus),
            "comparison": self.comparison,
            "target": None if self.target is None else number_json(self.target),
            "needed": self.needed,
            "probability": None if self.probability is None else probability_json(self.probability),
            "automatic": self.automatic,
            "outcomes": {k: probability_json(v) for k, v in self.outcomes.items()},
            "effects": dict(spec.outcomes),
            "margins": _chances_json(self.margins, "margin"),
            "totals": _chances_json(self.totals, "total"),
            "successes": _chances_json(self.successes, "successes"),
            "consequences": [x.to_dict() for x in self.consequences],
            "notes": list(spec.notes),
            "asked_by": list(self.asked_by),
            "merged": [
                {
                    "rule": x.spec.rule,
                    "source": x.spec.source,
                    "effects": dict(x.spec.outcomes),
                    "consequences": [c.to_dict() for c in x.consequences],
                    "notes": list(x.spec.notes),
                }
                for x in self.merged
            ],
        }

    @property
    def asked_by(self) -> tuple[str, ...]:
        """The rules that asked for this roll: its own, then those of the rolls merged into it."""
        return (self.spec.rule, *(x.spec.rule for x in self.merged))


@dataclass(frozen=True, slots=True)
class Restriction:
    """What the situation forbids: `text` is the whole sentence, "cannot fight in deep water"."""

    rule: str
    source: str | None
    what: str  # what is forbidden: "fight in deep water"

    @property
    def text(self) -> str:
        return f"cannot {self.what}"

    def to_dict(self) -> dict[str, object]:
        return {"what": self.what, "text": self.text, "rule": self.rule, "source": self.source}


@dataclass(frozen=True, slots=True)
class Note:
    """A note for the gamemaster; an erratum (with the words of the source it reads, `quote`); or
    a word about an input given to no effect (kind `input`)."""

    rule: str
    source: str | None
    text: str
    quote: str | None = None
    kind: str = "note"  # note | erratum | input

    @property
    def erratum(self) -> str | None:
        return self.quote

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "text": self.text, "quote": self.quote, "rule": self.rule, "source": self.source}


@dataclass(frozen=True, slots=True)
class TraceSpec:
    """What a trace entry is about, the same in every resolution: the clauses of its condition,
    as written, and the names each reads."""

    rule: str
    source: str | None
    item: str
    clauses: tuple[str, ...]
    names: tuple[tuple[str, ...], ...]
    verdict: str | None = None  # what a lookup found ("row 4..6"), said in place of "holds"


@dataclass(frozen=True, slots=True)
class TraceEntry:
    """Why one part of a rule did or did not apply: the clause that decided (the first that did not
    hold, or every clause when all held) and the values it read."""

    spec: TraceSpec
    decided: int  # the clause that did not hold; -1 when every clause held
    values: Mapping[str, Any]  # the situation's inputs and base values
    effective: Mapping[str, Any]  # its stats (after their modifiers) and derived values

    rule = property(lambda self: self.spec.rule)
    source = property(lambda self: self.spec.source)
    item = property(lambda self: self.spec.item)

    @property
    def applied(self) -> bool:
        return self.decided < 0

    @property
    def clause(self) -> str | None:
        clauses = self.spec.clauses
        if not clauses:
            return None
        return clauses[self.decided] if self.decided >= 0 else "; ".join(clauses)

    @property
    def reads(self) -> dict[str, Any]:
        names = self.spec.names
        chosen = names[self.decided : self.decided + 1] if self.decided >= 0 else names
        found: dict[str, Any] = {}
        for group in chosen:
            for name in group:
                if name.startswith("base "):
                    found[name] = self.values.get(name[5:])
                else:
                    found[name] = self.effective[name] if name in self.effective else self.values.get(name)
        return found

    @property
    def because(self) -> str:
        """Each clause that decided with what its condition came to (an `unless` decides when its
        condition holds), and the values read: "unless moved == 0: holds, because moved = 0"."""
        clauses = self.spec.clauses
        if not clauses:
            return "always applies"
        if self.spec.verdict is not None:
            said = f"{clauses[0]}: {self.spec.verdict}"
        elif self.decided >= 0:
            clause = clauses[self.decided]
            said = f"{clause}: {'holds' if clause.startswith('unless ') else 'does not hold'}"
        else:
            said = "; ".join(f"{c}: {'does not hold' if c.startswith('unless ') else 'holds'}" for c in clauses)
        reads = self.reads
        if not reads:
            return said
        values = " and ".join(f"{name} = {show(value)}" for name, value in reads.items())
        return f"{said}, because {values}"

    def __repr__(self) -> str:
        return f"<TraceEntry {self.spec.item} ({self.spec.rule}): {self.because}>"

    def to_dict(self) -> dict[str, object]:
        return {
            "rule": self.spec.rule,
            "source": self.spec.source,
            "item": self.spec.item,
            "applied": self.decided < 0,
            "clause": self.clause,
            "reads": {name: value_json(value) for name, value in self.reads.items()},
            "because": self.because,
        }


@dataclass(frozen=True, slots=True)
class TableRow:
    key: str
    values: Mapping[str, Value]
    steps: tuple[str, ...]
    probability: Fraction | None

    def to_dict(self) -> dict[str, object]:
        return {
            "key": self.key,
            "values": {k: value_json(v) for k, v in self.values.items()},
            "then": list(self.steps),
            "probability": None if self.probability is None else probability_json(self.probability),
        }


@dataclass(frozen=True, slots=True)
class TableResult:
    """A table consulted: the row the situation selects (if known) and every row's chance."""

    name: str
    title: str
    source: str | None
    dice: str | None
    keys: Mapping[str, Value]  # the inputs it is looked up by, with their values
    result: int | None  # the modified roll, when a roll was given
    selected: TableRow | None
    rows: tuple[TableRow, ...]

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "title": self.title,
            "source": self.source,
            "dice": self.dice,
            "keys": {k: value_json(v) for k, v in self.keys.items()},
            "result": self.result,
            "selected": None if self.selected is None else self.selected.to_dict(),
            "rows": [row.to_dict() for row in self.rows],
        }


@dataclass(frozen=True, slots=True)
class Resolution:
    """Everything a situation resolves to.  `to_dict()` is what `rulecraft resolve --json` prints."""

    rulebook: str
    rules: tuple[str, ...]
    inputs: Mapping[str, Value]  # every input and stat the rules read: the value given, or its default
    stats: Mapping[str, Value]  # every stat the rules read or change: its value after the rules
    derived: Mapping[str, Value]  # the values the rules derive
    modifiers: tuple[Modifier, ...]
    rolls: tuple[Roll, ...]
    restrictions: tuple[Restriction, ...]
    notes: tuple[Note, ...]
    tables: tuple[TableResult, ...]
    trace: tuple[TraceEntry, ...]
    sequence: SequenceResult | None = None  # resolved over rounds (`rounds=N`): each round, the totals
    chains: tuple[Chain, ...] = ()  # the whole procedures started by tables and outcomes that send on

    def roll(self, name: str, rule: str | None = None) -> Roll:
        """The roll called `name` (of `rule`, when several rules call for a roll of that name).

        RuleInputError if the situation calls for none, or for several and `rule` is not given.
        """
        found = [r for r in self.rolls if r.spec.name == name and (rule is None or rule in r.asked_by)]
        if len(found) == 1:
            return found[0]
        if found:
            rules = ", ".join(r.spec.rule for r in found)
            raise RuleInputError(f"several rules call for a roll `{_clip(name)}` ({rules}): say which with rule=")
        called = ", ".join(f"{r.spec.name} ({r.spec.rule})" for r in self.rolls) or "none"
        raise RuleInputError(f"no roll `{_clip(name)}` in this situation (rolls: {called})")

    def __repr__(self) -> str:
        parts = [f"{name} {show(value)}" for name, value in self.stats.items() if self.inputs.get(name) != value]
        parts += [f"{name} = {show(value)}" for name, value in self.derived.items()]
        parts += [repr(roll)[1:-1] for roll in self.rolls]
        parts += [item.text for item in self.restrictions]
        return f"<Resolution {', '.join(self.rules)}: {'; '.join(parts) or 'no effect'}>"

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "rulebook": self.rulebook,
            "rules": list(self.rules),
            "inputs": {k: value_json(v) for k, v in self.inputs.items()},
            "stats": {
                k: {"start": value_json(self.inputs.get(k)), "final": value_json(v)} for k, v in self.stats.items()
            },
            "derived": {k: value_json(v) for k, v in self.derived.items()},
            "modifiers": [x.to_dict() for x in self.modifiers],
            "rolls": [x.to_dict() for x in self.rolls],
            "restrictions": [x.to_dict() for x in self.restrictions],
            "notes": [x.to_dict() for x in self.notes],
            "tables": [x.to_dict() for x in self.tables],
            "trace": [x.to_dict() for x in self.trace],
            "chains": [x.to_dict() for x in self.chains],
        }
        if self.sequence is not None:
            data["sequence"] = self.sequence.to_dict()
        return data


# ---------------------------------------------------------------------------- compiled rules
#
# A generated module describes each rule as data: what it does (specs, the same in every
# resolution) under which conditions (clauses: small functions of a Scope).  `resolve_with`
# works a situation out in the order the values depend on each other (`Book.settle`), every
# value once: no laziness, no recursion.


class Scope:
    """The values expressions read: `v` the inputs (given, default, or worked out from a formula),
    `e` the stats after their modifiers and the derived values, as the situation settles them."""

    __slots__ = ("book", "e", "trace", "v")

    def __init__(self, book: Book, v: dict[str, Any], e: dict[str, Any], trace: list[TraceEntry]) -> None:
        self.book = book
        self.v = v
        self.e = e
        self.trace = trace

    def lookup(self, table: str, keys: tuple[Value, ...], column: str) -> Any:
        """A table cell; typed Any, as the checker has proven its type where it is used."""
        cell, lookup = _cell(self.book, table, keys, column)
        value = cell(self) if callable(cell) else cell
        self.trace.append(TraceEntry(lookup, -1, self.v, self.e))
        return value


def _cell(book: Book, table: str, keys: tuple[Value, ...], column: str) -> tuple[Amount, TraceSpec]:
    """A table cell (a value, or a function of the scope), with the trace of looking it up."""
    spec = book.tables[table]
    row = spec.row_for(keys)
    if row is None:
        raise RuleInputError(f"table `{table}` has no row for {show(keys[0])}")
    index = spec.columns.index(str(keys[1]) if len(spec.inputs) == 2 else column)
    shown = ", ".join(show(k) for k in keys)
    names = tuple((name,) for name in spec.inputs)
    lookup = TraceSpec(
        table, spec.source, f"look up {table}: row {row.key}", (f"{table}[{shown}]",), names, f"row {row.key}"
    )
    return row.cells[index], lookup


Clause = Callable[[Scope], bool]
"""One condition of a guard (`when` or `unless` already applied): holds in a scope or not."""

Amount = Any
"""A value known when compiling, or a function of the Scope computing it."""


@dataclass(frozen=True, slots=True)
class ModSpec:
    key: str
    rule: str
    source: str | None
    target: str
    op: str  # add | mul | div | set | min | max | grade | dice | step | shift
    text: str
    group: str | None
    stacking: str
    rounding: str | None
    condition: str
    label: str | None = None


@dataclass(frozen=True, slots=True)
class ChangeSpec:
    kind: str  # pool | dice | target | automatic
    pool: tuple[int, int, str | None] | None
    delta: int
    success: bool
    condition: str


@dataclass(frozen=True, slots=True)
class TierSpec:
    name: str
    op: str | None  # <= | >= on the total; None for natural and "otherwise"
    bound: Callable[[int | Fraction], Fraction | int] | None
    natural: tuple[int, int] | None = None  # the dice alone show low..high
    always: str | None = None  # "success" | "failure": decides the roll whatever the target


@dataclass(frozen=True, slots=True)
class ConsequenceSpec:
    """What an outcome of a roll changes (`on failure: exhaustion +1`) or brings into play."""

    outcome: str
    text: str
    target: str | None = None  # the stat it changes
    op: str | None = None
    value: Amount = None
    rounding: str | None = None


@dataclass(frozen=True, slots=True)
class RollSpec:
    key: str
    rule: str
    source: str | None
    name: str
    label: str | None
    kind: str  # check | total | count | resist | opposed | automatic
    pool: tuple[int, int, str | None] | None
    op: str | None
    against: tuple[int, int, str | None] | None
    success: bool
    outcomes: Mapping[str, str]
    margin_outcomes: tuple[str, ...]
    tiers: tuple[TierSpec, ...]
    ties: str | None
    notes: tuple[str, ...]
    condition: str
    consequences: tuple[ConsequenceSpec, ...] = ()
    steps: tuple[tuple[str, str], ...] = ()  # (outcome, step): the outcomes that send on to a table
    separate: bool = False  # never one roll with the same roll of another rule (`separate`)


@dataclass(frozen=True, slots=True)
class TextSpec:
    key: str
    rule: str
    source: str | None
    kind: str  # cannot | note | erratum
    text: str
    quote: str | None
    condition: str


@dataclass(frozen=True, slots=True)
class DeriveSpec:
    key: str
    rule: str
    source: str | None
    name: str
    condition: str


MODIFIER_KINDS: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {"number": ("scaling", "additions", "grade"), "dice": ("dice", "steps", "additions", "scaling")}
)
"""The kinds of modifier of a number (`int`, `number`, `percent`) and of a dice stat, in the order
a resolution applies them unless the book states another (`order MOV: additions before
scaling`).  `=`, `max` and `min` always come after them: they state the final value or its
bounds."""

ONE_AT_A_TIME: Final[Mapping[str, frozenset[str]]] = MappingProxyType(
    {"number": frozenset({"scaling"}), "dice": frozenset({"dice", "steps", "scaling"})}
)
"""The kinds whose modifiers apply one after the other, in the order the rules are named (or the
book's `order STAT: RULE before RULE`); additions add up and grades net out, in any order."""

KIND_OPS: Final[Mapping[str, frozenset[str]]] = MappingProxyType(
    {
        "scaling": frozenset({"mul", "div"}),
        "additions": frozenset({"add"}),
        "grade": frozenset({"grade"}),
        "dice": frozenset({"dice"}),
        "steps": frozenset({"step"}),
    }
)
"""The operations of each kind of modifier."""


@dataclass(frozen=True, slots=True)
class StatOrder:
    """The order a book states for a stat's modifiers: its kinds, first to last, and the rules
    whose modifiers of a kind applied one at a time take their places in this order."""

    kinds: tuple[str, ...]
    rules: tuple[str, ...] = ()


def in_rule_order(rules: Sequence[str], origins: Sequence[str]) -> list[int]:
    """The indexes of modifiers (by the rule each comes from) in the order they apply: those of
    the ranked `rules` in that order, in the places they take among the others, which keep
    theirs (a stable sort of the ranked ones alone, so every other order stays as named)."""
    rank = {rule: i for i, rule in enumerate(rules)}
    places = [i for i, origin in enumerate(origins) if origin in rank]
    moved = sorted(places, key=lambda i: rank[origins[i]])
    found = list(range(len(origins)))
    for place, index in zip(places, moved, strict=True):
        found[place] = index
    return found


@dataclass(frozen=True, slots=True)
class Grade:
    name: str
    step: int | None
    op: str
    value: Fraction
    rounding: str | None


@dataclass(frozen=True, slots=True)
class Step:
    """One part of a rule as a resolver meets it: a modifier, roll, text, derived value, or the
    rule it composes (`as OTHER`), with the clauses of its condition and the inputs each reads
    (`reads`: name and clause number; the number of clauses for what it reads once they hold)."""

    kind: str  # mod | roll | text | derive | part
    spec: Any  # ModSpec | RollSpec | TextSpec | DeriveSpec | the composed rule's name
    clauses: tuple[Clause, ...]
    trace: TraceSpec | None
    payload: Any = None  # a modifier's amount; a roll's values and changes; a derived value
    reads: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class RowSpec:
    low: int | None
    high: int | None
    member: str | None
    is_else: bool
    key: str
    cells: tuple[Amount, ...]  # values, or functions of the scope for cells that read inputs
    steps: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TableSpec:
    name: str
    title: str
    source: str | None
    pool: tuple[int, int, str | None] | None
    modifier: str | None
    sign: int
    inputs: tuple[str, ...]
    columns: tuple[str, ...]
    rows: tuple[RowSpec, ...]
    above: int | None
    becomes: int | None
    overflow_step: str | None
    notes: tuple[Note, ...] = ()
    depth: int | None = None  # `chain depth N`: rolls in a row a repeating chain is listed to

    def row_for(self, keys: tuple[Value, ...]) -> RowSpec | None:
        """The row a key selects (a number, a member, or a member pair for a two-way table)."""
        key = keys[0]
        numeric = isinstance(key, (int, Fraction)) and not isinstance(key, bool)
        for row in self.rows:
            if row.member is not None and row.member == key:
                return row
            if row.low is not None and numeric and row.low <= key and (row.high is None or key <= row.high):  # type: ignore[operator]
                return row
        for row in self.rows:
            if row.is_else:
                return row
        return None


@dataclass(frozen=True, slots=True)
class RuleInfo:
    name: str
    kind: str
    title: str
    source: str | None
    reads: tuple[str, ...]


@dataclass
class Book:
    info: RulebookInfo
    inputs: Mapping[str, InputSpec]
    rules: Mapping[str, RuleInfo]
    parts: Mapping[str, tuple[Step, ...]]
    tables: Mapping[str, TableSpec]
    grades: tuple[Grade, ...]
    resistance: Callable[[Fraction | int, Fraction | int], Fraction | int] | None
    resistance_pool: tuple[int, int, str | None] | None
    resistance_op: str | None
    settle: tuple[str, ...] = ()
    """Every value that settles (`stat X`, `base X`, `derive X`), each after what it reads."""
    orders: Mapping[str, StatOrder] = field(default_factory=dict)
    """The stats whose modifiers apply in an order the book states (`order STAT: ...`)."""
    defaults: dict[str, Any] = field(init=False)
    derived_inputs: frozenset[str] = field(init=False)
    """The inputs whose default is worked out from others (`InputSpec.derived`): told None, they
    take it (`resolve_rule`)."""
    order: dict[str, int] = field(init=False)
    pools: dict[tuple[int, int, str | None], Distribution] = field(init=False, default_factory=dict)
    differences: dict[tuple[tuple[int, int, str | None], tuple[int, int, str | None]], Distribution] = field(
        init=False, default_factory=dict
    )
    values: dict[Dice, Distribution] = field(init=False, default_factory=dict)
    """The distributions rolled so far, each computed once (`pool`, `pool_difference`, `dice`)."""
    steps: dict[
        tuple[str, ...], list[tuple[Step, tuple[Clause, ...], tuple[str, ...], tuple[tuple[str, ...], ...]]]
    ] = field(init=False, default_factory=dict)
    """The steps of each set of rules resolved together, with the `as` clauses around each (kept:
    an app resolves the same rules again and again)."""
    nodes: dict[tuple[str, ...], tuple[str, ...]] = field(init=False, default_factory=dict)
    """The values each set of rules settles, in order (kept, as `steps`)."""
    chains: dict[Any, Any] = field(init=False, default_factory=dict)
    """The rows of each roll a chain makes (`_chain_draws`), worked out once."""
    plans: dict[tuple[str, ...], _Plan] = field(init=False, default_factory=dict)
    """How each set of rules resolved together is worked out (kept, as `steps`)."""
    chances: dict[tuple[Any, ...], _Chances] = field(init=False, default_factory=dict)
    """The chances of the rolls worked out so far, by what decides them (`_chances_of`)."""
    cells: dict[tuple[Any, ...], tuple[Amount, TraceSpec]] = field(init=False, default_factory=dict)
    """The table cells looked up so far, each with its trace (`_CachedScope.lookup`)."""
    straight: Mapping[str, Callable[[dict[str, Any], frozenset[str]], Resolution]] = field(default_factory=dict)
    """The rules written out as straight-line functions (dsl/emit_rules.py), each doing what the
    plan of the rule alone does: `resolve_rule` and `resolve_with` call it instead."""
    rolled: dict[tuple[Any, ...], Roll] = field(init=False, default_factory=dict)
    """The rolls made so far (by `roll_of`: plans and straight-line functions), by what decides them."""
    held: dict[tuple[Any, ...], tuple[Value, tuple[Modifier, ...]]] = field(init=False, default_factory=dict)
    """The stats they settled so far, by base and the modifiers that held (`settle_held`)."""

    def __post_init__(self) -> None:
        self.inputs = MappingProxyType(dict(self.inputs))
        self.defaults = {name: spec.default for name, spec in self.inputs.items()}
        self.order = {name: index for index, name in enumerate(self.inputs)}
        self.derived_inputs = frozenset(k for k, spec in self.inputs.items() if spec.derived is not None)

    def pool(self, key: tuple[int, int, str | None], horizon: int | None = None) -> Distribution:
        """The distribution of a pool; of exploding dice, worked out at least up to `horizon`."""
        found = self.pools.get(key)
        if found is None or (found.limit is not None and horizon is not None and found.limit < horizon):
            if horizon is not None and horizon > _MAX_HORIZON:
                raise RuleInputError(
                    f"the chance of a total above {_MAX_HORIZON:,} on exploding dice is not worked out"
                )
            found = self.pools[key] = distribution(*key, horizon=max(horizon or 0, listed_reach(*key)))
        return found

    def dice(self, value: Dice) -> Distribution:
        """The distribution of a dice value (`skill d10`, a dice stat), worked out once per value."""
        found = self.values.get(value)
        if found is None:
            try:
                chances = value.totals(limit=_MAX_COMBINATIONS)
            except ValueError as error:
                raise RuleInputError(str(error)) from None
            denominator = math.lcm(*(p.denominator for p in chances.values()))
            low, high = min(chances), max(chances)
            ways = [int(chances.get(t, 0) * denominator) for t in range(low, high + 1)]
            found = self.values[value] = _from_ways(low, denominator, ways)
        return found

    def pool_difference(self, first: tuple[int, int, str | None], second: tuple[int, int, str | None]) -> Distribution:
        found = self.differences.get((first, second))
        if found is None:
            found = self.differences[(first, second)] = difference(self.pool(first), self.pool(second))
        return found

    def steps_of(
        self, rules: tuple[str, ...]
    ) -> list[tuple[Step, tuple[Clause, ...], tuple[str, ...], tuple[tuple[str, ...], ...]]]:
        """Every step of the rules, composed rules in place, with the clauses (functions, texts
        and the names they read) of the `as` statements around it."""
        found = self.steps.get(rules)
        if found is not None:
            return found
        out: list[tuple[Step, tuple[Clause, ...], tuple[str, ...], tuple[tuple[str, ...], ...]]] = []
        # an explicit stack: composition may nest thousands deep
        stack: list[tuple[Iterator[Step], tuple[Clause, ...], tuple[str, ...], tuple[tuple[str, ...], ...]]] = [
            (iter(self.parts[name]), (), (), ()) for name in reversed(rules) if name in self.parts
        ]
        while stack:
            steps, clauses, texts, names = stack[-1]
            step = next(steps, None)
            if step is None:
                stack.pop()
                continue
            if step.kind == "part":
                trace = step.trace
                assert trace is not None
                stack.append(
                    (iter(self.parts[step.spec]), clauses + step.clauses, texts + trace.clauses, names + trace.names)
                )
            else:
                out.append((step, clauses, texts, names))
        self.steps[rules] = out
        return out

    def plan(self, rules: tuple[str, ...]) -> _Plan:
        """How a set of rules resolved together is worked out, found once."""
        found = self.plans.get(rules)
        if found is None:
            found = self.plans[rules] = _Plan(self, rules)
        return found

    def nodes_of(self, rules: tuple[str, ...]) -> tuple[str, ...]:
        """The values a set of rules settles, in the order of `settle`: the stats they read or
        change, the values that start from a formula among what they read, what they derive."""
        found = self.nodes.get(rules)
        if found is None:
            wanted: set[str] = set()
            for name in rules:
                for key in self.rules[name].reads:
                    spec = self.inputs[key]
                    if spec.is_stat:
                        wanted.add("stat " + key)
                    if spec.derived is not None:
                        wanted.add("base " + key)
            wanted.update("derive " + step.spec.name for step, _, _, _ in self.steps_of(rules) if step.kind == "derive")
            found = self.nodes[rules] = tuple(node for node in self.settle if node in wanted)
            assert len(found) == len(wanted), f"not in the settle order: {sorted(wanted - set(found))}"
        return found


def _accepted(spec: InputSpec) -> tuple[type, Container[object]]:
    """The values of an input `coerce` returns as they are, when they are simply told: whole
    numbers between bounds (a range), flags, members; for any other kind, none (every value is
    checked by `coerce`).  It must agree with `InputSpec.coerce`, whose first test it restates
    (tests/test_fast_path.py holds them together on every input's edge values)."""
    low, high = spec.low, spec.high
    if (
        spec.kind in ("int", "percent")
        and type(low) is int
        and type(high) is int
        and max(abs(low), abs(high)).bit_length() <= _MAX_BITS
    ):
        return int, range(low, high + 1)
    if spec.kind == "flag":
        return bool, (False, True)
    if spec.kind in ("one of", "levels"):
        return str, frozenset(spec.members)
    return object, ()


# ---------------------------------------------------------------------------- a situation


class _Settled(dict[str, Any]):
    """The stats and derived values of a situation as they settle; a derived value none of whose
    conditions held is worked out when first read (`pending`)."""

    __slots__ = ("pending",)

    pending: dict[str, Callable[[], Any]]
    """Made when first needed (`wait`): most situations have nothing pending."""

    def wait(self, name: str, compute: Callable[[], Any]) -> None:
        """Work `name` out with `compute` when it is first read."""
        try:
            pending = self.pending
        except AttributeError:
            pending = self.pending = {}
        pending[name] = compute

    def __missing__(self, name: str) -> Any:
        try:
            compute = self.pending.pop(name, None)
        except AttributeError:
            compute = None
        if compute is None:
            raise KeyError(name)
        self[name] = value = compute()
        return value


class _Situation:
    """One resolution: the steps of the rules, and their values as they settle."""

    def __init__(self, book: Book, rules: tuple[str, ...], v: dict[str, Any], given: frozenset[str]) -> None:
        self.book = book
        self.rules = rules
        self.v = v
        self.given = given
        self.e: _Settled = _Settled()
        self.trace: list[TraceEntry] = []
        self.scope = Scope(book, v, self.e, self.trace)
        self.modifiers: list[tuple[int, Modifier]] = []  # with the step each comes from
        self.steps = book.steps_of(rules)
        self.decided: list[int] = [0] * len(self.steps)  # per step: the clause that failed, -1 all held
        self.counted: dict[str, int] = {}  # step key -> the step that counts

    def decide(self, index: int) -> int:
        """Evaluate a step's clauses (those of the `as` around it first); record and return the one
        that failed, or -1."""
        step, outer, _, _ = self.steps[index]
        scope = self.scope
        decided = -1
        for position, clause in enumerate(outer + step.clauses):
            if not clause(scope):
                decided = position
                break
        self.decided[index] = decided
        return decided

    def count(self, indexes: list[int]) -> list[tuple[int, bool]]:
        """The steps of one kind, each key once: the first whose conditions hold counts (where it
        is met); a key none of whose steps hold appears once, not applied, where first met."""
        where: dict[str, int] = {}
        out: list[tuple[int, bool] | None] = []
        for index in indexes:
            key = self.steps[index][0].spec.key
            earlier = where.get(key)
            previous = out[earlier] if earlier is not None else None
            if previous is not None and previous[1]:
                continue
            holds = self.decide(index) < 0
            if previous is not None:
                if not holds:
                    continue
                out[where[key]] = None
            where[key] = len(out)
            out.append((index, holds))
        return [x for x in out if x is not None]

    def trace_step(self, index: int) -> None:
        step, _, texts, names = self.steps[index]
        trace = step.trace
        assert trace is not None
        if texts:
            trace = TraceSpec(trace.rule, trace.source, trace.item, texts + trace.clauses, names + trace.names)
        self.trace.append(TraceEntry(trace, self.decided[index], self.v, self.e))

    def amount(self, value: Amount) -> Any:
        return value(self.scope) if callable(value) else value

    # -- settling

    def settle(self) -> dict[str, Value]:
        """Every value the rules touch, in the order they depend on each other; returns the
        derived values (the stats and derived values settle into `e`)."""
        book = self.book
        by_node: dict[str, list[int]] = {}
        for index, (step, _, _, _) in enumerate(self.steps):
            if step.kind == "mod":
                by_node.setdefault("stat " + step.spec.target, []).append(index)
            elif step.kind == "derive":
                by_node.setdefault("derive " + step.spec.name, []).append(index)
        v, e = self.v, self.e
        derived: dict[str, Value] = {}
        for node in book.nodes_of(self.rules):
            kind, _, name = node.partition(" ")
            if kind == "base":
                if v.get(name) is None:
                    formula = book.inputs[name].derived
                    assert formula is not None
                    v[name] = whole(formula(self.scope))
            elif kind == "stat":
                e[name] = whole(self._stat(name, by_node.get(node, [])))
            elif node in by_node:
                self._derive(name, by_node[node], derived)
        return derived

    def _stat(self, name: str, indexes: list[int]) -> Value:
        base = self.v[name]
        held: list[tuple[ModSpec, Any]] = []
        where: list[int] = []
        for index, holds in self.count(indexes):
            self.trace_step(index)
            if holds:
                step = self.steps[index][0]
                held.append((step.spec, self.amount(step.payload)))
                where.append(index)
        if not held:
            return base  # type: ignore[no-any-return]
        value, statuses = settle_stat(self.book, name, base, held)
        self.modifiers += [
            (index, Modifier(spec, whole(amount), status, reason))
            for index, (spec, amount), (status, reason) in zip(where, held, statuses, strict=True)
        ]
        return value

    def _derive(self, name: str, indexes: list[int], derived: dict[str, Value]) -> None:
        """A derived value: of the first `derive` whose conditions hold.  When none holds, the
        first written is the value only if something reads it, and is worked out then (it may
        divide by what its own conditions rule out, as the reference evaluator reads it)."""
        counted = self.count(indexes)
        for index, _ in counted:
            self.trace_step(index)
        chosen = next((index for index, holds in counted if holds), None)
        if chosen is None:
            payload = self.steps[counted[0][0]][0].payload
            self.e.wait(name, lambda: whole(self.amount(payload)))
            return
        self.e[name] = derived[name] = whole(self.amount(self.steps[chosen][0].payload))

    # -- the rest

    def finish(self) -> Resolution:
        book = self.book
        derived = self.settle()
        rolls = []
        texts: list[int] = []
        roll_steps: list[int] = []
        for index, (step, _, _, _) in enumerate(self.steps):
            if step.kind == "roll":
                roll_steps.append(index)
            elif step.kind == "text":
                texts.append(index)
        for index, holds in self.count(roll_steps):
            self.trace_step(index)
            if holds:
                step = self.steps[index][0]
                rolls.append(roll_result(self.scope, step.spec, *step.payload))
        restrictions: list[Restriction] = []
        notes: list[Note] = []
        for index, holds in self.count(texts):
            step, outer, _, _ = self.steps[index]
            spec = step.spec
            if step.clauses or outer:
                self.trace_step(index)
            if not holds:
                continue
            if spec.kind == "cannot":
                restrictions.append(Restriction(spec.rule, spec.source, spec.text))
            else:
                notes.append(Note(spec.rule, spec.source, spec.text, spec.quote, spec.kind))
        notes += self._unread()
        for name in self.rules:
            table = book.tables.get(name)
            if table is not None:
                notes.extend(table.notes)
        reads = {key for name in self.rules for key in book.rules[name].reads}
        order = book.order
        inputs = {key: self.v[key] for key in sorted(reads | self.given, key=lambda k: order.get(k, len(order)))}
        stats_read: dict[str, Value] = {
            key: self.e[key] if key in self.e else self.v[key]
            for key in inputs
            if key in book.inputs and book.inputs[key].is_stat
        }
        tables = tuple(table_result(self.scope, book.tables[name]) for name in self.rules if name in book.tables)
        return Resolution(
            rulebook=book.info.name,
            rules=self.rules,
            inputs=inputs,
            stats=stats_read,
            derived=derived,
            modifiers=tuple(modifier for _, modifier in sorted(self.modifiers, key=lambda x: x[0])),
            rolls=merge_rolls(self.scope, rolls),
            restrictions=tuple(restrictions),
            notes=tuple(notes),
            tables=tables,
            trace=tuple(self.trace),
            chains=chains_of(self.scope, rolls, tables),
        )

    def _unread(self) -> list[Note]:
        """An input given that no evaluated clause or value read: it had no effect, because the
        conditions that lead to it did not hold.  Say which."""
        gated: dict[str, list[int]] = {}
        for index, (step, _, _, _) in enumerate(self.steps):
            for name, _ in step.reads:
                if name in self.given:
                    gated.setdefault(name, []).append(index)
        notes = []
        for name, indexes in gated.items():
            read = False
            for index in indexes:
                step, outer, _, _ = self.steps[index]
                decided = self.decided[index]
                for input_name, clause in step.reads:
                    if input_name == name and (decided < 0 or decided >= len(outer) + clause):
                        read = True
            if not read:
                step, outer, texts, _ = self.steps[indexes[0]]
                clause = min(c for n, c in step.reads if n == name)
                trace = step.trace
                conditions = texts + (trace.clauses if trace is not None else ())
                needed = "; ".join(conditions[: len(outer) + clause] or conditions)
                notes.append(
                    Note(
                        step.spec.rule,
                        None if trace is None else trace.source,
                        f"`{name}` had no effect: it is read only {needed}",
                        kind="input",
                    )
                )
        return notes


# ---------------------------------------------------------------------------- the fast path
#
# `_Situation.finish` is the reference: it reads the steps of the rules as they are, on every
# call.  A plan works a situation out the same way and in the same order (so the trace is the
# same), with what does not depend on the situation found once per set of rules: the steps by
# the value each settles, the trace specs of composed steps, the notes and restrictions, the
# inputs and stats a resolution reports, the words about inputs given to no effect.  A roll's
# chances and a table's cells are looked up once worked out.  tests/test_fast_path.py holds
# the two equal on thousands of situations.


class _CachedScope(Scope):
    """A Scope whose table lookups are kept: a cell, with its trace, is found once per key."""

    __slots__ = ()

    def lookup(self, table: str, keys: tuple[Value, ...], column: str) -> Any:
        cells = self.book.cells
        key = (table, keys, tuple(map(type, keys)), column)  # 1 and True select different rows
        found = cells.get(key)
        if found is None:
            if len(cells) >= _MAX_CACHED:
                cells.clear()
            found = cells[key] = _cell(self.book, table, keys, column)
        cell, lookup = found
        value = cell(self) if callable(cell) else cell
        self.trace.append(TraceEntry(lookup, -1, self.v, self.e))
        return value


_FIRST: Final = itemgetter(0)
_SECOND: Final = itemgetter(1)


_Group = tuple[tuple[int, ...], bool]
"""Steps of one kind, by index, and whether each has a key of its own (no composed rule met
twice), so that each counts without looking for another of the same key."""


class _Plan:
    """A set of rules resolved together, as `_Situation` works it out, with everything that does
    not depend on the situation found once."""

    __slots__ = (
        "book",
        "chains",
        "clauses",
        "fixed_texts",
        "gated",
        "inputs_order",
        "keys",
        "nodes",
        "reads",
        "roll_group",
        "rules",
        "settled",
        "stat_keys",
        "steps",
        "table_notes",
        "tables",
        "text_group",
        "text_steps",
        "texts",
        "told",
        "traced",
        "traces",
        "watched",
    )

    def __init__(self, book: Book, rules: tuple[str, ...]) -> None:
        steps = book.steps_of(rules)
        self.book = book
        self.rules = rules
        self.steps = tuple(step for step, _, _, _ in steps)
        self.clauses = tuple(tuple(enumerate(outer + step.clauses)) for step, outer, _, _ in steps)
        """Each step's clauses (those of the `as` around it first), numbered: met in a loop on
        every call, numbered once here rather than by `enumerate` there."""
        self.keys = tuple(step.spec.key for step, _, _, _ in steps)
        self.traces = tuple(_merged_trace(step, texts, names) for step, _, texts, names in steps)
        by_node: dict[str, list[int]] = {}
        rolls: list[int] = []
        texts_at: list[int] = []
        for index, (step, _, _, _) in enumerate(steps):
            if step.kind == "mod":
                by_node.setdefault("stat " + step.spec.target, []).append(index)
            elif step.kind == "derive":
                by_node.setdefault("derive " + step.spec.name, []).append(index)
            elif step.kind == "roll":
                rolls.append(index)
            elif step.kind == "text":
                texts_at.append(index)
        self.nodes: tuple[tuple[str, str, Any], ...] = tuple(
            (
                "unmodified" if kind == "stat" and node not in by_node else kind,
                name,
                book.inputs[name].derived if kind == "base" else self._group(by_node.get(node, [])),
            )
            for node in book.nodes_of(rules)
            for kind, _, name in (node.partition(" "),)
            if kind != "derive" or node in by_node
        )
        """What settles, in order: `base X` (a default worked out, with its formula), `stat X`,
        `unmodified X` (a stat no modifier of these rules changes), `derive X`; with the steps of
        each (a `_Group`)."""
        self.roll_group = self._group(rolls)
        self.text_group = self._group(texts_at)
        self.traced = frozenset(i for i in texts_at if steps[i][0].clauses or steps[i][1])
        self.texts: dict[int, Restriction | Note] = {i: _text_result(self.steps[i].spec) for i in texts_at}
        self.text_steps = tuple(
            (i, self.clauses[i], self.traces[i], self.texts[i], isinstance(self.texts[i], Restriction))
            for i in texts_at
        )
        """Each text, with its clauses (none when untraced), trace spec and what it says."""
        self.fixed_texts: tuple[tuple[Restriction, ...], tuple[Note, ...]] | None = None
        """The restrictions and notes when no text has a condition (and none is met twice)."""
        if self.text_group[1] and not self.traced:
            found = [self.texts[i] for i in texts_at]
            self.fixed_texts = (
                tuple(x for x in found if isinstance(x, Restriction)),
                tuple(x for x in found if isinstance(x, Note)),
            )
        self.gated = _gated(steps)
        self.table_notes = tuple(note for name in rules if name in book.tables for note in book.tables[name].notes)
        order = book.order
        self.reads = frozenset(key for name in rules for key in book.rules[name].reads)
        self.inputs_order = tuple(sorted(self.reads, key=lambda k: order.get(k, len(order))))
        self.stat_keys = tuple(k for k in self.inputs_order if k in book.inputs and book.inputs[k].is_stat)
        told = book.rules[rules[0]].reads if len(rules) == 1 and rules[0] in book.rules else ()
        """The inputs of a rule alone, in the order its function tells them (`resolve_rule`)."""
        self.told = tuple((key, *_accepted(book.inputs[key])) for key in told)
        """Each with the values taken as they are (`_accepted`: a type and the values of that type)."""
        watched = {name for name, _, _ in self.gated}
        self.watched = tuple((key, book.defaults[key]) for key in told if key in watched)
        """Those of them a "had no effect" note may name, with their defaults: whether they are
        given is all the resolution reads of what was given (every other input is read)."""
        self.tables = tuple(book.tables[name] for name in rules if name in book.tables)
        self.chains = any(_sends_on(table) for table in self.tables) or any(self.steps[i].spec.steps for i in rolls)
        """A table or a roll outcome may send on: the resolution has chains (`chains_of`)."""
        self.settled: dict[tuple[Any, ...], tuple[Value, tuple[tuple[int, Modifier], ...]]] = {}
        """The stats settled so far, by base and the modifiers that held, with the Modifiers."""

    def _group(self, indexes: list[int]) -> _Group:
        return tuple(indexes), len({self.keys[i] for i in indexes}) == len(indexes)

    def _count(self, group: _Group, scope: Scope, decided: list[int]) -> list[tuple[int, bool]]:
        """`_Situation.count`: each step of a key of its own counts; of several steps of one key,
        the first whose conditions hold, or the first met when none holds."""
        indexes, unique = group
        if unique:
            self._decided(indexes, scope, decided)
            return [(index, decided[index] < 0) for index in indexes]
        out: list[tuple[int, bool] | None] = []
        where: dict[str, int] = {}
        for index in indexes:
            key = self.keys[index]
            earlier = where.get(key)
            previous = out[earlier] if earlier is not None else None
            if previous is not None and previous[1]:
                continue
            holds = self._decide(index, scope, decided) < 0
            if previous is not None:
                if not holds:
                    continue
                out[where[key]] = None
            where[key] = len(out)
            out.append((index, holds))
        return [x for x in out if x is not None]

    def _decide(self, index: int, scope: Scope, decided: list[int]) -> int:
        """The first clause of a step (those of the `as` around it first) that does not hold, or
        -1; recorded in `decided`."""
        position = -1
        for at, clause in self.clauses[index]:
            if not clause(scope):
                position = at
                break
        decided[index] = position
        return position

    def _decided(self, indexes: Iterable[int], scope: Scope, decided: list[int]) -> None:
        """`_decide` for each step of a group, all of them before any is traced or acted on, as
        `_Situation.count` decides them (a condition that looks a row up is traced as it does)."""
        clauses = self.clauses
        for index in indexes:
            position = -1
            for at, clause in clauses[index]:
                if not clause(scope):
                    position = at
                    break
            decided[index] = position

    def resolve(self, v: dict[str, Any], given: frozenset[str]) -> Resolution:
        """The Resolution `_Situation(book, rules, v, given).finish()` returns."""
        book = self.book
        e = _Settled()
        trace: list[TraceEntry] = []
        scope = _CachedScope(book, v, e, trace)
        decided = [0] * len(self.steps)
        steps = self.steps
        traces = self.traces
        modifiers: list[tuple[int, Modifier]] = []
        derived: dict[str, Value] = {}
        for kind, name, group in self.nodes:
            # (`whole` is called only for a Fraction: every other value it returns as it is)
            if kind == "unmodified":
                value = v[name]
                e[name] = whole(value) if type(value) is Fraction else value
                continue
            if kind == "base":
                if v.get(name) is None:
                    value = group(scope)  # a `base` node's formula
                    v[name] = whole(value) if type(value) is Fraction else value
                continue
            indexes, unique = group
            if kind == "stat" and unique:  # `_count` and the loop below in one: the common case
                held: list[tuple[ModSpec, Any]] = []
                where: list[int] = []
                self._decided(indexes, scope, decided)
                for index in indexes:
                    position = decided[index]
                    trace.append(TraceEntry(traces[index], position, v, e))
                    if position < 0:
                        step = steps[index]
                        payload = step.payload
                        held.append((step.spec, payload(scope) if callable(payload) else payload))
                        where.append(index)
                value = self._stat(name, v[name], held, where, modifiers) if held else v[name]
                e[name] = whole(value) if type(value) is Fraction else value
                continue
            counted = self._count(group, scope, decided)
            if kind == "stat":
                held = []
                where = []
                for index, holds in counted:
                    trace.append(TraceEntry(traces[index], decided[index], v, e))  # type: ignore[arg-type]
                    if holds:
                        step = steps[index]
                        payload = step.payload
                        held.append((step.spec, payload(scope) if callable(payload) else payload))
                        where.append(index)
                e[name] = whole(self._stat(name, v[name], held, where, modifiers) if held else v[name])
                continue
            chosen = None
            for index, holds in counted:
                trace.append(TraceEntry(traces[index], decided[index], v, e))  # type: ignore[arg-type]
                if holds and chosen is None:
                    chosen = index
            if chosen is None:
                first = steps[counted[0][0]].payload
                e.wait(name, lambda first=first: whole(first(scope) if callable(first) else first))  # type: ignore[misc]
                continue
            payload = steps[chosen].payload
            e[name] = derived[name] = whole(payload(scope) if callable(payload) else payload)
        rolls = []
        if self.roll_group[1]:  # as a stat's modifiers above
            self._decided(self.roll_group[0], scope, decided)
            for index in self.roll_group[0]:
                position = decided[index]
                trace.append(TraceEntry(traces[index], position, v, e))  # type: ignore[arg-type]
                if position < 0:
                    rolls.append(roll_of(scope, steps[index]))
        else:
            for index, holds in self._count(self.roll_group, scope, decided):
                trace.append(TraceEntry(traces[index], decided[index], v, e))  # type: ignore[arg-type]
                if holds:
                    rolls.append(roll_of(scope, steps[index]))
        restrictions: Sequence[Restriction]
        if self.fixed_texts is not None:  # no text has a condition: the same every time
            restrictions, fixed = self.fixed_texts
            notes = list(fixed)
        else:
            restrictions, notes = self._texts(scope, decided, trace)
        for name, reads, note in self.gated:
            if name in given and not any(decided[i] < 0 or decided[i] >= at for i, at in reads):
                notes.append(note)
        notes += self.table_notes
        if given <= self.reads:
            inputs = {key: v[key] for key in self.inputs_order}
            stats: dict[str, Value] = {key: e[key] for key in self.stat_keys}  # each settled above
        else:
            order = book.order
            inputs = {key: v[key] for key in sorted(self.reads | given, key=lambda k: order.get(k, len(order)))}
            specs = book.inputs
            stats = {key: e[key] if key in e else v[key] for key in inputs if key in specs and specs[key].is_stat}
        if len(modifiers) > 1:
            modifiers.sort(key=_FIRST)
        tables = tuple([table_result(scope, table) for table in self.tables]) if self.tables else ()
        return Resolution(
            rulebook=book.info.name,
            rules=self.rules,
            inputs=inputs,
            stats=stats,
            derived=derived,
            modifiers=tuple(map(_SECOND, modifiers)),
            rolls=merge_rolls(scope, rolls) if len(rolls) > 1 else tuple(rolls),
            restrictions=tuple(restrictions),
            notes=tuple(notes),
            tables=tables,
            trace=tuple(trace),
            chains=chains_of(scope, rolls, tables) if self.chains else (),
        )

    def _texts(self, scope: Scope, decided: list[int], trace: list[TraceEntry]) -> tuple[list[Restriction], list[Note]]:
        """The restrictions and notes whose conditions hold, the conditional ones traced."""
        restrictions: list[Restriction] = []
        notes: list[Note] = []
        traced = self.traced
        v, e = scope.v, scope.e
        if self.text_group[1]:  # `_count` and the loop below in one: each text of a key of its own
            self._decided(self.text_group[0], scope, decided)
            for index, clauses, spec, text, restricts in self.text_steps:
                position = decided[index]
                if clauses:
                    trace.append(TraceEntry(spec, position, v, e))  # type: ignore[arg-type]
                if position < 0:
                    if restricts:
                        restrictions.append(text)  # type: ignore[arg-type]
                    else:
                        notes.append(text)  # type: ignore[arg-type]
            return restrictions, notes
        for index, holds in self._count(self.text_group, scope, decided):
            if index in traced:
                trace.append(TraceEntry(self.traces[index], decided[index], v, e))  # type: ignore[arg-type]
            if holds:
                text = self.texts[index]
                if isinstance(text, Restriction):
                    restrictions.append(text)
                else:
                    notes.append(text)
        return restrictions, notes

    def _stat(
        self, name: str, base: Any, held: list[tuple[ModSpec, Any]], where: list[int], out: list[tuple[int, Modifier]]
    ) -> Value:
        """A stat's value from the modifiers that hold; each becomes a Modifier in `out`.  Both are
        kept for the base and the modifiers' amounts (equal values settle alike: a resolver's
        numbers are ints where whole, Fractions where not)."""
        key = (name, base, tuple(where), tuple(map(_SECOND, held)))
        found = self.settled.get(key)
        if found is None:
            value, statuses = _settled(self.book, name, base, held)
            made = tuple(
                (index, Modifier(spec, whole(amount), status, reason))
                for index, (spec, amount), (status, reason) in zip(where, held, statuses, strict=True)
            )
            if len(self.settled) >= _MAX_CACHED:
                self.settled.clear()
            found = self.settled[key] = (value, made)
        out += found[1]
        return found[0]


def resolve_rule(book: Book, name: str, told: tuple[object, ...]) -> Resolution:
    """What a rule's own function returns: `resolve_with(book, (name,), given, signature=True)`,
    `given` the inputs the rule reads (its `RuleInfo.reads`, in that order) with the values `told`
    (None for a default worked out from others)."""
    plan = book.plans.get((name,)) or book.plan((name,))
    values: dict[str, Any] = dict(book.defaults)
    for raw, (key, kind, plain) in zip(told, plan.told, strict=True):
        if type(raw) is kind and raw in plain:
            values[key] = raw  # what `coerce` returns for it, found without the call
        elif raw is None and key in book.derived_inputs:
            continue  # None asks for the computed default
        else:
            values[key] = book.inputs[key].coerce(raw)
    # given, as `resolve_with` counts it: only whether a gated input was given changes the result
    watched = plan.watched
    given = frozenset([key for key, default in watched if values[key] != default]) if watched else _NOTHING
    straight = book.straight.get(name)
    if straight is not None:
        return straight(values, given)
    return plan.resolve(values, given)


_NOTHING: Final[frozenset[str]] = frozenset()


def changed(*told: tuple[str, object, object]) -> frozenset[str]:
    """Of the inputs told (name, value, default), those told a value other than their default:
    `resolve_rule`'s `given`, for a rule written out."""
    return frozenset([name for name, value, default in told if value != default]) or _NOTHING


# ---------------------------------------------------------------------------- straight-line rules
#
# What a rule written out as a straight-line function (dsl/emit_rules.py) calls: the parts of
# `_Plan.resolve` that are the same for every rule.


def added_total(value: Any, kind: str, held: bool) -> Value:
    """A stat changed only by additions that all count, as `_added` and then `whole` leave it:
    `held`, whether any addition held (else the base stands as it is)."""
    if type(value) is Fraction:
        if value.denominator == 1:
            return value.numerator
        if held and kind != "number":
            return round_value(value, "down")
    return value  # type: ignore[no-any-return]


def settle_held(
    book: Book,
    name: str,
    base: Any,
    held: list[tuple[ModSpec, Any]],
    out: list[Any],
    where: list[int] | None = None,
) -> Value:
    """A stat's value from the modifiers that hold, in the order of their steps, as `_Plan._stat`
    settles it; each becomes a Modifier in `out` (with its step from `where`, when given: the
    Modifiers are put in the order of the steps at the end).  Kept for the base and the
    modifiers' amounts."""
    if not held:
        return cast(Value, whole(base))
    key = (name, base, tuple([id(spec) for spec, _ in held]), tuple(map(_SECOND, held)))
    found = book.held.get(key)
    if found is None:
        value, statuses = _settled(book, name, base, held)
        made = tuple(
            Modifier(spec, whole(amount), status, reason)
            for (spec, amount), (status, reason) in zip(held, statuses, strict=True)
        )
        if len(book.held) >= _MAX_CACHED:
            book.held.clear()
        found = book.held[key] = (whole(value), made)
    if where is None:
        out += found[1]
    else:
        out += zip(where, found[1], strict=True)
    return found[0]


def roll_of(scope: Scope, step: Step) -> Roll:
    """The roll of a step whose conditions hold: its changes traced, its chances kept by what
    decides them (when no consequence reads the scope)."""
    spec = step.spec
    payload = step.payload
    values = payload[0]
    changed = roll_changes(scope, spec, payload[1] if len(payload) > 1 else ())
    found = values(scope) if callable(values) else values
    if spec.consequences:
        return rolled(scope, spec, found, *changed, cached=True)
    key = (id(spec), found, *changed)
    rolls = scope.book.rolled
    roll = rolls.get(key)
    if roll is None:
        if len(rolls) >= _MAX_CACHED:
            rolls.clear()
        roll = rolls[key] = rolled(scope, spec, found, *changed, cached=True)
    return roll


def _settled(
    book: Book, name: str, base: Any, held: list[tuple[ModSpec, Any]]
) -> tuple[Value, list[tuple[Status, str | None]]]:
    """A stat's value from the modifiers that hold and each one's status: their sum on the base
    when they are additions that all count (`_added`), else as `settle_stat` settles them."""
    added = _added(book, name, base, held)
    if added is not None:
        return added, [("applied", None)] * len(held)
    return settle_stat(book, name, base, held)


def _added(book: Book, name: str, base: Any, held: list[tuple[ModSpec, Any]]) -> Value | None:
    """A number changed only by additions that all count (no stacking group picks one), as
    `settle_stat` works it out: their sum on the base; None for any other case."""
    spec_in = book.inputs[name]
    kind = spec_in.kind
    if kind not in ("int", "number", "percent"):
        return None
    for spec, _ in held:
        if spec.op != "add" or (spec.group is not None and spec.stacking != "cumulative"):
            return None
    order = book.orders.get(name)
    if order is not None and "additions" not in order.kinds:
        return None
    value = base + sum((amount for _, amount in held), 0)
    if type(value) is Fraction:
        if value.denominator == 1:
            return value.numerator
        if kind != "number":
            return round_value(value, "down")
    return value  # type: ignore[no-any-return]


def _merged_trace(step: Step, texts: tuple[str, ...], names: tuple[tuple[str, ...], ...]) -> TraceSpec | None:
    """A step's trace spec with the clauses of the `as` statements around it first."""
    trace = step.trace
    if trace is None or not texts:
        return trace
    return within(trace, texts, names)


def within(trace: TraceSpec, texts: tuple[str, ...], names: tuple[tuple[str, ...], ...]) -> TraceSpec:
    """A trace spec with the clauses (as written, and the names each reads) of the `as`
    statements around its step first."""
    return TraceSpec(trace.rule, trace.source, trace.item, texts + trace.clauses, names + trace.names)


def _text_result(spec: TextSpec) -> Restriction | Note:
    return restriction_of(spec) if spec.kind == "cannot" else note_of(spec)


def restriction_of(spec: TextSpec) -> Restriction:
    """What a `cannot` says when its conditions hold."""
    return Restriction(spec.rule, spec.source, spec.text)


def note_of(spec: TextSpec) -> Note:
    """What a note or an erratum says when its conditions hold."""
    return Note(spec.rule, spec.source, spec.text, spec.quote, spec.kind)


def _gated(
    steps: Sequence[tuple[Step, tuple[Clause, ...], tuple[str, ...], tuple[tuple[str, ...], ...]]],
) -> tuple[tuple[str, tuple[tuple[int, int], ...], Note], ...]:
    """`_Situation._unread` for every input a step reads: the steps that read it, each with the
    first clause from which on it is read (it is, when that clause is reached or all hold), and
    the note saying it had no effect."""
    gated: dict[str, list[int]] = {}
    for index, (step, _, _, _) in enumerate(steps):
        for name, _ in step.reads:
            gated.setdefault(name, []).append(index)
    out = []
    for name, indexes in gated.items():
        reads = tuple(
            (index, len(steps[index][1]) + min(c for n, c in steps[index][0].reads if n == name))
            for index in dict.fromkeys(indexes)
        )
        step, outer, texts, _ = steps[indexes[0]]
        clause = min(c for n, c in step.reads if n == name)
        trace = step.trace
        conditions = texts + (trace.clauses if trace is not None else ())
        needed = "; ".join(conditions[: len(outer) + clause] or conditions)
        note = Note(
            step.spec.rule,
            None if trace is None else trace.source,
            f"`{name}` had no effect: it is read only {needed}",
            kind="input",
        )
        if all(at > 0 for _, at in reads):  # read from the first clause on, it is always read
            out.append((name, reads, note))
    return tuple(out)


def settle_stat(
    book: Book, name: str, base: Any, held: list[tuple[ModSpec, Any]]
) -> tuple[Value, list[tuple[Status, str | None]]]:
    """A stat's value from its base and the modifiers that hold, and what became of each: a
    stacking group counts one of its modifiers, the others are left out before the rest apply."""
    spec_in = book.inputs[name]
    grouped = _groups(book, spec_in, base, held)
    counted = [item for item, (status, _) in zip(held, grouped, strict=True) if status == "applied"]
    value, statuses = _value(book, spec_in, base, counted)
    found = iter(statuses)
    return value, [next(found) if status == "applied" else (status, why) for status, why in grouped]


def _value(
    book: Book, spec_in: InputSpec, base: Any, held: list[tuple[ModSpec, Any]]
) -> tuple[Value, list[tuple[Status, str | None]]]:
    """A stat's value from its base and the modifiers that count, by the order of its kind."""
    kind = spec_in.kind
    if not held:
        return base, []
    if kind in ("int", "number", "percent"):
        return _numeric(book, base, held, kind, book.orders.get(spec_in.name))
    if kind == "dice":
        return _dice_value(base, held, book.orders.get(spec_in.name))
    if kind == "levels":
        return _level_value(spec_in, base, held)
    return _set_only(base, held)


def _groups(
    book: Book, spec_in: InputSpec, base: Any, held: list[tuple[ModSpec, Any]]
) -> list[tuple[Status, str | None]]:
    """Of the modifiers of one stacking group, only one counts: the one whose effect alone is the
    largest (`strongest`), or leaves the highest or lowest value; on a tie, the first."""
    statuses: list[tuple[Status, str | None]] = [("applied", None)] * len(held)
    groups: dict[str, list[int]] = {}
    for i, (spec, _) in enumerate(held):
        if spec.group is not None and spec.stacking != "cumulative":
            groups.setdefault(spec.group, []).append(i)
    for group, members in groups.items():
        stacking = held[members[0]][0].stacking
        start = _measure(spec_in, base)
        alone = {i: _measure(spec_in, _value(book, spec_in, base, [held[i]])[0]) for i in members}
        if stacking == "highest":
            best = max(members, key=lambda i: (alone[i], -i))
        elif stacking == "lowest":
            best = min(members, key=lambda i: (alone[i], i))
        else:
            best = max(members, key=lambda i: (abs(alone[i] - start), -i))
        winner = held[best][0]
        for i in members:
            if i != best:
                statuses[i] = (
                    "suppressed",
                    f"only the {stacking} of group `{group}` applies: {winner.rule}: {winner.text}",
                )
    return statuses


def _numeric(
    book: Book, base: Any, held: list[tuple[ModSpec, Any]], kind: str, order: StatOrder | None
) -> tuple[Value, list[tuple[Status, str | None]]]:
    """docs/language.md, "The order in which modifiers apply": scalings in order, the sum of
    additions, the grade (or these three in the order the book states), `=` (the last wins),
    caps, floors; whole stats stay whole."""
    statuses: list[tuple[Status, str | None]] = [("applied", None)] * len(held)
    ops = {spec.op for spec, _ in held}
    value: int | Fraction = base  # whole numbers stay ints: Fraction only where division needs it
    grade = _grade(book, held, statuses) if "grade" in ops else None
    for step in order.kinds if order is not None else MODIFIER_KINDS["number"]:
        if step == "scaling" and ("mul" in ops or "div" in ops):
            for i in in_rule_order(order.rules if order else (), [spec.rule for spec, _ in held]):
                spec, amount = held[i]
                if spec.op == "mul":
                    value = value * amount
                elif spec.op == "div":
                    value = _divide(value, amount)
                else:
                    continue
                if spec.rounding:
                    value = round_value(value, spec.rounding)
        elif step == "additions" and "add" in ops:
            value += sum((amount for spec, amount in held if spec.op == "add"), 0)
        elif step == "grade" and grade is not None and grade.op != "set":
            value = value * grade.value if grade.op == "mul" else _divide(value, grade.value)
            if grade.rounding:
                value = round_value(value, grade.rounding)
    if grade is not None and grade.op == "set":  # an absolute grade, like `=`, replaces them all
        value = grade.value
    if "set" in ops:
        last = max(i for i, (spec, _) in enumerate(held) if spec.op == "set")
        value = held[last][1]
        winner = held[last][0]
        for i, (spec, _) in enumerate(held):
            if i != last and spec.op in ("add", "mul", "div", "grade", "set") and statuses[i][0] == "applied":
                statuses[i] = ("overridden", f"{winner.rule}: {winner.text}")
    if "max" in ops:
        value = min(value, min(a for spec, a in held if spec.op == "max"))
    if "min" in ops:
        value = max(value, max(a for spec, a in held if spec.op == "min"))
    if isinstance(value, Fraction):
        if value.denominator == 1:
            value = value.numerator
        elif kind != "number":
            value = round_value(value, "down")
    return value, statuses


def _grade(book: Book, held: list[tuple[ModSpec, Any]], statuses: list[tuple[Status, str | None]]) -> Grade | None:
    grades = {g.name: g for g in book.grades}
    chosen = [(i, grades[str(a)]) for i, (spec, a) in enumerate(held) if spec.op == "grade"]
    if not chosen:
        return None
    absolute = [(i, g) for i, g in chosen if g.step is None]
    if absolute:
        for i, _ in chosen:
            if i != absolute[0][0]:
                statuses[i] = ("overridden", f"{held[absolute[0][0]][0].rule}: {absolute[0][1].name}")
        return absolute[0][1]
    net = sum(g.step or 0 for _, g in chosen)
    if net == 0:
        for i, _ in chosen:
            statuses[i] = ("suppressed", "grades cancel one another")
        return None
    steps = sorted((g for g in book.grades if g.step), key=lambda g: g.step or 0)
    same_side = [g for g in steps if (g.step or 0) * net > 0]
    return min(same_side, key=lambda g: abs((g.step or 0) - net))


def roll_result(
    scope: Scope,
    spec: RollSpec,
    values: Amount,
    changes: tuple[tuple[ChangeSpec, tuple[Clause, ...], Amount, TraceSpec], ...] = (),
    cached: bool = False,
) -> Roll:
    """A roll the situation calls for: its changes that hold (each traced), then its exact chances
    (`cached`: looked up, when a roll of the same dice and target was worked out before)."""
    changed = roll_changes(scope, spec, changes)
    found = values(scope) if callable(values) else values
    return rolled(scope, spec, found, *changed, cached=cached)


_Changed = tuple[tuple[int, int, str | None] | None, int, int | Fraction, str | None]
"""What a roll's changes that hold come to: its pool, dice added, target shift, automatic result."""


def roll_changes(
    scope: Scope, spec: RollSpec, changes: tuple[tuple[ChangeSpec, tuple[Clause, ...], Amount, TraceSpec], ...]
) -> _Changed:
    """The changes of a roll that hold, each traced, in order."""
    pool = spec.pool
    delta = 0
    shift: int | Fraction = 0
    automatic = None if spec.kind != "automatic" else ("success" if spec.success else "failure")
    for change, clauses, amount, trace in changes:
        decided = -1
        for position, clause in enumerate(clauses):
            if not clause(scope):
                decided = position
                break
        scope.trace.append(TraceEntry(trace, decided, scope.v, scope.e))
        if decided >= 0:
            continue
        if change.kind == "pool":
            pool = change.pool
        elif change.kind == "dice":
            delta += change.delta
        elif change.kind == "target":
            shift += amount(scope) if callable(amount) else amount
        elif automatic != "failure":
            automatic = "success" if change.success else "failure"
    return pool, delta, shift, automatic


def rolled(
    scope: Scope,
    spec: RollSpec,
    found: Any,
    pool: tuple[int, int, str | None] | None,
    delta: int,
    shift: int | Fraction,
    automatic: str | None,
    cached: bool = False,
) -> Roll:
    """A roll from its values (`found`: target, bonus, dice value and count needed; or the two
    sides of a resistance or opposed roll) and its changes: its dice, exact chances, consequences."""
    book = scope.book
    goal: int | Fraction | None = None
    bonus: int | Fraction = 0
    op = spec.op
    dice = ""
    value: Dice | None = None
    needed = 0
    if spec.kind == "resist":
        assert book.resistance is not None and book.resistance_pool is not None
        active, passive = found
        goal = book.resistance(active, passive)
        pool = book.resistance_pool
        op = book.resistance_op
    elif spec.kind in ("check", "total", "count"):
        goal, bonus, value, needed = found
        if goal is not None:
            goal += shift
    if value is not None:
        value = value.with_dice(delta) if delta else value
        dice = str(value)
    elif pool is not None:
        count, sides, keep = pool
        pool = (max(count + delta, 1), sides, keep)
        dice = pool_text(pool)
    if automatic is not None:
        dice = dice or "none"
    elif spec.kind == "opposed":
        assert spec.pool is not None and spec.against is not None
        dice = f"{pool_text(spec.pool)} vs {pool_text(spec.against)}"
        op = "vs"
    pair = found if spec.kind == "opposed" and automatic is None else None
    chances = _chances_of(book, spec, automatic, pool, value, goal, bonus, op, needed, pair, cached)
    probability, outcomes, margins, totals, successes = chances
    consequences = []
    for consequence in spec.consequences:
        after = None
        if consequence.target is not None and consequence.op is not None:
            target = consequence.target
            current: Value = scope.e[target] if target in scope.e else scope.v[target]
            amount = consequence.value(scope) if callable(consequence.value) else consequence.value
            after = _apply_one(book.inputs[consequence.target], current, consequence.op, amount, consequence.rounding)
        chance = outcomes.get(consequence.outcome, Fraction(0))
        consequences.append(Consequence(consequence.outcome, consequence.text, chance, consequence.target, whole(after)))
    return Roll(
        spec=spec,
        dice=dice,
        bonus=whole(bonus),
        comparison=op,
        target=whole(goal),
        probability=probability,
        automatic=automatic,
        outcomes=outcomes,
        margins=margins,
        totals=totals,
        successes=successes,
        needed=needed if spec.kind == "count" else None,
        consequences=tuple(consequences),
    )


_Chances = tuple[
    Fraction | None, Mapping[str, Fraction], Mapping[int, Fraction], Mapping[int, Fraction], Mapping[int, Fraction]
]
"""A roll's chance of success, and of each outcome, margin, total and number of successes."""

_MAX_CACHED: Final = 4096
"""The most roll chances (or table cells) a book keeps looked up; past it, the store starts over."""


def _chances_of(
    book: Book,
    spec: RollSpec,
    automatic: str | None,
    pool: tuple[int, int, str | None] | None,
    value: Dice | None,
    goal: int | Fraction | None,
    bonus: int | Fraction,
    op: str | None,
    needed: int,
    pair: Any,
    cached: bool,
) -> _Chances:
    """The chances of a roll, worked out once for what decides them (`cached`: looked up when
    worked out before, and returned read-only, as every resolution of it shares them)."""
    if not cached:
        return _roll_chances(book, spec, automatic, pool, value, goal, bonus, op, needed, pair)
    key = (id(spec), automatic, pool, value, goal, bonus, op, needed, pair)
    found = book.chances.get(key)
    if found is None:
        probability, outcomes, margins, totals, successes = _roll_chances(
            book, spec, automatic, pool, value, goal, bonus, op, needed, pair
        )
        if len(book.chances) >= _MAX_CACHED:
            book.chances.clear()
        found = book.chances[key] = (
            probability,
            _ReadOnly(outcomes),
            _ReadOnly(margins),
            _ReadOnly(totals),
            _ReadOnly(successes),
        )
    return found


class _ReadOnly(dict[Any, Any]):
    """A dict that cannot be changed (it reads and prints as one): the chances a book keeps are
    shared by every resolution that reports them."""

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> Any:
        raise TypeError("the chances of a roll are shared by every resolution of it: copy them to change them")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse


def _roll_chances(
    book: Book,
    spec: RollSpec,
    automatic: str | None,
    pool: tuple[int, int, str | None] | None,
    value: Dice | None,
    goal: int | Fraction | None,
    bonus: int | Fraction,
    op: str | None,
    needed: int,
    pair: Any,
) -> _Chances:
    """The exact chances of a roll: of success, of each outcome (tiers, win/tie/lose), margin,
    total (a roll without a target) and number of successes (a count)."""
    outcomes: dict[str, Fraction] = {}
    margins: dict[int, Fraction] = {}
    totals: dict[int, Fraction] = {}
    successes: dict[int, Fraction] = {}
    probability: Fraction | None
    if automatic is not None:
        probability = Fraction(1 if automatic == "success" else 0)
    elif spec.kind == "opposed":
        assert spec.pool is not None and spec.against is not None
        first, second = pair
        diff = book.pool_difference(spec.pool, spec.against)
        edge = Fraction(second) - Fraction(first)
        win = 1 - diff.at_most_p(edge)
        tie = diff.between_p(edge, edge) if edge.denominator == 1 else Fraction(0)
        outcomes = {"win": win, "tie": tie, "lose": 1 - win - tie}
        probability = win + (tie if spec.ties == "win" else 0)
    elif spec.kind == "count":
        assert goal is not None and op is not None
        if value is not None:
            count, sides = value.first_count(), value.terms[0][1] if value.terms else 2
        else:
            assert pool is not None
            count, sides = pool[0], pool[1]
        successes = _successes(count, sides, op, goal)
        probability = sum((p for k, p in successes.items() if k >= needed), Fraction(0))
        outcomes = {"success": probability, "failure": 1 - probability}
    else:
        horizon = _horizon(goal, bonus, spec.tiers) if pool is not None and pool[2] == "exploding" else None
        dist = book.dice(value) if value is not None else book.pool(pool, horizon)  # type: ignore[arg-type]
        if spec.kind == "total":
            totals = {t + bonus: p for t, p in dist.chances().items()}  # type: ignore[misc]
            probability = None
            outcomes = _tiers(dist, spec.tiers, Fraction(0), bonus, None) if spec.tiers else {}
        else:
            assert goal is not None and op is not None
            if spec.tiers:
                outcomes = _tiers(dist, spec.tiers, goal, bonus, op)
                chance = outcomes.pop(" success")
                named = {tier.name for tier in spec.tiers}
                # a tier called success or failure reports its own chance (a plain success:
                # neither special nor critical); `probability` is the overall chance
                outcomes.update({k: v for k, v in (("success", chance), ("failure", 1 - chance)) if k not in named})
            else:
                chance = dist.compare_p(op, Fraction(goal) - bonus)
                outcomes = {"success": chance, "failure": 1 - chance}
            probability = chance
            if spec.margin_outcomes:
                margins = _margins(dist, op, Fraction(goal) - bonus, "success" in spec.margin_outcomes)
    return probability, outcomes, margins, totals, successes


def table_result(scope: Scope, table: TableSpec) -> TableResult:
    """A table consulted: every row (with its chance, for a rolled table), and the row the
    situation selects."""

    def row_result(row: RowSpec, probability: Fraction | None, steps: tuple[str, ...] = ()) -> TableRow:
        values: dict[str, Value] = {}
        for column, cell in zip(table.columns, row.cells, strict=True):
            values[column] = whole(cell(scope) if callable(cell) else cell)
        return TableRow(row.key, values, row.steps + steps, probability)

    def traced(item: str, clause: str, names: tuple[str, ...], verdict: str) -> None:
        spec = TraceSpec(table.name, table.source, item, (clause,), (names,), verdict)
        scope.trace.append(TraceEntry(spec, -1, scope.v, scope.e))

    keys = {name: scope.v[name] for name in table.inputs}
    if table.pool is None:
        row = table.row_for(tuple(keys.values())[:1])
        rows = tuple(row_result(r, None) for r in table.rows)
        selected = row_result(row, None) if row is not None else None
        shown = ", ".join(show(k) for k in keys.values())
        found = f"row {row.key}" if row is not None else "no row"
        traced(f"look up {table.name}: {found}", f"{table.name}[{shown}]", table.inputs, found)
        return TableResult(table.name, table.title, table.source, None, keys, None, selected, rows)
    dist = scope.book.pool(table.pool)
    offset = table.sign * int(scope.v[table.modifier]) if table.modifier else 0
    if table.modifier:
        keys[table.modifier] = scope.v[table.modifier]
    chances: dict[int, Fraction] = {}
    for index, row in enumerate(table.rows):
        if row.is_else:
            continue
        low = row.low if row.low is not None else dist.low
        high = row.high if row.high is not None else dist.high + max(offset, 0)
        probability = dist.between_p(low - offset, high - offset)
        if table.above is not None and table.becomes is not None and low <= table.becomes <= high:
            probability += 1 - dist.at_most_p(table.above - offset)
        chances[index] = probability
    rest = 1 - sum(chances.values(), Fraction(0))  # what the `else` row takes
    rows_out = [row_result(row, chances.get(index, rest)) for index, row in enumerate(table.rows)]
    selected = None
    result = None
    rolled = scope.v.get("roll")
    if rolled is not None:
        result = int(rolled) + offset
        steps: tuple[str, ...] = ()
        if table.above is not None and table.becomes is not None and result > table.above:
            result = table.becomes
            steps = (table.overflow_step,) if table.overflow_step else ()
        row = table.row_for((result,))
        if row is not None:
            selected = row_result(row, None, steps)
    dice = pool_text(table.pool)
    if table.modifier:
        dice += f" {'+' if table.sign > 0 else '-'} {table.modifier}"
    if result is not None:
        found = f"row {selected.key}" if selected is not None else "no row"
        rolled_as = f"roll {'+' if table.sign > 0 else '-'} {table.modifier}" if table.modifier else "roll"
        read = ("roll", table.modifier) if table.modifier else ("roll",)
        traced(f"roll on {table.name}: {result}, {found}", f"{rolled_as} = {result}", read, found)
    else:
        traced(f"roll {dice} on {table.name}", "no roll given", (), "every row with its chance")
    return TableResult(table.name, table.title, table.source, dice, keys, result, selected, tuple(rows_out))


# ---------------------------------------------------------------------------- entry point


def resolve_with(
    book: Book,
    names: str | Sequence[str],
    given: Mapping[str, object],
    signature: bool = False,
    reference: bool = False,
) -> Resolution:
    """Resolve a situation in which the named rules and tables apply together.

    `signature`: `given` comes from a per-rule function, whose parameters all have a value; one
    at its default counts as not given (no "had no effect" note for what the caller never said).
    `reference`: work it out step by step from the rules as written (`_Situation`), not by the
    rules' plan; the two give the same Resolution, and the tests hold them to it."""
    if isinstance(names, str):
        names = (names,)
    elif isinstance(names, (bytes, bytearray)) or not isinstance(names, Iterable):
        raise RuleInputError(f"name the rules as text or a sequence of texts, not {_shown(names)}")
    chosen: list[str] = []
    for name in names:
        if not isinstance(name, str):
            raise RuleInputError(f"rule names are text, not {_shown(name)}")
        if name not in book.rules:
            hint = _close(name, list(book.rules)) if len(name) <= 100 else ""
            raise RuleInputError(
                f"no rule or table `{_clip(name)}` in {book.info.name}" + (f"; {hint}" if hint else "")
            )
        if name not in chosen:
            chosen.append(name)
    if not chosen:
        raise RuleInputError("name at least one rule or table to resolve")
    values: dict[str, Any] = dict(book.defaults)
    plan = book.plan(tuple(chosen))
    read = plan.reads
    supplied: set[str] = set()
    for key, raw in given.items():
        spec = book.inputs.get(key)
        if spec is not None and raw is None and spec.derived is not None:
            continue  # None asks for the computed default
        if spec is None:
            rolled = [book.tables[x] for x in chosen if x in book.tables and book.tables[x].pool is not None]
            if key == "roll" and rolled:
                values["roll"] = _roll_input(raw, book, chosen)
                supplied.add(key)
                continue
            if key == "roll" and any(name in book.tables for name in chosen):
                raise RuleInputError(
                    f"`roll` selects a row of a table rolled with dice; {', '.join(chosen)} is looked up by its inputs"
                )
            hint = _close(key, list(book.inputs)) if len(key) <= 100 else ""
            raise RuleInputError(f"no input `{_clip(key)}` in {book.info.name}" + (f"; {hint}" if hint else ""))
        if key not in read:
            # a value no rule of the situation reads would be silently ignored: say where it belongs
            readers = [info.name for info in book.rules.values() if key in info.reads]
            where = (
                f"it is read by {', '.join(readers[:6])}{' ...' if len(readers) > 6 else ''}"
                if readers
                else "no rule reads it"
            )
            raise RuleInputError(f"`{key}` has no effect on {', '.join(chosen)}: {where}")
        values[key] = value = spec.coerce(raw)
        if not signature or value != book.defaults.get(key):
            supplied.add(key)
    if reference:
        return _Situation(book, tuple(chosen), values, frozenset(supplied)).finish()
    straight = book.straight.get(chosen[0]) if len(chosen) == 1 else None
    if straight is not None:
        return straight(values, frozenset(supplied))
    return plan.resolve(values, frozenset(supplied))


_MAX_HORIZON = 100_000
"""The highest total of exploding dice whose chance a resolver works out."""

_MAX_COMBINATIONS = 1_000_000
"""The most pairs of totals combined to work out a dice value's distribution (`Dice.totals`)."""

_MAX_POOL_DICE = 100
_MAX_POOL_SIDES = 1000
"""The largest pool of a dice value whose distribution is worked out (as the compiler's E303 bound
for the pools a rulebook writes): a dice input given when resolving (`--set damage=5000d6`) is
refused at once, not worked on for minutes."""

_MAX_DICE_WORK = 2_000_000
"""The most dice times totals of a dice value (adding each die costs a pass over the totals):
100d100 is 100 x 9,901; five of them added (500 dice, 49,501 totals) are refused."""


def pool_text(pool: tuple[int, int, str | None], short: bool = False) -> str:
    """`3d6`, `1d20` (`d20` when short), `highest of 2d20`, `highest 3 of 5d10`, `4dF`, `exploding 1d6`."""
    count, sides, keep = pool
    if keep == "fate":
        return "dF" if short and count == 1 else f"{count}dF"
    text = f"d{sides}" if short and count == 1 else f"{count}d{sides}"
    if keep == "exploding":
        return f"exploding {text}"
    return f"{keep} of {text}" if keep else text


def _measure(spec: InputSpec, value: Value) -> Fraction:
    """Where a value stands, to weigh modifiers against each other: a number itself, a dice
    expression its average total, a level its place."""
    if isinstance(value, Dice):
        return sum((total * chance for total, chance in value.totals().items()), Fraction(0))
    if spec.kind == "levels":
        return Fraction(spec.members.index(str(value)))
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        return Fraction(value)
    return Fraction(0)


def _divide(value: int | Fraction, by: int | Fraction) -> int | Fraction:
    """Exact division that keeps whole results as ints."""
    if type(value) is int and type(by) is int and value % by == 0:
        return value // by
    return Fraction(value) / by


def _dice_value(
    base: Value, held: list[tuple[ModSpec, Any]], order: StatOrder | None
) -> tuple[Value, list[tuple[Status, str | None]]]:
    statuses: list[tuple[Status, str | None]] = [("applied", None)] * len(held)
    sets = [i for i, (spec, _) in enumerate(held) if spec.op == "set"]
    value = held[sets[-1]][1] if sets else base
    for i in sets[:-1]:
        statuses[i] = ("overridden", f"{held[sets[-1]][0].rule}: {held[sets[-1]][0].text}")
    assert isinstance(value, Dice)
    indexes = in_rule_order(order.rules if order else (), [spec.rule for spec, _ in held])
    for step in order.kinds if order is not None else MODIFIER_KINDS["dice"]:
        for i in indexes:
            spec, amount = held[i]
            if spec.op not in KIND_OPS[step]:
                continue
            if spec.op == "dice":
                wanted = value.first_count() + int(amount)
                value = value.with_dice(int(amount))
                if value.first_count() != wanted and not value.constant:
                    statuses[i] = ("capped", "a pool keeps at least one die")
            elif spec.op == "step":
                value = value.stepped(int(amount))
            elif spec.op == "add":
                value = value.plus(amount if isinstance(amount, Dice) else int(amount))
            else:
                factor = Fraction(amount) if spec.op == "mul" else 1 / Fraction(amount)
                value = value.scaled(factor, spec.rounding)
    return value, statuses


def _level_value(
    spec_in: InputSpec, base: Value, held: list[tuple[ModSpec, Any]]
) -> tuple[Value, list[tuple[Status, str | None]]]:
    statuses: list[tuple[Status, str | None]] = [("applied", None)] * len(held)
    members = spec_in.members
    sets = [i for i, (spec, _) in enumerate(held) if spec.op == "set"]
    value = str(held[sets[-1]][1]) if sets else str(base)
    for i in sets[:-1]:
        statuses[i] = ("overridden", f"{held[sets[-1]][0].rule}: {held[sets[-1]][0].text}")
    index = members.index(value)
    index += sum(int(a) for spec, a in held if spec.op == "shift")
    index = min(max(index, 0), len(members) - 1)
    caps = [members.index(str(a)) for spec, a in held if spec.op == "max"]
    floors = [members.index(str(a)) for spec, a in held if spec.op == "min"]
    if caps:
        index = min(index, min(caps))
    if floors:
        index = max(index, max(floors))
    return members[index], statuses


def _set_only(base: Value, held: list[tuple[ModSpec, Any]]) -> tuple[Value, list[tuple[Status, str | None]]]:
    statuses: list[tuple[Status, str | None]] = [("applied", None)] * len(held)
    for i in range(len(held) - 1):
        statuses[i] = ("overridden", f"{held[-1][0].rule}: {held[-1][0].text}")
    return held[-1][1], statuses


def _tiers(
    dist: Distribution, tiers: tuple[TierSpec, ...], goal: int | Fraction, bonus: int | Fraction, op: str | None
) -> dict[str, Fraction]:
    """Outcome tiers, first match wins, total by total: `roll` tests the total (dice and what is
    added to them), `natural` the dice alone.  With a comparison, the key " success" holds the
    chance of success, where a tier that `always` succeeds or fails decides whatever the target."""
    bounds = {tier.name: Fraction(tier.bound(goal)) for tier in tiers if tier.bound is not None}
    found = {tier.name: Fraction(0) for tier in tiers}
    success = Fraction(0)
    chances = list(dist.chances().items())
    if dist.limit is not None:  # exploding: every total above the limit falls in the same tiers
        chances.append((dist.limit + 1, 1 - dist.at_most_p(dist.limit)))
    for natural, chance in chances:
        total = natural + bonus
        chosen = None
        for tier in tiers:
            if tier.natural is not None:
                holds = tier.natural[0] <= natural <= tier.natural[1]
            elif tier.op == "<=":
                holds = total <= bounds[tier.name]
            elif tier.op == ">=":
                holds = total >= bounds[tier.name]
            else:
                holds = True
            if holds:
                chosen = tier
                break
        if chosen is not None:
            found[chosen.name] += chance
        if op is not None:
            won = chosen.always == "success" if chosen is not None and chosen.always else _meets(total, op, goal)
            success += chance if won else 0
    if op is not None:
        found[" success"] = success
    return found


def _horizon(goal: int | Fraction | None, bonus: int | Fraction, tiers: tuple[TierSpec, ...]) -> int:
    """The highest total of the dice alone whose chance a roll needs (exploding dice have no
    highest total): past the target and every tier's bound."""
    edges = [Fraction(goal) - bonus] if goal is not None else []
    edges += [Fraction(tier.bound(goal if goal is not None else 0)) - bonus for tier in tiers if tier.bound is not None]
    edges += [Fraction(tier.natural[1]) for tier in tiers if tier.natural is not None]
    return max((math.ceil(edge) for edge in edges), default=0) + 1


def _meets(total: int | Fraction, op: str, goal: int | Fraction) -> bool:
    if op == "<=":
        return total <= goal
    if op == "<":
        return total < goal
    if op == ">=":
        return total >= goal
    if op == ">":
        return total > goal
    if op == "==":
        return total == goal
    return total != goal


def _successes(count: int, sides: int, op: str, goal: int | Fraction) -> dict[int, Fraction]:
    """How many of `count` dice meet the target, each number with its chance (a binomial)."""
    meeting = sum(1 for face in range(1, sides + 1) if _meets(face, op, goal))
    total = sides**count
    return {
        k: Fraction(math.comb(count, k) * meeting**k * (sides - meeting) ** (count - k), total)
        for k in range(count + 1)
        if (meeting or k == 0) and (meeting < sides or k == count)
    }


def _apply_one(spec: InputSpec, current: Value, op: str, amount: Any, rounding: str | None) -> Value:
    """A stat's value with one more modifier on top: what an outcome's consequence makes of it."""
    if spec.kind == "dice":
        assert isinstance(current, Dice)
        if op == "set":
            return amount  # type: ignore[no-any-return]
        if op == "dice":
            return current.with_dice(int(amount))
        if op == "step":
            return current.stepped(int(amount))
        if op == "add":
            return current.plus(amount if isinstance(amount, Dice) else int(amount))
        factor = Fraction(amount) if op == "mul" else 1 / Fraction(amount)
        return current.scaled(factor, rounding)
    if spec.kind == "levels":
        members = spec.members
        index = members.index(str(current))
        if op == "set":
            return str(amount)
        if op == "shift":
            return members[min(max(index + int(amount), 0), len(members) - 1)]
        other = members.index(str(amount))
        return members[max(index, other) if op == "min" else min(index, other)]
    if spec.kind not in ("int", "number", "percent") or op == "set":
        return amount  # type: ignore[no-any-return]
    value: Fraction | int = current  # type: ignore[assignment]
    if op == "add":
        value = value + amount
    elif op in ("mul", "div"):
        value = value * amount if op == "mul" else Fraction(value) / amount
        if rounding:
            value = round_value(value, rounding)
    elif op == "min":
        value = max(value, amount)
    elif op == "max":
        value = min(value, amount)
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return value.numerator
        if spec.kind != "number":
            return round_value(value, "down")
    return value


def _margins(dist: Distribution, op: str, target: int | Fraction, successes: bool) -> dict[int, Fraction]:
    """The chance of each margin (how far the total lands from the target) on failure or success."""
    margins: dict[int, Fraction] = {}
    for total in range(dist.low, dist.high + 1):
        p = dist.between_p(total, total)
        if p == 0:
            continue
        success = {
            "<=": total <= target,
            "<": total < target,
            ">=": total >= target,
            ">": total > target,
            "==": total == target,
            "!=": total != target,
        }[op]
        if success != successes:
            continue
        margin = abs(math.floor(total - target)) if total >= target else math.ceil(target - total)
        margins[margin] = margins.get(margin, Fraction(0)) + p
    return dict(sorted(margins.items()))


def _roll_input(raw: object, book: Book, chosen: list[str]) -> int:
    rolled = [book.tables[name] for name in chosen if name in book.tables and book.tables[name].pool is not None]
    try:
        number = _as_number(raw)
    except _HugeNumber:
        number = None
    if number is None or number.denominator != 1:
        raise RuleInputError(f"input `roll` must be a whole number, not {_shown(raw)}")
    for table in rolled:
        assert table.pool is not None
        dist = book.pool(table.pool)
        if not dist.low <= number <= dist.high:
            raise RuleInputError(
                f"input `roll` must be a result of {pool_text(table.pool)} ({dist.low}..{dist.high}), not {_shown(raw)}"
            )
    return number.numerator


_RuleFunction = TypeVar("_RuleFunction", bound=Callable[..., "Resolution"])


def inputs_by_name(function: _RuleFunction) -> _RuleFunction:
    """A rule's own typed function, made to refuse an input passed by position or one the rule
    does not read with RuleInputError, as `resolve` does, rather than Python's TypeError.  Its
    signature stays what it is for type checkers and `help()`."""
    names = frozenset(function.__kwdefaults__ or ())
    title = function.__name__

    def checked(*args: object, **inputs: object) -> Resolution:
        if args:
            raise _call_error(title, sorted(names), args, inputs)
        try:
            return function(**inputs)
        except TypeError:
            if not names.issuperset(inputs):  # looked at only when Python refused the call
                raise _call_error(title, sorted(names), args, inputs) from None
            raise

    return cast(_RuleFunction, functools.update_wrapper(checked, function))


def _call_error(title: str, names: list[str], args: tuple[object, ...], inputs: Mapping[str, object]) -> RuleInputError:
    example = f"{title}({names[0]}=...)" if names else f"{title}()"
    if args:
        return RuleInputError(f"{title}() takes its inputs by name, as in {example}, not by position")
    unknown = next(key for key in inputs if key not in names)
    hint = _close(unknown, names) if len(unknown) <= 100 else ""
    reads = f"it reads {', '.join(names)}" if names else "it reads no input"
    return RuleInputError(f"{title}() has no input `{_clip(unknown)}`; " + (hint or reads))


def _clip(text: str, limit: int = 60) -> str:
    """A name or text quoted in a message, cut short if it is long."""
    return _printable(text if len(text) <= limit else text[: limit - 20] + "\u2026")


def _surrogate(text: str) -> int | None:
    """The first half of a UTF-16 surrogate pair standing alone in `text`, if any: Python text can
    hold one (decoded with `surrogateescape` from bytes that are not UTF-8, say, or written as
    "\\ud800"), but no UTF-8 output can, so it is refused where it comes in, not where it is printed."""
    if text.isascii():
        return None
    found = _SURROGATE.search(text)
    return None if found is None else ord(found.group())


def _printable(text: str) -> str:
    """`text` with each lone surrogate written as its escape, so that a message quoting it can be
    printed and written as UTF-8."""
    return text if text.isascii() else _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def cell_add(left: Any, right: Any) -> Any:
    """Add table cells: X (impassable) absorbs everything, then N/A."""
    for special in (IMPASSABLE, NOT_APPLICABLE):
        if left == special or right == special:
            return special
    return left + right


# ---------------------------------------------------------------------------- chains
#
# A table row or a roll's outcome may send the reader on: `then roll TABLE +N`, `then roll twice`,
# `then roll again +N`, `above N: as M then roll again`.  A chain is the whole procedure from one
# roll to the end, with the exact chance of each way it can go.  The rules (docs/language.md,
# "Chains"):
# - a chained roll on a table is its dice plus the step's modifier (`+N`, or 0): the table's own
#   modifier input belongs to the first roll of the situation only;
# - `roll twice` rolls the same table twice with the same modifier; a roll-twice row met by one of
#   those two rolls is rolled again, so a roll twice gives exactly two other rows (duplicates
#   count twice);
# - a row that only sends on (`roll on`, `roll twice`) is a pointer; every other row visited
#   applies, `roll again` rows included ("apply the results").
# Chains without a cycle are listed completely; a chain that can come back to a table it left
# (`roll again`) is listed up to CHAIN_DEPTH rolls in a row with the exact chance of the rest, and
# its expected number of rolls, expected visits of each row and expected value totals are solved
# exactly (an absorbing Markov chain: a linear system over Fractions).

CHAIN_DEPTH: Final = 4
"""How many rolls in a row a chain that can repeat is listed to; the rest is one chance."""

_STEP = re.compile(r"roll on (?P<table>\w+)(?: (?P<on>[+-]\d+))?|roll twice on this table|roll again(?: (?P<again>[+-]\d+))?")

_ChainState = tuple[str, int, bool]  # table, modifier of the roll, drawn for a roll twice


@dataclass(frozen=True, slots=True)
class ChainStep:
    """One row a chain visits: the table, what was rolled, the row and the step it leads to."""

    table: str
    roll: str  # "d6 + 1"
    key: str  # the row's key; "above 10 as 10" for a folded total
    text: str  # the row's values
    then: tuple[str, ...]  # the steps it leads to ("roll on fire_control +1")
    applies: bool  # False for a row that only sends on
    depth: int  # 0 for the first roll; the two rolls of a roll twice one deeper

    @property
    def row(self) -> str:
        return f"{self.table} {self.key}"

    def to_dict(self) -> dict[str, object]:
        """The row itself (once per chain, in its `rows`)."""
        return {"table": self.table, "key": self.key, "text": self.text, "then": list(self.then), "applies": self.applies}


@dataclass(frozen=True, slots=True)
class ChainOutcome:
    """One way a chain can go: the rows visited, the results that apply and its chance."""

    path: tuple[ChainStep, ...]
    probability: Fraction  # of the whole path, the start's chance included
    totals: Mapping[str, int | Fraction]  # each value column summed over the rows that apply

    @property
    def results(self) -> tuple[str, ...]:
        return tuple(f"{s.table} {s.key}: {s.text}" for s in self.path if s.applies)

    def to_dict(self) -> dict[str, object]:
        return {
            "path": [{"row": s.row, "roll": s.roll, "depth": s.depth} for s in self.path],
            "totals": {k: number_json(v) for k, v in self.totals.items()},
            "probability": probability_json(self.probability),
        }


@dataclass(frozen=True, slots=True)
class FlowStep:
    """A line of a chain's flow: a row of one roll, the chance of it on that roll, and the chance
    of reaching it by this route (a roll twice's rows: on each of its two rolls)."""

    depth: int
    table: str
    roll: str
    key: str
    text: str
    chance: Fraction
    reach: Fraction
    then: tuple[str, ...]
    repeats: bool  # it leads back to a roll shown above on this route (not shown again)
    twice: bool = False  # a row of one of the two rolls of a roll twice

    def to_dict(self) -> dict[str, object]:
        return {
            "depth": self.depth,
            "row": f"{self.table} {self.key}",
            "roll": self.roll,
            "text": self.text,
            "chance": probability_json(self.chance),
            "reach": probability_json(self.reach),
            "then": list(self.then),
            "repeats": self.repeats,
            "twice": self.twice,
        }


@dataclass(frozen=True, slots=True)
class Chain:
    """The whole procedure from a table or a roll's outcome: every way it goes, exactly."""

    rule: str  # the rule or table the chain starts from
    start: str  # "table heavy_damage (d6)", "roll maneuver_roll: failure"
    probability: Fraction  # the chance the chain starts
    outcomes: tuple[ChainOutcome, ...]
    complete: bool  # every way is listed; else those of more than `depth` rolls in a row are not
    depth: int | None
    beyond: Fraction  # the chance of the ways not listed
    rolls: Fraction | None  # expected number of rolls (None: the procedure need not end)
    visits: Mapping[str, Fraction]  # expected times each row is visited ("table key")
    means: Mapping[str, Fraction]  # expected total of each value column
    flow: tuple[FlowStep, ...] = ()  # each roll once per route, its rows with their chances

    def chance(self, row: str) -> Fraction:
        """The chance that a row ("table key") is visited at least once, over the ways listed."""
        return sum((o.probability for o in self.outcomes if any(s.row == row for s in o.path)), Fraction(0))

    def distribution(self, column: str) -> dict[int | Fraction, Fraction]:
        """The chance of each total of a value column, over the ways listed."""
        found: dict[int | Fraction, Fraction] = {}
        for outcome in self.outcomes:
            total = outcome.totals.get(column, 0)
            found[total] = found.get(total, Fraction(0)) + outcome.probability
        return dict(sorted(found.items()))

    def to_dict(self) -> dict[str, object]:
        columns = sorted({c for o in self.outcomes for c in o.totals})
        return {
            "rule": self.rule,
            "start": self.start,
            "probability": probability_json(self.probability),
            "complete": self.complete,
            "depth": self.depth,
            "beyond": probability_json(self.beyond),
            "rolls": None if self.rolls is None else number_json(self.rolls),
            "visits": {k: number_json(v) for k, v in self.visits.items()},
            "means": {k: number_json(v) for k, v in self.means.items()},
            "totals": {
                c: [{"total": number_json(t), "probability": probability_json(p)} for t, p in self.distribution(c).items()]
                for c in columns
            },
            "flow": [s.to_dict() for s in self.flow],
            "rows": {s.row: s.to_dict() for o in self.outcomes for s in o.path},
            "outcomes": [o.to_dict() for o in self.outcomes],
        }


def parse_step(step: str, table: str) -> tuple[str, int, bool]:
    """A row's step as the compiler writes it: (table rolled, its modifier, roll twice)."""
    found = _STEP.fullmatch(step)
    assert found is not None, f"not a step: {step!r}"
    if found["table"] is not None:
        return found["table"], int(found["on"] or 0), False
    if step.startswith("roll twice"):
        return table, 0, True
    return table, int(found["again"] or 0), False


@dataclass(frozen=True, slots=True)
class _Draw:
    """One row of a chained roll: its chance, the step record and the rolls it leads to."""

    probability: Fraction
    step: ChainStep
    children: tuple[_ChainState, ...]
    values: Mapping[str, int | Fraction]


def _chain_draws(scope: Scope, state: _ChainState) -> tuple[_Draw, ...]:
    """The rows a roll of a table (with a modifier; for a roll twice, without its roll-twice
    rows) can give, each with its exact chance.  Kept per book: a chain's rolls repeat."""
    book = scope.book
    cache: dict[_ChainState, tuple[_Draw, ...]] = book.chains
    found = cache.get(state)
    if found is not None:
        return found
    name, offset, for_twice = state
    table = book.tables[name]
    assert table.pool is not None
    roll = pool_text(table.pool, short=True) + (f" {'+' if offset > 0 else '-'} {abs(offset)}" if offset else "")
    ways: dict[tuple[int, bool], Fraction] = {}
    for total, chance in book.pool(table.pool).chances().items():
        total += offset
        folded = table.above is not None and table.becomes is not None and total > table.above
        if folded:
            assert table.becomes is not None
            total = table.becomes
        row = table.row_for((total,))
        if row is None:
            continue  # the checker proves every reachable total has a row
        index = table.rows.index(row)
        ways[(index, folded)] = ways.get((index, folded), Fraction(0)) + chance
    draws: list[_Draw] = []
    constant = True
    for (index, folded), chance in ways.items():
        row = table.rows[index]
        steps = row.steps + ((table.overflow_step,) if folded and table.overflow_step else ())
        parsed = [parse_step(step, name) for step in steps]
        if for_twice and any(twice for _, _, twice in parsed):
            continue  # rolled again: a roll twice gives two other rows
        children: list[_ChainState] = []
        for target, modifier, twice in parsed:
            children += [(target, offset, True)] * 2 if twice else [(target, modifier, False)]
        values: list[Value] = []
        for cell in row.cells:
            constant = constant and not callable(cell)
            values.append(whole(cell(scope) if callable(cell) else cell))
        applies = not parsed or any(target == name and not twice for target, _, twice in parsed)
        text = ", ".join(show(v) for v in values if v != "")
        key = f"above {table.above} as {row.key}" if folded else row.key
        numbers = {
            column: value
            for column, value in zip(table.columns, values, strict=True)
            if applies and isinstance(value, (int, Fraction)) and not isinstance(value, bool)
        }
        draws.append(_Draw(chance, ChainStep(name, roll, key, text, steps, applies, 0), tuple(children), numbers))
    kept = sum((d.probability for d in draws), Fraction(0))
    result = tuple(
        _Draw(d.probability / kept, d.step, d.children, d.values) for d in draws
    )  # renormalized: the rows rolled again are left out
    if constant:
        cache[state] = result
    return result


def _chain_states(scope: Scope, starts: Sequence[_ChainState]) -> tuple[list[_ChainState], bool]:
    """Every roll a chain can come to, and whether one can come back to itself (a cycle)."""
    order: list[_ChainState] = []
    seen: set[_ChainState] = set()
    stack = list(starts)
    while stack:
        state = stack.pop()
        if state in seen:
            continue
        seen.add(state)
        order.append(state)
        stack.extend(c for d in _chain_draws(scope, state) for c in d.children)
    edges = {s: {c for d in _chain_draws(scope, s) for c in d.children} for s in order}
    done: set[_ChainState] = set()
    for root in order:  # a depth-first search for a back edge, without recursion
        if root in done:
            continue
        active = {root}
        path: list[tuple[_ChainState, Iterator[_ChainState]]] = [(root, iter(edges[root]))]
        while path:
            state, children = path[-1]
            child = next(children, None)
            if child is None:
                path.pop()
                active.discard(state)
                done.add(state)
            elif child in active:
                return order, True
            elif child not in done:
                active.add(child)
                path.append((child, iter(edges[child])))
    return order, False


def _solve(matrix: list[list[Fraction]], rhs: list[list[Fraction]]) -> list[list[Fraction]] | None:
    """Solve matrix @ x = rhs (several right-hand sides) exactly; None when singular."""
    size = len(matrix)
    rows = [matrix[i] + rhs[i] for i in range(size)]
    for column in range(size):
        pivot = next((r for r in range(column, size) if rows[r][column] != 0), None)
        if pivot is None:
            return None
        rows[column], rows[pivot] = rows[pivot], rows[column]
        lead = rows[column][column]
        rows[column] = [x / lead for x in rows[column]]
        for r in range(size):
            factor = rows[r][column]
            if r != column and factor != 0:
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[column], strict=True)]
    return [row[size:] for row in rows]


def _expected(
    scope: Scope, order: list[_ChainState], start: _ChainState
) -> tuple[Fraction | None, dict[str, Fraction], dict[str, Fraction]]:
    """Expected number of rolls, visits of each row and total of each value column of the chain
    from `start`: x = b + M x, where M[s][c] sums the chances of the rows of s that roll c."""
    index = {s: i for i, s in enumerate(order)}
    rows: list[str] = []
    columns: list[str] = []
    for state in order:
        for draw in _chain_draws(scope, state):
            label = f"{draw.step.table} {draw.step.key}"
            if label not in rows:
                rows.append(label)
            columns += [c for c in draw.values if c not in columns]
    width = 1 + len(rows) + len(columns)
    matrix = [[Fraction(int(i == j)) for j in range(len(order))] for i in range(len(order))]
    rhs = [[Fraction(0)] * width for _ in order]
    for state in order:
        i = index[state]
        rhs[i][0] = Fraction(1)
        for draw in _chain_draws(scope, state):
            rhs[i][1 + rows.index(f"{draw.step.table} {draw.step.key}")] += draw.probability
            for column, value in draw.values.items():
                rhs[i][1 + len(rows) + columns.index(column)] += draw.probability * value
            for child in draw.children:
                matrix[i][index[child]] -= draw.probability
    solved = _solve(matrix, rhs)
    if solved is None or any(x < 0 for x in solved[index[start]][: 1 + len(rows)]):
        return None, {}, {}  # the procedure need not end: no finite expectation
    found = solved[index[start]]
    visits = {label: found[1 + i] for i, label in enumerate(rows) if found[1 + i]}
    means = {column: found[1 + len(rows) + i] for i, column in enumerate(columns)}
    return found[0], visits, means


_Way = tuple[tuple[ChainStep, ...], Fraction, dict[str, int | Fraction]]


def _ways(scope: Scope, state: _ChainState, depth: int, limit: int | None) -> tuple[list[_Way], Fraction]:
    """Every way a roll goes on, to `limit` rolls in a row, and the chance of the rest."""
    if limit is not None and depth >= limit:
        return [], Fraction(1)
    out: dict[tuple[ChainStep, ...], _Way] = {}
    beyond = Fraction(0)
    for draw in _chain_draws(scope, state):
        step = draw.step
        if depth:
            step = ChainStep(step.table, step.roll, step.key, step.text, step.then, step.applies, depth)
        beyond += _branch(scope, draw.probability, step, draw.values, draw.children, limit, out)
    return list(out.values()), beyond


def _branch(
    scope: Scope,
    chance: Fraction,
    step: ChainStep,
    values: Mapping[str, int | Fraction],
    children: tuple[_ChainState, ...],
    limit: int | None,
    out: dict[tuple[ChainStep, ...], _Way],
) -> Fraction:
    """Add to `out` every way a row visited with `chance` goes on; return the chance left out."""
    branches = [_ways(scope, child, step.depth + 1, limit) for child in children]
    listed = Fraction(1)
    for _, rest in branches:
        listed *= 1 - rest
    combos: list[tuple[list[_Way], Fraction]] = [([], chance)]
    for ways, _ in branches:
        combos = [([*done, way], p * way[1]) for done, p in combos for way in ways]
    twice = len(children) == 2 and children[0] == children[1]
    for parts, p in combos:
        if twice:  # the two rolls of a roll twice are alike: one order of the pair
            parts = sorted(parts, key=lambda way: [(s.table, s.key) for s in way[0]])
        path = (step, *[s for way in parts for s in way[0]])
        totals: dict[str, int | Fraction] = dict(values)
        for way in parts:
            for column, value in way[2].items():
                totals[column] = totals.get(column, 0) + value
        previous = out.get(path)
        out[path] = (path, p + (previous[1] if previous else 0), totals)
    return chance * (1 - listed)


def chain_from(
    scope: Scope, rule: str, start: str, chance: Fraction, state: _ChainState, first: TableRow | None = None
) -> Chain:
    """The chain from a roll on a table (or from a row already selected, `first`), reached with
    `chance`.  Worked out once per book (when its rows are constants), then scaled by `chance`."""
    row = None if first is None else (first.key, first.steps, tuple(first.values.items()))
    key = ("chain", rule, start, state, row)
    found: Chain | None = scope.book.chains.get(key)
    if found is None:
        found, constant = _chain_from(scope, rule, start, state, first)
        if constant:
            scope.book.chains[key] = found
    if chance == 1:
        return found
    outcomes = tuple(ChainOutcome(o.path, o.probability * chance, o.totals) for o in found.outcomes)
    flow = tuple(
        FlowStep(s.depth, s.table, s.roll, s.key, s.text, s.chance, s.reach * chance, s.then, s.repeats, s.twice)
        for s in found.flow
    )
    return Chain(
        found.rule,
        found.start,
        chance,
        outcomes,
        found.complete,
        found.depth,
        found.beyond * chance,
        found.rolls,
        found.visits,
        found.means,
        flow,
    )


def _chain_from(
    scope: Scope, rule: str, start: str, state: _ChainState, first: TableRow | None
) -> tuple[Chain, bool]:
    """The chain with chance 1, and whether every row in it is a constant (it can be kept)."""
    if first is not None:  # the row is known: the chain goes on from its steps
        starts = [parse_step(step, state[0]) for step in first.steps]
        children = [c for t, m, w in starts for c in ([(t, state[1], True)] * 2 if w else [(t, m, False)])]
        applies = any(t == state[0] and not w for t, _, w in starts)
        text = ", ".join(show(v) for v in first.values.values() if v != "")
        head = ChainStep(state[0], "given", first.key, text, first.steps, applies, 0)
        numbers = {
            k: v
            for k, v in first.values.items()
            if applies and isinstance(v, (int, Fraction)) and not isinstance(v, bool)
        }
        order, cyclic = _chain_states(scope, children)
        limit = _chain_depth(scope, order) if cyclic else None
        found: dict[tuple[ChainStep, ...], _Way] = {}
        beyond_all = _branch(scope, Fraction(1), head, numbers, tuple(children), limit, found)
        ways = list(found.values())
        one = Fraction(1)
        lead = [FlowStep(0, head.table, head.roll, head.key, head.text, one, one, head.then, False)]
    else:
        lead = []
        children = [state]
        order, cyclic = _chain_states(scope, children)
        limit = _chain_depth(scope, order) if cyclic else None
        ways, beyond_all = _ways(scope, state, 0, limit)
    rolls: Fraction | None = Fraction(0)
    visits: dict[str, Fraction] = {}
    means: dict[str, Fraction] = {}
    for child in children:
        count, seen, mean = _expected(scope, order, child)
        if count is None or rolls is None:
            rolls = None
            continue
        rolls += count
        for key, value in seen.items():
            visits[key] = visits.get(key, Fraction(0)) + value
        for key, value in mean.items():
            means[key] = means.get(key, Fraction(0)) + value
    outcomes = tuple(
        ChainOutcome(path, p, MappingProxyType(totals))
        for path, p, totals in sorted(ways, key=lambda way: -way[1])
    )
    chain = Chain(
        rule=rule,
        start=start,
        probability=Fraction(1),
        outcomes=outcomes,
        complete=not cyclic,
        depth=limit,
        beyond=beyond_all,
        rolls=rolls,
        visits=MappingProxyType(visits),
        means=MappingProxyType(means),
        flow=tuple(_flow(scope, children, len(lead), Fraction(1), (), lead)),
    )
    return chain, all(s in scope.book.chains for s in order)


def _chain_depth(scope: Scope, order: Sequence[_ChainState]) -> int:
    """How many rolls in a row a chain that can repeat is listed to: the deepest a table it comes
    to states (`chain depth N`), else CHAIN_DEPTH."""
    stated = [d for d in (scope.book.tables[s[0]].depth for s in order) if d is not None]
    return max(stated, default=CHAIN_DEPTH)


def _flow(
    scope: Scope,
    states: Sequence[_ChainState],
    depth: int,
    reach: Fraction,
    route: tuple[_ChainState, ...],
    out: list[FlowStep],
) -> list[FlowStep]:
    """The rows of each roll, each followed by the rolls it leads to, indented; a roll already
    on the route is not shown again (`repeats`).  The two rolls of a roll twice are shown once."""
    shown: list[_ChainState] = []
    for state in states:
        if state in shown:
            continue  # the second roll of a roll twice: as the first
        shown.append(state)
        for draw in _chain_draws(scope, state):
            step = draw.step
            here = reach * draw.probability
            repeats = any(child in route or child == state for child in draw.children)
            out.append(
                FlowStep(depth, step.table, step.roll, step.key, step.text, draw.probability, here, step.then, repeats, state[2])
            )
            if not repeats:
                _flow(scope, draw.children, depth + 1, here, (*route, state), out)
    return out


def chains_of(scope: Scope, rolls: Sequence[Roll], tables: Sequence[TableResult]) -> tuple[Chain, ...]:
    """The chains a situation starts: from each rolled table with a step on some row (from the row
    given, if `roll` was), each table row looked up that sends on, and each roll's outcome that
    does."""
    book = scope.book
    found: list[Chain] = []
    for result in tables:
        spec = book.tables[result.name]
        if not _sends_on(spec):
            continue
        offset = spec.sign * int(scope.v[spec.modifier]) if spec.modifier else 0
        if result.selected is not None:
            if result.selected.steps:
                start = f"table {spec.name}, row {result.selected.key}"
                found.append(chain_from(scope, spec.name, start, Fraction(1), (spec.name, offset, False), result.selected))
        elif spec.pool is not None:
            start = f"table {spec.name} ({result.dice})"
            found.append(chain_from(scope, spec.name, start, Fraction(1), (spec.name, offset, False)))
    for roll in rolls:
        for outcome, step in roll.spec.steps:
            chance = roll.outcomes.get(outcome, Fraction(0))
            target, modifier, _ = parse_step(step, "")
            start = f"roll {roll.spec.name}: {outcome}"
            found.append(chain_from(scope, roll.spec.rule, start, chance, (target, modifier, False)))
    return tuple(found)


# ---------------------------------------------------------------------------- merging
#
# Several rules of one situation may ask for the same roll (darkness and broken ground both ask
# for a fall roll when moving over half MOV): it is rolled once.  Two rolls are the same when,
# as the situation settles them, they have the same name, kind, dice (after their changes),
# bonus, comparison, target, number needed, automatic result and tiers: the same chances of
# every outcome.  What each rule makes of an outcome may differ: the first roll's effects are
# the roll's, the others' stay with it (`merged`).  A roll marked `separate` is never merged.


def _roll_identity(roll: Roll) -> tuple[object, ...]:
    spec = roll.spec
    tiers = tuple(tier.name for tier in spec.tiers)
    return (spec.name, spec.kind, roll.dice, roll.bonus, roll.comparison, roll.target, roll.needed, roll.automatic, tiers)


def merge_rolls(scope: Scope, rolls: Sequence[Roll]) -> tuple[Roll, ...]:
    """The rolls of a situation with each roll asked for by several rules once (`merged_rolls`);
    a trace entry names the rules that asked for it."""
    out = merged_rolls(rolls)
    for roll in out:
        if roll.merged:
            said = f"asked for by {', '.join(roll.asked_by)}: one roll"
            spec = TraceSpec(roll.spec.rule, roll.spec.source, f"roll {roll.spec.name}: {said}", ("same roll",), ((),), said)
            scope.trace.append(TraceEntry(spec, -1, scope.v, scope.e))
    return out


def merged_rolls(rolls: Sequence[Roll]) -> tuple[Roll, ...]:
    """Each roll asked for by several rules once, where first asked for.  A rule that asks twice
    for the same roll gets two; a roll marked `separate` is never merged."""
    first: dict[tuple[object, ...], int] = {}
    out: list[Roll] = []
    for roll in rolls:
        key = _roll_identity(roll)
        where = None if roll.spec.separate else first.get(key)
        if where is not None and roll.spec.rule in out[where].asked_by:
            where = None
        if where is None:
            if not roll.spec.separate and key not in first:
                first[key] = len(out)
            out.append(roll)
            continue
        kept = out[where]
        out[where] = Roll(
            kept.spec,
            kept.dice,
            kept.bonus,
            kept.comparison,
            kept.target,
            kept.probability,
            kept.automatic,
            kept.outcomes,
            kept.margins,
            kept.totals,
            kept.successes,
            kept.needed,
            kept.consequences,
            (*kept.merged, roll),
        )
    return tuple(out)


def _sends_on(table: TableSpec) -> bool:
    return table.overflow_step is not None or any(row.steps for row in table.rows)


__all__ = [
    "CHAIN_DEPTH",
    "IMPASSABLE",
    "NOT_APPLICABLE",
    "Chain",
    "ChainOutcome",
    "ChainStep",
    "Chances",
    "Clamped",
    "Consequence",
    "Dice",
    "Distribution",
    "InputSpec",
    "Modifier",
    "Note",
    "Resolution",
    "Restriction",
    "Roll",
    "RoundResult",
    "RuleInfo",
    "RuleInputError",
    "RulebookInfo",
    "Scaled",
    "SequenceResult",
    "Special",
    "TableResult",
    "TableRow",
    "TraceEntry",
]


# ---------------------------------------------------------------------------- sequences and distributions
#
# A dice-valued result (a derived value, a stat, a total over rounds) is an exact distribution:
# `Chances` answers the questions a player asks of it (the mean, "at least 6 targets", "damage
# left after armour 3").  A sequence resolves a rule round after round (`rounds=N`), carrying
# the chance of still going on and the distribution of what adds up from round to round.


@dataclass(frozen=True, slots=True)
class Chances:
    """The exact distribution of a total: each total that can come up with its chance, lowest
    first (the chances add up to 1)."""

    table: tuple[tuple[int | Fraction, Fraction], ...]

    @classmethod
    def of(cls, value: Dice | Chances | int | Fraction) -> Chances:
        """The distribution of a dice value (RuleInputError past a million combinations), or of a
        number (certain)."""
        if isinstance(value, Chances):
            return value
        if isinstance(value, Dice):
            try:
                return cls(tuple(value.totals(limit=_MAX_COMBINATIONS).items()))
            except ValueError as error:
                raise RuleInputError(str(error)) from None
        return cls(((whole(Fraction(value)), Fraction(1)),))

    @property
    def low(self) -> int | Fraction:
        return self.table[0][0]

    @property
    def high(self) -> int | Fraction:
        return self.table[-1][0]

    @property
    def mean(self) -> Fraction:
        return sum((Fraction(total) * chance for total, chance in self.table), Fraction(0))

    def totals(self) -> dict[int | Fraction, Fraction]:
        return dict(self.table)

    def chance(self, total: Fraction | int) -> Fraction:
        """P(the total is exactly `total`)."""
        return sum((chance for value, chance in self.table if value == total), Fraction(0))

    def at_least(self, total: Fraction | int) -> Fraction:
        """P(the total is `total` or more)."""
        return sum((chance for value, chance in self.table if value >= total), Fraction(0))

    def at_most(self, total: Fraction | int) -> Fraction:
        """P(the total is `total` or less)."""
        return sum((chance for value, chance in self.table if value <= total), Fraction(0))

    def chance_that(self, op: str, bound: Fraction | int) -> Fraction:
        """P(total op bound) for op in <, <=, >, >=, ==, !=: `chance_that(">=", 6)`."""
        tests: dict[str, Callable[[Fraction], bool]] = {
            "<": lambda v: v < bound,
            "<=": lambda v: v <= bound,
            ">": lambda v: v > bound,
            ">=": lambda v: v >= bound,
            "==": lambda v: v == bound,
            "!=": lambda v: v != bound,
        }
        test = tests[op]
        return sum((chance for value, chance in self.table if test(Fraction(value))), Fraction(0))

    def plus(self, other: Chances) -> Chances:
        """The distribution of the sum of two independent totals."""
        if len(self.table) * len(other.table) > _MAX_COMBINATIONS:
            raise RuleInputError("a total has too many values to work out exactly")
        combined: dict[int | Fraction, Fraction] = {}
        for a, pa in self.table:
            for b, pb in other.table:
                key = whole(Fraction(a) + b) if isinstance(a, Fraction) or isinstance(b, Fraction) else a + b
                combined[key] = combined.get(key, Fraction(0)) + pa * pb
        return Chances(tuple(sorted(combined.items())))

    def __repr__(self) -> str:
        return f"<Chances {show(self.low)}..{show(self.high)}, mean {show(self.mean)}>"

    def to_dict(self) -> dict[str, object]:
        return {
            "min": number_json(self.low),
            "max": number_json(self.high),
            "mean": number_json(self.mean),
            "distribution": [{"total": number_json(t), "probability": probability_json(p)} for t, p in self.table],
            "at_least": [
                {"total": number_json(t), "probability": probability_json(p)}
                for t, p in _at_least(dict(self.table)).items()
            ],
        }


def _at_least(totals: Mapping[Any, Fraction]) -> dict[Any, Fraction]:
    """P(total >= k) for each total k that can come up, lowest first."""
    found: dict[Any, Fraction] = {}
    left = Fraction(1)
    for total in sorted(totals):
        found[total] = left
        left -= totals[total]
    return found


def clamp_dice(op: Literal["max", "min"], first: Dice | Fraction | int, second: Dice | Fraction | int) -> Dice:
    """`max(damage - armour, 0)`, `min(targets, 5)`: a dice value kept at or above (or at or below)
    a whole number, still an exact distribution."""
    dice, bound = (first, second) if isinstance(first, Dice) else (second, first)
    if not isinstance(dice, Dice) or isinstance(bound, Dice):
        raise RuleInputError(f"{op}() keeps one dice value within one number")
    if Fraction(bound).denominator != 1:
        raise RuleInputError(f"{op}() keeps dice within a whole number, not {show(Fraction(bound))}")
    return dice.clamped(op, int(bound))


@dataclass(frozen=True, slots=True)
class SequenceSpec:
    """`each round COUNTER: ...` of a rule: the input counting the rounds, where it starts unless
    the caller gives it, the (roll, outcome) that ends the sequence, the input it sets from the
    next round on instead (`then`), and the derived values that add up."""

    rule: str
    unit: str
    counter: str
    start: int
    until: tuple[str, str] | None = None
    then: tuple[str, Value] | None = None
    totals: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One round of a sequence: the counter's value; the chance the sequence is still going when
    the round begins and that it ends in it; the chance of each outcome of each roll made in it
    (a roll not made while the sequence goes on counts for nothing); and the mean of each total
    after it."""

    number: int
    going: Fraction
    ends: Fraction
    rolls: Mapping[str, Mapping[str, Fraction]]
    means: Mapping[str, Fraction]

    def to_dict(self) -> dict[str, object]:
        return {
            "number": self.number,
            "going": probability_json(self.going),
            "ends": probability_json(self.ends),
            "rolls": {
                name: {outcome: probability_json(p) for outcome, p in outcomes.items()}
                for name, outcomes in self.rolls.items()
            },
            "means": {name: number_json(mean) for name, mean in self.means.items()},
        }


@dataclass(frozen=True, slots=True)
class SequenceResult:
    """A rule resolved over rounds: each round, the chance of lasting them all (never the `until`
    outcome; 1 without one), and the exact distribution of each total after the last round."""

    rule: str
    unit: str
    counter: str
    until: str | None
    rounds: tuple[RoundResult, ...]
    lasting: Fraction
    totals: Mapping[str, Chances]

    def to_dict(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "unit": self.unit,
            "counter": self.counter,
            "until": self.until,
            "rounds": [r.to_dict() for r in self.rounds],
            "lasting": probability_json(self.lasting),
            "totals": {name: chances.to_dict() for name, chances in self.totals.items()},
        }


_MAX_ROUNDS = 1000
"""The most rounds a sequence is resolved over: each round is a resolution or two (one per state:
still going, or changed by `then`), so a thousand stays well under a second."""


def resolve_rounds(
    book: Book,
    sequences: Mapping[str, SequenceSpec],
    names: str | Sequence[str],
    given: Mapping[str, object],
    rounds: object,
    signature: bool = False,
) -> Resolution:
    """`resolve(names, rounds=N, ...)`: the situation of the first round, with its sequence over
    N rounds (`Resolution.sequence`).  Without `rounds`, `resolve_with` alone."""
    if rounds is None:
        return resolve_with(book, names, given, signature)
    if type(rounds) is not int or not 1 <= rounds <= _MAX_ROUNDS:
        raise RuleInputError(f"rounds is a whole number from 1 to {_MAX_ROUNDS}, not {_shown(rounds)}")
    chosen = (names,) if isinstance(names, str) else tuple(names)
    specs = [sequences[name] for name in chosen if isinstance(name, str) and name in sequences]
    if not specs:
        first = resolve_with(book, names, given, signature)  # a bad name or input says so first
        with_sequence = ", ".join(sequences) or "none"
        raise RuleInputError(
            f"{', '.join(first.rules)} says nothing changes from round to round (rules with rounds: {with_sequence})"
        )
    if len(specs) > 1:
        raise RuleInputError(f"resolve one sequence at a time: {', '.join(s.rule for s in specs)} each have one")
    spec = specs[0]
    counter = book.inputs[spec.counter]
    raw = given.get(spec.counter)
    unsaid = raw is None or (signature and raw == book.defaults.get(spec.counter))
    start = spec.start if unsaid else int(cast(int, counter.coerce(raw)))
    last = start + rounds - 1
    if counter.high is not None and last > counter.high:
        raise RuleInputError(
            f"{rounds} {spec.unit}s from {spec.counter} {start} run to {last}, past its highest, {show(counter.high)}"
        )
    inputs = {**given, spec.counter: start}
    first = resolve_with(book, names, inputs, signature)
    result = sequence_over(
        spec,
        rounds,
        lambda number, changed: resolve_with(book, names, _round_inputs(spec, inputs, number, changed), signature),
        start,
    )
    return replace(first, sequence=result)


def _round_inputs(spec: SequenceSpec, given: Mapping[str, object], number: int, changed: bool) -> dict[str, object]:
    inputs = {**given, spec.counter: number}
    if changed and spec.then is not None:
        inputs[spec.then[0]] = spec.then[1]
    return inputs


def sequence_over(
    spec: SequenceSpec, rounds: int, resolve_round: Callable[[int, bool], Resolution], start: int
) -> SequenceResult:
    """Round after round, the chance of each state (going on; changed by `then`; ended) and, in
    each state, the distribution of every total so far (weights that add up to the state's
    chance).  The values of a round do not depend on its roll, so a round adds them to every
    state it leaves, and a state is split by the chance of the `until` outcome."""
    one: dict[int | Fraction, Fraction] = {0: Fraction(1)}
    states: dict[str, tuple[Fraction, dict[str, dict[int | Fraction, Fraction]]]] = {
        "going": (Fraction(1), {name: dict(one) for name in spec.totals})
    }
    results: list[RoundResult] = []
    for index in range(rounds):
        number = start + index
        following: dict[str, tuple[Fraction, dict[str, dict[int | Fraction, Fraction]]]] = {}
        rolled: dict[str, dict[str, Fraction]] = {}
        going = states["going"][0] if "going" in states else Fraction(0)
        ends = Fraction(0)
        for state, (mass, totals) in states.items():
            if state == "ended" or not mass:
                _merge(following, state, mass, totals)
                continue
            resolution = resolve_round(number, state == "changed")
            added = {name: _convolved(totals[name], _round_value(resolution, name, spec)) for name in spec.totals}
            for roll in resolution.rolls:
                outcomes = rolled.setdefault(roll.name, {})
                for outcome, p in roll.outcomes.items():
                    outcomes[outcome] = outcomes.get(outcome, Fraction(0)) + mass * p
            end = _end_chance(resolution, spec) if state == "going" else Fraction(0)
            ends += mass * end
            if end != 1:
                _merge(following, state, mass * (1 - end), _scaled(added, 1 - end))
            if end:
                after = "changed" if spec.then is not None else "ended"
                _merge(following, after, mass * end, _scaled(added, end))
        states = following
        means = {
            name: sum((Fraction(v) * p for _, totals in states.values() for v, p in totals[name].items()), Fraction(0))
            for name in spec.totals
        }
        results.append(RoundResult(number, going, ends, rolled, means))
    final: dict[str, Chances] = {}
    for name in spec.totals:
        combined: dict[int | Fraction, Fraction] = {}
        for _, totals in states.values():
            for value, p in totals[name].items():
                combined[value] = combined.get(value, Fraction(0)) + p
        final[name] = Chances(tuple(sorted((v, p) for v, p in combined.items() if p)))
    lasting = states["going"][0] if "going" in states else Fraction(0)
    until = f"{spec.until[0]} {spec.until[1]}" if spec.until is not None else None
    return SequenceResult(spec.rule, spec.unit, spec.counter, until, tuple(results), lasting, final)


def _round_value(resolution: Resolution, name: str, spec: SequenceSpec) -> Chances:
    """What a derived value adds in a round: its distribution, or 0 when the round derives none."""
    value = resolution.derived.get(name)
    if value is None:
        return Chances(((0, Fraction(1)),))
    if isinstance(value, (Dice, int, Fraction)) and not isinstance(value, bool):
        return Chances.of(value)
    raise RuleInputError(
        f"`{name}` is {show(value)} in {spec.unit} {resolution.inputs.get(spec.counter)}: not a number to add up"
    )


def _end_chance(resolution: Resolution, spec: SequenceSpec) -> Fraction:
    """The chance the `until` outcome comes up this round (0 when the roll is not made)."""
    if spec.until is None:
        return Fraction(0)
    name, outcome = spec.until
    for roll in resolution.rolls:
        if roll.name == name:
            # succeeding or failing as a whole (a critical succeeds too), else the outcome or tier named
            if roll.probability is not None and outcome in ("success", "failure"):
                return roll.probability if outcome == "success" else Fraction(1) - roll.probability
            return roll.outcomes.get(outcome, Fraction(0))
    return Fraction(0)


def _convolved(weights: dict[int | Fraction, Fraction], value: Chances) -> dict[int | Fraction, Fraction]:
    """The weights of a total with one more round's value added (an independent roll)."""
    if len(weights) * len(value.table) > _MAX_COMBINATIONS:
        raise RuleInputError("a total over the rounds has too many values to work out exactly: fewer rounds")
    # in whole numbers over a common denominator: a Fraction per pair would be most of the cost
    own = math.lcm(*(p.denominator for p in weights.values()))
    theirs = math.lcm(*(p.denominator for _, p in value.table))
    ways = [(b, p.numerator * (theirs // p.denominator)) for b, p in value.table]
    combined: dict[int | Fraction, int] = {}
    for a, pa in weights.items():
        wa = pa.numerator * (own // pa.denominator)
        for b, wb in ways:
            key = a + b if type(a) is int and type(b) is int else whole(Fraction(a) + b)
            combined[key] = combined.get(key, 0) + wa * wb
    denominator = own * theirs
    return {key: Fraction(count, denominator) for key, count in combined.items()}


def _scaled(
    totals: dict[str, dict[int | Fraction, Fraction]], factor: Fraction
) -> dict[str, dict[int | Fraction, Fraction]]:
    return {name: {v: p * factor for v, p in weights.items()} for name, weights in totals.items()}


def _merge(
    states: dict[str, tuple[Fraction, dict[str, dict[int | Fraction, Fraction]]]],
    state: str,
    mass: Fraction,
    totals: dict[str, dict[int | Fraction, Fraction]],
) -> None:
    found = states.get(state)
    if found is None:
        states[state] = (mass, totals)
        return
    merged = {name: dict(weights) for name, weights in found[1].items()}
    for name, weights in totals.items():
        into = merged[name]
        for v, p in weights.items():
            into[v] = into.get(v, Fraction(0)) + p
    states[state] = (found[0] + mass, merged)
