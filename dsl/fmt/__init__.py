"""The canonical layout of a rulebook: `rulecraft fmt`, and formatting in an editor.

The formatter lays out the tokens lark's lexer read, with the block structure the indenter gave
them; it never rebuilds text from the AST.  Whatever it does to spacing and line breaks, the
tokens stay the same (but for the strings of a long text, re-cut at other spaces), so the
rulebook means what it meant, and a construct added to the grammar later is laid out by the same
few rules without a change here.  The rules (docs/language.md, section 19, says them to users):

- one statement a line, indented 4 spaces a level; a line break the author made inside
  brackets or with `\\` is kept, the next line indented one level past the line of the open
  bracket, or two levels past the statement after a `\\`;
- spacing by token (dsl/fmt/spacing.py): one space between tokens, none inside brackets, before
  `,` `:` `%` or around `.` `..`; a sign sticks to its number (`DEX -2`, `then roll again +1`);
  fractions of numbers and sums of dice are tight (`1/2`, `1d6+1`);
- a free text (`note`, `cannot`, `erratum`, an outcome) is one string while its line fits in
  WIDTH columns, else cut at spaces into `("..." "...")` (dsl/fmt/text.py);
- a bracket that holds a comment, or whose list ends with a comma, is laid out one item a line;
- comments stay where they are: at the end of their line, or on their own line at the depth of
  the deepest block their column reaches;
- blank lines: at most one in a row, none at the start of a block or of the file, and one around
  every top-level declaration that has a block (the header, a rule, a table), with the comments
  just above it.

A text with syntax errors is not formatted: FormatError carries the diagnostics `check` prints.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field

from lark import Lark, Token, Tree

from dsl.codes import Level
from dsl.compiler import deep, normalize_newlines
from dsl.diagnostics import Diagnostic, Reporter, Span, render
from dsl.fmt.spacing import Leaf, Spacing
from dsl.fmt.text import TextRun, joined_text, wrap
from dsl.parser import RulecraftIndenter, parse
from dsl.resources import grammar_text

WIDTH = 100
"""The column a text is wrapped at: the width the bundled rulebooks were written to."""

INDENT = 4
"""Spaces a block level."""

CONTINUATION = 2 * INDENT
"""Further indentation of a line continued with `\\`: two levels, so it never lines up with the
block below the statement."""

_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = frozenset(_OPENERS.values())


class FormatError(Exception):
    """The text has errors that stop it from being read: it is left as it is.

    `diagnostics` are what `rulecraft check` reports for the syntax of the text (every error and
    warning of parsing, sorted by position); `render()` prints them as `check` does.
    """

    def __init__(self, path: str, text: str, diagnostics: list[Diagnostic]) -> None:
        errors = sum(1 for d in diagnostics if d.severity is Level.ERROR)
        super().__init__(f"{path}: {errors} error{'s' if errors != 1 else ''}; not formatted")
        self.path = path
        self.text = text
        self.diagnostics = diagnostics

    def render(self) -> str:
        lines = self.text.split("\n")
        return "\n".join(render(d, lines) for d in self.diagnostics)


def format_text(text: str, path: str = "<text>") -> str:
    """The canonical layout of a rulebook's text (LF line endings, no byte-order mark, one final
    newline).  Raises FormatError, with the diagnostics, when the text does not parse."""
    source = normalize_newlines(text).removeprefix("\ufeff")
    return deep(_format, source, path)


def _format(source: str, path: str) -> str:
    reporter = Reporter()
    try:
        parse(source, path, reporter)
    except RecursionError:
        reporter.report(
            "E001",
            "this rulebook is nested too deeply to read",
            Span(path, 1, 1, 1, 2),
            "compute a part of a long expression with `derive NAME = ...`",
        )
    if reporter.has_errors:
        raise FormatError(path, source, reporter.sorted())
    tree = _token_parser().parse(source if source.endswith("\n") else source + "\n")
    return _Layout(source, _leaves(tree)).text()


@functools.cache
def _token_parser() -> Lark:
    """The parser of dsl/parser.py, keeping every token (punctuation and block tokens included)
    in the tree, so the formatter sees each token with the grammar rule it belongs to."""
    return Lark(
        grammar_text(),
        parser="lalr",
        postlex=RulecraftIndenter(),
        maybe_placeholders=False,
        strict=True,
        keep_all_tokens=True,
    )


def _leaves(tree: Tree[Token]) -> list[Leaf]:
    """Every token of the tree in source order, each with its parent node (without recursing:
    a long chain of `+` nests as deep as it is long)."""
    found: list[Leaf] = []
    stack = [(tree, 0)]
    while stack:
        node, index = stack.pop()
        if index >= len(node.children):
            continue
        stack.append((node, index + 1))
        child = node.children[index]
        if isinstance(child, Tree):
            stack.append((child, 0))
        else:
            found.append(Leaf(child, node, index))
    return found


# ---------------------------------------------------------------------------- what lies between tokens


@dataclass
class _Gap:
    """The source between two tokens: only spaces, line breaks, `\\` continuations and comments."""

    trailing: str | None = None
    """A comment on the line of the token before."""
    broken: bool = False
    """Whether a line ends in between."""
    backslash: bool = False
    lines: list[str | None] = field(default_factory=list)
    """The whole lines in between: None for a blank line, else an own-line comment."""
    columns: list[int] = field(default_factory=list)
    """The column of each own-line comment (0-based), as written."""

    @property
    def comments(self) -> list[str]:
        return [line for line in self.lines if line is not None]

    @property
    def has_comment(self) -> bool:
        return self.trailing is not None or any(line is not None for line in self.lines)


def _gap(text: str, *, first_line_whole: bool = False, last_line_whole: bool = False) -> _Gap:
    """What lies between two tokens.  Its first line is the rest of the line of the token before,
    and its last the indentation of the token after; at the start (`first_line_whole`) or the
    end of the text (`last_line_whole`) there is no such token, and those lines are whole."""
    gap = _Gap()
    parts = text.split("\n")
    gap.broken = len(parts) > 1
    whole = parts[1:-1]
    if last_line_whole and len(parts) > 1:
        whole.append(parts[-1])
    if first_line_whole and len(parts) > 1:
        whole.insert(0, parts[0])
    else:
        head = parts[0]
        mark = head.find("#")
        if mark >= 0:
            gap.trailing = head[mark:].rstrip()
            head = head[:mark]
        gap.backslash = "\\" in head and len(parts) > 1
    for line in whole:
        stripped = line.strip()
        if stripped.startswith("#"):
            gap.lines.append(stripped.rstrip())
            gap.columns.append(line.index("#"))
        elif not stripped:
            gap.lines.append(None)
        # a line holding only a `\` continues the statement: nothing to keep
    return gap


# ---------------------------------------------------------------------------- physical lines


@dataclass
class _Physical:
    """One output line: its indentation, its pieces of text, and what ends it."""

    indent: int
    runs: list[TextRun] = field(default_factory=list)
    comment: str | None = None
    backslash: bool = False

    def code(self) -> str:
        return " " * self.indent + "".join(run.text for run in self.runs) + (" \\" if self.backslash else "")

    def render(self) -> str:
        if not self.runs:
            return " " * self.indent + (self.comment or "")
        line = self.code()
        return f"{line}  {self.comment}" if self.comment else line


@dataclass
class _Logical:
    """A statement: the tokens between two line ends, at a block level."""

    level: int
    leaves: list[Leaf]
    opens_block: bool = False


@dataclass
class _Item:
    """A unit of the output at block level: a statement's lines, a comment, or a blank line."""

    level: int
    lines: list[str]
    statement: bool = False
    opens_block: bool = False

    @property
    def blank(self) -> bool:
        return not self.lines


