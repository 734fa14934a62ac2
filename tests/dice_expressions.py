"""Random dice expressions over the whole algebra (dsl/runtime/pools.py and dice.py), each built
twice: as rulecraft's `Dice` and as an icepool `Die` made with icepool's own operators.  Shared by
tests/semantics/test_dice_random.py (a few thousand in CI, through hypothesis) and tests/soak/dice_icepool.py
(hundreds of thousands).  `constructs` records which construct holds which directly: the matrix
test shows every pair composed."""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import icepool

from dsl.runtime.dice import Clamped, Dice, Extreme, Scaled
from dsl.runtime.pools import UNBOUNDED, Group, Pooled

CONSTRUCTS = (
    "sum",
    "bonus",
    "fate",
    "explode",
    "explode-unbounded",
    "reroll",
    "named",
    "highest",
    "lowest",
    "ignoring",
    "left",
    "count",
    "matches",
    "pairs",
    "cancel",
    "scaled",
    "clamped",
    "better",
    "worse",
)


class PairsWon(icepool.MultisetEvaluator):  # type: ignore[misc]
    """The pairs the first pool wins, both sorted and paired highest against highest, ties to
    the second (icepool's RISK notebook)."""

    def initial_state(self, order: Any, outcomes: Any, *sizes: int) -> tuple[int, int]:
        if order > 0:  # outcomes highest first only
            raise icepool.UnsupportedOrder()
        return 0, 0

    def next_state(self, state: tuple[int, int], order: Any, outcome: int, a: int, b: int) -> tuple[int, int]:
        won, advantage = state
        if advantage > 0:
            won += min(b, advantage)
        return won, advantage + a - b

    def final_outcome(self, final_state: tuple[int, int], *rest: Any) -> int:
        return final_state[0]


SENTINEL = 10**9
"""A key below (a keep of the highest) or above (of the lowest) every other: a passed face."""


class KeptAndLeft(icepool.MultisetEvaluator):  # type: ignore[misc]
    """A keep over keys that order the dice as the player does (`key`: the value, then the
    smaller die first among equal values; a passed face at the far end): the sum of the `kept`
    first, or the size of the largest die after them (`otherwise` when none is)."""

    def __init__(self, highest: bool, kept: int, left: bool, otherwise: int) -> None:
        self.highest, self.kept, self.left, self.otherwise = highest, kept, left, otherwise

    def initial_state(self, order: Any, outcomes: Any, *sizes: int) -> tuple[int, int, int]:
        if (order > 0) == self.highest:  # highest first for a keep of the highest, else lowest first
            raise icepool.UnsupportedOrder()
        return 0, 0, 0

    def next_state(self, state: tuple[int, int, int], order: Any, key: int, count: int) -> tuple[int, int, int]:
        taken, total, largest = state
        if abs(key) == SENTINEL:
            return state
        value, size = _unkey(key, self.highest)
        more = min(count, self.kept - taken)
        if count > more:
            largest = max(largest, size)
        return taken + more, total + more * value, largest

    def final_outcome(self, final_state: tuple[int, int, int], *rest: Any) -> int:
        _, total, largest = final_state
        return (largest or self.otherwise) if self.left else total


def _key(value: int, size: int, highest: bool, passed: bool) -> int:
    if passed:
        return -SENTINEL if highest else SENTINEL
    return value * 64 + (32 - size if highest else size)


def _unkey(key: int, highest: bool) -> tuple[int, int]:
    value, rest = divmod(key, 64)
    return value, 32 - rest if highest else rest


