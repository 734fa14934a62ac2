"""The benchmark's hand-written rules must stay equivalent to the generated resolvers.

bench/benchmark.py compares their speed; the comparison means something only while both build
the same Resolution, so any change to a rulebook, the runtime or the emitter that a baseline
misses fails here.  Each rule is checked on a grid that reaches every total of its roll (and
every row of its table), crossed with the other inputs, thousands of situations per rule.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from fractions import Fraction
from itertools import product
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import FIGURES, ROOT, RULEBOOKS, module_for

sys.path.insert(0, str(ROOT / "bench"))
try:
    from handwritten import HAND_WRITTEN, at_most_table, dice
finally:
    sys.path.remove(str(ROOT / "bench"))


def grid(
    crossed: dict[str, tuple[Any, ...]], others: dict[str, tuple[Any, ...]], each: int
) -> Iterator[dict[str, Any]]:
    """Every combination of the `crossed` inputs (those that move the roll through all its
    totals), each with `each` random picks of the `others` (seeded: the same on every run)."""
    rng = random.Random("hand-written baseline")
    for values in product(*crossed.values()):
        situation = dict(zip(crossed, values, strict=True))
        for _ in range(each):
            yield {**situation, **{name: rng.choice(choices) for name, choices in others.items()}}


FLAGS = (False, True)
GRIDS: dict[str, list[dict[str, Any]]] = {
    # DEX - 2 and DEX from -2 to 30: every total of 3d6 (3..18) and 2d6 (2..12), and past them
    "broken_ground": list(
        grid(
            {"DEX": tuple(range(31)), "moved": (0, 3, 5, 6, 60), "acrobatics": FLAGS},
            {"MOV": (0, 7, 10, 30), "weapon": ("none", "melee", "thrown", "missile", "laser")},
            8,
        )
    ),
    # the attribute from -18 (0 - 6 - 12) to 30 + 18: every total of the d20, every count of
    # Burst dice
    "lof_roll": list(
        grid(
            {"attribute": tuple(range(31)), "burst": tuple(range(1, 7)), "lof_skill": ("none", "bs_attack", "other")},
            {
                "vis": ("none", "low", "poor", "zero"),
                "lof_zone": ("clear_of", "from", "into", "through"),
                "range_mod": (-6, -3, 0, 0, 3, 6),
                "other_mods": (-12, -3, 0, 0, 3, 12),
                "responding": FLAGS,
                "facing": FLAGS,
            },
            6,
        )
    ),
    # skill 0..200 under every grade (x2 up to 400, /2, /5, 0): every bound of the degrees
    "skill_roll": list(
        grid(
            {
                "skill": tuple(range(201)),
                "easy": FLAGS,
                "difficult": FLAGS,
                "at_one_fifth": FLAGS,
                "impossible": FLAGS,
            },
            {},
            1,
        )
    ),
    "shooting_up_or_down": list(
        grid(
            {
                "skill": tuple(range(201)),
                "shot_direction": ("level", "upward", "downward"),
                "shot_angle": (0, 45, 46, 90),
            },
            {"base_range": (50, 50, 1, 51, 80, 5000)},
            1,
        )
    ),
    # impact speeds through every row of the Impact Speed table and across its edges
    "ramming": list(
        grid(
            {
                "own_speed": (1, 2, 3, 4, 5, 6, 7, 9, 10, 19, 20, 99, 100, 1000),
                "other_speed": (0, 1, 2, 4, 5, 50, 100, 1000),
                "ram_direction": ("head_on", "side", "rear"),
                "air_space": FLAGS,
            },
            {"vehicle_size": (1, 8, 100), "impact_speed": (None, None, None, 1, 150), "ram_dm": (None, None, 0, 12)},
            4,
        )
    ),
    # Pace -10..12, less 3 for a second move: every total of d6 and of the lower of 2d6
    "zone_move": list(
        grid(
            {
                "pace": tuple(range(-10, 13)),
                "running": FLAGS,
                "second_move": FLAGS,
                "zone": ("close", "short", "medium", "long", "flank"),
            },
            {
                "destination": ("close", "short", "medium", "long", "flank"),
                "move_target": (None, None, None, -10, 0, 4, 12),
                "all_actions": (-20, 0, 0, 3),
                "missile_against": (0, 0, -1, 20),
            },
            5,
        )
    ),
}


@pytest.mark.parametrize("rule", sorted(HAND_WRITTEN))
def test_hand_written_rule_matches_the_generated_one(rule: str) -> None:
    book, make = HAND_WRITTEN[rule]
    module: ModuleType = module_for(RULEBOOKS / f"{book}.rules")
    by_hand = make(module)
    generated = getattr(module, rule)
    situations = GRIDS[rule]
    assert len(situations) >= 2000
    for situation in situations:
        assert by_hand(**situation).to_dict() == generated(**situation).to_dict(), situation
    FIGURES.append(f"hand-written {rule}: agrees with the generated resolver on {len(situations)} situations")


def test_the_grids_reach_every_total_of_the_rolls(skirmish: ModuleType) -> None:
    """The grids above are only as good as the totals they reach: count them."""
    module = module_for(RULEBOOKS / "zone_combat.rules")
    targets = {module.zone_move(**s).roll("move").target for s in GRIDS["zone_move"]}
    assert set(range(1, 7)) <= targets  # every face of the d6
    targets = {skirmish.broken_ground(**s).to_dict()["stats"]["DEX"]["final"] for s in GRIDS["broken_ground"]}  # type: ignore[index]
    assert set(range(2, 19)) <= targets  # every total of 2d6 and 3d6


def test_the_dice_tables_are_counted_face_by_face() -> None:
    """3d6 at most 13..17: 181, 196, 206, 212, 215 of 216 (a typed-in table once had each one
    short).  The count: 216 - (totals 14..18) = 216 - (15 + 10 + 6 + 3 + 1) = 181 for 13."""
    table = at_most_table(dice(3, 6), sum)
    assert [table[t] * 216 for t in range(13, 18)] == [181, 196, 206, 212, 215]
    # the lower of 2d6 at most 4: 1 - (2/6)^2 = 32/36
    assert at_most_table(dice(2, 6), min)[4] == Fraction(32, 36)
