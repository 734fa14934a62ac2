"""What a card or sheet says, independent of how it is drawn.

The builders (deck.py, sheet.py) turn a checked rulebook into these blocks once; the PDF and HTML
writers only lay them out.  All text in a block is plain text (already passed through
`text.clean`), never markup: each writer escapes it for its own format.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from dsl.cards.text import percent
from dsl.categories import Category

Style = Literal["plain", "strong", "em", "muted"]



class CardsError(ValueError):
    """A choice made for the cards that they cannot honour (an unknown rule in `--only`, a card
    format that fits no paper, a back image that cannot be read): the user's to fix, reported
    without a traceback."""

@dataclass(frozen=True, slots=True)
class Run:
    """A stretch of text in one style: the notation of a modifier is strong, its label muted."""

    text: str
    style: Style = "plain"


Inline = tuple[Run, ...]


@dataclass(frozen=True, slots=True)
class Heading:
    """Starts a part of a card: "As Broken Ground", "Notes", "Errata"."""

    text: str
    detail: str = ""  # a citation or other small text after the heading


@dataclass(frozen=True, slots=True)
class Condition:
    """ "When moved > half MOV:": the condition of the entries indented below it, `indent` levels
    in (under the conditions it is nested in)."""

    text: str
    indent: int = 0


OTHERWISE = "Otherwise"
"""How a card's line says the condition that denies the one said just before it at its level."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One effect: a modifier, a derived value, a restriction."""

    runs: Inline
    indent: int = 0  # levels in: under the conditions it is nested in
    mark: str = ""  # a leading symbol: ✕ for what cannot be done


@dataclass(frozen=True, slots=True)
class Detail:
    """A small line belonging to the entry or roll above it: stacking, a dice change, an outcome."""

    runs: Inline
    indent: int = 0


@dataclass(frozen=True, slots=True)
class RollHead:
    title: str  # "Avoid falling"
    notation: str  # "3d6 ≤ DEX"


