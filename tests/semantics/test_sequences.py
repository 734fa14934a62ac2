"""Whole procedures, exactly: rules resolved over rounds and dice values read as distributions.

Every figure of the resolvers is compared with a brute-force count of every sequence of die faces
written here from the sources (no simulation): the CON rolls against asphyxiation face by face,
round after round, with the 1D8 of each round after a failure; the recovery rolls of a disease,
morning after morning; the dice of a spacesuit leak, turn after turn; falling damage less armor,
face by face.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from fractions import Fraction
from types import ModuleType

import jsonschema
import pytest

from tests.conftest import RULEBOOKS, module_for, module_from_text, run_cli


@pytest.fixture(scope="module")
def spot_a() -> ModuleType:
    return module_for(RULEBOOKS / "spot_rules_a_to_e.rules")


@pytest.fixture(scope="module")
def spot_e() -> ModuleType:
    return module_for(RULEBOOKS / "spot_rules_e_to_z.rules")


@pytest.fixture(scope="module")
def skirmish_book() -> ModuleType:
    return module_for(RULEBOOKS / "skirmish_terrain.rules")


def _add(into: dict[int, Fraction], key: int, p: Fraction) -> None:
    into[key] = into.get(key, Fraction(0)) + p


# ---------------------------------------------------------------------- asphyxiation

MULTIPLIERS = {
    "expected": (10, 5, 4, 3, 2),
    "surprised_took_breath": (5, 4, 3, 2, 1),
    "surprised_no_breath": (3, 2, 1, 1, 1),
}
"""The source's CON multipliers by round (x1 from then on), as the book reads them."""


def _multiplier(start: str, round_number: int) -> int:
    table = MULTIPLIERS[start]
    return table[round_number - 1] if round_number <= len(table) else 1


def _asphyxiation(con: int, start: str, rounds: int) -> tuple[Fraction, dict[int, Fraction]]:
    """Every sequence of d100 faces (and, after a failed roll, of 1D8 faces each following round):
    the chance of never failing, and of each total of damage."""
    lasting = Fraction(0)
    damage: dict[int, Fraction] = {}

    def after_failure(left: int, total: int, p: Fraction) -> None:
        if left == 0:
            _add(damage, total, p)
            return
        for face in range(1, 9):
            after_failure(left - 1, total + face, p / 8)

    def holding(round_number: int, p: Fraction) -> None:
        nonlocal lasting
        if round_number > rounds:
            lasting += p
            _add(damage, 0, p)
            return
        target = con * _multiplier(start, round_number)
        for face in range(1, 101):
            if face <= target:
                holding(round_number + 1, p / 100)
            else:
                after_failure(rounds - round_number, 0, p / 100)

    holding(1, Fraction(1))
    return lasting, damage


@pytest.mark.parametrize(
    ("con", "start", "rounds"),
    [
        (2, "expected", 3),
        # the longest enumeration (some 4 s): in the slow tier, the three others cover each start
        pytest.param(3, "expected", 4, marks=pytest.mark.slow),
        (2, "surprised_no_breath", 4),
        (4, "surprised_took_breath", 3),
    ],
)
def test_asphyxiation_over_rounds_matches_every_sequence_of_faces(
    spot_a: ModuleType, con: int, start: str, rounds: int
) -> None:
    lasting, damage = _asphyxiation(con, start, rounds)
    result = spot_a.asphyxiation(CON=con, asphyxiation_start=start, rounds=rounds).sequence
    assert result.lasting == lasting
    assert result.totals["damage_per_round"].totals() == {k: v for k, v in sorted(damage.items())}
    assert sum(result.totals["damage_per_round"].totals().values()) == 1
    # each round: going on into it, and ending in it, add up to what the rounds before left
    assert result.rounds[0].going == 1
    for before, after in itertools.pairwise(result.rounds):
        assert after.going == before.going - before.ends
    assert result.rounds[-1].going - result.rounds[-1].ends == lasting


