"""Fitting a deck (what a long card leaves to the appendix) counts a card's faces no further than
the count needs, and what it keeps for the layout gives the layout a fresh start would: the same
cards, the same faces."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dsl import model as m
from dsl.cards import pdfcards
from dsl.cards.blocks import Card
from dsl.cards.deck import build_deck, deck_of
from dsl.cards.flow import Item
from dsl.cards.pdfcards import ONE_CARD, Face, Layouts, fitted_faces, layout
from dsl.compiler import compile_file
from dsl.resources import bundled_rulebooks_dir


@pytest.fixture(scope="module")
def books() -> list[m.Book]:
    found = []
    for path in sorted(bundled_rulebooks_dir().glob("*.rules")):
        book = compile_file(path).book
        assert book is not None
        found.append(book)
    return found


def described(faces: list[Face]) -> list[tuple[object, ...]]:
    """What a face shows, as plain values: its place, its title and what is placed on it."""
    return [
        (
            face.card,
            face.part,
            face.parts,
            face.header.title.getPlainText(),
            round(face.header.height, 6),
            tuple((type(p.flowable).__name__, round(p.height, 6), round(p.space, 6)) for p in face.items),
            tuple(p.flowable.getPlainText() for p in face.items if hasattr(p.flowable, "getPlainText")),
        )
        for face in faces
    ]


def fitted_whole(book: m.Book) -> list[Card]:
    """The printed deck, each card's faces counted by laying it out whole, every time."""
    deck = deck_of(book)
    movable = dict(deck.movable)
    cards: list[Card] = []
    moved = {}
    for card in deck.cards:
        found = movable.get(card.number)
        keep = 1 if card.number == 1 else ONE_CARD
        if found is not None and len(layout(card)) > keep and len(layout(found.trimmed)) < len(layout(card)):
            card = found.trimmed
            moved[card.number] = found.blocks
        cards.append(card)
    appendix = deck.appendix.card(moved)
    return cards if appendix is None else [*cards, appendix]


def cards_of(faces: list[Face]) -> list[Card]:
    return list(dict.fromkeys(face.card for face in faces))


def test_the_deck_is_the_one_fitted_by_whole_layouts(books: list[m.Book]) -> None:
    # Cards whose notes go to the appendix when they would take the card past one physical card
    # (two faces) and leaving them saves a face: a count must choose exactly as whole layouts do.
    trimmed = 0
    for book in books:
        deck = cards_of(fitted_faces(deck_of(book)))
        assert deck == fitted_whole(book), book.name
        whole = {card.key: card for card in build_deck(book) if card.key}  # the deck as it reads whole
        for card in deck:
            if card.key and card != whole[card.key]:
                assert len(layout(card)) < len(layout(whole[card.key])), card.title  # it saves a face
                trimmed += 1
    assert trimmed >= 20  # 26 cards of the six books leave their notes: kept, they would take another card


def test_a_card_counted_first_is_laid_out_as_a_fresh_one(books: list[m.Book]) -> None:
    for book in books:
        faces = fitted_faces(deck_of(book))  # from the trials the counts kept, where they did
        fresh = [face for card in cards_of(faces) for face in layout(card)]
        assert described(faces) == described(fresh), book.name


def test_a_count_of_at_most_one_makes_only_the_trials(books: list[m.Book]) -> None:
    cards = [card for book in books for card in build_deck(book) if not card.pages]
    long = 0
    for card in cards:
        layouts = Layouts()
        whole = len(layout(card))
        assert layouts.count(card, 1) == min(whole, 2), card.title
        assert card not in layouts.laid
        long += whole > 1
        assert layouts.count(card, 3) == min(whole, 4) and layouts.count(card) == whole
        assert card not in layouts.trials  # laid out whole: the trials are let go
    assert long >= 40


def test_a_remembered_header_is_the_one_made_afresh(books: list[m.Book]) -> None:
    def plain(header: tuple[pdfcards.Header, list[Item]]) -> tuple[object, ...]:
        made, extra = header
        cites = made.cites.getPlainText() if made.cites is not None else None
        texts = tuple(item.flowable.getPlainText() for item in extra)
        return made.title.getPlainText(), made.height, made.title_height, cites, made.cites_height, texts

    cards = [card for book in books for card in cards_of(fitted_faces(deck_of(book)))]
    long = " ".join(f"Overlong{i:02}" for i in range(30))  # too long for three lines, and for two
    cards += [replace(cards[-1], title=long), replace(cards[-1], cites=long), replace(cards[-1], title=long, cites=long)]
    for card in cards:
        for continued in (False, True):
            remembered = pdfcards._header(card, continued)
            assert pdfcards._header(card, continued)[0] is remembered[0]  # made once
            assert plain(remembered) == plain(pdfcards._new_header(card, continued)), card.title
    assert all(pdfcards._header(card, False)[1] for card in cards[-3:])  # printed in full in the body


