"""Text -> AST.

Lark parses the grammar in grammars/rulecraft.lark with LALR(1) in strict mode (a conflict is a
build error, not a surprise) and an indenter that turns leading whitespace into block tokens.
`Builder` turns the parse tree into the frozen dataclasses of dsl/nodes.py, one method per grammar
rule or alias, each keeping the span of its text.

A syntax error does not stop the run: each top-level block (the header, a declaration) is parsed
on its own, so a mistake costs only its block, every broken block is reported at once, and the
time taken grows with the size of the file, not with the number of mistakes in it.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import io
import json
import re
import sys
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import IO, Any, ClassVar, TypeVar, cast

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)
from lark.indenter import DedentError, Indenter

from dsl import nodes as n
from dsl.diagnostics import Reporter, Source, Span
from dsl.resources import grammar_text
from dsl.runtime.pools import ANY_DICE

_N = TypeVar("_N", bound=n.Node)

_MAX_DIGITS = 100
"""The longest number (in digits) a rulebook may write: far beyond any game value, far below
the length at which exact arithmetic on it, or Python's int(), gives out."""


class RulecraftIndenter(Indenter):
    """Lark's indenter, reading each text with an indenter of its own.

    Lark keeps one post-lexer per parser, and its Indenter keeps the state of the text being
    read (open brackets, the stack of indents) on itself: two texts read at once, in two threads,
    would share it.  Each text is read by a copy, so one parser serves every thread (the language
    server formats one document while it checks another)."""

    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB", "LBRACE"]  # noqa: RUF012 - the names lark's Indenter reads
    CLOSE_PAREN_types = ["RPAR", "RSQB", "RBRACE"]  # noqa: RUF012
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 4

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        reader = copy.copy(self)
        reader.paren_level = 0
        reader.indent_level = [0]
        read: Callable[[Iterator[Token]], Iterator[Token]] = reader._process  # lark's, with the copy's state
        return read(stream)


_LARK_OPTIONS: dict[str, Any] = {
    "parser": "lalr",
    "propagate_positions": True,
    "maybe_placeholders": False,
    "strict": True,
    "start": ["start", "declarations"],
}


class _Parser(Lark):
    """Lark's parser, whose saved tables (`Lark.save`) hold the grammar too (`Lark.grammar`,
    which tools read), as lark's own `cache_grammar` option would have them."""

    __serialize_fields__ = [*Lark.__serialize_fields__, "grammar"]  # noqa: RUF012 - the names lark's Serialize reads


@functools.cache
def _lark() -> Lark:
    """The parser, built once per process.  With a store (dsl/store.py) its tables are
    kept there: a run after the first loads them instead of building them, several times faster.
    The file's name is a hash of the grammar, the options and the versions of lark and Python;
    one that cannot be loaded (cut short, another format) is built anew and replaced.  The
    tables are a pickle, so dsl/store.py hands over only a file the user may load."""
    from dsl import store

    grammar = grammar_text()
    name = _saved_parser_name(grammar)
    saved = store.load_saved(name)
    if saved is not None:
        try:
            return _Parser.load(io.BytesIO(saved))
        except Exception:  # anything wrong with the saved tables means building them
            pass
    parser = _Parser(grammar, postlex=RulecraftIndenter(), **_LARK_OPTIONS)
    store.save(name, parser.save)
    return parser


def _saved_parser_name(grammar: str) -> str:
    return f"parser-{_grammar_key(grammar)}.lark"


def _grammar_key(grammar: str) -> str:
    """What names the files kept for this grammar: a hash of it, the options and the versions of
    lark and Python (the tables and what is worked out from them depend on each)."""
    import lark

    key = "\0".join(
        [grammar, repr(sorted(_LARK_OPTIONS.items())), "Lark.save with the grammar", lark.__version__, sys.version]
    )
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


SHALLOW = 20
"""A parse tree at most this deep builds declarations whose expressions nest at most 2 x SHALLOW
deep (each node of an expression comes from a node of the tree, or wraps one as `-x` does) and
whose `when` blocks nest at most SHALLOW deep: nothing there for the compiler's depth limits."""


def parse(
    text: str, path: str, reporter: Reporter, nested: list[n.Declaration] | None = None
) -> n.Rulebook | None:
    """Parse a rulebook; report every syntax error; return the AST of what parsed, if anything.
    `nested`, when given, receives the declarations of blocks whose parse trees were deeper than
    SHALLOW: the only ones whose depth is worth measuring."""
    lines = text.split("\n")
    tabbed = _check_indentation(lines, path, reporter)
    starts = _blocks(lines)
    header: n.Header | None = None
    declarations: list[n.Declaration] = []
    unparsed: set[str] = set()
    broken_header = False
    source = Source(path, text)
    builder = Builder(path, source)
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(lines)
        # in a block indented with a tab, the tab (reported already) is the mistake
        quiet = bool(tabbed.intersection(range(start + 1, end + 1)))
        parsed = _parse_block(lines, start, end, builder, reporter, quiet=quiet)
        if parsed is None:
            unparsed |= _declared(lines[start:end])
            broken_header = broken_header or (index == 0 and any(_HEADER.match(x) for x in lines[start:end]))
            continue
        block_header, block_declarations = parsed
        if nested is not None and builder.deepest > SHALLOW:
            nested += block_declarations
        header = header or block_header
        declarations += block_declarations
    if header is None:
        if not broken_header:
            reporter.report("E001", 'a rulebook starts with `rulebook NAME "Title":`', Span(path, 1, 1, 1, 2))
        return None
    last = declarations[-1].span if declarations else header.span
    span = Span(path, header.span.line, header.span.column, last.end_line, last.end_column)
    return n.Rulebook(span=span, header=header, declarations=tuple(declarations), unparsed=frozenset(unparsed))


_HEADER = re.compile(r"[ \t]*rulebook\b")

_DECLARATION_LINE = re.compile(
    r"(?:rulebook|unit|type|input|stat|group|tiers|rule|terrain|condition|trait|table|order)[ \t]+[A-Za-z_]"
    r"|(?:grades|resistance|example|balance)[ \t]*[\":]"
)
"""A line that starts a declaration.  No valid text continues a line in this form (a name never
follows a name or a keyword of this list inside an expression), so it ends an unclosed bracket."""

_BRACKETS_AND_STRINGS = re.compile(r'"(?:[^"\\\n]|\\.)*"?|#|[()\[\]{}]')


def _blocks(lines: list[str]) -> list[int]:
    """Where each top-level block starts (0-based line indices); the first starts at line 0.

    A block starts at a line written at column 0 (not a comment) that does not continue the line
    before it: no bracket is open (line breaks inside brackets continue a line) and the line
    before does not end with `\\`.  A line that starts a declaration starts a block even inside
    an unclosed bracket, so a forgotten `)` costs its own block only.
    """
    starts = [0]
    seen_code = False
    depth = 0
    continued = False
    for index, line in enumerate(lines):
        if line and not line[0].isspace() and line[0] != "#":
            if seen_code and ((depth == 0 and not continued) or _DECLARATION_LINE.match(line)):
                starts.append(index)
                depth = 0
            seen_code = True
        code = line
        for match in _BRACKETS_AND_STRINGS.finditer(line):
            token = match.group()
            if token == "#":
                code = line[: match.start()]
                break
            if token in ("(", "[", "{"):
                depth += 1
            elif token in (")", "]", "}"):
                depth = max(depth - 1, 0)
        continued = code.rstrip(" \t").endswith("\\")
    return starts


def _parse_block(
    lines: list[str], start: int, end: int, builder: Builder, reporter: Reporter, *, quiet: bool
) -> tuple[n.Header | None, list[n.Declaration]] | None:
    """Parse lines[start:end], one top-level block, with positions in the whole file; None when
    it holds a mistake (reported, but a syntax error only unless `quiet`).  The first block may
    hold the header; a later one may not."""
    source = "\n".join(lines[start:end]) + "\n"
    try:
        tree = _lark().parse(source, start="start" if start == 0 else "declarations")
    except (UnexpectedInput, DedentError) as error:
        found = Reporter()
        _report_syntax_error(error, source, builder.path, found, last=end == len(lines))
        for diagnostic in [] if quiet else found.diagnostics:
            reporter.report(diagnostic.code, diagnostic.message, _shifted(diagnostic.span, start), diagnostic.hint)
        return None
    builder.offset = start  # lark counts lines and characters from the start of the block
    builder.base = builder.source.starts[start]
    builder.deepest = 0
    try:
        built: tuple[n.Header | None, list[n.Declaration]] = builder._build(tree)
    except _BuildError as failed:
        reporter.report(failed.code, failed.message, failed.span, failed.hint)
        return None
    except RecursionError:
        _place(tree, start)  # nested too deeply: the caller reports where, from the trees being built
        raise
    return built


def _place(tree: Tree[Token], lines: int) -> None:
    """Move a block's parse tree down to where the block is in the file: lark counts lines from
    the start of the text it is given.  (Builder adds `offset` to the spans it makes instead;
    this is for reading positions from the trees themselves.)"""
    if not lines:
        return
    moved: set[int] = set()
    for subtree in tree.iter_subtrees():
        items: list[Any] = [subtree.meta, *(c for c in subtree.children if isinstance(c, Token))]
        for item in items:
            if id(item) in moved or getattr(item, "line", None) is None:
                continue
            moved.add(id(item))
            item.line += lines
            item.end_line += lines


def _shifted(span: Span, lines: int) -> Span:
    """A span found in a block, placed in the whole file."""
    return dataclasses.replace(span, line=span.line + lines, end_line=span.end_line + lines)