class _Layout:
    def __init__(self, source: str, leaves: list[Leaf]) -> None:
        self.source = source
        self.statements = self._statements(leaves)
        self.spaced = Spacing().spaced

    @staticmethod
    def _statements(leaves: list[Leaf]) -> list[_Logical]:
        statements: list[_Logical] = []
        current: list[Leaf] = []
        level = 0
        for leaf in leaves:
            kind = leaf.token.type
            if kind == "_NL":
                if current:
                    statements.append(_Logical(level, current))
                    current = []
            elif kind == "_INDENT":
                level += 1
                if statements:
                    statements[-1].opens_block = True
            elif kind == "_DEDENT":
                level -= 1
            else:
                current.append(leaf)
        if current:
            statements.append(_Logical(level, current))
        return statements

    def _between(self, before: Leaf | None, after: Leaf | None) -> str:
        """The source between two tokens (from the start, or to the end, of the text)."""
        start = before.token.end_pos if before is not None else None
        end = after.token.start_pos if after is not None else None
        return self.source[start:end]

    def text(self) -> str:
        items: list[_Item] = []
        columns: list[int] = []  # the column each open block level was written at
        previous: _Logical | None = None
        for statement in [*self.statements, None]:
            before = previous.leaves[-1] if previous is not None else None
            after = statement.leaves[0] if statement is not None else None
            gap = _gap(
                self._between(before, after),
                first_line_whole=previous is None,
                last_line_whole=statement is None,
            )
            if previous is not None and gap.trailing is not None:
                items[-1].lines[-1] += "  " + gap.trailing
            self._trivia(items, gap, previous, statement, columns)
            if statement is not None:
                del columns[statement.level :]
                columns.append((statement.leaves[0].token.column or 1) - 1)
                lines = [line.render() for line in self._lay_out(statement)]
                items.append(_Item(statement.level, lines, statement=True, opens_block=statement.opens_block))
            previous = statement
        return _join(_blank_lines(items))

    def _trivia(
        self,
        items: list[_Item],
        gap: _Gap,
        previous: _Logical | None,
        following: _Logical | None,
        columns: list[int],
    ) -> None:
        """The blank lines and own-line comments between two statements, each comment at the level
        of the block it was written in: where blocks close between the two statements, a comment
        indented as deep as a closing block stays in it."""
        low = following.level if following is not None else 0
        high = previous.level if previous is not None else low
        comments = iter(gap.columns)
        for line in gap.lines:
            if line is None:
                items.append(_Item(low, []))
                continue
            column = next(comments)
            level = low
            if high > low:
                level = max(
                    (lv for lv in range(low, high + 1) if lv < len(columns) and columns[lv] <= column), default=low
                )
            items.append(_Item(level, [" " * (INDENT * level) + line]))

    # ------------------------------------------------------------------------ one statement

    def _lay_out(self, statement: _Logical) -> list[_Physical]:
        leaves = statement.leaves
        base = INDENT * statement.level
        gaps = [_gap(self._between(a, b)) for a, b in itertools.pairwise(leaves)]
        texts = _text_runs(leaves, gaps)
        exploded = _exploded(leaves, gaps)
        lines = [_Physical(base)]
        opened: list[tuple[int, bool]] = []  # per open bracket: the indent of its line, exploded?
        previous: Leaf | None = None
        index = 0
        while index < len(leaves):
            run = texts.get(index)
            leaf = Leaf.text_leaf(run[1]) if run is not None else leaves[index]
            following = leaves[index + 1] if run is None and index + 1 < len(leaves) else None
            space = " " if previous is not None and lines[-1].runs and self.spaced(previous, leaf, following) else ""
            lines[-1].runs.append(TextRun(space + leaf.token.value, run[1][1:-1] if run is not None else None))
            if run is not None:
                index = run[0]
            elif leaf.token.value in _OPENERS:
                opened.append((lines[-1].indent, index in exploded))
            elif leaf.token.value in _CLOSERS and opened:
                opened.pop()
            previous = leaf
            if index == len(leaves) - 1:
                break
            gap = gaps[index]
            following = leaves[index + 1]
            inner = opened[-1][0] + INDENT if opened else base + CONTINUATION
            breaks = gap.has_comment or gap.broken  # inside brackets, or after a `\`
            if opened and opened[-1][1]:
                breaks = breaks or leaves[index].token.value in _OPENERS or leaves[index].token.value == ","
                breaks = breaks or following.token.value in _CLOSERS
            if gap.trailing is not None:
                lines[-1].comment = gap.trailing
            if gap.backslash and not opened:
                lines[-1].backslash = True
            if breaks:
                for comment in gap.comments:
                    lines.append(_Physical(inner, comment=comment))
                indent = opened[-1][0] if opened and following.token.value in _CLOSERS else inner
                lines.append(_Physical(indent))
            index += 1
        wrapped: list[_Physical] = []
        for line in lines:
            wrapped.extend(_wrapped(line))
        return wrapped


