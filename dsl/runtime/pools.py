"""Pools of dice that keep their identity, and what is read from them.

A `Group` is some dice of one kind: plain, Fate, exploding (once, up to N times, or without
end), re-rolled once on some faces (a push), and possibly named (`the wild die`).  A `Pooled`
reads one number from groups rolled together: their sum, the sum of the highest or lowest N,
how many show a face in a range (successes, "two 6s", "any 1"), the most that match
("doubles"), their sum with a named die and the highest other die cancelled when the named die
first shows some faces (OpenD6's Wild Die on a 1), or how many pairs one side wins when two sides' dice are sorted and compared highest
against highest (RISK).  A keep may pass over dice showing some faces (`highest 2 of (d6 + d8 +
d8) ignoring 1`: Cortex's hitches, never kept), and `left` reads the size of the largest die a
keep leaves (Cortex's effect die).  `Extreme` is the better or worse of two dice values.  They are parts of a `Dice`
(dsl/runtime/dice.py), so they add, scale and clamp like every other dice value: one algebra.

How it is worked out, exactly: each die is a distribution of whole weights over one
denominator; a sum convolves them; the other readings walk the faces in order, highest first
(lowest first for `lowest`), placing how many dice of each group show each face (binomials),
with a small state per reading: icepool's "multiset evaluator" idea (Ross, AIIDE 2022), whose
work grows with faces x dice x states, never with the faces to the power of the dice.

Dice that explode without end have no highest total.  They are worked out up to a `horizon`,
the highest total whose chance a roll needs: each such die is followed through as many
explosions as take it past what the horizon can ask of it, and what lies beyond is gathered at
one value above the horizon.  That is exact for every total up to the horizon because each
reading here is monotone in a die's value (a die past its cap is kept, counted or summed the
same way as at the cap); readings that are not (matching faces, a count with an upper face,
dice subtracted) refuse such dice, with the reason.

A keep that passes over some faces places the dice showing them in its walk without keeping them;
with fewer other dice than it keeps, it keeps them all.  `left` walks the faces
in the keep's order with the state (dice left per group, dice kept, largest size left): at each
face the dice showing it are kept smallest first while the keep wants more (a player keeps the
smaller of two equal dice for the total and leaves the larger for effect), the others are left.

`natural` is read here too: the face a named die shows first (`first`), before it explodes or is
re-rolled, and the dice alone of a pool (`joint`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, product
from operator import sub
from typing import Final, Literal

UNBOUNDED: Final = -1
"""`Group.explode` for a die that explodes without end."""

MAX_POOL_STATES: Final = 2_000_000
"""The most steps (faces x ways to have placed the dice of each group x dice kept) a reading
of a pool may take: past it, the pool is refused before the work starts (ValueError naming the
bound)."""

Weights = dict[int, int]
"""Whole weights of each value, over a denominator given beside them."""


@dataclass(frozen=True, slots=True)
class Group:
    """`count` dice of `sides` sides (Fate dice: -1, 0, +1), rolled together.

    `explode`: how many times a die showing its highest face is rolled again and added (0: never,
    UNBOUNDED: without end); `reroll`: the faces low..high re-rolled once, the second roll
    standing; `name`: the die's name, to read its natural face (`natural 1 on wild`)."""

    count: int
    sides: int
    fate: bool = False
    explode: int = 0
    reroll: tuple[int, int] | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        if type(self.count) is not int or type(self.sides) is not int or self.count < 1 or self.sides < 2:
            raise ValueError(f"{self.count}d{self.sides} is not a pool anyone can roll")
        if self.fate and self.sides != 3:
            raise ValueError("Fate dice have three faces")
        if self.fate and self.explode:
            raise ValueError("Fate dice do not explode")
        if type(self.explode) is not int or self.explode < UNBOUNDED:
            raise ValueError(f"a die explodes a whole number of times, not {self.explode!r}")
        if self.reroll is not None:
            low, high = self.reroll
            if low > high or low < self.faces[0] or high > self.faces[-1]:
                raise ValueError(f"faces {low}..{high} of {self.dice_text()} cannot be re-rolled")
            if (low, high) == (self.faces[0], self.faces[-1]):
                raise ValueError(f"re-rolling every face of {self.dice_text()} changes nothing")

    @property
    def faces(self) -> tuple[int, ...]:
        return (-1, 0, 1) if self.fate else tuple(range(1, self.sides + 1))

    @property
    def plain(self) -> bool:
        """Dice whose value is the face they show (no explosion, no re-roll)."""
        return not self.explode and self.reroll is None

    @property
    def bounded(self) -> bool:
        return self.explode != UNBOUNDED

    @property
    def low(self) -> int:
        return self.faces[0]

    @property
    def high(self) -> int | None:
        if self.explode == UNBOUNDED:
            return None
        return self.sides * (self.explode + 1) if self.explode else self.faces[-1]

    def dice_text(self) -> str:
        return f"{self.count}dF" if self.fate else f"{self.count}d{self.sides}"

    def text(self) -> str:
        text = self.dice_text()
        if self.explode:
            text = "exploding " + text
            if self.explode != UNBOUNDED:
                text += f" at most {self.explode} time" + ("s" if self.explode != 1 else "")
        if self.reroll is not None:
            low, high = self.reroll
            text += f" rerolling {low}" if low == high else f" rerolling {low}..{high}"
        if self.name is not None:
            text += f" as {self.name}"
        return text

    def die(self, cap: int | None, first: int | None = None) -> tuple[Weights, int]:
        """One die: the weight of each value it shows, over a denominator.  `cap`: for a die that
        explodes without end, the value from which on it need not be told apart (it is followed
        until it reaches it); `first`: only the rolls whose first face is `first` (the weights
        keep the denominator of the whole die, so they add up to that face's chance)."""
        return _die(self, cap, first)

    def joint(self, cap: int | None) -> tuple[dict[tuple[int, int], int], int]:
        """One die: the weight of each (first face, value) pair, over a denominator."""
        found: dict[tuple[int, int], int] = {}
        denominator = 1
        for face in self.faces:
            weights, denominator = _die(self, cap, face)
            for value, weight in weights.items():
                found[(face, value)] = weight
        return found, denominator


