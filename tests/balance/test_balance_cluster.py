"""Sweeps and balance checks on a Dask cluster (`--scheduler`): a LocalCluster of two workers
stands for a real one.  The rows are the ones a local sweep writes, in the same order; a
partitioned Parquet folder reads back as the table a single file holds; progress is reported."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli

distributed = pytest.importorskip("distributed")
pyarrow_parquet = pytest.importorskip("pyarrow.parquet")

pytestmark = pytest.mark.usefixtures("at_root")

SWEEP = [
    "sweep",
    "skirmish_terrain",
    "broken_ground",
    "--vary",
    "DEX=3..18",
    "--vary",
    "moved=0..12",
    "--vary",
    "acrobatics=all",
    "--vary",
    "weapon=all",
]
"""16 x 13 x 2 x 5 = 2,080 situations: about 24 chunks for two workers."""


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as local:
        yield local


def test_a_sweep_on_the_cluster_writes_the_rows_of_a_local_sweep(cluster: Any, tmp_path: Path) -> None:
    local = run_cli(*SWEEP, "--jobs", "1", "-o", str(tmp_path / "local.csv"))
    remote = run_cli(*SWEEP, "--scheduler", cluster.scheduler_address, "--progress", "-o", str(tmp_path / "remote.csv"))
    assert local.exit_code == 0 and remote.exit_code == 0, remote.output
    assert (tmp_path / "remote.csv").read_bytes() == (tmp_path / "local.csv").read_bytes()
    assert f"sweeping 2,080 situations (on the Dask cluster at {cluster.scheduler_address})" in remote.output
    assert "2,080 of 2,080 situations" in remote.output  # progress lines while it runs


def test_partitioned_parquet_from_the_cluster_reads_as_the_local_file(cluster: Any, tmp_path: Path) -> None:
    scheduler_file = tmp_path / "scheduler.json"  # what `dask scheduler --scheduler-file` writes, in short
    scheduler_file.write_text(json.dumps({"address": cluster.scheduler_address}), encoding="utf-8")
    local = run_cli(*SWEEP, "--jobs", "1", "-o", str(tmp_path / "local.parquet"))
    remote = run_cli(*SWEEP, "--scheduler", str(scheduler_file), "--format", "parquet", "-o", str(tmp_path / "parts"))
    assert local.exit_code == 0 and remote.exit_code == 0, remote.output
    parts = sorted(path.name for path in (tmp_path / "parts").iterdir())
    assert parts == ["part-00000.parquet"]  # 2,080 rows: one row group of at most 50,000
    single = pyarrow_parquet.read_table(tmp_path / "local.parquet")
    dataset = pyarrow_parquet.read_table(tmp_path / "parts")
    assert dataset.schema.equals(single.schema) and dataset.equals(single)


def test_balance_claims_checked_on_the_cluster_report_what_a_local_check_does(cluster: Any, tmp_path: Path) -> None:
    # DEX 3..18 less 2 for bad footing, moved 6 of MOV 10: 3d6 <= 1..16; the fall is certain
    # (no way to roll at most 1 or 2) at DEX 3 and 4, so a fall of at most 99% fails there.
    book = tmp_path / "terrain.rules"
    text = (Path("rulebooks") / "skirmish_terrain.rules").read_text(encoding="utf-8")
    book.write_text(
        text
        + '\nbalance "Falls are never certain" for broken_ground:\n'
        + "    over DEX = 3..18, moved = 6..30, acrobatics\n"
        + "    expect chance fall.failure <= 99%\n",
        encoding="utf-8",
    )
    local = run_cli("test", "--jobs", "1", str(book))
    remote = run_cli("test", "--scheduler", cluster.scheduler_address, str(book))
    assert local.exit_code == remote.exit_code == 1
    assert remote.output == local.output
    assert "at DEX = 3, moved = 6, acrobatics = no, chance fall.failure is 100%" in remote.output
