"""The chance tables of cards choose their columns on whole numbers of outcomes: the same columns,
and the same chances, as reading every target's chance as a Fraction."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from fractions import Fraction

import pytest

from dsl import model as m
from dsl.cards.chances import (
    _NICE_STEPS,
    MAX_COLUMNS,
    _resistance_columns,
    _successes,
    distribution,
    pick_targets,
    roll_chances,
)
from dsl.cards.notation import Notation
from dsl.compiler import compile_file
from dsl.resources import bundled_rulebooks_dir
from dsl.runtime.dice import Distribution, difference

OPS = ("<=", "<", ">=", ">", "==", "!=")


def reference_targets(
    chance: Callable[[int], Fraction],
    first: int,
    last: int,
    low: Fraction | None,
    high: Fraction | None,
    anchor: int | None = None,
) -> list[int]:
    """The columns as the cards chose them before, on Fractions: kept here as the definition."""
    start = first if low is None else max(first, math.ceil(low))
    stop = last if high is None else min(last, math.floor(high))
    values = [(v, chance(v)) for v in range(start, stop + 1)]
    uncertain = [(v, p) for v, p in values if 0 < p < 1]
    likely = [(v, p) for v, p in uncertain if Fraction(1, 100) <= p <= Fraction(99, 100)]
    chosen = likely if len(likely) >= 3 else uncertain
    if len(chosen) <= MAX_COLUMNS:
        return [v for v, _ in chosen]
    step = next(s for s in _NICE_STEPS if len(chosen) / s <= MAX_COLUMNS + 1)
    if anchor is None or not any(v == anchor for v, _ in chosen):
        anchor = min(chosen, key=lambda vp: (abs(vp[1] - Fraction(1, 2)), vp[0]))[0]
    if step >= 5:
        anchor -= anchor % step
    picked = [(v, p) for v, p in chosen if (v - anchor) % step == 0]
    while len(picked) > MAX_COLUMNS:
        half = Fraction(1, 2)
        picked = picked[1:] if abs(picked[0][1] - half) >= abs(picked[-1][1] - half) else picked[:-1]
    return [v for v, _ in picked]


def bundled_books() -> list[m.Book]:
    books = []
    for path in sorted(bundled_rulebooks_dir().glob("*.rules")):
        book = compile_file(path).book
        assert book is not None
        books.append(book)
    return books


def book_distributions(book: m.Book) -> Iterator[tuple[Distribution, str]]:
    """Every distribution a card of `book` reads chances from, with the comparison it reads them by:
    each roll's pool and the pools its changes roll, a resistance roll's, and opposed rolls'
    differences (read as `>`, a win)."""
    for part in book.parts.values():
        for effect in part.effects:
            if not isinstance(effect, m.RollEffect) or effect.pool is None or effect.pool.keep == "exploding":
                continue
            pools = [effect.pool, *(c.pool for c in effect.changes if c.pool is not None)]
            for pool in pools:
                yield distribution(pool.count, pool.sides, pool.keep), effect.op or "<="
            if effect.kind == "opposed" and effect.against is not None and effect.against.keep != "exploding":
                against = distribution(effect.against.count, effect.against.sides, effect.against.keep)
                yield difference(distribution(effect.pool.count, effect.pool.sides, effect.pool.keep), against), ">"
    if book.resistance is not None:
        pool = book.resistance.pool
        yield distribution(pool.count, pool.sides, pool.keep), book.resistance.op


@pytest.fixture(scope="module")
def read() -> list[tuple[Distribution, str]]:
    found = {(d.low, d.denominator, d.at_most, op): (d, op) for book in bundled_books() for d, op in book_distributions(book)}
    assert len(found) >= 10  # 3d6, 2d6, d100, d20, d10, opposed differences ...
    return list(found.values())


def test_the_outcomes_counted_are_the_chance_of_the_distribution(read: list[tuple[Distribution, str]]) -> None:
    for dist, _ in read:
        for op in OPS:
            for whole in range(dist.low - 2, dist.high + 3):
                for target in (whole, Fraction(whole), Fraction(2 * whole + 1, 2), Fraction(3 * whole - 1, 3)):
                    assert Fraction(_successes(dist, op, target), dist.denominator) == dist.compare_p(op, target), (
                        dist,
                        op,
                        target,
                    )


def readings(
    dist: Distribution, op: str, shift: Fraction | int
) -> tuple[Callable[[int], Fraction], Callable[[int], int]]:
    """The chance against `v + shift`, as a Fraction and as a number of outcomes."""
    return (lambda v: dist.compare_p(op, v + shift)), (lambda v: _successes(dist, op, v + shift))


@pytest.mark.parametrize("shift", [0, -2, 3, Fraction(1, 2), Fraction(-7, 3)])
def test_the_columns_are_those_read_on_fractions(read: list[tuple[Distribution, str]], shift: Fraction | int) -> None:
    for dist, op in read:
        for op_read in sorted({op, "<=", ">="}):
            for low, high, anchor in ((None, None, None), (Fraction(0), Fraction(30), None), (None, None, 0)):
                first, last = dist.low - 1 - math.floor(shift), dist.high + 1 - math.floor(shift)
                chance, successes = readings(dist, op_read, shift)
                expected = reference_targets(chance, first, last, low, high, anchor)
                found = pick_targets(successes, dist.denominator, first, last, low, high, anchor)
                assert found == expected, (dist.low, dist.high, op_read, shift, low, high, anchor)


def test_3d6_at_or_under_shows_every_other_target_around_ten() -> None:
    # 3d6 <= 3 is 1 of 216 (under 1%), <= 4 is 4 of 216 (1.9%), <= 16 is 212 (98.1%), <= 17 is
    # 215 (99.5%): 4..16 are likely, 13 values, too many for 7 columns; a step of 2 leaves 6.5,
    # within 8.  <= 10 is 108 of 216, an even chance: the columns run from 10 by twos.
    dist = distribution(3, 6)
    found = pick_targets(lambda v: _successes(dist, "<=", v), dist.denominator, 2, 19, None, None)
    assert found == [4, 6, 8, 10, 12, 14, 16]


def test_every_resistance_roll_shows_its_book_s_table_worked_out_afresh() -> None:
    rolls = 0
    for book in bundled_books():
        resists = [e for p in book.parts.values() for e in p.effects if isinstance(e, m.RollEffect) and e.kind == "resist"]
        if book.resistance is None or not resists:
            continue
        fresh = _resistance_columns(book, book.resistance)
        assert fresh is not None
        differences, row = fresh
        for effect in resists:
            table = roll_chances(effect, Notation(book))
            assert table is not None and table.rows == (row,)
            assert table.columns == tuple(f"+{d}" if d > 0 else str(d).replace("-", "\u2212") for d in differences)
            rolls += 1
    assert rolls >= 10  # the resistance rolls of the bundled books
