"""Compiled rulebooks kept between runs, so that `resolve`, `describe` and `list` of a rulebook
that has not changed import its resolver module instead of compiling the rulebook again.

An entry is keyed by the SHA-256 of the rulebook's bytes and file name and of the compiler that
built it (the names, sizes and modification times of the files of the `dsl` package and of the
grammar, and the Python version): an edited rulebook, or another rulecraft, never reads an
entry made for something else.  The file is read once, and those bytes are both compiled and
hashed: a rulebook saved while it compiles is filed under the text that was compiled, never
under the new one.

An entry is a directory `KEY/` that holds the generated module (`NAME.py`, which tracebacks
quote), its bytecode (`module.code`, with the module's name and the source's size) and
`facts.json` (what `list` and `describe` print, computed once).  It is written whole in a
temporary directory, every file and the directory synced to disk, then renamed into place: a
reader finds a complete entry or none, even after a power cut.  An entry that cannot be loaded
anyway (cut short, corrupt, of another format, anything) is a miss: the rulebook is compiled as
if there were none, and the entry replaced.

Where: $RULECRAFT_CACHE_DIR, else $XDG_CACHE_HOME/rulecraft, else ~/.cache/rulecraft
(%LOCALAPPDATA%/rulecraft on Windows).  RULECRAFT_CACHE_DIR set to an empty value turns the cache
off.  A cache that cannot be read or written is never an error: the command compiles, as it would
without one.

What is loaded from the cache is run (the module's bytecode, lark's parser tables), so only what
the user wrote is loaded.  The root is created 0700; a root or an entry directory that is a
symbolic link, and a root, an entry or a file that belongs to another user or that group or
others may write, is not used: the command compiles as usual and says why, once, on stderr.
Files are opened without following links and checked on the open descriptor, so what is read is
what was checked.  The facts are JSON, which cannot run code.  Lark's parser tables are lark's own
pickle (`Lark.save`, `Lark.load`): rewriting them in a safe format would mean depending on lark's
internal layout of its tables, so instead they are kept like an entry (written whole and synced,
mode 0600) and read only through a descriptor checked like an entry's files, in a checked root
no one else can write to.  (On Windows, where POSIX owners and modes do not apply, the default
root lies in the user's own profile.)

Only a rulebook that compiled without errors is kept; the others are compiled every time, so
their diagnostics are always printed.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

from dsl.files import UnreadableFile, read_regular_file
from dsl.store import (
    Identity,
    identity,
    read_own,
    refused,
    sync_directory,
    trusted_root,
    write_new,
)

if TYPE_CHECKING:
    from dsl.compiler import Compiled

_FORMAT = "rulecraft cache 2"
"""Changes whenever the layout of an entry does; part of the key, and written in each file."""

_FACTS = "facts.json"
_CODE = "module.code"  # (format, name, source size, bytecode), marshalled; the key includes the Python version

T = TypeVar("T")


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
    digest = hashlib.sha256(_FORMAT.encode("ascii") + b"\0")
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

    def to_data(self) -> dict[str, Any]:
        return {"format": _FORMAT, "name": self.name, "listing": self.listing, "described": self.described}

    @classmethod
    def from_data(cls, data: object) -> Facts:
        """The facts of `to_data`; ValueError for anything else."""
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            raise ValueError("not rulecraft's facts")
        name, listing, described = data.get("name"), data.get("listing"), data.get("described")
        if not (isinstance(name, str) and isinstance(listing, dict) and isinstance(described, dict)):
            raise ValueError("not rulecraft's facts")
        if not all(isinstance(rule, str) and isinstance(facts, dict) for rule, facts in described.items()):
            raise ValueError("not rulecraft's facts")
        return cls(name, listing, described)


@dataclass
class Entry:
    """A compiled rulebook: its resolver module and its facts, each loaded when first asked for.
    A part that cannot be loaded from the cache is no error: `rebuild` compiles the rulebook
    again (and replaces the entry), and the part is taken from what it built."""

    load_module: Callable[[], ModuleType]
    load_facts: Callable[[], Facts]
    rebuild: Callable[[], Entry] | None = None
    _module: ModuleType | None = field(default=None, repr=False)
    _facts: Facts | None = field(default=None, repr=False)
    _rebuilt: Entry | None = field(default=None, repr=False)

    @property
    def module(self) -> ModuleType:
        if self._module is None:
            self._module = self._load(self.load_module, lambda entry: entry.module)
        return self._module

    @property
    def facts(self) -> Facts:
        if self._facts is None:
            self._facts = self._load(self.load_facts, lambda entry: entry.facts)
        return self._facts

    def _load(self, load: Callable[[], T], part: Callable[[Entry], T]) -> T:
        try:
            return load()
        except Exception:  # anything wrong with a kept file is a miss
            if self.rebuild is None:
                raise
        if self._rebuilt is None:
            self._rebuilt = self.rebuild()
        return part(self._rebuilt)


def read(path: Path) -> bytes | None:
    """The bytes of the rulebook at `path`, read once: they are what is compiled and what keys
    the entry.  None when it cannot be read as a rulebook (compiling it reports why)."""
    try:
        return read_regular_file(path)
    except UnreadableFile:
        return None


def entry(path: Path, compile_bytes: Callable[[bytes | None], Compiled]) -> Entry:
    """The rulebook at `path`, compiled: from its cache entry when there is one, else
    `compile_bytes(data)` of the bytes read (None when they could not be read: it reports why),
    kept for the next run.  `compile_bytes` returns only a rulebook without errors (it ends the
    command otherwise)."""
    data = read(path)
    if data is None:
        return _built(path, None, compile_bytes(None), None)
    root = trusted_root(create=False)
    found, there = _look(root / entry_key(path, data)) if root is not None else (None, None)
    if found is None:
        return _built(path, data, compile_bytes(data), there)
    found.rebuild = lambda: _built(path, data, compile_bytes(data), there)
    return found


def find(path: Path, data: bytes) -> Entry | None:
    """The entry for the rulebook whose bytes are `data`; None when there is none the user may
    load.  Its parts are loaded when asked for (and raise if they cannot be)."""
    root = trusted_root(create=False)
    return _look(root / entry_key(path, data))[0] if root is not None else None


"""A directory entry's device and inode: which entry a process looked at."""


