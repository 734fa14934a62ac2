"""Rounds as published games count them (issue 26, "Rounds"), one test per idiom:

- "the same dice taken each round and summed": `each round:` without a counter;
- "until she fails a third stamina check": `until ROLL fails 3 times`;
- "-1D for every stamina check failed": `count ROLL fails as INPUT`, the input read by the dice.

Each figure of the resolvers (tests/fixtures/features/round_idioms.rules) is held to a computation
written here from the dice alone: every throw of the dice enumerated, and the failures carried
from round to round as a Markov chain of exact fractions.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from types import ModuleType

import pytest

from tests.conftest import FEATURES, module_for, module_from_text, run_cli

ROUNDS_BOOK = FEATURES / "round_idioms.rules"


@pytest.fixture(scope="module")
def rounds() -> ModuleType:
    return module_for(ROUNDS_BOOK)


def _fails(dice: int, target: int = 10) -> Fraction:
    """The chance `dice`d6 totals under `target`: every throw counted."""
    throws = list(itertools.product(range(1, 7), repeat=dice))
    return Fraction(sum(1 for faces in throws if sum(faces) < target), len(throws))


def test_the_same_dice_taken_each_round_and_summed(rounds: ModuleType) -> None:
    """"the same dice taken each round and summed": `each round:` with no input counting the
    rounds (once E801, "never reads 'contact_round'"); 2D6 a round for three rounds is every
    throw of six dice."""
    checked = run_cli("check", str(ROUNDS_BOOK))
    assert checked.exit_code == 0, checked.output
    sequence = rounds.close_contact(rounds=3).sequence
    ways: dict[int, int] = {}
    for faces in itertools.product(range(1, 7), repeat=6):
        ways[sum(faces)] = ways.get(sum(faces), 0) + 1
    assert sequence.totals["contact_damage"].totals() == {total: Fraction(w, 6**6) for total, w in ways.items()}
    assert [r.number for r in sequence.rounds] == [1, 2, 3]
    assert [r.means["contact_damage"] for r in sequence.rounds] == [7, 14, 21]
    assert sequence.counter is None and sequence.lasting == 1


def test_until_she_fails_a_third_stamina_check(rounds: ModuleType) -> None:
    """"until she fails a third stamina check": `until swim_stamina fails 3 times` ends the
    rounds at the third failure, not the first.  With p the chance 3D6 fails against 10, the
    third failure comes in round r with C(r-1, 2) p^3 (1-p)^(r-3), and the swim lasts n rounds
    with the chance of at most two failures in n."""
    p = _fails(3)
    assert p == Fraction(3, 8)
    n = 7
    sequence = rounds.long_swim(rounds=n).sequence
    ends = [math.comb(r - 1, 2) * p**3 * (1 - p) ** (r - 3) if r >= 3 else Fraction(0) for r in range(1, n + 1)]
    assert [r.ends for r in sequence.rounds] == ends
    assert sequence.lasting == sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(3))
    assert sequence.until == "swim_stamina failure 3 times"
    for before, after in itertools.pairwise(sequence.rounds):
        assert after.going == before.going - before.ends


def _march(dice: int, failed: int, hours: int) -> tuple[list[Fraction], list[Fraction], Fraction]:
    """The forced march as a Markov chain over the checks failed so far: in each hour the check
    is (dice - failed) d6 against 10; the third failure of the march ends it.  Each hour's chance
    of the march going into it and ending in it, and of lasting every hour."""
    going = {0: Fraction(1)}  # failures during the march -> chance
    into, ending = [], []
    for _ in range(hours):
        into.append(sum(going.values(), Fraction(0)))
        after: dict[int, Fraction] = {}
        ended = Fraction(0)
        for k, chance in going.items():
            fail = _fails(dice - failed - k)
            if k + 1 == 3:
                ended += chance * fail
            else:
                after[k + 1] = after.get(k + 1, Fraction(0)) + chance * fail
            after[k] = after.get(k, Fraction(0)) + chance * (1 - fail)
        ending.append(ended)
        going = after
    return into, ending, sum(going.values(), Fraction(0))


@pytest.mark.parametrize(("dice", "failed", "hours"), [(4, 0, 3), (5, 0, 5), (6, 1, 4)])
def test_minus_1d_for_every_stamina_check_failed(rounds: ModuleType, dice: int, failed: int, hours: int) -> None:
    """"-1D for every stamina check failed": `count march_stamina fails as failed_checks` feeds
    the failures so far into `(stamina_dice - failed_checks) d6`, until the third failure; from
    the checks the caller says have failed already (`failed_checks = 1`) when given."""
    into, ending, lasting = _march(dice, failed, hours)
    sequence = rounds.forced_march(stamina_dice=dice, failed_checks=failed, rounds=hours).sequence
    assert [r.going for r in sequence.rounds] == into
    assert [r.ends for r in sequence.rounds] == ending
    assert sequence.lasting == lasting
    # the check's own chance each hour: the failures so far make it harder as the march goes on
    fails = [r.rolls["march_stamina"]["failure"] / r.going for r in sequence.rounds]
    assert fails[0] == _fails(dice - failed)
    assert fails == sorted(fails)


_COUNTED_PAST = """\
rulebook slog "Slog":
    source "docs"

