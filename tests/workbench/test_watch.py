"""`rulecraft watch`, run as a designer runs it: save the rulebook, read the summary.

The watcher process runs on a copy of tests/fixtures/workbench/marsh.rules; each test edits the
copy on disk and reads what the command prints.  `--serve` is driven here through its HTTP
interface; tests/workbench/test_preview.py drives the page in a real browser.
"""

from __future__ import annotations

import json
import shutil
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest

from dsl import outdir
from tests.conftest import ROOT, module_from_text, run_cli
from tests.watching import Watch, save

pytest.importorskip("watchfiles", reason="`rulecraft watch` needs the `workbench` extra (pip install -e '.[test]')")

MARSH = ROOT / "tests" / "fixtures" / "workbench" / "marsh.rules"
TEXT = MARSH.read_text(encoding="utf-8")


@pytest.fixture
def book(tmp_path: Path) -> Path:
    path = tmp_path / "marsh.rules"
    path.write_text(TEXT, encoding="utf-8")
    return path


@pytest.fixture
def watch(book: Path) -> Iterator[Watch]:
    process = Watch(book.parent, book.name, "-o", "out")
    yield process
    process.stop()


def test_each_save_prints_a_summary_and_a_broken_save_keeps_the_last_good_build(book: Path, watch: Watch) -> None:
    first = watch.summary()
    assert first[0].endswith("marsh.rules: ok, rebuilt in " + first[0].split("rebuilt in ")[1])
    assert "  check     0 errors, 1 warning" in first
    assert "  examples  1 passed, 0 failed" in first
    assert first[-1] == "  written   out: 1 file(s) changed, 0 unchanged"
    assert watch.line("^  cards ").string.startswith("  cards     out/cards: 7 file(s) changed, 0 unchanged (")
    watch.line("^watching marsh.rules for changes")
    module = (book.parent / "out" / "marsh.py").read_text(encoding="utf-8")
    assert (book.parent / "out" / "cards" / "marsh.html").is_file()
    assert not (book.parent / "out" / "__init__.py").exists()

    # a typo: the summary shows the diagnostic; nothing on disk changes
    typo = TEXT.replace("3d6 <= STR", "3d6 <= SRT")
    save(book, typo)
    broken = watch.summary()
    assert "1 error; kept the last good build" in broken[0]
    where = typo.index("SRT")
    line, column = typo.count("\n", 0, where) + 1, where - typo.rfind("\n", 0, where)
    assert f"    marsh.rules:{line}:{column}: error[E101]: unknown name `SRT`" in broken
    assert "         = hint: did you mean `STR`?" in broken
    assert "  examples  not run: fix the errors first" in broken
    assert broken[-1] == "  written   nothing: out keeps the last good build"
    assert (book.parent / "out" / "marsh.py").read_text(encoding="utf-8") == module

    # half a file, as a slow save might leave it for a moment
    save(book, TEXT[: TEXT.index("terrain bog") + 30])
    half = watch.summary()
    assert "kept the last good build" in half[0]
    assert "a line ending with `:` needs an indented block below it" in "\n".join(half)

    # the file gone (an editor's save by rename, caught in the middle): said once, then quiet
    book.unlink()
    gone = watch.summary()
    assert "cannot read the file" in "\n".join(gone)
    time.sleep(1.5)  # a repeated round would print another summary before the next one

    # fixed, with a different modifier: the resolver is rebuilt, and the example now fails
    save(book, TEXT.replace('DEX -2 in footing "deep water"', 'DEX -3 in footing "deep water"'))
    changed = watch.summary()
    assert "examples fail, rebuilt in" in changed[0]
    assert "  examples  0 passed, 1 failed" in changed
    assert '    FAIL "Wading in to the knee"' in changed
    assert any("expected DEX = 8, got 7" in line for line in changed)
    assert changed[-1] == "  written   out: 1 file(s) changed, 0 unchanged"
    assert watch.line("^  cards ").string.startswith("  cards     out/cards: 7 file(s) changed, 0 unchanged (")
    assert "-3" in (book.parent / "out" / "marsh.py").read_text(encoding="utf-8")

    # saving the same text again changes nothing: no rebuild, no summary
    save(book, TEXT.replace('DEX -2 in footing "deep water"', 'DEX -3 in footing "deep water"'))
    time.sleep(0.5)  # a rebuild would print its summary ("examples fail") before the next one
    save(book, TEXT)
    again = watch.summary()
    assert "ok, rebuilt in" in again[0]
    assert watch.stop() == 0
    assert watch.rest()[-1] == "stopped watching"


def test_ctrl_c_exits_cleanly_and_no_cards_writes_the_resolver_alone(book: Path) -> None:
    watch = Watch(book.parent, book.name, "-o", "out", "--no-cards")
    assert watch.summary()[-1] == "  written   out: 1 file(s) changed, 0 unchanged"
    watch.line("^watching ")
    assert watch.stop() == 0
    assert watch.rest() == ["stopped watching"]
    assert sorted(p.name for p in (book.parent / "out").iterdir()) == [outdir.MANIFEST, "marsh.py"]


