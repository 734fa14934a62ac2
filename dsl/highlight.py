"""Syntax highlighting of rulebooks with Pygments: `pygmentize -l rules`, and ```rules blocks
of documentation built with Pygments (Sphinx, MkDocs, Pelican ...).

Registered as the Pygments plugin `rulecraft` (aliases `rules`, `rulecraft`; files `*.rules`)
by the entry point in pyproject.toml.  Pygments comes with the `workbench` extra
(pip install 'rulecraft[workbench]'); nothing else in rulecraft imports this module, so the core
install does without it.

A lexer cannot know the parser's state, so a word is a keyword wherever it can be one (`round`
in `MOV / 2 round up`); but a declaration opens a line, and the name it introduces is told
apart (`rule mud`, `stat DEX`).
The keyword lists are the grammar's keywords, every one of them (the tests hold them to it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import ClassVar

from pygments.lexer import RegexLexer, default, include, words
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
    _TokenType,
)

DECLARATIONS = {
    "rulebook": Name.Namespace,
    "rule": Name.Function,
    "terrain": Name.Function,
    "condition": Name.Function,
    "trait": Name.Function,
    "table": Name.Function,
    "stat": Name.Variable,
    "input": Name.Variable,
    "order": Name.Variable,
    "unit": Name.Class,
    "type": Name.Class,
    "group": Name.Label,
    "tiers": Name.Label,
    "statblock": Name.Label,
}
"""Keywords followed by the name they declare, and the kind of name that is."""

OTHER_DECLARATIONS = ("grades", "resistance", "example", "balance")
"""Keywords that open a declaration without a name."""

TYPES = ("int", "number", "percent", "flag", "dice", "text", "one", "of", "levels")

KEYWORDS = (
    "source", "version", "note", "aside", "erratum", "cannot", "category", "derive", "cites", "as", "with",
    "when", "unless", "else", "roll", "resist", "vs", "opposed", "automatic", "success", "failure",
    "on", "by", "margin", "ties", "target", "then", "twice", "again", "above", "columns", "for",
    "given", "expect", "suppressed", "base", "per", "min", "max", "is", "round", "up", "down",
    "nearest", "die", "step", "steps", "level", "highest", "lowest", "strongest", "cumulative",
    "otherwise", "natural", "always", "succeeds", "fails", "at", "least", "exploding", "phrase", "before",
    "each", "from", "until", "count", "total", "over", "chance", "lasting", "separate", "chain", "depth",
    "between", "average", "pairs", "showing", "rerolling", "cancelling", "ignoring", "largest", "left",
    "most", "time", "times", "rulecraft",
)  # fmt: skip

WORD_OPERATORS = ("and", "or", "not", "in")

_RULE_KINDS = ("rule", "terrain", "condition", "trait")

CONSTANTS = ("yes", "no", "X")

DICE = Number.Dice
"""Dice (`3d6`, `d20`): numbers of their own kind, styled as numbers unless a style says more."""

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"


def _declared(kind: _TokenType) -> list[object]:
    """The state after a declaring keyword: the name that follows is of this kind."""
    return [(r"[ \t]+", Whitespace), (r"\\[ \t]*\n", Punctuation), (_NAME, kind, "#pop"), default("#pop")]


class RulecraftLexer(RegexLexer):
    """Lexer for rulecraft rulebooks."""

    name = "rulecraft"
    aliases: ClassVar[list[str]] = ["rules", "rulecraft"]
    filenames: ClassVar[list[str]] = ["*.rules"]
    mimetypes: ClassVar[list[str]] = ["text/x-rulecraft"]

    tokens: ClassVar[dict[str, list[object]]] = {
        "root": [
            (r"\n", Whitespace, "line"),
            (r"[ \t]+", Whitespace),
            (r"\\[ \t]*\n", Punctuation),
            (r"#[^\n]*", Comment.Single),
            (r'"', String.Double, "string"),
            (words(OTHER_DECLARATIONS, suffix=r"\b"), Keyword.Declaration),
            (r"N/A", Keyword.Constant),
            (r"[0-9]*[dD][fF]\b", DICE),
            (r"[0-9]+[dD][0-9]+\b", DICE),
            (r"[dD][0-9]+\b", DICE),
            (r"[0-9]+\.[0-9]+", Number.Float),
            (r"[0-9]+", Number.Integer),
            (words(TYPES, suffix=r"\b"), Keyword.Type),
            (words(WORD_OPERATORS, suffix=r"\b"), Operator.Word),
            (words(CONSTANTS, suffix=r"\b"), Keyword.Constant),
            (words(KEYWORDS, suffix=r"\b"), Keyword),
            # `when advanced: tiers advanced_move`: a roll read with other tiers under a condition
            (r"(?:(?<=: )|(?<=:\t))tiers\b", Keyword.Declaration, "tiers"),
            (_NAME, Name),
            (r"\.\.|<=|>=|==|!=|[<>=+\-*/^%]", Operator),
            (r"[()\[\]{},:.]", Punctuation),
        ],
        "line": [
            (r"[ \t]+", Whitespace),
            *((rf"{keyword}\b", Keyword.Declaration, ("#pop", keyword)) for keyword in DECLARATIONS),
            default("#pop"),
        ],
        **{keyword: _declared(kind) for keyword, kind in DECLARATIONS.items()},
        # `statblock NAME "label" for terrain, trait:` names the kinds of rule it lays out
        "statblock": [
            (r"[ \t]+", Whitespace),
            (_NAME, Name.Label, ("#pop", "statblock_kinds")),
            default("#pop"),
        ],
        "statblock_kinds": [
            (r"(?=\n)", Whitespace, "#pop"),
            (words(_RULE_KINDS, suffix=r"\b"), Keyword.Declaration),
            include("root"),
        ],
        "string": [
            (r"\\.", String.Escape),
            (r'[^"\\\n]+', String.Double),
            (r'"', String.Double, "#pop"),
            (r"(?=\n)", String.Double, "#pop"),
        ],
    }

    def get_tokens_unprocessed(
        self, text: str, stack: Iterable[str] = ("root", "line")
    ) -> Iterator[tuple[int, _TokenType, str]]:
        """Tokens from the start of a line: a declaration opens a line (a word such as `terrain`
        is a name anywhere else)."""
        return super().get_tokens_unprocessed(text, stack)
