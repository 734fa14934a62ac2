"""`describe` and `list` as an app developer meets them: everything a rule does, once, with its
conditions; tables said to resolve by name; and the bundled books' notes only where they apply."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dsl.describe import describe_data
from tests.conftest import FEATURES, RULEBOOKS, compiled, run_cli

pytestmark = pytest.mark.usefixtures("at_root")


def describe(book: str, name: str) -> tuple[str, dict[str, Any]]:
    text = run_cli("describe", book, name)
    assert text.exit_code == 0, text.output
    data = run_cli("describe", book, name, "--json")
    assert data.exit_code == 0, data.output
    return text.output, json.loads(data.output)


def effects(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every effect of a description, composed parts' included, in order."""
    found = []
    for item in items:
        found.append(item)
        if item["effect"] == "part":
            found += effects(item["effects"])
    return found


def roll(data: dict[str, Any], name: str) -> dict[str, Any]:
    (found,) = [e for e in effects(data["effects"]) if e["effect"] == "roll" and e["name"] == name]
    return found


def resolved(book: str, *args: str) -> dict[str, Any]:
    result = run_cli("resolve", book, *args, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.output)
    return data


# ---------------------------------------------------------------- roll changes


def test_describe_shows_every_change_of_a_roll_with_its_condition() -> None:
    # Ice: 2d6 against DEX, 3d6 when moving over 5 hexes (17.6).
    text, data = describe("skirmish_terrain", "ice")
    assert '  roll fall "Avoid falling": 2d6 <= DEX (unless stance in {prone, kneeling, crawling})\n' in text
    assert "    3d6 (when moved > 5)\n" in text
    assert roll(data, "fall")["changes"] == [{"kind": "pool", "text": "3d6", "conditions": ["when moved > 5"]}]


def test_describe_shows_dice_changes_and_automatic_success() -> None:
    text, data = describe("skirmish_terrain", "microgravity")
    for line in ("-1 die (when holding_on)", "-2 dice (when astrobatics)", "+1 die (when recovering)"):
        assert f"    {line}\n" in text
    assert "    automatic success (when stance == prone)\n" in text
    assert [c["text"] for c in roll(data, "footing")["changes"]] == [
        "-1 die",
        "-2 dice",
        "+1 die",
        "automatic success",
    ]


def test_describe_shows_running_and_the_second_move() -> None:
    text, data = describe("zone_combat", "zone_move")
    assert "    lowest of 2d6 (when running)\n" in text
    assert "    target -3 (when second_move)\n" in text
    changes = roll(data, "move")["changes"]
    assert [(c["text"], c["conditions"]) for c in changes] == [
        ("lowest of 2d6", ["when running"]),
        ("target -3", ["when second_move"]),
    ]
    assert '  all_actions -2 "running: all other actions at -2" (when running)\n' in text


# ---------------------------------------------------------------- composed parts, derived values, tables


def test_describe_shows_composed_parts_with_their_effects() -> None:
    text, data = describe("mecha_tables", "terrain_movement")
    assert "  as forest_adjustment: Vehicle size forest adjustment [VEHICLE SIZE FOREST ADJUSTMENT TABLE]\n" in text
    (part,) = [e for e in data["effects"] if e["effect"] == "part"]
    assert part["rule"] == "forest_adjustment" and not part["repeated"]
    assert [e["text"] for e in part["effects"] if e["effect"] == "modifier"] == [
        'forest_entry +forest_shift[vehicle_size].levels levels "vehicle size"',
        'forest_entry min sparse "the forest stays a forest"',
    ]


def test_describe_shows_the_bindings_of_a_composed_rule() -> None:
    text, data = describe("skirmish_terrain", "pits")
    assert "  as wall_cover with wall = pit: Walls: cover [17.7]\n" in text
    assert "    cannot fire over the wall (when pit == over_two_meters)\n" in text
    (part,) = [e for e in data["effects"] if e["effect"] == "part"]
    assert (part["text"], part["with"]) == ("as wall_cover with wall = pit", ["wall = pit"])


