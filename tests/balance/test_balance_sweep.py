"""`rulecraft sweep` and dsl.balance: every row is what the resolver says, spot checks worked out
by hand, the formats, the bound, parallel runs, and the mistakes a designer makes."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import sys
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from dsl.balance import BalanceError, load_edition, prepare, sweep, sweep_frame
from dsl.balance.rows import plain
from tests.conftest import ROOT, run_cli

pytestmark = pytest.mark.usefixtures("at_root")


def generated(name: str) -> ModuleType:
    """The committed module in generated/ (what an app imports), not the sweep's own copy."""
    spec = importlib.util.spec_from_file_location(f"_balance_test_{name}", ROOT / "generated" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def csv_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


# ---------------------------------------------------------------- hand-worked spot checks


def test_broken_ground_fall_by_dex_worked_by_hand() -> None:
    # Broken ground (17.1), moving 6 of MOV 10: DEX -2 for bad footing, and 6 > 10 / 2 calls for
    # the fall roll 3d6 <= DEX - 2.  Ways to roll 3..n on 3d6 (of 216): 1, 4, 10, 20, 35, 56, 81,
    # 108, 135, 160, 181, 196, 206, 212, 215, 216.  So DEX 3 and 4 (targets 1, 2): 0;
    # DEX 5 (3): 1/216; 6: 4/216 = 1/54; 7: 10/216 = 5/108; 8: 20/216 = 5/54; 9: 35/216;
    # 10: 56/216 = 7/27; 11: 81/216 = 3/8; 12: 108/216 = 1/2; 13: 135/216 = 5/8;
    # 14: 160/216 = 20/27; 15: 181/216; 16: 196/216 = 49/54; 17: 206/216 = 103/108;
    # 18: 212/216 = 53/54.
    expected = [
        "0",
        "0",
        "1/216",
        "1/54",
        "5/108",
        "5/54",
        "35/216",
        "7/27",
        "3/8",
        "1/2",
        "5/8",
        "20/27",
        "181/216",
        "49/54",
        "103/108",
        "53/54",
    ]
    result = run_cli("sweep", "skirmish_terrain", "broken_ground", "--vary", "DEX=3..18", "--set", "moved=6")
    assert result.exit_code == 0, result.output
    rows = csv_rows(result.stdout)
    assert [row["DEX"] for row in rows] == [str(d) for d in range(3, 19)]
    assert [row["roll.fall"] for row in rows] == expected
    assert [row["stat.DEX"] for row in rows] == [str(d - 2) for d in range(3, 19)]
    assert [float(row["roll.fall.p"]) for row in rows] == [float(Fraction(p)) for p in expected]


def test_zone_move_chance_grows_with_pace_worked_by_hand() -> None:
    # MOVE: d6 <= Pace, so n faces of 6 for Pace n (none below 1, all six from 6): n/6.
    # RUN rolls 2d6 and keeps the lower: it fails only if both exceed the Pace,
    # 1 - ((6 - n) / 6)^2: Pace 1: 1 - 25/36 = 11/36; 2: 1 - 16/36 = 5/9; 3: 1 - 9/36 = 3/4;
    # 4: 1 - 4/36 = 8/9; 5: 1 - 1/36 = 35/36; 6 and more: 1.
    walking = ["0", "0", "1/6", "1/3", "1/2", "2/3", "5/6", "1", "1"]
    running = ["0", "0", "11/36", "5/9", "3/4", "8/9", "35/36", "1", "1"]
    result = run_cli("sweep", "zone_combat", "zone_move", "--vary", "running=all", "--vary", "pace=-1..7")
    assert result.exit_code == 0, result.output
    rows = csv_rows(result.stdout)
    assert [r["roll.move"] for r in rows if r["running"] == "no"] == walking
    assert [r["roll.move"] for r in rows if r["running"] == "yes"] == running
    assert [r["pace"] for r in rows[:9]] == [str(p) for p in range(-1, 8)]


def test_steps_lists_and_outcome_tiers() -> None:
    # A Skill roll d100 <= skill with tiers: critical on 1..skill/20 (rounded), special on
    # 1..skill/5, fumble on 100.  Skill 50: critical 1..3 (2.5 rounds to 3) = 3/100; special
    # 4..10 = 7/100; plain success 11..50 = 40/100; fumble 100 = 1/100; failure 51..99 = 49/100.
    rows = sweep("spot_rules_a_to_e", "skill_roll", vary={"skill": "30..50/20"})
    assert [row["skill"] for row in rows] == [30, 50]
    fifty = rows[1]
    assert fifty["roll.skill_check"] == Fraction(1, 2)
    assert fifty["roll.skill_check[critical]"] == Fraction(3, 100)
    assert fifty["roll.skill_check[special]"] == Fraction(7, 100)
    assert fifty["roll.skill_check[success]"] == Fraction(40, 100)
    assert fifty["roll.skill_check[fumble]"] == Fraction(1, 100)
    assert fifty["roll.skill_check[failure]"] == Fraction(49, 100)
    listed = sweep("skirmish_terrain", "water", vary={"water_depth": "knee,deep"}, given={"moved": 3})
    assert [row["water_depth"] for row in listed] == ["knee", "deep"]
    assert listed[1]["restrictions"] == ("fight effectively in deep water",)


def test_the_rules_themselves_vary() -> None:
    # At DEX 10 moving 6 of MOV 10, every slippery terrain costs 2 DEX, and calls for 3d6 <= 8:
    # 56/216 = 7/27; on ice (no DEX penalty) 6 > 5 hexes calls for 3d6 <= 10: 108/216 = 1/2.
    rows = sweep("skirmish_terrain", vary={"rule": "terrains"}, given={"DEX": 10, "moved": 6})
    chances = {row["rule"]: row["roll.fall"] for row in rows}
    assert chances == {
        "broken_ground": Fraction(7, 27),
        "water": Fraction(7, 27),
        "mud": Fraction(7, 27),
        "snow": Fraction(7, 27),
        "ice": Fraction(1, 2),
        "wall_cover": None,
        "wall_crossing": None,
        "pits": None,
    }


# ---------------------------------------------------------------- every row is the resolver's


def _check_rows(
    book: str, names: list[str], rows: list[dict[str, Any]], module: ModuleType, given: dict[str, Any]
) -> None:
    for row in rows:
        inputs = dict(given)
        chosen = list(names)
        for key, value in row.items():
            if key == "rule":
                chosen = list(dict.fromkeys([*names, value]))
            elif "." not in key and key != "restrictions":
                inputs[key] = value
        read = {key for name in chosen for key in module.RULES[name].reads}
        inputs = {key: value for key, value in inputs.items() if key in read}
        resolution = module.resolve(chosen, **inputs)
        where = f"{book} {chosen} {inputs}"
        # a column for each stat a modifier changed and each value derived; the stats the rules
        # only read have a column when another rule of the sweep changes them
        for name in {x.target for x in resolution.modifiers} | set(resolution.derived):
            assert f"stat.{name}" in row, where
        for name, value in {**resolution.stats, **resolution.derived}.items():
            if f"stat.{name}" in row:
                assert row[f"stat.{name}"] == plain(value), where
        roll_columns = {k for k in row if k.startswith("roll.") and not k.endswith(".p") and "[" not in k}
        seen = set()
        for roll in resolution.rolls:
            key = f"roll.{roll.name}" if f"roll.{roll.name}" in row else f"roll.{roll.name}@{roll.rule}"
            if key in seen:
                continue
            seen.add(key)
            assert row[key] == roll.probability, where
            assert row[f"{key}.p"] == float(roll.probability), where
            for outcome, chance in roll.outcomes.items():
                if f"{key}[{outcome}]" in row:
                    assert row[f"{key}[{outcome}]"] == chance, where
        for key in roll_columns - seen:
            assert row[key] is None, f"{where}: {key} has a value the situation does not roll"
        for table in resolution.tables:
            for table_row in table.rows:
                column = f"table.{table.name}[{table_row.key}]"
                if table_row.probability is not None:
                    assert row[column] == table_row.probability, where
        assert row["restrictions"] == tuple(r.what for r in resolution.restrictions), where


def _sweepable(module: ModuleType, rule: str) -> tuple[str, str] | None:
    """An input the rule reads, with a few of its values: the first bounded number or choice."""
    for name in module.RULES[rule].reads:
        spec = module.INPUTS[name]
        if spec.kind == "flag" or spec.members:
            return name, "all"
        if spec.kind in ("int", "percent") and spec.low is not None and spec.high is not None:
            low, high = int(spec.low), int(spec.high)
            step = max(1, (high - low) // 5)
            return name, f"{low}..{high}/{step}"
    return None


@pytest.mark.parametrize("book", sorted(p.stem for p in (ROOT / "rulebooks").glob("*.rules")))
def test_every_rule_of_every_book_sweeps_to_the_resolvers_numbers(book: str) -> None:
    module = generated(book)
    edition = load_edition(book)
    for rule in module.RULES:
        varied = _sweepable(module, rule)
        if varied is None:
            continue
        rows = prepare(edition, rule, vary=[varied]).rows(jobs=1)
        assert rows, rule
        _check_rows(book, [rule], rows, module, {})


def test_rules_varied_with_a_second_input_match_the_resolver() -> None:
    module = generated("skirmish_terrain")
    rows = sweep("skirmish_terrain", vary=[("rule", "all"), ("moved", "0..8/4")], given={"DEX": 11})
    assert len(rows) == 13 * 3
    _check_rows("skirmish_terrain", [], rows, module, {"DEX": 11})


# ---------------------------------------------------------------- formats


def test_json_lines_and_csv_say_the_same() -> None:
    args = ["sweep", "skirmish_terrain", "mud", "--vary", "ground_depth=all", "--vary", "DEX=9..10", "--set", "moved=2"]
    text = run_cli(*args)
    lines = run_cli(*args, "--format", "jsonl")
    assert text.exit_code == lines.exit_code == 0
    records = [json.loads(line) for line in lines.stdout.splitlines()]
    rows = csv_rows(text.stdout)
    assert len(records) == len(rows) == 4
    for record, row in zip(records, rows, strict=True):
        assert record["roll.fall"] == (row["roll.fall"] or None)
        assert str(record["stat.MOV"]) == row["stat.MOV"]
        assert record["restrictions"] == []
    # knee-deep mud, MOV 10: 10 / 4 = 2.5, rounded up 3; moving 2 > 1.5 calls for 3d6 <= DEX - 2:
    # DEX 10: 56/216 = 7/27.
    knee = next(r for r in records if r["ground_depth"] == "knee" and r["DEX"] == 10)
    assert knee["stat.MOV"] == 3 and knee["roll.fall"] == "7/27"


def test_parquet_keeps_types_and_exact_chances(tmp_path: Path) -> None:
    pyarrow_parquet = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "fall.parquet"
    result = run_cli(
        "sweep",
        "skirmish_terrain",
        "broken_ground",
        "--vary",
        "DEX=9..11",
        "--vary",
        "acrobatics=all",
        "--set",
        "moved=6",
        "-o",
        str(out),
    )
    assert result.exit_code == 0, result.output
    assert "wrote 6 rows" in result.stderr
    table = pyarrow_parquet.read_table(out).to_pydict()
    assert table["DEX"] == [9, 9, 10, 10, 11, 11]
    assert table["acrobatics"] == [False, True] * 3
    # DEX 11 - 2 = 9: 3d6 <= 9 is 81/216 = 3/8; with Acrobatics 2d6 <= 9 is 30/36 = 5/6.
    assert table["roll.fall"][4:] == ["3/8", "5/6"]
    assert table["roll.fall.p"][4:] == [0.375, 5 / 6]
    assert table["restrictions"][0] == []


def test_parquet_needs_a_file() -> None:
    result = run_cli("sweep", "skirmish_terrain", "broken_ground", "--vary", "DEX=9..11", "--format", "parquet")
    assert result.exit_code == 2
    assert "-o FILE.parquet" in result.output


def test_dataframe_has_the_rows() -> None:
    pytest.importorskip("pandas")
    frame = sweep_frame("skirmish_terrain", "ice", vary={"moved": "4..7"}, given={"DEX": 8})
    # 2d6 <= 8 while moving up to 5: 26/36 = 13/18; then 3d6 <= 8: 56/216 = 7/27.
    assert list(frame["moved"]) == [4, 5, 6, 7]
    assert list(frame["roll.fall"]) == [Fraction(13, 18)] * 2 + [Fraction(7, 27)] * 2


# ---------------------------------------------------------------- against another edition


def test_against_an_erratum_gives_both_and_the_difference(tmp_path: Path) -> None:
    errata = tmp_path / "errata.rules"
    text = (ROOT / "rulebooks" / "skirmish_terrain.rules").read_text(encoding="utf-8")
    errata.write_text(text.replace('DEX -2 "bad footing"', 'DEX -3 "bad footing"'), encoding="utf-8")
    result = run_cli(
        "sweep",
        str(errata),
        "broken_ground",
        "--vary",
        "DEX=10..11",
        "--set",
        "moved=6",
        "--against",
        "skirmish_terrain",
    )
    assert result.exit_code == 0, result.output
    rows = csv_rows(result.stdout)
    # DEX 10: the erratum's -3 rolls 3d6 <= 7 (35/216), the book's -2 3d6 <= 8 (56/216):
    # 35/216 - 56/216 = -21/216 = -7/72.
    assert rows[0]["roll.fall"] == "35/216" and rows[0]["against.roll.fall"] == "7/27"
    assert rows[0]["diff.roll.fall"] == "-7/72"
    assert rows[0]["diff.stat.DEX"] == "-1"
    # DEX 11: 56/216 against 81/216: -25/216.
    assert rows[1]["diff.roll.fall"] == "-25/216"


# ---------------------------------------------------------------- the bound, parallel runs, progress


def test_a_product_over_the_bound_is_refused_with_its_count() -> None:
    result = run_cli(
        "sweep",
        "skirmish_terrain",
        "broken_ground",
        "--vary",
        "DEX=0..30",
        "--vary",
        "moved=0..60",
        "--vary",
        "MOV=0..30",
        "--vary",
        "weapon=all",
        "--vary",
        "acrobatics=all",
    )
    assert result.exit_code == 2
    assert "586,210 situations" in result.output and "bound of 200,000" in result.output
    assert "--limit 586210" in result.output
    args = ["sweep", "skirmish_terrain", "broken_ground", "--vary", "DEX=0..30", "--vary", "acrobatics=all"]
    small = run_cli(*args, "--limit", "60")
    assert small.exit_code == 2 and "62 situations (31 DEX x 2 acrobatics)" in small.output
    raised = run_cli(*args, "--limit", "62")
    assert raised.exit_code == 0 and len(csv_rows(raised.stdout)) == 62
    one_range = run_cli("sweep", "skirmish_terrain", "broken_ground", "--vary", "DEX=0..30", "--limit", "10")
    assert one_range.exit_code == 2 and "--vary DEX=0..30: 31 values, more than 10" in one_range.output


def test_parallel_rows_are_the_same_rows_in_the_same_order() -> None:
    planned = prepare(
        "skirmish_terrain",
        ["broken_ground", "darkness"],
        vary={"DEX": "0..30", "moved": "0..20", "lit": "all"},
        given={"weapon": "thrown"},
    )
    assert planned.total == 31 * 21 * 2
    assert planned.rows(jobs=2) == planned.rows(jobs=1)


def test_progress_when_asked_goes_to_stderr() -> None:
    result = run_cli("sweep", "skirmish_terrain", "broken_ground", "--vary", "DEX=0..30", "--progress")
    assert result.exit_code == 0
    assert "sweeping 31 situations" in result.stderr
    assert "31 of 31 situations" in result.stderr
    assert "sweeping" not in result.stdout


# ---------------------------------------------------------------- mistakes are usage errors


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--vary", "DXE=3..18"], "no input `DXE` in skirmish_terrain; did you mean `DEX`?"),
        (["--vary", "DEX=3..40"], "--vary DEX=3..40: input `DEX` must be a number in int 0..30, not 31"),
        (["--vary", "DEX=18..3"], "the range 18..3 is empty"),
        (["--vary", "weapon=sword"], "input `weapon` must be one of none, melee, thrown, missile, laser"),
        (["--vary", "gravity=1..2"], "no rule of the situation (broken_ground) reads `gravity`; read by: gravity"),
        (["--set", "stance=prone"], "no rule of the situation (broken_ground) reads `stance`; read by: ice,"),
        (["--vary", "DEX=3..5", "--set", "DEX=4"], "DEX is both varied (--vary) and set (--set)"),
        (["--vary", "DEX"], "--vary takes NAME=VALUE, not `DEX`"),
        (["--vary", "weapon=1..3"], "`weapon` is one of {none, melee, thrown, missile, laser}, not a number"),
        (["--vary", "rule=brokn_ground"], "no rule or table `brokn_ground` in skirmish_terrain; did you mean"),
        (["--vary", "roll=1..6"], "a table's die result is not swept"),
    ],
)
def test_mistakes_are_bad_usage_naming_what_is_wrong(args: list[str], message: str) -> None:
    result = run_cli("sweep", "skirmish_terrain", "broken_ground", *args)
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_no_rule_at_all_is_bad_usage() -> None:
    result = run_cli("sweep", "skirmish_terrain", "--vary", "DEX=3..5")
    assert result.exit_code == 2
    assert "name a rule to sweep" in result.output


def test_a_rulebook_with_errors_prints_them_and_exits_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.rules"
    bad.write_text('rulebook bad "Bad":\n    source "s"\nstat DEX: int 1..30 = 10\nrule r "R" cites "1":\n    DXE -2\n')
    result = run_cli("sweep", str(bad), "r", "--vary", "DEX=3..5")
    assert result.exit_code == 1
    assert "error[E101]" in result.output


def test_python_errors_are_balance_errors() -> None:
    with pytest.raises(BalanceError, match="no input `DXE`"):
        sweep("skirmish_terrain", "broken_ground", vary={"DXE": range(3, 5)})
    rows = sweep("skirmish_terrain", "broken_ground", vary={"DEX": range(9, 11)}, given={"moved": 6})
    # DEX 9 - 2: 3d6 <= 7 is 35/216; DEX 10 - 2: 3d6 <= 8 is 56/216 = 7/27.
    assert [row["roll.fall"] for row in rows] == [Fraction(35, 216), Fraction(7, 27)]