def _text_runs(leaves: list[Leaf], gaps: list[_Gap]) -> dict[int, tuple[int, str]]:
    """The free texts of a statement that may be written anew (no comment inside them): by the
    index of their first token, the index of their last and the one string they join into.

    A free text is the one construct the formatter knows by its grammar rule's name (`text`):
    only there may strings be joined and cut."""
    runs: dict[int, tuple[int, str]] = {}
    index = 0
    while index < len(leaves):
        node = leaves[index].parent
        if node is not None and node.data == "text" and leaves[index].index == 0:
            end = index + len(node.children) - 1
            if not any(gaps[i].has_comment for i in range(index, end)):
                runs[index] = (end, '"' + joined_text([leaf.token.value for leaf in leaves[index : end + 1]]) + '"')
            index = end + 1
        else:
            index += 1
    return runs


def _exploded(leaves: list[Leaf], gaps: list[_Gap]) -> set[int]:
    """The opening brackets laid out one item a line: those holding a comment, and those whose
    list ends with a comma (the author's sign that the list is to stand one item a line).

    Whether a pair of brackets holds a comment is read from a running count of the gaps with
    one, not by scanning the gaps between them: brackets nested n deep would cost n² scans."""
    commented = [0, *itertools.accumulate(gap.has_comment for gap in gaps)]  # [i]: gaps before token i with one
    exploded: set[int] = set()
    stack: list[int] = []
    for index, leaf in enumerate(leaves):
        value = leaf.token.value
        if value in _OPENERS:
            stack.append(index)
        elif value in _CLOSERS and stack:
            start = stack.pop()
            holds_comment = commented[index] > commented[start]
            if holds_comment or (index - 1 > start and leaves[index - 1].token.value == ","):
                exploded.add(start)
    return exploded


