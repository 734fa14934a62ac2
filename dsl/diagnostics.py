"""Diagnostics: positions, messages, and their rendering.

Every stage reports through a `Reporter`, which collects diagnostics instead of raising, so one
run shows every mistake in a rulebook, sorted by position (the most requested feature of DSL
toolkits that stop at the first error).  Rendering follows the gcc/rustc convention that editors
and CI logs already understand:

    rulebooks/x.rules:12:5: error[E101]: unknown name `DXE`
       12 |     DXE -2
          |     ^^^
       = hint: did you mean `DEX`?
"""

from __future__ import annotations

import dataclasses
import difflib
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from dsl.codes import CODES, NewCheck, Release, graced, graced_text
from dsl.codes import Level as Severity


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A region of a source file: 1-based line and column, end column exclusive."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


def slots_init(cls: type, setters: dict[str, Any] | None = None) -> None:
    """Give a frozen dataclass with slots an `__init__` that fills its slots directly, taking the
    same arguments as the one @dataclass writes.  That one goes through `object.__setattr__` once
    per field (the price of `frozen`): a good part of building the AST of a large rulebook, and
    of working out its spans.  `setters` overrides how a field is stored."""
    params: list[str] = []
    body: list[str] = []
    env: dict[str, Any] = {}
    for index, spec in enumerate(dataclasses.fields(cls)):
        if spec.default_factory is not dataclasses.MISSING or spec.kw_only or not spec.init:
            raise TypeError(f"slots_init: {cls.__name__}.{spec.name} needs the dataclass's own __init__")
        setter = (setters or {}).get(spec.name)
        if setter is None:
            setter = next(k.__dict__[spec.name] for k in cls.__mro__ if spec.name in k.__dict__).__set__
        env[f"_set{index}"] = setter
        if spec.default is dataclasses.MISSING:
            params.append(spec.name)
        else:
            env[f"_default{index}"] = spec.default
            params.append(f"{spec.name}=_default{index}")
        body.append(f"    _set{index}(self, {spec.name})")
    exec(f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body), env)  # text made here, of field names
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    setattr(cls, "__init__", init)  # noqa: B010 - the same signature as the dataclass's


class Source:
    """A parsed text's path and where each of its lines starts: what turns the compact position of
    an AST node (dsl/nodes.py, `at`) into its Span, on demand.  One per parse, shared by its nodes."""

    __slots__ = ("path", "starts")

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        starts = [0]
        find = text.find
        index = find("\n")
        while index >= 0:
            starts.append(index + 1)
            index = find("\n", index + 1)
        starts.append(len(text) + 1)  # the parser reads each block with a newline added after it
        self.starts = starts
        """0-based offset of the first character of each line; line 1 starts at 0."""

    def span(self, at: int) -> Span:
        """The span of the characters `at >> 32` (first) to `at & 0xFFFFFFFF` (one past the last)."""
        start, end = at >> 32, at & 0xFFFFFFFF
        starts = self.starts
        line = bisect_right(starts, start)
        end_line = bisect_right(starts, end, line - 1)
        return Span(self.path, line, start - starts[line - 1] + 1, end_line, end - starts[end_line - 1] + 1)


def at(start: int, end: int) -> int:
    """The compact position of the characters start..end (0-based, end exclusive) of a text."""
    return start << 32 | end


slots_init(Span)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    message: str
    span: Span
    hint: str | None = None
    level: Severity | None = None
    """The severity, where it is not the code's: an error of a check new in a release is a
    warning on a book written before it (dsl/codes.py, NewCheck)."""

    @property
    def severity(self) -> Severity:
        return self.level or CODES[self.code].severity

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.span.path, self.span.line, self.span.column, self.code, self.message)


