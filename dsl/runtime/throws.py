"""Dice rolled: every form of the dice algebra (dsl/runtime/dice.py, pools.py) thrown die by die
from a source of faces, each die's faces, explosions and re-rolls kept.

A source gives the face of one die at a time: a seeded generator (prng.py), an app's own
`random.Random`, or faces rolled elsewhere and told (`rolled={"fall": [3, 4, 2]}`).  The dice take
their faces in one order, the same in every runtime, so that a seed, or a list of faces, always
means the same roll: plain dice first (each pool in the order written, die by die), then each part
in order (a pool's groups in order; the better of two: the first value, then the second); a die
takes its first face, then, when that face is one it re-rolls, its second, then one face per
explosion while it shows its highest face and may explode again.

What a pool reads from its dice follows its distribution's reading (pools.py) die by die: a sum;
the highest or lowest N (ties kept in the order rolled; a keep that passes over some faces keeps,
among equal values, the smaller die first); the size of the largest die such a keep leaves; how many show a face counted; the most
that match; the sum with a named die and the highest other die taken away on its first face; the pairs one side wins, each side's dice sorted highest first.  The natural result
is what `natural` tiers read, as `Dice.naturals` defines it: a named die's first face; the dice
alone (no number added, faces before explosions and re-rolls), None where that is undefined.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

from .base import RuleInputError, clip
from .dice import Clamped, Dice, Extreme, Scaled, part_plain
from .pools import UNBOUNDED, Group, Pooled, within_faces
from .prng import Xoshiro128
from .results import DieRoll

MAX_FACES_TOLD = 10_000
"""The most faces told for one roll (a longer list is refused before it is read)."""

MAX_DIE_SIDES = 1 << 32
"""The largest die rolled: the generator draws 32 bits at a time."""


class FaceSource(Protocol):
    """Where the faces of dice come from: the face a die of faces `low` to `low + count - 1` shows."""

    def face(self, low: int, count: int, die: str) -> int: ...


class GeneratedFaces:
    """Faces from a generator: rulecraft's own (a seed, or a `Xoshiro128` an app keeps to roll
    one situation after another from one stream), the same faces in every runtime; or an app's
    `random.Random`."""

    __slots__ = ("_below",)

    _below: Callable[[int], int]

    def __init__(self, rng: object) -> None:
        if isinstance(rng, Xoshiro128):
            self._below = rng.below
        elif isinstance(rng, random.Random):
            self._below = rng.randrange
        elif type(rng) is int:
            self._below = Xoshiro128(rng).below
        else:
            raise RuleInputError(
                f"rng is a whole-number seed, a Xoshiro128 or a random.Random, not {clip(repr(rng))}"
            )

    def face(self, low: int, count: int, die: str) -> int:
        if count > MAX_DIE_SIDES:
            raise RuleInputError(f"a {die} is not rolled: dice of at most {MAX_DIE_SIDES} faces are")
        return low + self._below(count)


class ToldFaces:
    """FaceSource rolled elsewhere, in the order the dice take them; each checked against its die."""

    __slots__ = ("_faces", "_next", "_roll")

    def __init__(self, roll: str, faces: list[int]) -> None:
        if len(faces) > MAX_FACES_TOLD:
            raise RuleInputError(f"{roll}: at most {MAX_FACES_TOLD} faces are told, not {len(faces)}")
        self._roll = roll
        self._faces = faces
        self._next = 0

    def face(self, low: int, count: int, die: str) -> int:
        if self._next >= len(self._faces):
            raise RuleInputError(
                f"{self._roll}: {len(self._faces)} faces told, and the dice take more (the next for a {die})"
            )
        shown = self._faces[self._next]
        if not low <= shown < low + count:
            raise RuleInputError(
                f"{self._roll}: face {shown} (the {_ordinal(self._next + 1)} told) is not a face of a {die}"
                f" ({low}..{low + count - 1})"
            )
        self._next += 1
        return shown

    def finish(self) -> None:
        """RuleInputError when faces told are left over."""
        if self._next != len(self._faces):
            raise RuleInputError(
                f"{self._roll}: {len(self._faces)} faces told, but the dice take {self._next}"
            )


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@dataclass(frozen=True, slots=True)
class ThrownDice:
    """A dice value thrown: its total, its natural result (None: not defined), each named die's
    first face, and each die."""

    total: int
    natural: int | None
    named: dict[str, int]
    dice: tuple[DieRoll, ...]


def throw_dice(dice: Dice, faces: FaceSource) -> ThrownDice:
    """Roll a dice value die by die (the order is the module docstring's)."""
    total = dice.bonus
    natural: int | None = 0
    named: dict[str, int] = {}
    rolled: list[DieRoll] = []
    for count, sides in dice.terms:
        die = f"d{sides}"
        for _ in range(count):
            face = faces.face(1, sides, die)
            rolled.append(DieRoll(die, (face,), False, 0, face))
            total += face
            natural = None if natural is None else natural + face
    for part in dice.parts:
        value, part_natural, part_named, part_dice = _part(part, faces)
        total += value
        natural = None if natural is None or part_natural is None else natural + part_natural
        named.update(part_named)
        rolled += part_dice
    return ThrownDice(total, natural, named, tuple(rolled))


def _part(part: Scaled | Clamped | Pooled | Extreme, faces: FaceSource) -> tuple[int, int | None, dict[str, int], list[DieRoll]]:
    """A part thrown: its value, natural result, named dice's first faces and dice."""
    if isinstance(part, Pooled):
        return _pooled(part, faces)
    if isinstance(part, Extreme):
        first, second = throw_dice(part.first, faces), throw_dice(part.second, faces)
        value = max(first.total, second.total) if part.op == "max" else min(first.total, second.total)
        return value, value if part_plain(part) else None, {**first.named, **second.named}, [*first.dice, *second.dice]
    inner = throw_dice(part.dice, faces)
    value = part.value(inner.total)
    return value, value if part_plain(part) else None, inner.named, list(inner.dice)


def _die_text(group: Group) -> str:
    return re.sub(r"\b1d", "d", replace(group, count=1).text())


def _group_die(group: Group, faces: FaceSource, die: str) -> DieRoll:
    """One die of a group: its first face, its re-roll, its explosions."""
    low, count = (-1, 3) if group.fate else (1, group.sides)
    shown = [faces.face(low, count, die)]
    rerolled = group.reroll is not None and group.reroll[0] <= shown[0] <= group.reroll[1]
    if rerolled:
        shown.append(faces.face(low, count, die))
    value = shown[-1]
    explosions = 0
    if group.explode:
        last = value
        while last == group.sides and (group.explode == UNBOUNDED or explosions < group.explode):
            last = faces.face(1, group.sides, die)
            shown.append(last)
            value += last
            explosions += 1
    return DieRoll(die, tuple(shown), rerolled, explosions, value, True, group.name)


def _pooled(pool: Pooled, faces: FaceSource) -> tuple[int, int | None, dict[str, int], list[DieRoll]]:
    dice: list[DieRoll] = []
    sides: list[int] = []  # the side of each die (pairs: 0 the first side, 1 the other)
    sizes: list[int] = []
    for index, group in enumerate(pool.groups):
        die = _die_text(group)
        for _ in range(group.count):
            dice.append(_group_die(group, faces, die))
            sides.append(0 if index < pool.side else 1)
            sizes.append(group.sides)
    named = {d.name: d.natural for d in dice if d.name is not None}
    values = [d.value for d in dice]
    kept = [True] * len(dice)
    if pool.reading == "sum":
        value = sum(values)
    elif pool.reading in ("highest", "lowest") and pool.ignoring is None:
        order = sorted(range(len(dice)), key=lambda i: -values[i] if pool.reading == "highest" else values[i])
        chosen = set(order[: pool.kept])
        kept = [i in chosen for i in range(len(dice))]
        value = sum(values[i] for i in chosen)
    elif pool.reading in ("highest", "lowest", "left"):
        value, kept = _passing(pool, values, sizes)
    elif pool.reading == "count":
        low, high = pool.within
        kept = [(low is None or v >= low) and (high is None or v <= high) for v in values]
        value = sum(kept)
    elif pool.reading == "cancel":
        value, kept = _cancelled(pool, dice)
    elif pool.reading == "matches":
        counts = Counter(values)
        value = max(counts.values())
        most = next(v for v in values if counts[v] == value)
        kept = [v == most for v in values]
    else:
        value, kept = _pairs(values, sides)
    dice = [replace(d, kept=k) for d, k in zip(dice, kept, strict=True)]
    if pool.plain:
        natural: int | None = value
    elif pool.reading == "sum":
        natural = sum(d.natural for d in dice)
    else:
        natural = None
    return value, natural, named, dice


def _passing(pool: Pooled, values: list[int], sizes: list[int]) -> tuple[int, list[bool]]:
    """A keep that passes over some faces, or the die it leaves: the dice not showing a passed
    face, in the keep's order (among equal values the smaller die first, then the first rolled),
    the first `kept` kept.  A keep's value is their sum, its kept dice are kept; `left` reads the
    size of the largest die after them (`otherwise` when none is), and that die (the first rolled
    of that size) is the one kept."""
    keep = pool.keep if pool.reading == "left" else pool.reading
    passed = pool.ignoring
    standing = [i for i, v in enumerate(values) if passed is None or not within_faces(v, passed)]
    order = sorted(standing, key=lambda i: (-values[i] if keep == "highest" else values[i], sizes[i], i))
    chosen = set(order[: pool.kept])
    if pool.reading != "left":
        return sum(values[i] for i in chosen), [i in chosen for i in range(len(values))]
    left = order[pool.kept :]
    if not left:
        return pool.otherwise or 0, [False] * len(values)
    read = min(left, key=lambda i: (-sizes[i], i))
    return sizes[read], [i == read for i in range(len(values))]


def _cancelled(pool: Pooled, dice: list[DieRoll]) -> tuple[int, list[bool]]:
    """The sum, or, when the named die's first face cancels, the sum without it and the highest
    other die (the first rolled among equals); the dice taken away are not kept."""
    values = [d.value for d in dice]
    trigger = next(i for i, d in enumerate(dice) if d.name == pool.trigger)
    low, high = pool.within
    face = dice[trigger].natural
    if (low is not None and face < low) or (high is not None and face > high):
        return sum(values), [True] * len(dice)
    others = [i for i in range(len(dice)) if i != trigger]
    cancelled = {trigger}
    if others:
        cancelled.add(max(others, key=lambda i: (values[i], -i)))
    kept = [i not in cancelled for i in range(len(dice))]
    return sum(v for v, k in zip(values, kept, strict=True) if k), kept


def _pairs(values: list[int], sides: list[int]) -> tuple[int, list[bool]]:
    """How many pairs the first side wins, each side sorted highest first and paired in order
    (a tie goes to the other side); a die is kept when it wins its pair."""
    first = sorted((i for i in range(len(values)) if sides[i] == 0), key=lambda i: -values[i])
    second = sorted((i for i in range(len(values)) if sides[i] == 1), key=lambda i: -values[i])
    kept = [False] * len(values)
    won = 0
    for a, b in zip(first, second, strict=False):
        if values[a] > values[b]:
            won += 1
            kept[a] = True
        else:
            kept[b] = True
    return won, kept