def _die(group: Group, cap: int | None, first: int | None) -> tuple[Weights, int]:
    faces = group.faces
    size = len(faces)
    # after the first roll and its re-roll: the face that stands, over size (or size^2)
    shown: Weights = {}
    denominator = size
    if group.reroll is None:
        for face in faces:
            if first is None or face == first:
                shown[face] = 1
    else:
        low, high = group.reroll
        denominator = size * size
        for face in faces:
            if first is not None and face != first:
                continue
            if low <= face <= high:
                for again in faces:
                    shown[again] = shown.get(again, 0) + 1
            else:
                shown[face] = shown.get(face, 0) + size
    if not group.explode:
        return shown, denominator
    sides = group.sides
    depth = group.explode
    if depth == UNBOUNDED:
        if cap is None:
            raise ValueError(f"{group.text()} has no highest total: say how many times it may explode")
        # past `depth` explosions the die shows sides * (depth + 1) or more, at least the cap
        depth = max(0, -(-cap // sides) - 1)
    # a chain of further rolls with `depth` explosions left: its weights over sides^(depth + 1)
    chain: Weights = {face: 1 for face in range(1, sides + 1)}
    for _ in range(depth - 1 if depth else 0):
        scale = _total(chain)
        following = {face: scale for face in range(1, sides)}
        for value, weight in chain.items():
            following[sides + value] = following.get(sides + value, 0) + weight
        chain = following
    chain_denominator = sides**depth if depth else 1
    found: Weights = {}
    for face, weight in shown.items():
        if face == sides and depth:
            for value, more in chain.items():
                found[sides + value] = found.get(sides + value, 0) + weight * more
        else:
            found[face] = found.get(face, 0) + weight * chain_denominator
    return found, denominator * chain_denominator


def _total(weights: Mapping[int, int]) -> int:
    return sum(weights.values())


def convolve_weights(first: Mapping[int, int], second: Mapping[int, int]) -> Weights:
    found: Weights = {}
    for a, wa in first.items():
        for b, wb in second.items():
            found[a + b] = found.get(a + b, 0) + wa * wb
    return found


def convolve_pairs(
    first: Mapping[tuple[int, int], int], second: Mapping[tuple[int, int], int]
) -> dict[tuple[int, int], int]:
    """Two independent pairs of readings added, reading by reading: (a natural, or a count of
    dice, beside a total) of one part and of another."""
    found: dict[tuple[int, int], int] = {}
    for (a1, b1), w1 in first.items():
        for (a2, b2), w2 in second.items():
            key = (a1 + a2, b1 + b2)
            found[key] = found.get(key, 0) + w1 * w2
    return found


def weights_power(weights: Mapping[int, int], count: int) -> Weights:
    """The weights of the sum of `count` dice each with `weights`."""
    values = sorted(weights)
    low, high = values[0], values[-1]
    if high - low + 1 == len(values) and len({weights[v] for v in values}) == 1:
        # equal weights on consecutive values: running sums (dsl/runtime/dice.py)
        weight = weights[low]
        ways = add_uniform([1], count, high - low + 1)
        scale = weight**count
        return {count * low + index: way * scale for index, way in enumerate(ways) if way}
    found: Weights = {0: 1}
    base = dict(weights)
    while count:
        if count & 1:
            found = convolve_weights(found, base)
        count >>= 1
        if count:
            base = convolve_weights(base, base)
    return found


def add_uniform(ways: list[int], count: int, sides: int) -> list[int]:
    """`ways` (ways to roll each total, lowest first) with `count` dice of `sides` equal faces
    added: each new total sums a window of `sides` old ones, the difference of two running sums."""
    for _ in range(count):
        running = list(accumulate(ways, initial=0))
        padded = [0] * (sides - 1) + running + [running[-1]] * (sides - 1)
        size = len(ways) + sides - 1
        ways = list(map(sub, padded[sides : sides + size], padded[:size]))
    return ways


Reading = Literal["sum", "highest", "lowest", "count", "matches", "pairs", "cancel", "left"]


@dataclass(frozen=True, slots=True)
class Pooled:
    """A number read from groups of dice rolled together: `sum`; the sum of the `highest` or
    `lowest` `kept`; `count`, how many show a value in `within` (low, high; None: no bound);
    `matches`, the most dice showing one value (2: doubles); `pairs`, how many pairs the first
    `side` groups win against the others, each side's dice sorted and paired highest against
    highest, a tie won by the other side (RISK's attacker against its defender); `cancel`, the
    sum of the dice, except that when the die named `trigger` first shows a face in `within`, it
    and the highest of the other dice count nothing (OpenD6's Wild Die showing 1); `left`, the
    size (sides) of the largest die left when the `keep` `kept` are kept, or `otherwise` when no
    die is left (Cortex's effect die, a d4 when none is left).  `ignoring`: faces that the keep
    (`highest`, `lowest`, `left`) passes over, those dice neither kept nor left (Cortex's
    hitches); fewer dice than `kept` may then be kept, and none keeps 0."""

    groups: tuple[Group, ...]
    reading: Reading = "sum"
    kept: int = 1
    within: tuple[int | None, int | None] = (None, None)
    side: int = 0
    trigger: str | None = None
    ignoring: tuple[int | None, int | None] | None = None
    keep: Literal["highest", "lowest"] = "highest"
    otherwise: int | None = None

    def __post_init__(self) -> None:
        if not self.groups or not all(isinstance(g, Group) for g in self.groups):
            raise ValueError("a pool has at least one group of dice")
        if self.reading == "sum" and len(self.groups) != 1:
            raise ValueError("a sum of several groups is the sum of each")
        if self.reading in ("highest", "lowest", "left") and not 1 <= self.kept <= self.size:
            keep = self.reading if self.reading != "left" else self.keep
            raise ValueError(f"{keep} {self.kept} of {self.size} dice keeps more dice than it rolls")
        if self.ignoring is not None and self.reading not in ("highest", "lowest", "left"):
            raise ValueError("only a keep passes over dice showing some faces")
        if self.ignoring == (None, None):
            raise ValueError("say which faces a keep passes over")
        if (self.reading == "left") != (self.otherwise is not None):
            raise ValueError("the size of the die a keep leaves, and only that, says what it is when none is left")
        if self.reading == "left" and any(g.fate for g in self.groups):
            raise ValueError("Fate dice have no size to read")
        if self.reading == "pairs" and not 1 <= self.side < len(self.groups):
            raise ValueError("pairs are won by the dice of one side against the dice of another")
        unbounded = [g for g in self.groups if not g.bounded]
        if unbounded and (self.reading == "left" or self.ignoring is not None):
            what = "the dice a keep leaves" if self.reading == "left" else "a keep passing over faces"
            raise ValueError(f"{what} of {unbounded[0].text()} are not worked out: bound its explosions")
        if unbounded and self.reading in ("matches", "pairs"):
            what = "matching faces" if self.reading == "matches" else "pairs won"
            raise ValueError(f"{what} of {unbounded[0].text()} are not worked out: bound its explosions")
        if unbounded and self.reading == "count" and self.within[1] is not None:
            raise ValueError(
                f"counting the dice of {unbounded[0].text()} at or below a face is not worked out: bound its explosions"
            )
        names = [g.name for g in self.groups if g.name is not None]
        if len(names) != len(set(names)):
            raise ValueError("two dice of one pool have the same name")
        if (self.reading == "cancel") != (self.trigger is not None):
            raise ValueError("a named die cancels dice, and only when the pool reads its dice that way")
        if self.trigger is not None and self.trigger not in names:
            raise ValueError(f"{_joined(self.groups)} has no die named {self.trigger} to cancel dice")
        if self.trigger is not None and self.within == (None, None):
            raise ValueError(f"say on which faces {self.trigger} cancels dice")
        if self.trigger is not None and self._split()[0].count != 1:
            raise ValueError(f"the dice named {self.trigger} are more than one die: one die cancels dice")

    @property
    def size(self) -> int:
        return sum(g.count for g in self.groups)

    @property
    def plain(self) -> bool:
        return all(g.plain for g in self.groups)

    @property
    def bounded(self) -> bool:
        return all(g.bounded for g in self.groups)

    def names(self) -> tuple[str, ...]:
        return tuple(g.name for g in self.groups if g.name is not None)

    def text(self) -> str:
        if self.reading == "sum":
            return self.groups[0].text()
        if self.reading == "pairs":
            first, second = (_joined(self.groups[: self.side]), _joined(self.groups[self.side :]))
            return f"opposed {first} vs {second} by pairs"
        inner = _joined(self.groups)
        if self.reading in ("highest", "lowest", "left"):
            kept = "" if self.kept == 1 else f" {self.kept}"
            keep = self.reading if self.reading != "left" else self.keep
            text = f"{keep}{kept} of {inner}"
            if self.ignoring is not None:
                text += f" ignoring {faces_text(*self.ignoring)}"
            return text if self.reading != "left" else f"largest die left by {text} else {self.otherwise}"
        if self.reading == "matches":
            return f"matches of {inner}"
        faces = faces_text(*self.within)
        if self.reading == "cancel":
            return f"{inner} cancelling highest when natural {faces} on {self.trigger}"
        return f"{inner} showing {faces}"

    def _split(self) -> tuple[Group, tuple[Group, ...]]:
        """For `cancel`: the named die that cancels, and the other groups."""
        named = next(g for g in self.groups if g.name == self.trigger)
        return named, tuple(g for g in self.groups if g is not named)

    def _cancels(self, face: int) -> bool:
        low, high = self.within
        return (low is None or face >= low) and (high is None or face <= high)

    @property
    def low(self) -> int:
        if self.reading == "left" or self.ignoring is not None:
            return min(self.weights(None, {})[0])
        lows = sorted(g.low for g in self.groups for _ in range(g.count))
        if self.reading == "cancel":
            named, others = self._split()
            rest = sorted(g.low for g in others for _ in range(g.count))
            found = []
            if any(self._cancels(face) for face in named.faces):
                found.append(sum(rest[:-1]))
            standing = [face for face in named.faces if not self._cancels(face)]
            if standing:
                found.append(sum(rest) + standing[0])
            return min(found)
        if self.reading == "sum":
            return sum(lows)
        if self.reading == "highest":
            return sum(lows[-self.kept :])
        if self.reading == "lowest":
            return sum(lows[: self.kept])
        return 0 if self.reading in ("count", "pairs") else 1

    @property
    def high(self) -> int | None:
        if self.reading == "count":
            return self.size
        if self.reading == "pairs":
            first = sum(g.count for g in self.groups[: self.side])
            return min(first, self.size - first)
        if self.reading == "matches":
            return self.size
        highs = [g.high for g in self.groups for _ in range(g.count)]
        if None in highs:
            return None
        if self.reading == "cancel" or self.reading == "left" or self.ignoring is not None:
            return max(self.weights(None, {})[0])
        ordered = sorted(h for h in highs if h is not None)
        if self.reading == "sum":
            return sum(ordered)
        return sum(ordered[-self.kept :]) if self.reading == "highest" else sum(ordered[: self.kept])

    def _cap(self, group: Group, horizon: int | None) -> int | None:
        """The value of a die of `group` from which on a total up to `horizon` no longer depends
        on how far past it the die went."""
        if group.bounded or horizon is None:
            return None
        if self.reading == "sum":
            return horizon - (self.low - group.low) + 1
        if self.reading == "count":
            return self.within[0] if self.within[0] is not None else 1
        if self.reading == "cancel":
            # the die adds to some of the others (or to none), each at least its lowest face
            below = sum(min(g.low, 0) * g.count for g in self.groups) - min(group.low, 0)
            return horizon - below + 1
        # kept, the die adds to the other kept dice, each at least the lowest face (Fate: -1)
        lowest = min(g.low for g in self.groups)
        return horizon + 1 - (self.kept - 1) * min(lowest, 0)

    def weights(self, horizon: int | None, condition: Mapping[str, int]) -> tuple[Weights, int]:
        """The weight of each value the pool reads, over its denominator (values past `horizon`
        may stand for higher ones).  Worked out once per pool, horizon and condition on its named
        dice (`_pool_weights`): a pool read beside different numbers (`highest 3 of 5d10 +
        skill`) or in several rolls is one piece of work."""
        named = tuple(sorted((name, face) for name, face in condition.items() if name in self.names()))
        weights, denominator = _pool_weights(self, horizon, named)
        return dict(weights), denominator

    def _weights(self, horizon: int | None, condition: Mapping[str, int]) -> tuple[Weights, int]:
        dice = []
        denominator = 1
        for group in self.groups:
            first = condition.get(group.name) if group.name is not None else None
            weights, each = group.die(self._cap(group, horizon), first)
            dice.append((group.count, weights))
            denominator *= each**group.count
        if self.reading == "pairs":
            return _paired(dice, self.side), denominator
        if self.reading == "cancel":
            return self._cancelled(horizon, condition), denominator
        if self.reading == "left":
            merged: dict[tuple[int, tuple[tuple[int, int], ...]], int] = {}
            for (count, weights), group in zip(dice, self.groups, strict=True):
                # dice of one size showing the same values are one group: the walk places them at once
                key = (group.sides, tuple(sorted(weights.items())))
                merged[key] = merged.get(key, 0) + count
            alike = [(count, dict(weights)) for (_, weights), count in merged.items()]
            sizes = [size for size, _ in merged]
            return _left(alike, sizes, self.keep, self.kept, self.ignoring, self.otherwise or 0), denominator
        return self._read(dice), denominator

    def _read(self, dice: list[tuple[int, Weights]]) -> Weights:
        """What the pool reads from dice given as (how many, weights of one): their sum, the
        highest or lowest kept, how many show a counted value, the most that match."""
        if self.reading == "sum":
            summed: Weights = {0: 1}
            for count, weights in dice:
                summed = convolve_weights(summed, weights_power(weights, count))
            return summed
        if self.reading == "count":
            return _counted(dice, self.within)
        return _ordered(dice, self.reading, self.kept, self.ignoring)

    def shown(self, within: tuple[int | None, int | None], condition: Mapping[str, int]) -> tuple[dict[tuple[int, int], int], int]:
        """The weight of each (how many dice show a value within `within`, the value the pool
        reads), over the pool's denominator: what a tier reads with `roll showing 6 >= 2`
        beside the roll's own reading (Blades' two 6s beside the highest die).

        Each die either shows a counted value or not: for every way of splitting each group's
        dice between the two (a binomial), the pool reads dice that show only counted values
        and dice that show only the others, as it reads any dice (`_read`)."""
        faces = faces_text(*within)
        if not self.bounded:
            unbounded = next(g for g in self.groups if not g.bounded)
            raise ValueError(f"how many dice of {unbounded.text()} show {faces} is not worked out: bound its explosions")
        if self.reading in ("pairs", "cancel", "left"):
            raise ValueError(f"how many dice of `{self.text()}` show {faces} beside what it reads is not worked out")
        split = []
        denominator = 1
        for group in self.groups:
            first = condition.get(group.name) if group.name is not None else None
            weights, each = group.die(None, first)
            denominator *= each**group.count
            inside = {v: w for v, w in weights.items() if within_faces(v, within)}
            outside = {v: w for v, w in weights.items() if not within_faces(v, within)}
            split.append((group.count, inside, outside))
        found: dict[tuple[int, int], int] = {}
        for chosen in product(*(range(count + 1) for count, _, _ in split)):
            dice: list[tuple[int, Weights]] = []
            ways = 1
            for counted, (count, inside, outside) in zip(chosen, split, strict=True):
                if (counted and not inside) or (count - counted and not outside):
                    ways = 0
                    break
                ways *= math.comb(count, counted)
                dice += [(k, weights) for k, weights in ((counted, inside), (count - counted, outside)) if k]
            if not ways:
                continue
            shown = sum(chosen)
            for value, weight in self._read(dice).items():
                if weight:
                    found[(shown, value)] = found.get((shown, value), 0) + ways * weight
        return found, denominator

    def _cancelled(self, horizon: int | None, condition: Mapping[str, int]) -> Weights:
        """`cancel`, face by face of the named die: a face that cancels leaves the other dice
        without their highest (the lowest all-but-one of them, kept as `_ordered` keeps them); any
        other face adds the named die's value to the sum of the others."""
        named, others = self._split()
        dice = []
        for group in others:
            first = condition.get(group.name) if group.name is not None else None
            dice.append((group.count, group.die(self._cap(group, horizon), first)[0]))
        summed: Weights = {0: 1}
        for count, weights in dice:
            summed = convolve_weights(summed, weights_power(weights, count))
        size = sum(count for count, _ in dice)
        if size >= 2:
            cancelled = _ordered(dice, "lowest", size - 1)
        else:
            cancelled = {0: math.prod(_total(weights) ** count for count, weights in dice)}
        told = condition.get(named.name) if named.name is not None else None
        found: Weights = {}
        for face in named.faces if told is None else (told,):
            shown, _ = named.die(self._cap(named, horizon), face)
            if self._cancels(face):
                piece = {value: weight * _total(shown) for value, weight in cancelled.items()}
            else:
                piece = convolve_weights(summed, shown)
            for value, weight in piece.items():
                if weight:
                    found[value] = found.get(value, 0) + weight
        return found

    def joint(
        self, horizon: int | None, condition: Mapping[str, int] | None = None
    ) -> tuple[dict[tuple[int, int], int], int]:
        """The weight of each (natural, value) pair: the natural is what the pool reads from the
        faces the dice show first (plain dice: the value itself).  With `condition`, a named die
        of the pool shows the face it gives first (the weights are those of the face and the pair
        together, over the same denominator)."""
        if self.plain:
            weights, denominator = self.weights(horizon, dict(condition or {}))
            return {(v, v): w for v, w in weights.items()}, denominator
        if self.reading != "sum":
            raise ValueError(
                f"the natural result of `{self.text()}` is not defined: its dice change after they are rolled,"
                " and it keeps or counts some of them; name the die and read `natural N on NAME`"
            )
        group = self.groups[0]
        one, each = group.joint(self._cap(group, horizon))
        told = condition.get(group.name) if condition and group.name is not None else None
        if told is not None:  # a named die is one die: its first face is the one told
            one = {(natural, value): weight for (natural, value), weight in one.items() if natural == told}
        found: dict[tuple[int, int], int] = {(0, 0): 1}
        for _ in range(group.count):
            found = convolve_pairs(found, one)
        return found, each**group.count


@lru_cache(maxsize=256)
def _pool_weights(pool: Pooled, horizon: int | None, condition: tuple[tuple[str, int], ...]) -> tuple[Weights, int]:
    return pool._weights(horizon, dict(condition))


def within_faces(value: int, within: tuple[int | None, int | None]) -> bool:
    """Whether a value is within faces (low, high), either end None for no bound."""
    low, high = within
    return (low is None or value >= low) and (high is None or value <= high)


SHOWING: Final = "showing "
"""How a tier's test names the dice it counts (`roll showing 6 >= 2`): where a natural test
names a die (`natural 1 on wild`), a count names `showing ` and the faces (`showing 6`,
`showing at least 5`); its low and high are how many dice, at most ANY_DICE."""

ANY_DICE: Final = 1_000_000
"""The high end of a count of dice with no upper bound (`roll showing 6 >= 2`): more than any
roll can throw."""


def showing_key(within: tuple[int | None, int | None]) -> str:
    """The name under which a tier counts the dice showing `within`: `showing 6`."""
    return SHOWING + faces_text(*within)


def showing_within(key: str | None) -> tuple[int | None, int | None] | None:
    """The faces a tier's test counts (`showing 2..5` -> (2, 5)); None for a test that reads a
    natural (the dice alone, or a named die)."""
    if key is None or not key.startswith(SHOWING):
        return None
    faces = key[len(SHOWING) :]
    if faces.startswith("at least "):
        return int(faces[9:]), None
    if faces.startswith("at most "):
        return None, int(faces[8:])
    low, _, high = faces.partition("..")
    return int(low), int(high or low)


def faces_text(low: int | None, high: int | None) -> str:
    """Faces as the language writes them: `6`, `2..5`, `at least 5`, `at most 2`."""
    if high is None:
        return f"at least {low}"
    if low is None:
        return f"at most {high}"
    return str(low) if low == high else f"{low}..{high}"


def _joined(groups: tuple[Group, ...]) -> str:
    """Groups of one side as the language writes them: `3d6`, `(2d6 + exploding d6)`."""
    text = " + ".join(g.text() for g in groups)
    return f"({text})" if " " in text else text


def _counted(dice: list[tuple[int, Weights]], within: tuple[int | None, int | None]) -> Weights:
    """How many dice show a value within `within`: a binomial per group, added."""
    low, high = within
    found: Weights = {0: 1}
    for count, weights in dice:
        meeting = sum(w for v, w in weights.items() if (low is None or v >= low) and (high is None or v <= high))
        missing = sum(weights.values()) - meeting
        one = {k: math.comb(count, k) * meeting**k * missing ** (count - k) for k in range(count + 1)}
        found = convolve_weights(found, {k: w for k, w in one.items() if w})
    return {k: w for k, w in found.items() if w}


def _ordered(
    dice: list[tuple[int, Weights]], reading: str, kept: int, passed: tuple[int | None, int | None] | None = None
) -> Weights:
    """Keep or match, face by face in order (highest first for `highest` and `matches`, lowest
    first for `lowest`): the state is how many dice of each group are still to place, and what
    the reading has gathered (dice kept; or the most that matched), with the weight of each sum
    kept so far.  Dice showing a `passed` face are placed and not kept (Cortex's hitches): with
    fewer other dice than `kept`, all of them are kept.

    The sums of a state are packed into one integer, `width` bits a sum (Kronecker's
    substitution): keeping `more` dice showing `value` moves every sum up at once by a shift,
    weighting them is one multiplication, and adding two states one addition.  No weight is
    larger than the pool's denominator, so the packed sums never carry into each other."""
    outcomes = sorted({v for _, weights in dice for v in weights}, reverse=reading != "lowest")
    counts = tuple(count for count, _ in dice)
    # the weight of the faces after each one, per group: dice placed past the end of the
    # kept ones take any of them
    after: list[list[int]] = []
    for _, weights in dice:
        running = 0
        tail = []
        for value in reversed(outcomes):
            tail.append(running)
            running += weights.get(value, 0)
        after.append(tail[::-1])
    steps = len(outcomes) * math.prod(c + 1 for c in counts) * (kept + 1 if reading != "matches" else max(counts) + 1)
    if steps > MAX_POOL_STATES:
        raise ValueError(
            f"a pool of {sum(counts)} dice with {len(outcomes)} values each is past the work a pool is worked out"
            f" within: {steps:,} steps of faces, dice placed and dice kept, at most {MAX_POOL_STATES:,}"
        )
    matching = reading == "matches"
    base = min(outcomes)  # slot i of a packed sum of `taken` dice is the sum taken * base + i
    width = -(-math.prod(sum(weights.values()) ** count for count, weights in dice).bit_length() // 8) * 8
    finished = 0
    matched: Weights = {}
    # (dice left per group, dice kept so far; for matches the most that matched) -> packed sums
    states: dict[tuple[tuple[int, ...], int], int] = {(counts, 0): 1}
    choices = [[(k, math.comb(left, k)) for k in range(left + 1)] for left in range(max(counts) + 1)]
    for index, value in enumerate(outcomes):
        passing = passed is not None and within_faces(value, passed)
        powers = [[weights.get(value, 0) ** k for k in range(count + 1)] for count, weights in dice]
        following: dict[tuple[tuple[int, ...], int], int] = {}
        for (left, taken), sums in states.items():
            options = [
                [(k, ways * powers[g][k]) for k, ways in choices[left[g]] if k == 0 or powers[g][1]]
                for g in range(len(dice))
            ]
            for chosen in product(*options):
                shown = 0
                way = 1
                for k, w in chosen:
                    shown += k
                    way *= w
                rest = tuple(left[g] - chosen[g][0] for g in range(len(dice)))
                if matching:
                    key = (rest, max(taken, shown))
                    following[key] = following.get(key, 0) + sums * way
                    continue
                more = 0 if passing else min(shown, kept - taken)
                shift = width * more * (value - base)
                if taken + more == kept:
                    # every die still to place shows a face after this one, kept or not
                    for g, left_over in enumerate(rest):
                        way *= after[g][index] ** left_over
                    if way:
                        finished += (sums * way) << shift
                    continue
                key = (rest, taken + more)
                following[key] = following.get(key, 0) + ((sums * way) << shift)
        states = following
    short: Weights = {}
    for (left, taken), weight in states.items():
        if matching and not any(left) and weight:
            matched[taken] = matched.get(taken, 0) + weight
        elif not any(left) and weight:  # passed faces left fewer dice than the keep wants
            for value, more in _unpacked(weight, width, taken * base).items():
                short[value] = short.get(value, 0) + more
    if matching:
        return matched
    found = _unpacked(finished, width, kept * base)
    for value, more in short.items():
        found[value] = found.get(value, 0) + more
    return found


def _left(
    dice: list[tuple[int, Weights]],
    sizes: list[int],
    keep: str,
    kept: int,
    passed: tuple[int | None, int | None] | None,
    otherwise: int,
) -> Weights:
    """The size of the largest die left when `kept` dice are kept (`keep`: the highest or the
    lowest), the dice showing `passed` faces neither kept nor left; `otherwise` when none is left.

    Face by face in the keep's order, the state is how many dice of each group are still to
    place, how many are kept, and the largest size left so far.  The dice showing one face are
    kept smallest first while the keep wants more: among equal faces the smaller die is kept and
    the larger left (Cortex's effect die)."""
    outcomes = sorted({v for _, weights in dice for v in weights}, reverse=keep == "highest")
    counts = tuple(count for count, _ in dice)
    by_size = sorted(range(len(dice)), key=lambda g: sizes[g])
    steps = len(outcomes) * math.prod(c + 1 for c in counts) * (kept + 1) * (len(set(sizes)) + 1)
    if steps > MAX_POOL_STATES:
        raise ValueError(
            f"the dice left by a keep of {sum(counts)} dice with {len(outcomes)} values each are past the work a pool"
            f" is worked out within: {steps:,} steps of faces, dice placed, dice kept and sizes left,"
            f" at most {MAX_POOL_STATES:,}"
        )
    # (dice left per group, dice kept, largest size left: 0 for none) -> weight
    states: dict[tuple[tuple[int, ...], int, int], int] = {(counts, 0, 0): 1}
    choices = [[(k, math.comb(left, k)) for k in range(left + 1)] for left in range(max(counts) + 1)]
    for value in outcomes:
        passing = passed is not None and within_faces(value, passed)
        powers = [[weights.get(value, 0) ** k for k in range(count + 1)] for count, weights in dice]
        following: dict[tuple[tuple[int, ...], int, int], int] = {}
        for (left, taken, largest), weight in states.items():
            options = [
                [(k, ways * powers[g][k]) for k, ways in choices[left[g]] if k == 0 or powers[g][1]]
                for g in range(len(dice))
            ]
            for chosen in product(*options):
                way = weight
                for _, w in chosen:
                    way *= w
                rest = tuple(left[g] - chosen[g][0] for g in range(len(dice)))
                now, most = taken, largest
                if not passing:
                    for g in by_size:
                        shown = chosen[g][0]
                        more = min(shown, kept - now)
                        now += more
                        if shown > more:
                            most = max(most, sizes[g])
                key = (rest, now, most)
                following[key] = following.get(key, 0) + way
        states = following
    found: Weights = {}
    for (left, _, largest), weight in states.items():
        if not any(left) and weight:
            size = largest or otherwise
            found[size] = found.get(size, 0) + weight
    return found


def _paired(dice: list[tuple[int, Weights]], side: int) -> Weights:
    """How many pairs the first `side` groups win, face by face from the highest: the state is
    how many dice of each group are still to place, with the weight of each number of pairs won
    so far packed into one integer (as in `_ordered`).  The advantage, how many dice placed on
    the first side (positive) or the second (negative) are still unpaired, follows from the dice
    placed: those dice are higher than every die still to place, so each pairs off with a die of
    the other side shown later and wins (icepool's RISK evaluator).  Dice of both sides showing
    one face pair off as ties, won by the second side."""
    outcomes = sorted({v for _, weights in dice for v in weights}, reverse=True)
    counts = tuple(count for count, _ in dice)
    first = sum(counts[:side])
    second = sum(counts) - first
    steps = len(outcomes) * math.prod(c + 1 for c in counts) ** 2
    if steps > MAX_POOL_STATES:
        raise ValueError(
            f"pairs of {first} dice against {second} with {len(outcomes)} values each are past the work a pool is"
            f" worked out within: {steps:,} steps of faces and dice placed, at most {MAX_POOL_STATES:,}"
        )
    width = -(-math.prod(sum(weights.values()) ** count for count, weights in dice).bit_length() // 8) * 8
    groups = range(len(dice))
    # dice left per group -> packed weights of the pairs won so far
    states: dict[tuple[int, ...], int] = {counts: 1}
    choices = [[(k, math.comb(left, k)) for k in range(left + 1)] for left in range(max(counts) + 1)]
    for value in outcomes:
        powers = [[weights.get(value, 0) ** k for k in range(count + 1)] for count, weights in dice]
        following: dict[tuple[int, ...], int] = {}
        for left, won in states.items():
            advantage = (first - sum(left[:side])) - (second - sum(left[side:]))
            options = [[(k, ways * powers[g][k]) for k, ways in choices[left[g]] if k == 0 or powers[g][1]] for g in groups]
            for chosen in product(*options):
                way = 1
                for _, w in chosen:
                    way *= w
                if advantage > 0:
                    way <<= width * min(advantage, sum(k for k, _ in chosen[side:]))
                rest = tuple(left[g] - chosen[g][0] for g in groups)
                following[rest] = following.get(rest, 0) + won * way
        states = following
    packed = states.get(tuple(0 for _ in counts), 0)
    return _unpacked(packed, width, 0)


def _unpacked(packed: int, width: int, low: int) -> Weights:
    """The weights packed `width` bits each into one integer, slot i the weight of `low + i`."""
    size = width // 8
    data = packed.to_bytes(max(1, -(-packed.bit_length() // 8)), "little")
    found: Weights = {}
    for slot in range(0, len(data), size):
        weight = int.from_bytes(data[slot : slot + size], "little")
        if weight:
            found[low + slot // size] = weight
    return found
