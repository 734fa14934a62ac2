"""Where AST nodes say they come from.

A node keeps its position compactly (the parse's shared Source, and one int of character offsets)
and works out its Span when asked; the diagnostics' golden files (test_diagnostics.py) and the
editor's ranges (test_lsp*.py) check the spans that reach a designer.  These check the arithmetic
itself and that it agrees with the text everywhere in the bundled rulebooks.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from dsl import nodes as n
from dsl.compiler import _nesting, compile_text, normalize_newlines
from dsl.diagnostics import Reporter, Source, Span, at
from dsl.parser import SHALLOW, parse
from tests.conftest import ROOT

BOOKS = sorted((ROOT / "rulebooks").glob("*.rules"))


def test_a_position_is_worked_out_from_the_line_starts() -> None:
    # "ab\ncd\n": lines start at offsets 0, 3 and 6 (the empty line after the last newline),
    # and 7, past the newline the parser adds after each block
    source = Source("x.rules", "ab\ncd\n")
    assert source.starts == [0, 3, 6, 7]
    # offsets 3..5 are "cd": line 2, columns 1 to 3 (end exclusive)
    assert source.span(at(3, 5)) == Span("x.rules", 2, 1, 2, 3)
    # offsets 1..4 are "b\nc": from line 1 column 2 (1 - 0 + 1) to line 2 column 2 (4 - 3 + 1)
    assert source.span(at(1, 4)) == Span("x.rules", 1, 2, 2, 2)
    # nothing covered at the start of the file: 1:1 to 1:1
    assert source.span(0) == Span("x.rules", 1, 1, 1, 1)


def test_past_the_end_of_a_text_without_a_final_newline() -> None:
    # "ab": the parser reads "ab\n"; the end of that newline (offset 3) starts line 2
    source = Source("x.rules", "ab")
    assert source.starts == [0, 3]
    assert source.span(at(2, 3)) == Span("x.rules", 1, 3, 2, 1)


def _nodes(tree: n.Node) -> list[n.Node]:
    found: list[n.Node] = []
    stack: list[object] = [tree]
    while stack:
        item = stack.pop()
        if isinstance(item, n.Node):
            found.append(item)
            stack.extend(getattr(item, f.name) for f in dataclasses.fields(item) if f.name != "span")
        elif isinstance(item, (tuple, list)):
            stack.extend(item)
    return found


def _text(lines: list[str], span: Span) -> str:
    """The text between a span's line and column and its end line and end column."""
    if span.line == span.end_line:
        return lines[span.line - 1][span.column - 1 : span.end_column - 1]
    middle = lines[span.line : span.end_line - 1]
    return "\n".join([lines[span.line - 1][span.column - 1 :], *middle, lines[span.end_line - 1][: span.end_column - 1]])


@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.stem)
def test_every_node_of_a_bundled_book_points_at_its_text(path: Path) -> None:
    text = normalize_newlines(path.read_text(encoding="utf-8"))
    tree = parse(text, str(path), Reporter())
    assert tree is not None
    lines = (text + "\n").split("\n")
    nodes = _nodes(tree)
    assert len(nodes) > 500
    for node in nodes:
        span = node.span
        assert span.path == str(path)
        assert (span.line, span.column) <= (span.end_line, span.end_column)
        covered = _text(lines, span)
        if isinstance(node, n.Name):
            assert covered == node.text, (node, span)
        elif isinstance(node, n.Text):
            # a string, or strings written one after another in brackets
            assert covered[0] + covered[-1] in ('""', "()"), (node, span)
        elif isinstance(node, (n.RuleDecl, n.TableDecl)):
            assert covered.startswith(("rule", "terrain", "condition", "trait", "table")), (node, span)


def test_the_nodes_of_a_parse_share_one_source_and_hold_no_span_of_their_own() -> None:
    text = 'rulebook tiny "Tiny":\n    source "s"\n    version "1"\ninput moved: int 0..9 = 0\n'
    tree = parse(text, "tiny.rules", Reporter())
    assert tree is not None
    held = {id(n._SPAN_SLOT.__get__(node, n.Node)) for node in _nodes(tree.header)}
    assert len(held) == 1
    # `moved` is at line 4, columns 7 to 12; made again with a Span, a node keeps that Span
    declaration = tree.declarations[0]
    assert isinstance(declaration, n.InputDecl)
    assert declaration.name.span == Span("tiny.rules", 4, 7, 4, 12)
    again = dataclasses.replace(declaration.name, text="still")
    assert again.span == Span("tiny.rules", 4, 7, 4, 12)
    assert n.Name(Span("a.rules", 2, 3, 2, 5), "x").span == Span("a.rules", 2, 3, 2, 5)


def test_a_diagnostic_on_the_last_line_is_placed_alike_with_or_without_a_final_newline() -> None:
    text = 'rulebook tiny "Tiny":\n    source "s"\n    version "1"\nstat DEX: int 0..9 = 5\nrule r:\n    DXE -2'
    without = compile_text(text, "tiny.rules")
    with_newline = compile_text(text + "\n", "tiny.rules")
    assert [d.span for d in without.diagnostics] == [d.span for d in with_newline.diagnostics]
    # `DXE` on line 6, columns 5 to 8
    assert Span("tiny.rules", 6, 5, 6, 8) in [d.span for d in without.diagnostics]


def _sum(terms: int) -> str:
    return " + ".join(["1"] * terms)


def test_only_blocks_parsed_from_deep_trees_are_measured_for_nesting() -> None:
    # a sum of 60 terms nests 59 deep (left to right, one `+` per level): deeper than SHALLOW
    head = 'rulebook tiny "Tiny":\n    source "s"\n    version "1"\nstat DEX: int 0..900 = 5\n'
    text = head + f"rule deep:\n    DEX + ({_sum(60)})\nrule flat:\n    DEX + 1\n"
    nested: list[n.Declaration] = []
    tree = parse(text, "tiny.rules", Reporter(), nested)
    assert tree is not None
    assert [d.name.text for d in nested if isinstance(d, n.RuleDecl)] == ["deep"]


@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.stem)
def test_declarations_left_unmeasured_nest_within_the_bound(path: Path) -> None:
    # a tree at most SHALLOW deep builds expressions at most 2 x SHALLOW + 1 deep
    nested: list[n.Declaration] = []
    tree = parse(normalize_newlines(path.read_text(encoding="utf-8")), str(path), Reporter(), nested)
    assert tree is not None
    measured = {id(d) for d in nested}
    for declaration in tree.declarations:
        if id(declaration) not in measured:
            assert _nesting(declaration).height <= 2 * SHALLOW + 1


def test_slots_init_refuses_fields_it_cannot_fill_like_the_dataclass() -> None:
    """A field with a default factory (or keyword-only, or left out of __init__) would be filled
    wrongly by the direct __init__: it is refused at import time instead of misbehaving later."""
    import dataclasses

    import pytest

    from dsl.diagnostics import slots_init

    @dataclasses.dataclass(frozen=True, slots=True)
    class Listed:
        items: list[int] = dataclasses.field(default_factory=list)

    with pytest.raises(TypeError, match=r"Listed\.items"):
        slots_init(Listed)
