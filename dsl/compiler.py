"""The stages joined: read a rulebook, parse, analyze, check, and emit or load its resolvers."""

from __future__ import annotations

import dataclasses
import itertools
import keyword
import linecache
import sys
import threading
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from dsl import __version__
from dsl import model as m
from dsl import nodes as n
from dsl.analysis import analyze
from dsl.backends.python import RUNTIME_PACKAGE, emit
from dsl.checks import run_checks
from dsl.codes import Level
from dsl.diagnostics import Diagnostic, Reporter, Span, render
from dsl.files import RECURSION_LIMIT, UnreadableFile, collector_tuned, limit_lock, read_regular_file, recursion_room
from dsl.files import SUFFIX as SUFFIX  # where rulebooks are: kept importable from here
from dsl.files import rulebook_files as rulebook_files
from dsl.parser import SHALLOW, parse, reserved_words

MAX_EXPRESSION_DEPTH = 1000
"""How deeply an expression may nest (`1 + 1 + ...` with 1000 terms nests 1000 deep).  Beyond it
the generated module would be more than Python (or ruff) can read."""

MAX_BLOCK_DEPTH = 500
"""How deeply `when` blocks may nest."""

_TRIAL_DEPTH = 50
"""Expressions nested deeper than this (real rulebooks stay near 10) are compiled to Python once
while checking, so `check` reports what `build` would stumble on (Python reads at most 200 nested
brackets)."""

assert 2 * SHALLOW + 1 <= _TRIAL_DEPTH and SHALLOW < MAX_BLOCK_DEPTH  # what `parse` leaves unmeasured is within both

_RECURSION_LIMIT = RECURSION_LIMIT
_STACK_BYTES = 256 * 1024 * 1024
_NESTED_TOO_DEEPLY = "this expression is nested too deeply to compile"
_NESTING_HINT = (
    "each operator of a long chain (`1 + 2 + ...`) adds a level: compute a part of it with"
    " `derive NAME = ...` and use NAME in its place"
)
_BLOCKS_HINT = "join the conditions of nested blocks with `and`: `when a and b:`"

T = TypeVar("T")


@dataclass
class Compiled:
    """A rulebook after checking: its model (when it parsed) and every diagnostic."""

    path: str
    text: str
    book: m.Book | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    name_span: Span | None = None
    """Where the header names the rulebook (`rulebook NAME`), when it parsed."""
    tree: n.Rulebook | None = None
    """The syntax tree the model was analyzed from (its expression nodes are the keys of
    `book.refs`), for tools that map positions to names: the language server."""

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
    """Parse, analyze and check a rulebook's text; every mistake is a diagnostic, never an exception."""
    with collector_tuned():
        return deep(_compile, normalize_newlines(text), path)


def _compile(text: str, path: str) -> Compiled:
    reporter = Reporter()
    try:
        nested: list[n.Declaration] = []
        tree = parse(text, path, reporter, nested)
        book = None
        name_span = None
        analyzed: n.Rulebook | None = None
        if tree is not None:
            name_span = tree.header.name.span
            _check_module_name(tree.header.name, reporter)
            analyzed, deepest = _within_depth(tree, reporter, nested)
            book = analyze(analyzed, reporter)
            run_checks(book, reporter)
            if deepest is not None and not reporter.has_errors:
                _trial_build(Compiled(path, text, book, reporter.sorted()), deepest, reporter)
    except RecursionError as error:
        reporter.report("E001", _NESTED_TOO_DEEPLY, _innermost_span(error, path), _NESTING_HINT)
        return Compiled(path, text, None, reporter.sorted())
    return Compiled(path, text, book, reporter.sorted(), name_span, analyzed)


