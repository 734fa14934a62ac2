"""`aside`: a note that is reading matter (background, the source's remarks), in a rule's body, a
roll's block (the rule's aside, under the roll's conditions) or a table.  Resolvers return it as a
note of kind `aside`; describe writes it so; a deck prints it in the appendix under the card
number of its rule or table and never on the card, and its legend says where asides are."""

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
    roll stay_up "Stay on your feet": d20 <= DEX
        note "Roll each turn you move."
        aside "The source's skaters never roll."

table thaw "Thaw" cites "17.5" roll d6:
    columns melt "Melts"
    1..3: "no"
    4..6: "yes"
    note "Roll at dawn."
    aside "Spring thaw, in the source's calendar."
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
    # The appendix: under each heading (its card's number and citation) its asides, each with
    # its condition.
    headings = [(block.text, block.detail) for block in appendix.blocks if isinstance(block, Heading)]
    assert ("Mud", "No.\u00a04 \u00b7 17.3") in headings
    ice = next(card for card in cards if card.title == "Ice")
    thaw = next(card for card in cards if card.title == "Thaw")
    assert _texts(ice) == ["Roll each turn you move.", "Ice over deep water breaks under a horse."]
    assert _texts(thaw) == ["Roll at dawn."]
    assert [text for text, _ in headings] == ["Mud", "Ice", "Thaw"]
    asides = [(b.text, b.condition) for b in appendix.blocks if isinstance(b, Note)]
    assert asides == [
        ("Mud is common in the river valleys of the source's setting.", ""),
        ("The source prints deep mud on page 12.", "when the mud is deep"),
        ("The source's skaters never roll.", ""),
        ("Spring thaw, in the source's calendar.", ""),
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
    # A roll's aside is the rule's; the roll keeps its notes.
    result = run_cli("resolve", str(path), "ice", "--json")
    resolved = json.loads(result.output)
    assert [(n["kind"], n["text"]) for n in resolved["notes"]] == [
        ("note", "Ice over deep water breaks under a horse."),
        ("aside", "The source's skaters never roll."),
    ]
    assert resolved["rolls"][0]["notes"] == ["Roll each turn you move."]
    # A table's aside comes with its notes when the table is read.
    result = run_cli("resolve", str(path), "thaw", "--json")
    assert [(n["kind"], n["text"]) for n in json.loads(result.output)["notes"]] == [
        ("note", "Roll at dawn."),
        ("aside", "Spring thaw, in the source's calendar."),
    ]


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


def test_an_aside_in_the_header_is_refused_where_it_stands() -> None:
    """The header's notes are the rulebook's introduction, already printed in the appendix."""
    book = BOOK.replace('    source "17 Terrain and Environmental Factors"\n', '    source "17"\n    aside "About mud."\n')
    compiled = compile_text(book, "mud.rules")
    assert not compiled.ok
    assert "E001" in compiled.render() and ":3:" in compiled.render()
    assert "hint: an aside stands in a rule, a roll's block or a table; here write `note`" in compiled.render()


COMPOSED = """\
rulebook parts "Parts":
    source "s"

stat DEX "Dexterity": int 0..30 = 10

rule footing "Footing" cites "1":
    DEX -1 "loose stones"
    aside "The source's scree is any slope of loose stones."

rule wading "Wading" cites "2":
    DEX -2 "water"

rule scree_run "Running on scree" cites "3":
    as footing
    DEX -1 "running"
"""


def _legend_and_appendix(only: list[str]) -> tuple[str, Card | None]:
    compiled = compile_text(COMPOSED, "parts.rules")
    assert compiled.book is not None
    cards = deck_of(compiled.book, only=only).whole()
    legend = next(card for card in cards if card.kind == LEGEND_KIND)
    said = " ".join(run.text for block in legend.blocks for run in getattr(block, "runs", ()))
    return said, next((card for card in cards if card.kind == APPENDIX_KIND), None)


def test_a_deck_of_some_rules_says_where_their_asides_are_and_keeps_a_composed_ones() -> None:
    """`--only`: the legend speaks of asides only when the deck's own cards have some, naming the
    appendix by its number; a rule composed into a card of the deck (`as footing`) whose own
    card is not in it leaves its asides under the composing card rather than nowhere."""
    said, appendix = _legend_and_appendix(["wading"])
    assert "Background" not in said and appendix is None
    said, appendix = _legend_and_appendix(["scree_run"])
    assert "Background and the source's remarks: in the appendix, No.\u00a05, under each card's number." in said
    assert appendix is not None and appendix.number == 5
    assert _texts(appendix) == ["The source's scree is any slope of loose stones."]
    said, appendix = _legend_and_appendix(["footing", "scree_run"])
    assert appendix is not None and _texts(appendix) == ["The source's scree is any slope of loose stones."]
