"""Random dice expressions over the whole algebra, worked out by rulecraft (dsl/runtime/) and by
icepool, compared as exact fractions (tests/dice_expressions.py builds both); the matrix of
constructs shows every pair composed.  tests/soak/dice_icepool.py runs the comparison at length."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("icepool", reason="icepool is in the test extra: pip install -e '.[test]'")

from tests.dice_expressions import CONSTRUCTS, agree, build

READERS = ("sum", "highest", "lowest", "ignoring", "left", "count", "matches", "pairs", "cancel")
DICE = ("sum", "fate", "explode", "explode-unbounded", "reroll", "named")
COMBINATORS = ("better", "worse", "scaled", "clamped", "sum", "bonus")


def _compare(seed: int) -> None:
    rng = random.Random(seed)
    built = build(rng)
    mine, theirs = agree(built, rng)
    assert mine == theirs, f"seed {seed}: {built.dice}"


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32))
def test_random_expressions_agree_with_icepool(seed: int) -> None:
    _compare(seed)


PARTS = 5
"""CI's 5,000 expressions in so many tests of 1,000, which the run's workers share."""


@pytest.mark.slow
@pytest.mark.parametrize("part", range(PARTS))
def test_thousands_of_random_expressions_agree_with_icepool(part: int) -> None:
    @settings(max_examples=5000 // PARTS, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
    @given(st.integers(min_value=part << 32, max_value=(part << 32) + 2**32 - 1))
    def compare(seed: int) -> None:
        _compare(seed)

    compare()


@pytest.mark.slow  # 3,000 expressions built with their icepool twins: about two minutes
def test_every_pair_of_constructs_composes() -> None:
    """The generator composes each reading of a pool with each kind of die, and each way of
    combining values (better, worse, scaled, clamped, added, a bonus) with each construct."""
    seen: set[tuple[str, str]] = set()
    rng = random.Random(26)
    for _ in range(3000):
        seen |= build(rng).constructs
    wanted = {(reader, kind) for reader in READERS for kind in DICE}
    # refused: not monotone
    wanted -= {("count", "explode-unbounded"), ("matches", "explode-unbounded"), ("pairs", "explode-unbounded")}
    # refused: a keep passing over faces, or the die it leaves, of dice without a highest total;
    # the size of a Fate die
    wanted -= {("ignoring", "explode-unbounded"), ("left", "explode-unbounded"), ("left", "fate")}
    wanted |= {(combinator, top) for combinator in COMBINATORS for top in CONSTRUCTS if top in READERS + COMBINATORS[:4]}
    wanted.add(("explode", "reroll"))
    missing = sorted(wanted - seen)
    assert not missing, missing
    rows = sorted({a for a, _ in seen})
    print("composed:", ", ".join(f"{row}({len([b for a, b in seen if a == row])})" for row in rows))
