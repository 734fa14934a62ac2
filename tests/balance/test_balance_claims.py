"""Balance blocks: `rulecraft test` checks every claim over its whole space, exactly, and reports
the worst situation; `rulecraft tune` finds the values that satisfy every claim.  Every figure
below is worked out by hand in the comment above it (3d6 rolls at most 6, 7, 8, 9, 10 in 20,
35, 56, 81, 108 of 216 ways)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsl.compiler import compile_text
from dsl.lsp.index import build_index
from tests.conftest import run_cli

BOOK = """\
rulebook footing "Footing":
    source "tests"

stat DEX "Dexterity": int 0..20 = 10
input moved "Hexes moved": int 0..10 = 0
input bonus "Damage bonus": int 0..3 = 0

rule rough "Rough ground" cites "1":
    DEX -2 "bad footing"
    when moved > 3:
        roll fall "Avoid falling": 3d6 <= DEX

rule scree "Scree" cites "2":
    DEX -3 "loose stones"
    when moved > 3:
        roll fall "Avoid falling": 3d6 <= DEX

rule blow "A blow" cites "3":
    derive damage = 2d6 + bonus
"""


def write(tmp_path: Path, balance: str) -> str:
    path = tmp_path / "footing.rules"
    path.write_text(BOOK + "\n" + balance, encoding="utf-8")
    return str(path)


# ---------------------------------------------------------------------- rulecraft test


def test_a_band_that_holds_names_the_situation_closest_to_failing(tmp_path: Path) -> None:
    # DEX 10, 11, 12 on rough ground are 8, 9, 10: a fall in 160, 135, 108 of 216 (20/27, 5/8,
    # 1/2); moving 1..3 calls for no roll, so 9 of the 18 situations measure the fall.  The least
    # margin is at DEX 12 (1/2 - 1/2 = 0), the first such situation moving 4.
    book = write(
        tmp_path,
        'balance "Falls" for rough:\n    over DEX = 10..12, moved = 1..6\n'
        "    expect chance fall.failure between 50% and 75%\n",
    )
    result = run_cli("test", "-v", book)
    assert result.exit_code == 0, result.output
    assert 'balance "Falls" (18 situations)' in result.output
    assert "closest at DEX = 12, moved = 4, chance fall.failure = 50%" in result.output
    assert "1 balance claim held, 0 failed" in result.output


def test_a_failing_claim_reports_its_worst_situation_and_how_many_fail(tmp_path: Path) -> None:
    # DEX 8..14 become 6..12; a fall is more likely than not below 3d6 <= 10, so DEX 8..11 fail
    # with each move of 4..10: 4 x 7 = 28 of the 49 situations that roll.  The worst is DEX 8:
    # 3d6 <= 6 in 20 of 216, a fall in 196/216 = 49/54.
    book = write(
        tmp_path, 'balance "Rare falls" for rough:\n    over DEX = 8..14, moved\n    expect chance fall.failure <= 1/2\n'
    )
    result = run_cli("test", book)
    assert result.exit_code == 1
    assert "error[E990]" in result.output
    assert (
        "at DEX = 8, moved = 4, chance fall.failure is 49/54 (90.74%); wanted <= 1/2 (50%); "
        "it fails in 28 of 49 situations measured"
    ) in result.output
    assert "0 balance claims held, 1 failed" in result.output


def test_variants_are_compared_situation_by_situation(tmp_path: Path) -> None:
    # Scree takes 3, rough ground 2: at DEX 10, 11, 12 the falls differ by 181 - 160 = 21,
    # 160 - 135 = 25 and 135 - 108 = 27 of 216; 27/216 = 1/8 = 12.5 points, at DEX 12 only, and
    # the least difference is 21/216, at DEX 10: both bounds are met exactly at one situation.
    held = write(
        tmp_path,
        'balance "Scree" for rough:\n    over DEX = 10..12\n    given moved = 4\n'
        "    expect chance fall.failure in scree <= chance fall.failure + 12.5%\n"
        "    expect chance fall.failure in scree >= chance fall.failure + 21/216\n",
    )
    assert run_cli("test", held).exit_code == 0
    failed = write(
        tmp_path,
        'balance "Scree" for rough:\n    over DEX = 10..12\n    given moved = 4\n'
        "    expect chance fall.failure in scree < chance fall.failure + 1/8\n",
    )
    result = run_cli("test", failed)
    assert result.exit_code == 1
    assert "at DEX = 12, chance fall.failure in scree is 5/8 (62.5%)" in result.output
    assert "it fails in 1 of 3 situations measured" in result.output


def test_the_average_of_dice(tmp_path: Path) -> None:
    # 2d6 averages 7: 2d6 + bonus averages 7, 8, 9, 10 for bonus 0..3; at most 9 fails at 3.
    book = write(
        tmp_path,
        'balance "Blows" for blow:\n    over bonus\n'
        "    expect average damage between 7 and 10\n    expect average damage <= 9\n",
    )
    result = run_cli("test", book)
    assert result.exit_code == 1
    assert "at bonus = 3, average damage is 10; wanted <= 9; it fails in 1 of 4 situations measured" in result.output
    assert "1 balance claim held, 1 failed" in result.output


def test_a_claim_measured_in_no_situation_fails(tmp_path: Path) -> None:
    book = write(tmp_path, 'balance "Slow" for rough:\n    over moved = 0..3\n    expect chance fall >= 0\n')
    result = run_cli("test", book)
    assert result.exit_code == 1
    assert "`chance fall` is measured in no situation of the space" in result.output


# ---------------------------------------------------------------------- never on a card, formatted


def test_cards_do_not_print_balance_claims(tmp_path: Path) -> None:
    book = write(tmp_path, 'balance "Secret design goal" for rough:\n    over DEX\n    expect DEX >= 0\n')
    out = tmp_path / "cards"
    result = run_cli("cards", book, "-o", str(out), "--format", "html")
    assert result.exit_code == 0, result.output
    pages = "".join(path.read_text(encoding="utf-8") for path in out.rglob("*.html"))
    assert "Rough ground" in pages
    assert "Secret design goal" not in pages and "balance" not in pages.lower()


def test_fmt_lays_out_a_balance_block_and_keeps_it(tmp_path: Path) -> None:
    messy = write(
        tmp_path,
        'balance "Scree"   for rough:\n    over  DEX=10..12 ,moved = 4 .. 6 by 2\n'
        "    expect chance fall.failure in scree<=chance fall.failure+12.5 %\n"
        "    expect chance fall.failure in scree>=chance fall.failure-1/2\n",
    )
    assert run_cli("fmt", messy).exit_code == 0
    text = Path(messy).read_text(encoding="utf-8")
    assert 'balance "Scree" for rough:\n    over DEX = 10..12, moved = 4..6 by 2\n' in text
    assert "    expect chance fall.failure in scree <= chance fall.failure + 12.5%\n" in text
    assert "    expect chance fall.failure in scree >= chance fall.failure - 1/2\n" in text
    assert run_cli("fmt", "--check", messy).exit_code == 0
    assert run_cli("test", messy).exit_code == 0


def test_the_editor_index_leads_from_a_claim_to_what_it_measures() -> None:
    text = BOOK + '\nbalance "Falls" for rough:\n    over DEX = 10..12, moved\n    expect chance fall in scree <= 1\n'
    compiled = compile_text(text, "footing.rules")
    index = build_index(compiled.tree, compiled.book)
    last = text.split("\n").index("    expect chance fall in scree <= 1") + 1
    over = last - 1
    found = {
        (line, column): index.at(line, column)
        for line, column in [(over, 10), (over, 24), (last, 19), (last, 27)]  # DEX, moved, fall, scree
    }
    kinds = {key: (o.symbol.kind, o.symbol.name) for key, o in found.items() if o is not None}
    assert kinds == {
        (over, 10): ("stat", "DEX"),
        (over, 24): ("input", "moved"),
        (last, 19): ("roll", "fall"),
        (last, 27): ("rule", "scree"),
    }


# ---------------------------------------------------------------------- rulecraft tune


TUNED = """
# Rough ground with DEX 10, 11, 12 and a penalty P rolls 3d6 <= 10 + P, 11 + P, 12 + P.  A fall
# between 50% and 75% needs 54 to 108 successes of 216: a target of 8, 9 or 10 (56, 81, 108), so
# P = -2 alone: falls 20/27, 5/8, 1/2.
balance "A fall stays likely but not certain" for rough:
    over DEX = 10..12
    given moved = 4
    expect chance fall.failure between 50% and 75%