class _BuildError(Exception):
    """A mistake found while building the AST: the declaration that holds it is skipped."""

    def __init__(self, message: str, span: Span, code: str = "E001", hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.code = code
        self.hint = hint


def _check_indentation(lines: list[str], path: str, reporter: Reporter) -> set[int]:
    """Report every line indented with a tab; return their numbers."""
    tabbed: set[int] = set()
    for number, line in enumerate(lines, start=1):
        stripped = line.lstrip(" \t")
        indent = line[: len(line) - len(stripped)]
        if "\t" in indent and stripped and not stripped.startswith("#"):
            column = indent.index("\t") + 1
            tabbed.add(number)
            reporter.report(
                "E003",
                "a tab in the indentation",
                Span(path, number, column, number, column + 1),
                "indent with spaces only (4 per level is usual)",
            )
    return tabbed


_DECLARES = re.compile(r"(?:unit|type|input|stat|group|tiers|rule|terrain|condition|trait|table)\s+([A-Za-z_]\w*)")


def _declared(block: list[str]) -> set[str]:
    """The names a top-level block declares: its own, and the members of a choice it declares
    (`type depth = one of {ankle, knee}`)."""
    first = next((line for line in block if line.strip() and not line.lstrip().startswith("#")), "")
    match = _DECLARES.match(first)
    if match is None:
        return set()
    names = {match.group(1)}
    if first.startswith(("type", "input", "stat")):
        for members in re.findall(r"\{([^}]*)", "\n".join(block)):
            names.update(re.findall(r"[A-Za-z_]\w*", members))
    return names


_TOKEN_WORDS = {
    "NAME": "a name",
    "NUMBER": "a number",
    "STRING": 'a "string"',
    "DICE": "dice such as 3d6",
    "DIE": "a die such as d20",
    "_NL": "the end of the line",
    "_INDENT": "an indented block",
    "_DEDENT": "the end of the block",
    "$END": "the end of the file",
}

_UNEXPECTED_WORDS = {
    "_NL": "end of line",
    "_INDENT": "indentation",
    "_DEDENT": "end of the block",
    "$END": "end of file",
}

_LOOKALIKES = {
    "\u00d7": "*",
    "\u00f7": "/",
    "\u2212": "-",
    "\u2013": "-",
    "\u2014": "-",
    "\u2264": "<=",
    "\u2265": ">=",
    "\u2260": "!=",
    "\u00bd": "1/2",
    "\u00bc": "1/4",
    "\u00be": "3/4",
}
"""Characters of printed rulebooks that the language writes in plain ASCII."""

_BRACKETS = {"(": ")", "[": "]", "{": "}"}

_NEEDS_BLOCK = "a line ending with `:` needs an indented block below it"


def _describe_terminal(name: str) -> str:
    if name in _TOKEN_WORDS:
        return _TOKEN_WORDS[name]
    for terminal in _lark().terminals:
        if terminal.name == name and terminal.pattern.type == "str":
            return f"`{terminal.pattern.value}`"
    return name.lower()


def _shown(name: str) -> bool:
    """Whether a terminal is worth naming: lark's anonymous ones only when they are plain words
    or symbols (`==`, `..`); its internal ones never."""
    if not name.startswith("__"):
        return True
    return any(t.name == name and t.pattern.type == "str" for t in _lark().terminals)


def _describe_token(token: Token) -> str:
    if token.type in _UNEXPECTED_WORDS:
        return _UNEXPECTED_WORDS[token.type]
    return f"`{token.value}`"


def _report_syntax_error(
    error: UnexpectedInput | DedentError, source: str, path: str, reporter: Reporter, *, last: bool
) -> None:
    """Report one syntax error of a block (`source`).  The block ends where the next one starts,
    so running out of text is the end of the file only in the `last` block."""
    if isinstance(error, DedentError):
        line = _dedent_line(source, str(error))
        text = source.split("\n")[line - 1]
        width = len(text) - len(text.lstrip(" "))
        reporter.report(
            "E003",
            "this line's indentation matches no enclosing block",
            Span(path, line, 1, line, max(width, 1) + 1),
            "indent it exactly as far as a line above it, or as far as the block it belongs to",
        )
        return
    unclosed = _unclosed_bracket(source, _error_position(error, source))
    if unclosed is not None:
        line, column, bracket = unclosed
        reporter.report(
            "E001",
            f"this `{bracket}` is never closed",
            Span(path, line, column, line, column + 1),
            f"close it with `{_BRACKETS[bracket]}`; what follows is read as part of it until then",
        )
        return
    if isinstance(error, UnexpectedCharacters):
        _report_character(error, source, path, reporter)
        return
    if isinstance(error, UnexpectedEOF):
        _report_end_of_file(source, set(error.expected), path, reporter)
        return
    assert isinstance(error, UnexpectedToken)
    token = error.token
    accepted = _accepted(error)
    if token.type == "$END":
        if last:
            _report_end_of_file(source, accepted, path, reporter)
            return
        token = Token.new_borrow_pos("_DEDENT", "", token)  # the block ends: the next one starts
    # kinds of token (a name, a number) first: they are what a designer most often left out
    described = {_describe_terminal(t) for t in accepted if _shown(t)}
    expected = sorted(described, key=lambda word: (word.startswith("`"), word))
    shown = ", ".join(expected[:10]) + (", ..." if len(expected) > 10 else "")
    line = token.line or 1
    column = token.column or 1
    width = max(len(str(token.value)), 1) if token.type not in ("_NL", "_DEDENT") else 1
    span = Span(path, line, column, line, column + width)
    message = f"unexpected {_describe_token(token)}; expected {shown}"
    reporter.report("E001", message, span, _syntax_hint(token, accepted, source))


def _accepted(error: UnexpectedToken) -> set[str]:
    """The terminals the parser accepts at the error: exact, where LALR's `expected` over-approximates."""
    if error.interactive_parser is None:
        return set(error.expected)
    accepts: set[str] = error.interactive_parser.accepts()  # type: ignore[no-untyped-call]
    return accepts


def _report_character(error: UnexpectedCharacters, source: str, path: str, reporter: Reporter) -> None:
    position = error.pos_in_stream or 0
    char = source[position] if position < len(source) else " "
    span = Span(path, error.line, error.column, error.line, error.column + 1)
    hint = None
    if char.isprintable() and not char.isspace():
        message = f"unexpected character `{char}`"
    else:
        name = unicodedata.name(char, "")
        message = f"unexpected invisible character U+{ord(char):04X}" + (f" ({name})" if name else "")
        hint = "delete it; it probably came with text pasted from a web page or a PDF"
    if char in "'\u2018\u2019\u201c\u201d":
        hint = 'write strings between straight double quotes: "like this"'
    elif char == '"':
        hint = 'a string ends on its line: close it with `"`, and continue a long text in `( "..." "..." )`'
    elif char in _LOOKALIKES:
        hint = f"write `{_LOOKALIKES[char]}` for `{char}`"
    elif char.isalpha():
        hint = "names are written with the letters a-z and A-Z, digits and `_`; other text goes in quotes"
    reporter.report("E002", message, span, hint)


def _report_end_of_file(source: str, accepted: set[str], path: str, reporter: Reporter) -> None:
    lines = source.rstrip("\n").split("\n")
    line = next((i for i in range(len(lines), 0, -1) if lines[i - 1].strip()), 1)
    text = lines[line - 1] if lines else ""
    start = len(text) - len(text.lstrip()) + 1
    hint = _NEEDS_BLOCK if accepted == {"_INDENT"} else None
    reporter.report(
        "E004",
        "the file ends in the middle of a declaration",
        Span(path, line, start, line, max(len(text.rstrip()) + 1, start + 1)),
        hint,
    )


def _error_position(error: UnexpectedInput, source: str) -> int:
    if isinstance(error, UnexpectedToken) and error.token.type == "$END":
        return len(source)
    position = error.pos_in_stream
    return len(source) if position is None else position


def _unclosed_bracket(source: str, position: int) -> tuple[int, int, str] | None:
    """The innermost bracket open at `position`, opened on an earlier line and never closed.

    Line breaks inside brackets continue a line, so an unclosed bracket makes the parser fail
    lines later, on text that is fine; the bracket is the mistake to show.
    """
    stack: list[tuple[int, int, int, str]] = []
    line, column = 1, 1
    in_string = in_comment = escaped = False
    for offset, char in enumerate(source):
        if in_comment:
            in_comment = char != "\n"
        elif in_string:
            in_string = not (char == '"' and not escaped) and char != "\n"
            escaped = char == "\\" and not escaped
        elif char == "#":
            in_comment = True
        elif char == '"':
            in_string, escaped = True, False
        elif char in _BRACKETS:
            stack.append((offset, line, column, char))
        elif char in _BRACKETS.values() and stack:
            stack.pop()
        if char == "\n":
            line, column = line + 1, 1
        else:
            column += 1
    unmatched = [b for b in stack if b[0] < position]
    if not unmatched:
        return None
    _, open_line, open_column, bracket = unmatched[-1]
    error_line = source.count("\n", 0, position) + 1
    return (open_line, open_column, bracket) if open_line < error_line else None


def _syntax_hint(token: Token, accepted: set[str], source: str) -> str | None:
    before = source[: token.start_pos or 0].rsplit("\n", 1)[-1].split()
    if before and before[-1] in ("if", "elif"):
        return "a condition starts with `when` (or `unless`), not `if`"
    if len(before) >= 3 and before[-3] == "each" and before[-1] == "from" and token.type == "NUMBER":
        return (
            "`from N` is where a counter starts: name the input the rule reads for it before `from`"
            f" (`each {before[-2]} COUNTER from {token}:`), or leave the start out (`each {before[-2]}:`)"
        )
    if token.value == "aside" and any(_describe_terminal(t) == "`note`" for t in accepted):
        return (
            "an aside stands in a rule, a roll's block or a table; here write `note` "
            "(the header's notes are the introduction, printed in the appendix)"
        )
    if accepted == {"_INDENT"}:
        return _NEEDS_BLOCK
    if "COLON" in accepted and token.type == "_NL":
        return "a line that opens a block ends with `:`"
    if accepted == {"COLON"}:
        return "a `:` comes here, before the statement it governs"
    closers = [c for name, c in (("RPAR", ")"), ("RSQB", "]"), ("RBRACE", "}")) if name in accepted]
    if token.type in ("RPAR", "RSQB", "RBRACE") and closers:
        return f"brackets close in pairs: this one needs `{closers[0]}`"
    if token.type == "EQUAL" and any(_describe_terminal(t) == "`==`" for t in accepted):
        return "to compare, write `==`; a single `=` sets a value"
    if token.type == "_INDENT":
        return "only a line ending with `:` opens an indented block"
    if token.type == "NAME" and "_NL" in accepted:
        return "one statement per line; start a new line for the next one"
    if "base" in before[-2:]:
        return "`base NAME` is a stat's value before modifiers, so nothing can be named `base`"
    if before and before[-1] in reserved_words() - {"and", "or", "not", "in", "is"}:
        return f"`{before[-1]}` is a word of the language; if it names something here, rename that"
    return None


def _dedent_line(source: str, message: str) -> int:
    """Lark's DedentError names no position: find the first line whose indent is inconsistent."""
    stack = [0]
    for number, line in enumerate(source.split("\n"), start=1):
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        width = len(line) - len(stripped)
        if width > stack[-1]:
            stack.append(width)
            continue
        while width < stack[-1]:
            stack.pop()
        if width != stack[-1]:
            return number
    return 1


# ---------------------------------------------------------------------- tree -> AST


class _NotACharacter(Exception):
    """Half of a UTF-16 surrogate pair in a string: text that cannot be written as UTF-8."""

    def __init__(self, start: int, end: int, code: int, escaped: bool) -> None:
        super().__init__(f"U+{code:04X}")
        self.start, self.end, self.code, self.escaped = start, end, code, escaped


_HEX = frozenset("0123456789abcdefABCDEF")


def _unquote(literal: str) -> str:
    """The value of a STRING token's text.

    Escapes: \\" \\\\ \\n \\t, and \\uXXXX for any character by its code (a bidi mark, a
    garbled character quoted from a source); a character beyond U+FFFF is written as its UTF-16
    pair (\\ud83d\\ude00), as JSON writes it; any other backslash is kept as written.  Half of a
    pair on its own is no character (no UTF-8 text can hold it, so every output would fail on
    it): _NotACharacter, with its place in `literal`.
    """
    body = literal[1:-1]
    if "\\" not in body:
        _no_surrogate(body)
        return body  # no escape: nothing to read character by character
    out: list[str] = []
    index = 0
    while index < len(body):
        ch = body[index]
        index += 1
        if ch != "\\" or index >= len(body):
            if "\ud800" <= ch <= "\udfff":
                raise _NotACharacter(index, index + 1, ord(ch), escaped=False)
            out.append(ch)
            continue
        nxt = body[index]
        index += 1
        code = _hex4(body, index) if nxt == "u" else None
        if code is None:
            out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(nxt, "\\" + nxt))
            continue
        start, index = index - 2, index + 4
        if 0xD800 <= code <= 0xDBFF and body[index : index + 2] == "\\u":
            low = _hex4(body, index + 2)
            if low is not None and 0xDC00 <= low <= 0xDFFF:
                out.append(chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)))
                index += 6
                continue
        if 0xD800 <= code <= 0xDFFF:
            raise _NotACharacter(start + 1, index + 1, code, escaped=True)
        out.append(chr(code))
    return "".join(out)


