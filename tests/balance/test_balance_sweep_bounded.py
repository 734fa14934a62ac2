"""`rulecraft sweep` in bounded memory, writing its file whole or not at all.

The reproducer sweep_oom.sh swept three `--vary ...=all` axes of 100,001 values under a raised
`--limit`: every chunk of the product was listed up front and queued to the worker pool, 6.7 GB
before the first row (capped at 2 GB: `internal error: MemoryError`); and `-o FILE` truncated
FILE at once, so an interrupted sweep lost the results FILE held."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from fractions import Fraction
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

TOO_MANY_TOTALS = """\
rulebook fl "Fail":
    source "docs"

input pool "Pool": dice = 1d6
input n "N": int 0..10 = 0

rule r "R" cites "1":
    roll hit "Hit": pool >= 4 + n
"""
"""A sweep that fails part way: the resolver cannot work out 100d1000 exactly."""

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


# ---------------------------------------------------------------- the file, whole or not at all


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_a_failed_sweep_keeps_the_file_it_would_replace(tmp_path: Path, suffix: str) -> None:
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    book = tmp_path / "fail.rules"
    book.write_text(TOO_MANY_TOTALS, encoding="utf-8")
    out = tmp_path / "results" / f"hit{suffix}"
    out.parent.mkdir()
    out.write_text("the last sweep's results\n", encoding="utf-8")
    result = run_cli("sweep", str(book), "r", "--vary", "pool=1d6,2d6,100d1000", "--vary", "n=0..2", "-o", str(out))
    assert result.exit_code == 2
    assert "situation r with pool=100d1000, n=0: roll `hit` of `r`: 100d1000 has too many totals" in result.output
    assert out.read_text(encoding="utf-8") == "the last sweep's results\n"
    assert [path.name for path in out.parent.iterdir()] == [out.name]  # no temporary file left


def test_a_finished_sweep_replaces_the_file_keeping_its_permissions(oom_book: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.csv"
    out.write_text("old\n", encoding="utf-8")
    out.chmod(0o640)
    link = tmp_path / "latest.csv"
    link.symlink_to(out)
    result = run_cli("sweep", str(oom_book), "r", "--vary", "a=0..2", "-o", str(link))
    assert result.exit_code == 0, result.output
    assert "wrote 3 rows to" in result.stderr
    assert link.is_symlink() and out.read_text(encoding="utf-8").splitlines()[1:] == ["0,0,", "1,1,", "2,2,"]
    assert out.stat().st_mode & 0o777 == 0o640
    assert sorted(path.name for path in tmp_path.iterdir()) == ["latest.csv", "sweep_oom.rules", "x.csv"]


def test_a_sweep_into_a_missing_folder_or_a_folder_is_bad_usage_at_once(oom_book: Path, tmp_path: Path) -> None:
    result = run_cli("sweep", str(oom_book), "r", "--vary", "a=0..2", "-o", str(tmp_path / "none" / "x.csv"))
    assert result.exit_code == 2
    assert "cannot write to" in result.output and "No such file or directory" in result.output
    result = run_cli("sweep", str(oom_book), "r", *EVERY, "--limit", HUGE, "-o", str(tmp_path))
    assert result.exit_code == 2  # before a row is resolved, not after the sweep
    assert "Is a directory" in result.output


def test_a_device_is_written_to_not_replaced(oom_book: Path) -> None:
    """`-o /dev/null` (timing a sweep) writes into the device; renaming a file over it would
    replace /dev/null itself for a user allowed to."""
    result = run_cli("sweep", str(oom_book), "r", "--vary", "a=0..2", "-o", os.devnull)
    assert result.exit_code == 0, result.output
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_parquet_types_follow_every_row_though_written_a_group_at_a_time(tmp_path: Path) -> None:
    """Whole numbers in the first chunks, a fraction in the last: the column is text throughout,
    as when the table was built in memory."""
    parquet = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "g.parquet"
    result = run_cli("sweep", "skirmish_terrain", "gravity", "--vary", "gravity=0..10,0.5", "-o", str(out))
    assert result.exit_code == 0, result.output
    table = parquet.read_table(out)
    assert str(table.schema.field("gravity").type) == "string"
    assert table.column("gravity").to_pylist() == [*(str(g) for g in range(11)), "0.5"]
    assert Fraction(table.column("stat.load").to_pylist()[-1]) == Fraction(-35)


# ---------------------------------------------------------------- stopped part way (slow)


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return status.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.fixture
def running(oom_book: Path, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """The reproducer's sweep writing to an existing file, started and under way."""
    if not Path("/proc/self/task").is_dir():
        pytest.skip("reads the processes from /proc")
    out = tmp_path / "out" / "sweep.csv"
    out.parent.mkdir()
    out.write_text("the last sweep's results\n", encoding="utf-8")
    command = _rulecraft("sweep", str(oom_book), "r", *EVERY, "--limit", HUGE, "--jobs", "2", "-o", str(out))
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_signals_as_from_a_terminal,
    )
    try:
        deadline = time.monotonic() + 60
        while not [p for p in out.parent.iterdir() if p.name != out.name and p.stat().st_size > 200_000]:
            assert process.poll() is None and time.monotonic() < deadline, process.communicate()
            time.sleep(0.05)
        yield process, out
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()