def test_lasting_three_rounds_with_con_12(spot_a: ModuleType) -> None:
    # x10 = 120 (certain), x5 = 60 (3/5), x4 = 48 (12/25): 1 x 3/5 x 12/25 = 36/125
    sequence = spot_a.resolve("asphyxiation", CON=12, rounds=3).sequence
    assert sequence.lasting == Fraction(36, 125)
    assert [r.number for r in sequence.rounds] == [1, 2, 3]
    assert [r.ends for r in sequence.rounds] == [0, Fraction(2, 5), Fraction(3, 5) * Fraction(13, 25)]
    assert sequence.rounds[1].rolls["hold_breath"] == {"success": Fraction(3, 5), "failure": Fraction(2, 5)}


def test_a_sequence_starts_where_the_caller_puts_its_counter(spot_a: ModuleType) -> None:
    # from round 3: x4 = 48 (12/25), x3 = 36 (9/25): 108/625
    sequence = spot_a.asphyxiation(CON=12, asphyxiation_round=3, rounds=2).sequence
    assert [r.number for r in sequence.rounds] == [3, 4]
    assert sequence.lasting == Fraction(12, 25) * Fraction(9, 25)


# ---------------------------------------------------------------------- disease, by day


def _recovery(con: int, days: int) -> tuple[Fraction, list[Fraction]]:
    """Morning after morning from day 2 (CON x the day), every d100 face until one succeeds."""
    ends = [Fraction(0)] * days
    lasting = Fraction(0)

    def morning(index: int, p: Fraction) -> None:
        nonlocal lasting
        if index == days:
            lasting += p
            return
        target = con * (index + 2)
        for face in range(1, 101):
            if face <= target:
                ends[index] += p / 100
            else:
                morning(index + 1, p / 100)

    morning(0, Fraction(1))
    return lasting, ends


def test_disease_recovery_over_days_matches_every_sequence_of_faces(spot_a: ModuleType) -> None:
    lasting, ends = _recovery(20, 3)
    sequence = spot_a.disease_recovery(diseased=True, CON=20, rounds=3).sequence
    assert sequence.unit == "day" and [r.number for r in sequence.rounds] == [2, 3, 4]
    assert sequence.lasting == lasting == Fraction(60 * 40 * 20, 100**3)
    assert [r.ends for r in sequence.rounds] == ends


# ---------------------------------------------------------------------- a spacesuit leak, by turn


def _leak(first: int, turns: int) -> dict[int, Fraction]:
    """Every face of every die of every turn: turn t of the leak rolls t dice."""
    dice = sum(range(first, first + turns))
    totals: dict[int, Fraction] = {}
    for faces in itertools.product(range(1, 7), repeat=dice):
        _add(totals, sum(faces), Fraction(1, 6**dice))
    return totals


@pytest.mark.parametrize(("first", "turns"), [(1, 1), (1, 3), (2, 2), (4, 1)])
def test_leak_damage_over_turns_matches_every_roll(skirmish_book: ModuleType, first: int, turns: int) -> None:
    given = {"leak_turns": first} if first != 1 else {}
    total = skirmish_book.spacesuit(rounds=turns, **given).sequence.totals["leak_damage"]
    assert total.totals() == dict(sorted(_leak(first, turns).items()))
    assert total.mean == Fraction(7, 2) * sum(range(first, first + turns))
    assert total.at_least(total.low) == 1 and total.at_least(total.high + 1) == 0


