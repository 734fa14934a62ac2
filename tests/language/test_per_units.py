"""Counting per unit (issue 26, "units for game arithmetic"): "DC 5 + 1 per hour" and "1d6 per 10
feet" written as games write them (tests/fixtures/features/per_units.rules), each number worked
out here on its own, from the faces of the dice, and compared with the generated resolver."""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

from tests.conftest import ROOT, module_for, module_from_text, run_cli

BOOK = ROOT / "tests" / "fixtures" / "features" / "per_units.rules"
HEAT = ROOT / "tests" / "fixtures" / "invalid" / "E202_a_dc_that_took_the_hours.rules"


def _sum_of_d6(count: int) -> dict[int, Fraction]:
    """The totals of `count` d6, counted over every way the dice can fall."""
    ways: dict[int, int] = {}
    for faces in itertools.product(range(1, 7), repeat=count):
        ways[sum(faces)] = ways.get(sum(faces), 0) + 1
    return {total: Fraction(n, 6**count) for total, n in sorted(ways.items())}


def test_dc_5_plus_1_per_hour() -> None:
    """`5 + 1 per hour of exposure`: the DC grows by one a whole hour, and the save's chance with it."""
    heat = module_for(BOOK)
    for hours in range(25):
        for bonus in (-5, 0, 7, 15):
            resolution = heat.resolve("heat", exposure=hours, con_save=bonus)
            dc = 5 + hours
            assert resolution.derived["heat_DC"] == dc
            saves = sum(1 for face in range(1, 21) if face + bonus >= dc)
            assert resolution.roll("endure").probability == Fraction(saves, 20)
            assert resolution.stats["DEX"] == 10 - hours // 2  # `DEX -1 per 2 hour of exposure`


def test_1d6_per_10_feet() -> None:
    """`1d6 per 10 ft of fall`: a d6 for every whole 10 feet; what is left under 10 feet adds none."""
    falling = module_for(BOOK)
    for fall in (0, 9, 10, 19, 25, 30, 41):
        dice = fall // 10
        totals = falling.resolve("falling", fall=fall).derived["damage"].totals()
        assert totals == (_sum_of_d6(dice) if dice else {0: Fraction(1)})


def test_2d6_per_10_feet_is_twice_the_dice() -> None:
    """`2d6 per 10 ft of fall`: 20 feet are 2 steps of 2d6, that is 4d6 (not 2d6 doubled)."""
    thrown = module_for(BOOK).resolve("falling", fall=20).derived["thrown"].totals()
    assert thrown == _sum_of_d6(4)


def test_a_count_of_dice_per_unit() -> None:
    """`(dice) d6 per 10 ft of fall`: a count of dice worked out when resolving, times the steps."""
    text = BOOK.read_text(encoding="utf-8").replace("2d6 per 10 ft of fall", "(1 + 1) d6 per 10 ft of fall")
    thrown = module_from_text(text).resolve("falling", fall=30).derived["thrown"].totals()
    assert thrown == _sum_of_d6(6)


def test_per_reads_back_as_written() -> None:
    """describe prints `per` as it is written, and fmt leaves it as it is."""
    described = run_cli("describe", str(BOOK), "heat")
    assert "derive heat_DC \"Save DC\" = 5 + 1 per hour of exposure" in described.output
    assert "DEX -1 per 2 hour of exposure" in described.output
    falling = run_cli("describe", str(BOOK), "falling")
    assert "= 2d6 per 10 ft of fall" in falling.output
    assert run_cli("fmt", "--check", str(BOOK)).exit_code == 0


def test_per_on_a_plain_number_is_e202_with_the_fix(tmp_path: Path) -> None:
    book = tmp_path / "plain.rules"
    book.write_text(
        BOOK.read_text(encoding="utf-8").replace(
            'input exposure "Hours in the heat": int 0..24 hour = 0', 'input exposure "Hours in the heat": int 0..24 = 0'
        ),
        encoding="utf-8",
    )
    result = run_cli("check", str(book))
    assert result.exit_code == 1
    assert "error[E202]: `per hour of exposure` counts hours, but `exposure` is a plain number" in result.output
    assert "declare `exposure` in hour" in result.output
    assert "`N * exposure` in a formula, `per exposure` after a modifier" in result.output


def test_per_of_dice_values_and_other_units_is_refused(tmp_path: Path) -> None:
    book = tmp_path / "wrong.rules"
    text = BOOK.read_text(encoding="utf-8")
    text = text.replace("2d6 per 10 ft of fall", "damage per 10 ft of fall").replace(
        "1 per hour of exposure", "1 per hour of fall"
    )
    book.write_text(text, encoding="utf-8")
    result = run_cli("check", str(book))
    assert "error[E202]: `per hour of fall` counts hour, but `fall` is in ft" in result.output
    assert "hint: count steps of its own unit: `per ft of fall`" in result.output
    assert "error[E201]: `per` adds dice written as dice" in result.output
    assert "Traceback" not in result.output


def test_the_e202_hint_applied_makes_the_heat_book_check(tmp_path: Path) -> None:
    """The issue's d20 heat book (fixture pair E202_a_dc_that_took_the_hours): the hint's `per`
    spelling, put where the hours come in, is the fix."""
    shown = run_cli("check", str(HEAT))
    assert "[E202]" in shown.output
    fix = "`1 per hour of hour_of_exposure`"
    assert fix in shown.output
    fixed = tmp_path / "heat.rules"
    text = HEAT.read_text(encoding="utf-8")
    fixed.write_text(text.replace("4 + hour_of_exposure", "4 + " + fix.strip("`")), encoding="utf-8")
    checked = run_cli("check", str(fixed))
    assert checked.exit_code == 0, checked.output
    assert "0 errors, 0 warnings" in checked.output


def test_the_e202_hint_counts_a_fractional_quantity_exactly(tmp_path: Path) -> None:
    """For a quantity that may be a fraction (`number`), `1 per hour of ...` would drop the part
    hour: the hint gives the exact division instead."""
    book = tmp_path / "heat.rules"
    text = HEAT.read_text(encoding="utf-8").replace("int 0..24 hour = 1", "number 0..24 hour = 1")
    book.write_text(text.replace('    source "d20 rules"\n', '    source "d20 rules"\n    for rulecraft 0.2\n'), encoding="utf-8")
    result = run_cli("check", str(book))
    assert result.exit_code == 1
    assert "`hour_of_exposure / 1 hour` (exact; `1 per hour of hour_of_exposure` counts the whole hours)" in result.output
    fixed = tmp_path / "fixed.rules"
    fixed.write_text(book.read_text(encoding="utf-8").replace("4 + hour_of_exposure", "4 + hour_of_exposure / 1 hour"), encoding="utf-8")
    assert run_cli("check", str(fixed)).exit_code == 0
