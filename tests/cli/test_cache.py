"""The cache of compiled rulebooks (dsl/cache.py) keeps what was compiled under the bytes that
were compiled, survives any damage to its files, and loads nothing another user could have
written: regression tests of the reproducers cache_race.sh, cache_corrupt.sh and cache_plant.sh,
and processes compiling and reading one rulebook at once while it changes."""

from __future__ import annotations

import json
import marshal
import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import dsl.cli as cli
from tests.conftest import ROOT, run_cli

RULEBOOK = """rulebook tiny "Tiny":
    source "s"

stat DEX "Dexterity": int 0..30 = 10
input x "X": int 0..30 = 0

rule climb "Climb" cites "1":
    DEX -{amount} "version {amount}"
"""

BROKEN = RULEBOOK.replace('"version {amount}"', '"version {amount}" +')

FOREIGN = 65534  # nobody: the tests run as root, which may give a file away

_CHILD = """
import contextlib, io, json, sys, time
from dsl.cli import main
commands, deadline = json.loads(sys.argv[1]), float(sys.argv[2])
while True:
    for args in commands:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(args, prog_name="rulecraft")
                code = 0
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else 1
        print(json.dumps({"exit": code, "stdout": out.getvalue(), "stderr": err.getvalue()}), flush=True)
    if time.time() >= deadline:
        break
"""
"""Runs rulecraft commands in one process (again and again until the deadline, if one is given),
printing each one's exit code and output as a line of JSON."""


def _start(commands: list[list[str]], env: dict[str, str], deadline: float = 0) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _CHILD, json.dumps(commands), str(deadline)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, **env},
    )


def _results(process: subprocess.Popen[str]) -> list[dict[str, object]]:
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    return [json.loads(line) for line in out.splitlines()]


