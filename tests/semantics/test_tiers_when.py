"""A roll read with the tiers a condition chooses: `when advanced: tiers advanced_move`.

A roll names its own tier system (`tiers move`); a change under a condition reads it with
another, as a pool change rolls other dice.  Changes of one kind that replace go as the last
that holds says (`when blessed: ...` then `when keen: ...`: keen's tiers when both hold).  The
chances, the seeded and told rolling and the reference evaluator read the same system; the
generated resolver agrees with the reference on random situations.
"""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path
from typing import Any

from dsl import model as m
from dsl.compiler import compile_text
from tests.conftest import module_from_text, run_cli
from tests.differential import Tally, compare, random_situation, texts_of

BOOK = """rulebook chosen "Tiers chosen by a condition":
    source "s"

tiers move "Move results":
    strong_hit: roll >= 10
    weak_hit: roll >= 7
    miss: otherwise

tiers advanced_move "Advanced move results":
    advanced_hit: roll >= 12
    strong_hit: roll >= 10
    weak_hit: roll >= 7
    miss: otherwise

tiers plain_crits "Criticals":
    critical: natural 20 always succeeds
    success: roll >= target
    failure: otherwise

tiers blessed_crits "Blessed criticals":
    critical: natural 18..20 always succeeds
    success: roll >= target
    failure: otherwise

tiers keen_crits "Keen criticals":
    critical: natural 19..20 always succeeds
    success: roll >= target
    failure: otherwise

tiers boom "Booms":
    boom: natural 6
    big: roll >= target + 4
    hit: roll >= target
    miss: otherwise

input sharp "Sharp": int -2..3 = 0
input advanced "Advanced": flag
input bonus "Bonus": int -5..10 = 0
input dc "Difficulty": int 5..30 = 15
input blessed "Blessed": flag
input keen "Keen": flag
input lucky "Lucky": flag
input target "Target": int 2..12 = 6

rule read_a_situation "Read a situation" cites "1":
    roll read "Read": 2d6 + sharp
        tiers move
        when advanced: tiers advanced_move
        on advanced_hit: "Ask any three questions."
        on strong_hit: "Ask three questions."
        on miss: "The MC makes a move."

rule strike "Strike" cites "2":
    roll hit "Hit": d20 + bonus >= dc
        tiers plain_crits
        when blessed: tiers blessed_crits
        when keen: tiers keen_crits
        on critical: "Double damage."

rule burst "Burst" cites "3":
    roll burst "Burst": exploding d6 >= target
        unless lucky: +1 die
        when lucky: tiers boom
        on boom: "It goes off."
        on success: "Done."
"""


def _module_and_book() -> tuple[Any, m.Book]:
    compiled = compile_text(BOOK, "chosen.rules")
    assert compiled.ok and compiled.book is not None, compiled.render()
    return module_from_text(BOOK, "chosen.rules"), compiled.book


def test_an_advanced_move_reads_the_roll_with_its_own_tiers() -> None:
    """PbtA's advanced move, "on a 12+ you do something extra": `when advanced: tiers
    advanced_move`.  2d6 totals, ways of 36: 2:1 3:2 4:3 5:4 6:5 7:6 8:5 9:4 10:3 11:2 12:1.
    Sharp +2, advanced: 12 or more needs 10+ on the dice, 3 + 2 + 1 = 6 (1/6); a strong hit 8 or
    9, 5 + 4 = 9 (1/4); a weak hit 5 to 7, 4 + 5 + 6 = 15 (5/12); a miss 4 or less, 6 (1/6).
    Not advanced: a strong hit 8 or more, 15 (5/12), the weak hit and the miss as before."""
    module, _ = _module_and_book()
    advanced = module.resolve("read_a_situation", sharp=2, advanced=True).roll("read")
    assert advanced.outcomes == {
        "advanced_hit": Fraction(1, 6),
        "strong_hit": Fraction(1, 4),
        "weak_hit": Fraction(5, 12),
        "miss": Fraction(1, 6),
    }
    plain = module.resolve("read_a_situation", sharp=2, advanced=False).roll("read")
    assert plain.outcomes == {"strong_hit": Fraction(5, 12), "weak_hit": Fraction(5, 12), "miss": Fraction(1, 6)}