def _hex4(body: str, index: int) -> int | None:
    """The number written by the four hex digits at `index`, if there are four."""
    digits = body[index : index + 4]
    return int(digits, 16) if len(digits) == 4 and _HEX.issuperset(digits) else None


def _no_surrogate(body: str) -> None:
    """Refuse a surrogate written as itself (only text handed over in memory can hold one: the
    language server's, whose client may send any JSON string; a file is read as strict UTF-8)."""
    found = None if body.isascii() else _SURROGATE.search(body)
    if found is not None:
        raise _NotACharacter(found.start() + 1, found.start() + 2, ord(found.group()), escaped=False)


_SURROGATE = re.compile("[\ud800-\udfff]")


@functools.lru_cache(maxsize=4096)
def _fraction(literal: str) -> Fraction:
    """The value of a number as written: a rulebook writes the same few numbers again and again,
    and reading a Fraction from text costs more than looking it up (Fractions do not change)."""
    return Fraction(literal)


@v_args(meta=True, inline=True)
class Builder(Transformer[Token, Any]):
    """One method per grammar rule or alias; each returns the matching dsl.nodes class."""

    def __init__(self, path: str, source: Source | None = None) -> None:
        super().__init__()
        self.path = path
        self.source = Source(path, "") if source is None else source
        self.here = cast(Span, self.source)
        """What a node's `span` holds when the builder makes it: the shared Source, with the node's
        compact position beside it (`_placed`); dsl/nodes.py reads the two together."""
        self.offset = 0
        """Lines above the block being built: its trees count lines from its start."""
        self.base = 0
        """Characters above the block being built: its trees count them from its start too."""
        self.deepest = 0
        """How deep the trees built since it was last set to 0 went."""

    _METHODS: ClassVar[dict[str, Any]] = {}
    """The plain function of every rule and token method, by the rule's or token's name."""

    def _build(self, tree: Tree[Token], depth: int = 1) -> Any:
        """What lark's `transform` makes of a tree (children first, then the method of the
        node's rule, with its meta; a token through the method of its type, if any), with a
        direct call per node: lark's generic dispatch (a bound wrapper rebuilt per node, a
        generator per list of children) cost more than the methods themselves."""
        if depth > self.deepest:
            self.deepest = depth
        methods = self._METHODS
        children: list[Any] = []
        add = children.append
        for child in tree.children:
            if isinstance(child, Tree):
                below = child.children
                if len(below) == 1 and below[0].__class__ is Token:  # a rule of one token: no list, no recursion
                    method = methods.get(child.data)
                    if method is not None:
                        token = below[0]
                        token_method = methods.get(token.type)
                        add(method(self, child.meta, token if token_method is None else token_method(self, token)))
                        if depth >= self.deepest:
                            self.deepest = depth + 1
                        continue
                add(self._build(child, depth + 1))
            elif isinstance(child, Token):
                token_method = methods.get(child.type)
                add(child if token_method is None else token_method(self, child))
            else:
                add(child)
        method = methods.get(tree.data)
        if method is None:
            return Tree(tree.data, children, tree.meta)
        return method(self, tree.meta, *children)

    # -- tokens: every number and die passes here before any method turns it into a value

    def NUMBER(self, token: Token) -> Token:
        return self._short(token)

    def DICE(self, token: Token) -> Token:
        return self._short(token)

    def DIE(self, token: Token) -> Token:
        return self._short(token)

    def _short(self, token: Token) -> Token:
        if len(token) <= _MAX_DIGITS:
            return token  # no run of digits longer than the token
        digits = max(len(run) for run in re.findall(r"[0-9]+", str(token)))
        if digits > _MAX_DIGITS:
            raise _BuildError(
                f"a number this long ({digits} digits) is not a game value",
                self._token_span(token),
                "E301",
                f"write a number of at most {_MAX_DIGITS} digits",
            )
        return token

    # -- helpers

    def _placed(self, meta: Any, node: _N) -> _N:
        """`node`, made with `span=self.here`, given the position of the text `meta` covers."""
        n.place(node, self._meta_at(meta))
        return node

    def _meta_at(self, meta: Any) -> int:
        """The compact position (dsl.diagnostics.at) of the text a tree's `meta` covers."""
        if getattr(meta, "empty", True):
            return 0  # line 1, column 1, and nothing covered
        base = self.base
        start: int = meta.start_pos + base
        end: int = meta.end_pos + base
        return start << 32 | end

    def _span(self, meta: Any) -> Span:
        return self.source.span(self._meta_at(meta))

    def _token_at(self, token: Token) -> int:
        base = self.base
        start = token.start_pos
        if start is None:  # a token made without a position: the start of the file
            return 0
        end = token.end_pos if token.end_pos is not None else start + len(token.value)
        return (start + base) << 32 | (end + base)

    def _token_span(self, token: Token) -> Span:
        return self.source.span(self._token_at(token))

    def _name(self, token: Token) -> n.Name:
        node = n.Name(self.here, str(token))
        n.place(node, self._token_at(token))
        return node

    def _string(self, token: Token) -> str:
        """The value of a STRING token; a surrogate in it (E006) is reported where it is written."""
        try:
            return _unquote(str(token))
        except _NotACharacter as half:
            place = self._token_at(token) >> 32
            span = self.source.span((place + half.start) << 32 | (place + half.end))
            written = str(token)[half.start : half.end] if half.escaped else f"U+{half.code:04X}"
            raise _BuildError(
                f"`{written}` is half of a UTF-16 surrogate pair, not a character",
                span,
                "E006",
                "write the character itself, or both halves of its pair (`\\ud83d\\ude00` is one character)",
            ) from None

    def _text(self, token: Token) -> n.Text:
        node = n.Text(self.here, self._string(token))
        n.place(node, self._token_at(token))
        return node

    def _int(self, token: Token) -> int:
        if token.isdigit() and token.isascii():
            return int(token)
        value = Fraction(str(token))
        if value.denominator != 1:
            raise _BuildError(f"expected a whole number, found `{token}`", self._token_span(token))
        return int(value)

    @staticmethod
    def _split(children: tuple[Any, ...], *types: type) -> Iterator[Any]:
        for child in children:
            if isinstance(child, types):
                yield child

    def _optional_text(self, children: tuple[Any, ...]) -> n.Text | None:
        for child in children:
            if isinstance(child, Token) and child.type == "STRING":
                return self._text(child)
        return None

    # -- rulebook

    def start(self, meta: Any, *children: Any) -> tuple[n.Header | None, list[n.Declaration]]:
        return next(self._split(children, n.Header), None), list(self._split(children, n.Declaration))

    def declarations(self, meta: Any, *children: n.Declaration) -> tuple[n.Header | None, list[n.Declaration]]:
        return None, list(children)

    def header(self, meta: Any, name: Token, title: Token, *items: Any) -> n.Header:
        source = next((i for i in items if isinstance(i, tuple) and i[0] == "source"), None)
        version = next((i for i in items if isinstance(i, tuple) and i[0] == "version"), None)
        release = next((i for i in items if isinstance(i, tuple) and i[0] == "release"), None)
        notes = tuple(i for i in items if isinstance(i, (n.NoteStmt, n.ErratumStmt)))
        return self._placed(meta, n.Header(
            span=self.here,
            name=self._name(name),
            title=self._text(title),
            source=source[1] if source else None,
            version=version[1] if version else None,
            notes=notes,
            release=release[1] if release else None,
        ))

    def source_item(self, meta: Any, value: Token) -> tuple[str, n.Text]:
        return ("source", self._text(value))

    def version_item(self, meta: Any, value: Token) -> tuple[str, n.Text]:
        return ("version", self._text(value))

    def release_item(self, meta: Any, value: Token) -> tuple[str, n.Text]:
        node = n.Text(self.here, str(value))
        n.place(node, self._token_at(value))
        return ("release", node)

    # -- vocabulary

    def unit_decl(self, meta: Any, name: Token, *rest: Token) -> n.UnitDecl:
        return self._placed(meta, n.UnitDecl(span=self.here, name=self._name(name), label=self._optional_text(rest)))

    def type_decl(self, meta: Any, name: Token, type_: n.TypeExpr) -> n.TypeDecl:
        return self._placed(meta, n.TypeDecl(span=self.here, name=self._name(name), type=type_))

    def _var(self, meta: Any, children: tuple[Any, ...]) -> dict[str, Any]:
        name = self._name(children[0])
        type_ = next(self._split(children, n.TypeExpr))
        default = next((c[1] for c in children if isinstance(c, tuple) and c[0] == "default"), None)
        return {
            "span": self.here,
            "name": name,
            "label": self._optional_text(children[1:]),
            "type": type_,
            "default": default,
            "phrase": next(self._split(children, n.Phrase), None),
        }

    def input_decl(self, meta: Any, *children: Any) -> n.InputDecl:
        return self._placed(meta, n.InputDecl(**self._var(meta, children)))

    def stat_decl(self, meta: Any, *children: Any) -> n.StatDecl:
        return self._placed(meta, n.StatDecl(**self._var(meta, children)))

    def default(self, meta: Any, value: n.Expr) -> tuple[str, n.Expr]:
        return ("default", value)

    def int_type(self, meta: Any, *children: Any) -> n.IntType:
        bounds = next(self._split(children, n.Bounds), None)
        unit = next(self._split(children, n.Name), None)
        return self._placed(meta, n.IntType(span=self.here, bounds=bounds, unit=unit))

    def number_type(self, meta: Any, *children: Any) -> n.NumberType:
        bounds = next(self._split(children, n.Bounds), None)
        unit = next(self._split(children, n.Name), None)
        return self._placed(meta, n.NumberType(span=self.here, bounds=bounds, unit=unit))

    def percent_type(self, meta: Any, *children: Any) -> n.PercentType:
        return self._placed(meta, n.PercentType(span=self.here, bounds=next(self._split(children, n.Bounds), None)))

    def flag_type(self, meta: Any) -> n.FlagType:
        return self._placed(meta, n.FlagType(span=self.here))

    def dice_type(self, meta: Any) -> n.DiceType:
        return self._placed(meta, n.DiceType(span=self.here))

    def text_type(self, meta: Any) -> n.TextType:
        return self._placed(meta, n.TextType(span=self.here))

    def phrase(self, meta: Any, text: Token, negative: Token | None = None) -> n.Phrase:
        return self._placed(meta, n.Phrase(
            span=self.here,
            text=self._text(text),
            negative=None if negative is None else self._text(negative),
        ))

    def enum_type(self, meta: Any, members: tuple[tuple[n.Name, n.Text | None], ...]) -> n.EnumType:
        return self._placed(meta, n.EnumType(
            span=self.here, members=tuple(m[0] for m in members), phrases=tuple(m[1] for m in members)
        ))

    def levels_type(self, meta: Any, *members: tuple[n.Name, n.Text | None]) -> n.LevelsType:
        return self._placed(meta, n.LevelsType(
            span=self.here, members=tuple(m[0] for m in members), phrases=tuple(m[1] for m in members)
        ))

    def choice_list(
        self, meta: Any, *members: tuple[n.Name, n.Text | None]
    ) -> tuple[tuple[n.Name, n.Text | None], ...]:
        return members

    def choice(self, meta: Any, name: Token, phrase: Token | None = None) -> tuple[n.Name, n.Text | None]:
        return self._name(name), None if phrase is None else self._text(phrase)

    def named_type(self, meta: Any, name: Token) -> n.NamedType:
        return self._placed(meta, n.NamedType(span=self.here, name=self._name(name)))

    def bounds(self, meta: Any, low: Any, high: Any = None) -> n.Bounds:
        return self._placed(meta, n.Bounds(
            span=self.here,
            low=self._bound(low),
            high=None if high is None else self._bound(high),
        ))

    def _bound(self, value: Any) -> Fraction:
        if isinstance(value, tuple):
            return -_fraction(str(value[1]))
        return _fraction(str(value))

    def negative(self, meta: Any, value: Token) -> tuple[str, Token]:
        return ("negative", value)

    def unit_ref(self, meta: Any, name: Token) -> n.Name:
        return self._name(name)

    def name_list(self, meta: Any, *names: Token) -> tuple[n.Name, ...]:
        return tuple(self._name(t) for t in names)

    def group_decl(self, meta: Any, name: Token, *rest: Any) -> n.GroupDecl:
        stacking = str(rest[-1])
        return self._placed(meta, n.GroupDecl(
            span=self.here,
            name=self._name(name),
            label=self._optional_text(rest),
            stacking=stacking,  # type: ignore[arg-type]
        ))

    def stacking(self, meta: Any, word: Token) -> Token:
        return word

    def grades_decl(self, meta: Any, *children: Any) -> n.GradesDecl:
        return self._placed(meta, n.GradesDecl(
            span=self.here,
            label=self._optional_text(children),
            grades=tuple(self._split(children, n.GradeItem)),
        ))

    def grade_item(self, meta: Any, name: Token, *rest: Any) -> n.GradeItem:
        step = next((r for r in rest if isinstance(r, int)), None)
        effect = next(self._split(rest, n.ModOp))
        return self._placed(meta, n.GradeItem(span=self.here, name=self._name(name), step=step, effect=effect))

    def grade_step(self, meta: Any, sign: str, number: Token) -> int:
        value = self._int(number)
        return -value if sign == "-" else value

    def tiers_decl(self, meta: Any, name: Token, *children: Any) -> n.TiersDecl:
        return self._placed(meta, n.TiersDecl(
            span=self.here,
            name=self._name(name),
            label=self._optional_text(children),
            tiers=tuple(self._split(children, n.TierItem)),
        ))

    def tier_bound(self, meta: Any, name: Token, op: str, bound: n.Expr, *always: str) -> n.TierItem:
        return self._placed(meta, n.TierItem(
            span=self.here,
            name=self._name(name),
            op=op,  # type: ignore[arg-type]
            bound=bound,
            always=always[0] if always else None,  # type: ignore[arg-type]
        ))

    def tier_natural(self, meta: Any, name: Token, *rest: Any) -> n.TierItem:
        return self._tier_natural(meta, name, rest, "and")

    def tier_natural_all(self, meta: Any, name: Token, *rest: Any) -> n.TierItem:
        return self._tier_natural(meta, name, rest, "and")

    def tier_natural_any(self, meta: Any, name: Token, *rest: Any) -> n.TierItem:
        return self._tier_natural(meta, name, rest, "or")

    def _tier_natural(self, meta: Any, name: Token, rest: tuple[Any, ...], joined: str) -> n.TierItem:
        tests = [x for x in rest if isinstance(x, n.NaturalTest)]
        always = next((x for x in rest if isinstance(x, str)), None)
        first = tests[0]
        return self._placed(meta, n.TierItem(
            span=self.here,
            name=self._name(name),
            op=None,
            bound=None,
            natural=(first.low, first.high),
            always=always,  # type: ignore[arg-type]
            die=first.die,
            showing=first.showing,
            also=tuple(tests[1:]),
            joined=joined,  # type: ignore[arg-type]
        ))

    def natural_test(self, meta: Any, *rest: Any) -> n.NaturalTest:
        numbers = [x for x in rest if isinstance(x, int)]
        die = next((x for x in rest if isinstance(x, n.Name)), None)
        return self._placed(meta, n.NaturalTest(span=self.here, low=numbers[0], high=numbers[-1], die=die))

    def showing_test(self, meta: Any, faces: tuple[int | None, int | None], op: str, count: Token) -> n.NaturalTest:
        """`roll showing 6 >= 2`: the count's range, low..high dice (no upper bound: ANY_DICE)."""
        if not str(count).isdigit():
            raise _BuildError(f"how many dice show a face is a whole number, not {count}", self._span(meta))
        number = int(count)
        low, high = {
            ">=": (number, ANY_DICE),
            ">": (number + 1, ANY_DICE),
            "<=": (0, number),
            "<": (0, number - 1),
            "==": (number, number),
        }.get(op, (None, None))
        if low is None or high is None:
            raise _BuildError(
                f"how many dice show a face is compared with `>=`, `<=` or `==`, not `{op}`", self._span(meta), "E203"
            )
        return self._placed(meta, n.NaturalTest(span=self.here, low=low, high=high, showing=faces))

    def natural_die(self, meta: Any, name: Token) -> n.Name:
        return self._name(name)

    def tier_otherwise(self, meta: Any, name: Token, *always: str) -> n.TierItem:
        return self._placed(meta, n.TierItem(
            span=self.here,
            name=self._name(name),
            op=None,
            bound=None,
            always=always[0] if always else None,  # type: ignore[arg-type]
        ))

    def always(self, meta: Any, word: Token, verb: Token) -> str:
        return "success" if str(verb) == "succeeds" else "failure"

    def resistance_decl(self, meta: Any, *children: Any) -> n.ResistanceDecl:
        worked_out = next(self._split(children, n.DicePool), None)
        if worked_out is not None:
            raise _BuildError(
                "a resistance roll is made on dice known when writing it, not on dice worked out when resolving",
                worked_out.span,
                "E203",
                "roll plain dice, kept or exploding without a bound: `resistance: 3d6 <= CON`",
            )
        pool = next(self._split(children, n.Pool))
        op = next(c for c in children if isinstance(c, str) and not isinstance(c, Token))
        target = children[-1]
        return self._placed(meta, n.ResistanceDecl(
            span=self.here,
            label=self._optional_text(children),
            pool=pool,
            op=op,  # type: ignore[arg-type]
            target=target,
        ))

    def statblock_decl(self, meta: Any, name: Token, *children: Any) -> n.StatBlockDecl:
        return self._placed(meta, n.StatBlockDecl(
            span=self.here,
            name=self._name(name),
            label=self._optional_text(children),
            kinds=tuple(c for c in children if isinstance(c, str) and not isinstance(c, Token)),
            rows=tuple(self._split(children, n.StatBlockRow)),
        ))

    def statblock_row(self, meta: Any, label: Token, *names: Token) -> n.StatBlockRow:
        return self._placed(meta, n.StatBlockRow(span=self.here, label=self._text(label), names=tuple(self._name(x) for x in names)))

    def order_decl(self, meta: Any, stat: Token, *children: Any) -> n.OrderDecl:
        return self._placed(meta, n.OrderDecl(
            span=self.here,
            stat=self._name(stat),
            items=tuple(self._name(c) for c in children if isinstance(c, Token)),
            notes=tuple(self._split(children, n.NoteStmt, n.ErratumStmt)),
        ))

    def order_name(self, meta: Any, token: Token) -> Token:
        return token

    # -- rules and statements

    def rule_decl(self, meta: Any, kind: str, name: Token, *children: Any) -> n.RuleDecl:
        cites = next((c[1] for c in children if isinstance(c, tuple) and c[0] == "cites"), None)
        return self._placed(meta, n.RuleDecl(
            span=self.here,
            kind=kind,  # type: ignore[arg-type]
            name=self._name(name),
            title=self._optional_text(children),
            cites=cites,
            body=tuple(self._split(children, n.Statement)),
            examples=tuple(self._split(children, n.ExampleDecl)),
        ))

    def rule_kind(self, meta: Any, word: Token) -> str:
        return str(word)

    def cites(self, meta: Any, value: Token) -> tuple[str, n.Text]:
        return ("cites", self._text(value))

    def when_block(self, meta: Any, guard: str, condition: n.Expr, body: Any, orelse: Any = ()) -> n.WhenBlock:
        return self._placed(meta, n.WhenBlock(
            span=self.here,
            negated=guard == "unless",
            condition=condition,
            body=tuple(body),
            orelse=tuple(orelse),
        ))

    def guard(self, meta: Any, word: Token) -> str:
        return str(word)

    def else_block(self, meta: Any, body: Any) -> tuple[n.Statement, ...]:
        return tuple(body)

    def body(self, meta: Any, *statements: n.Statement) -> tuple[n.Statement, ...]:
        return statements

    def text(self, meta: Any, *strings: Token) -> n.Text:
        return self._placed(meta, n.Text(span=self.here, value="".join(self._string(s) for s in strings)))

    def cannot_stmt(self, meta: Any, text: n.Text) -> n.CannotStmt:
        return self._placed(meta, n.CannotStmt(span=self.here, text=text))

    def note_stmt(self, meta: Any, text: n.Text) -> n.NoteStmt:
        return self._placed(meta, n.NoteStmt(span=self.here, text=text))

    def aside_stmt(self, meta: Any, text: n.Text) -> n.AsideStmt:
        return self._placed(meta, n.AsideStmt(span=self.here, text=text))

    def erratum_stmt(self, meta: Any, quote: n.Text, text: n.Text) -> n.ErratumStmt:
        return self._placed(meta, n.ErratumStmt(span=self.here, quote=quote, text=text))

    def category_stmt(self, meta: Any, name: Token) -> n.CategoryStmt:
        return self._placed(meta, n.CategoryStmt(span=self.here, name=self._name(name)))

    def derive_stmt(self, meta: Any, name: Token, *rest: Any) -> n.DeriveStmt:
        unit = next(self._split(rest, n.Name), None)
        return self._placed(meta, n.DeriveStmt(
            span=self.here,
            name=self._name(name),
            label=self._optional_text(rest),
            unit=unit,
            value=rest[-1],
        ))

    def as_stmt(self, meta: Any, *names: Token) -> n.AsStmt:
        return self._placed(meta, n.AsStmt(span=self.here, rules=tuple(self._name(t) for t in names), bindings=()))

    def as_with(self, meta: Any, name: Token, *bindings: n.Binding) -> n.AsStmt:
        return self._placed(meta, n.AsStmt(span=self.here, rules=(self._name(name),), bindings=bindings))

    def binding(self, meta: Any, name: Token, value: n.Expr) -> n.Binding:
        return self._placed(meta, n.Binding(span=self.here, name=self._name(name), value=value))

    # -- modifiers

    def modifier(self, meta: Any, target: Token, op: n.ModOp, *rest: Any) -> n.Modifier:
        group = next(self._split(rest, n.Name), None)
        label = next(self._split(rest, n.Text), None)
        return self._placed(meta, n.Modifier(span=self.here, target=self._name(target), op=op, group=group, label=label))

    def group_ref(self, meta: Any, name: Token) -> n.Name:
        return self._name(name)

    def label(self, meta: Any, value: Token) -> n.Text:
        return self._text(value)

    def sign(self, meta: Any, token: Token) -> str:
        return str(token)

    def add_mod(self, meta: Any, sign: str, value: n.Expr, *rest: Any) -> n.AddMod:
        percent = any(r == "%" for r in rest if isinstance(r, str))
        per = next((r[1] for r in rest if isinstance(r, tuple) and r[0] == "per"), None)
        if sign == "-":
            if isinstance(value, n.Number):
                value = n.Number(span=value.span, value=-value.value, literal="-" + value.literal)
            else:
                value = n.Negate(span=value.span, operand=value)
        return self._placed(meta, n.AddMod(span=self.here, value=value, percent=percent, per=per))

    def percent(self, meta: Any) -> str:
        return "%"

    def per(self, meta: Any, value: n.Expr) -> tuple[str, n.Expr]:
        return ("per", value)

    def mul_mod(self, meta: Any, factor: n.Expr, rounding: Any = None) -> n.MulMod:
        return self._placed(meta, n.MulMod(span=self.here, factor=factor, rounding=rounding))

    def div_mod(self, meta: Any, divisor: n.Expr, rounding: Any = None) -> n.DivMod:
        return self._placed(meta, n.DivMod(span=self.here, divisor=divisor, rounding=rounding))

    def rounding(self, meta: Any, _round: Token, mode: Token) -> str:
        return str(mode)

    def set_mod(self, meta: Any, value: n.Expr) -> n.SetMod:
        return self._placed(meta, n.SetMod(span=self.here, value=value))

    def min_mod(self, meta: Any, value: n.Expr) -> n.MinMod:
        return self._placed(meta, n.MinMod(span=self.here, value=value))

    def max_mod(self, meta: Any, value: n.Expr) -> n.MaxMod:
        return self._placed(meta, n.MaxMod(span=self.here, value=value))

    def grade_mod(self, meta: Any, name: Token) -> n.GradeMod:
        return self._placed(meta, n.GradeMod(span=self.here, grade=self._name(name)))

    def _delta(self, sign: str, number: Token) -> int:
        value = self._int(number)
        return -value if sign == "-" else value

    @staticmethod
    def _signed(sign: str, value: n.Expr) -> n.Expr:
        if sign == "+":
            return value
        if isinstance(value, n.Number):
            return n.Number(span=value.span, value=-value.value, literal="-" + value.literal)
        return n.Negate(span=value.span, operand=value)

    def dice_mod(self, meta: Any, sign: str, count: n.Expr) -> n.DiceMod:
        return self._placed(meta, n.DiceMod(span=self.here, delta=self._signed(sign, count)))

    def step_mod(self, meta: Any, sign: str, count: n.Expr) -> n.StepMod:
        return self._placed(meta, n.StepMod(span=self.here, delta=self._signed(sign, count)))

    def shift_mod(self, meta: Any, sign: str, count: n.Expr) -> n.ShiftMod:
        return self._placed(meta, n.ShiftMod(span=self.here, delta=self._signed(sign, count)))

    # -- rolls

    def roll_decl(self, meta: Any, name: Token, *children: Any) -> n.RollDecl:
        spec = next(self._split(children, n.RollSpec))
        items = next((c for c in children if isinstance(c, list)), [])
        return self._placed(meta, n.RollDecl(
            span=self.here,
            name=self._name(name),
            label=self._optional_text(children),
            spec=spec,
            items=tuple(items),
        ))

    def roll_body(self, meta: Any, *items: Any) -> list[n.RollItem]:
        return [
            n.RollNote(span=item.span, note=item) if isinstance(item, (n.NoteStmt, n.ErratumStmt, n.AsideStmt)) else item
            for item in items
        ]

    def check_spec(self, meta: Any, pool: n.Pool | n.DicePool, *rest: Any) -> n.CheckSpec:
        *bonus, op, target = rest
        return self._placed(meta, n.CheckSpec(span=self.here, pool=pool, bonus=tuple(bonus), op=op, target=target))

    def total_spec(self, meta: Any, pool: n.Pool | n.DicePool, *bonus: n.Expr) -> n.TotalSpec:
        return self._placed(meta, n.TotalSpec(span=self.here, pool=pool, bonus=bonus))

    def count_spec(self, meta: Any, needed: n.Expr, pool: n.Pool | n.DicePool, op: str, target: n.Expr) -> n.CountSpec:
        return self._placed(meta, n.CountSpec(span=self.here, needed=needed, pool=pool, op=op, target=target))  # type: ignore[arg-type]

    def counted_pool(self, meta: Any, count: n.Expr, die: Token) -> n.DicePool:
        return self._placed(meta, n.DicePool(span=self.here, value=self.dice_count(meta, count, die)))

    def value_pool(self, meta: Any, value: n.Expr) -> n.DicePool:
        return self._placed(meta, n.DicePool(span=self.here, value=value))

    def resist_spec(self, meta: Any, active: n.Expr, passive: n.Expr) -> n.ResistSpec:
        return self._placed(meta, n.ResistSpec(span=self.here, active=active, passive=passive))

    def opposed_spec(self, meta: Any, *children: Any) -> n.OpposedSpec:
        pools: list[n.Pool | n.DicePool] = []
        bonuses: list[n.Expr | None] = [None, None]
        for child in children:
            if isinstance(child, (n.Pool, n.DicePool)):
                pools.append(child)
                continue
            before = bonuses[len(pools) - 1]
            if before is None:
                bonuses[len(pools) - 1] = child
            elif isinstance(child, n.Negate):  # `+ a - b`: one bonus, as written
                bonuses[len(pools) - 1] = self._binary(meta, "-", before, child.operand)
            else:
                bonuses[len(pools) - 1] = self._binary(meta, "+", before, child)
        return self._placed(meta, n.OpposedSpec(
            span=self.here,
            pool=pools[0],
            bonus=bonuses[0],
            against=pools[1],
            against_bonus=bonuses[1],
        ))

    def bonus(self, meta: Any, sign: str, value: n.Expr) -> n.Expr:
        return value if sign == "+" else self._placed(meta, n.Negate(span=self.here, operand=value))

    def automatic_spec(self, meta: Any, kind: str) -> n.AutomaticSpec:
        return self._placed(meta, n.AutomaticSpec(span=self.here, success=kind == "success"))

    def outcome_kind(self, meta: Any, word: Token) -> str:
        return str(word)

    def _pool(self, meta: Any, token: Token, keep: str | None) -> n.Pool:
        text = str(token).lower()
        count_text, _, sides_text = text.partition("d")
        count = int(count_text) if count_text else 1
        return self._placed(meta, n.Pool(span=self.here, count=count, sides=int(sides_text), keep=keep))

    def sum_pool(self, meta: Any, token: Token) -> n.Pool:
        return self._pool(meta, token, None)

    def keep_pool(self, meta: Any, keep: str, *rest: n.Expr | tuple[int | None, int | None]) -> n.Pool | n.DicePool:
        """`highest 3 of 5d10`: a pool known when writing; `highest trait of (ring + skill) d10`,
        `highest 2 of (2d6 + exploding d6)`, `highest 2 of 3d8 ignoring 1`: dice worked out when
        resolving."""
        amount, operand, ignoring = self._keep_parts(rest)
        literal = amount is None or (isinstance(amount, n.Number) and amount.value.denominator == 1)
        if literal and ignoring is None and isinstance(operand, n.DiceLiteral):
            kept = f"{keep} {int(amount.value)}" if isinstance(amount, n.Number) else keep
            return self._placed(meta, n.Pool(span=self.here, count=operand.count, sides=operand.sides, keep=kept))
        value = self.kept_dice(meta, keep, *rest)
        return self._placed(meta, n.DicePool(span=self.here, value=value))

    def kept_dice(self, meta: Any, keep: str, *rest: n.Expr | tuple[int | None, int | None]) -> n.PoolDice:
        amount, operand, ignoring = self._keep_parts(rest)
        return self._placed(
            meta, n.PoolDice(span=self.here, op=keep, operand=operand, amount=amount, ignoring=ignoring)  # type: ignore[arg-type]
        )

    def left_die(self, meta: Any, keep: str, *rest: n.Expr | tuple[int | None, int | None] | int) -> n.LeftDie:
        """`largest die left by highest 2 of (d6 + d8 + d8) ignoring 1 else 4`."""
        *parts, otherwise = rest
        kept = self.kept_dice(meta, keep, *cast(list[n.Expr | tuple[int | None, int | None]], parts))
        return self._placed(meta, n.LeftDie(span=self.here, keep=kept, otherwise=cast(int, otherwise)))

    def ignoring(self, meta: Any, faces: tuple[int | None, int | None]) -> tuple[int | None, int | None]:
        return faces

    @staticmethod
    def _keep_parts(
        rest: Sequence[n.Expr | tuple[int | None, int | None]],
    ) -> tuple[n.Expr | None, n.Expr, tuple[int | None, int | None] | None]:
        """How many a keep keeps (None: one), its dice, and the faces it passes over."""
        ignoring = rest[-1] if isinstance(rest[-1], tuple) else None
        exprs = [x for x in rest if not isinstance(x, tuple)]
        amount, operand = (exprs[0], exprs[1]) if len(exprs) == 2 else (None, exprs[0])
        if amount is not None and isinstance(amount, n.Number) and amount.value < 1:
            raise _BuildError("keep at least one die", amount.span, "E303")
        return amount, operand, ignoring

    def exploding_dice(self, meta: Any, operand: n.Expr, times: n.Expr | None = None) -> n.PoolDice:
        return self._placed(meta, n.PoolDice(span=self.here, op="exploding", operand=operand, amount=times))

    def showing_dice(self, meta: Any, operand: n.Expr, faces: tuple[int | None, int | None]) -> n.FacedDice:
        return self._placed(meta, n.FacedDice(span=self.here, op="showing", operand=operand, low=faces[0], high=faces[1]))

    def rerolling_dice(self, meta: Any, operand: n.Expr, faces: tuple[int | None, int | None]) -> n.FacedDice:
        return self._placed(
            meta, n.FacedDice(span=self.here, op="rerolling", operand=operand, low=faces[0], high=faces[1])
        )

    def cancelling(self, meta: Any, *rest: int | Token) -> tuple[int, int, n.Name]:
        """`cancelling highest when natural 1 on wild`: the faces and the die."""
        numbers = [x for x in rest if isinstance(x, int)]
        name = next(x for x in rest if isinstance(x, Token))
        if numbers[0] > numbers[-1]:
            raise _BuildError(
                f"faces {numbers[0]}..{numbers[-1]} run downwards: write the lower face first", self._span(meta), "E303"
            )
        return numbers[0], numbers[-1], self._name(name)

    def cancelling_dice(self, meta: Any, operand: n.Expr, cancel: tuple[int, int, n.Name]) -> n.CancellingDice:
        low, high, die = cancel
        return self._placed(meta, n.CancellingDice(span=self.here, operand=operand, low=low, high=high, die=die))

    def cancelling_pool(self, meta: Any, pool: n.Pool | n.DicePool, cancel: tuple[int, int, n.Name]) -> n.DicePool:
        """`roll check: (2d6 + exploding d6 as wild) cancelling highest when natural 1 on wild >= 11`."""
        operand = pool.value if isinstance(pool, n.DicePool) else self._pool_expr(meta, pool)
        value = self.cancelling_dice(meta, operand, cancel)
        return self._placed(meta, n.DicePool(span=self.here, value=value))

    def faces_one(self, meta: Any, face: int) -> tuple[int | None, int | None]:
        return face, face

    def faces_range(self, meta: Any, low: int, high: int) -> tuple[int | None, int | None]:
        if low > high:
            raise _BuildError(f"faces {low}..{high} run downwards: write the lower face first", self._span(meta), "E303")
        return low, high

    def faces_from(self, meta: Any, face: int) -> tuple[int | None, int | None]:
        return face, None

    def faces_up_to(self, meta: Any, face: int) -> tuple[int | None, int | None]:
        return None, face

    def paired_dice(self, meta: Any, first: n.Expr, second: n.Expr) -> n.PairedDice:
        return self._placed(meta, n.PairedDice(span=self.here, first=first, second=second))

    def paired_pool(self, meta: Any, first: n.Pool | n.DicePool, second: n.Pool | n.DicePool) -> n.DicePool:
        """`roll battle: opposed 3d6 vs 2d6 by pairs`: the pairs won, a roll's dice."""
        sides = [pool.value if isinstance(pool, n.DicePool) else self._pool_expr(meta, pool) for pool in (first, second)]
        value = self.paired_dice(meta, sides[0], sides[1])
        return self._placed(meta, n.DicePool(span=self.here, value=value))

    def explosions(self, meta: Any, times: n.Expr, *word: Token) -> n.Expr:
        return times

    def named_die(self, meta: Any, operand: n.Expr, name: Token) -> n.NamedDie:
        return self._placed(meta, n.NamedDie(span=self.here, operand=operand, name=self._name(name)))

    def named_pool(self, meta: Any, pool: n.Pool | n.DicePool, name: Token) -> n.DicePool:
        operand = pool.value if isinstance(pool, n.DicePool) else self._pool_expr(meta, pool)
        value = self._placed(meta, n.NamedDie(span=self.here, operand=operand, name=self._name(name)))
        return self._placed(meta, n.DicePool(span=self.here, value=value))

    def showing_pool(self, meta: Any, pool: n.Pool | n.DicePool, faces: tuple[int | None, int | None]) -> n.DicePool:
        """`roll two_sixes: 5d6 showing 6 >= 2`: how many dice show the faces, a roll's dice."""
        return self._faced_pool(meta, "showing", pool, faces)

    def rerolling_pool(self, meta: Any, pool: n.Pool | n.DicePool, faces: tuple[int | None, int | None]) -> n.DicePool:
        return self._faced_pool(meta, "rerolling", pool, faces)

    def _faced_pool(
        self, meta: Any, op: str, pool: n.Pool | n.DicePool, faces: tuple[int | None, int | None]
    ) -> n.DicePool:
        operand = pool.value if isinstance(pool, n.DicePool) else self._pool_expr(meta, pool)
        value = n.FacedDice(span=self.here, op=op, operand=operand, low=faces[0], high=faces[1])  # type: ignore[arg-type]
        return self._placed(meta, n.DicePool(span=self.here, value=self._placed(meta, value)))

    def _pool_expr(self, meta: Any, pool: n.Pool) -> n.Expr:
        """A pool known when writing as the dice value it is (to name a die of it)."""
        dice = self._placed(meta, n.DiceLiteral(span=self.here, count=pool.count, sides=pool.sides))
        if pool.keep is None or pool.keep == "fate":
            if pool.keep == "fate":
                raise _BuildError("a Fate die has no name to read a natural face by", self._span(meta), "E203")
            return dice
        op, _, kept = pool.keep.partition(" ")
        amount = None
        if kept:
            amount = self._placed(meta, n.Number(span=self.here, value=Fraction(int(kept)), literal=kept))
        return self._placed(meta, n.PoolDice(span=self.here, op=op, operand=dice, amount=amount))  # type: ignore[arg-type]

    def fate_pool(self, meta: Any, token: Token) -> n.Pool:
        count_text = str(token)[:-2]
        return self._placed(meta, n.Pool(span=self.here, count=int(count_text) if count_text else 1, sides=3, keep="fate"))

    def exploding_pool(self, meta: Any, operand: n.Expr, times: n.Expr | None = None) -> n.Pool | n.DicePool:
        """`exploding d6`: a pool known when writing; `exploding (skill) d10`, `exploding d10 at
        most 4 times`: dice worked out when resolving."""
        if times is None and isinstance(operand, n.DiceLiteral):
            return self._placed(meta, n.Pool(span=self.here, count=operand.count, sides=operand.sides, keep="exploding"))
        value = self.exploding_dice(meta, operand, times)
        return self._placed(meta, n.DicePool(span=self.here, value=value))

    def keep(self, meta: Any, word: Token) -> str:
        return str(word)

    def guarded_change(self, meta: Any, guard: str, condition: n.Expr, change: n.GuardedChange) -> n.GuardedChange:
        return self._placed(meta, n.GuardedChange(
            span=self.here, negated=guard == "unless", condition=condition, change=change.change
        ))

    def pool_change(self, meta: Any, pool: n.Pool | n.DicePool) -> n.GuardedChange:
        return self._unguarded(meta, self._placed(meta, n.PoolChange(span=self.here, pool=pool)))

    def dice_change(self, meta: Any, sign: str, number: Token) -> n.GuardedChange:
        return self._unguarded(meta, self._placed(meta, n.DiceChange(span=self.here, delta=self._delta(sign, number))))

    def target_change(self, meta: Any, sign: str, value: n.Expr) -> n.GuardedChange:
        if sign == "-":
            value = n.Negate(span=value.span, operand=value)
        return self._unguarded(meta, self._placed(meta, n.TargetChange(span=self.here, delta=value)))

    def automatic_change(self, meta: Any, kind: str) -> n.GuardedChange:
        return self._unguarded(meta, self._placed(meta, n.AutomaticChange(span=self.here, success=kind == "success")))

    def tiers_change(self, meta: Any, name: Token) -> n.GuardedChange:
        return self._unguarded(meta, self._placed(meta, n.TiersChange(span=self.here, name=self._name(name))))

    def _unguarded(self, meta: Any, change: n.RollChange) -> n.GuardedChange:
        return self._placed(meta, n.GuardedChange(span=self.here, negated=False, condition=None, change=change))

    def outcome_item(self, meta: Any, name: Token, *rest: Any) -> n.OutcomeItem:
        by_margin = any(r == "margin" for r in rest if isinstance(r, str))
        said = [r for r in rest if isinstance(r, tuple)]
        for extra in said[1:]:
            where = extra[0].span if extra[0] is not None else extra[1].span
            raise _BuildError("an outcome says one text (and sends to one table)", where, "E205")
        consequences = tuple(r for r in rest if isinstance(r, (n.Modifier, n.AsStmt)))
        return self._placed(meta, n.OutcomeItem(
            span=self.here,
            outcome=self._name(name),
            by_margin=by_margin,
            text=said[0][0] if said else None,
            step=said[0][1] if said else None,
            consequences=consequences,
        ))

    def outcome_as(self, meta: Any, name: Token) -> n.AsStmt:
        return self._placed(meta, n.AsStmt(span=self.here, rules=(self._name(name),), bindings=()))

    def margin(self, meta: Any) -> str:
        return "margin"

    def outcome(self, meta: Any, *children: Any) -> tuple[n.Text | None, n.Step | None]:
        text = next(self._split(children, n.Text), None)
        step = next(self._split(children, n.Step), None)
        return (text, step)

    def tiers_ref(self, meta: Any, name: Token) -> n.TiersRef:
        return self._placed(meta, n.TiersRef(span=self.here, name=self._name(name)))

    def ties_item(self, meta: Any, name: Token) -> n.TiesItem:
        return self._placed(meta, n.TiesItem(span=self.here, winner=self._name(name)))

    def separate_item(self, meta: Any) -> n.SeparateItem:
        return self._placed(meta, n.SeparateItem(span=self.here))

    # -- tables

    def table_decl(self, meta: Any, name: Token, *children: Any) -> n.TableDecl:
        cites = next((c[1] for c in children if isinstance(c, tuple) and c[0] == "cites"), None)
        items: list[n.TableItem] = []
        for child in children:
            if isinstance(child, n.TableItem):
                items.append(child)
            elif isinstance(child, (n.NoteStmt, n.ErratumStmt, n.AsideStmt, n.CategoryStmt)):
                items.append(n.TableStmt(span=child.span, statement=child))
        return self._placed(meta, n.TableDecl(
            span=self.here,
            name=self._name(name),
            title=self._optional_text(children),
            cites=cites,
            key=next(self._split(children, n.TableKey)),
            items=tuple(items),
        ))

    def roll_key(self, meta: Any, pool: n.Pool | n.DicePool, modifier: Any = None) -> n.RollKey:
        if isinstance(pool, n.DicePool):
            # a table's rows cover the totals of its dice, so they are known when writing it
            raise _BuildError(
                "a table is rolled on dice known when writing it, not on dice worked out when resolving",
                pool.span,
                "E203",
                "roll plain dice, kept or exploding without a bound: `roll 2d6`, `roll highest of 2d6`, `roll exploding d6`",
            )
        sign, name = modifier if modifier else ("+", None)
        return self._placed(meta, n.RollKey(
            span=self.here,
            pool=pool,
            modifier=self._name(name) if name is not None else None,
            modifier_sign=-1 if sign == "-" else 1,
        ))

    def roll_mod(self, meta: Any, sign: str, name: Token) -> tuple[str, Token]:
        return (sign, name)

    def input_key(self, meta: Any, *names: Token) -> n.InputKey:
        return self._placed(meta, n.InputKey(span=self.here, inputs=tuple(self._name(t) for t in names)))

    def columns(self, meta: Any, *columns: n.Column) -> n.Columns:
        return self._placed(meta, n.Columns(span=self.here, columns=columns))

    def column(self, meta: Any, name: Token, label: Token | None = None) -> n.Column:
        return self._placed(meta, n.Column(
            span=self.here,
            name=self._name(name),
            label=self._text(label) if label is not None else None,
        ))

    def row(self, meta: Any, key: n.RowKey, *cells: n.Cell) -> n.Row:
        return self._placed(meta, n.Row(span=self.here, key=key, cells=cells))

    def overflow(self, meta: Any, above: Token, becomes: Token, step: n.Step | None = None) -> n.Overflow:
        return self._placed(meta, n.Overflow(span=self.here, above=self._int(above), becomes=self._int(becomes), step=step))

    def chain_depth(self, meta: Any, depth: Token) -> n.ChainDepth:
        return self._placed(meta, n.ChainDepth(span=self.here, depth=self._int(depth)))

    def row_number(self, meta: Any, *tokens: Token) -> int:
        number = self._int(tokens[-1])
        return -number if len(tokens) > 1 or str(tokens[0]) == "-" else number

    def key_single(self, meta: Any, value: int) -> n.KeyRange:
        return self._placed(meta, n.KeyRange(span=self.here, low=value, high=value, open=False))

    def key_range(self, meta: Any, low: int, high: int) -> n.KeyRange:
        return self._placed(meta, n.KeyRange(span=self.here, low=low, high=high, open=False))

    def key_open(self, meta: Any, low: int) -> n.KeyRange:
        return self._placed(meta, n.KeyRange(span=self.here, low=low, high=None, open=True))

    def key_name(self, meta: Any, name: Token) -> n.KeyName:
        return self._placed(meta, n.KeyName(span=self.here, name=self._name(name)))

    def key_else(self, meta: Any) -> n.KeyElse:
        return self._placed(meta, n.KeyElse(span=self.here))

    def value_cell(self, meta: Any, value: n.Expr, step: n.Step | None = None) -> n.ValueCell:
        return self._placed(meta, n.ValueCell(span=self.here, value=value, step=step))

    def impassable_cell(self, meta: Any) -> n.ImpassableCell:
        return self._placed(meta, n.ImpassableCell(span=self.here))

    def na_cell(self, meta: Any, _token: Token) -> n.NACell:
        return self._placed(meta, n.NACell(span=self.here))

    def step_cell(self, meta: Any, step: n.Step) -> n.StepCell:
        return self._placed(meta, n.StepCell(span=self.here, step=step))

    def roll_on(self, meta: Any, table: Token, offset: int = 0) -> n.RollOn:
        return self._placed(meta, n.RollOn(span=self.here, table=self._name(table), offset=offset))

    def roll_twice(self, meta: Any) -> n.RollTwice:
        return self._placed(meta, n.RollTwice(span=self.here))

    def roll_again(self, meta: Any, offset: int = 0) -> n.RollAgain:
        return self._placed(meta, n.RollAgain(span=self.here, offset=offset))

    def roll_offset(self, meta: Any, sign: str, number: Token) -> int:
        return self._delta(sign, number)

    # -- examples

    def example_decl(self, meta: Any, title: Token, *children: Any) -> n.ExampleDecl:
        rules = next((c for c in children if isinstance(c, tuple) and c and c[0] == "for"), ("for",))
        givens: list[n.Binding] = []
        expectations: list[n.Expectation] = []
        for child in children:
            if isinstance(child, list):
                for item in child:
                    (givens if isinstance(item, n.Binding) else expectations).append(item)
        over = [c for c in children if isinstance(c, tuple) and c and c[0] == "over"]
        return self._placed(meta, n.ExampleDecl(
            span=self.here,
            title=self._text(title),
            rules=tuple(rules[1:]),
            rounds=over[-1][1] if over else None,
            givens=tuple(givens),
            expectations=tuple(expectations),
        ))

    def for_rules(self, meta: Any, *names: Token) -> tuple[Any, ...]:
        return ("for", *(self._name(t) for t in names))

    def given(self, meta: Any, *bindings: n.Binding) -> list[n.Binding]:
        return list(bindings)

    def expect(self, meta: Any, *expectations: n.Expectation) -> list[n.Expectation]:
        return list(expectations)

    def expect_value(self, meta: Any, name: Token, value: n.Expr) -> n.ExpectValue:
        return self._placed(meta, n.ExpectValue(span=self.here, name=self._name(name), value=value))

    def expect_column(self, meta: Any, table: Token, column: Token, value: n.Expr) -> n.ExpectColumn:
        return self._placed(meta, n.ExpectColumn(span=self.here, table=self._name(table), column=self._name(column), value=value))

    def expect_roll(self, meta: Any, name: Token, value: n.Expr) -> n.ExpectRoll:
        return self._placed(meta, n.ExpectRoll(span=self.here, roll=self._name(name), tier=None, value=value))

    def expect_tier(self, meta: Any, name: Token, tier: Token, value: n.Expr) -> n.ExpectRoll:
        return self._placed(meta, n.ExpectRoll(span=self.here, roll=self._name(name), tier=self._name(tier), value=value))

    def expect_no_roll(self, meta: Any, name: Token) -> n.ExpectNoRoll:
        return self._placed(meta, n.ExpectNoRoll(span=self.here, roll=self._name(name)))

    def expect_chain(self, meta: Any, row: Token, value: n.Expr) -> n.ExpectChain:
        return self._placed(meta, n.ExpectChain(span=self.here, row=self._text(row), value=value))

    def expect_cannot(self, meta: Any, text: Token) -> n.ExpectCannot:
        return self._placed(meta, n.ExpectCannot(span=self.here, text=self._text(text)))

    def expect_suppressed(self, meta: Any, name: Token) -> n.ExpectSuppressed:
        return self._placed(meta, n.ExpectSuppressed(span=self.here, rule=self._name(name)))

    def expect_chance(self, meta: Any, name: Token, op: str, bound: int, value: n.Expr) -> n.ExpectChance:
        # the bound is a whole number: `chance NAME >= 6 = ...` (an expression there would leave `=`
        # after one, and blur the parser's account of `when x = 1`)
        number = self._placed(meta, n.Number(span=self.here, value=Fraction(bound), literal=str(bound)))
        return self._placed(meta, n.ExpectChance(span=self.here, name=self._name(name), op=op, bound=number, value=value))

    def expect_lasting(self, meta: Any, value: n.Expr) -> n.ExpectLasting:
        return self._placed(meta, n.ExpectLasting(span=self.here, value=value))

    def over_rounds(self, meta: Any, count: Token, unit: Token) -> tuple[str, int]:
        return ("over", self._int(count))

    # -- balance

    def balance_decl(self, meta: Any, title: Token, *children: Any) -> n.BalanceDecl:
        rules = next((c for c in children if isinstance(c, tuple) and c and c[0] == "for"), ("for",))
        space: list[n.OverAxis] = []
        givens: list[n.Binding] = []
        claims: list[n.Claim] = []
        for child in children:
            if isinstance(child, list):
                for item in child:
                    (space if isinstance(item, n.OverAxis) else givens).append(item)
            elif isinstance(child, n.Claim):
                claims.append(child)
        return self._placed(meta, n.BalanceDecl(
            span=self.here,
            title=self._text(title),
            rules=tuple(rules[1:]),
            space=tuple(space),
            givens=tuple(givens),
            claims=tuple(claims),
        ))

    def balance_over(self, meta: Any, *axes: n.OverAxis) -> list[n.OverAxis]:
        return list(axes)

    def balance_expect(self, meta: Any, claim: n.Claim) -> n.Claim:
        return claim

    def over_range(self, meta: Any, name: Token, low: n.Amount, high: n.Amount, step: n.Amount | None = None) -> n.OverRange:
        return self._placed(meta, n.OverRange(span=self.here, name=self._name(name), low=low, high=high, step=step))

    def over_step(self, meta: Any, step: n.Amount) -> n.Amount:
        return step

    def over_members(self, meta: Any, name: Token, members: tuple[n.Name, ...]) -> n.OverMembers:
        return self._placed(meta, n.OverMembers(span=self.here, name=self._name(name), members=members))

    def over_every(self, meta: Any, name: Token) -> n.OverEvery:
        return self._placed(meta, n.OverEvery(span=self.here, name=self._name(name)))

    def claim_between(self, meta: Any, measure: n.Measure, low: n.Amount, high: n.Amount) -> n.ClaimBetween:
        return self._placed(meta, n.ClaimBetween(span=self.here, measure=measure, low=low, high=high))

    def claim_bound(self, meta: Any, measure: n.Measure, op: str, bound: n.Amount) -> n.ClaimBound:
        return self._placed(meta, n.ClaimBound(span=self.here, measure=measure, op=op, bound=bound))

    def claim_versus(
        self, meta: Any, measure: n.Measure, op: str, other: n.Measure, offset: n.Amount | None = None
    ) -> n.ClaimVersus:
        return self._placed(meta, n.ClaimVersus(span=self.here, measure=measure, op=op, other=other, offset=offset))

    def claim_versus_less(self, meta: Any, measure: n.Measure, op: str, other: n.Measure, offset: n.Amount) -> n.ClaimVersus:
        less = dataclasses.replace(offset, value=-offset.value)
        return self._placed(meta, n.ClaimVersus(span=self.here, measure=measure, op=op, other=other, offset=less))

    def chance_measure(self, meta: Any, name: Token, *rest: Any) -> n.ChanceMeasure:
        tier = next((self._name(r) for r in rest if isinstance(r, Token)), None)
        variant = next((r for r in rest if isinstance(r, tuple)), ())
        return self._placed(meta, n.ChanceMeasure(span=self.here, name=self._name(name), variant=variant, tier=tier))

    def average_measure(self, meta: Any, name: Token, variant: tuple[n.Name, ...] = ()) -> n.AverageMeasure:
        return self._placed(meta, n.AverageMeasure(span=self.here, name=self._name(name), variant=variant))

    def value_measure(self, meta: Any, name: Token, variant: tuple[n.Name, ...] = ()) -> n.ValueMeasure:
        return self._placed(meta, n.ValueMeasure(span=self.here, name=self._name(name), variant=variant))

    def variant(self, meta: Any, *names: Token) -> tuple[n.Name, ...]:
        return tuple(self._name(name) for name in names)

    def percent_amount(self, meta: Any, number: Token) -> n.Amount:
        value = _fraction(str(number)) / 100
        return self._placed(meta, n.Amount(span=self.here, value=value, percent=True))

    def ratio_amount(self, meta: Any, numerator: Token, denominator: Token) -> n.Amount:
        below = _fraction(str(denominator))
        if below == 0:
            raise _BuildError("a ratio cannot divide by 0", self._token_span(denominator), "E301")
        return self._placed(meta, n.Amount(span=self.here, value=_fraction(str(numerator)) / below))

    def plain_amount(self, meta: Any, number: Token) -> n.Amount:
        return self._placed(meta, n.Amount(span=self.here, value=_fraction(str(number))))

    def negative_amount(self, meta: Any, number: Token) -> n.Amount:
        return self._placed(meta, n.Amount(span=self.here, value=-_fraction(str(number))))

    # -- sequences

    def sequence_block(self, meta: Any, unit: Token, *children: Any) -> n.SequenceBlock:
        counter = next((c for c in children if isinstance(c, tuple) and c[0] == "counter"), None)
        untils = [c for c in children if isinstance(c, tuple) and c[0] == "until"]
        if len(untils) > 1:
            raise _BuildError("a sequence has one `until`: the outcome that ends it", untils[1][5], "E001")
        until = untils[0] if untils else None
        totals = tuple(name for c in children if isinstance(c, tuple) and c[0] == "total" for name in c[1])
        return self._placed(meta, n.SequenceBlock(
            span=self.here,
            unit=self._name(unit),
            counter=counter[1] if counter else None,
            start=counter[2] if counter else None,
            until_roll=until[1] if until else None,
            until_outcome=until[2] if until else None,
            then=until[4] if until else None,
            totals=totals,
            until_times=until[3] if until else None,
            counts=tuple(c for c in children if isinstance(c, n.SequenceCount)),
        ))

    def sequence_counter(self, meta: Any, counter: Token, start: int | None = None) -> tuple[str, n.Name, int | None]:
        return ("counter", self._name(counter), start)

    def sequence_start(self, meta: Any, number: Token) -> int:
        return self._int(number)

    def sequence_until(self, meta: Any, roll: Token, outcome: Token, *rest: Any) -> tuple[Any, ...]:
        times = next((x for x in rest if isinstance(x, int)), None)
        then = next((x for x in rest if isinstance(x, n.Binding)), None)
        return ("until", self._name(roll), self._name(outcome), times, then, self._span(meta))

    def sequence_times(self, meta: Any, number: Token) -> int:
        return self._int(number)

    def sequence_count(self, meta: Any, roll: Token, outcome: Token, into: Token) -> n.SequenceCount:
        return self._placed(meta, n.SequenceCount(
            span=self.here, roll=self._name(roll), outcome=self._name(outcome), into=self._name(into)
        ))

    def sequence_total(self, meta: Any, *names: Token) -> tuple[str, tuple[n.Name, ...]]:
        return ("total", tuple(self._name(name) for name in names))

    def sequence_then(self, meta: Any, name: Token, value: n.Expr) -> n.Binding:
        return self._placed(meta, n.Binding(span=self.here, name=self._name(name), value=value))

    # -- expressions

    def or_op(self, meta: Any, left: n.Expr, right: n.Expr) -> n.BoolOp:
        return self._placed(meta, n.BoolOp(span=self.here, op="or", left=left, right=right))

    def and_op(self, meta: Any, left: n.Expr, right: n.Expr) -> n.BoolOp:
        return self._placed(meta, n.BoolOp(span=self.here, op="and", left=left, right=right))

    def not_op(self, meta: Any, operand: n.Expr) -> n.Not:
        return self._placed(meta, n.Not(span=self.here, operand=operand))

    def cmp(self, meta: Any, token: Token) -> str:
        return str(token)

    def compare(self, meta: Any, left: n.Expr, op: str, right: n.Expr) -> n.Compare:
        return self._placed(meta, n.Compare(span=self.here, op=op, left=left, right=right))  # type: ignore[arg-type]

    def member(self, meta: Any, operand: n.Expr, members: tuple[n.Name, ...]) -> n.Member:
        return self._placed(meta, n.Member(span=self.here, operand=operand, members=members, negated=False))

    def not_member(self, meta: Any, operand: n.Expr, members: tuple[n.Name, ...]) -> n.Member:
        return self._placed(meta, n.Member(span=self.here, operand=operand, members=members, negated=True))

    def set_literal(self, meta: Any, members: tuple[n.Name, ...]) -> tuple[n.Name, ...]:
        return members

    def rounded(self, meta: Any, operand: n.Expr, mode: str) -> n.Rounded:
        return self._placed(meta, n.Rounded(span=self.here, operand=operand, mode=mode))  # type: ignore[arg-type]

    def _binary(self, meta: Any, op: str, left: n.Expr, right: n.Expr) -> n.Binary:
        return self._placed(meta, n.Binary(span=self.here, op=op, left=left, right=right))  # type: ignore[arg-type]

    def add(self, meta: Any, left: n.Expr, right: n.Expr) -> n.Binary:
        return self._binary(meta, "+", left, right)

    def sub(self, meta: Any, left: n.Expr, right: n.Expr) -> n.Binary:
        return self._binary(meta, "-", left, right)

    def mul(self, meta: Any, left: n.Expr, right: n.Expr) -> n.Binary:
        return self._binary(meta, "*", left, right)

    def div(self, meta: Any, left: n.Expr, right: n.Expr) -> n.Binary:
        return self._binary(meta, "/", left, right)

    def pow(self, meta: Any, left: n.Expr, right: n.Expr) -> n.Binary:
        return self._binary(meta, "^", left, right)

    def neg(self, meta: Any, operand: n.Expr) -> n.Expr:
        if isinstance(operand, n.Number):
            return self._placed(meta, n.Number(span=self.here, value=-operand.value, literal="-" + operand.literal))
        return self._placed(meta, n.Negate(span=self.here, operand=operand))

    def per_steps(self, meta: Any, *parts: Any) -> n.PerSteps:
        *counted, unit, quantity = parts
        step = n.Number(span=self.here, value=Fraction(1), literal="1", unit=self._name(unit))
        if counted:
            literal = str(counted[0])
            step = n.Number(span=self.here, value=_fraction(literal), literal=literal, unit=self._name(unit))
        self._placed(meta, step)
        division = self._placed(meta, n.Binary(span=self.here, op="/", left=quantity, right=step))
        return self._placed(meta, n.PerSteps(span=self.here, operand=division, mode="down", counted=bool(counted)))

    def per_count(self, meta: Any, amount: n.Expr, steps: n.PerSteps) -> n.Expr:
        """`AMOUNT per STEPS` lowered: the amount times the steps; dice written as dice (`1d6`,
        `skill d6`) become that many more dice, not a total scaled."""
        if isinstance(amount, n.DiceLiteral):
            if amount.count == 1:
                return self._placed(meta, n.DiceCount(span=self.here, count=steps, sides=amount.sides))
            count: n.Expr = n.Number(span=amount.span, value=Fraction(amount.count), literal=str(amount.count))
            times = self._placed(meta, n.Binary(span=self.here, op="*", left=count, right=steps))
            return self._placed(meta, n.DiceCount(span=self.here, count=times, sides=amount.sides))
        if isinstance(amount, n.DiceCount):
            times = self._placed(meta, n.Binary(span=self.here, op="*", left=amount.count, right=steps))
            return self._placed(meta, n.DiceCount(span=self.here, count=times, sides=amount.sides))
        return self._binary(meta, "*", amount, steps)

    def dice_count(self, meta: Any, count: n.Expr, die: Token) -> n.DiceCount:
        sides = int(str(die)[1:])
        return self._placed(meta, n.DiceCount(span=self.here, count=count, sides=sides))

    def number(self, meta: Any, token: Token) -> n.Number:
        literal = str(token)
        return self._placed(meta, n.Number(span=self.here, value=_fraction(literal), literal=literal))

    def quantity(self, meta: Any, token: Token, unit: Token) -> n.Number:
        literal = str(token)
        number = n.Number(span=self.here, value=_fraction(literal), literal=literal, unit=self._name(unit))
        return self._placed(meta, number)

    def dice_literal(self, meta: Any, token: Token) -> n.DiceLiteral:
        text = str(token).lower()
        count_text, _, sides_text = text.partition("d")
        return self._placed(meta, n.DiceLiteral(span=self.here, count=int(count_text) if count_text else 1, sides=int(sides_text)))

    def text_literal(self, meta: Any, token: Token) -> n.TextLiteral:
        return self._placed(meta, n.TextLiteral(span=self.here, value=self._string(token)))

    def true(self, meta: Any) -> n.Boolean:
        return self._placed(meta, n.Boolean(span=self.here, value=True))

    def false(self, meta: Any) -> n.Boolean:
        return self._placed(meta, n.Boolean(span=self.here, value=False))

    def impassable_literal(self, meta: Any) -> n.SpecialLiteral:
        return self._placed(meta, n.SpecialLiteral(span=self.here, text="X"))

    def na_literal(self, meta: Any, _token: Token) -> n.SpecialLiteral:
        return self._placed(meta, n.SpecialLiteral(span=self.here, text="N/A"))

    def name(self, meta: Any, token: Token) -> n.NameRef:
        return self._placed(meta, n.NameRef(span=self.here, name=str(token)))

    def base_ref(self, meta: Any, token: Token) -> n.BaseRef:
        return self._placed(meta, n.BaseRef(span=self.here, name=str(token)))

    def call(self, meta: Any, function: Token, *args: n.Expr) -> n.Call:
        return self._placed(meta, n.Call(span=self.here, function=self._name(function), args=args))

    def lookup(self, meta: Any, table: Token, *keys: n.Expr) -> n.Lookup:
        return self._placed(meta, n.Lookup(span=self.here, table=self._name(table), keys=keys, column=None))

    def lookup_column(self, meta: Any, table: Token, *rest: Any) -> n.Lookup:
        column = rest[-1]
        return self._placed(meta, n.Lookup(
            span=self.here, table=self._name(table), keys=tuple(rest[:-1]), column=self._name(column)
        ))


