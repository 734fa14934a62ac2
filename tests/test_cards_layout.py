"""Counting a card's faces lays it out no further than the count needs, and what it keeps for the
layout gives the layout a fresh start would: the same deck, the same faces."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dsl import model as m
from dsl.cards import pdfcards
from dsl.cards.blocks import Card
from dsl.cards.deck import build_deck
from dsl.cards.flow import Item
from dsl.cards.pdfcards import Face, face_count, faces_of, layout
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


def counted_whole(card: Card, most: int | None = None) -> int:
    """A card's faces counted by laying it out whole, every time."""
    count = len(layout(card))
    return count if most is None else min(count, most + 1)


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


def test_the_deck_is_the_one_counted_by_whole_layouts(books: list[m.Book]) -> None:
    # Cards whose notes go to the appendix when that saves a face: a count that stops at the
    # trials must choose exactly as whole layouts do.
    trimmed = 0
    for book in books:
        pdfcards._TRIALS.clear()
        deck = build_deck(book, faces=face_count)
        assert deck == build_deck(book, faces=counted_whole), book.name
        whole = {card.key: card for card in build_deck(book) if card.key}  # faces not counted: nothing moves
        for card in deck:
            if card.key and card != whole[card.key]:
                assert len(layout(card)) < len(layout(whole[card.key])), card.title  # it saves a face
                trimmed += 1
    assert trimmed >= 40  # 72 cards of the six books leave their notes, 36 of them for one face


def test_a_card_counted_first_is_laid_out_as_a_fresh_one(books: list[m.Book]) -> None:
    for book in books:
        deck = build_deck(book, faces=face_count)
        kept = described(faces_of(deck))  # from the trials the counts kept, where they did
        assert kept == described([face for card in deck for face in layout(card)]), book.name


def test_a_count_of_at_most_one_makes_only_the_trials(books: list[m.Book]) -> None:
    cards = [card for book in books for card in build_deck(book) if not card.pages]
    long = 0
    for card in cards:
        pdfcards._LAYOUTS.pop(card, None)
        pdfcards._TRIALS.pop(card, None)
        whole = len(layout(card))
        assert face_count(card, 1) == min(whole, 2), card.title
        assert (card in pdfcards._LAYOUTS) is False
        long += whole > 1
        assert face_count(card, 3) == min(whole, 4) and face_count(card) == whole
        assert card not in pdfcards._TRIALS  # laid out whole: the trials are let go
    assert long >= 40


def test_a_remembered_header_is_the_one_made_afresh(books: list[m.Book]) -> None:
    def plain(header: tuple[pdfcards.Header, list[Item]]) -> tuple[object, ...]:
        made, extra = header
        cites = made.cites.getPlainText() if made.cites is not None else None
        texts = tuple(item.flowable.getPlainText() for item in extra)
        return made.title.getPlainText(), made.height, made.title_height, cites, made.cites_height, texts

    cards = [card for book in books for card in build_deck(book, faces=face_count)]
    long = " ".join(f"Overlong{i:02}" for i in range(30))  # too long for three lines, and for two
    cards += [replace(cards[-1], title=long), replace(cards[-1], cites=long), replace(cards[-1], title=long, cites=long)]
    for card in cards:
        for continued in (False, True):
            remembered = pdfcards._header(card, continued)
            assert pdfcards._header(card, continued)[0] is remembered[0]  # made once
            assert plain(remembered) == plain(pdfcards._new_header(card, continued)), card.title
    assert all(pdfcards._header(card, False)[1] for card in cards[-3:])  # printed in full in the body