"""


def test_tune_finds_the_only_value_that_holds(tmp_path: Path) -> None:
    book = write(tmp_path, TUNED)
    result = run_cli("tune", book, "--vary", "bad footing=-4..0")
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.output.splitlines() if line[:2] in ("-4", "-3", "-2", "-1", "0 ")]
    assert [row[0] for row in rows] == ["-4", "-3", "-2", "-1", "0"]
    assert [" ".join(row[1:5]) for row in rows][2] == "1 of 1 0"
    assert "every claim holds with: bad footing = -2" in result.output


def test_tune_reports_the_closest_miss(tmp_path: Path) -> None:
    # P = -1: DEX 11, 12, 13 roll 3d6 <= 9, 10, 11 (falls 135/216, 108/216, 81/216): 3/8 at DEX
    # 12 is 1/8 below 50%.  P = 0: 3d6 <= 10, 11, 12, falls 1/2, 3/8, 56/216 = 7/27: 13/54 short.
    # P = -3: DEX 7, 8, 9: falls 181/216 (19/216 above 75%, the least of the three misses).
    book = write(tmp_path, TUNED)
    result = run_cli("tune", book, "--vary", "bad footing=-3,-1,0")
    assert result.exit_code == 1
    assert "no combination makes every claim hold; closest miss: bad footing = -3 (0 of 1 claims held)" in (
        result.output
    )
    assert "19/216 (8.796 points)" in result.output
    assert "1/8 (12.5 points)" in result.output and "13/54 (24.07 points)" in result.output
    assert "at DEX = 10, chance fall.failure is 181/216 (83.8%), above 75%" in result.output


def test_tune_varies_a_rule_s_modifier_and_a_default_together(tmp_path: Path) -> None:
    # rough.DEX is the same number as "bad footing"; DEX's default does not matter to a space
    # that sweeps DEX: 2 x 2 combinations, the two with -2 hold.
    book = write(tmp_path, TUNED)
    result = run_cli("tune", book, "--vary", "rough.DEX=-2,-1", "--vary", "DEX=9,10")
    assert result.exit_code == 0, result.output
    assert "every claim holds with: rough.DEX = -2, DEX = 9; rough.DEX = -2, DEX = 10" in result.output


@pytest.mark.parametrize(
    ("vary", "message"),
    [
        ("nothing=1", 'no modifier labelled "nothing"'),
        ("bad footing=a..b", "give numbers, a range LOW..HIGH, or LOW..HIGH/STEP"),
        ("bad footing=1/3", "cannot be written as a decimal number"),
        ("loose stones=0..2000", "combinations to try, more than 1,000"),
    ],
)
def test_tune_mistakes_are_usage_errors(tmp_path: Path, vary: str, message: str) -> None:
    book = write(tmp_path, TUNED)
    result = run_cli("tune", book, "--vary", vary)
    assert result.exit_code == 2
    assert message in result.output


def test_tune_needs_a_balance_block(tmp_path: Path) -> None:
    book = write(tmp_path, "")
    result = run_cli("tune", book, "--vary", "bad footing=-1")
    assert result.exit_code == 2
    assert "states no balance block: nothing to tune for" in result.output
