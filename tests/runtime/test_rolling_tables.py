"""Several tables rolled on dice in one situation: each gets its own roll (from the generator, in
the order named, each followed by its chain; or told by the table's name), and reports the row,
trace entry and chain the situation resolved with that `roll` reports; `roll=N` still selects
the rows of all of them, exactly as before."""

from __future__ import annotations

from typing import Any

import pytest

import generated.mecha_tables as mecha
from dsl.runtime import RuleInputError, Xoshiro128

BOTH = ["light_damage", "heavy_damage"]


def _faces(table: Any) -> list[int]:
    own = [f for d in table.rolled.rolled for f in d.faces]
    return own + [f for c in table.chained for d in c.rolled.rolled for f in d.faces]


def _trace_of(result: Any, table: str) -> list[dict[str, object]]:
    return [entry for entry in result.to_dict()["trace"] if entry["rule"] == table]


def test_each_table_rolled_on_dice_gets_its_own_roll() -> None:
    """Light and heavy damage rolled together from one seed: the first table's roll and chain,
    then the second's; each table, its trace entry and its chain as `roll=` its own total gives."""
    differ = 0
    for seed in range(40):
        result = mecha.resolve(BOTH, rng=seed)
        light, heavy = result.tables
        assert light.rolled is not None and heavy.rolled is not None
        stream = Xoshiro128(seed)
        faces = _faces(light) + _faces(heavy)
        assert faces == [1 + stream.below(6) for _ in faces]
        differ += light.result != heavy.result
        for table in (light, heavy):
            alone = mecha.resolve(BOTH, roll=table.result)
            exact = next(t for t in alone.tables if t.name == table.name)
            assert exact.selected == table.selected and exact.rows == table.rows
            assert _trace_of(alone, table.name) == _trace_of(result, table.name)
            chain = [c.to_dict() for c in alone.chains if c.rule == table.name]
            assert chain == [c.to_dict() for c in result.chains if c.rule == table.name]
        assert "roll" not in result.inputs
    assert differ > 20


def test_each_table_is_told_by_its_name() -> None:
    seeded = mecha.resolve(BOTH, rng=3)
    light, heavy = seeded.tables
    told: dict[str, list[int]] = {"light_damage": [], "heavy_damage": []}
    for table in (light, heavy):
        told[table.name] += [f for d in table.rolled.rolled for f in d.faces]
        for c in table.chained:
            told.setdefault(c.table, []).extend(f for d in c.rolled.rolled for f in d.faces)
    again = mecha.resolve(BOTH, rolled=told)
    assert [t.to_dict() for t in again.tables] == [t.to_dict() for t in seeded.tables]
    mixed = mecha.resolve(BOTH, rolled={"light_damage": 3, "heavy_damage": [2], "structural": 4})
    assert [(t.result, t.selected.key) for t in mixed.tables] == [(3, "3"), (2, "2")]
    assert [(c.table, c.result) for c in mixed.tables[1].chained] == [("structural", 5)]
    one = mecha.resolve(BOTH, rolled={"heavy_damage": 4})
    assert one.tables[0].rolled is None and one.tables[0].selected is None
    assert one.tables[1].result == 4 and one.inputs["roll"] == 4


def test_a_roll_given_still_selects_every_table_s_row() -> None:
    """`roll=3` is the exact resolution it was: both tables at row 3, none rolled, even with a seed."""
    exact = mecha.resolve(BOTH, roll=3)
    assert [(t.result, t.selected.key) for t in exact.tables] == [(3, "3"), (3, "3")]
    seeded = mecha.resolve(BOTH, roll=3, rng=1)
    assert [t.to_dict() for t in seeded.tables] == [t.to_dict() for t in exact.tables]
    with pytest.raises(RuleInputError, match="`roll` selects the rows of light_damage, heavy_damage, and light_damage is told"):
        mecha.resolve(BOTH, roll=3, rolled={"light_damage": 3})