@dataclass
class Reporter:
    """Collects the diagnostics of a run; duplicates (same place, code, text) are kept once."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    _seen: set[tuple[Span, str, str]] = field(default_factory=set)
    written_for: Release | None = None
    """The release the book says it is written for (`for rulecraft 0.2`), None where it says
    none: a check new after it reports a warning, not an error (`new`)."""

    def report(self, code: str, message: str, span: Span, hint: str | None = None, new: NewCheck | None = None) -> None:
        """`new`: the check reporting is one added in a release (dsl/codes.py, NEW_CHECKS)."""
        if code not in CODES:
            raise KeyError(f"undocumented diagnostic code {code}")
        level = None
        if new is not None and graced(new, self.written_for):
            said, then = graced_text(new, self.written_for)
            message, hint, level = message + said, (f"{hint}; {then}" if hint else then), Severity.WARNING
        key = (span, code, message)
        if key not in self._seen:
            self._seen.add(key)
            self.diagnostics.append(Diagnostic(code, message, span, hint, level))

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.diagnostics)

    def sorted(self) -> list[Diagnostic]:
        return sorted(self.diagnostics, key=Diagnostic.sort_key)


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """A hint naming the closest candidate, or None when nothing is close."""
    pool = sorted(set(candidates))
    matches = difflib.get_close_matches(word, pool, n=1, cutoff=0.6)
    if not matches:
        lowered = {c.lower(): c for c in pool}
        if word.lower() in lowered:
            matches = [lowered[word.lower()]]
    return f"did you mean `{matches[0]}`?" if matches else None


_LONGEST_LINE = 200
"""Source lines longer than this are shown cut to a window around the span."""
_WINDOW = 160
_BEFORE = 40


def render(diagnostic: Diagnostic, source_lines: list[str] | None) -> str:
    """Format one diagnostic with the offending line and its span underlined.

    A diagnostic about the file itself (it cannot be read) has no source text: no line is shown.
    """
    d = diagnostic
    head = f"{d.span}: {d.severity.value}[{d.code}]: {d.message}"
    out = [head]
    has_text = bool(source_lines) and source_lines != [""]
    if source_lines is not None and has_text and 1 <= d.span.line <= len(source_lines):
        text = _printable(source_lines[d.span.line - 1].rstrip("\r\n"))
        number = str(d.span.line)
        gutter = " " * len(number)
        start = max(d.span.column, 1)
        end = max(d.span.end_column, start + 1) if d.span.end_line == d.span.line else max(len(text) + 1, start + 1)
        text, start, end = _window(text, start, end)
        caret = " " * (start - 1) + "^" * (end - start)
        out.append(f"  {number} | {text}")
        out.append(f"  {gutter} | {caret}")
        if d.hint:
            out.append(f"  {gutter} = hint: {d.hint}")
    elif d.hint:
        out.append(f"  = hint: {d.hint}")
    return "\n".join(out)


def _window(text: str, start: int, end: int) -> tuple[str, int, int]:
    """A very long line cut to the part around the span (`...` marks what is left out), with the
    span's columns moved to match; a line of ordinary length is kept whole."""
    if len(text) <= _LONGEST_LINE:
        return text, start, end
    left = max(0, min(start - 1 - _BEFORE, len(text) - _WINDOW))
    if left > 0 and not text[left : start - 1].strip():
        left = start - 1  # deep indentation: nothing worth showing before the span
    right = min(len(text), left + _WINDOW)
    prefix = "..." if left > 0 else ""
    suffix = "..." if right < len(text) else ""
    shift = len(prefix) - left
    start = min(start, right + 1) + shift
    end = min(end, right + 1) + shift
    return prefix + text[left:right] + suffix, start, max(end, start + 1)


def _printable(line: str) -> str:
    """Make control and invisible characters visible so the caret lines up and nothing hides."""
    chars = []
    for ch in line:
        if ch == "\t":
            chars.append(" ")
        elif ch.isprintable():
            chars.append(ch)
        else:
            chars.append("\N{REPLACEMENT CHARACTER}")
    return "".join(chars)