def test_the_last_tiers_that_hold_read_the_roll() -> None:
    """d20 + 0 >= 25: no face meets it, only a critical succeeds.  Plain: a natural 20, 1/20;
    blessed: 18..20, 3/20; keen: 19..20, 1/10; blessed and keen: keen is written last, 1/10."""
    module, _ = _module_and_book()
    chances = {
        (blessed, keen): module.resolve("strike", dc=25, blessed=blessed, keen=keen).roll("hit").probability
        for blessed in (False, True)
        for keen in (False, True)
    }
    assert chances == {
        (False, False): Fraction(1, 20),
        (True, False): Fraction(3, 20),
        (False, True): Fraction(1, 10),
        (True, True): Fraction(1, 10),
    }


def test_a_roll_told_or_seeded_is_read_with_the_chosen_tiers() -> None:
    """A told 6 and 6 is an advanced hit with the advanced move, a strong hit without; a told 19
    is a keen critical, a plain failure against 25."""
    module, _ = _module_and_book()
    resolve = module.resolve
    made = resolve("read_a_situation", advanced=True, rolled={"read": [6, 6]}).rolled("read")
    assert made.outcomes == ("advanced_hit",)
    made = resolve("read_a_situation", advanced=False, rolled={"read": [6, 6]}).rolled("read")
    assert made.outcomes == ("strong_hit",)
    assert resolve("strike", dc=25, keen=True, rolled={"hit": [19]}).rolled("hit").outcomes == ("critical",)
    assert resolve("strike", dc=25, rolled={"hit": [19]}).rolled("hit").outcomes == ("failure",)
    seeded = resolve("read_a_situation", advanced=True, rng=7).rolled("read")
    total = seeded.total
    expected = "advanced_hit" if total >= 12 else "strong_hit" if total >= 10 else "weak_hit" if total >= 7 else "miss"
    assert seeded.outcomes == (expected,)


def test_the_resolver_agrees_with_the_reference() -> None:
    module, book = _module_and_book()
    rng = random.Random(26)
    tally = Tally()
    texts = texts_of(book)
    for _ in range(40):
        for rule in ("read_a_situation", "strike", "burst"):
            compare(book, module, [rule], random_situation(book, [rule], rng, texts), tally)
    assert not tally.mismatches, tally.mismatches[:3]
    assert tally.situations - tally.refused >= 100


def test_tiers_chosen_by_a_condition_are_checked_as_a_roll_s_own(tmp_path: Path) -> None:
    """An unknown system (E101), tiers on an opposed roll (E203), an outcome of no system the
    roll may use (E101, listing those of every system)."""
    path = tmp_path / "bad.rules"
    path.write_text(
        """rulebook bad "Bad":
    source "s"

tiers low "Low":
    hi: roll >= 10
    lo: otherwise

tiers high "High":
    top: roll >= 12
    lo: otherwise

input f "F": flag

rule r "R" cites "1":
    roll t "T": 2d6
        tiers low
        when f: tiers hihg
    roll o "O": opposed 2d6 vs 2d6
        when f: tiers high
    roll c "C": 2d6 >= 7
        tiers low
        when f: tiers high
        on mid: "x"
""",
        encoding="utf-8",
    )
    result = run_cli("check", str(path))
    assert result.exit_code == 1
    assert "bad.rules:17:23: error[E101]: unknown tiers `hihg`" in result.output
    assert "did you mean `high`?" in result.output
    assert "bad.rules:19:17: error[E203]: outcome tiers split the totals of a roll of dice and modifiers" in result.output
    assert "bad.rules:23:12: error[E101]: `mid` is not an outcome of this roll" in result.output
    assert "outcomes: success, failure, hi, lo, top" in result.output