_ALWAYS_RESERVED = frozenset({"and", "or", "not", "in", "is", "yes", "no", "vs"})
"""Words kept out of names for readability, though the grammar could tell them apart."""


@functools.cache
def reserved_words() -> frozenset[str]:
    """The words a declaration may not take as its name.

    Exactly the keywords the parser could confuse with a name: those it accepts in some state
    where a name is accepted too (`note` at the start of a statement, `int` where a type goes),
    plus the operators of conditions.  Every other keyword (`round`, `level`, `min`, `target`,
    `success` ...) is a keyword only where a name cannot stand, so it stays free for names.

    A unit after a number (`10 ft`) is the one name that may follow a number: the words that
    may follow one too (`round`, `level`, `die` ...) are kept from units alone (`unit_words`),
    not from every name.
    """
    from dsl import store

    name = f"reserved-{_grammar_key(grammar_text())}.json"
    saved = store.load_saved(name)
    if saved is not None:
        try:
            words = json.loads(saved)
            if isinstance(words, list) and all(isinstance(w, str) and w.isidentifier() for w in words):
                return frozenset(words)
        except ValueError:  # cut short or not JSON: worked out again and replaced
            pass
    # a second LALR build of the grammar (about a second): kept beside the parser's tables
    found = _confusable(_without_quantities()) | _ALWAYS_RESERVED

    def write(handle: IO[bytes]) -> None:
        handle.write(json.dumps(sorted(found)).encode("utf-8"))

    store.save(name, write)
    return found


@functools.cache
def unit_words() -> frozenset[str]:
    """Words a unit may not be named: the keywords that may follow a number (`2 round up`)."""
    return _confusable(_lark()) - reserved_words()


def _confusable(parser: Lark) -> frozenset[str]:
    keywords = {
        t.name: t.pattern.value for t in parser.terminals if t.pattern.type == "str" and t.pattern.value.isidentifier()
    }
    states = parser.parser.parser.parser.parse_table.states
    return frozenset(keywords[k] for actions in states.values() if "NAME" in actions for k in actions if k in keywords)


@functools.cache
def _without_quantities() -> Lark:
    text = "\n".join(line for line in grammar_text().split("\n") if "-> quantity" not in line)
    return Lark(text, parser="lalr", postlex=RulecraftIndenter(), strict=True)


@functools.cache
def keywords() -> frozenset[str]:
    """Every word of the language, as the grammar spells it (what an editor completes)."""
    return frozenset(
        t.pattern.value for t in _lark().terminals if t.pattern.type == "str" and t.pattern.value.isidentifier()
    )


Builder._METHODS = {
    name: method.base_func for name, method in vars(Builder).items() if hasattr(method, "visit_wrapper")
}
