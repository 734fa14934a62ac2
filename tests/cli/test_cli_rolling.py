"""`rulecraft resolve --roll / --seed N / --rolled ROLL=FACES|TOTAL`: the dice shown beside the
chances, the same seed the same dice, and a clear usage error (exit 2) for results no dice show."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import ROOT, run_cli

ROLLING = str(ROOT / "tests" / "fixtures" / "rolling" / "forms.rules")


def test_a_seed_rolls_the_same_dice_as_the_python_api() -> None:
    import generated.skirmish_terrain as skirmish

    result = run_cli("resolve", "skirmish_terrain", "broken_ground", "--set", "moved=8", "--seed", "7", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["seed"] == 7
    expected = skirmish.resolve("broken_ground", moved=8, rng=7).to_dict()["rolls"][0]["rolled"]
    assert data["rolls"][0]["rolled"] == expected
    text = run_cli("resolve", "skirmish_terrain", "broken_ground", "--set", "moved=8", "--seed", "7")
    assert "      rolled: 3d6 [6, 5, 3] = 14 -> failure by 6" in text.output
    assert text.output.rstrip().endswith("rolled with --seed 7")


def test_roll_without_a_seed_reports_the_one_it_drew() -> None:
    result = run_cli("resolve", "skirmish_terrain", "broken_ground", "--set", "moved=8", "--roll", "--json")
    data = json.loads(result.stdout)
    again = run_cli(
        "resolve", "skirmish_terrain", "broken_ground", "--set", "moved=8", "--seed", str(data["seed"]), "--json"
    )
    assert json.loads(again.stdout)["rolls"] == data["rolls"]


def test_results_told_as_faces_or_a_total() -> None:
    faces = run_cli("resolve", ROLLING, "explosions", "--rolled", "capped=6,6,6,2", "--rolled", "open=4", "--json")
    assert faces.exit_code == 0, faces.output
    rolls = {r["name"]: r["rolled"] for r in json.loads(faces.stdout)["rolls"]}
    assert [d["faces"] for d in rolls["capped"]["sides"][0]["rolled"]] == [[6, 6, 6], [2]]
    assert rolls["open"]["source"] == "total" and rolls["open"]["total"] == 6  # 4 and the bonus 2
    text = run_cli("resolve", ROLLING, "kept", "--rolled", "highest=1,6,3,5")
    assert "rolled (faces told): highest 2 of 4d6 [(1), 6, (3), 5] = 11" in text.output


def test_bad_rolled_results_exit_2_without_a_traceback() -> None:
    cases = [
        (["--rolled", "fall=3,4,9"], "face 9 (the 3rd told) is not a face of a d6"),
        (["--rolled", "fall=3,4"], "2 faces told, and the dice take more"),
        (["--rolled", "fall=40"], "40 is not a total 3d6 can show (3..18)"),
        (["--rolled", "fell=9"], "no roll `fell` in this situation"),
        (["--rolled", "fall=x"], "faces and totals are whole numbers"),
        (["--rolled", "fall"], "--rolled takes ROLL=FACES or ROLL=TOTAL"),
        (["--rolled", "fall=9", "--rolled", "fall=8"], "gives `fall` twice"),
    ]
    for extra, message in cases:
        result = run_cli("resolve", "skirmish_terrain", "broken_ground", "--set", "moved=8", *extra)
        assert result.exit_code == 2, (extra, result.output)
        assert message in result.output, (extra, result.output)
        as_json = run_cli("resolve", "skirmish_terrain", "broken_ground", "--set", "moved=8", *extra, "--json")
        assert as_json.exit_code == 2 and message in json.loads(as_json.stdout)["error"]["message"]


def test_a_book_with_inputs_named_rng_and_rolled_still_rolls(tmp_path: Path) -> None:
    """The keywords step aside (`rng_`, `rolled_`) and `--seed` finds them by the signature."""
    book = tmp_path / "names.rules"
    book.write_text(
        'rulebook names "Inputs named like the rolling keywords":\n    source "tests"\n\n'
        'input rng "A range": int 0..10 = 2\ninput rolled "Rolled over": flag\n\n'
        'rule tumble "Tumble" cites "1":\n    when rolled:\n        roll fall "Fall": 2d6 + rng >= 8\n',
        encoding="utf-8",
    )
    result = run_cli("resolve", str(book), "tumble", "--set", "rolled=yes", "--set", "rng=3", "--seed", "5", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["inputs"]["rng"] == 3 and data["rolls"][0]["rolled"]["sides"][0]["bonus"] == 3
    told = run_cli("resolve", str(book), "tumble", "--set", "rolled=yes", "--rolled", "fall=6,6", "--json")
    assert json.loads(told.stdout)["rolls"][0]["rolled"]["total"] == 14


def test_a_seed_rolls_the_chain_a_table_sends_on_to() -> None:
    """resolve --seed on a table whose row sends on: every table of the chain rolled, in the JSON
    (`chained`, as the Python API gives it) and in the text; --rolled names each table."""
    import generated.terrain_cards as terrain

    result = run_cli("resolve", "terrain_cards", "hostility_level", "--seed", "4", "--json")
    assert result.exit_code == 0, result.output
    table = json.loads(result.stdout)["tables"][0]
    assert [c["table"] for c in table["chained"]] == ["game_conditions", "damage_value"]
    assert table == json.loads(json.dumps(terrain.resolve("hostility_level", rng=4).to_dict()["tables"][0]))
    text = run_cli("resolve", "terrain_cards", "hostility_level", "--seed", "4").output
    assert "    then rolled on game_conditions: 1d20" in text
    assert "      then rolled on damage_value: 1d20" in text
    told = run_cli(
        "resolve",
        "terrain_cards",
        "hostility_level",
        "--rolled",
        "hostility_level=20",
        "--rolled",
        "game_conditions=14",
        "--rolled",
        "damage_value=12",
        "--json",
    )
    assert told.exit_code == 0, told.output
    chained = json.loads(told.stdout)["tables"][0]["chained"]
    assert [(c["table"], c["result"], c["row"]["key"]) for c in chained] == [
        ("game_conditions", 20, "20+"),
        ("damage_value", 12, "11..14"),
    ]
    wrong = run_cli("resolve", "terrain_cards", "hostility_level", "--rolled", "damage_value=12", "--seed", "1")
    assert wrong.exit_code == 2 and "damage_value" in wrong.output


def test_a_seed_rolls_the_table_a_roll_outcome_sends_on_to() -> None:
    """resolve --seed: a knockdown fumble's `then roll light_damage` rolled after it, in the JSON
    (the roll's `rolled.chained`, as the Python API gives it) and in the text; --rolled names it."""
    import generated.mecha_tables as mecha

    given = ["--set", "unit=walker", "--set", "damage_taken=14", "--set", "vehicle_size=6", "--set", "MoS=3"]
    result = run_cli("resolve", "mecha_tables", "walker_knockdown", *given, "--seed", "97", "--json")
    assert result.exit_code == 0, result.output
    made = json.loads(result.stdout)["rolls"][0]["rolled"]
    assert [(c["table"], c["depth"], c["result"]) for c in made["chained"]] == [
        ("light_damage", 1, 6),
        ("light_damage", 2, 5),
        ("light_damage", 2, 3),
    ]
    python = mecha.resolve("walker_knockdown", unit="walker", damage_taken=14, vehicle_size=6, MoS=3, rng=97)
    assert made == json.loads(json.dumps(python.to_dict()["rolls"][0]["rolled"]))
    text = run_cli("resolve", "mecha_tables", "walker_knockdown", *given, "--seed", "97").output
    assert "      rolled: highest of 2d6 [1, (1)] = 1 -> fumble by 3" in text
    assert "        then rolled on light_damage: 1d6 [6] = 6 -> row 6" in text
    assert "          then rolled on light_damage: 1d6 [3] = 3 -> row 3: Crew" in text
    told = run_cli(
        "resolve", "mecha_tables", "walker_knockdown", *given, "--rolled", "knockdown=1,1", "--rolled", "light_damage=4",
        "--json",
    )
    assert told.exit_code == 0, told.output
    chained = json.loads(told.stdout)["rolls"][0]["rolled"]["chained"]
    assert [(c["table"], c["result"], c["row"]["key"]) for c in chained] == [("light_damage", 4, "4")]


def test_two_tables_rolled_on_dice_each_get_their_own_roll() -> None:
    """resolve --seed with light and heavy damage: each table rolled, as the Python API rolls
    them; --rolled tells each by its name; --set roll=N still selects both rows."""
    import generated.mecha_tables as mecha

    result = run_cli("resolve", "mecha_tables", "light_damage", "heavy_damage", "--seed", "3", "--json")
    assert result.exit_code == 0, result.output
    tables = json.loads(result.stdout)["tables"]
    assert [(t["name"], t["result"], t["rolled"]["total"]) for t in tables] == [
        ("light_damage", 5, 5),
        ("heavy_damage", 6, 6),
    ]
    python = mecha.resolve(["light_damage", "heavy_damage"], rng=3).to_dict()["tables"]
    assert tables == json.loads(json.dumps(python))
    told = run_cli(
        "resolve", "mecha_tables", "light_damage", "heavy_damage", "--rolled", "light_damage=3",
        "--rolled", "heavy_damage=4", "--json",
    )
    assert told.exit_code == 0, told.output
    assert [t["selected"]["key"] for t in json.loads(told.stdout)["tables"]] == ["3", "4"]
    both = run_cli("resolve", "mecha_tables", "light_damage", "heavy_damage", "--set", "roll=2", "--seed", "3", "--json")
    assert [t["selected"]["key"] for t in json.loads(both.stdout)["tables"]] == ["2", "2"]


def test_rounds_are_rolled_each_in_turn() -> None:
    """resolve --rounds N --seed: every round rolled (the JSON as the Python API gives it, each
    round's `rolled` and the sequence's), the text shows each; --rolled N:name tells round N."""
    import generated.spot_rules_a_to_e as spot

    args = ["resolve", "spot_rules_a_to_e", "disease_recovery", "--set", "diseased=yes", "--rounds", "4"]
    result = run_cli(*args, "--seed", "5", "--json")
    assert result.exit_code == 0, result.output
    sequence = json.loads(result.stdout)["sequence"]
    python = spot.disease_recovery(diseased=True, rounds=4, rng=5).to_dict()["sequence"]
    assert sequence == json.loads(json.dumps(python))
    assert sequence["rolled"] == {"rounds": 2, "ended": 3, "changed": None, "totals": {}}
    assert [r["rolled"]["ends"] for r in sequence["rounds"][:2]] == [False, True]
    assert all("rolled" not in r for r in sequence["rounds"][2:])
    text = run_cli(*args, "--seed", "5").output
    assert "    recover rolled: 1d100 [12] = 12 -> success by 18\n    recover success: came up" in text
    assert "  rolled: 2 days, ended in day 3" in text
    told = run_cli(
        "resolve", "skirmish_terrain", "spacesuit", "--rounds", "3", "--rolled", "leak_damage=4",
        "--rolled", "2:leak_damage=1,2", "--rolled", "3:leak_damage=12", "--json",
    )
    assert told.exit_code == 0, told.output
    assert json.loads(told.stdout)["sequence"]["rolled"]["totals"] == {"leak_damage": 19}
    wrong = run_cli("resolve", "skirmish_terrain", "spacesuit", "--rounds", "3", "--rolled", "3:leak_damage=2", "--seed", "1")
    assert wrong.exit_code == 2 and "turn 3: leak_damage: 2 is not a total 3d6 can show" in wrong.output
    assert "Traceback" not in wrong.output