def _wrapped(line: _Physical) -> list[_Physical]:
    """A line too wide for WIDTH with its last free text that can be cut, cut into strings."""
    if len(line.code()) <= WIDTH:
        return [line]
    for position in range(len(line.runs) - 1, -1, -1):
        run = line.runs[position]
        if run.body is None:
            continue
        prefix = " " * line.indent + "".join(r.text for r in line.runs[:position])
        lead = run.text[: len(run.text) - len(run.text.lstrip(" "))]
        suffix = "".join(r.text for r in line.runs[position + 1 :]) + (" \\" if line.backslash else "")
        after_text = any(r.body is not None for r in line.runs[:position])
        cut = wrap(run.body, prefix + lead, suffix, line.indent + INDENT, WIDTH, after_text)
        if cut is None:
            continue
        result = [_Physical(0, [TextRun(text)]) for text in cut]
        result[-1].comment = line.comment
        return result
    return [line]


def _join(items: list[_Item]) -> str:
    lines = [line for item in items for line in (item.lines or [""])]
    return "\n".join(lines) + "\n" if lines else ""


def _blank_lines(items: list[_Item]) -> list[_Item]:
    """Blank lines as the layout wants them: one around a top-level declaration with a block (its
    comments above it go with it), at most one in a row, none at the start of a block, the start
    or the end of the file."""
    wanted: set[int] = set()  # indices of items a blank line must precede
    for index, item in enumerate(items):
        if item.blank or item.level != 0 or index == 0:
            continue
        before = items[index - 1]
        if not before.blank and before.level > 0:
            wanted.add(index)  # the block above has ended
        if item.statement and item.opens_block:
            start = index
            while (
                start > 0
                and not items[start - 1].blank
                and not items[start - 1].statement
                and items[start - 1].level == 0
            ):
                start -= 1
            if start > 0:
                wanted.add(start)
    kept: list[_Item] = []
    for index, item in enumerate(items):
        if index in wanted and kept and not kept[-1].blank:
            kept.append(_Item(0, []))
        if item.blank and (not kept or kept[-1].blank or (kept[-1].statement and kept[-1].opens_block)):
            continue
        kept.append(item)
    while kept and kept[-1].blank:
        kept.pop()
    return kept