def _rulecraft(commands: list[list[str]], root: Path) -> list[dict[str, object]]:
    """Each command's exit code and output, run one after the other in a new process."""
    return _results(_start(commands, {"RULECRAFT_CACHE_DIR": str(root)}))


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("RULECRAFT_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def book(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.rules"
    path.write_text(RULEBOOK.format(amount=1), encoding="utf-8")
    return path


def _entries(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


def _dex(output: str) -> int:
    """DEX after `resolve BOOK climb --json`, checked against the label of the modifier that made
    it: the answer of one version of the text, not a mix of two."""
    data = json.loads(output)
    final = int(data["stats"]["DEX"]["final"])
    assert [m["label"] for m in data["modifiers"]] == [f"version {10 - final}"]
    return final


def _resolved(book: Path) -> int:
    result = run_cli("resolve", str(book), "climb", "--json")
    assert result.exit_code == 0, result.output
    return _dex(result.stdout)


def _refuse_to_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> object:
        raise AssertionError("compiled again")

    monkeypatch.setattr(cli, "compile_file", refuse)


def _commands(book: Path) -> list[tuple[str, ...]]:
    return [("resolve", str(book), "climb"), ("describe", str(book), "climb"), ("list", str(book))]


def _uncached(book: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the commands print without a cache."""
    previous = os.environ["RULECRAFT_CACHE_DIR"]
    monkeypatch.setenv("RULECRAFT_CACHE_DIR", "")
    try:
        return [run_cli(*command).stdout for command in _commands(book)]
    finally:
        monkeypatch.setenv("RULECRAFT_CACHE_DIR", previous)


def _kept_entry(book: Path, root: Path) -> Path:
    assert run_cli("list", str(book)).exit_code == 0  # compiles, and keeps the entry
    (entry,) = _entries(root)
    return entry


# ---------------------------------------------------------------------- cache_race.sh


def test_a_save_during_the_compile_files_the_entry_under_the_text_compiled(
    book: Path, fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cache_race.sh: the designer saves a broken rulebook while `resolve` compiles the old one.
    That run answers for the text it compiled; the next one compiles the broken text and reports
    its errors, as `check` does; the old text, back, is found in the cache."""
    compile_file = cli.compile_file

    def saved_meanwhile(path: Path, data: bytes | None = None) -> object:
        compiled = compile_file(path, data)
        path.write_text(BROKEN.format(amount=5), encoding="utf-8")
        return compiled

    monkeypatch.setattr(cli, "compile_file", saved_meanwhile)
    assert _resolved(book) == 9
    monkeypatch.setattr(cli, "compile_file", compile_file)
    result = run_cli("resolve", str(book), "climb")
    assert result.exit_code == 1
    assert "error[E001]" in result.stderr
    assert run_cli("check", str(book)).exit_code == 1
    book.write_text(RULEBOOK.format(amount=1), encoding="utf-8")
    _refuse_to_compile(monkeypatch)
    assert _resolved(book) == 9


# ---------------------------------------------------------------------- cache_corrupt.sh


@pytest.mark.parametrize(
    ("name", "damage"),
    [
        (name, damage)
        for name in ("tiny.py", "module.code", "facts.json")
        for damage in ("empty", "half", "flipped")
        if (name, damage) != ("tiny.py", "flipped")  # the source is only quoted by tracebacks
    ],
)
def test_a_damaged_entry_is_compiled_again_and_replaced(
    name: str, damage: str, book: Path, fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cache_corrupt.sh: a file of an entry cut short (or its bytes flipped) is a miss, never an
    internal error: the commands print what they print without a cache, and the entry is written
    anew."""
    fresh = _uncached(book, monkeypatch)
    file = _kept_entry(book, fresh_cache) / name
    data = file.read_bytes()
    damaged = {"empty": b"", "half": data[: len(data) // 2], "flipped": bytes(b ^ 0xFF for b in data)}
    file.write_bytes(damaged[damage])
    results = [run_cli(*command) for command in _commands(book)]
    assert [(r.exit_code, r.stderr) for r in results] == [(0, "")] * 3
    assert [r.stdout for r in results] == fresh
    (entry,) = _entries(fresh_cache)
    assert (entry / name).read_bytes() == data  # replaced, whole
    assert [p.name for p in fresh_cache.iterdir() if p.name.startswith(".")] == []
    _refuse_to_compile(monkeypatch)
    assert [run_cli(*command).stdout for command in _commands(book)] == fresh


def test_an_entry_of_another_format_is_a_miss(book: Path, fresh_cache: Path) -> None:
    """Files of an entry that are not what rulecraft writes (facts of another shape, bytecode
    without its header) are a miss too."""
    entry = _kept_entry(book, fresh_cache)
    (entry / "facts.json").write_text(json.dumps({"format": "rulecraft cache 2", "name": 3}), encoding="utf-8")
    (entry / "module.code").write_bytes(marshal.dumps(compile("x = 1", "other", "exec")))
    assert run_cli("list", str(book)).exit_code == 0
    assert _resolved(book) == 9


def test_a_damaged_parser_file_is_built_again_and_replaced(tmp_path: Path, book: Path) -> None:
    """cache_corrupt.sh, for lark's parser tables kept beside the entries: cut short, they are
    built again (no error, nothing on stderr) and the file is written whole: the next run loads it."""
    root = tmp_path / "cache"
    (first,) = _rulecraft([["check", str(book)]], root)
    assert first["exit"] == 0, first
    (saved,) = root.glob("parser-*.lark")
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    data = saved.read_bytes()
    saved.write_bytes(data[: len(data) // 3])
    assert _rulecraft([["check", str(book)]], root) == [first]
    replaced = saved.stat()
    assert replaced.st_size >= len(data) // 2
    assert _rulecraft([["check", str(book)]], root) == [first]
    assert (saved.stat().st_ino, saved.stat().st_mtime_ns) == (replaced.st_ino, replaced.st_mtime_ns)  # loaded


def test_the_reserved_words_are_kept_and_a_damaged_file_is_worked_out_again(tmp_path: Path, book: Path) -> None:
    """The words a name may not take come from a second build of the grammar's tables: kept beside
    the parser's (a run after the first reads them); cut short or not a list of words, they are
    worked out again and the file replaced."""
    root = tmp_path / "cache"
    (first,) = _rulecraft([["check", str(book)]], root)
    (saved,) = root.glob("reserved-*.json")
    words = json.loads(saved.read_text(encoding="utf-8"))
    assert {"roll", "and", "note"} <= set(words) and stat.S_IMODE(saved.stat().st_mode) == 0o600
    for damage in (saved.read_bytes()[:20], b'["a b", 1]'):
        saved.write_bytes(damage)
        assert _rulecraft([["check", str(book)]], root) == [first]
        assert json.loads(saved.read_text(encoding="utf-8")) == words


def test_the_cache_is_private_to_its_user(book: Path, fresh_cache: Path) -> None:
    entry = _kept_entry(book, fresh_cache)
    assert stat.S_IMODE(fresh_cache.stat().st_mode) == 0o700
    assert stat.S_IMODE(entry.stat().st_mode) == 0o700
    assert {p.name: stat.S_IMODE(p.stat().st_mode) for p in entry.iterdir()} == {
        "tiny.py": 0o600,
        "module.code": 0o600,
        "facts.json": 0o600,
    }


# ---------------------------------------------------------------------- cache_plant.sh


def _plant(entry: Path, mark: Path) -> None:
    """Turn a kept entry into one another user could have planted: in rulecraft's own layout,
    its module leaves `mark` when run (and a facts.pickle, as the cache once read, would too)."""
    kept = marshal.loads((entry / "module.code").read_bytes())
    code = compile(f"open({str(mark)!r}, 'a').write('module.code ran\\n')\n", "planted", "exec")
    (entry / "module.code").write_bytes(marshal.dumps((*kept[:-1], code)))
    (entry / "facts.pickle").write_bytes(f"cos\nsystem\n(S'echo pickle ran >> {mark}'\ntR.".encode())


def _give_away(*paths: Path) -> None:
    for path in paths:
        os.chown(path, FOREIGN, FOREIGN, follow_symlinks=False)


def _foreign_entry(root: Path, entry: Path) -> tuple[Path, str]:
    _give_away(entry, *entry.iterdir())
    return entry, "it belongs to another user"


def _foreign_file(root: Path, entry: Path) -> tuple[Path, str]:
    _give_away(entry / "module.code")
    return entry / "module.code", "it belongs to another user"


def _writable_file(root: Path, entry: Path) -> tuple[Path, str]:
    (entry / "module.code").chmod(0o666)
    return entry / "module.code", "it is writable by other users"


def _writable_entry(root: Path, entry: Path) -> tuple[Path, str]:
    entry.chmod(0o777)
    return entry, "it is writable by other users"


def _shared_root(root: Path, entry: Path) -> tuple[Path, str]:
    root.chmod(0o1777)
    _give_away(entry, *entry.iterdir())
    return root, "it is writable by other users"


def _group_root(root: Path, entry: Path) -> tuple[Path, str]:
    root.chmod(0o770)
    return root, "it is writable by other users"


def _foreign_root(root: Path, entry: Path) -> tuple[Path, str]:
    _give_away(root, entry, *entry.iterdir())
    return root, "it belongs to another user"


def _linked_entry(root: Path, entry: Path) -> tuple[Path, str]:
    entry.rename(root.with_name("planted"))
    entry.symlink_to(root.with_name("planted"))
    return entry, "it is a symbolic link"


def _linked_root(root: Path, entry: Path) -> tuple[Path, str]:
    root.rename(root.with_name("elsewhere"))
    root.symlink_to(root.with_name("elsewhere"))
    return root, "it is a symbolic link"


@pytest.mark.parametrize(
    "plant",
    [
        _foreign_entry,
        _foreign_file,
        _writable_file,
        _writable_entry,
        _linked_entry,
        _shared_root,
        _group_root,
        _foreign_root,
        _linked_root,
    ],
)
def test_a_planted_entry_is_not_loaded(
    plant: Callable[[Path, Path], tuple[Path, str]],
    tmp_path: Path,
    book: Path,
    fresh_cache: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """cache_plant.sh: an entry, or a whole cache, that another user owns or can write (or a
    root that is a symbolic link) is not loaded: the commands compile as usual and say why once;
    an entry in the user's own cache is replaced."""
    fresh = _uncached(book, monkeypatch)
    mark = tmp_path / "PWNED"
    entry = _kept_entry(book, fresh_cache)
    _plant(entry, mark)
    run_cli("resolve", str(book), "climb")  # the user's own entry is trusted: the plant works
    assert mark.read_text(encoding="utf-8") == "module.code ran\n"
    mark.unlink()

    where, why = plant(fresh_cache, entry)
    results = [run_cli(*command) for command in _commands(book)]
    assert [r.exit_code for r in results] == [0, 0, 0]
    assert [r.stdout for r in results] == fresh
    assert "".join(r.stderr for r in results) == f"rulecraft: not using the cache at {where}: {why}\n"
    assert not mark.exists()
    if where != fresh_cache:  # in the user's own cache, the entry was replaced
        (entry,) = _entries(fresh_cache)
        assert entry.stat().st_uid == os.geteuid() and stat.S_IMODE(entry.stat().st_mode) == 0o700
        assert {p.name for p in entry.iterdir()} == {"tiny.py", "module.code", "facts.json"}
        _refuse_to_compile(monkeypatch)
        assert [run_cli(*command).stdout for command in _commands(book)] == fresh
        assert not mark.exists()


def test_a_cache_in_a_shared_xdg_cache_home_is_made_private(
    tmp_path: Path, book: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cache_plant.sh with XDG_CACHE_HOME in a folder everyone may write: rulecraft makes its
    own folder there, 0700, and uses it; one planted there first by another user is not used."""
    shared = tmp_path / "xdg"
    shared.mkdir(mode=0o1777)
    shared.chmod(0o1777)
    monkeypatch.delenv("RULECRAFT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared))
    root = shared / "rulecraft"
    assert _resolved(book) == 9
    assert stat.S_IMODE(root.stat().st_mode) == 0o700 and len(_entries(root)) == 1
    shutil.rmtree(root)
    root.mkdir(mode=0o755)
    _give_away(root)
    result = run_cli("resolve", str(book), "climb", "--json")
    assert result.exit_code == 0 and _dex(result.stdout) == 9
    assert result.stderr == f"rulecraft: not using the cache at {root}: it belongs to another user\n"
    assert list(root.iterdir()) == []


@pytest.mark.parametrize("plant", ["foreign", pytest.param("group-writable", marks=pytest.mark.slow)])
def test_a_planted_parser_file_is_not_loaded(plant: str, tmp_path: Path, book: Path) -> None:
    """cache_plant.sh, for lark's parser tables, a pickle kept in the same folder: one another
    user owns or can write is not loaded (by `check` or `fmt`, which parse), and is replaced."""
    root = tmp_path / "cache"
    commands = [["check", str(book)], ["fmt", "--check", str(book)]]
    clean = _rulecraft(commands, root)
    (saved,) = root.glob("parser-*.lark")
    mark = tmp_path / "PWNED"
    pickle = f"cos\nsystem\n(S'echo pickle ran >> {mark}'\ntR.".encode()
    saved.write_bytes(pickle)
    _rulecraft(commands[:1], root)  # the user's own file is trusted: the plant works
    assert mark.read_text(encoding="utf-8") == "pickle ran\n"
    mark.unlink()

    saved.write_bytes(pickle)
    if plant == "foreign":
        _give_away(saved)
        why = "it belongs to another user"
    else:
        saved.chmod(0o664)
        why = "it is writable by other users"
    results = _rulecraft(commands, root)
    assert not mark.exists()
    assert [(r["exit"], r["stdout"]) for r in results] == [(r["exit"], r["stdout"]) for r in clean]
    said = f"rulecraft: not using the cache at {saved}: {why}\n"
    assert "".join(str(r["stderr"]) for r in results) == said + "".join(str(r["stderr"]) for r in clean)
    assert saved.stat().st_uid == os.geteuid() and stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert saved.read_bytes() != pickle


# ---------------------------------------------------------------------- processes at once


def _padded(text: str) -> str:
    """A rulebook that takes a while to compile: the file changes while processes compile it."""
    return text + "".join(
        f'\nrule pad{i} "Pad {i}" cites "1":\n    when x > {i % 30}: DEX -1 "p{i}"\n' for i in range(120)
    )


@pytest.mark.parametrize(
    ("processes", "seconds"), [(3, 1.5), pytest.param(6, 20.0, marks=pytest.mark.slow)], ids=["short", "soak"]
)
def test_processes_compiling_and_reading_a_changing_rulebook(
    processes: int, seconds: float, book: Path, fresh_cache: Path
) -> None:
    """Several processes resolve one rulebook again and again while it is saved, in turn, in
    three versions and a broken one: each answer is that of one whole version, a broken text
    gets its errors, no process fails otherwise, and afterwards every entry answers for its own
    text."""
    versions = [_padded(RULEBOOK.format(amount=k)) for k in (1, 2, 3)] + [_padded(BROKEN.format(amount=4))]
    book.write_text(versions[0], encoding="utf-8")
    deadline = time.time() + seconds
    readers = [
        _start([["resolve", str(book), "climb", "--json"]], {"RULECRAFT_CACHE_DIR": str(fresh_cache)}, deadline)
        for _ in range(processes)
    ]
    saved = 0
    while time.time() < deadline:
        saving = book.with_suffix(".saving")
        saving.write_text(versions[saved % len(versions)], encoding="utf-8")
        os.replace(saving, book)  # as an editor saves: the reader finds the old file or the new one
        saved += 1
        time.sleep(0.05)
    answers: list[int] = []
    for reader in readers:
        results = _results(reader)
        assert results
        for result in results:
            assert "internal error" not in str(result["stderr"]) and "Traceback" not in str(result["stderr"])
            if result["exit"] == 0:
                answers.append(_dex(str(result["stdout"])))
            else:  # the broken version, under --json: the error as JSON on stdout
                error = json.loads(str(result["stdout"]))["error"]
                assert result["exit"] == 1 and error["code"] == "rulebook-errors", result
                assert "E001" in {d["code"] for d in error["diagnostics"]}, result
    assert set(answers) <= {9, 8, 7}
    for amount, text in zip((1, 2, 3), versions, strict=False):
        book.write_text(text, encoding="utf-8")
        assert _resolved(book) == 10 - amount
    book.write_text(versions[3], encoding="utf-8")
    assert run_cli("resolve", str(book), "climb").exit_code == 1
    assert len(_entries(fresh_cache)) <= 3
    assert [p.name for p in fresh_cache.iterdir() if p.name.startswith(".")] == []
