"""`aside`: a note that is reading matter (background, the source's remarks).  Resolvers return it
as a note of kind `aside`; describe writes it so; a deck prints it in the appendix under the
rule's card number and never on the card, and its legend says where asides are."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from dsl.cards.blocks import Card, Heading, Note
from dsl.cards.deck import APPENDIX_KIND, LEGEND_KIND, deck_of
from dsl.compiler import compile_text
from tests.conftest import run_cli

BOOK = """\
rulebook mud "Mud":
    source "17 Terrain and Environmental Factors"

stat DEX "Dexterity": int 0..30 = 10
input deep "The mud is deep": flag = no

rule mud "Mud" cites "17.3":
    DEX -2 "bad footing"
    note "Boots come off in deep mud."
    aside "Mud is common in the river valleys of the source's setting."
    when deep:
        aside "The source prints deep mud on page 12."

rule ice "Ice" cites "17.4":
    DEX -3 "slippery"
    note "Ice over deep water breaks under a horse."
"""


def _deck() -> tuple[list[Card], Card]:
    compiled = compile_text(BOOK, "mud.rules")
    assert compiled.ok, compiled.render()
    assert compiled.book is not None
    cards = deck_of(compiled.book).whole()
    return cards, next(card for card in cards if card.kind == APPENDIX_KIND)


def _texts(card: Card) -> list[str]:
    return [block.text for block in card.blocks if isinstance(block, Note)]


def test_a_card_carries_its_notes_and_the_appendix_its_asides() -> None:
    cards, appendix = _deck()
    mud = next(card for card in cards if card.title == "Mud" and card.number == 4)
    assert _texts(mud) == ["Boots come off in deep mud."]
    # The appendix: under Mud's heading (its number and citation), both asides, each with its
    # condition; Ice has no aside and no errata, so no heading.
    headings = [(block.text, block.detail) for block in appendix.blocks if isinstance(block, Heading)]
    assert ("Mud", "No.\u00a04 \u00b7 17.3") in headings
    assert all(text != "Ice" for text, _ in headings)
    asides = [(b.text, b.condition) for b in appendix.blocks if isinstance(b, Note)]
    assert asides == [
        ("Mud is common in the river valleys of the source's setting.", ""),
        ("The source prints deep mud on page 12.", "when the mud is deep"),
    ]


def test_the_legend_says_where_asides_are_only_when_a_book_has_them() -> None:
    cards, _ = _deck()
    legend = next(card for card in cards if card.kind == LEGEND_KIND)
    said = " ".join(run.text for block in legend.blocks for run in getattr(block, "runs", ()))
    assert "Background and the source's remarks: in the appendix" in said
    plain = compile_text(BOOK.replace("    aside", "    note"), "mud.rules")
    assert plain.book is not None
    legend = next(card for card in deck_of(plain.book).whole() if card.kind == LEGEND_KIND)
    said = " ".join(run.text for block in legend.blocks for run in getattr(block, "runs", ()))
    assert "Background" not in said


def test_resolve_and_describe_name_an_aside_by_its_kind(tmp_path: Path) -> None:
    path = tmp_path / "mud.rules"
    path.write_text(BOOK, encoding="utf-8")
    result = run_cli("resolve", str(path), "mud", "--set", "deep=yes", "--json")
    assert result.exit_code == 0, result.output
    notes = [(note["kind"], note["text"]) for note in json.loads(result.output)["notes"]]
    assert notes == [
        ("note", "Boots come off in deep mud."),
        ("aside", "Mud is common in the river valleys of the source's setting."),
        ("aside", "The source prints deep mud on page 12."),
    ]
    result = run_cli("resolve", str(path), "mud")
    assert "  - aside: Mud is common in the river valleys of the source's setting." in result.output
    assert "deep mud on page 12" not in result.output  # its condition does not hold
    result = run_cli("describe", str(path), "mud")
    assert "  aside: The source prints deep mud on page 12. (when deep)" in result.output


def test_an_aside_prints_on_the_press_file_in_the_appendix_only(tmp_path: Path) -> None:
    path = tmp_path / "mud.rules"
    path.write_text(BOOK, encoding="utf-8")
    result = run_cli("cards", str(path), "-o", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    pages = subprocess.run(
        ["pdftotext", str(tmp_path / "out" / "mud-cards-press.pdf"), "-"],
        capture_output=True, text=True, check=True,
    ).stdout.split("\f")  # the press file: a face a page
    assert [i for i, page in enumerate(pages) if "river valleys" in page] == [
        i for i, page in enumerate(pages) if "Notes and errata" in page
    ]
    assert [i for i, page in enumerate(pages) if "Boots come off" in page] == [
        i for i, page in enumerate(pages) if "bad footing" in page
    ]


def test_an_aside_outside_a_rule_is_refused_where_it_stands() -> None:
    book = BOOK.replace('    source "17 Terrain and Environmental Factors"\n', '    source "17"\n    aside "About mud."\n')
    compiled = compile_text(book, "mud.rules")
    assert not compiled.ok
    assert "E001" in compiled.render() and ":3:" in compiled.render()
