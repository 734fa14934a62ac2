"""Recovery from syntax errors: each top-level block is parsed once, on its own.

A mistake costs its own block, every broken block is reported, and the work grows with the size
of the file, not with the number of mistakes (it was one full re-parse per mistake, capped at 50,
the rest dropped without a word).  Costs are checked by counting parses, not by timing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import dsl.parser as parser
from dsl.compiler import Compiled, compile_text
from dsl.diagnostics import Reporter
from tests.conftest import RULEBOOKS


def _errors(compiled: Compiled) -> list[tuple[int, str]]:
    return [(d.span.line, d.code) for d in compiled.errors]


def _many_errors(rules: int, every: int) -> str:
    """The shape of many_syntax_errors.py: `rules` terrains, a stray `)` in every `every`-th."""
    out = ['rulebook syn "Gen":\n    source "s"\n\nstat DEX: int 0..30 = 10\n\n']
    for i in range(rules):
        bad = " )" if i % every == 0 else ""
        out.append(f'terrain t{i} "T{i}" cites "{i}":\n    DEX -1{bad}\n\n')
    return "".join(out)


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of characters of each text handed to lark, in order."""
    seen: list[int] = []
    real = parser._lark()

    class Counting:
        def parse(self, text: str, **options: Any) -> Any:
            seen.append(len(text))
            return real.parse(text, **options)

        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

    monkeypatch.setattr(parser, "_lark", lambda: Counting())
    return seen


def test_every_syntax_error_of_many_is_reported_and_each_block_parsed_once(parses: list[int]) -> None:
    # the reproducer many_syntax_errors.py, smaller: 61 mistakes were reported 50, 11 dropped
    text = _many_errors(600, 10)
    compiled = compile_text(text, "syn.rules")
    lines = [line for line, code in _errors(compiled) if code == "E001"]
    assert lines == [7 + 3 * i for i in range(0, 600, 10)]
    assert len(lines) == 60
    assert len(parses) == 1 + 1 + 600  # the header, the stat, each terrain: once each
    assert sum(parses) <= len(text) + len(parses)  # every character read once (and a newline per block)


def test_a_block_header_without_its_block_is_one_error_and_hides_nothing() -> None:
    # the reproducer cascade_missing_block.rules: it gave a false E004, an E001 on every later
    # rule, and hid the E101 of rule d
    text = (
        'rulebook x "X":\n    source "s"\n\nstat DEX: int 0..20 = 10\n\n'
        'rule a "A" cites "1":\nrule b "B" cites "1":\n    DEX -1\nrule c "C" cites "1":\n    DEX -1\n'
        'rule d "D" cites "1":\n    DXE -1\nrule e "E" cites "1":\n    DEX -1\n'
    )
    compiled = compile_text(text, "cascade.rules")
    assert _errors(compiled) == [(6, "E001"), (12, "E101")]
    first = compiled.errors[0]
    assert (first.span.column, first.message) == (22, "unexpected end of the block; expected an indented block")
    assert first.hint == "a line ending with `:` needs an indented block below it"


def test_the_last_block_cut_short_is_still_the_end_of_the_file() -> None:
    compiled = compile_text('rulebook x "X":\n    source "s"\n\nrule a "A" cites "1":\n', "cut.rules")
    assert _errors(compiled) == [(4, "E004")]


def test_a_header_without_its_block_is_one_error() -> None:
    compiled = compile_text('rulebook x "X":\nstat DEX: int 0..20 = 10\n', "bare.rules")
    assert _errors(compiled) == [(1, "E001")]
    assert compiled.errors[0].message == "unexpected end of the block; expected an indented block"


def test_a_broken_header_is_not_also_called_missing() -> None:
    compiled = compile_text('rulebook x "X"\n    source "s"\n\nstat DEX: int 0..20 = 10\n', "header.rules")
    assert [d.message for d in compiled.errors] == ["unexpected end of line; expected `:`"]


@pytest.mark.parametrize("text", ["", "# nothing\n", 'stat DEX: int 0..20 = 10\n'])
def test_a_file_without_a_header_says_so(text: str) -> None:
    compiled = compile_text(text, "none.rules")
    assert [d.message for d in compiled.errors] == ['a rulebook starts with `rulebook NAME "Title":`']


def test_an_unclosed_bracket_costs_its_own_block_only() -> None:
    text = (
        'rulebook x "X":\n    source "s"\n\nstat DEX: int 0..20 = 10\n\n'
        'rule a "A" cites "1":\n    note ("abc"\n        "def"\n    DEX -1\n\n'
        'rule b "B" cites "1":\n    DXE -1\n'
    )
    compiled = compile_text(text, "bracket.rules")
    assert _errors(compiled) == [(7, "E001"), (12, "E101")]
    assert compiled.errors[0].message == "this `(` is never closed"


def test_lines_at_column_0_that_continue_a_line_stay_in_their_block() -> None:
    text = (
        'rulebook x "X":\n    source "s"\n\nstat DEX: int 0..20 = 10\ninput moved: int 0..10 = 0\n\n'
        'rule a "A" cites "1":\n    note ("abc"\n"def)")\n    when (moved >\n1): DEX -1\n'
        'rule b "B" cites \\\n"1":\n    DEX -1  # a comment (\n'
    )
    compiled = compile_text(text, "continued.rules")
    assert compiled.ok, compiled.render()
    assert compiled.book is not None and list(compiled.book.rules) == ["a", "b"]


@pytest.mark.parametrize("path", sorted(RULEBOOKS.glob("*.rules")), ids=lambda p: p.stem)
def test_block_by_block_reads_a_rulebook_exactly_as_the_whole_file(path: Path) -> None:
    """Positions included: every node of every bundled rulebook is the same either way."""
    text = path.read_text(encoding="utf-8")
    source = text if text.endswith("\n") else text + "\n"
    header, declarations = parser.Builder(path.name).transform(parser._lark().parse(source, start="start"))
    book = parser.parse(text, path.name, Reporter())
    assert book is not None
    assert book.header == header
    assert book.declarations == tuple(declarations)
