"""The stages joined: read a rulebook, parse, analyze, check, and emit or load its resolvers."""

from __future__ import annotations

import itertools
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path

from dsl import __version__
from dsl import model as m
from dsl.analysis import analyze
from dsl.checks import run_checks
from dsl.codes import Level
from dsl.diagnostics import Diagnostic, Reporter, Span, render
from dsl.emitter import emit
from dsl.parser import parse

SUFFIX = ".rules"


@dataclass
class Compiled:
    """A rulebook after checking: its model (when it parsed) and every diagnostic."""

    path: str
    text: str
    book: m.Book | None
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.book is not None and not any(d.severity is Level.ERROR for d in self.diagnostics)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Level.ERROR]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Level.WARNING]

    def render(self) -> str:
        lines = self.text.split("\n")
        return "\n".join(render(d, lines) for d in self.diagnostics)


def compile_text(text: str, path: str) -> Compiled:
    reporter = Reporter()
    tree = parse(text, path, reporter)
    book = None
    if tree is not None:
        book = analyze(tree, reporter)
        run_checks(book, reporter)
    return Compiled(path, text, book, reporter.sorted())


def compile_file(path: Path, shown: str | None = None) -> Compiled:
    shown = shown or display_path(path)
    reporter = Reporter()
    text = read_text(path, shown, reporter)
    if reporter.has_errors:
        return Compiled(shown, text or "", None, reporter.sorted())
    assert text is not None
    return compile_text(text, shown)


def read_text(path: Path, shown: str, reporter: Reporter) -> str | None:
    """A rulebook's text: UTF-8 (a byte-order mark is allowed), reported precisely when not.

    Text that is not UTF-8 is reported and returned with the bad bytes replaced by U+FFFD, so the
    diagnostic can show the line it is on; it is not compiled.
    """
    try:
        data = path.read_bytes()
    except OSError as error:
        reporter.report("E005", f"cannot read the file: {error.strerror or error}", Span(shown, 1, 1, 1, 1))
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        before = data[: error.start].decode("utf-8", errors="replace")
        line = before.count("\n") + 1
        column = len(before) - (before.rfind("\n") + 1) + 1
        byte = data[error.start]
        legacy = bytes([byte]).decode("cp1252", errors="replace")
        guess = f" (`{legacy}` in Windows-1252 or Latin-1)" if legacy.isprintable() and legacy != "\ufffd" else ""
        reporter.report(
            "E005",
            f"byte 0x{byte:02x}{guess} is not UTF-8 text",
            Span(shown, line, column, line, column + 1),
            "save the rulebook as UTF-8",
        )
        return data.decode("utf-8", errors="replace")


def display_path(path: Path) -> str:
    """A path as the user would recognise it: relative to the working directory when inside it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def generate(compiled: Compiled) -> str:
    """The Python resolver module of a rulebook that checked without errors."""
    assert compiled.book is not None and compiled.ok
    return emit(compiled.book, Path(compiled.path).name, __version__)


_counter = itertools.count()


def load_module(source: str, name: str) -> types.ModuleType:
    """Execute generated source as a fresh module (not left in sys.modules)."""
    module_name = f"_rulecraft_loaded_{name}_{next(_counter)}"
    module = types.ModuleType(module_name)
    module.__file__ = f"<rulecraft {name}>"
    sys.modules[module_name] = module
    try:
        exec(compile(source, module.__file__, "exec"), module.__dict__)
    finally:
        del sys.modules[module_name]
    return module


def rulebook_files(paths: list[Path]) -> list[Path]:
    """The rulebooks named: files as given, directories searched for *.rules, sorted."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(path.rglob(f"*{SUFFIX}")))
        else:
            found.append(path)
    unique: list[Path] = []
    for path in found:
        if path not in unique:
            unique.append(path)
    return unique
