"""Highlighting with Pygments: the `rules` lexer, found through its entry point, lexes every
rulebook the project has without an error token, and classes each token as the parser reads it.

Pygments is in the `test` extra, so these run in CI; without it they skip, saying so.
"""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from dsl.fmt import _leaves, _token_parser
from dsl.parser import _lark
from tests.conftest import ROOT
from tests.corpus import CORPUS
from tests.programs import comments

pygments = pytest.importorskip("pygments", reason="Pygments is not installed (pip install 'rulecraft[workbench]')")

from pygments.lexers import get_lexer_by_name, get_lexer_for_filename  # noqa: E402
from pygments.token import Comment, Error, Keyword, Name, Number, Operator, Punctuation, String, Whitespace  # noqa: E402

from dsl import highlight  # noqa: E402


def test_the_lexer_is_found_by_name_and_by_file_name_through_its_entry_point() -> None:
    (entry,) = [e for e in entry_points(group="pygments.lexers") if e.name == "rulecraft"]
    assert entry.load() is highlight.RulecraftLexer
    assert isinstance(get_lexer_by_name("rules"), highlight.RulecraftLexer)
    assert isinstance(get_lexer_by_name("rulecraft"), highlight.RulecraftLexer)
    assert isinstance(get_lexer_for_filename("swamp.rules"), highlight.RulecraftLexer)


def test_the_keywords_are_the_grammars() -> None:
    grammar = {t.pattern.value for t in _lark().terminals if t.pattern.type == "str" and t.pattern.value.isidentifier()}
    lexer = {
        *highlight.DECLARATIONS,
        *highlight.OTHER_DECLARATIONS,
        *highlight.TYPES,
        *highlight.KEYWORDS,
        *highlight.WORD_OPERATORS,
        *highlight.CONSTANTS,
    }
    assert sorted(lexer - grammar) == [] and sorted(grammar - lexer) == []


_KEYWORDS = {
    *highlight.DECLARATIONS,
    *highlight.OTHER_DECLARATIONS,
    *highlight.TYPES,
    *highlight.KEYWORDS,
    *highlight.CONSTANTS,
}


def _expected(kind: str, value: str) -> tuple[object, ...]:
    """The token types a parser token of this kind may be shown as."""
    if kind == "NAME":
        # a lexer cannot tell `round` the name from `round` the keyword
        return (Name, Keyword) if value in _KEYWORDS else (Name,)
    if kind in ("NUMBER", "DICE", "DIE", "FATE"):
        return (Number.Dice,) if kind != "NUMBER" else (Number,)
    if kind == "STRING":
        return (String,)
    if value in highlight.WORD_OPERATORS:
        return (Operator.Word,)
    if value.isidentifier() or value == "N/A":
        return (Keyword,)
    return (Operator, Punctuation)


@pytest.mark.parametrize(("name", "text"), CORPUS, ids=[name for name, _ in CORPUS])
def test_every_rulebook_lexes_without_error_and_as_the_parser_reads_it(name: str, text: str) -> None:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lexed = list(highlight.RulecraftLexer().get_tokens_unprocessed(text))
    assert [(i, v) for i, t, v in lexed if t in Error] == []
    assert "".join(v for _, _, v in lexed) == text
    at = {index: kind for index, kind, _ in lexed}
    for leaf in _leaves(_token_parser().parse(text if text.endswith("\n") else text + "\n")):
        token = leaf.token
        if token.type in ("_NL", "_INDENT", "_DEDENT"):
            continue
        shown = at.get(token.start_pos or 0)
        assert shown is not None, f"{name}: `{token}` at {token.line}:{token.column} does not start a token"
        assert any(shown in wanted for wanted in _expected(token.type, token.value)), (
            f"{name}:{token.line}:{token.column}: `{token}` ({token.type}) is shown as {shown}"
        )
    shown_comments = [v.rstrip() for _, t, v in lexed if t in Comment]
    assert shown_comments == comments(text)


def test_a_sample_is_classed_sensibly() -> None:
    sample = 'stat DEX "Dexterity": int 0..20 = 10  # base\nrule mud "Mud":\n    when x in {a}: roll r: 3d6 <= d20\n'
    tokens = [(t, v) for t, v in highlight.RulecraftLexer().get_tokens(sample) if t not in Whitespace]
    assert tokens[:4] == [(Keyword.Declaration, "stat"), (Name.Variable, "DEX"), (String.Double, '"'), (String.Double, "Dexterity")]
    assert (Keyword.Type, "int") in tokens and (Number.Integer, "10") in tokens and (Operator, "..") in tokens
    assert (Comment.Single, "# base") in tokens and (Name.Function, "mud") in tokens
    assert (Operator.Word, "in") in tokens and (highlight.DICE, "3d6") in tokens and (highlight.DICE, "d20") in tokens


def test_pygmentize_highlights_a_rulebook(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "pygments", "-l", "rules", "-f", "html", str(ROOT / "rulebooks" / "skirmish_terrain.rules")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert '<span class="kd">terrain</span>' in out and '<span class="nf">broken_ground</span>' in out
    assert 'class="err"' not in out


def test_the_core_does_not_import_pygments() -> None:
    code = "import sys, dsl.cli, dsl.fmt; sys.exit('pygments' in sys.modules or 'dsl.highlight' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
    importers = [p.name for p in (ROOT / "dsl").rglob("*.py") if "dsl.highlight" in p.read_text(encoding="utf-8")]
    assert importers == []
