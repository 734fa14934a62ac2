"""Rolling follows chains: a rolled table's row that sends on (`then roll TABLE +N`, `roll twice`,
`roll again`) has each table it sends on to rolled in turn from the same generator, depth first,
and every roll reported on the table's `chained`; each table of a chain can be told by its name."""

from __future__ import annotations

from typing import Any

import pytest

import generated.mecha_tables as mecha
import generated.terrain_cards as terrain
from dsl.runtime import RuleInputError, Xoshiro128


def steps(result: Any, table: str) -> list[tuple[str, int, int, str, bool, bool]]:
    found = next(t for t in result.tables if t.name == table)
    return [(c.table, c.depth, c.result, c.row.key, c.applies, c.again) for c in found.chained]


def faces_of(result: Any, table: str) -> dict[str, list[int]]:
    """Every face the table and its chain took, by table, in the order rolled."""
    found = next(t for t in result.tables if t.name == table)
    told: dict[str, list[int]] = {table: [f for d in found.rolled.rolled for f in d.faces]}
    for c in found.chained:
        told.setdefault(c.table, []).extend(f for d in c.rolled.rolled for f in d.faces)
    return told


def test_a_seeded_roll_follows_the_chain_to_its_end() -> None:
    """hostility_level -> game_conditions +N -> damage_value: three tables, one generator."""
    ends = set()
    for seed in range(60):
        result = terrain.resolve("hostility_level", rng=seed)
        table = result.tables[0]
        assert table.rolled is not None and table.selected is not None
        chained = table.chained
        assert chained[0].table == "game_conditions" and chained[0].depth == 1
        modifier = {"1..5": 0, "6..10": 1, "11..14": 2, "15..17": 3, "18..19": 4, "20": 6}[table.selected.key]
        assert chained[0].rolled.bonus == modifier
        assert chained[0].result == chained[0].rolled.dice_total + modifier
        if chained[0].row.steps:
            assert [(c.table, c.depth) for c in chained[1:]] == [("damage_value", 2)]
        else:
            assert len(chained) == 1
        ends.add(len(chained))
        assert result.to_dict() == terrain.resolve("hostility_level", rng=seed).to_dict()
    assert ends == {1, 2}


def test_the_generator_goes_on_from_the_chain_to_the_next_situation() -> None:
    """The chain's faces come between its table's and the next situation's: one stream."""
    stream = Xoshiro128(4)
    assert len(terrain.resolve("hostility_level", rng=stream).tables[0].chained) == 2
    following = terrain.resolve("hostility_level", rng=stream).to_dict()
    expected = Xoshiro128(4)
    for _ in range(3):  # hostility_level, game_conditions, damage_value: a d20 each
        expected.below(20)
    assert following == terrain.resolve("hostility_level", rng=expected).to_dict()


def test_roll_twice_is_rolled_depth_first_and_a_roll_twice_met_again_is_rolled_again() -> None:
    """mecha_tables light_damage, seed 5: row 6 rolls twice; the two rolls meet row 6 and are
    rolled again; each sub-table is rolled before the second roll of the pair."""
    result = mecha.resolve("light_damage", rng=5)
    assert result.tables[0].selected.key == "6"
    assert steps(result, "light_damage") == [
        ("light_damage", 1, 6, "6", False, True),
        ("light_damage", 1, 6, "6", False, True),
        ("light_damage", 1, 2, "2", False, False),
        ("structural", 2, 6, "6", True, False),
        ("light_damage", 1, 6, "6", False, True),
        ("light_damage", 1, 1, "1", False, False),
        ("fire_control", 2, 2, "2", True, False),
    ]
    assert faces_of(result, "light_damage") == {
        "light_damage": [6, 6, 6, 2, 6, 1],
        "structural": [6],
        "fire_control": [2],
    }


def test_a_chain_is_told_by_naming_each_table() -> None:
    """Each table's faces in one list, every roll on it in order: the seed's chain again."""
    rolled = mecha.resolve("light_damage", rng=5)
    told = mecha.resolve("light_damage", rolled=faces_of(rolled, "light_damage"))
    assert steps(told, "light_damage") == steps(rolled, "light_damage")
    assert told.tables[0].to_dict()["chained"] == rolled.tables[0].to_dict()["chained"]
    by_total = terrain.resolve(
        "hostility_level", rolled={"hostility_level": 20, "game_conditions": 14, "damage_value": 12}
    )
    assert steps(by_total, "hostility_level") == [
        ("game_conditions", 1, 20, "20+", False, False),
        ("damage_value", 2, 12, "11..14", True, False),
    ]


