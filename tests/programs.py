"""Rulebooks made up from the grammar, for the formatter's property tests.

`from_lark` draws token sequences from grammars/rulecraft.lark itself, so a construct added to
the grammar is drawn too.  The indenter's tokens come out as markers that are turned into real
indentation (a depth per file: any consistent depth is valid), and the layout is then spoiled the
way people spoil it: uneven spaces, lines broken inside brackets and with `\\`, comments at the
end of lines, on lines of their own (at any column) and inside brackets, blank lines, trailing
spaces, Windows line ends.  Names are drawn from a few that are keywords nowhere, so that most
programs parse; strings hold `#`, quotes, backslashes and non-ASCII text.
"""

from __future__ import annotations

import functools
import re

from hypothesis import strategies as st
from lark import Lark, Token

from dsl.parser import RulecraftIndenter
from dsl.resources import grammar_text

_MARK = "\x1f"
_BRACKETS = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
_TIGHT = frozenset("()[]{},:")
NAMES = ("a", "b", "DEX", "mud", "x1", "water_depth", "Zed", "round")
"""`round` is a keyword only where a name cannot stand: it must stay a name where it is one."""


@functools.cache
def _generator_grammar() -> Lark:
    """The grammar without its `%ignore` lines: the layout is drawn apart, not by from_lark."""
    text = "\n".join(line for line in grammar_text().split("\n") if not line.startswith("%ignore"))
    return Lark(text, parser="lalr", start=["header", "declaration"])


