"""Dice expressions and their exact distributions.

`Dice` is a value a rulebook or an app writes (`3d6`, `1d6+1d8+4`, `max(2d6-3, 0)`);
`Distribution` the exact chance of every total of a pool (counts over one denominator, with
running sums: `distribution`, `difference`); `Chances` the questions a player asks of a total
(the mean, "at least 6").  Every distribution has a bound (MAX_POOL_DICE, MAX_DICE_WORK,
MAX_COMBINATIONS, MAX_HORIZON), checked before any work.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import accumulate, product
from operator import add, sub
from typing import Any, Final, Literal

from .base import (
    MAX_BITS,
    MAX_DIGITS,
    RuleInputError,
    Special,
    clip,
    number_json,
    probability_json,
    round_value,
    show,
    shown,
    whole,
)
from .pools import SHOWING, UNBOUNDED, Group, Pooled, convolve_pairs, convolve_weights, faces_text, showing_within

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
    parts: tuple[Part, ...] = ()

    def __post_init__(self) -> None:
        """Refuse, when they are made, dice no one can roll (`3d-6`, `0d6`, `1.5d6`): RuleInputError,
        as for any bad input."""
        if not isinstance(self.terms, tuple):
            raise RuleInputError(f"the pools of dice are a tuple of (count, sides) pairs, not {shown(self.terms)}")
        for term in self.terms:
            count, sides = term if isinstance(term, tuple) and len(term) == 2 else (None, None)
            if type(count) is not int or type(sides) is not int or count < 1 or sides < 2:
                raise RuleInputError(
                    f"{shown(term)} is not a pool anyone can roll: at least one die of two sides or more"
                )
            if count.bit_length() > MAX_BITS or sides.bit_length() > MAX_BITS:
                raise RuleInputError(f"a pool of dice has numbers of at most {MAX_DIGITS} digits")
        if type(self.bonus) is not int or self.bonus.bit_length() > MAX_BITS:
            raise RuleInputError(
                f"a dice bonus is a whole number of at most {MAX_DIGITS} digits, not {shown(self.bonus)}"
            )
        if not isinstance(self.parts, tuple) or not all(
            isinstance(part, (Scaled, Clamped, Pooled, Extreme)) for part in self.parts
        ):
            raise RuleInputError(f"the parts of dice are a tuple of Scaled, Clamped, Pooled or Extreme, not {shown(self.parts)}")

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
        """Read a dice expression as `str` writes it (spaces allowed; `d20` is `1d20`).
        RuleInputError for text that is not dice (`3d-6`), as for any bad input."""
        try:
            reader = _DiceReader(text)
            value = reader.expression()
            reader.end()
        except RuleInputError:
            raise
        except ValueError as error:
            raise RuleInputError(str(error)) from None
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
            return Dice(self.terms, self.bonus, (part_rebuilt(self.parts[0], lambda d: d.with_dice(delta), delta, 0), *self.parts[1:]))
        return self

    def first_count(self) -> int:
        """How many dice of the first kind the expression has (0 for a number)."""
        if self.terms:
            return self.terms[0][0]
        if not self.parts:
            return 0
        first = self.parts[0]
        if isinstance(first, Pooled):
            return first.groups[0].count
        return (first.first if isinstance(first, Extreme) else first.dice).first_count()

    def stepped(self, steps: int) -> Dice:
        """Move every die up or down the ladder d2 < d3 < d4 < d6 < d8 < d10 < d12 < d20."""
        return Dice(
            tuple((count, step_die(sides, steps)) for count, sides in self.terms),
            self.bonus,
            tuple(part_rebuilt(p, lambda d: d.stepped(steps), 0, steps) for p in self.parts),
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

    def totals(self, limit: int = 1_000_000, horizon: int | None = None) -> dict[int, Fraction]:
        """The exact chance of every total.  ValueError, before any work, past the bounds: a pool
        of more than 100 dice or 1000 sides, dice times totals past 2,000,000, or more than `limit`
        pairs of totals combined with a scaled part (`3d6 * 10`).

        The dice are added one by one with running sums (`_add_dice`): 50d100 + 50d100 costs what
        100d100 costs, never the product of the two pools' totals; counts are whole numbers over
        one denominator until the end.  Dice that explode without end are worked out up to
        `horizon` (ValueError without one): every higher total is gathered at `horizon + 1`."""
        weights, denominator = self.total_weights(limit, horizon)
        return {total: Fraction(weights[total], denominator) for total in sorted(weights) if weights[total]}

    def total_weights(self, limit: int = 1_000_000, horizon: int | None = None) -> tuple[dict[int, int], int]:
        """What `totals` works out, as whole weights over one denominator (not reduced)."""
        self.check_size()
        weights, denominator = self.weights(horizon, {}, limit)
        if horizon is not None and not self.bounded:
            weights = _gathered(weights, horizon)
        return weights, denominator

    def weights(self, horizon: int | None, condition: Mapping[str, int], limit: int) -> tuple[dict[int, int], int]:
        """The whole weight of each total over one denominator (see `totals`); `condition` keeps
        only the rolls in which each named die shows the face given for it first."""
        ways = [1]
        low, denominator = self.bonus, 1
        for count, sides in self.terms:
            ways = _add_dice(ways, count, sides)
            low += count
            denominator *= sides**count
        result = {low + index: way for index, way in enumerate(ways) if way}
        lowest = self.lowest
        for part in self.parts:
            reach = None if horizon is None else horizon - (lowest - part_low(part))
            piece, scale = part_weights(part, reach, condition, limit)
            if len(result) * len(piece) > limit:
                raise ValueError(f"{self} has too many totals to work out exactly")
            result = convolve_weights(result, piece)
            denominator *= scale
        return result, denominator

    def naturals(
        self, names: tuple[str | None, ...], horizon: int | None = None, limit: int = 1_000_000
    ) -> dict[tuple[tuple[int, ...], int], Fraction]:
        """The chance of each (naturals, total): for each of `names`, the face that named die shows
        first, before it explodes or is re-rolled; for None, what the dice alone show (the
        expression's faces before explosions and re-rolls, without the numbers added to them).
        Totals past `horizon` are gathered at `horizon + 1`, as in `totals`."""
        self.check_size()
        counted = tuple(dict.fromkeys(name for name in names if name is not None and showing_within(name) is not None))
        named = tuple(dict.fromkeys(name for name in names if name is not None and name not in counted))
        if len(counted) > 1:
            raise ValueError(
                f"the tiers of {self} count the dice showing {counted[0][len(SHOWING):]} and showing"
                f" {counted[1][len(SHOWING):]}: a roll's tiers count the dice showing one set of faces"
            )
        if counted and None in names:
            raise ValueError(
                f"the tiers of {self} read both the dice alone and how many dice show"
                f" {counted[0][len(SHOWING):]}: a roll's tiers read one or the other"
            )
        groups = {group.name: group for group in self.groups() if group.name is not None}
        missing = [name for name in named if name not in groups]
        if missing:
            raise ValueError(f"{self} has no die named {missing[0]}")
        found: dict[tuple[tuple[int, ...], int], int] = {}
        denominator = 1
        for faces in product(*(groups[name].faces for name in named)):
            condition = dict(zip(named, faces, strict=True))
            if counted:
                within = showing_within(counted[0])
                assert within is not None
                joint, denominator = self.shown_weights(within, condition, limit)
            elif None in names:
                joint, denominator = self.joint_weights(horizon, condition, limit)
            else:
                weights, denominator = self.weights(horizon, condition, limit)
                joint = {(0, total): weight for total, weight in weights.items()}
            for (natural, total), weight in joint.items():
                if horizon is not None and not self.bounded and total > horizon:
                    total = horizon + 1
                key = (tuple(natural if name is None or name in counted else condition[name] for name in names), total)
                found[key] = found.get(key, 0) + weight
        return {key: Fraction(weight, denominator) for key, weight in sorted(found.items()) if weight}

    def joint_weights(
        self, horizon: int | None, condition: Mapping[str, int], limit: int
    ) -> tuple[dict[tuple[int, int], int], int]:
        """The weight of each (dice alone, total) pair: the dice alone leave out the bonus and
        show the faces before explosions and re-rolls."""
        ways = [1]
        low, denominator = 0, 1
        for count, sides in self.terms:
            ways = _add_dice(ways, count, sides)
            low += count
            denominator *= sides**count
        result = {(low + index, low + index + self.bonus): way for index, way in enumerate(ways) if way}
        lowest = self.lowest
        for part in self.parts:
            reach = None if horizon is None else horizon - (lowest - part_low(part))
            if isinstance(part, Pooled) and not part_plain(part):
                piece, scale = part.joint(reach, condition)
            elif part_plain(part):
                weights, scale = part_weights(part, reach, condition, limit)
                piece = {(value, value): weight for value, weight in weights.items()}
            else:
                raise ValueError(
                    f"the natural result of `{part.text()}` is not defined: its dice change after they are rolled;"
                    " name the die and read `natural N on NAME`"
                )
            if len(result) * len(piece) > limit:
                raise ValueError(f"{self} has too many totals to work out exactly")
            result = convolve_pairs(result, piece)
            denominator *= scale
        return result, denominator

    def shown_weights(
        self, within: tuple[int | None, int | None], condition: Mapping[str, int], limit: int
    ) -> tuple[dict[tuple[int, int], int], int]:
        """The weight of each (how many of the expression's dice show a value within `within`,
        total): every die rolled counts, kept or not, as `roll showing 6 >= 2` reads it (each
        pool as `Pooled.shown` splits it; plain dice are a pool summed)."""
        if not self.bounded:
            unbounded = next(g for g in self.groups() if not g.bounded)
            raise ValueError(
                f"how many dice of {unbounded.text()} show {faces_text(*within)} is not worked out: bound its explosions"
            )
        result: dict[tuple[int, int], int] = {(0, self.bonus): 1}
        denominator = 1
        pieces: list[Pooled | Part] = [Pooled((Group(count, sides),)) for count, sides in self.terms]
        for part in (*pieces, *self.parts):
            if isinstance(part, Pooled):
                piece, scale = part.shown(within, condition)
            elif isinstance(part, Extreme):
                first, a = part.first.shown_weights(within, condition, limit)
                second, b = part.second.shown_weights(within, condition, limit)
                pick = max if part.op == "max" else min
                piece, scale = {}, a * b
                for (c1, v1), w1 in first.items():
                    for (c2, v2), w2 in second.items():
                        key = (c1 + c2, pick(v1, v2))
                        piece[key] = piece.get(key, 0) + w1 * w2
            else:
                inner, scale = part.dice.shown_weights(within, condition, limit)
                piece = {}
                for (count, total), weight in inner.items():
                    key = (count, part.value(total))
                    piece[key] = piece.get(key, 0) + weight
            if len(result) * len(piece) > limit:
                raise ValueError(f"{self} has too many totals to work out exactly")
            result = convolve_pairs(result, piece)
            denominator *= scale
        return result, denominator

    def groups(self) -> tuple[Group, ...]:
        """The groups of dice of every pool in the expression (plain terms are not among them)."""
        found: list[Group] = []
        for part in self.parts:
            if isinstance(part, Pooled):
                found += part.groups
            elif isinstance(part, Extreme):
                found += part.first.groups() + part.second.groups()
            else:
                found += part.dice.groups()
        return tuple(found)

    @property
    def bounded(self) -> bool:
        """Whether the expression has a highest total (no die in it explodes without end)."""
        return all(group.bounded for group in self.groups())

    @property
    def lowest(self) -> int:
        """The lowest total the expression can show."""
        return self.bonus + sum(count for count, _ in self.terms) + sum(part_low(p) for p in self.parts)

    def check_size(self) -> None:
        """ValueError when the distribution is past the bounds `totals` works within."""
        for count, sides in self.terms:
            if count > MAX_POOL_DICE or sides > MAX_POOL_SIDES:
                raise ValueError(
                    f"{self} has too many totals to work out exactly: at most {MAX_POOL_DICE} dice of at most"
                    f" {MAX_POOL_SIDES} sides in a pool"
                )
        dice = sum(count for count, _ in self.terms)
        span = 1 + sum(count * (sides - 1) for count, sides in self.terms)
        if dice * span > MAX_DICE_WORK:
            raise ValueError(
                f"{self} has too many totals to work out exactly: {dice} dice with {span:,} possible totals"
                f" (dice times totals at most {MAX_DICE_WORK:,})"
            )
        for part in self.parts:
            if isinstance(part, Pooled):
                for group in part.groups:
                    if group.count > MAX_POOL_DICE or group.sides > MAX_POOL_SIDES:
                        raise ValueError(
                            f"{self} has too many totals to work out exactly: at most {MAX_POOL_DICE} dice of at"
                            f" most {MAX_POOL_SIDES} sides in a pool"
                        )
            elif isinstance(part, Extreme):
                part.first.check_size()
                part.second.check_size()
            else:
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
        if not (len(self.dice.terms) == 1 and not self.dice.parts and not self.dice.bonus):
            # in brackets unless one pool (`2d6/2`): `(1d4 rerolling 1)/2`, `(2d6*3)/2` read back as written
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


@dataclass(frozen=True, slots=True)
class Extreme:
    """The better (`max`) or worse (`min`) of two dice values rolled apart: a trait die beside a
    wild die, taking the better, `max(exploding d8, exploding d6)`."""

    op: Literal["max", "min"]
    first: Dice
    second: Dice

    def text(self) -> str:
        return f"{self.op}({self.first}, {self.second})"


Part = Scaled | Clamped | Pooled | Extreme
"""A part of a dice expression that is not a plain pool or a number."""


def part_rebuilt(part: Part, change: Callable[[Dice], Dice], delta: int, steps: int) -> Part:
    """A part with its dice changed: `change` applied to the dice inside it; of a pool, `delta`
    dice more or fewer in its first group (never fewer than one) and every die `steps` along
    the ladder."""
    if isinstance(part, Extreme):
        second = part.second if delta else change(part.second)
        return Extreme(part.op, change(part.first), second)
    if isinstance(part, Pooled):
        groups = list(part.groups)
        if delta:
            first = groups[0]
            groups[0] = replace(first, count=max(first.count + delta, 1))
        if steps:
            groups = [g if g.fate else replace(g, sides=step_die(g.sides, steps), reroll=None) for g in groups]
        size = sum(g.count for g in groups)
        return replace(part, groups=tuple(groups), kept=min(part.kept, size))
    return part.rebuilt(change(part.dice))


def part_low(part: Part) -> int:
    """The lowest value a part can show."""
    if isinstance(part, Pooled):
        return part.low
    if isinstance(part, Extreme):
        first, second = part.first.lowest, part.second.lowest
        return max(first, second) if part.op == "max" else min(first, second)
    if isinstance(part, Scaled) and part.factor < 0:
        high = dice_high(part.dice)
        if high is None:
            raise ValueError(f"{part.text()}: dice without a highest total cannot be subtracted")
        return part.value(high)
    return part.value(part.dice.lowest)


def dice_high(dice: Dice) -> int | None:
    """The highest total of a dice expression (None when a die in it explodes without end)."""
    if not dice.bounded:
        return None
    total = dice.bonus + sum(count * sides for count, sides in dice.terms)
    for part in dice.parts:
        if isinstance(part, Pooled):
            high = part.high
        elif isinstance(part, Extreme):
            first, second = dice_high(part.first), dice_high(part.second)
            assert first is not None and second is not None
            high = max(first, second) if part.op == "max" else min(first, second)
        elif isinstance(part, Scaled) and part.factor < 0:
            high = part.value(part.dice.lowest)
        else:
            inner = dice_high(part.dice)
            assert inner is not None
            high = part.value(inner)
        assert high is not None
        total += high
    return total


def part_plain(part: Part) -> bool:
    """A part whose dice show what they first rolled (nothing explodes or is re-rolled)."""
    if isinstance(part, Pooled):
        return part.plain
    if isinstance(part, Extreme):
        return all(g.plain for g in (*part.first.groups(), *part.second.groups()))
    return all(g.plain for g in part.dice.groups())


def part_weights(
    part: Part, horizon: int | None, condition: Mapping[str, int], limit: int
) -> tuple[dict[int, int], int]:
    """The whole weight of each value of a part, over its denominator; values past `horizon`
    (for dice that explode without end) may stand for higher ones."""
    if isinstance(part, Pooled):
        return part.weights(horizon, condition)
    if isinstance(part, Extreme):
        first, a = part.first.weights(horizon, condition, limit)
        second, b = part.second.weights(horizon, condition, limit)
        return _extreme(first, second, part.op), a * b
    inner_horizon = horizon
    if isinstance(part, Scaled):
        if part.factor < 0:
            if not part.dice.bounded:
                raise ValueError(f"{part.text()}: dice without a highest total cannot be subtracted")
            inner_horizon = None
        elif horizon is not None:
            inner_horizon = math.ceil((horizon + 1) / part.factor)
    weights, denominator = part.dice.weights(inner_horizon, condition, limit)
    piece: dict[int, int] = {}
    for total, weight in weights.items():
        key = part.value(total)
        piece[key] = piece.get(key, 0) + weight
    return piece, denominator


def _extreme(first: dict[int, int], second: dict[int, int], op: str) -> dict[int, int]:
    """The higher (or lower) of two values rolled apart, from the running sums of each."""
    values = sorted(set(first) | set(second), reverse=op == "min")
    found: dict[int, int] = {}
    below_first = below_second = 0  # weight of values before this one (lower for max)
    for value in values:
        a, b = first.get(value, 0), second.get(value, 0)
        # the extreme is this value: one shows it and the other shows it or something before
        weight = a * below_second + b * below_first + a * b
        if weight:
            found[value] = weight
        below_first += a
        below_second += b
    return found


def _gathered(weights: dict[int, int], horizon: int) -> dict[int, int]:
    """Every total past `horizon` gathered at `horizon + 1` (they meet the same tests)."""
    found: dict[int, int] = {}
    for total, weight in weights.items():
        key = min(total, horizon + 1)
        found[key] = found.get(key, 0) + weight
    return found


class _DiceReader:
    """Reads the notation `Dice.__str__` writes, which is the language's own for dice: sums and
    bonuses (`2d6+1d8-1`, `d20`), Fate dice (`4dF`), explosions (`exploding 3d6 at most 2
    times`), keeps (`highest 3 of 4d6`, `lowest of (2d6 + exploding 1d6)`, `highest 2 of (1d6 +
    2d8) ignoring 1`), the die a keep leaves (`largest die left by highest 2 of (1d6 + 2d8)
    ignoring 1 else 4`), named dice
    (`exploding d6 as wild`), counts and re-rolls (`5d6 showing at least 5`, `5d6 rerolling
    2..5`), pairs (`opposed 3d6 vs 2d6 by pairs`), the most dice matching (`matches of 4d6`),
    scaling (`(2d6+1)/2 round up`, `3d6*3/2 round down`) and the better, worse or clamped value
    (`max(exploding d8, exploding d6)`, `max(2d6-3, 0)`).

    Each form is built by the same functions the resolvers call (`exploding_dice`, `kept_dice`,
    ...), so what is read is what the rulebook would have made.  The dice a keep, count or pair
    reads are kept in the order written, so `Dice.parse(str(d)) == d` for every dice value."""

    _TOKEN = re.compile(
        r"\s*(?:(?P<pool>(?P<count>\d*)[dD](?P<sides>\d+|[fF])(?![A-Za-z0-9_]))"
        r"|(?P<number>\d+)(?:/(?P<denominator>\d+))?"
        r"|(?P<range>\.\.)|(?P<word>[A-Za-z_][A-Za-z0-9_]*)|(?P<mark>[-+*/(),]))",
        re.ASCII,
    )

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, tuple[str, ...]]] = []
        position = 0
        stripped = text.rstrip()
        while position < len(stripped):
            match = self._TOKEN.match(stripped, position)
            if match is None or match.end() == position:
                raise ValueError(f"cannot read dice `{clip(text)}`")
            if any(len(group) > MAX_DIGITS for group in match.groups() if group):
                raise ValueError(f"a number in dice has at most {MAX_DIGITS} digits")
            position = match.end()
            if match["pool"] is not None:
                self.tokens.append(("pool", (match["count"] or "1", match["sides"])))
            elif match["number"] is not None:
                self.tokens.append(("number", (match["number"], match["denominator"] or "1")))
            elif match["range"] is not None:
                self.tokens.append(("..", ()))
            elif match["word"] is not None:
                self.tokens.append(("word", (match["word"],)))
            else:
                self.tokens.append((match["mark"], ()))
        if not self.tokens:
            raise ValueError("empty dice expression")
        self.index = 0

    def _fail(self, why: str = "") -> ValueError:
        return ValueError(f"cannot read dice `{clip(self.text)}`" + (f": {why}" if why else ""))

    def _peek(self, ahead: int = 0) -> tuple[str, tuple[str, ...]]:
        at = self.index + ahead
        return self.tokens[at] if at < len(self.tokens) else ("end", ())

    def _at_word(self, *words: str) -> bool:
        kind, values = self._peek()
        return kind == "word" and values[0].lower() in words

    def _take(self) -> tuple[str, tuple[str, ...]]:
        if self.index >= len(self.tokens):
            raise self._fail("it ends too soon")
        token = self.tokens[self.index]
        self.index += 1
        return token

    def _expect(self, kind: str, word: str | None = None, why: str = "") -> tuple[str, ...]:
        if self.index >= len(self.tokens) and why:
            raise self._fail(why)
        found, values = self._take()
        if found != kind or (word is not None and values[0].lower() != word):
            expected = f"`{word or kind}`"
            raise self._fail(why or f"expected {expected} after `{self._before()}`")
        return values

    def _before(self, taken: int = 1) -> str:
        """The text read before the last `taken` tokens, for an error message (its last few)."""
        shown_tokens = []
        for kind, values in self.tokens[max(self.index - 3 - taken, 0) : self.index - taken]:
            if kind == "pool":
                shown_tokens.append(f"{values[0]}d{values[1]}")
            elif kind == "number":
                shown_tokens.append(values[0] if values[1] == "1" else f"{values[0]}/{values[1]}")
            elif kind == "word":
                shown_tokens.append(values[0])
            else:
                shown_tokens.append(kind)
        return " ".join(shown_tokens) or clip(self.text)

    def _whole(self, why: str) -> int:
        """A whole number, perhaps negative (a Fate die's face, a bound)."""
        negative = self._peek()[0] == "-"
        if negative:
            self._take()
        kind, values = self._take()
        if kind != "number" or values[1] != "1":
            raise self._fail(why)
        return -int(values[0]) if negative else int(values[0])

    def end(self) -> None:
        if self.index != len(self.tokens):
            raise self._fail(f"`{self._after()}` is not understood")

    def _after(self) -> str:
        kind, values = self.tokens[self.index]
        return values[0] if kind in ("word", "number") else kind if kind != "pool" else f"{values[0]}d{values[1]}"

    def expression(self) -> Dice:
        return self._sum()[0]

    def _sum(self) -> tuple[Dice, list[Group] | None]:
        """Dice added together, then perhaps scaled; beside them, the groups of dice in the order
        written (None if anything else is added: a number, a keep, a scaled part)."""
        value, groups = self._term(1)
        while self._peek()[0] in ("+", "-"):
            sign = 1 if self._take()[0] == "+" else -1
            item, more = self._term(sign)
            value = value.plus(item)
            groups = None if groups is None or more is None else groups + more
        if self._peek()[0] not in ("*", "/"):
            return value, groups
        while self._peek()[0] in ("*", "/"):  # `x/2 round up*3`: scaled, then scaled again
            value = self._scale(value)
        return value, None

    def _term(self, sign: int) -> tuple[Dice, list[Group] | None]:
        if self._peek()[0] == "number" or (sign == 1 and self._peek()[0] == "-"):
            number = self._whole("a bonus is a whole number")
            return Dice((), sign * number), None
        if sign < 0:
            raise self._fail("dice are added, not subtracted")
        return self._postfix()

    def _postfix(self) -> tuple[Dice, list[Group] | None]:
        value, groups = self._primary()
        while self._at_word("showing", "rerolling", "as", "cancelling"):
            word = self._take()[1][0].lower()
            if word == "as":
                name = self._expect("word", why="a die's name follows `as`")[0]
                value = named_die(value, name)
            elif word == "cancelling":
                why = "`DICE cancelling highest when natural N on NAME`"
                for expected in ("highest", "when", "natural"):
                    self._expect("word", expected, why)
                low, high = self._faces("natural")
                self._expect("word", "on", why)
                name = self._expect("word", why=why)[0]
                value = cancelled_dice(self._ordered(value, groups), name, low, high)
            else:
                low, high = self._faces(word)
                ordered = self._ordered(value, groups)
                value = counted_dice(ordered, low, high) if word == "showing" else rerolled_dice(ordered, low, high)
            groups = _sum_groups(value)
        return value, groups

    def _faces(self, word: str) -> tuple[int | None, int | None]:
        """`6`, `2..5`, `at least 5`, `at most 2`."""
        why = f"`{word}` is followed by faces: `6`, `2..5`, `at least 5` or `at most 2`"
        if self._at_word("at"):
            self._take()
            if self._at_word("least"):
                self._take()
                return self._whole(why), None
            self._expect("word", "most", why)
            return None, self._whole(why)
        low = self._whole(why)
        if self._peek()[0] != "..":
            return low, low
        self._take()
        return low, self._whole(why)

    def _primary(self) -> tuple[Dice, list[Group] | None]:
        kind, values = self._take()
        if kind == "pool":
            count, sides = int(values[0]), values[1]
            if sides in ("f", "F"):
                if count < 1:
                    raise self._fail(f"`{count}dF` is not a roll anyone can make")
                value = pool_dice(count, 3, "fate")
            else:
                if count < 1 or int(sides) < 2:
                    raise self._fail(f"`{count}d{sides}` is not a roll anyone can make")
                value = Dice(((count, int(sides)),))
            return value, _sum_groups(value)
        if kind == "(":
            inner = self._sum()
            self._expect(")", why="a bracket is not closed")
            return inner
        if kind != "word":
            raise self._fail()
        word = values[0].lower()
        if word in ("max", "min") and self._peek()[0] == "(":
            return self._extreme("max" if word == "max" else "min"), None
        if word == "exploding":
            value = self._operand()[0]
            times = None
            if self._at_word("at"):
                self._take()
                self._expect("word", "most", "`exploding DICE at most N times`")
                times = self._whole("`exploding DICE at most N times`")
                if not self._at_word("time", "times"):
                    raise self._fail("`exploding DICE at most N times`")
                self._take()
            value = exploding_dice(value, times)
            return value, _sum_groups(value)
        if word in ("highest", "lowest"):
            side, kept, ignoring, operand = self._keep(word)
            return kept_dice(operand, side, kept, ignoring), None
        if word == "largest":
            why = "`largest die left by highest N of DICE else N`"
            for expected in ("die", "left", "by"):
                self._expect("word", expected, why)
            if not self._at_word("highest", "lowest"):
                raise self._fail(why)
            side, kept, ignoring, operand = self._keep(self._take()[1][0].lower())
            self._expect("word", "else", why)
            return left_die(operand, side, kept, ignoring, self._whole(why)), None
        if word == "matches":
            self._expect("word", "of", "`matches of DICE`")
            groups = _pool_groups(self._ordered(*self._operand()), "the matching faces are read from")
            try:
                return Dice((), 0, (Pooled(tuple(groups), "matches"),)), None
            except ValueError as error:
                raise RuleInputError(str(error)) from None
        if word == "opposed":
            first = self._ordered(*self._operand())
            self._expect("word", "vs", "`opposed DICE vs DICE by pairs`")
            second = self._ordered(*self._operand())
            self._expect("word", "by", "`opposed DICE vs DICE by pairs`")
            self._expect("word", "pairs", "`opposed DICE vs DICE by pairs`")
            return paired_dice(first, second), None
        raise self._fail(f"`{values[0]}` is not part of dice")

    def _keep(self, word: str) -> tuple[Literal["highest", "lowest"], int | None, tuple[int | None, int | None] | None, Dice]:
        """After `highest` or `lowest`: how many are kept, the dice, the faces passed over."""
        kept = None if self._at_word("of") else self._whole(f"`{word} N of DICE`")
        self._expect("word", "of", f"`{word} N of DICE`")
        operand = self._ordered(*self._operand())
        ignoring = None
        if self._at_word("ignoring"):
            self._take()
            ignoring = self._faces("ignoring")
        return ("highest" if word == "highest" else "lowest"), kept, ignoring, operand

    def _operand(self) -> tuple[Dice, list[Group] | None]:
        """What a keep, an explosion, a count or a pair reads: `5d10`, `exploding 5d10 at most 4
        times`, `(2d6 + exploding 1d6)`."""
        if self._peek()[0] in ("pool", "("):
            return self._primary()
        if self._at_word("exploding"):
            return self._primary()
        raise self._fail(f"dice are expected after `{self._before(0)}`")

    @staticmethod
    def _ordered(value: Dice, groups: list[Group] | None) -> Dice:
        """The dice as written, each group a part of its own in order (a keep, count or pair then
        holds its groups in the order the text names them); else the value itself."""
        if groups is None:
            return value
        return Dice((), 0, tuple(Pooled((group,)) for group in groups))

    def _extreme(self, op: Literal["max", "min"]) -> Dice:
        self._expect("(")
        first = self.expression()
        self._expect(",", why=f"{op}(DICE, DICE) or {op}(DICE, NUMBER)")
        second = self.expression()
        self._expect(")", why=f"{op}(DICE, DICE) or {op}(DICE, NUMBER)")
        return clamp_dice(op, first, second)

    def _scale(self, value: Dice) -> Dice:
        operator = self._take()[0]
        negative = self._peek()[0] == "-"
        if negative:
            self._take()
        kind, values = self._take()
        if kind != "number":
            raise self._fail("dice are scaled by a number")
        factor = Fraction(int(values[0]), int(values[1])) * (-1 if negative else 1)
        if operator == "/":
            if factor == 0:
                raise self._fail("division by zero")
            factor = 1 / factor
        rounding = None
        if self._at_word("round"):
            self._take()
            if not self._at_word("up", "down", "nearest"):
                raise self._fail("`round up`, `round down` or `round nearest`")
            rounding = self._take()[1][0].lower()
        if rounding is None and factor.denominator != 1:
            raise self._fail("say how the division rounds")
        if value.constant:
            return value.scaled(factor, rounding)
        return Dice((), 0, (Scaled(value, factor, rounding),))


def _sum_groups(value: Dice) -> list[Group] | None:
    """The groups of dice a value adds together (its plain pools first, as `Dice` holds them),
    or None when it is anything else."""
    if value.bonus:
        return None
    groups = [Group(count, sides) for count, sides in value.terms]
    for part in value.parts:
        if not isinstance(part, Pooled) or part.reading != "sum":
            return None
        groups += part.groups
    return groups


Value = int | Fraction | bool | str | Dice | Special
"""A value of an input or stat: a number (int, or Fraction when not whole), a flag, the name of
a member of an enumeration, text, a dice expression, or a table's X / N/A."""


def step_die(sides: int, steps: int) -> int:
    if sides not in DIE_LADDER:
        return sides
    index = min(max(DIE_LADDER.index(sides) + steps, 0), len(DIE_LADDER) - 1)
    return DIE_LADDER[index]




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
        return from_ways(count, sides**count, _add_dice([1], count, sides), (count, sides))
    if keep == "fate":
        return from_ways(-count, 3**count, _add_dice([1], count, 3), (count, 3))
    if keep == "exploding":
        return _exploding(count, sides, count if horizon is None else horizon)
    side, _, kept = keep.partition(" ")
    total = sides**count
    if not kept:
        if side == "highest":
            return Distribution(1, total, tuple(x**count for x in range(1, sides + 1)))
        return Distribution(1, total, tuple(total - (sides - x) ** count for x in range(1, sides + 1)))
    return _kept(count, sides, side, int(kept))


def from_ways(low: int, denominator: int, ways: list[int], uniform: tuple[int, int] | None = None) -> Distribution:
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
    return from_ways(low, sides**count, [sums.get(v, 0) for v in range(low, high + 1)])


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
    found = from_ways(low, denominator, ways[low:])
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
    each total (none listed past a million combinations; the lowest, highest and average are
    worked out without them).  Dice that explode without end (`exploding d6`, a stat's default)
    have no highest total and no list of totals: `max`, `mean` and the lists are None."""
    if not dice.bounded:
        return {
            "dice": str(dice),
            "min": number_json(dice.lowest),
            "max": None,
            "mean": None,
            "distribution": None,
            "at_least": None,
        }
    try:
        totals = dice.totals(limit=MAX_COMBINATIONS)
    except ValueError:
        low, high, mean = _extent(dice)
        return {
            "dice": str(dice),
            "min": number_json(low),
            "max": number_json(high),
            "mean": None if mean is None else number_json(mean),
            "distribution": None,
            "at_least": None,
        }
    mean = sum((total * chance for total, chance in totals.items()), Fraction(0))
    return {
        "dice": str(dice),
        "min": number_json(min(totals)),
        "max": number_json(max(totals)),
        "mean": number_json(mean),
        "distribution": [{"total": number_json(t), "probability": probability_json(p)} for t, p in totals.items()],
        "at_least": [
            {"total": number_json(t), "probability": probability_json(p)} for t, p in at_least_chances(totals).items()
        ],
    }


def _extent(dice: Dice) -> tuple[int, int, Fraction | None]:
    """The lowest, highest and average total of dice too many to list: a pool of n dice of s sides
    averages n(s+1)/2, whatever its size.  A scaled or clamped part moves its dice's lowest and
    highest totals where they go (both are monotone).  Its average comes from its own distribution
    when that is within the bounds, else from its dice's average where the part is linear (a whole
    factor; a clamp that never bites); a rounding or a clamp that bites, on dice past the bounds,
    leaves the average unknown (None): the exact value would take seconds to work out."""
    low = dice.bonus + sum(count for count, _ in dice.terms)
    high = dice.bonus + sum(count * sides for count, sides in dice.terms)
    mean: Fraction | None = Fraction(dice.bonus) + sum(
        (Fraction(count * (sides + 1), 2) for count, sides in dice.terms), Fraction(0)
    )
    for part in dice.parts:
        if isinstance(part, (Pooled, Extreme)):
            # a pool's lowest and highest come from its dice's faces; its average, past the
            # bounds, would take the work the bounds refuse
            part_high = dice_high(Dice((), 0, (part,)))
            if part_high is None:
                raise ValueError(f"{dice} has no highest total: a die in it explodes without end")
            low, high, mean = low + part_low(part), high + part_high, None
            continue
        inner_low, inner_high, inner_mean = _extent(part.dice)
        ends = sorted((part.value(inner_low), part.value(inner_high)))
        low, high = low + ends[0], high + ends[1]
        try:
            chances = part.dice.totals(limit=MAX_COMBINATIONS)
        except ValueError:
            part_mean = None if inner_mean is None else _linear_mean(part, inner_low, inner_high, inner_mean)
        else:
            part_mean = sum((part.value(total) * chance for total, chance in chances.items()), Fraction(0))
        mean = None if mean is None or part_mean is None else mean + part_mean
    return low, high, mean


def _linear_mean(part: Scaled | Clamped, low: int, high: int, mean: Fraction) -> Fraction | None:
    """The average of a part whose dice average `mean` over `low..high`, where the part is linear
    there; else None."""
    if isinstance(part, Scaled):
        return mean * part.factor if part.factor.denominator == 1 else None
    if (part.op == "max" and part.bound <= low) or (part.op == "min" and part.bound >= high):
        return mean
    if (part.op == "max" and part.bound >= high) or (part.op == "min" and part.bound <= low):
        return Fraction(part.bound)
    return None


MAX_HORIZON = 100_000
"""The highest total of exploding dice whose chance a resolver works out."""

MAX_COMBINATIONS = 1_000_000
"""The most pairs of totals combined to work out a dice value's distribution (`Dice.totals`)."""

MAX_POOL_DICE = 100
MAX_POOL_SIDES = 1000
"""The largest pool of a dice value whose distribution is worked out (as the compiler's E303 bound
for the pools a rulebook writes): a dice input given when resolving (`--set damage=5000d6`) is
refused at once, not worked on for minutes."""

MAX_DICE_WORK = 2_000_000
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
                return cls(tuple(value.totals(limit=MAX_COMBINATIONS).items()))
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
        if len(self.table) * len(other.table) > MAX_COMBINATIONS:
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
                for t, p in at_least_chances(dict(self.table)).items()
            ],
        }