def _signals_as_from_a_terminal() -> None:
    """A sweep started from a shell: SIGINT and SIGHUP at their defaults, whatever the test
    process inherited or set (an ignored signal stays ignored across exec, as under `nohup`, and
    Python then installs no KeyboardInterrupt for SIGINT)."""
    for number in (signal.SIGINT, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("stop", "group", "code"),
    [
        (signal.SIGINT, False, 1),
        (signal.SIGTERM, False, -signal.SIGTERM),
        (signal.SIGHUP, False, -signal.SIGHUP),
        (signal.SIGTERM, True, -signal.SIGTERM),  # as `timeout` and job schedulers do
        (signal.SIGINT, True, 1),  # Ctrl-C on a terminal
    ],
)
def test_an_interrupted_sweep_keeps_the_old_file(
    running: tuple[subprocess.Popen[str], Path], stop: signal.Signals, group: bool, code: int
) -> None:
    """sweep_oom.sh, stopped part way: FILE keeps what it held, the temporary file is removed,
    the worker processes end (Ctrl-C ends the sweep as click does, SIGTERM as the signal does).
    Sent to the whole process group, SIGTERM once hung the sweep as its pool shut down."""
    process, out = running
    workers = _children(process.pid)
    assert len(workers) == 2
    if group:
        os.killpg(process.pid, stop)
    else:
        process.send_signal(stop)
    _, error = process.communicate(timeout=30)
    assert process.returncode == code, error
    assert "Traceback" not in error
    assert out.read_text(encoding="utf-8") == "the last sweep's results\n"
    assert [path.name for path in out.parent.iterdir()] == [out.name]
    assert not any(_alive(worker) for worker in workers)


@pytest.mark.slow
def test_a_sweep_killed_outright_leaves_no_worker_behind(running: tuple[subprocess.Popen[str], Path]) -> None:
    process, out = running
    workers = _children(process.pid)
    process.kill()
    process.wait(timeout=30)
    deadline = time.monotonic() + 15
    while any(_alive(worker) for worker in workers):
        assert time.monotonic() < deadline, "a worker outlived its sweep"
        time.sleep(0.1)
    assert out.read_text(encoding="utf-8") == "the last sweep's results\n"


@pytest.mark.slow
def test_a_killed_worker_ends_the_sweep_with_an_error(running: tuple[subprocess.Popen[str], Path]) -> None:
    process, out = running
    os.kill(_children(process.pid)[0], signal.SIGKILL)
    _, error = process.communicate(timeout=60)
    assert process.returncode == 2
    assert "a process of the sweep ended abruptly (killed, or out of memory?)" in error
    assert out.read_text(encoding="utf-8") == "the last sweep's results\n"
    assert [path.name for path in out.parent.iterdir()] == [out.name]