def test_describe_shows_derived_outputs() -> None:
    text, data = describe("mecha_tables", "terrain_movement")
    assert (
        '  derive cost "Movement points to enter the hex" = '
        "terrain_cost + forest_cost + vegetation_cost + surface_cost + elevation_cost\n" in text
    )
    derived = {e["name"]: e for e in data["effects"] if e["effect"] == "derive"}
    assert list(derived) == [
        "terrain_cost",
        "vegetation_cost",
        "surface_cost",
        "elevation_cost",
        "forest_cost",
        "cost",
    ]
    assert derived["forest_cost"]["value"] == "forest_costs[forest_entry, forest_column]"


def test_describe_lists_the_tables_a_rule_reads_with_keys_and_columns() -> None:
    text, data = describe("mecha_tables", "terrain_movement")
    assert "  forest_costs: Terrain Modifiers: forest [TERRAIN MODIFIERS]\n" in text
    assert "    looked up by forest, unit; columns infantry, wheel, track, walker, gev\n" in text
    tables = {t["name"]: t for t in data["tables"]}
    assert list(tables) == [
        "forest_shift",
        "terrain_costs",
        "vegetation_costs",
        "surface_costs",
        "elevation_costs",
        "forest_costs",
    ]
    assert tables["forest_shift"]["keys"] == ["vehicle_size"]
    assert tables["forest_shift"]["columns"] == [
        {"name": "levels", "label": "Levels"},
        {"name": "entry", "label": "Entry"},
    ]


def test_describe_a_table_shows_its_rows_in_typed_values() -> None:
    text, data = describe("mecha_tables", "forest_features")
    assert "looked up by forest; columns obscurement (Obscurement), hull_down (Hull down)\n" in text
    assert "  sparse     1/2, 4\n" in text and "  no_forest  0, N/A\n" in text
    rows = {row["key"]: row for row in data["rows"]}
    assert rows["sparse"]["cells"] == [
        {"column": "obscurement", "text": "1/2", "value": {"fraction": "1/2", "float": 0.5}},
        {"column": "hull_down", "text": "4", "value": 4},
    ]
    assert rows["no_forest"]["cells"][1]["value"] == {"special": "N/A"}
    # A rolled table: its dice, and the rows it covers.
    text, data = describe("terrain_cards", "hostility_level")
    assert (data["key"], data["dice"], data["keys"]) == ("roll", "d20", [])
    assert [(r["key"], r["low"], r["high"]) for r in data["rows"]][-1] == ("20", 20, 20)
    assert "rolled on d20; columns level (Hostility Level), conditions (Game Conditions)\n" in text


# ---------------------------------------------------------------- once, and whole


def test_describe_lists_a_roll_composed_twice_once() -> None:
    # extended_range composes attack, and point_blank_range, which composes attack again.
    text, data = describe("spot_rules_e_to_z", "extended_range")
    assert text.count("roll hit ") == 1
    assert "    as attack: as above\n" in text
    rolls = [e for e in effects(data["effects"]) if e["effect"] == "roll"]
    assert [r["name"] for r in rolls] == ["hit"]


def test_no_bundled_rule_describes_a_statement_twice() -> None:
    for path in sorted(RULEBOOKS.glob("*.rules")):
        book = compiled(path).book
        assert book is not None
        for name in book.rules:
            seen = [
                (e["effect"], e.get("name"), e["text"], tuple(e["conditions"]))
                for e in effects(describe_data(book, name, [])["effects"])
                if e["effect"] != "part"
            ]
            assert len(seen) == len(set(seen)), (path.name, name)


def test_describe_keeps_restriction_text_whole() -> None:
    text, data = describe("skirmish_terrain", "water")
    assert "  cannot fight effectively in deep water (when water_depth == deep)\n" in text
    assert "cannot:" not in text
    (cannot,) = [e for e in data["effects"] if e["effect"] == "cannot"]
    assert (cannot["what"], cannot["text"]) == (
        "fight effectively in deep water",
        "cannot fight effectively in deep water",
    )


# ---------------------------------------------------------------- list