def test_resolve_rounds_on_the_command_line_and_in_json() -> None:
    result = run_cli("resolve", "skirmish_terrain", "spacesuit", "--rounds", "3", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    schema = json.loads(run_cli("schema", "resolution").output)
    jsonschema.Draft202012Validator(schema).validate(data)
    totals = data["sequence"]["totals"]["leak_damage"]
    # 1D6 + 2D6 + 3D6 = 6D6: 6 to 36, 21 on average; 36 only on six 6s
    assert (totals["min"], totals["max"], totals["mean"]) == (6, 36, 21)
    assert totals["at_least"][-1] == {"total": 36, "probability": {"fraction": "1/46656", "float": 1 / 46656}}
    text = run_cli("resolve", "spot_rules_a_to_e", "asphyxiation", "--set", "CON=12", "--rounds", "3")
    assert "lasting all 3: 36/125 (28.8%)" in text.output


def test_rounds_are_refused_where_nothing_changes_by_round(skirmish_book: ModuleType) -> None:
    with pytest.raises(skirmish_book.RuleInputError, match="nothing changes from round to round"):
        skirmish_book.resolve("mud", rounds=2)
    with pytest.raises(skirmish_book.RuleInputError, match="rounds is a whole number"):
        skirmish_book.resolve("spacesuit", rounds=0)
    with pytest.raises(skirmish_book.RuleInputError, match="leak_turns"):
        skirmish_book.resolve("spacesuit", leak_turns=99, rounds=5)  # 99 .. 103 runs past 100
    result = run_cli("resolve", "skirmish_terrain", "mud", "--rounds", "2")
    assert result.exit_code == 2 and "Traceback" not in result.output


# ---------------------------------------------------------------------- distributions as results


def _fall(dice: int, armor: int) -> dict[int, Fraction]:
    totals: dict[int, Fraction] = {}
    for faces in itertools.product(range(1, 7), repeat=dice):
        _add(totals, max(sum(faces) - armor, 0), Fraction(1, 6**dice))
    return totals


@pytest.mark.parametrize(("distance", "armor"), [(3, 5), (3, 1), (6, 4), (9, 0)])
def test_falling_damage_after_armor_matches_every_roll(spot_e: ModuleType, distance: int, armor: int) -> None:
    # per full three meters a die; armor counts half (rounded up) up to three meters, none beyond
    dice, counted = distance // 3, (armor + 1) // 2 if distance <= 3 else 0
    taken = spot_e.falling(fall_distance=distance, armor=armor).derived["fall_taken"]
    assert taken.totals() == dict(sorted(_fall(dice, counted).items()))
    assert taken.chances().totals() == taken.totals()
    brute = _fall(dice, counted)
    for k in range(0, 6 * dice + 2):
        assert taken.at_least(k) == sum((p for v, p in brute.items() if v >= k), Fraction(0))
        assert taken.at_most(k) == sum((p for v, p in brute.items() if v <= k), Fraction(0))
    assert taken.mean == sum((v * p for v, p in brute.items()), Fraction(0))


def test_halving_and_targets_read_as_distributions(spot_a: ModuleType) -> None:
    acid = spot_a.acid(acid="very_strong", armored=True, acid_round=2).stats["acid_damage"]
    halved: dict[int, Fraction] = {}
    for face in range(1, 7):
        _add(halved, -(-(face + 1) // 2), Fraction(1, 6))  # (1D6+1) / 2, rounded up
    assert acid.totals() == dict(sorted(halved.items()))
    zone = module_for(RULEBOOKS / "zone_combat.rules")
    targets = zone.aoe_targets(aoe="large").derived["template_targets"]
    ways = [a + b + 1 for a, b in itertools.product(range(1, 5), repeat=2)]
    assert targets.at_least(6) == Fraction(sum(w >= 6 for w in ways), 16) == Fraction(5, 8)


def _parts(value: object) -> Iterator[object]:
    yield value
    for part in getattr(value, "parts", ()):
        yield from _parts(part.dice)


def test_clamped_dice_parse_as_they_print_and_change_like_dice() -> None:
    module = module_from_text(
        """rulebook clamp "Clamp":
    source "docs"

stat damage "Damage": dice = 2d6
input armour "Armour": int 0..10 = 0
input shaken "Shaken": flag = no

rule hit "Hit" cites "1":
    derive left "Damage after armour" = max(damage - armour, 0)
    derive capped "Damage, at most 8" = min(damage, 8)
    when shaken: damage -1 die "shaken"
"""
    )
    left = module.hit(armour=3).derived["left"]
    assert str(left) == "max(2d6-3, 0)" and module.Dice.parse(str(left)) == left
    # 2d6 - 3 below 1 on 2 and 3 (3 of 36 ways): P(0) = 1/12; 6 or more on 9+ (10 ways): 5/18
    assert left.chance(0) == Fraction(1, 12) and left.at_least(6) == Fraction(5, 18)
    assert module.hit(armour=3, shaken=True).derived["left"].totals() == {
        0: Fraction(1, 2),
        1: Fraction(1, 6),
        2: Fraction(1, 6),
        3: Fraction(1, 6),
    }
    capped = module.hit().derived["capped"]
    assert capped.high == 8 and capped.chance(8) == Fraction(15, 36)  # 8 to 12: 5+4+3+2+1 ways
    data = module.hit(armour=3).to_dict()["derived"]["left"]
    assert data["at_least"][0] == {"total": 0, "probability": {"fraction": "1", "float": 1.0}}
    assert [x for x in _parts(left)][1] == module.Dice.parse("2d6-3")


# ---------------------------------------------------------------------- what rounds may cost

_SLOW_ROUNDS = """\
rulebook seq3 "Seq3":
    source "docs"

input CON "Constitution": int 1..30 = 10
input round "Round": int 1..1000000 = 1
input failed "Failed": flag = no
input leak_turns "Turns": int 0..1000000 = 0

rule leak "Leak" cites "A.3":
    when leak_turns > 0:
        derive leak_damage "Leak damage" = leak_turns d6
    each turn leak_turns from 1:
        total leak_damage

rule hold "Hold" cites "A.2":
    unless failed:
        roll hold_breath "Hold the breath": d100 <= CON * 3 - round
    when failed:
        derive dmg "Damage" = 1d30
    each round round:
        until hold_breath fails then failed = yes
        total dmg
"""


@pytest.mark.parametrize(("rule", "unit"), [("hold", "round"), ("leak", "turn")])
def test_rounds_past_what_a_resolver_works_out_are_refused_at_once(rule: str, unit: str) -> None:
    """rounds_slow.rules / rounds_slow.sh: a thousand rounds of a d30 total (or of a total that
    adds one more d6 each turn) are past exact work in any time a user waits: every round widens
    the total and lengthens its fractions.  Refused within seconds, with the rounds that fit; and
    those rounds are worked out, in about the same time."""
    import re
    import time

    module = module_from_text(_SLOW_ROUNDS, "rounds_slow.rules")
    started = time.perf_counter()
    with pytest.raises(module.RuleInputError, match=f"1000 {unit}s of {rule} are more than") as refused:
        module.resolve(rule, rounds=1000)
    assert time.perf_counter() - started < 10
    fits = re.search(rf"ask for at most (\d+) {unit}s", str(refused.value))
    assert fits is not None, refused.value
    started = time.perf_counter()
    result = module.resolve(rule, rounds=int(fits[1]))
    assert time.perf_counter() - started < 10
    assert result.sequence is not None and len(result.sequence.rounds) == int(fits[1])
    cli = run_cli("resolve", "--help")
    assert cli.exit_code == 0


def test_the_refusal_of_too_many_rounds_is_a_usage_error_on_the_command_line(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "rounds_slow.rules"
    path.write_text(_SLOW_ROUNDS, encoding="utf-8")
    result = run_cli("resolve", str(path), "hold", "--rounds", "1000")
    assert result.exit_code == 2
    assert "more than a resolver works out exactly" in result.output and "Traceback" not in result.output


def test_a_total_over_many_rounds_is_the_sum_of_its_rounds() -> None:
    """The integer weights of a sequence's totals give the same exact distribution as adding the
    rounds' distributions as fractions: twelve turns of a spacesuit leak add 1d6, 2d6 ... 12d6,
    which is 78d6."""
    skirmish = module_for(RULEBOOKS / "skirmish_terrain.rules")
    total = skirmish.resolve("spacesuit", rounds=12).sequence.totals["leak_damage"]
    direct = skirmish.Dice.parse("78d6").totals()
    assert dict(total.table) == direct