def at_least_chances(totals: Mapping[Any, Fraction]) -> dict[Any, Fraction]:
    """P(total >= k) for each total k that can come up, lowest first."""
    found: dict[Any, Fraction] = {}
    left = Fraction(1)
    for total in sorted(totals):
        found[total] = left
        left -= totals[total]
    return found


def clamp_dice(op: Literal["max", "min"], first: Dice | Fraction | int, second: Dice | Fraction | int) -> Dice:
    """`max(damage - armour, 0)`, `min(targets, 5)`: a dice value kept at or above (or at or below)
    a whole number, still an exact distribution.  Dice that are a number (`Dice((), 3)`) are that
    number: `max(2d6, 3)` is one value however it was reached."""
    first, second = (x.bonus if isinstance(x, Dice) and x.constant else x for x in (first, second))
    if isinstance(first, Dice) and isinstance(second, Dice):
        return Dice((), 0, (Extreme(op, first, second),))
    dice, bound = (first, second) if isinstance(first, Dice) else (second, first)
    if not isinstance(dice, Dice) or isinstance(bound, Dice):
        raise RuleInputError(f"{op}() keeps one dice value within one number")
    if Fraction(bound).denominator != 1:
        raise RuleInputError(f"{op}() keeps dice within a whole number, not {show(Fraction(bound))}")
    return dice.clamped(op, int(bound))


