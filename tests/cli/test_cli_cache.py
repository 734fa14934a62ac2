"""`resolve`, `describe` and `list` of a rulebook compiled before import its module from the cache
(dsl/cache.py): the same output as a fresh compile, never a stale entry, and no parser loaded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dsl import cache
from dsl.compiler import generate
from dsl.describe import describe_data, list_data
from dsl.report import json_text
from tests.conftest import ROOT, RULEBOOKS, compiled, module_for, run_cli

BOOKS = sorted(p.stem for p in RULEBOOKS.glob("*.rules"))


def _json(text: str) -> object:
    return json.loads(text)


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("RULECRAFT_CACHE_DIR", str(folder))
    return folder


def _entries(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


@pytest.mark.parametrize(
    "book",
    [b if b in ("skirmish_terrain", "spot_rules_a_to_e") else pytest.param(b, marks=pytest.mark.slow) for b in BOOKS],
)
def test_cached_output_is_that_of_a_fresh_compile(book: str, fresh_cache: Path) -> None:
    """What a command reads from the cache is what a fresh compile gives: the kept module is the
    one generated afresh, byte for byte, and the kept facts (what `list` and `describe` print) are
    the ones worked out afresh, for every rule; so is every command's output.  Through the
    commands themselves: `list`, and `describe` and `resolve` of the first, middle and last rule
    (each command loads the kept module anew: every rule would be some 40 s of the same code).
    Two books in a plain `pytest` (the smallest and the largest), every one in CI."""
    path = RULEBOOKS / f"{book}.rules"
    fresh = compiled(path)
    assert fresh.book is not None
    module = module_for(path)
    first = run_cli("list", book, "--json")  # compiles, and keeps the entry
    assert first.exit_code == 0, first.output
    (folder,) = _entries(fresh_cache)
    (source,) = folder.glob("*.py")
    assert source.read_text(encoding="utf-8") == generate(fresh)
    entry = cache.find(path, path.read_bytes())
    assert entry is not None
    assert entry.facts.to_data() == cache.facts_of(fresh, module).to_data()
    assert _json(run_cli("list", book, "--json").output) == _json(json_text(list_data(fresh.book)))
    assert run_cli("list", book).output == first_text(book)
    names = list(module.RULES)
    for name in dict.fromkeys([names[0], names[len(names) // 2], names[-1]]):
        inputs = [module.INPUTS[read] for read in module.RULES[name].reads]
        described = run_cli("describe", book, name, "--json")
        assert described.exit_code == 0, described.output
        assert _json(described.output) == _json(json_text(describe_data(fresh.book, name, inputs, module))), name
        resolved = run_cli("resolve", book, name, "--json")
        assert resolved.exit_code == 0, resolved.output
        assert _json(resolved.output) == _json(json_text(module.resolve(name).to_dict())), name
    assert len(_entries(fresh_cache)) == 1  # every command after the first read the same entry


def first_text(book: str) -> str:
    """`list BOOK` as text, compiled afresh (the cache turned off)."""
    previous = os.environ.get("RULECRAFT_CACHE_DIR")
    os.environ["RULECRAFT_CACHE_DIR"] = ""
    try:
        return run_cli("list", book).output
    finally:
        if previous is not None:
            os.environ["RULECRAFT_CACHE_DIR"] = previous


def test_text_output_from_the_cache_is_that_of_a_fresh_compile(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands = [
        ("describe", "skirmish_terrain", "broken_ground"),
        ("describe", "mecha_tables", "terrain_costs"),
        ("resolve", "skirmish_terrain", "broken_ground", "mud", "--set", "DEX=12", "--set", "moved=6"),
        ("list", "zone_combat"),
    ]
    monkeypatch.setenv("RULECRAFT_CACHE_DIR", "")
    fresh = [run_cli(*command).output for command in commands]
    monkeypatch.setenv("RULECRAFT_CACHE_DIR", str(fresh_cache))
    for command in commands:
        run_cli(*command)  # keeps the entry
    assert [run_cli(*command).output for command in commands] == fresh


RULEBOOK = """rulebook tiny "Tiny":
    source "s"

stat DEX "Dexterity": int 0..20 = 10