def _passing(rng: random.Random, pooled: Pooled, dice: list[tuple[Group, Any]], built: set[tuple[str, str]]) -> tuple[Pooled, Any] | None:
    """Perhaps (a draw of its own decides, so that the expressions drawn before these forms
    existed stay as they were) the keep `pooled` passes over some faces, or reads the size of
    the largest die it leaves; with its icepool twin (`KeptAndLeft`)."""
    side = random.Random(f"{rng.getstate()[1][:4]}{pooled}")
    if not pooled.bounded or side.random() < 0.6:
        return None
    low = side.randint(-1, 4)
    ignoring: tuple[int | None, int | None] | None = (low, side.choice((low, low + 1, None)))
    left = not any(g.fate for g in pooled.groups) and side.random() < 0.5
    if left and side.random() < 0.3:
        ignoring = None
    highest = pooled.reading == "highest"
    if left:
        otherwise = side.randint(0, 4)
        changed = Pooled(pooled.groups, "left", pooled.kept, ignoring=ignoring, keep=pooled.reading, otherwise=otherwise)  # type: ignore[arg-type]
    else:
        otherwise = 0
        changed = Pooled(pooled.groups, pooled.reading, pooled.kept, ignoring=ignoring)
    for group in pooled.groups:
        built.add(("left" if left else "ignoring", _kind_of(group)))
    keys = [
        die.map(lambda v, s=group.sides: _key(v, s, highest, ignoring is not None and within(v, ignoring)))
        for group, die in dice
    ]
    twin = KeptAndLeft(highest, pooled.kept, left, otherwise)(icepool.Pool(keys))
    return changed, twin


def within(value: int, faces: tuple[int | None, int | None]) -> bool:
    low, high = faces
    return (low is None or value >= low) and (high is None or value <= high)


def _kind_of(group: Group) -> str:
    if group.fate:
        return "fate"
    if group.name is not None:
        return "named"
    if group.explode:
        return "explode" if group.bounded else "explode-unbounded"
    return "reroll" if group.reroll is not None else "sum"


@dataclass
class Built:
    dice: Dice
    die: Any  # icepool.Die
    constructs: set[tuple[str, str]] = field(default_factory=set)
    top: str = "sum"
    unbounded: bool = False


def _icepool_die(group: Group) -> Any:
    """One die of a group, in icepool: re-rolled once, then exploding with fresh plain dice."""
    return _one_die(group.fate, group.sides, group.explode, group.reroll)


@functools.cache  # icepool's dice are immutable: one of each kind per process
def _one_die(fate: bool, sides: int, explode: int, reroll: tuple[int, int] | None) -> Any:
    base = icepool.Die([-1, 0, 1]) if fate else icepool.d(sides)
    shown = base if reroll is None else base.reroll(list(range(reroll[0], reroll[1] + 1)), depth=1)
    if not explode:
        return shown
    # deep enough for any horizon the expressions ask (up to 25 past the lowest, scaled by 1/3 twice)
    depth = 300 // sides + 3 if explode == UNBOUNDED else explode
    if depth == 0:
        return shown
    chain = icepool.d(sides).explode(depth=depth - 1) if depth > 1 else icepool.d(sides)
    return shown.map(lambda face: sides + chain if face == sides else face)


def _group(rng: random.Random, unbounded_ok: bool, built: set[tuple[str, str]], parent: str) -> tuple[Group, str]:
    kind = rng.choice(("plain", "fate", "explode", "explode-unbounded", "reroll", "named"))
    count = rng.randint(1, 3)
    sides = rng.choice((2, 3, 4, 6, 8))
    if kind == "fate":
        built.add((parent, "fate"))
        return Group(count, 3, fate=True), "fate"
    if kind == "explode-unbounded" and unbounded_ok:
        built.add((parent, "explode-unbounded"))
        return Group(count, sides, explode=UNBOUNDED), "explode-unbounded"
    if kind in ("explode", "explode-unbounded"):
        times = rng.randint(1, 3)
        reroll = (1, 1) if rng.random() < 0.3 and sides > 2 else None
        built.add((parent, "explode"))
        if reroll:
            built.add(("explode", "reroll"))
        return Group(count, sides, explode=times, reroll=reroll), "explode"
    if kind == "reroll" and sides > 2:
        low = rng.randint(1, sides - 1)
        built.add((parent, "reroll"))
        return Group(count, sides, reroll=(1, low)), "reroll"
    if kind == "named":
        built.add((parent, "named"))
        return Group(1, sides, explode=rng.choice((0, 2)), name=f"wild{rng.randrange(10**9)}"), "named"
    built.add((parent, "sum"))
    return Group(count, sides), "sum"