def pool_dice(count: int, sides: int, keep: str | None) -> Dice:
    """A pool written as a rulebook writes it (`3d6`, `highest 3 of 5d10`, `4dF`, `exploding d6`)
    as the dice value it is."""
    if keep is None:
        return Dice.pool(count, sides)
    if keep == "fate":
        return Dice((), 0, (Pooled((Group(count, 3, fate=True),)),))
    if keep == "exploding":
        return Dice((), 0, (Pooled((Group(count, sides, explode=UNBOUNDED),)),))
    side, _, kept = keep.partition(" ")
    return Dice((), 0, (Pooled((Group(count, sides),), "highest" if side == "highest" else "lowest", int(kept or 1)),))


def exploding_dice(dice: Dice, times: int | Fraction | None = None) -> Dice:
    """`exploding 3d6`, `exploding (skill) d10 at most 4 times`: every die of `dice` rolled again
    and added on its highest face, `times` times at most (None: without end)."""
    if dice.bonus or dice.parts:
        raise RuleInputError(f"only dice explode, not {dice}")
    if times is not None and (Fraction(times).denominator != 1 or times < 1):
        raise RuleInputError(f"dice explode a whole number of times, at least once, not {show(Fraction(times))}")
    explode = UNBOUNDED if times is None else int(times)
    return Dice((), 0, tuple(Pooled((Group(count, sides, explode=explode),)) for count, sides in dice.terms))