def test_a_chain_with_no_generator_stops_at_a_table_not_told() -> None:
    result = terrain.resolve("hostility_level", rolled={"hostility_level": 20})
    assert result.tables[0].selected.key == "20" and result.tables[0].chained == ()
    mixed = terrain.resolve("hostility_level", rng=1, rolled={"hostility_level": 20, "game_conditions": 14})
    assert [c.table for c in mixed.tables[0].chained] == ["game_conditions", "damage_value"]


@pytest.mark.parametrize(
    ("rolled", "message"),
    [
        ({"light_damage": 6}, "light_damage: the chain rolls on it again; tell its faces"),
        ({"light_damage": [3], "structural": [6]}, "structural: told, but the situation does not roll on it"),
        ({"light_damage": [3, 4]}, "light_damage: 2 faces told, but the dice take 1"),
        ({"light_damage": [6, 6, 6, 2, 6, 1], "structural": [6], "fire_control": [7]}, "fire_control: face 7"),
    ],
)
def test_a_chain_told_wrong_is_a_clear_error(rolled: dict[str, object], message: str) -> None:
    with pytest.raises(RuleInputError, match=message):
        mecha.resolve("light_damage", rolled=rolled)


KNOCKED = {"unit": "walker", "damage_taken": 14, "vehicle_size": 6, "MoS": 3}
"""A size 6 walker hit hard: its knockdown roll (highest of 2d6 >= 4) fumbles on double 1, and
the fumble sends on to the Light Damage table (`on fumble: ... then roll light_damage`)."""


def outcome_steps(result: Any, roll: str) -> list[tuple[str, int, int, str, bool, bool]]:
    made = result.rolled(roll)
    return [(c.table, c.depth, c.result, c.row.key, c.applies, c.again) for c in made.chained]


def test_a_rolled_outcome_that_sends_on_rolls_the_table_after_the_roll() -> None:
    """The outcome that came up sends on: its table, and that table's chain, rolled from the same
    generator right after the roll; an outcome that does not send on rolls nothing more."""
    fumbles = 0
    for seed in range(200):
        result = mecha.resolve("walker_knockdown", **KNOCKED, rng=seed)
        made = result.rolled("knockdown")
        if made.outcome != "fumble":
            assert made.chained == ()
            continue
        fumbles += 1
        assert made.chained[0].table == "light_damage" and made.chained[0].depth == 1
        stream = Xoshiro128(seed)
        faces = [1 + stream.below(6) for _ in range(2 + sum(len(c.rolled.rolled) for c in made.chained))]
        assert faces[:2] == [f for d in made.sides[0].rolled for f in d.faces]
        assert faces[2:] == [f for c in made.chained for d in c.rolled.rolled for f in d.faces]
        assert result.to_dict()["rolls"][0]["rolled"]["chained"] == [c.to_dict() for c in made.chained]
    assert fumbles >= 3
    seed_97 = mecha.resolve("walker_knockdown", **KNOCKED, rng=97)
    assert outcome_steps(seed_97, "knockdown") == [
        ("light_damage", 1, 6, "6", False, False),
        ("light_damage", 2, 5, "5", True, False),
        ("light_damage", 2, 3, "3", True, False),
    ]


def test_the_table_an_outcome_sends_on_to_is_told_by_its_name() -> None:
    told = mecha.resolve("walker_knockdown", **KNOCKED, rolled={"knockdown": [1, 1], "light_damage": [6, 5, 3]})
    assert outcome_steps(told, "knockdown") == outcome_steps(
        mecha.resolve("walker_knockdown", **KNOCKED, rng=97), "knockdown"
    )
    alone = mecha.resolve("walker_knockdown", **KNOCKED, rolled={"knockdown": [1, 1]})
    assert alone.rolled("knockdown").outcome == "fumble" and alone.rolled("knockdown").chained == ()
    with pytest.raises(RuleInputError, match="light_damage: told, but the situation does not roll on it"):
        mecha.resolve("walker_knockdown", **KNOCKED, rolled={"knockdown": [4, 2], "light_damage": [3]})
    with pytest.raises(RuleInputError, match="light_damage: 2 faces told, but the dice take 1"):
        mecha.resolve("walker_knockdown", **KNOCKED, rolled={"knockdown": [1, 1], "light_damage": [3, 4]})