rule slow "Slow" cites "1":
    DEX -{amount}
"""


def test_an_edited_rulebook_is_compiled_again(tmp_path: Path, fresh_cache: Path) -> None:
    book = tmp_path / "tiny.rules"
    book.write_text(RULEBOOK.format(amount=2), encoding="utf-8")
    assert _json(run_cli("resolve", str(book), "slow", "--json").output)["stats"]["DEX"]["final"] == 8  # 10 - 2
    assert _json(run_cli("resolve", str(book), "slow", "--json").output)["stats"]["DEX"]["final"] == 8
    book.write_text(RULEBOOK.format(amount=3), encoding="utf-8")  # same size, edited in place
    assert _json(run_cli("resolve", str(book), "slow", "--json").output)["stats"]["DEX"]["final"] == 7  # 10 - 3
    assert len(_entries(fresh_cache)) == 2
    book.write_text(RULEBOOK.format(amount=2), encoding="utf-8")  # back as it was: the first entry again
    assert _json(run_cli("resolve", str(book), "slow", "--json").output)["stats"]["DEX"]["final"] == 8
    assert len(_entries(fresh_cache)) == 2


def test_a_cached_rulebook_is_not_compiled(tmp_path: Path, fresh_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import dsl.cli as cli

    book = tmp_path / "tiny.rules"
    book.write_text(RULEBOOK.format(amount=2), encoding="utf-8")
    assert run_cli("describe", str(book), "slow", "--json").exit_code == 0

    def refuse(*args: object) -> object:
        raise AssertionError("compiled again")

    monkeypatch.setattr(cli, "compile_file", refuse)
    assert run_cli("resolve", str(book), "slow", "--json").exit_code == 0
    assert run_cli("describe", str(book), "slow").exit_code == 0
    assert run_cli("list", str(book)).exit_code == 0


def test_a_rulebook_with_errors_is_reported_every_time(tmp_path: Path, fresh_cache: Path) -> None:
    book = tmp_path / "tiny.rules"
    book.write_text(RULEBOOK.format(amount="x"), encoding="utf-8")
    for _ in range(2):
        result = run_cli("resolve", str(book), "slow")
        assert result.exit_code == 1
        assert "error[E" in result.stderr
    assert not fresh_cache.exists() or _entries(fresh_cache) == []


def test_a_cache_that_cannot_be_written_is_no_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory", encoding="utf-8")
    monkeypatch.setenv("RULECRAFT_CACHE_DIR", str(blocker / "cache"))
    result = run_cli("resolve", "skirmish_terrain", "broken_ground", "--set", "DEX=12", "--json")
    assert result.exit_code == 0
    assert _json(result.output)["stats"]["DEX"]["start"] == 12


def test_resolve_from_the_cache_loads_no_parser_cards_or_templates(fresh_cache: Path) -> None:
    script = (
        "import sys; from dsl.cli import main\n"
        "try:\n"
        "    main(['resolve', 'skirmish_terrain', 'broken_ground', '--set', 'DEX=12', '--json'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in ('lark', 'reportlab', 'jinja2', 'dsl.compiler', 'dsl.analysis') if m in sys.modules))\n"
    )
    environment = {**os.environ, "RULECRAFT_CACHE_DIR": str(fresh_cache)}

    def loaded() -> str:
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment, cwd=ROOT)
        assert out.returncode == 0, out.stderr
        return out.stdout.splitlines()[-1]

    assert "lark" in loaded()  # the first run compiles
    assert loaded() == "[]"


def test_the_parser_loaded_from_the_cache_is_the_one_built(fresh_cache: Path) -> None:
    from dsl import parser

    built = parser._lark.__wrapped__()  # type: ignore[attr-defined]
    assert [p.name for p in fresh_cache.glob("parser-*.lark")] != []
    loaded = parser._lark.__wrapped__()  # type: ignore[attr-defined]
    assert loaded.grammar is not None  # tools (the fuzzers' from_lark) read it
    text = (RULEBOOKS / "skirmish_terrain.rules").read_text(encoding="utf-8")
    assert loaded.parse(text, start="start") == built.parse(text, start="start")