@dataclass(frozen=True, slots=True)
class ChanceRow:
    dice: str  # what is rolled, or the outcome tier: "3d6", "critical"
    note: str  # when this row applies: "when acrobatics"; empty for the plain roll
    chances: tuple[Fraction, ...]
    cells: tuple[str, ...] = field(init=False, repr=False, compare=False)
    """The chances as printed: `50%`, `<1%`, `100%`.  Written once: every trial layout of a card
    makes its chance tables again from them."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "cells", tuple(percent(p) for p in self.chances))

    @property
    def numbers(self) -> tuple[str, ...]:
        """The same without the percent sign, for a table whose header says "chance %"."""
        return tuple(c.removesuffix("%") for c in self.cells)


@dataclass(frozen=True, slots=True)
class ChanceTable:
    """Chances of success (one row per pool or outcome) against each target value (columns)."""

    against: str  # what the columns are values of: "DEX", "(STR + DEX) / 2", "POW \u2212 aura"
    columns: tuple[str, ...]
    rows: tuple[ChanceRow, ...]

    def chance(self, column: str, row: int = 0) -> str:
        return self.rows[row].cells[self.columns.index(column)]



@dataclass(frozen=True, slots=True)
class Chances:
    table: ChanceTable


@dataclass(frozen=True, slots=True)
class Grid:
    """A rulebook table: a header row, then rows whose first `keys` cells are keys."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    keys: int = 1
    _numeric: tuple[bool, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Once per column, not once per cell: writers ask for every cell of a long table.
        numeric = tuple(
            index >= self.keys and all(_NUMERIC.match(row[index]) for row in self.rows)
            for index in range(len(self.header))
        )
        object.__setattr__(self, "_numeric", numeric)

    def numeric(self, index: int) -> bool:
        """Whether a column holds only numbers (or X, N/A, a dash): such columns are centred."""
        return 0 <= index < len(self._numeric) and self._numeric[index]


@dataclass(frozen=True, slots=True)
class IndexSub:
    """A subentry under its head: the rest of a title after the head and `joiner` ("Chases"
    ": " "Maneuvers", "Chases" " " "on Foot"), on a line of its own or run in after the head."""

    text: str
    joiner: str
    numbers: tuple[int, ...]  # of its cards


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """A head and the numbers of its cards (none when no card bears the head alone: "Zone
    trait"), and the subentries under it, from A to Z.  The index leaves out the category: its
    glyph beside every entry would cost the index a face in some decks, and the card names it."""

    head: str
    numbers: tuple[int, ...]
    subs: tuple[IndexSub, ...] = ()


@dataclass(frozen=True, slots=True)
class Index:
    """The deck's index, set as a book's index is: an entry a head, its subentries under it."""

    entries: tuple[IndexEntry, ...]

    def titles(self) -> Iterator[tuple[str, int]]:
        """Every full title the index lists, with the number of a card it sends to, in the
        index's order: how a player looks a rule up."""
        for entry in self.entries:
            for number in entry.numbers:
                yield entry.head, number
            for sub in entry.subs:
                for number in sub.numbers:
                    yield entry.head + sub.joiner + sub.text, number


_NUMERIC = re.compile(r"^(?:[<>+\u2212-]?[0-9½¼¾⅓⅔⅕⅛.,/]+%?|[\u2013\u2014X]|N/A)?$")


@dataclass(frozen=True, slots=True)
class Note:
    """A note, or an erratum when `quote` holds the words of the source it explains."""

    text: str
    quote: str | None = None
    condition: str = ""


@dataclass(frozen=True, slots=True)
class Text:
    runs: Inline
    small: bool = False


Block = Heading | Condition | Entry | Detail | RollHead | Chances | Grid | Index | Note | Text


@dataclass(frozen=True, slots=True)
class Card:
    """The content of one card; a long one is split over several when printed."""

    key: str  # the rule or table name, or "" for the rulebook's own card
    kind: str  # "Rule", "Terrain", "Condition", "Trait", "Table", "Rulebook"
    title: str
    cites: str
    category: Category
    blocks: tuple[Block, ...]
    footer: str  # the rulebook's title
    number: int = 0  # its place in the deck, which the index and cross-references name; 0: none
    pages: bool = False  # a reference in pages (the index, the appendix): its faces are not continuations


@dataclass(frozen=True, slots=True)
class SheetEntry:
    title: str
    cites: str
    kind: str
    category: Category
    blocks: tuple[Block, ...]


@dataclass(frozen=True, slots=True)
class SheetSection:
    title: str
    category: Category | None
    entries: tuple[SheetEntry, ...]


@dataclass(frozen=True, slots=True)
class Sheet:
    """The quick-reference sheet: tables first, then every rule's effects by category."""

    title: str
    subtitle: str
    intro: tuple[Block, ...]
    sections: tuple[SheetSection, ...]


@dataclass(frozen=True, slots=True)
class Movable:
    """What a card may leave to the deck's appendix when that puts it on fewer faces: the card
    without it (a pointer to the appendix in its place), and the blocks the appendix then holds
    under the card's part (a rule's notes; the rulebook's introduction)."""

    trimmed: Card
    blocks: tuple[Block, ...]


@dataclass(frozen=True, slots=True)
class AppendixPart:
    """A part of the appendix: under its heading, the blocks a card left to it (the card
    numbered `number`; 0 for none), then what it always holds: the rule's asides (reading matter
    that is never on the card) and its errata."""

    number: int
    heading: tuple[Block, ...]
    errata: tuple[Block, ...] = ()
    asides: tuple[Block, ...] = ()


@dataclass(frozen=True, slots=True)
class Appendix:
    """The deck's last card, read away from the table (its faces are pages): the errata, with
    `errata`, and whatever cards leave to it, each under the rule or table it belongs to."""

    parts: tuple[AppendixPart, ...]
    errata: bool
    kind: str
    category: Category
    footer: str
    number: int

    def card(self, moved: dict[int, tuple[Block, ...]] | None = None) -> Card | None:
        """The appendix holding what the cards numbered in `moved` left to it; None when it
        holds nothing at all."""
        moved = moved or {}
        blocks: list[Block] = []
        for part in self.parts:
            held = (*moved.get(part.number, ()), *part.asides, *part.errata)
            if held:
                blocks += [*part.heading, *held]
        if not blocks:
            return None
        notes = any(moved.values()) or any(part.asides for part in self.parts)
        title = "Notes and errata" if notes and self.errata else "Notes" if notes else "Errata"
        return Card("", self.kind, title, "", self.category, tuple(blocks), self.footer, self.number, pages=True)


@dataclass(frozen=True, slots=True)
class Deck:
    """What every card of a rulebook says, decided once, for print and for screens alike: the
    cards in order (the rulebook's, the legend, the index, one per rule and table), what each
    may leave to the appendix (by card number), and the appendix.  Whether a card does is a
    matter of layout (dsl/cards/pdfcards.py decides it by the faces it takes); on a screen every
    card is whole (`whole`)."""

    cards: tuple[Card, ...]
    screen_legend: Card
    movable: tuple[tuple[int, Movable], ...]
    appendix: Appendix

    def whole(self, *, screen: bool = False) -> list[Card]:
        """The cards with nothing left to the appendix; `screen`: with the legend for screens."""
        cards = [self.screen_legend if screen and c.number == self.screen_legend.number else c for c in self.cards]
        last = self.appendix.card()
        return cards if last is None else [*cards, last]
