"""`rulecraft sweep` in bounded memory, writing its file whole or not at all.

The reproducer sweep_oom.sh swept three `--vary ...=all` axes of 100,001 values under a raised
`--limit`: every chunk of the product was listed up front and queued to the worker pool, 6.7 GB
before the first row (capped at 2 GB: `internal error: MemoryError`); and `-o FILE` truncated
FILE at once, so an interrupted sweep lost the results FILE held."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsl.balance import load_edition, prepare
from tests.conftest import run_cli

pytestmark = pytest.mark.usefixtures("at_root")

SWEEP_OOM = """\
rulebook sw "Sw":
    source "docs"

input a "A": int 0..100000 = 0
input b "B": int 0..100000 = 0
input c "C": int 0..100000 = 0

rule r "R" cites "1":
    derive x "X" = a + b + c
"""
"""sweep_oom.rules, the reproducer's rulebook."""

LONG_INPUT = """\
rulebook long "Long":
    source "docs"

input a "A": int 0..10000000 = 0

rule r "R" cites "1":
    derive x "X" = a * 2
"""
"""An input with more values than are ever checked one by one."""


@pytest.fixture
def oom_book(tmp_path: Path) -> Path:
    path = tmp_path / "sweep_oom.rules"
    path.write_text(SWEEP_OOM, encoding="utf-8")
    return path


def test_ranges_of_one_vary_are_kept_once_without_listing_them(oom_book: Path, tmp_path: Path) -> None:
    edition = load_edition(oom_book)

    def values(text: str) -> list[object]:
        return list(prepare(edition, "r", vary={"a": text}, limit=10**7).axes[0].values)

    assert values("0..10,5..20") == list(range(21))
    assert values("3,0..4,2") == [3, 0, 1, 2, 4]
    assert values("0..8/4,0..8/2") == [0, 4, 8, 2, 6]
    assert len(prepare(edition, "r", vary={"a": range(0, 100_001, 7)}).axes[0].values) == 14_286
    long = tmp_path / "long.rules"
    long.write_text(LONG_INPUT, encoding="utf-8")
    # interleaved, with no value in common: two runs, however long; a short run is written out
    interleaved = prepare(long, "r", vary={"a": "0..9999998/2,1..9999999/2"}, limit=10**7)
    assert interleaved.total == 10**7 and interleaved.axes[0].values[5_000_000] == 1
    assert prepare(long, "r", vary={"a": "0..9999999,7..9"}, limit=10**7).total == 10**7
    overlap = run_cli("sweep", str(long), "r", "--vary", "a=7,5..9999999", "--limit", "10000000")
    assert overlap.exit_code == 2
    assert "--vary a=7,5..9999999: 5..9999999 repeats values given before it; a range of more than" in overlap.output


def test_a_run_of_fractions_is_checked_end_to_end() -> None:
    """0..11/0.5 over `gravity` (number 0..10): the first value refused is named, as before."""
    result = run_cli("sweep", "skirmish_terrain", "gravity", "--vary", "gravity=0..11/0.5")
    assert result.exit_code == 2
    assert "input `gravity` must be a number in number 0..10, not Fraction(21, 2)" in result.output
    lines = run_cli("sweep", "skirmish_terrain", "gravity", "--vary", "gravity=0..2/0.5,1..3/0.25")
    assert [line.split(",")[0] for line in lines.stdout.splitlines()[1:]] == [
        *["0", "0.5", "1", "1.5", "2"],
        *["1.25", "1.75", "2.25", "2.5", "2.75", "3"],
    ]
