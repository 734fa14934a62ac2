"""A roll's pool change replaces its dice whether they are written or worked out when resolving.

A roll whose dice are worked out (`highest of (dots) d6`, `(skill) d6`) kept them when a
pool change held: `when hurt: lowest of 2d6` passed `check` and the resolver, like the reference,
went on rolling the highest of the dots (11/36 where the game says 1/36).  Both now roll the
change's dice; rolling follows the same dice.
"""

from __future__ import annotations

from fractions import Fraction

from dsl.compiler import compile_text
from dsl.semantics.reference import resolve as reference_resolve
from tests.conftest import module_from_text

BOOK = """rulebook changes "Changes":
    source "s"

input dots "Action dots": int 0..4 = 2
input hurt "Hurt": flag = no
input skill "Skill dice": int 0..6 = 3

rule action "Action" cites "1":
    roll act "Act": highest of (dots) d6 >= 6
        when dots == 0: lowest of 2d6
        when hurt: lowest of 2d6

rule pool "Pool" cites "2":
    roll sum "Sum": (skill) d6 >= 10
        when hurt: 2d6
        when hurt: +1 die
"""


def _both(name: str, **given: object) -> list[tuple[str, Fraction]]:
    module = module_from_text(BOOK, "changes.rules")
    compiled = compile_text(BOOK, "changes.rules")
    assert compiled.book is not None
    ours = module.resolve(name, **given)
    theirs = reference_resolve(compiled.book, name, given)
    found = [(roll.dice, roll.probability) for roll in ours.rolls]
    assert found == [(roll.dice, roll.probability) for roll in theirs.rolls]
    return found


def test_a_pool_change_replaces_dice_worked_out_from_values() -> None:
    # The highest of two dice reaches 6 in 1 - (5/6)^2 = 11/36; the lowest of two only on 6 and
    # 6, 1/36.
    assert _both("action") == [("highest of 2d6", Fraction(11, 36))]
    assert _both("action", hurt=True) == [("lowest of 2d6", Fraction(1, 36))]


def test_zero_dots_roll_the_lowest_of_two() -> None:
    # Blades: the highest of no dice would be 0; the change rolls two and reads the lowest.
    assert _both("action", dots=0) == [("lowest of 2d6", Fraction(1, 36))]


def test_dice_counted_from_a_value_changed_to_other_dice_and_one_die_more() -> None:
    # 3d6 >= 10: 135 of 216 = 5/8 (3d6 <= 9 in 81 ways).  Hurt: 2d6 and one die more, 3d6 again, now from the change's
    # dice: with no skill dice too (0d6 alone would never reach 10).
    assert _both("pool") == [("3d6", Fraction(5, 8))]
    assert _both("pool", hurt=True, skill=0) == [("3d6", Fraction(5, 8))]
    assert _both("pool", skill=0) == [("0", Fraction(0))]


def test_rolling_rolls_the_change_s_dice() -> None:
    module = module_from_text(BOOK, "changes.rules")
    made = module.resolve("action", hurt=True, rolled={"act": [6, 2]}).roll("act")
    assert made.rolled.total == 2 and made.rolled.outcome == "failure"
