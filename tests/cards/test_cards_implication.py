"""What a card says about whether one condition implies another is decided exactly, over every
situation of the values the conditions read (dsl/cards/implication.py), never by sampling: a
check's chances are keyed by the stat before the card's own modifier only when that modifier
holds whenever the roll is made."""

from __future__ import annotations

import itertools

import pytest

from dsl import model as m
from dsl.cards.blocks import Chances, Detail
from dsl.cards.deck import build_deck
from dsl.cards.implication import MOST_SITUATIONS, implies
from dsl.semantics.values import Constants, NotConstant, evaluate
from tests.cards.test_cards import compile_book

HEAD = """\
rulebook implication "Implication":
    source "test"

stat DEX "Dexterity": int 0..30 = 10
stat MOV "Movement allowance": int 0..30 = 10
input moved "Hexes moved this turn": int 0..60 = 0
input weapon "Weapon": one of {none, melee, thrown} = none
input wet "Wet": flag = no
input far "Distance": number = 0
"""


def _rule(modifier_condition: str) -> str:
    return (
        HEAD
        + f"""
rule slope "Slope":
    when {modifier_condition}:
        DEX -2
    when moved > MOV / 2:
        roll fall "Avoid falling": 3d6 <= DEX
"""
    )


def _against(text: str) -> str:
    """What the fall's chances are keyed by, on the rule's card."""
    card = next(c for c in build_deck(compile_book(text)) if c.key == "slope")
    for block in card.blocks:
        if isinstance(block, Chances):
            return block.table.against
        if isinstance(block, Detail) and block.runs[0].text.startswith("Chance"):
            return block.runs[0].text
    raise AssertionError("no chances on the card")


def test_a_modifier_whose_condition_always_holds_with_the_roll_is_folded_in() -> None:
    # moved > MOV / 2 with MOV >= 0 means moved >= 1: `moved > 0` holds whenever the roll is made.
    assert _against(_rule("moved > 0")) == "DEX before \u22122"


def test_one_situation_against_it_in_thousands_keeps_the_modifier_out() -> None:
    """The modifier's condition fails in one situation of the 5,673 of moved, MOV and the
    weapon (37 hexes, MOV 5, thrown), in which the roll is made: a sample of a few hundred
    situations would most likely miss it and fold the modifier in; every situation is gone
    through, and the chances stay keyed by DEX as it is."""
    assert _against(_rule("moved != 37 or MOV != 5 or weapon != thrown")) == "DEX"


def test_a_condition_on_what_the_roll_does_not_read_is_not_implied() -> None:
    assert _against(_rule("wet")) == "DEX"


def test_a_number_without_whole_values_says_nothing() -> None:
    assert _against(_rule("far >= 0")) == "DEX"


def _book(text: str) -> m.Book:
    return compile_book(text)


def _conditions(book: m.Book, rule: str) -> list[tuple[m.Condition, ...]]:
    return [e.guard for e in book.rules[rule].effects if e.guard]


class _Values(Constants):
    def __init__(self, values: dict[str, object]) -> None:
        self.values = values

    def value(self, ref: m.Ref) -> object:  # type: ignore[override]
        if ref.name in self.values:
            return self.values[ref.name]
        raise NotConstant(ref.name)


def _brute_force(book: m.Book, guard: tuple[m.Condition, ...], by: tuple[m.Condition, ...]) -> bool:
    """The implication over the whole product of every value of moved, MOV, weapon and wet."""
    met = False
    for moved, mov, weapon, wet in itertools.product(range(61), range(31), ("none", "melee", "thrown"), (False, True)):
        env = _Values({"moved": moved, "MOV": mov, "weapon": weapon, "wet": wet})
        if not all(bool(evaluate(c.expr, book, env)) != c.negated for c in by):  # type: ignore[arg-type]
            continue
        met = True
        if not all(bool(evaluate(c.expr, book, env)) != c.negated for c in guard):  # type: ignore[arg-type]
            return False
    return met


CONDITIONS = [
    "moved > 0",
    "moved > MOV / 2",
    "moved >= MOV",
    "moved != 37",
    "wet",
    "moved > 0 or weapon != none",
    "moved > 3 and weapon == thrown",
    "moved > MOV / 2 and not wet",
    "MOV < 31",
]


@pytest.mark.parametrize(("guard", "by"), list(itertools.permutations(CONDITIONS, 2)))
def test_the_decision_is_the_one_every_situation_gives(guard: str, by: str) -> None:
    text = HEAD + f'\nrule r "R":\n    when {by}:\n        DEX -1\n    when {guard}:\n        DEX +1\n'
    book = _book(text)
    by_guard, guard_guard = _conditions(book, "r")
    assert implies(book, guard_guard, by_guard) == _brute_force(book, guard_guard, by_guard)


def test_too_many_situations_say_nothing() -> None:
    wide = HEAD + "input a: int 0..1000 = 0\ninput b: int 0..1000 = 0\ninput c: int 0..1000 = 0\n"
    text = wide + '\nrule r "R":\n    when a > b:\n        DEX -1\n    when a > b and c > 0:\n        DEX +1\n'
    book = _book(text)
    by, guard = _conditions(book, "r")
    assert MOST_SITUATIONS < 1001 * (1001 + 1001)
    assert not implies(book, by, guard)  # true, but a million situations are not gone through