def test_list_says_tables_resolve_by_name() -> None:
    text = run_cli("list", "mecha_tables").output
    assert "  forest_costs " in text and "(looked up by forest, unit)" in text
    assert "Tables resolve by name, as rules do: rulecraft resolve mecha_tables TABLE" in text
    data = json.loads(run_cli("list", "mecha_tables", "--json").output)
    entries = {e["name"]: e for e in data["entries"]}
    assert entries["forest_costs"]["resolvable"] and entries["terrain_movement"]["resolvable"]
    assert entries["forest_costs"]["lookup"] == "looked up by forest, unit"
    assert entries["heavy_damage"]["lookup"] == "rolled on d6"
    # ... and so they do.
    table = resolved("mecha_tables", "forest_costs", "--set", "forest=open", "--set", "unit=wheel")["tables"][0]
    assert table["selected"]["values"]["wheel"] == 4


def test_describe_shows_a_rules_sequence() -> None:
    # `each round asphyxiation_round:` counts from 1 (no `from`); a failed hold_breath roll sets
    # breath_failed = yes from the next round, and the damage of each round adds up.
    text, data = describe("spot_rules_a_to_e", "asphyxiation")
    assert data["sequence"] == {
        "unit": "round",
        "counter": "asphyxiation_round",
        "start": 1,
        "until": {"roll": "hold_breath", "outcome": "failure", "times": 1, "text": "hold_breath fails"},
        "then": {"input": "breath_failed", "value": "yes"},
        "counts": [],
        "totals": ["damage_per_round"],
        "text": "each round asphyxiation_round from 1",
    }
    lines = text.splitlines()
    start = lines.index("sequence: each round asphyxiation_round from 1 (resolved over rounds: --rounds N)")
    assert lines[start + 1] == "  until hold_breath fails, then breath_failed = yes from the next round on"
    assert lines[start + 2] == "  total over the rounds: damage_per_round"
    assert lines.index("effects:") > start


def test_describe_shows_a_sequence_that_ends_and_none_where_there_is_none() -> None:
    # `each day disease_day from 2: until recover succeeds`: no `then`, no total.
    text, data = describe("spot_rules_a_to_e", "disease_recovery")
    sequence = data["sequence"]
    assert (sequence["unit"], sequence["counter"], sequence["start"]) == ("day", "disease_day", 2)
    assert sequence["until"] == {"roll": "recover", "outcome": "success", "times": 1, "text": "recover succeeds"}
    assert sequence["then"] is None
    assert sequence["totals"] == []
    assert "sequence: each day disease_day from 2 (resolved over rounds: --rounds N)" in text
    assert "  until recover succeeds (the day it ends in counts)" in text
    # A rule without `each` has none, in the text and the JSON.
    text, data = describe("spot_rules_a_to_e", "chase_trouble_effects")
    assert data["sequence"] is None
    assert "sequence:" not in text


def test_describe_says_a_sequence_without_a_counter_its_nth_time_and_its_counts() -> None:
    """`each hour:` with `until march_stamina fails 3 times` and `count march_stamina fails as
    failed_checks` (tests/fixtures/features/round_idioms.rules), in words and in the JSON."""
    book = str(FEATURES / "round_idioms.rules")
    result = run_cli("describe", book, "forced_march", "--json")
    assert result.exit_code == 0, result.output
    sequence = json.loads(result.output)["sequence"]
    assert sequence["counter"] is None and sequence["text"] == "each hour"
    assert sequence["until"] == {
        "roll": "march_stamina", "outcome": "failure", "times": 3, "text": "march_stamina fails 3 times"
    }
    assert sequence["counts"] == [
        {"roll": "march_stamina", "outcome": "failure", "input": "failed_checks",
         "text": "march_stamina fails as failed_checks"}
    ]
    text = run_cli("describe", book, "forced_march").output
    assert "sequence: each hour (resolved over rounds: --rounds N)" in text
    assert "  until march_stamina fails 3 times (the hour it ends in counts)" in text
    assert (
        "  count march_stamina fails as failed_checks: each hour, `failed_checks` is the number of hours"
        " before it in which march_stamina failed"
    ) in text
    alike = run_cli("describe", book, "close_contact").output
    assert "  every round resolved alike: no input counts the rounds" in alike
