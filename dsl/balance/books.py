"""The rulebooks a sweep resolves: compiled from their text and loaded as resolver modules.

A sweep reads its numbers from the same generated module an app imports (never from a second
evaluator), so a chart can never disagree with the rulebook: the module's source is kept, too,
for worker processes to load the very same code.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from dsl import model as m
from dsl.compiler import Compiled, compile_file, generate, load_module, rulebook_files
from dsl.resources import bundled_rulebooks_dir

EDITIONS_KEPT = 8
"""Compiled editions kept in memory (a large one holds a few megabytes)."""


class BalanceError(ValueError):
    """A request a sweep or chart cannot answer as asked (an unknown name, a value out of range,
    a product over the bound): the command line reports it as bad usage, exit 2."""


class RulebookErrors(Exception):
    """A rulebook that does not compile: its diagnostics are the message (exit 1)."""

    def __init__(self, compiled: Compiled) -> None:
        super().__init__(f"{compiled.path} has errors; fix them first (rulecraft check {compiled.path})")
        self.compiled = compiled


@dataclass(frozen=True)
class Edition:
    """One rulebook as a sweep sees it: its checked model, its resolver module and that module's
    source (what a worker process loads)."""

    path: str
    model: m.Book
    module: ModuleType
    source: str

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def stem(self) -> str:
        return Path(self.path).stem


def find_rulebook(book: str | Path) -> Path:
    """BOOK is a rulebook path, or the name of a bundled rulebook (as for every command)."""
    path = Path(book)
    if path.is_dir():
        raise BalanceError(f"`{book}` is a directory; BOOK is one rulebook file, or the name of a bundled rulebook")
    if path.exists():
        return path
    bundled = bundled_rulebooks_dir()
    candidates = {p.stem: p for p in rulebook_files([bundled])} if bundled.is_dir() else {}
    if str(book) not in candidates:
        known = ", ".join(sorted(candidates)) or "none"
        raise BalanceError(f"no rulebook file `{book}` and no bundled rulebook of that name (bundled: {known})")
    return candidates[str(book)]


def load_edition(book: str | Path) -> Edition:
    """Compile BOOK and load its resolver; RulebookErrors if it does not check.

    The last few editions loaded are kept, keyed by path and content: a script or notebook that
    sweeps one book again and again compiles it once, and an edited file is compiled anew.
    """
    path = find_rulebook(book)
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        digest = ""  # unreadable: compile_file reports why
    return _load(path, digest)


@functools.lru_cache(maxsize=EDITIONS_KEPT)
def _load(path: Path, digest: str) -> Edition:
    compiled = compile_file(path)
    if not compiled.ok or compiled.book is None:
        raise RulebookErrors(compiled)
    source = generate(compiled)
    return Edition(compiled.path, compiled.book, load_module(source, compiled.book.name), source)


def edition_of(compiled: Compiled, module: ModuleType | None = None) -> Edition:
    """The Edition of a rulebook compiled already (`rulecraft test` compiles it to check it);
    MODULE, its resolver, if loaded already."""
    if not compiled.ok or compiled.book is None:
        raise RulebookErrors(compiled)
    source = generate(compiled)
    if module is None:
        module = load_module(source, compiled.book.name)
    return Edition(compiled.path, compiled.book, module, source)