def kept_dice(
    dice: Dice,
    side: Literal["highest", "lowest"],
    kept: int | Fraction | None = None,
    ignoring: tuple[int | None, int | None] | None = None,
) -> Dice:
    """`highest 3 of (ring + skill) d10`, `highest 2 of (2d6 + exploding d6 as wild)`: the sum of
    the `kept` highest (or lowest) dice of a pool (fewer when the pool has fewer).  No dice
    (`highest of (dots) d6` at 0 dots) keep none: 0, as their sum and their count are (a roll
    change, `when dots == 0: lowest of 2d6`, says what the game does instead).  `ignoring`: the
    faces (low, high; None open) of dice the keep passes over, never kept (`highest 2 of (d6 + d8
    + d8) ignoring 1`: Cortex's hitches)."""
    if _no_dice(dice):
        return dice
    return Dice((), 0, (_keep(dice, side, kept, ignoring, f"the {side} dice are kept from"),))


def left_die(
    dice: Dice,
    side: Literal["highest", "lowest"],
    kept: int | Fraction | None,
    ignoring: tuple[int | None, int | None] | None,
    otherwise: int,
) -> Dice:
    """`largest die left by highest 2 of (d6 + d8 + d8) ignoring 1 else 4`: the size (sides) of
    the largest die the keep leaves, the dice it passes over not left; `otherwise` when it leaves
    none (Cortex's effect die).  Among equal faces the smaller die is kept and the larger left.
    No dice leave none: `otherwise`."""
    if _no_dice(dice):
        return Dice((), otherwise)
    pool = _keep(dice, side, kept, ignoring, "the dice a keep leaves are read from")
    try:
        return Dice((), 0, (replace(pool, reading="left", keep=pool.reading, otherwise=otherwise),))  # type: ignore[arg-type]
    except ValueError as error:
        raise RuleInputError(str(error)) from None


