"""An independent oracle for the dice engine: every distribution the compiler builds for the
bundled rulebooks and the mechanics gallery (the pool of every roll and table, with every number
of dice its changes reach, the difference of every opposed roll), and a few hundred random
pools (sums, kept dice, exploding and Fate dice, counted successes, dice arithmetic), compared
with icepool's as exact fractions.  icepool shares no code with dsl/runtime/: it computes by
its own algorithms, so an agreement is evidence, not a tautology."""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Iterator
from fractions import Fraction
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from dsl import model as m
from dsl import nodes as n
from dsl.runtime.dice import Dice, Scaled, difference, distribution
from dsl.runtime.rolls import successes_of
from tests.conftest import ROOT, RULEBOOKS, compiled

icepool = pytest.importorskip("icepool", reason="icepool is in the test extra: pip install -e '.[test]'")

BOOKS = sorted(RULEBOOKS.glob("*.rules")) + sorted((ROOT / "tests" / "fixtures" / "mechanics").glob("*.rules"))
RANDOM_POOLS = 300

Pool = tuple[int, int, str | None]


def _die(sides: int) -> Any:
    return icepool.d(sides)


def _oracle(pool: Pool, horizon: int) -> dict[int, Fraction]:
    """The chance of each total of `pool` by icepool (exploding: every total up to `horizon`)."""
    count, sides, keep = pool
    if keep == "fate":
        die = count @ icepool.Die([-1, 0, 1])
    elif keep == "exploding":
        # a die that explodes more than horizon // sides times shows more than the horizon
        die = count @ _die(sides).explode(depth=horizon // sides + 1)
    elif keep is None:
        die = count @ _die(sides)
    else:
        side, _, kept = keep.partition(" ")
        number = int(kept) if kept else 1
        chosen = _die(sides).pool(count)
        die = (chosen.highest(number) if side == "highest" else chosen.lowest(number)).sum()
    return _chances(die, horizon if keep == "exploding" else None)


def _chances(die: Any, horizon: int | None = None) -> dict[int, Fraction]:
    denominator = die.denominator()
    return {
        int(outcome): Fraction(quantity, denominator)
        for outcome, quantity in die.items()
        if quantity and (horizon is None or outcome <= horizon)
    }


def _engine(pool: Pool, horizon: int) -> dict[int, Fraction]:
    count, sides, keep = pool
    return distribution(count, sides, keep, horizon).chances()


def _walk(value: object, seen: set[int]) -> Iterator[object]:
    """Every object reachable from `value` through dataclass fields and containers."""
    if id(value) in seen or isinstance(value, (str, int, Fraction, bool, type(None))):
        return
    seen.add(id(value))
    yield value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for item in dataclasses.fields(value):
            yield from _walk(getattr(value, item.name), seen)
    elif isinstance(value, (tuple, list, set, frozenset)):
        for item in value:
            yield from _walk(item, seen)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _walk(item, seen)


def _key(pool: n.Pool, delta: int = 0) -> Pool:
    return (max(pool.count + delta, 1), pool.sides, pool.keep)


COUNTED = range(1, 13)
"""Numbers of dice tried where a rule works the number out when resolving (`skill d6`)."""


def _built(path: Path) -> tuple[set[Pool], set[tuple[Pool, Pool]], set[tuple[int, str]]]:
    """The pools a rulebook's resolver works out (with every number of dice its changes reach),
    the pairs of its opposed rolls, and the dice and comparison of its counted successes."""
    book = compiled(path).book
    assert book is not None
    pools: set[Pool] = set()
    pairs: set[tuple[Pool, Pool]] = set()
    counted: set[tuple[int, str]] = set()
    roots = (book.rules, book.parts, book.tables, book.resistance)
    for found in _walk(roots, set()):
        if isinstance(found, m.RollEffect):
            rolled = [p for p in (found.pool, *(c.pool for c in found.changes)) if p is not None]
            deltas = [c.delta for c in found.changes if c.kind == "dice"]
            sums = {sum(chosen) for size in range(len(deltas) + 1) for chosen in combinations(deltas, size)}
            pools |= {_key(p, d) for p in rolled for d in sums}
            if found.kind == "opposed" and found.pool is not None and found.against is not None:
                pairs.add((_key(found.pool), _key(found.against)))
            if found.kind == "count" and found.op is not None:
                sides = found.pool.sides if found.pool is not None else getattr(found.dice, "sides", None)
                assert isinstance(sides, int), found.dice
                counted.add((sides, found.op))
        elif isinstance(found, n.Pool):
            pools.add(_key(found))
        elif isinstance(found, n.DiceLiteral):
            pools.add((found.count, found.sides, None))
        elif isinstance(found, n.DiceCount):
            pools |= {(count, found.sides, None) for count in COUNTED}
    return pools, pairs, counted


def _successes_oracle(count: int, sides: int, op: str, goal: int) -> dict[int, Fraction]:
    meets = {"<=": goal.__ge__, "<": goal.__gt__, ">=": goal.__le__, ">": goal.__lt__, "==": goal.__eq__}
    test = meets.get(op, goal.__ne__)
    return _chances(count @ _die(sides).map(lambda face: int(test(face))))


def _successes_engine(count: int, sides: int, op: str, goal: int) -> dict[int, Fraction]:
    return {k: p for k, p in successes_of(count, sides, op, goal).items() if p}


def _horizon(pool: Pool) -> int:
    count, sides, _ = pool
    return 3 * count * sides


@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.stem)
def test_every_distribution_a_rulebook_builds(path: Path) -> None:
    pools, pairs, counted = _built(path)
    assert pools or counted
    for pool in sorted(pools, key=str):
        assert _engine(pool, _horizon(pool)) == _oracle(pool, _horizon(pool)), pool
    for first, second in sorted(pairs, key=str):
        mine = difference(distribution(*first), distribution(*second)).chances()
        theirs = _chances(_oracle_die(first) - _oracle_die(second))
        assert mine == theirs, (first, second)
    successes = 0
    for sides, op in sorted(counted):
        for count in COUNTED:
            for goal in range(sides + 2):
                assert _successes_engine(count, sides, op, goal) == _successes_oracle(count, sides, op, goal)
                successes += 1
    print(
        f"{path.stem}: {len(pools)} pools, {len(pairs)} opposed differences and {successes} counts of "
        "successes agree with icepool"
    )