input wounds "Wounds so far": int 0..2 = 0

rule slog "Slog" cites "1":
    roll slog_check "Endurance": 3d6 - wounds >= 10
    each hour:
        count slog_check fails as wounds
"""


def test_a_count_past_its_input_is_refused_with_the_input_named() -> None:
    """A count is exact or refused: three failures cannot be held by `wounds: int 0..2`."""
    module = module_from_text(_COUNTED_PAST, "slog.rules")
    assert module.slog(rounds=3).sequence is not None  # two failures at most before hour 3
    with pytest.raises(module.RuleInputError, match=r"`wounds` reaches 3 in hour 4, past its highest, 2"):
        module.slog(rounds=4)


_COUNTED_LONG = """\
rulebook slog "Slog":
    source "docs"

input wounds "Wounds so far": int 0..1000 = 0

rule slog "Slog" cites "1":
    roll slog_check "Endurance": 3d6 >= 10
    derive fatigue "Fatigue" = wounds
    each hour:
        count slog_check fails as wounds
"""


def test_a_count_over_too_many_rounds_is_refused_with_the_rounds_that_fit() -> None:
    """A sequence that counts resolves each round once per count it may be at (hour N at N
    counts), so its work grows as the square of the rounds: a thousand hours are refused within
    seconds, the bound named as the rounds that fit."""
    import time

    module = module_from_text(_COUNTED_LONG, "slog.rules")
    started = time.perf_counter()
    with pytest.raises(module.RuleInputError, match=r"1000 hours of slog are more than a resolver works out exactly") as refused:
        module.slog(rounds=1000)
    assert time.perf_counter() - started < 10
    assert "counts of `wounds`" in str(refused.value) and "ask for at most" in str(refused.value)


@pytest.mark.parametrize("seed", range(20))
def test_rolled_rounds_step_as_the_exact_rounds_do(rounds: ModuleType, seed: int) -> None:
    """Rolled from a seed, the forced march plays its hours one after another: each hour's check
    has a die fewer for every check failed before it, and the march ends at the third failure
    (or goes on through the hours asked for)."""
    sequence = rounds.forced_march(stamina_dice=6, rounds=8, rng=seed).sequence
    failed = 0
    for played in (r.rolled for r in sequence.rounds[: sequence.rolled.rounds]):
        assert played is not None
        (check,) = played.rolls
        assert check.dice == f"{6 - failed}d6"
        failed += check.rolled.success is False
        assert played.ends == (failed == 3)
    assert sequence.rolled.ended == (sequence.rolled.rounds if failed == 3 else None)
    assert sequence.rolled.rounds == 8 or failed == 3
    # every round alike, and its dice added up, rolled too
    contact = rounds.close_contact(rounds=3, rng=seed).sequence
    assert contact.rolled.rounds == 3 and 6 <= contact.rolled.totals["contact_damage"] <= 36