def _keep(
    dice: Dice,
    side: Literal["highest", "lowest"],
    kept: int | Fraction | None,
    ignoring: tuple[int | None, int | None] | None,
    what: str,
) -> Pooled:
    groups = _pool_groups(dice, what)
    if kept is not None and (Fraction(kept).denominator != 1 or kept < 1):
        raise RuleInputError(f"at least one whole die is kept, not {show(Fraction(kept))}")
    size = sum(group.count for group in groups)
    try:
        return Pooled(tuple(groups), side, min(int(kept or 1), size), ignoring=ignoring)
    except ValueError as error:
        raise RuleInputError(str(error)) from None


def named_die(dice: Dice, name: str) -> Dice:
    """`exploding d6 as wild`: one die with a name, whose first face `natural N on wild` reads."""
    if len(dice.terms) == 1 and dice.terms[0][0] == 1 and not dice.bonus and not dice.parts:
        return Dice((), 0, (Pooled((Group(1, dice.terms[0][1], name=name),)),))
    if not dice.terms and not dice.bonus and len(dice.parts) == 1:
        part = dice.parts[0]
        if isinstance(part, Pooled) and part.reading == "sum" and part.groups[0].count == 1:
            return Dice((), 0, (Pooled((replace(part.groups[0], name=name),)),))
    raise RuleInputError(f"a name belongs to one die, not to {dice}")