def _look(folder: Path) -> tuple[Entry | None, Identity | None]:
    """The entry in `folder`, if the user may load it, and what is there (to be replaced if it
    cannot be loaded)."""
    try:
        info = os.lstat(folder)
    except OSError:
        return None, None
    there = (info.st_dev, info.st_ino)
    if refused(folder, info, directory=True):
        return None, there
    return Entry(lambda: _load_module(folder), lambda: _load_facts(folder)), there


def _load_module(folder: Path) -> ModuleType:
    """The generated module kept in `folder`, run from its bytecode, under a private name (not
    left in sys.modules); a traceback through it quotes NAME.py."""
    import marshal

    kept = marshal.loads(read_own(folder / _CODE))
    if not (isinstance(kept, tuple) and len(kept) == 4 and kept[0] == _FORMAT):
        raise ValueError(f"{folder / _CODE}: not rulecraft's bytecode")
    _, name, size, code = kept
    if not (isinstance(name, str) and name.isidentifier() and isinstance(code, CodeType)):
        raise ValueError(f"{folder / _CODE}: not rulecraft's bytecode")
    file = folder / f"{name}.py"
    if os.lstat(file).st_size != size:
        raise ValueError(f"{file}: not the source the bytecode was compiled from")
    module_name = f"_rulecraft_cached_{name}"
    module = ModuleType(module_name)
    module.__file__ = str(file)
    sys.modules[module_name] = module
    try:
        exec(code, module.__dict__)
    finally:
        del sys.modules[module_name]
    return module


def _load_facts(folder: Path) -> Facts:
    import json

    return Facts.from_data(json.loads(read_own(folder / _FACTS)))


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


def _built(path: Path, data: bytes | None, compiled: Compiled, there: Identity | None) -> Entry:
    """The entry of a rulebook just compiled (without errors) from `data`, kept for the next run
    when the cache can be written; `there` is the entry looked at before compiling, which this
    one replaces (None: one put there meanwhile by another process is kept)."""
    from dsl.compiler import generate, load_module

    book = compiled.book
    assert book is not None and compiled.ok
    source = generate(compiled)
    module = load_module(source, book.name)
    facts = facts_of(compiled, module)
    root = trusted_root(create=True) if data is not None else None
    if root is not None:
        assert data is not None
        _keep(root / entry_key(path, data), book.name, source, facts, there)
    return Entry(lambda: module, lambda: facts, None, module, facts)


def _keep(folder: Path, name: str, source: str, facts: Facts, there: Identity | None) -> None:
    import json
    import marshal
    import shutil
    import tempfile

    root = folder.parent
    try:
        temporary = Path(tempfile.mkdtemp(dir=root, prefix=f".{folder.name[:16]}.", suffix=".tmp"))
    except OSError:
        return
    aside: Path | None = None
    try:
        facts_data = facts.to_data()
        facts_text = json.dumps(facts_data, ensure_ascii=False)
        if json.loads(facts_text) != facts_data:
            return  # JSON would not give them back as they are (a tuple, a number as a key): not kept
        encoded = source.encode("utf-8")
        code = compile(source, str(folder / f"{name}.py"), "exec", dont_inherit=True)
        write_new(temporary / f"{name}.py", encoded)
        write_new(temporary / _CODE, marshal.dumps((_FORMAT, name, len(encoded), code)))
        write_new(temporary / _FACTS, facts_text.encode("utf-8"))
        sync_directory(temporary)
        try:
            os.rename(temporary, folder)  # refused when an entry is there
        except OSError:
            if there is None or identity(folder) != there:
                return  # another process kept it first
            aside = Path(tempfile.mkdtemp(dir=root, prefix=f".{folder.name[:16]}.", suffix=".old"))
            os.rename(folder, aside / "entry")  # the one that could not be loaded, out of the way
            os.rename(temporary, folder)
        sync_directory(root)
    except (OSError, TypeError, ValueError, RecursionError, MemoryError):
        pass  # kept or not, the command goes on with what it compiled
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
        if aside is not None:
            shutil.rmtree(aside, ignore_errors=True)