def _oracle_die(pool: Pool) -> Any:
    chances = _oracle(pool, _horizon(pool))
    scale = math.lcm(*(c.denominator for c in chances.values()))
    return icepool.Die({total: int(c * scale) for total, c in chances.items()})


def _random_pool(rng: random.Random) -> Pool:
    kind = rng.choice(("sum", "keep", "keep n", "exploding", "fate"))
    sides = rng.choice((2, 3, 4, 6, 8, 10, 12, 20))
    if kind == "sum":
        return (rng.randint(1, 8), sides, None)
    if kind == "fate":
        return (rng.randint(1, 10), 3, "fate")
    if kind == "exploding":
        return (rng.randint(1, 3), rng.choice((2, 3, 4, 6, 8, 10)), "exploding")
    count = rng.randint(1, 6)
    side = rng.choice(("highest", "lowest"))
    return (count, sides, side if kind == "keep" else f"{side} {rng.randint(1, count)}")


def _rounded(value: Fraction, rounding: str) -> int:
    if rounding == "up":
        return math.ceil(value)
    if rounding == "down":
        return math.floor(value)
    return math.floor(value + Fraction(1, 2))


def _random_arithmetic(rng: random.Random) -> tuple[Dice, Any]:
    """A dice expression (pools, a bonus, a scaled part) and the same expression in icepool."""
    terms = tuple((rng.randint(1, 3), rng.choice((4, 6, 8, 10))) for _ in range(rng.randint(1, 2)))
    bonus = rng.randint(-5, 5)
    die = icepool.Die([bonus])
    for count, sides in terms:
        die = die + count @ _die(sides)
    parts: tuple[Scaled, ...] = ()
    if rng.random() < 0.7:
        count, sides = rng.randint(1, 3), rng.choice((6, 10))
        factor = Fraction(rng.choice((1, 2, 3, 10)), rng.choice((1, 2, 3)))
        rounding = None if factor.denominator == 1 else rng.choice(("up", "down", "nearest"))
        parts = (Scaled(Dice(((count, sides),)), factor, rounding),)

        def scale(total: int, factor: Fraction = factor, rounding: str | None = rounding) -> int:
            return _rounded(total * factor, rounding) if rounding else int(total * factor)

        die = die + (count @ _die(sides)).map(scale)
    return Dice(terms, bonus, parts), die


def test_random_pools_agree_with_icepool() -> None:
    rng = random.Random(11)
    compared = 0
    for _ in range(RANDOM_POOLS):
        pool = _random_pool(rng)
        assert _engine(pool, _horizon(pool)) == _oracle(pool, _horizon(pool)), pool
        compared += 1
    for _ in range(RANDOM_POOLS // 3):
        count, sides = rng.randint(1, 12), rng.choice((6, 10, 12))
        op, goal = rng.choice(("<=", "<", ">=", ">", "==", "!=")), rng.randint(0, sides + 1)
        assert _successes_engine(count, sides, op, goal) == _successes_oracle(count, sides, op, goal)
        compared += 1
    for _ in range(RANDOM_POOLS // 3):
        mine_dice, theirs_die = _random_arithmetic(rng)
        assert mine_dice.totals() == _chances(theirs_die), str(mine_dice)
        compared += 1
    for _ in range(RANDOM_POOLS // 6):
        first, second = _random_pool(rng), _random_pool(rng)
        if "exploding" in (first[2], second[2]):
            continue
        mine = difference(distribution(*first), distribution(*second)).chances()
        assert mine == _chances(_oracle_die(first) - _oracle_die(second)), (first, second)
        compared += 1
    print(f"{compared} random distributions agree with icepool")
    assert compared >= RANDOM_POOLS