def paired_dice(first: Dice, second: Dice) -> Dice:
    """`opposed 3d6 vs 2d6 by pairs`: each side's dice sorted and paired highest against highest
    (RISK); how many pairs the first side wins, a tie going to the second."""
    both = [_pool_groups(dice, "pairs are won by") for dice in (first, second)]
    try:
        return Dice((), 0, (Pooled((*both[0], *both[1]), "pairs", side=len(both[0])),))
    except ValueError as error:
        raise RuleInputError(str(error)) from None


def _no_dice(dice: Dice) -> bool:
    """A pool of no dice: `(n) d6` at n = 0."""
    return not dice.terms and not dice.parts and dice.bonus == 0


def _pool_groups(dice: Dice, what: str) -> list[Group]:
    """The groups of dice added together (plain, exploding, named, re-rolled), else an error
    saying `what` needs them."""
    groups = [Group(count, faces) for count, faces in dice.terms]
    for part in dice.parts:
        if not isinstance(part, Pooled) or part.reading != "sum":
            raise RuleInputError(f"{what} dice added together, not {dice}")
        groups += part.groups
    if dice.bonus or not groups:
        raise RuleInputError(f"{what} dice added together, not {dice}")
    return groups


def counted_dice(dice: Dice, low: int | None, high: int | None) -> Dice:
    """`5d6 showing 6`, `(ndice) d6 showing at least 5`: how many dice of a pool show a face from
    `low` to `high` (None: open), each die by the value it ends on (after explosions, re-rolls).
    No dice (`(n) d6 showing 6` at n = 0) show no face: the count is 0."""
    if _no_dice(dice):
        return dice
    groups = _pool_groups(dice, "a count of faces reads")
    try:
        return Dice((), 0, (Pooled(tuple(groups), "count", within=(low, high)),))
    except ValueError as error:
        raise RuleInputError(str(error)) from None