def _check_module_name(name: n.Name, reporter: Reporter) -> None:
    """A rulebook names the Python module built from it, so the name must import as that module:
    not a keyword (`import class` is not Python), not a module of the standard library (`fractions.py`
    would shadow the `fractions` it imports, and an app's own imports of it).  Names the analysis
    refuses already (`_x`, words of the language) are left to it."""
    text = name.text
    if text.startswith("_") or text in reserved_words():
        return
    if keyword.iskeyword(text):
        what, why = "a Python keyword", f"`import {text}` is not Python"
    elif text in sys.stdlib_module_names:
        what, why = "a module of Python's standard library", "it would hide the standard one"
    else:
        return
    reporter.report(
        "E103",
        f"`{text}` is {what} and cannot name a rulebook",
        name.span,
        f"the module built from a rulebook takes its name, and {why}: call it e.g. `{text}_rules`",
    )


def compile_file(path: Path, shown: str | None = None, data: bytes | None = None) -> Compiled:
    """Compile the rulebook at `path`; `data`, when given, is its bytes read already (the cache
    keys its entry by the bytes compiled, so they are read once) and the file is not read again."""
    shown = shown or display_path(path)
    reporter = Reporter()
    text = read_text(path, shown, reporter, data)
    if reporter.has_errors:
        return Compiled(shown, text or "", None, reporter.sorted())
    assert text is not None
    return compile_text(text, shown)


def check_rulebook_names(compiled: list[Compiled]) -> None:
    """Two rulebooks compiled together may not share a name: each names a generated module.  The
    second is given an E102 at its header (in place, as every other diagnostic of its file)."""
    owners: dict[str, Compiled] = {}
    for item in compiled:
        if item.book is None or item.name_span is None:
            continue
        first = owners.setdefault(item.book.name, item)
        if first is item:
            continue
        where = f"{first.path} (line {first.name_span.line})" if first.name_span else first.path
        reporter = Reporter(list(item.diagnostics))
        reporter.report(
            "E102",
            f"two rulebooks are named `{item.book.name}`: {where} and this one",
            item.name_span,
            "each rulebook names its generated module: rename one of them",
        )
        item.diagnostics = reporter.sorted()


