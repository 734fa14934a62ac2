"""The position index behind the language server: what is at line:col, where a name is
declared and used, on the fixture rulebook and on every bundled one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dsl import nodes as n
from dsl.compiler import compile_file, compile_text
from dsl.lsp.index import Index, Symbol, build_index, name_span
from dsl.lsp.info import completions, hover_text
from tests.conftest import ROOT, RULEBOOKS

MARSH = ROOT / "tests" / "fixtures" / "workbench" / "marsh.rules"
TEXT = MARSH.read_text(encoding="utf-8")


def _index(text: str = TEXT, analyzed: bool = True) -> Index:
    compiled = compile_text(text, "marsh.rules")
    return build_index(compiled.tree, compiled.book if analyzed else None)


def _at(text: str, needle: str, nth: int = 0, offset: int = 0) -> tuple[int, int]:
    """1-based line and column of the `nth` `needle` in `text` (plus `offset` characters)."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(needle, start + 1)
    start += offset
    return text.count("\n", 0, start) + 1, start - text.rfind("\n", 0, start)


def _spans(occurrences: list[object]) -> list[tuple[int, int]]:
    return sorted((o.span.line, o.span.column) for o in occurrences)  # type: ignore[attr-defined]


@pytest.mark.parametrize("analyzed", [True, False], ids=["analyzed", "parsed only"])
def test_names_lead_to_their_declarations(analyzed: bool) -> None:
    index = _index(analyzed=analyzed)
    cases = {
        ("3d6 <= STR", 7): ("stat", "STR"),
        ("water >= knee", 0): ("input", "water"),
        ("water >= knee", 9): ("member", "knee"),
        ("in footing", 3): ("group", "footing"),
        ("as soft_ground", 3): ("trait", "soft_ground"),
        ("int 1..20 hex", 10): ("unit", "hex"),
        ('input water "Depth of the water": depth', 35): ("type", "depth"),
        ("roll sink = 1/2", 5): ("roll", "sink"),
        ("weapon == missile", 10): ("member", "missile"),
        ("given water = knee", 14): ("member", "knee"),
    }
    for (needle, offset), (kind, name) in cases.items():
        occurrence = index.at(*_at(TEXT, needle, offset=offset))
        assert occurrence is not None, needle
        assert (occurrence.symbol.kind, occurrence.symbol.name) == (kind, name), needle
        assert not occurrence.declaration
        declared = occurrence.symbol.span
        line = TEXT.split("\n")[declared.line - 1]
        assert line[declared.column - 1 : declared.end_column - 1] == name


def test_the_cursor_just_after_a_name_is_on_it() -> None:
    index = _index()
    line, column = _at(TEXT, "3d6 <= STR", offset=10)  # after the R
    occurrence = index.at(line, column)
    assert occurrence is not None and occurrence.symbol.name == "STR"
    assert index.at(line, column + 1) is None


def test_references_of_a_stat_a_group_and_a_member() -> None:
    index = _index()
    dex = index.declared("stat", "DEX")[0]
    found = _spans(index.references(dex))
    expected = sorted(_line_col(m.start()) for m in re.finditer(r"\bDEX\b", TEXT))
    assert found == expected  # the declaration, two modifiers and the example's expectation
    assert len(found) == 4
    assert len(index.references(dex, declaration=False)) == 3
    footing = index.declared("group", "footing")[0]
    assert len(index.references(footing)) == 3
    knee = index.declared("member", "knee")[0]
    assert knee.container == "depth" and knee.members == ("ankle", "knee", "waist")
    assert len(index.references(knee)) == 3  # the type, `water >= knee`, `given water = knee`


def _line_col(offset: int) -> tuple[int, int]:
    return TEXT.count("\n", 0, offset) + 1, offset - TEXT.rfind("\n", 0, offset)


def test_same_named_members_of_different_inputs_are_told_apart() -> None:
    text = TEXT.replace(
        'input swimmer "Knows how to swim": flag = no',
        'input swimmer "Knows how to swim": flag = no\ninput boots: one of {none, waders} = none',
    ).replace("when weapon == missile:", "when weapon == missile and boots == none:")
    index = _index(text)
    weapon_none = next(s for s in index.declared("member", "none") if s.container == "weapon")
    boots_none = next(s for s in index.declared("member", "none") if s.container == "boots")
    use = index.at(*_at(text, "boots == none", offset=10))
    assert use is not None and use.symbol is boots_none
    assert len(index.references(weapon_none)) == 2  # its declaration and the default `= none`
    assert len(index.references(boots_none)) == 3


def test_a_broken_declaration_leaves_the_others_indexed() -> None:
    broken = TEXT.replace('trait soft_ground "Soft ground" cites "M.1":', 'trait soft_ground "Soft ground" cites "M.1"')
    compiled = compile_text(broken, "marsh.rules")
    assert not compiled.ok
    index = build_index(compiled.tree, compiled.book)
    assert index.declared("stat", "STR") and index.declared("table", "mishap")
    occurrence = index.at(*_at(broken, "3d6 <= STR", offset=7))
    assert occurrence is not None and occurrence.symbol.name == "STR"


def test_a_rulebook_that_does_not_parse_has_an_empty_index() -> None:
    index = build_index(compile_text("rulebook\n", "x.rules").tree, None)
    assert index.symbols == [] and index.at(1, 1) is None


