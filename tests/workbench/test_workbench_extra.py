"""Without the `workbench` extra, `watch` and `lsp` name what to install (exit 2)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

MARSH = ROOT / "tests" / "fixtures" / "workbench" / "marsh.rules"


@pytest.mark.parametrize(
    ("args", "command", "missing"),
    [
        (["watch", str(MARSH)], "watch", "watchfiles"),
        (["watch", str(MARSH), "--serve"], "watch --serve", "uvicorn"),
        (["lsp"], "lsp", "pygls"),
    ],
)
def test_a_missing_package_of_the_extra_is_named(
    args: list[str], command: str, missing: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: None if name == missing else real(name, *rest))
    monkeypatch.chdir(tmp_path)
    result = run_cli(*args)
    assert result.exit_code == 2
    assert result.output == (
        f"error: `rulecraft {command}` needs the optional packages of the `workbench` extra (missing: {missing});"
        " install them with: pip install 'rulecraft[workbench]'\n"
    )
    assert not (tmp_path / "generated").exists()