def normalize_newlines(text: str) -> str:
    """Windows (CRLF) and old Mac (CR) line endings read as the LF the language is written with."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def read_text(path: Path, shown: str, reporter: Reporter, data: bytes | None = None) -> str | None:
    """A rulebook's text (from `data`, its bytes, when read already): UTF-8 (a byte-order mark is
    allowed), reported precisely when not.

    Only a regular file of at most dsl.files.MAX_FILE_BYTES is read: a pipe, a device or a directory is
    reported, never waited on.  Text that is not UTF-8 is reported and returned with the bad bytes
    replaced by U+FFFD, so the diagnostic can show the line it is on; it is not compiled.
    """
    where = Span(shown, 1, 1, 1, 1)
    if data is None:
        data = _read_regular_file(path, shown, reporter)
    if data is None:
        return None
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        reporter.report("E005", "the file is UTF-32; save it as UTF-8", where)
        return None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        reporter.report("E005", "the file is UTF-16; save it as UTF-8", where)
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        before = normalize_newlines(data[: error.start].decode("utf-8", errors="replace"))
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


def _read_regular_file(path: Path, shown: str, reporter: Reporter) -> bytes | None:
    """The bytes of a regular file, or None with E005 reported."""
    try:
        return read_regular_file(path)
    except UnreadableFile as error:
        reporter.report("E005", error.message, Span(shown, 1, 1, 1, 1), error.hint)
        return None


# ---------------------------------------------------------------------------- deep nesting
#
# The parser's tree builder, the analyzer and the emitter recurse over expressions, so nesting
# costs stack.  They run in a thread with a large stack and a raised recursion limit; expressions
# and blocks nested beyond MAX_EXPRESSION_DEPTH / MAX_BLOCK_DEPTH are reported (E001) before
# analysis; and a RecursionError that still happens is reported at the innermost node it reached.


def deep(function: Callable[..., T], *args: object) -> T:
    """`function(*args)` with room to recurse: in a thread with a large stack (the main thread's
    may be as small as 1 MB), under a raised recursion limit.  Exceptions propagate."""
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            with recursion_room(_RECURSION_LIMIT):
                outcome.append(function(*args))
        except BaseException as error:  # handed to the caller's thread
            failure.append(error)

    thread = _thread(run)
    if thread is None:  # no thread to be had: run here, with the stack there is
        run()
    else:
        thread.join()
    if failure:
        raise failure[0]
    return outcome[0]


def _thread(run: Callable[[], None]) -> threading.Thread | None:
    with limit_lock:
        try:
            previous = threading.stack_size(_STACK_BYTES)
        except (ValueError, RuntimeError):
            previous = None
        try:
            thread = threading.Thread(target=run, name="rulecraft-compile", daemon=True)
            thread.start()
        except RuntimeError:
            return None
        finally:
            if previous is not None:
                threading.stack_size(previous)
    return thread


_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(node: n.Node) -> tuple[str, ...]:
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(f.name for f in dataclasses.fields(node) if f.name != "span")
    return names


@dataclass
class _Nesting:
    """How deeply a declaration nests: its deepest expression and its deepest `when` block."""

    height: int = 0
    deepest: n.Expr | None = None
    too_deep_block: n.WhenBlock | None = None


def _nesting(declaration: n.Node) -> _Nesting:
    """One walk, without recursing (the point is to measure what recursion could not take)."""
    found = _Nesting()
    # (node, `when` blocks around it, its depth within its expression or 0, that expression)
    stack: list[tuple[n.Node, int, int, n.Expr | None]] = [(declaration, 0, 0, None)]
    push = stack.append
    while stack:
        node, blocks, depth, root = stack.pop()
        if isinstance(node, n.Expr):
            if root is None:
                root, depth = node, 0
            depth += 1
            if depth > found.height:
                found.height, found.deepest = depth, root
        elif isinstance(node, n.WhenBlock):
            blocks += 1
            if blocks > MAX_BLOCK_DEPTH and found.too_deep_block is None:
                found.too_deep_block = node
        names = _FIELDS.get(type(node)) or _field_names(node)
        for name in names:  # the children, in order
            value = getattr(node, name)
            if isinstance(value, n.Node):
                push((value, blocks, depth, root))
            elif type(value) is tuple:
                for item in value:
                    if isinstance(item, n.Node):
                        push((item, blocks, depth, root))
    return found


def _within_depth(
    tree: n.Rulebook, reporter: Reporter, nested: list[n.Declaration] | None = None
) -> tuple[n.Rulebook, n.Expr | None]:
    """The rulebook without the declarations that nest too deeply (each reported, E001; their
    names count as declared, so their uses are not reported as unknown), and its deepest
    expression when that is deeper than _TRIAL_DEPTH.  With `nested` (from `parse`), only those
    declarations are measured: the others were built from shallow trees (dsl.parser.SHALLOW)."""
    kept: list[n.Declaration] = []
    dropped: set[str] = set()
    deepest: tuple[int, n.Expr | None] = (_TRIAL_DEPTH, None)
    measured = None if nested is None else {id(declaration) for declaration in nested}
    for declaration in tree.declarations:
        if measured is not None and id(declaration) not in measured:
            kept.append(declaration)
            continue
        nesting = _nesting(declaration)
        if nesting.too_deep_block is not None:
            message = f"this block is nested too deeply to compile (more than {MAX_BLOCK_DEPTH} blocks deep)"
            reporter.report("E001", message, nesting.too_deep_block.span, _BLOCKS_HINT)
        elif nesting.height > MAX_EXPRESSION_DEPTH and nesting.deepest is not None:
            message = f"{_NESTED_TOO_DEEPLY} ({nesting.height} levels; the limit is {MAX_EXPRESSION_DEPTH})"
            reporter.report("E001", message, nesting.deepest.span, _NESTING_HINT)
        else:
            kept.append(declaration)
            if nesting.height > deepest[0]:
                deepest = (nesting.height, nesting.deepest)
            continue
        name = getattr(declaration, "name", None)
        if isinstance(name, n.Name):
            dropped.add(name.text)
    if len(kept) < len(tree.declarations):
        tree = dataclasses.replace(tree, declarations=tuple(kept), unparsed=tree.unparsed | dropped)
    return tree, deepest[1]


def _trial_build(compiled: Compiled, deepest: n.Expr, reporter: Reporter) -> None:
    """Generate and compile the module of a rulebook with a deeply nested expression, as an app
    importing it would (default recursion limit); report E001 at that expression if Python refuses."""
    source = generate(compiled)
    previous = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(1000)
        compile(source, "<trial>", "exec")
    except (RecursionError, MemoryError, SyntaxError) as error:
        if isinstance(error, SyntaxError) and "nested" not in str(error.msg):
            raise
        reporter.report(
            "E001",
            f"{_NESTED_TOO_DEEPLY}: Python cannot read the code it becomes",
            deepest.span,
            _NESTING_HINT,
        )
    finally:
        sys.setrecursionlimit(previous)


def _innermost_span(error: BaseException, path: str) -> Span:
    """The span of the innermost syntax node a failed recursion was working on (from its frames)."""
    found = Span(path, 1, 1, 1, 1)
    tb = error.__traceback__
    while tb is not None:
        for value in tb.tb_frame.f_locals.values():
            span = getattr(value, "span", None)
            if isinstance(value, n.Node) and isinstance(span, Span) and span.path == path:
                found = span
                break
            meta = getattr(value, "meta", None)  # a lark tree, while the parse tree is turned into nodes
            if meta is not None and not getattr(meta, "empty", True):
                found = Span(path, meta.line, meta.column, meta.end_line, meta.end_column)
                break
        tb = tb.tb_next
    return found


def display_path(path: Path) -> str:
    """A path as the user would recognise it: relative to the working directory when inside it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def generate(compiled: Compiled, runtime: str = RUNTIME_PACKAGE) -> str:
    """The Python resolver module of a rulebook that checked without errors, importing its
    runtime as `runtime` (the installed `dsl.runtime`, or a standalone copy's name)."""
    assert compiled.book is not None and compiled.ok
    with collector_tuned():
        return deep(emit, compiled.book, Path(compiled.path).name, __version__, runtime)


