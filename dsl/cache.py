"""Compiled rulebooks kept between runs, so that `resolve`, `describe` and `list` of a rulebook
that has not changed import its resolver module instead of compiling the rulebook again.

An entry is keyed by the SHA-256 of the rulebook's bytes and file name and of the compiler that
built it (the names, sizes and modification times of the files of the `dsl` package and of the
grammar, and the Python version): an edited rulebook, or another rulecraft, never reads an
entry made for something else.  An entry is a directory `KEY/` that holds the generated module
(`NAME.py`), its bytecode (`module.code`) and `facts.pickle` (what `list` and
`describe` print, computed once); it is written whole in a temporary directory and renamed into
place, so a reader finds a complete entry or none.

Where: $RULECRAFT_CACHE_DIR, else $XDG_CACHE_HOME/rulecraft, else ~/.cache/rulecraft
(%LOCALAPPDATA%/rulecraft on Windows).  RULECRAFT_CACHE_DIR set to an empty value turns the cache
off.  A cache that cannot be read or written is never an error: the command compiles, as it would
without one.

Only a rulebook that compiled without errors is kept; the others are compiled every time, so
their diagnostics are always printed.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dsl.compiler import Compiled

CACHE_VARIABLE = "RULECRAFT_CACHE_DIR"

_FORMAT = b"rulecraft cache 1\0"
"""Changes whenever the layout of an entry does."""

_FACTS = "facts.pickle"
_CODE = "module.code"  # the module's bytecode (marshal; the key includes the Python version)
_MAX_BYTES = 10 * 1024 * 1024  # as dsl.compiler.MAX_FILE_BYTES: a larger file is compiled (and refused) as usual


def cache_dir() -> Path | None:
    """Where entries are kept; None when the cache is turned off."""
    configured = os.environ.get(CACHE_VARIABLE)
    if configured is not None:
        return Path(configured) if configured else None
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "rulecraft"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rulecraft"


@functools.cache
def compiler_fingerprint() -> bytes:
    """The compiler as it is installed: every file of the `dsl` package and the grammar, by name,
    size and modification time (a stat each; nothing is read)."""
    from dsl.resources import grammar_path

    package = Path(__file__).resolve().parent
    grammar = grammar_path().stat()
    found: list[str] = [sys.version, f"grammar {grammar.st_size} {grammar.st_mtime_ns}"]
    pending = [package]
    while pending:
        folder = pending.pop()
        with os.scandir(folder) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        pending.append(Path(entry.path))
                elif entry.name.endswith((".py", ".lark", ".j2", ".jinja")):
                    info = entry.stat()
                    found.append(f"{Path(entry.path).relative_to(package)} {info.st_size} {info.st_mtime_ns}")
    return "\n".join(found).encode("utf-8", "surrogateescape")


def entry_key(path: Path, data: bytes) -> str:
    digest = hashlib.sha256(_FORMAT)
    digest.update(compiler_fingerprint())
    digest.update(b"\0" + path.name.encode("utf-8", "surrogateescape") + b"\0")
    digest.update(data)
    return digest.hexdigest()


@dataclass
class Facts:
    """What `list` and `describe` print of a rulebook, as plain data."""

    name: str
    listing: dict[str, Any]
    described: dict[str, dict[str, Any]]


@dataclass
class Entry:
    """A compiled rulebook: its resolver module and its facts, each loaded when first asked for."""

    load_module: Callable[[], ModuleType]
    load_facts: Callable[[], Facts]
    _module: ModuleType | None = field(default=None, repr=False)
    _facts: Facts | None = field(default=None, repr=False)

    @property
    def module(self) -> ModuleType:
        if self._module is None:
            self._module = self.load_module()
        return self._module

    @property
    def facts(self) -> Facts:
        if self._facts is None:
            self._facts = self.load_facts()
        return self._facts


def _read(path: Path) -> bytes | None:
    """The bytes of a regular file of reasonable size; None for anything else (compiled as usual,
    which reports what is wrong with it)."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    return data if len(data) <= _MAX_BYTES else None


def find(path: Path) -> Entry | None:
    """The entry for the rulebook at `path` as it is now; None when there is none."""
    root = cache_dir()
    data = _read(path) if root is not None else None
    if root is None or data is None:
        return None
    folder = root / entry_key(path, data)
    try:
        modules = [p for p in folder.iterdir() if p.suffix == ".py"]
    except OSError:
        return None
    if len(modules) != 1 or not (folder / _FACTS).is_file() or not (folder / _CODE).is_file():
        return None
    return Entry(lambda: _import(modules[0], folder / _CODE), lambda: _unpickle(folder / _FACTS))


def _import(file: Path, code_file: Path) -> ModuleType:
    """The generated module at `file`, run from its bytecode, under a private name (not left in
    sys.modules); a traceback through it quotes `file`."""
    import marshal

    code = marshal.loads(code_file.read_bytes())
    name = f"_rulecraft_cached_{file.stem}"
    module = ModuleType(name)
    module.__file__ = str(file)
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    finally:
        del sys.modules[name]
    return module


def _unpickle(file: Path) -> Facts:
    import pickle

    with file.open("rb") as handle:
        facts = pickle.load(handle)
    assert isinstance(facts, Facts)
    return facts


def facts_of(compiled: Compiled, module: ModuleType) -> Facts:
    """What `list` and `describe` print of a compiled rulebook."""
    from dsl.describe import describe_data, list_data

    book = compiled.book
    assert book is not None
    described = {
        name: describe_data(book, name, [module.INPUTS[read] for read in info.reads], module)
        for name, info in module.RULES.items()
    }
    return Facts(book.name, list_data(book), described)


def store(path: Path, compiled: Compiled) -> Entry:
    """The entry of a rulebook just compiled (without errors), kept for the next run when the
    cache can be written."""
    from dsl.compiler import generate, load_module

    book = compiled.book
    assert book is not None and compiled.ok
    source = generate(compiled)
    module = load_module(source, book.name)
    facts = facts_of(compiled, module)
    _keep(path, book.name, source, facts)
    return Entry(lambda: module, lambda: facts, module, facts)


def _keep(path: Path, name: str, source: str, facts: Facts) -> None:
    import marshal
    import pickle
    import shutil
    import tempfile

    root = cache_dir()
    data = _read(path) if root is not None else None
    if root is None or data is None:
        return
    folder = root / entry_key(path, data)
    if folder.exists():
        return
    try:
        root.mkdir(parents=True, exist_ok=True)
        temporary = Path(tempfile.mkdtemp(dir=root, prefix=f".{folder.name[:16]}.", suffix=".tmp"))
    except OSError:
        return
    try:
        (temporary / f"{name}.py").write_text(source, encoding="utf-8", newline="")
        code = compile(source, str(folder / f"{name}.py"), "exec", dont_inherit=True)
        (temporary / _CODE).write_bytes(marshal.dumps(code))
        (temporary / _FACTS).write_bytes(pickle.dumps(facts, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(temporary, folder)  # a directory: atomic, and refused when another process was first
    except (OSError, RecursionError, MemoryError):
        pass  # kept or not, the command goes on with what it compiled
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