def build(rng: random.Random, depth: int = 2, unbounded_ok: bool = True) -> Built:
    """A random dice expression and its icepool twin.  Dice that explode without end appear only
    where the total grows with them (sums, keeps, counts from a face up, better/worse, scaling
    up), as the algebra allows."""
    constructs: set[tuple[str, str]] = set()
    choice = rng.choice(
        ("sum", "highest", "lowest", "count", "matches", "pairs", "cancel", "scaled", "clamped", "better", "worse")
        if depth > 0
        else ("sum", "highest", "lowest", "count", "matches", "pairs", "cancel")
    )
    if choice == "cancel":
        value, die = _cancel(rng, unbounded_ok, constructs)
        unbounded = not value.bounded
    elif choice in ("sum", "highest", "lowest", "count", "matches", "pairs"):
        allow = unbounded_ok and choice not in ("matches", "count", "pairs")
        groups = []
        for _ in range(1 if choice == "sum" else rng.randint(2, 3) if choice == "pairs" else rng.randint(1, 2)):
            group, _kind = _group(rng, allow, constructs, choice)
            groups.append(group)
        if choice == "sum":
            pooled = Pooled((groups[0],))
            die = groups[0].count @ _icepool_die(groups[0])
        else:
            dice = [_icepool_die(g) for g in groups for _ in range(g.count)]
            size = len(dice)
            if choice in ("highest", "lowest"):
                kept = rng.randint(1, size)
                pooled = Pooled(tuple(groups), choice, kept)
                pool = icepool.Pool(dice)
                die = (pool.highest(kept) if choice == "highest" else pool.lowest(kept)).sum()
                passing = _passing(rng, pooled, [(g, _icepool_die(g)) for g in groups for _ in range(g.count)], constructs)
                if passing is not None:
                    pooled, die = passing
                    choice = "left" if pooled.reading == "left" else "ignoring"
            elif choice == "pairs":
                side = rng.randint(1, len(groups) - 1)
                pooled = Pooled(tuple(groups), "pairs", side=side)
                first = sum(g.count for g in groups[:side])
                die = PairsWon()(icepool.Pool(dice[:first]), icepool.Pool(dice[first:]))
            elif choice == "count":
                low = rng.randint(-1, 6)
                high = rng.choice((None, low + rng.randint(0, 3)))
                pooled = Pooled(tuple(groups), "count", within=(low, high))
                die = sum(
                    (d.map(lambda x: int(x >= low and (high is None or x <= high))) for d in dice), icepool.Die([0])
                )
            else:
                pooled = Pooled(tuple(groups), "matches")
                die = icepool.Pool(dice).largest_count()
        value = Dice((), 0, (pooled,))
        unbounded = not value.bounded
    elif choice in ("better", "worse"):
        first, second = build(rng, depth - 1, unbounded_ok), build(rng, depth - 1, unbounded_ok)
        op = "max" if choice == "better" else "min"
        value = Dice((), 0, (Extreme(op, first.dice, second.dice),))
        die = icepool.highest(first.die, second.die) if op == "max" else icepool.lowest(first.die, second.die)
        constructs |= first.constructs | second.constructs | {(choice, first.top), (choice, second.top)}
        unbounded = first.unbounded or second.unbounded
    else:
        inner = build(rng, depth - 1, unbounded_ok)
        constructs |= inner.constructs | {(choice, inner.top)}
        unbounded = inner.unbounded
        if choice == "scaled":
            factor = Fraction(rng.choice((1, 2, 3)), rng.choice((1, 2, 3)))
            rounding = None if factor.denominator == 1 else rng.choice(("up", "down", "nearest"))
            value = Dice((), 0, (Scaled(inner.dice, factor, rounding),))
            die = inner.die.map(lambda x: _rounded(x * factor, rounding))
        else:
            op = rng.choice(("max", "min"))
            bound = rng.randint(0, 8)
            value = Dice((), 0, (Clamped(inner.dice, op, bound),))  # type: ignore[arg-type]
            die = inner.die.map(lambda x: max(x, bound) if op == "max" else min(x, bound))
    built = Built(value, die, constructs, choice, unbounded)
    if rng.random() < 0.4:
        bonus = rng.randint(-3, 3)
        built.dice = built.dice.plus(bonus)
        built.die = built.die + bonus
        built.constructs.add(("bonus", choice))
    if depth > 0 and rng.random() < 0.4:
        other = build(rng, depth - 1, unbounded_ok)
        built.dice = built.dice.plus(other.dice)
        built.die = built.die + other.die
        built.constructs |= other.constructs | {("sum", choice), ("sum", other.top)}
        built.unbounded = built.unbounded or other.unbounded
    return built