def generate_js(compiled: Compiled) -> dict[str, bytes]:
    """The ES module and `.d.ts` of a rulebook that checked without errors (dsl/backends/js/)."""
    from dsl.backends.js.package import book_files

    assert compiled.book is not None and compiled.ok
    with collector_tuned():
        return deep(book_files, compiled.book, Path(compiled.path).name, __version__)


_counter = itertools.count()


def load_module(source: str, name: str) -> types.ModuleType:
    """Execute generated source as a fresh module (not left in sys.modules); a traceback through
    it quotes the generated line."""
    module_name = f"_rulecraft_loaded_{name}_{next(_counter)}"
    module = types.ModuleType(module_name)
    module.__file__ = f"<rulecraft {name}>"
    sys.modules[module_name] = module
    try:
        exec(compile(source, module.__file__, "exec", dont_inherit=True), module.__dict__)
    finally:
        del sys.modules[module_name]
    _show_in_tracebacks(module.__file__, source)
    return module


_SHOWN: dict[str, None] = {}  # the sources tracebacks can quote, the latest few


def _show_in_tracebacks(filename: str, source: str) -> None:
    """Let a traceback through a loaded module quote its lines."""
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    _SHOWN.pop(filename, None)
    _SHOWN[filename] = None
    while len(_SHOWN) > 16:
        linecache.cache.pop(next(iter(_SHOWN)), None)
        del _SHOWN[next(iter(_SHOWN))]