def test_a_card_too_long_for_the_full_band_takes_the_slim_one_and_names_its_kind_and_source() -> None:
    """A card that the compact step does not fit on one face under the full band gets the slim
    band on its first face too (its title beside the chip), its kind and citation on a line under
    it: zone_combat's RAIN takes one face so (DEBRIS did until its "Otherwise" lines, and
    spot_rules_e_to_z No. 18, Knockout Attacks, until its trait's roll became a line: both now fit
    under the full band).  Every first face in
    a slim band says what kind of card it is and its source."""
    from typing import cast

    from tests.conftest import bundled_faces

    for name in ("spot_rules_e_to_z", "zone_combat"):
        faces = cast("list[Face]", bundled_faces(name)[1])
        for face in faces:
            if face.part == 1 and face.header.slim:
                assert face.header.cites is not None, face.card.title
                said = face.header.cites.getPlainText()
                assert said.startswith(face.card.kind) and face.card.cites[:12] in said, said
        knockout = [face for face in faces if face.card.title == "Knockout Attacks"]
        if name == "spot_rules_e_to_z":
            assert len(knockout) == 1
        rain = [face for face in faces if face.card.title == "RAIN"]
        if name == "zone_combat":
            assert len(rain) == 1 and rain[0].header.slim
            assert rain[0].header.cites is not None
            assert rain[0].header.cites.getPlainText() == "Condition \u00b7 Condition tiles: RAIN"


def test_each_face_is_given_the_room_its_own_title_leaves() -> None:
    """A card laid out by its parts gives every face after the first the room the tallest of its
    titles leaves, then, when that saves a face, the room each face's own title leaves: Ambushes
    (spot_rules_a_to_e No. 13) took three faces, each sized for the longest part title, and takes
    two; "The roll that requires LoF" (terrain_cards No. 5) four, and takes three.  Mounted Combat
    (spot_rules_e_to_z No. 24), the first such card (five faces -> four), takes four (its
    wording made shorter, its spur roll's failure given as the source says): its count is held
    too.  No face holds more than the room its own title leaves."""
    from typing import cast

    from dsl.cards.paginate import used
    from tests.conftest import bundled_faces

    counts: dict[str, int] = {}
    for name in ("spot_rules_a_to_e", "spot_rules_e_to_z", "terrain_cards"):
        faces = cast("list[Face]", bundled_faces(name)[1])
        for face in faces:
            if not face.card.pages:
                assert used(face.items) <= pdfcards.body_height(face.header) + 0.01, (face.card.title, face.part)
        for title in ("Mounted Combat", "Ambushes", "The roll that requires LoF"):
            found = [face for face in faces if face.card.title == title]
            if found:
                counts[title] = len(found)
    assert counts == {"Mounted Combat": 4, "Ambushes": 2, "The roll that requires LoF": 3}


def test_a_part_is_kept_whole_unless_that_costs_the_card_a_face() -> None:
    """A part (a roll, an "As" section) that fits on a face starts on a fresh face rather than
    breaking across two, unless the card would take a face more so: Weather Conditions
    (spot_rules_e_to_z No. 55) took three faces with each of its sections whole, and takes two,
    its second face continuing a section ("(cont.)").  Mounted Combat keeps its rolls whole on
    its four faces, each after the first titled by the roll it starts."""
    from typing import cast

    from tests.conftest import bundled_faces

    faces = cast("list[Face]", bundled_faces("spot_rules_e_to_z")[1])
    weather = [face for face in faces if face.card.title == "Weather Conditions"]
    assert len(weather) == 2
    assert weather[1].header.title.getPlainText() == "Weather Conditions (cont.)"
    mounted = [face.header.title.getPlainText() for face in faces if face.card.title == "Mounted Combat"]
    assert len(mounted) == 4 and all(title.startswith("Mounted Combat: ") for title in mounted[1:])