@pytest.mark.parametrize("path", sorted(RULEBOOKS.glob("*.rules")), ids=lambda p: p.stem)
def test_every_name_in_a_bundled_rulebook_is_indexed_where_it_stands(path: Path) -> None:
    compiled = compile_file(path)
    assert compiled.book is not None and compiled.tree is not None
    index = build_index(compiled.tree, compiled.book)
    lines = compiled.text.split("\n")

    def text_of(symbol: Symbol) -> str:
        span = symbol.span
        return lines[span.line - 1][span.column - 1 : span.end_column - 1]

    for symbol in index.symbols:
        assert text_of(symbol) == symbol.name
        occurrence = index.at(symbol.span.line, symbol.span.column)
        assert occurrence is not None and occurrence.symbol is symbol and occurrence.declaration
    refs = compiled.book.refs
    for node in _walk(compiled.tree):
        if isinstance(node, (n.NameRef, n.BaseRef)) and node in refs:
            ref = refs[node]
            if ref.kind in ("special", "function"):
                continue
            span = name_span(node) if isinstance(node, n.BaseRef) else node.span
            occurrence = index.at(span.line, span.column)
            assert occurrence is not None, f"{path.name}:{span.line}:{span.column} {node.name}"
            assert occurrence.symbol.name == ref.name
            expected = {"input": "input", "stat": "stat", "base": "stat", "derive": "derive", "member": "member"}
            assert occurrence.symbol.kind == expected[ref.kind]


def _walk(node: n.Node) -> list[n.Node]:
    from dsl.lsp.index import _children

    found = [node]
    for child in _children(node):
        found += _walk(child)
    return found


def test_the_columns_of_a_two_way_table_are_choices_of_its_second_key() -> None:
    compiled = compile_file(RULEBOOKS / "mecha_tables.rules")
    index = build_index(compiled.tree, compiled.book)
    text = compiled.text
    occurrence = index.at(*_at(text, "expect terrain_costs.track", offset=21))
    assert occurrence is not None
    assert (occurrence.symbol.kind, occurrence.symbol.name, occurrence.symbol.container) == (
        "member",
        "track",
        "movement_type",
    )


# ---------------------------------------------------------------------------- hover and completion


def test_hover_on_a_roll_that_the_defaults_do_not_call_for_says_so() -> None:
    compiled = compile_file(RULEBOOKS / "skirmish_terrain.rules")
    index = build_index(compiled.tree, compiled.book)
    fall = next(s for s in index.declared("roll", "fall") if s.container == "broken_ground")
    from dsl.compiler import generate, load_module

    text = hover_text(fall, compiled, lambda: load_module(generate(compiled), "skirmish_terrain"))
    assert "roll `3d6 <= DEX` (when moved > MOV / 2)" in text
    assert ": not called for" in text
    assert "at the defaults (DEX 10, MOV 10, moved 0, weapon none, acrobatics no)" in text


def test_hover_on_a_rule_lists_what_it_reads_and_does() -> None:
    compiled = compile_text(TEXT, "marsh.rules")
    index = build_index(compiled.tree, compiled.book)
    text = hover_text(index.declared("terrain", "bog")[0], compiled, lambda: None)
    assert text.startswith("**terrain** `bog` — Bog")
    assert "cites M.2 · category hazard" in text
    assert "reads: `DEX`, `STR`, `MOV`, `water`, `weapon`, `swimmer`" in text
    assert "MOV / 2 round down" in text


def test_completion_after_a_comparison_offers_the_inputs_choices() -> None:
    index = _index()
    assert [c.label for c in completions(index, "    when water >= ")] == ["ankle", "knee", "waist"]
    assert [c.label for c in completions(index, "    when water == k")] == ["ankle", "knee", "waist"]
    assert [c.label for c in completions(index, "    when weapon in {none, ")] == ["none", "melee", "missile"]
    assert [c.label for c in completions(index, "        given STR = 12, weapon = ")] == ["none", "melee", "missile"]
    everything = {(c.label, c.kind) for c in completions(index, "    ")}
    assert {("when", "keyword"), ("DEX", "stat"), ("footing", "group"), ("mishap", "table")} <= everything


def test_the_unit_of_a_quantity_leads_to_its_declaration() -> None:
    text = TEXT.replace("    MOV / 2 round down\n", "    MOV / 2 round down\n    MOV min 2 hex\n")
    compiled = compile_text(text, "marsh.rules")
    assert compiled.ok, compiled.render()
    index = build_index(compiled.tree, compiled.book)
    occurrence = index.at(*_at(text, "min 2 hex", offset=6))
    assert occurrence is not None and (occurrence.symbol.kind, occurrence.symbol.name) == ("unit", "hex")
    assert len(index.references(occurrence.symbol)) == 4  # declared, MOV's and moved's types, `2 hex`


def test_the_names_of_a_sequences_counts_lead_to_their_declarations() -> None:
    """`count march_stamina fails as failed_checks`: the roll and the input it counts into."""
    text = (ROOT / "tests" / "fixtures" / "features" / "round_idioms.rules").read_text(encoding="utf-8")
    compiled = compile_text(text, "round_idioms.rules")
    index = build_index(compiled.tree, compiled.book)
    for needle, offset, kind in (("count march_stamina", 6, "roll"), ("as failed_checks", 3, "input")):
        occurrence = index.at(*_at(text, needle, offset=offset))
        assert occurrence is not None, needle
        assert occurrence.symbol.kind == kind and not occurrence.declaration, needle
