"""A wheel built from the repository works outside the source tree: grammar and rulebooks ship."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("rulecraft-*.whl")
    return built


def test_wheel_contains_grammar_and_rulebooks(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "dsl/_data/grammars/rulecraft.lark" in names
    assert "dsl/_data/rulebooks/skirmish_terrain.rules" in names
    assert "dsl/runtime/__init__.py" in names
    assert {"dsl/workbench/static/index.html", "dsl/workbench/static/app.js", "dsl/workbench/static/app.css"} <= set(names)
    assert {"dsl/schema/resolution.schema.json", "dsl/schema/rulebook.schema.json"} <= set(names)
    # the JavaScript runtime a `build --target js` writes: its modules and declarations
    runtime = {p.relative_to(ROOT).as_posix() for p in (ROOT / "dsl/backends/js/runtime").iterdir() if p.suffix in (".js", ".ts")}
    assert runtime and runtime <= set(names)
    assert any(n.startswith("rulecraft-") and n.endswith("entry_points.txt") for n in names)


def test_installed_wheel_runs_outside_the_source_tree(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(target)}
    script = (
        "import dsl, sys; from dsl.cli import main; "
        f"assert dsl.__file__.startswith({str(target)!r}), dsl.__file__; "
        "sys.argv = ['rulecraft', 'resolve', 'skirmish_terrain', 'ice', '--set', 'DEX=8', '--set', 'moved=4']; main()"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=elsewhere, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    # 2d6 <= 8: 26/36 = 13/18
    assert "2d6 <= 8: 13/18" in result.stdout
