"""`rulecraft sweep` in bounded memory, writing its file whole or not at all.

The reproducer sweep_oom.sh swept three `--vary ...=all` axes of 100,001 values under a raised
`--limit`: every chunk of the product was listed up front and queued to the worker pool, 6.7 GB
before the first row (capped at 2 GB: `internal error: MemoryError`); and `-o FILE` truncated
FILE at once, so an interrupted sweep lost the results FILE held."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from dsl.balance import load_edition, prepare
from dsl.balance.rows import compute
from tests.conftest import ROOT, run_cli

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

EVERY = ["--vary", "a=all", "--vary", "b=all", "--vary", "c=all"]
HUGE = str(10**20)
SITUATIONS = 100_001**3

LONG_INPUT = """\
rulebook long "Long":
    source "docs"

input a "A": int 0..10000000 = 0

rule r "R" cites "1":
    derive x "X" = a * 2
"""
"""An input with more values than are ever checked one by one."""

MEMORY_CAP = 1_500_000_000
"""The address space the reproducer runs in (`ulimit -v` of about 1.5 GB)."""

PEAK_MOST_KB = 300_000
"""Peak resident memory allowed to any process of a sweep, in kB: the sweep holds a few chunks
(about 70 MB a process here), whatever its size."""

_MEASURE = """\
import json, resource, subprocess, sys, threading, time
cap, wanted, command = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
def capped():
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
started = time.monotonic()
child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=capped)
timer = threading.Timer(60, child.kill)
timer.start()
lines = []
while len(lines) < wanted:
    line = child.stdout.readline()
    if not line:
        break
    lines.append(line.decode())
seconds = time.monotonic() - started
child.stdout.close()  # the reader stops, as `| head` does: the sweep must end by itself
error = child.stderr.read().decode()
code = child.wait()
timer.cancel()
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"lines": lines, "seconds": seconds, "code": code, "stderr": error, "peak_kb": peak}))
"""
"""Run a command under a memory cap, read WANTED lines of its output, close the pipe, and report
them with the peak resident memory of the command and its worker processes (measured in a
process of its own, so nothing else this test session started counts)."""


@pytest.fixture
def oom_book(tmp_path: Path) -> Path:
    path = tmp_path / "sweep_oom.rules"
    path.write_text(SWEEP_OOM, encoding="utf-8")
    return path


def _rulecraft(*args: str) -> list[str]:
    return [sys.executable, "-m", "dsl.cli", *args]


def _measured(command: list[str], wanted: int) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(MEMORY_CAP), str(wanted), *command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    found: dict[str, object] = json.loads(result.stdout)
    return found


# ---------------------------------------------------------------- bounded memory


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_sweep_oom_streams_rows_at_once_in_bounded_memory(oom_book: Path, jobs: str) -> None:
    """sweep_oom.sh: 10^15 situations under a raised --limit, in 1.5 GB of address space: the
    rows start at once, in order, and memory stays small (before: MemoryError, no row)."""
    wanted = 20_001  # the header and 20,000 rows: several chunks, from every process
    found = _measured(_rulecraft("sweep", str(oom_book), "r", *EVERY, "--limit", HUGE, "--jobs", jobs), wanted)
    lines = found["lines"]
    assert isinstance(lines, list) and len(lines) == wanted, found["stderr"]
    assert lines[0] == "a,b,c,stat.x,restrictions\n"
    # the last --vary turns fastest: row i is a = 0, b = 0, c = i, and x = a + b + c
    assert lines[1:4] == ["0,0,0,0,\n", "0,0,1,1,\n", "0,0,2,2,\n"]
    assert lines[-1] == "0,0,19999,19999,\n"
    assert f"sweeping {SITUATIONS:,} situations" in str(found["stderr"])
    assert "MemoryError" not in str(found["stderr"]) and "internal error" not in str(found["stderr"])
    assert found["code"] == 1  # ended by the closed pipe, as under `| head`
    assert isinstance(found["peak_kb"], int) and found["peak_kb"] < PEAK_MOST_KB, found["peak_kb"]
    assert isinstance(found["seconds"], float) and found["seconds"] < 30


def test_a_huge_sweep_is_planned_and_started_without_listing_it(oom_book: Path) -> None:
    edition = load_edition(oom_book)
    tracemalloc.start()
    try:
        planned = prepare(edition, "r", vary={"a": "all", "b": "all", "c": "all"}, limit=10**20)
        spans = planned.spans(jobs=1)
        first_span = next(spans)
        first_rows = next(planned.chunks(jobs=1))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert planned.total == SITUATIONS
    assert first_span == range(0, 5_000) and next(spans) == range(5_000, 10_000)
    assert first_rows[:2] == [(0, 0, 0, 0, ()), (0, 0, 1, 1, ())] and len(first_rows) == 5_000
    assert peak < 20_000_000, peak  # listing the values alone would take tens of megabytes
    # a chunk is a range of indices into the product, resolved anywhere: here, the very last
    assert compute(planned.plan, [edition.module], SITUATIONS - 1, SITUATIONS) == [
        (100_000, 100_000, 100_000, 300_000, ())
    ]


def test_the_size_is_counted_first_and_named_when_over_the_bound(oom_book: Path) -> None:
    result = run_cli("sweep", str(oom_book), "r", *EVERY)
    assert result.exit_code == 2
    assert f"the sweep has {SITUATIONS:,} situations (100001 a x 100001 b x 100001 c)" in result.output
    assert "more than the bound of 200,000" in result.output and f"--limit {SITUATIONS}" in result.output
    started = run_cli("sweep", str(oom_book), "r", "--vary", "a=0..2", "--vary", "b=5..6", "--progress")
    assert "sweeping 6 situations (1 process)" in started.stderr
    assert "6 of 6 situations (" in started.stderr and " a second)" in started.stderr


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