def test_other_rulebooks_files_in_the_output_are_left_alone(book: Path) -> None:
    out = book.parent / "out"
    (out / "cards").mkdir(parents=True)
    other = out / "other.py"
    other.write_text('"""Resolver module generated by rulecraft; do not edit."""\n', encoding="utf-8")
    (out / "cards" / "other.html").write_text("<p>other</p>", encoding="utf-8")
    process = Watch(book.parent, book.name, "-o", "out")
    try:
        summary = process.summary()
        process.line("^  cards ")
    finally:
        assert process.stop() == 0
    assert summary[-1] == "  written   out: 1 file(s) changed, 0 unchanged"
    assert other.is_file() and (out / "cards" / "other.html").is_file()
    assert sorted(p.name for p in out.iterdir()) == [outdir.MANIFEST, "cards", "marsh.py", "other.py"]
    assert len(list((out / "cards").iterdir())) == 8


def test_a_removed_folder_ends_watching_with_a_message(tmp_path: Path) -> None:
    folder = tmp_path / "book"
    folder.mkdir()
    (folder / "marsh.rules").write_text(TEXT, encoding="utf-8")
    process = Watch(folder, "marsh.rules", "-o", str(tmp_path / "out"), "--no-cards")
    process.line("^watching ")
    shutil.rmtree(folder)
    assert process.process.wait(20) == 1
    rest = process.rest()
    assert rest[-1].startswith(f"error: cannot watch {folder.resolve()}: ")
    assert rest[-1].endswith("; stopped watching")
    assert not any("internal error" in line or "Traceback" in line for line in rest)


# ---------------------------------------------------------------------------- usage errors


def test_a_port_in_use_is_a_usage_error(book: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_cli("watch", str(book), "--serve", "--port", str(port))
    assert result.exit_code == 2
    assert f"cannot serve on 127.0.0.1:{port}: Address already in use" in result.output


def test_an_unknown_book_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli("watch", str(tmp_path / "nowhere.rules"))
    assert result.exit_code == 2
    assert "no rulebook file" in result.output


# ---------------------------------------------------------------------------- the preview's server


def _get(url: str, host: str | None = None) -> tuple[int, str, dict[str, str]]:
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode("utf-8"), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8"), dict(error.headers)


def _post(url: str, payload: object) -> tuple[int, dict[str, object]]:
    data = json.dumps(payload).encode("utf-8")
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_serve_answers_on_the_loopback_only_and_resolves_with_the_resolver(book: Path) -> None:
    hostile = TEXT.replace('"Lose a boot"', '"<script>alert(1)</script> Lose a boot"')
    save(book, hostile)
    process = Watch(book.parent, book.name, "-o", "out", "--serve", "--port", "0")
    try:
        url = process.line(r"serving the preview at (http://127\.0\.0\.1:\d+/)").group(1)
        process.summary()
        status, body, headers = _get(url)
        assert status == 200 and "<title>rulecraft preview</title>" in body
        assert "script-src 'self'" in headers["content-security-policy"]
        status, body, _ = _get(url + "api/state")
        state = json.loads(body)
        assert state["ok"] and state["book"]["title"] == "Marsh Terrain"
        assert state["inputs"]["STR"] == {
            "name": "STR",
            "label": "Strength",
            "kind": "int",
            "low": 3.0,
            "high": 18.0,
            "step": 1,
            "unit": None,
            "members": [],
            "default": 10,
            "default_from": None,
            "stat": True,
            "describe": "int 3..18",
        }
        assert [e["name"] for e in state["entries"]] == ["soft_ground", "bog", "mishap"]
        assert state["entries"][2]["roll"] == [1, 6]

        status, answer = _post(url + "api/resolve", {"names": ["bog"], "inputs": {"STR": "12", "swimmer": "no"}})
        expected = module_from_text(hostile).resolve("bog", STR=12).to_dict()
        assert status == 200 and answer["resolution"] == json.loads(json.dumps(expected))
        sink = next(r for r in expected["rolls"] if r["name"] == "sink")
        assert Fraction(sink["probability"]["fraction"]) == Fraction(160, 216)

        status, answer = _post(url + "api/resolve", {"names": ["bog"], "inputs": {"STR": "40"}})
        assert status == 400 and answer == {"error": 'input `STR` must be a number in int 3..18, not "40"'}

        status, body, headers = _get(url + "cards?rule=mishap")
        assert status == 200 and "default-src 'none'" in headers["content-security-policy"]
        assert "&lt;script&gt;alert(1)&lt;/script&gt; Lose a boot" in body and "<script>" not in body

        status, body, _ = _get(url + "api/state", host="rebinding.example.com")
        assert status == 400
    finally:
        assert process.stop() == 0
