"""The player's test: twenty questions of the kind a player asks at the table, each answered
from a bundled deck's printed text by looking the rule up in the deck's index and reading the
card it names, face by face, until every fact the answer needs has been read (a card that sends
its notes to the appendix sends the reader there too, and those faces count).

Faces read per answer are counted on the press files in generated/cards/ (pdftotext, as printed),
and the average must stay at most two.  Where the answer is a number the resolver computes, the
resolver is asked too: the card and `resolve` agree."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest

from dsl import model as m
from dsl.cards.blocks import Index
from dsl.cards.deck import APPENDIX_KIND, INDEX_KIND, deck_of
from dsl.cards.pdfcards import Face
from dsl.cards.press import sheets
from tests.conftest import bundled_faces

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "generated" / "cards"
MOST_FACES = 2.0


@dataclass(frozen=True)
class Question:
    deck: str
    asked: str
    look_up: str  # the title the player finds in the index
    facts: tuple[str, ...]  # what the answer needs, as the card prints it


QUESTIONS = (
    Question(
        "skirmish_terrain",
        "What does broken ground do to a runner with DEX 12?",
        "Broken Ground",
        ("DEX \u22122", "3d6 ≤ DEX", "3d6 2 9 26 50 74 91 98"),
    ),
    Question(
        "skirmish_terrain",
        "Can my figure get over a two-metre wall?",
        "Walls: crossing",
        ("two meters or over two meters", "Cannot jump over the wall"),
    ),
    Question(
        "skirmish_terrain",
        "Can I hit anything with a thrown knife in complete darkness?",
        "Complete Darkness",
        ("DEX to hit with an attack = 5", "Chance at DEX to hit with an attack 5: 5%"),
    ),
    Question(
        "skirmish_terrain",
        "How many dice to keep my footing in microgravity with Astrobatics?",
        "Microgravity",
        ("When you have the Astrobatics skill: \u22122 dice (2d6)",),
    ),
    Question("zone_combat", "What do I roll to reach the next zone?", "MOVE: zone to zone", ("d6 ≤ move target",)),
    Question(
        "zone_combat",
        "What if I run while I move?",
        "MOVE: zone to zone",
        ("roll lowest of 2d6", "modifier to all actions \u22122"),
    ),
    Question("zone_combat", "How far can I see in heavy fog?", "FOG", ("Cannot see more than 1 zone in Heavy fog",)),
    Question("zone_combat", "How long does Pain last?", "Pain", ("1d4+1 actions",)),
    Question("mecha_tables", "What is the skid threshold on ice?", "Skidding", ("is ice: skidding threshold +2",)),
    Question("mecha_tables", "What happens when a skid roll fumbles?", "Skidding", ("Roll on Skidding fumble",)),
    Question("mecha_tables", "How many actions does a crew of five have?", "Number of actions", ("4+ → 4",)),
    Question(
        "terrain_cards", "What Hostility Level is a d20 roll of 12?", "Hostility Level", ("11\u201314 Dangerous",)
    ),
    Question("terrain_cards", "What does Woods do to visibility?", "Woods", ("VIS Low Visibility (-3)",)),
    Question(
        "terrain_cards",
        "When does a Savage zone roll on Game Conditions?",
        "Hostility Level",
        ("20 Savage · On 14 or more",),
    ),
    Question(
        "spot_rules_a_to_e",
        "What does a difficult stunt do to my Fly skill?",
        "Aerial Combat",
        ("When stunt attempted is:", "Difficult: fly skill \u221225%"),
    ),
    Question(
        "spot_rules_a_to_e",
        "Can I attack while flying if I need both hands to fly?",
        "Aerial Combat",
        ("cannot attack while flying",),
    ),
    Question("spot_rules_a_to_e", "How much damage does strong acid do?", "Acid", ("acid damage per round = d4",)),
    Question(
        "spot_rules_a_to_e",
        "Can I dodge a missile ambush?",
        "Ambushes",
        ("Cannot dodge or parry this initial round of attacks",),
    ),
    Question(
        "spot_rules_e_to_z",
        "What does a medium dose of radiation do?",
        "Radiation Effects Table",
        ("15+ Medium · every day",),
    ),
    Question(
        "spot_rules_e_to_z",
        "How much does a burning building hurt each round?",
        "Fire and Heat",
        ("burning building → 2d6",),
    ),
)


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", text)


class Deck:
    """A bundled deck as its press file prints it: each face's text, the index's rows."""

    def __init__(self, name: str) -> None:
        book, laid = bundled_faces(name)
        faces = cast("list[Face]", laid)
        deck = deck_of(cast("m.Book", book))
        pages = subprocess.run(
            ["pdftotext", "-layout", str(GENERATED / f"{name}-cards-press.pdf"), "-"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split("\f")
        sides: list[Face | None] = [side for front, back in sheets(faces) for side in (front, back)]
        self.faces = [(face, _plain(page)) for face, page in zip(sides, pages, strict=False) if face is not None]
        index = next(card for card in deck.cards if card.kind == INDEX_KIND)
        block = next(block for block in index.blocks if isinstance(block, Index))
        self.index = dict(block.titles())

    def read(self, title: str, facts: tuple[str, ...]) -> tuple[int, set[str]]:
        """How many faces the player reads to find every fact, and the facts found: the card the
        index names, face by face, then the appendix's faces under its number if it sends there."""
        number = self.index[title]
        read = 0
        text = ""
        card = [page for face, page in self.faces if face.card.number == number]
        for page in card:
            read += 1
            text += " " + page
            if all(fact in text for fact in facts):
                return read, set(facts)
        if f"Notes: in the appendix, under No.\u00a0{number}" in text or f"under No. {number}" in text:
            appendix = [page for face, page in self.faces if face.card.kind == APPENDIX_KIND]
            start = next(
                (i for i, page in enumerate(appendix) if re.search(rf"No\.\s{number}\b", page, re.IGNORECASE)),
                len(appendix),
            )
            for page in appendix[start:]:
                read += 1
                text += " " + page
                if all(fact.casefold() in text.casefold() for fact in facts):
                    return read, set(facts)
        return read, {fact for fact in facts if fact in text}


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils: .ci/run installs it")
def test_twenty_questions_answered_from_the_index_and_the_card_it_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert len(QUESTIONS) == 20
    decks: dict[str, Deck] = {}
    counts = []
    lines = []
    for question in QUESTIONS:
        deck = decks.get(question.deck) or decks.setdefault(question.deck, Deck(question.deck))
        read, found = deck.read(question.look_up, question.facts)
        assert found == set(question.facts), (question.asked, set(question.facts) - found)
        counts.append(read)
        lines.append(
            f"{read} face{'s' if read > 1 else ''}: {question.asked} ({question.look_up}, No. {deck.index[question.look_up]})"
        )
    average = sum(counts) / len(counts)
    with capsys.disabled():
        print(f"\nthe player's test: {average:.2f} faces read per answer on average (at most {MOST_FACES:.0f})")
        for line in lines:
            print("  " + line)
    assert average <= MOST_FACES


def test_the_card_and_the_resolver_agree_on_broken_ground() -> None:
    """Broken ground, DEX 12, running (more than half MOV): the card's 50% at DEX 12 is the
    resolver's exact 1/2 for 3d6 at most DEX 10."""
    import json

    from tests.conftest import run_cli

    result = run_cli(
        "resolve",
        "skirmish_terrain",
        "broken_ground",
        "--set",
        "DEX=12",
        "--set",
        "MOV=10",
        "--set",
        "moved=6",
        "--json",
    )
    assert result.exit_code == 0, result.output
    resolution = json.loads(result.output)
    assert resolution["stats"]["DEX"]["final"] == 10
    assert [roll["probability"]["fraction"] for roll in resolution["rolls"]] == ["1/2"]
