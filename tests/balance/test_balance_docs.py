"""docs/balance.md stays true: its Python sessions run as shown, its commands run, its images
are the ones the commands draw (same size), and its links lead somewhere."""

from __future__ import annotations

import doctest
import re
import shlex
import struct
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

DOC = ROOT / "docs" / "balance.md"
_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def _blocks(language: str) -> list[str]:
    return [body for lang, body in _FENCE.findall(DOC.read_text(encoding="utf-8")) if lang.strip() == language]


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.usefixtures("at_root")
def test_python_sessions_run_as_shown() -> None:
    pytest.importorskip("pandas")
    sessions = _blocks("pycon")
    assert sessions
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    globs: dict[str, object] = {"Fraction": __import__("fractions").Fraction}
    for number, text in enumerate(sessions):
        test = parser.get_doctest(text, globs, f"balance.md session {number + 1}", str(DOC), 0)
        runner.run(test)
    assert runner.tries >= 6 and runner.failures == 0, "a session of docs/balance.md does not print what it shows"


def test_commands_run_and_draw_the_images_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rulebooks").symlink_to(ROOT / "rulebooks")
    text = DOC.read_text(encoding="utf-8")
    images = dict(re.findall(r"-o (\w+\.png)\n```\n\n!\[[^\]]*\]\(([^)]+)\)", text))
    commands = [line for block in _blocks("sh") for line in block.splitlines() if line.startswith("rulecraft ")]
    ran = 0
    for line in commands:
        if "NAME=VALUES" in line or "FILE" in line:
            continue  # a synopsis, not a command
        if "errata.rules" in line:
            book = (ROOT / "rulebooks" / "skirmish_terrain.rules").read_text(encoding="utf-8")
            # the documented sed: -3 bad footing, version 1.1.0
            book = book.replace('DEX -2 "bad footing"', 'DEX -3 "bad footing"')
            (tmp_path / "errata.rules").write_text(book.replace('version "1.0.0"', 'version "1.1.0"'), "utf-8")
        if line.startswith("rulecraft sweep"):
            # the timed sweep: planned, not run; its size is the one the text gives
            result = run_cli(*shlex.split(line)[1:], "--limit", "100")
            sizes = re.findall(r"the sweep has ([0-9,]+) situations", result.output)
            assert result.exit_code == 2 and sizes and f"the {sizes[0]} situations" in text, result.output
            continue
        result = run_cli(*shlex.split(line)[1:])
        assert result.exit_code == 0, f"{line}\n{result.output}"
        ran += 1
        output = shlex.split(line)[shlex.split(line).index("-o") + 1]
        if output in images:
            shown = DOC.parent / images[output]
            assert _png_size(tmp_path / output) == _png_size(shown), line
    assert ran == 3 and len(images) == 3


def test_links_lead_somewhere() -> None:
    text = DOC.read_text(encoding="utf-8")
    headings = {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-") for h in re.findall(r"^#+ (.+)$", text, re.M)}
    for target in re.findall(r"\]\(#([^)]+)\)", text):
        assert target in headings, target
    for target in re.findall(r"\]\(([^)#:]+)\)", text):
        assert (DOC.parent / target).exists(), target