def cancelled_dice(dice: Dice, name: str, low: int | None, high: int | None) -> Dice:
    """`(2d6 + exploding d6 as wild) cancelling highest when natural 1 on wild`: the dice added
    together, except that when the die `name` first shows a face from `low` to `high` (None:
    open), it and the highest of the other dice are taken away (OpenD6's Wild Die on a 1)."""
    groups = _pool_groups(dice, "a named die cancels")
    try:
        return Dice((), 0, (Pooled(tuple(groups), "cancel", within=(low, high), trigger=name),))
    except ValueError as error:
        raise RuleInputError(str(error)) from None


def rerolled_dice(dice: Dice, low: int | None, high: int | None) -> Dice:
    """`5d6 rerolling 2..5`: each die showing a face from `low` to `high` (None: open) rolled once
    more, the second roll standing (a push: the dice that are not 6s, the 1s kept as banes).
    No dice have none to re-roll: they stay no dice."""
    if _no_dice(dice):
        return dice
    groups = _pool_groups(dice, "a re-roll takes")
    changed = []
    for group in groups:
        if group.reroll is not None:
            raise RuleInputError(f"{group.text()} is already re-rolled")
        faces = group.faces
        span = (faces[0] if low is None else low, faces[-1] if high is None else high)
        try:
            changed.append(replace(group, reroll=span))
        except ValueError as error:
            raise RuleInputError(str(error)) from None
    return Dice((), 0, tuple(Pooled((group,)) for group in changed))