def _cancel(rng: random.Random, unbounded_ok: bool, built: set[tuple[str, str]]) -> tuple[Dice, Any]:
    """A pool of a named die and up to two other groups, the named die and the highest other die
    taken away when its first face is among some faces; in icepool, a mixture over the named
    die's first face: the other dice without their highest, or their sum and the named die's
    value from that face."""
    groups = [_group(rng, unbounded_ok, built, "cancel")[0] for _ in range(rng.randint(0, 2))]
    sides = rng.choice((2, 3, 4, 6))
    named = Group(1, sides, explode=rng.choice((0, 2, UNBOUNDED if unbounded_ok else 1)), name="trigger")
    built.add(("cancel", "named"))
    position = rng.randint(0, len(groups))
    groups.insert(position, named)
    low = rng.choice((None, *range(1, sides + 1)))
    high = rng.choice((*range(low or 1, sides + 1),) if low is None else (None, *range(low, sides + 1)))
    pooled = Pooled(tuple(groups), "cancel", within=(low, high), trigger="trigger")
    others = [_icepool_die(g) for g in groups if g is not named for _ in range(g.count)]
    summed = sum(others, icepool.Die([0]))
    left = icepool.Pool(others).lowest(len(others) - 1).sum() if len(others) >= 2 else icepool.Die([0])
    depth = 300 // sides + 3 if named.explode == UNBOUNDED else named.explode
    chain = icepool.d(sides).explode(depth=depth - 1) if depth > 1 else icepool.d(sides)
    branches = []
    for face in range(1, sides + 1):
        if (low is None or face >= low) and (high is None or face <= high):
            branches.append(left)
        else:
            branches.append(summed + (sides + chain if face == sides and named.explode else face))
    return Dice((), 0, (pooled,)), icepool.Die(branches)


def _rounded(value: Fraction, rounding: str | None) -> int:
    if rounding is None:
        return int(value)
    if rounding == "up":
        return math.ceil(value)
    if rounding == "down":
        return math.floor(value)
    return math.floor(value + Fraction(1, 2))


def icepool_totals(die: Any, horizon: int | None) -> dict[int, Fraction]:
    """icepool's chances, every total past `horizon` gathered above it."""
    denominator = die.denominator()
    found: dict[int, Fraction] = {}
    for outcome, quantity in die.items():
        if not quantity:
            continue
        key = int(outcome) if horizon is None else min(int(outcome), horizon + 1)
        found[key] = found.get(key, Fraction(0)) + Fraction(quantity, denominator)
    return dict(sorted(found.items()))


def agree(built: Built, rng: random.Random) -> tuple[dict[int, Fraction], dict[int, Fraction]]:
    """Both distributions: an expression with endless explosions up to a random horizon within
    the totals icepool's deep explosions reach exactly."""
    horizon = None
    if built.unbounded:
        horizon = rng.randint(built.dice.lowest, built.dice.lowest + 25)
    mine = built.dice.totals(horizon=horizon)
    theirs = icepool_totals(built.die, horizon)
    return mine, theirs
