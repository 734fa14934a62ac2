"""Rolling over rounds (`rounds=N` with `rng=` or `rolled=`): each round rolled in turn from one
generator, the counter one higher each round, `until ROLL OUTCOME` ending the rounds (or, with
`then`, changing the input from the next round on) when the outcome rolled is that one, and each
`total` summed from the values rolled; told round by round as `N:name`."""

from __future__ import annotations

from typing import Any

import pytest

import generated.skirmish_terrain as skirmish
import generated.spot_rules_a_to_e as spot
from dsl.runtime import RuleInputError, Xoshiro128
from tests.conftest import ROOT, module_for


def _faces(rolled_round: Any) -> list[int]:
    """Every face a rolled round took, in the order rolled: its rolls, then its totals' dice."""
    found = [f for roll in rolled_round.rolls for side in roll.rolled.sides for d in side.rolled for f in d.faces]
    for value in rolled_round.values.values():
        if value.rolled is not None:
            found += [f for d in value.rolled.rolled for f in d.faces]
    return found


def test_each_round_is_rolled_in_turn_and_then_changes_the_input() -> None:
    """Asphyxiation, CON 12: a d100 a round against CON x the round's multiplier (the counter
    goes up), until it fails; then `breath_failed = yes` from the next round: 1d8 a round, summed."""
    changed_seen = 0
    for seed in range(30):
        result = spot.asphyxiation(CON=12, rounds=4, rng=seed)
        sequence = result.sequence
        stream = Xoshiro128(seed)
        rounds = [item for item in sequence.rounds if item.rolled is not None]
        assert len(rounds) == sequence.rolled.rounds == 4
        faces = [f for item in rounds for f in _faces(item.rolled)]
        sides = [100 if item.rolled.rolls else 8 for item in rounds for _ in _faces(item.rolled)]
        assert faces == [1 + stream.below(n) for n in sides]
        changed, total = False, 0
        for item in rounds:
            rolled = item.rolled
            assert rolled.changed == changed
            names = [roll.name for roll in rolled.rolls]
            if changed:
                assert names == [] and rolled.values["damage_per_round"].rolled.dice == "1d8"
            else:
                (made,) = rolled.rolls
                exact = spot.asphyxiation(CON=12, asphyxiation_round=item.number).roll("hold_breath")
                assert made.target == exact.target
                assert rolled.ends == (made.rolled.success is False)
                assert rolled.values["damage_per_round"].value == 0
            total += rolled.values["damage_per_round"].value
            assert rolled.totals["damage_per_round"] == total
            if rolled.ends:
                assert sequence.rolled.changed == item.number
            changed = changed or rolled.ends
        assert sequence.rolled.totals == {"damage_per_round": total} and sequence.rolled.ended is None
        changed_seen += changed
        assert result.rolled("hold_breath").to_dict() == rounds[0].rolled.rolls[0].rolled.to_dict()
    assert 0 < changed_seen < 30


def test_until_ends_the_rounds_rolled() -> None:
    """Disease recovery: a roll each day from day 2 until one succeeds; the days after are not rolled."""
    lengths = set()
    for seed in range(40):
        sequence = spot.disease_recovery(diseased=True, rounds=5, rng=seed).sequence
        played = [item for item in sequence.rounds if item.rolled is not None]
        successes = [item.number for item in played if item.rolled.rolls[0].rolled.success]
        assert [item.number for item in played] == list(range(2, 2 + len(played)))
        assert successes == ([played[-1].number] if sequence.rolled.ended is not None else [])
        assert sequence.rolled.ended == (played[-1].number if successes else None)
        assert all(item.rolled is None for item in sequence.rounds[len(played):])
        lengths.add(len(played))
    assert len(lengths) >= 3


def test_totals_sum_the_dice_rolled_each_round() -> None:
    """A spacesuit leak: leak_turns d6 a turn, 1d6, 2d6, 3d6, from one generator."""
    result = skirmish.spacesuit(rounds=3, rng=2)
    values = [item.rolled.values["leak_damage"] for item in result.sequence.rounds]
    assert [v.rolled.dice for v in values] == ["1d6", "2d6", "3d6"]
    stream = Xoshiro128(2)
    assert [f for v in values for d in v.rolled.rolled for f in d.faces] == [1 + stream.below(6) for _ in range(6)]
    assert result.sequence.rolled.totals["leak_damage"] == sum(v.value for v in values)
    assert result.to_dict()["sequence"]["rolled"] == {
        "rounds": 3,
        "ended": None,
        "changed": None,
        "totals": {"leak_damage": sum(v.value for v in values)},
    }