def _token(strategy: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return strategy.map(lambda text: _MARK + text)


_STRING_BODY = st.lists(
    st.sampled_from(["word", "a", " ", " ", "#", "# not a comment", '\\"', "\\\\", "\\n", "é", "x" * 30, "1D6+1"]),
    max_size=12,
).map("".join)

_TERMINALS = {
    "_NL": st.just(_MARK + "NL"),
    "_INDENT": st.just(_MARK + "IN"),
    "_DEDENT": st.just(_MARK + "DE"),
    "NAME": _token(st.sampled_from(NAMES)),
    "NUMBER": _token(
        st.integers(0, 7).flatmap(
            lambda k: st.from_regex(r"[0-9]{1,2}\.[0-9]{1,2}", fullmatch=True) if k == 0 else st.integers(0, 120).map(str)
        )
    ),
    "DICE": _token(st.from_regex(r"[1-9][0-9]?[dD](4|6|10|20)", fullmatch=True)),
    "DIE": _token(st.from_regex(r"[dD](4|6|20|100)", fullmatch=True)),
    "STRING": _token(_STRING_BODY.map(lambda body: f'"{body}"')),
}


_CHOICES = 6
"""How many times a path down the derivation may take an expansion that does not end soonest:
past that, only those that do are drawn.  It bounds the size of a program, not the length of
the grammar's chains (an expression is ten rules deep before it reaches a number)."""


@functools.cache
def _rules() -> tuple[dict[str, list[tuple[str, ...]]], dict[str, int]]:
    """The grammar's expansions by rule, and how deep each rule must go at least to end."""
    _, rules, _ = _generator_grammar().grammar.compile(["header", "declaration"], ())
    expansions: dict[str, list[tuple[str, ...]]] = {}
    for rule in rules:
        expansions.setdefault(rule.origin.name, []).append(tuple(symbol.name for symbol in rule.expansion))
    height: dict[str, int] = {}
    changed = True
    while changed:
        changed = False
        for name, choices in expansions.items():
            best = min(
                (1 + max((height.get(s, 0) if s in expansions else 0) for s in choice) if choice else 1)
                for choice in choices
                if all(s in height or s not in expansions for s in choice)
            ) if any(all(s in height or s not in expansions for s in c) for c in choices) else None
            if best is not None and height.get(name) != best:
                height[name] = best
                changed = True
    return expansions, height


@st.composite
def _derivation(draw: st.DrawFn, start: str) -> str:
    """Tokens derived from a rule of the grammar, drawing one expansion at each step."""
    expansions, height = _rules()
    out: list[str] = []
    pending: list[tuple[str, int]] = [(start, 0)]
    while pending:
        symbol, spent = pending.pop()
        if symbol not in expansions:
            out.append(draw(_terminal(symbol)))
            continue
        choices = expansions[symbol]
        lowest = min(_choice_height(c, height, expansions) for c in choices)
        soonest = [c for c in choices if _choice_height(c, height, expansions) == lowest]
        choice = draw(st.sampled_from(choices if spent < _CHOICES else soonest))
        spent += choice not in soonest
        pending.extend((s, spent) for s in reversed(choice))
    return "".join(out)


def _choice_height(choice: tuple[str, ...], height: dict[str, int], expansions: dict[str, object]) -> int:
    return max((height[s] for s in choice if s in expansions), default=0)


@functools.cache
def _terminal(name: str) -> st.SearchStrategy[str]:
    if name in _TERMINALS:
        return _TERMINALS[name]
    (terminal,) = [t for t in _generator_grammar().terminals if t.name == name]
    return _token(st.just(terminal.pattern.value))


_DECLARATIONS = ("declaration", "rule_decl", "rule_decl", "table_decl", "table_decl", "example_decl")
"""Where a declaration's derivation starts: any kind, and more often the kinds that hold the
most of the grammar."""


def _tokens() -> st.SearchStrategy[str]:
    """A header and a few declarations (the grammar lets the header out; the parser does not)."""
    declaration = st.sampled_from(_DECLARATIONS).flatmap(_derivation)
    declarations = st.lists(declaration, max_size=4).map("".join)
    return st.tuples(_derivation("header"), declarations).map("".join)


_COMMENT = st.lists(st.sampled_from(["note", " ", "x", '"', "\\", "#", "é", "then roll", ":"]), max_size=6).map(
    lambda parts: "#" + "".join(parts)
)


@st.composite
def programs(draw: st.DrawFn) -> str:
    """A rulebook's text: tokens from the grammar, laid out carelessly."""
    tokens = draw(_tokens()).split(_MARK)[1:]
    unit = draw(st.sampled_from([1, 2, 3, 4, 8]))
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    out: list[str] = []
    level = 0
    depth = 0
    at_line_start = True
    previous = ""
    for token in tokens:
        if token == "NL":
            if draw(st.integers(0, 5)) == 0:
                out.append("  " + draw(_COMMENT))
            out.append(" " * draw(st.integers(0, 1)) + newline)
            for _ in range(draw(st.integers(0, 2))):
                if draw(st.booleans()):
                    out.append(" " * draw(st.integers(0, 12)) + draw(_COMMENT) + newline)
                else:
                    out.append(newline)
            at_line_start, previous = True, ""
            continue
        if token in ("IN", "DE"):
            level += 1 if token == "IN" else -1
            continue
        if at_line_start:
            out.append(" " * (unit * level))
            at_line_start = False
        elif depth > 0 and draw(st.integers(0, 6)) == 0:
            comment = "  " + draw(_COMMENT) if draw(st.booleans()) else ""
            out.append(comment + newline + " " * draw(st.integers(0, 20)))
        elif depth == 0 and draw(st.integers(0, 12)) == 0:
            out.append(" \\" + newline + " " * draw(st.integers(0, 20)))
        else:
            tight = token in _TIGHT or previous in _TIGHT
            out.append(" " * draw(st.integers(0 if tight else 1, 3)))
        out.append(token)
        depth += _BRACKETS.get(token, 0)
        previous = token
    return "".join(out)


_found: list[str] = []


def _line_end(token: Token) -> Token:
    _found.extend(line.strip() for line in token.value.split("\n") if line.strip().startswith("#"))
    return token


def _comment(token: Token) -> Token:
    _found.append(token.value.rstrip())
    return token


@functools.cache
def _comment_parser() -> Lark:
    return Lark(
        grammar_text(),
        parser="lalr",
        postlex=RulecraftIndenter(),
        lexer_callbacks={"COMMENT": _comment, "_NL": _line_end},
    )


def comments(text: str) -> list[str]:
    """The comments of a text in order, as lark's lexer finds them (own-line comments ride in its
    line-end tokens, the others are ignored tokens): an oracle apart from the formatter's own."""
    _found.clear()
    _comment_parser().parse(re.sub(r"\r\n?", "\n", text).removeprefix("\ufeff") + "\n")
    return list(_found)