def test_rounds_are_told_round_by_round() -> None:
    """`N:name` tells round N (the counter's value; a name alone, the first round): the seed's
    rounds told back give the same rounds."""
    seeded = spot.asphyxiation(CON=8, rounds=6, rng=4)
    told: dict[str, object] = {}
    for item in seeded.sequence.rounds:
        for roll in item.rolled.rolls:
            told[f"{item.number}:{roll.name}"] = [f for s in roll.rolled.sides for d in s.rolled for f in d.faces]
        for name, value in item.rolled.values.items():
            if value.rolled is not None:
                told[f"{item.number}:{name}"] = value.rolled.dice_total
    again = spot.asphyxiation(CON=8, rounds=6, rolled=told)

    def rounds(result: Any) -> list[object]:
        return [
            (r.rolled.changed, r.rolled.ends, [x.rolled.total for x in r.rolled.rolls], dict(r.rolled.totals))
            for r in result.sequence.rounds
        ]

    assert rounds(again) == rounds(seeded) and again.sequence.rolled == seeded.sequence.rolled
    partly = spot.disease_recovery(diseased=True, rounds=6, rolled={"recover": 90, "3:recover": 95, "4:recover": 5})
    assert partly.sequence.rolled.rounds == 3 and partly.sequence.rolled.ended == 4
    some = spot.disease_recovery(diseased=True, rounds=6, rolled={"recover": 90})
    assert some.sequence.rolled.rounds == 1 and some.sequence.rolled.ended is None


@pytest.mark.parametrize(
    ("rule", "given", "rolled", "message"),
    [
        ("disease_recovery", {"diseased": True}, {"recover": 90, "3:recover": 5, "4:recover": 5}, "day 4 is told, but the sequence ended in day 3"),
        ("disease_recovery", {"diseased": True}, {"recover": 90, "4:recover": 5}, "day 4 is told, but day 3 is neither told nor rolled from a seed"),
        ("disease_recovery", {"diseased": True}, {"9:recover": 1}, r"`9:recover`: day 9 is not among those resolved \(2 to 7\)"),
        ("disease_recovery", {"diseased": True}, {"x:recover": 1}, "a result told for a day is `N:name`, N its disease_day"),
        ("disease_recovery", {"diseased": True}, {"recover": 1, "2:recover": 3}, "`recover` is told twice for day 2"),
        ("disease_recovery", {"diseased": True}, {"recover": [101]}, "day 2: recover: face 101"),
        ("asphyxiation", {"CON": 8}, {"hold_breath": 99, "2:hold_breath": 5}, "round 2: no roll `hold_breath`"),
        ("spacesuit", {}, {"leak_damage": 4, "3:leak_damage": [1]}, "turn 3 is told, but turn 2 is neither told"),
        ("spacesuit", {}, {"leak_damage": 4, "2:leak_damage": 3, "3:leak_damage": [1]}, "turn 3: leak_damage: 1 faces told"),
    ],
)
def test_rounds_told_wrong_are_clear_errors(rule: str, given: dict[str, object], rolled: dict[str, object], message: str) -> None:
    module = skirmish if rule == "spacesuit" else spot
    with pytest.raises(RuleInputError, match=message):
        module.resolve([rule], rounds=6 if rule != "spacesuit" else 3, rolled=rolled, **given)


def test_a_round_without_its_result_told_is_a_clear_error() -> None:
    """tests/fixtures/rolling/rounds.rules: a d6 to douse and `turn d4` of burns each turn. A
    round told in part, with no seed, names what it lacks."""
    burning = module_for(ROOT / "tests" / "fixtures" / "rolling" / "rounds.rules")
    with pytest.raises(RuleInputError, match=r"turn 1: `burn` is 1d4: tell it \(`1:burn`\), or give a seed"):
        burning.burning(rounds=3, rolled={"douse": 3, "2:douse": 2})
    with pytest.raises(RuleInputError, match=r"turn 2: `douse` decides whether the turns go on: tell it \(`2:douse`\)"):
        burning.burning(rounds=3, rolled={"douse": 3, "burn": 2, "2:burn": 3})
    told = burning.burning(rounds=3, rolled={"douse": 3, "burn": 2, "2:douse": 1, "2:burn": [4, 4], "3:douse": [5], "3:burn": 7})
    assert told.sequence.rolled.to_dict() == {"rounds": 3, "ended": 3, "changed": None, "totals": {"burn": 17}}
