"""The deck: one card for the rulebook itself, then one per rule, terrain, condition, trait and
table, in the order the rulebook declares them."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import replace
from fractions import Fraction

from dsl import model as m
from dsl.cards.blocks import (
    Appendix,
    AppendixPart,
    Block,
    Card,
    CardsError,
    Deck,
    Detail,
    Entry,
    Grid,
    Heading,
    Index,
    IndexEntry,
    IndexSub,
    Movable,
    Note,
    Run,
    Text,
)
from dsl.cards.chain import chain_blocks
from dsl.cards.chances import distribution
from dsl.cards.effects import CANNOT, EffectWriter
from dsl.cards.notation import COMPARISON, ROUNDING, Notation, pool_text, row_key
from dsl.cards.text import DASH, MINUS, NBSP, clean, display_name, percent, signed, title_case_first
from dsl.categories import CATEGORIES, DEFAULT_CATEGORY, Category
from dsl.printer import natural_words
from dsl.runtime.pools import showing_within

BOOK_KIND = "Rulebook"
LEGEND_KIND = "Legend"
INDEX_KIND = "Index"
APPENDIX_KIND = "Appendix"


def category(name: str | None) -> Category:
    return CATEGORIES.get(name or DEFAULT_CATEGORY, CATEGORIES[DEFAULT_CATEGORY])


def deck_of(book: m.Book, *, errata: str = "appendix", only: Collection[str] | None = None) -> Deck:
    """What every card of a book says, decided once per rule and table (see `Deck`): the
    rulebook's card, the legend, the index, one card per rule and table in the order the book
    declares them, numbered, then the appendix.  `errata`: "appendix", "card" (on each rule's
    card) or "none" (left out; the citation stays on the card).  A rule's notes, and the
    rulebook's introduction, may go to the appendix when that saves a face (`Deck.movable`):
    the rule itself then reads on one card.  `only`: the rules, tables and categories (by name)
    whose cards the deck holds; every name must be one of them (CardsError)."""
    notation = Notation(book)
    items = chosen(book, only)
    first = 4  # after the rulebook's card, the legend and the index
    numbers = {item.name: first + index for index, item in enumerate(items)}
    last = first + len(items)
    writer = EffectWriter(book, notation, full=True, errata=errata == "card", numbers=numbers)
    footer = clean(book.title)
    first_card = replace(book_card(book, notation, errata=errata == "card"), number=1)
    samples = legend_samples(book, notation)
    appendix = appendix_of(book, writer, numbers, footer, last, errata=errata == "appendix", items=items)
    asides = last if any(part.asides for part in appendix.parts) else None
    legend = replace(legend_card(book, footer, samples=samples, asides=asides), number=2)
    screen_legend = replace(legend_card(book, footer, screen=True, samples=samples, asides=asides), number=2)
    body: list[Card] = []
    for item in items:
        if isinstance(item, m.Rule):
            made = Card(
                key=item.name,
                kind=item.kind.title(),
                title=clean(item.title),
                cites=clean(item.cites or ""),
                category=category(item.category),
                blocks=tuple(writer.rule(item)),
                footer=footer,
                number=numbers[item.name],
            )
        else:
            blocks = _table_card_blocks(item, notation, errata == "card")
            made = replace(table_card(item, footer, blocks), number=numbers[item.name])
        body.append(made)
    movable = [(1, found)] if (found := _introduction(first_card, last)) is not None else []
    movable += [(card.number, found) for card in body if (found := _notes(card)) is not None]
    return Deck((first_card, legend, index_card(body, footer), *body), screen_legend, tuple(movable), appendix)


def chosen(book: m.Book, only: Collection[str] | None = None) -> list[m.Rule | m.Table]:
    """The rules and tables a deck holds, in the order the book declares them: all, or those
    `only` names, by their own name or their category's."""
    items: list[m.Rule | m.Table] = [*book.rules.values(), *book.tables.values()]
    items.sort(key=lambda item: (item.span.line, item.span.column))
    if only is None:
        return items
    wanted = set(only)
    known = {item.name for item in items} | {item.category or DEFAULT_CATEGORY for item in items}
    unknown = sorted(wanted - known)
    if unknown:
        raise CardsError(
            f"--only {', '.join(unknown)}: no rule, table or category of this rulebook is called that "
            f"(rules and tables: `rulecraft list {book.name}`; categories here: "
            f"{', '.join(sorted({item.category or DEFAULT_CATEGORY for item in items}))})"
        )
    return [item for item in items if item.name in wanted or (item.category or DEFAULT_CATEGORY) in wanted]


def build_deck(book: m.Book, *, screen: bool = False, errata: str = "appendix") -> list[Card]:
    """The cards of a book as they read whole (see `deck_of`), nothing left to the appendix:
    `screen` for HTML, where a card is never split (the legend says so)."""
    return deck_of(book, errata=errata).whole(screen=screen)


def _introduction(card: Card, appendix: int) -> Movable | None:
    """The rulebook's card without its introduction (the book's notes: reading matter, not a
    rule), a pointer to the appendix numbered `appendix` in its place."""
    notes: list[Block] = [b for b in card.blocks if isinstance(b, Text)]
    if not notes:
        return None
    pointer = Detail((Run(f"Introduction: in the appendix, No.{NBSP}{appendix}.", "muted"),))
    kept = [b for b in card.blocks if b not in notes]
    at = next((i for i, b in enumerate(kept) if not isinstance(b, Detail)), len(kept))
    return Movable(replace(card, blocks=(*kept[:at], pointer, *kept[at:])), tuple(notes))


def _notes(card: Card) -> Movable | None:
    """A rule's or table's card without its notes, a pointer to the appendix in their place."""
    notes: list[Block] = [b for b in card.blocks if isinstance(b, Note) and b.quote is None]
    if not notes:
        return None
    kept = [b for b in card.blocks if b not in notes and not (isinstance(b, Heading) and b.text == "Notes")]
    pointer = Detail((Run(f"Notes: in the appendix, under No.{NBSP}{card.number}.", "muted"),))
    return Movable(replace(card, blocks=(*kept, pointer)), tuple(notes))


def index_card(cards: list[Card], footer: str) -> Card:
    """Every rule and table from A to Z with its card number, so that a player finds a rule by
    name in seconds; set as a book's index is, so that it takes few faces (`index_entries`)."""
    blocks: tuple[Block, ...] = (Index(index_entries(cards)),)
    return Card("", INDEX_KIND, "Index A\u2013Z", "", category(None), blocks, footer, number=3, pages=True)


def index_entries(cards: list[Card]) -> tuple[IndexEntry, ...]:
    """The index's entries: a title `Head: rest`, or one that begins with another card's title
    and a word ("Chases on Foot" beside "Chases"), goes under its head as a subentry when the
    head has more than one title under it ("Chases 25", then "Maneuvers 30", "on Foot 28"), so
    that a run of titles alike takes a line each for what tells them apart; cards of the same
    title share their entry ("Wind 49, 50").  Heads and subentries go from A to Z, without
    case, leading punctuation and articles."""
    titles = {c.title for c in cards}
    split = {c.title: _head_and_rest(c.title, titles) for c in cards}
    members: dict[str, list[Card]] = {}
    for card in cards:
        members.setdefault(split[card.title][0], []).append(card)
    entries = []
    for head, under in members.items():
        alone = [c for c in under if c.title == head]
        pairs = dict.fromkeys(split[c.title][1:] for c in under if c.title != head)
        if not pairs or (not alone and len(pairs) < 2):
            for title in dict.fromkeys(c.title for c in under):
                entries.append(IndexEntry(title, _numbers(c for c in under if c.title == title)))
            continue
        subs = tuple(
            IndexSub(rest, joiner, _numbers(c for c in under if c.title == head + joiner + rest))
            for joiner, rest in sorted(pairs, key=lambda pair: (_sort_key(pair[1]), pair[1]))
        )
        entries.append(IndexEntry(head, _numbers(alone), subs))
    return tuple(sorted(entries, key=_entry_order))


def _entry_order(entry: IndexEntry) -> tuple[str, int]:
    """A head's place from A to Z; heads alike but for case in the order of their cards."""
    return _sort_key(entry.head), min((*entry.numbers, *(number for sub in entry.subs for number in sub.numbers)))


def _head_and_rest(title: str, titles: set[str]) -> tuple[str, str, str]:
    """The head a title may go under, the joiner and the rest: ("Chases", ": ", "Maneuvers");
    (title, "", "") for a title that is its own head.  A parenthesis is no subentry: "Pit
    (sporadic)" stays whole."""
    head, colon, rest = title.partition(": ")
    if colon and rest:
        return head, colon, rest
    words = title.split(" ")
    for cut in range(len(words) - 1, 0, -1):
        head, rest = " ".join(words[:cut]), " ".join(words[cut:])
        if head in titles and rest[:1].isalnum():
            return head, " ", rest
    return title, "", ""


def _numbers(cards: Iterable[Card]) -> tuple[int, ...]:
    return tuple(sorted(c.number for c in cards))


def _sort_key(title: str) -> str:
    """A title as an index sorts it: without case and leading punctuation or articles."""
    text = title.casefold().lstrip(" \"'\u201c\u2018(-\u2013")
    for article in ("the ", "a ", "an "):
        if text.startswith(article):
            return text[len(article) :]
    return text


def appendix_of(
    book: m.Book,
    writer: EffectWriter,
    numbers: dict[str, int],
    footer: str,
    number: int,
    *,
    errata: bool,
    items: list[m.Rule | m.Table] | None = None,
) -> Appendix:
    """The appendix: with `errata`, every erratum of the book (how the rulebook reads its source
    where the source is unclear), under the rule or table it belongs to, named with its card
    number and citation; and room, under the same headings, for what cards leave to it (the
    introduction first).  A rule's asides are always there, never on its card.  Read away from
    the table: its faces are pages, not continuations."""
    parts = [AppendixPart(1, (Heading("Introduction"),))]
    header = tuple(Note(clean(text), clean(quote or "")) for text, quote in book.notes if quote is not None)
    parts.append(AppendixPart(0, (Heading("The whole rulebook"),), header if errata else ()))
    for item in chosen(book) if items is None else items:
        found: list[Block] = []
        if errata:
            if isinstance(item, m.Rule):
                found += writer.errata_of(item)
            else:
                found += [Note(clean(text), clean(quote or "")) for text, quote in item.notes if quote is not None]
        asides = writer.asides_of(item) if isinstance(item, m.Rule) else [Note(clean(text), None) for text in item.asides]
        detail = " \u00b7 ".join(x for x in (f"No.{NBSP}{numbers[item.name]}", clean(item.cites or "")) if x)
        parts.append(AppendixPart(numbers[item.name], (Heading(clean(item.title), detail),), tuple(found), tuple(asides)))
    return Appendix(tuple(parts), errata, APPENDIX_KIND, category(None), footer, number)


# ---------------------------------------------------------------- the rulebook's own card


def book_card(book: m.Book, notation: Notation, *, errata: bool = True) -> Card:
    blocks: list[Block] = []
    if book.source:
        blocks.append(Detail((Run("Source: ", "strong"), Run(clean(book.source)))))
    if book.version:
        blocks.append(Detail((Run("Version: ", "strong"), Run(clean(book.version)))))
    blocks += [Text((Run(clean(text)),)) for text, quote in book.notes if quote is None]
    found = [(text, quote) for text, quote in book.notes if quote is not None] if errata else []
    if found:
        blocks.append(Heading("Errata"))
        blocks += [Note(clean(text), clean(quote or "")) for text, quote in found]
    blocks += shared_definitions(book, notation)
    return Card("", BOOK_KIND, clean(book.title), "", category(None), tuple(blocks), clean(book.title))


Samples = dict[str, tuple[str, str]]
"""The legend's rows that a rulebook illustrates with its own modifiers and rolls, by kind."""


def legend_samples(book: m.Book, notation: Notation) -> Samples:
    """The first short modifier or roll of each kind the rulebook writes, with what it means, so
    that a deck's legend reads in the book's own stats and dice (`skill \u221220%`, `d100 \u2264 skill`)
    and explains only what the book uses: no `3d6 \u2264 DEX` in a d100 book."""
    effects = [e for part in book.parts.values() for e in part.effects if not isinstance(e, m.PartEffect)]
    samples: Samples = {}

    def short(text: str) -> bool:
        return len(text) <= 18

    for effect in effects:
        if isinstance(effect, m.RollEffect):
            _roll_sample(effect, notation, samples)
            continue
        if isinstance(effect, m.CannotEffect):
            samples.setdefault("cannot", (CANNOT + NBSP + "Cannot", "forbidden while its condition holds"))
            continue
        if not isinstance(effect, m.ModEffect) or effect.value is None:
            continue
        stat = notation.target(effect.target)
        value = notation.expr(effect.value)
        if effect.op == "add" and effect.per is not None and "per" not in samples:
            sample = notation.change(effect)
            unit = notation.unit_noun(effect.per)
            if short(sample) and unit is not None:
                samples["per"] = (sample, f"{value.lstrip(MINUS + '+-')} for every {unit}")
        elif effect.op == "add" and "add" not in samples:
            sample = notation.modifier(effect)
            if short(sample) and value.lstrip(MINUS + "+-").replace("%", "").isdigit():
                amount = value.lstrip(MINUS + "+-") + ("%" if effect.percent and not value.endswith("%") else "")
                meaning = f"subtract {amount} from {stat}" if value[0] in MINUS + "-" else f"add {amount} to {stat}"
                samples["add"] = (sample, meaning)
        elif effect.op in ("mul", "div") and effect.rounding is not None and "mul" not in samples:
            sample = notation.modifier(effect)
            if short(sample):
                samples["mul"] = (
                    sample,
                    f"multiply {stat}; round {ROUNDING['up']}{NBSP}up, "
                    f"{ROUNDING['down']}{NBSP}down, {ROUNDING['nearest']}{NBSP}nearest",
                )
        elif effect.op == "set" and "set" not in samples and value.isdigit():
            samples["set"] = (notation.modifier(effect), f"{stat} counts as {value}")
        elif effect.op in ("min", "max") and "clamp" not in samples and short(notation.clamp(effect)):
            word = "below" if effect.op == "min" else "above"
            samples["clamp"] = (notation.clamp(effect), f"{stat} never {word} {value}")
    return samples


def _roll_sample(effect: m.RollEffect, notation: Notation, samples: Samples) -> None:
    """The legend's row for a kind of roll the book makes, the first time it makes one."""
    sample = notation.roll(effect)
    if len(sample) > 24:
        return
    if effect.kind == "check" and effect.op in ("<=", "<", ">=", ">") and effect.target is not None:
        key = "roll under" if effect.op in ("<=", "<") else "roll over"
        side = "or less" if effect.op == "<=" else "or more" if effect.op == ">=" else ""
        what = notation.expr(effect.target_dice if effect.target_dice is not None else effect.target)
        if effect.target_dice is not None:  # dice against dice: "roll both; success when yours ..."
            meaning = f"roll both; success {'at or ' if effect.op in ('<=', '>=') else ''}"
            meaning += f"{'below' if effect.op in ('<=', '<') else 'above'} {what}"
        elif effect.op in ("<", ">"):
            meaning = f"roll; success {'below' if effect.op == '<' else 'above'} {what}"
        else:
            meaning = f"roll; success on {what} {side}"
        samples.setdefault(key, (sample, meaning))
    elif effect.kind == "count":
        samples.setdefault("count", (sample, "roll the dice; each that makes the target is a success"))
    elif effect.kind == "total":
        samples.setdefault("total", (sample, "roll and add up: the total is the result"))
    elif effect.kind == "opposed":
        samples.setdefault("opposed", (sample, "both roll; the higher total wins"))
    elif effect.kind == "resist":
        samples.setdefault("resist", (sample, "a resistance roll: active against passive"))
    if effect.kind in ("check", "count", "opposed", "resist"):
        samples.setdefault("chance", (f"chance{NBSP}%", "your exact chance, by the value on your sheet"))


LEGEND_ORDER = ("add", "mul", "per", "clamp", "set", "roll under", "roll over", "count", "total", "opposed", "resist", "chance", "cannot")
"""The order of the legend's rows: modifiers, then rolls, then what the cards add."""


def legend_card(
    book: m.Book, footer: str, *, screen: bool = False, samples: Samples | None = None, asides: int | None = None
) -> Card:
    """How to read the notation, for players who have not seen it before, in the book's own
    stats and dice (`samples`): a row for each kind of modifier and roll the book uses, and
    only those.  Printed cards that run long continue on further faces; on a screen (HTML) a
    card is whole.  `asides`: the number of the appendix, when it holds asides of the deck's
    cards."""
    given = samples or {}
    rows = [given[key] for key in LEGEND_ORDER if key in given]
    stacking = (
        "Modifiers add up, unless a stacking group says otherwise."
        if book.groups
        else "Modifiers from several rules add up."
    )
    finding = (
        "Every card is shown whole, however long."
        if screen
        else "Index A\u2013Z: No.\u00a03. Long cards go on: 1/2, 2/2."
    )
    if asides is not None:
        finding += f" Background and the source's remarks: in the appendix, No.{NBSP}{asides}, under each card's number."
    blocks: list[Block] = []
    if rows:
        blocks.append(Grid(("Notation", "Meaning"), tuple(rows)))
    blocks.append(Text((Run(f"{stacking} {finding}"),), small=True))
    return Card("", LEGEND_KIND, "Reading these cards", "", category(None), tuple(blocks), footer)


def shared_definitions(book: m.Book, notation: Notation) -> list[Block]:
    """Grades, outcome tiers, the resistance table and stacking groups: used by many rules."""
    blocks: list[Block] = []
    if book.grades:
        blocks.append(Heading("Difficulty grades"))
        for grade in book.grades:
            step = f" (step {signed(grade.step)})" if grade.step is not None else ""
            blocks.append(
                Detail(
                    (
                        Run(title_case_first(display_name(grade.name)), "strong"),
                        Run(f"{step}: {notation.grade_effect(grade)}"),
                    )
                )
            )
        if any(g.step is not None for g in book.grades):
            blocks.append(Detail((Run("Steps add up: opposite grades cancel.", "em"),)))
    for system in book.tiers.values():
        blocks.append(Heading(notation.tier_system(system.name)))
        for tier in system.tiers:
            if tier.also or showing_within(tier.die) is not None:
                rule = natural_words(tier, display_name, "\u2013")
            elif tier.natural is not None:
                low, high = tier.natural
                rule = f"natural{NBSP}{low}" if low == high else f"natural{NBSP}{low}\u2013{high}"
                if tier.die is not None:
                    rule += f" on the {display_name(tier.die)} die"
            elif tier.bound is None or tier.op is None:
                rule = "otherwise"
            else:
                rule = f"roll{NBSP}{COMPARISON[tier.op]}{NBSP}{notation.expr(tier.bound)}"
            if tier.always is not None:
                rule += ", always " + ("succeeds" if tier.always == "success" else "fails")
            blocks.append(Detail((Run(title_case_first(display_name(tier.name)), "strong"), Run(": " + rule))))
    if book.resistance is not None:
        resistance = book.resistance
        blocks.append(Heading(clean(resistance.label) if resistance.label else "Resistance"))
        roll = f"{pool_text(resistance.pool)}{NBSP}{COMPARISON[resistance.op]}{NBSP}{notation.expr(resistance.target)}"
        blocks.append(Detail((Run(roll, "strong"),)))
    groups = [g for g in book.groups.values() if g.stacking != "cumulative"]
    if groups:
        blocks.append(Heading("Modifiers that do not stack"))
        writer = EffectWriter(book, notation, full=True)
        blocks += [Detail((Run(writer.stacking(g)),)) for g in groups]
    return blocks


# ---------------------------------------------------------------- tables


def table_blocks(table: m.Table, notation: Notation) -> list[Block]:
    """A table's key line, its grid, and what happens to rolls above its last row."""
    blocks: list[Block] = [Entry(table_key(table, notation)), table_grid(table, notation)]
    if table.overflow is not None:
        overflow = table.overflow
        text = f"Above {overflow.above}: counts as {overflow.becomes}"
        if overflow.step is not None:
            text += ", then " + notation.step(overflow.step)
        blocks.append(Detail((Run(text + "."),)))
    return blocks


def table_card(table: m.Table, footer: str, blocks: tuple[Block, ...]) -> Card:
    """A table's card; `blocks`: what it says (`_table_blocks`)."""
    return Card(
        key=table.name,
        kind="Table",
        title=clean(table.title),
        cites=clean(table.cites or ""),
        category=category(table.category),
        blocks=blocks,
        footer=footer,
    )


def _table_card_blocks(table: m.Table, notation: Notation, errata: bool) -> tuple[Block, ...]:
    blocks = table_blocks(table, notation) + chain_blocks(table, notation)
    plain = [Note(clean(text)) for text, quote in table.notes if quote is None]
    errata_notes = [Note(clean(text), clean(quote or "")) for text, quote in table.notes if quote is not None]
    errata_notes = errata_notes if errata else []
    if plain:
        blocks += [Heading("Notes"), *plain]
    if errata_notes:
        blocks += [Heading("Errata"), *errata_notes]
    return tuple(blocks)


def table_key(table: m.Table, notation: Notation) -> tuple[Run, ...]:
    """`Roll d20 + hostility`, or `By recoil st (Two-handed ST of the recoil weapon)`."""
    if table.pool is not None:
        text = pool_text(table.pool)
        if table.modifier:
            text += f"{NBSP}{'+' if table.modifier_sign > 0 else MINUS}{NBSP}{notation.name(table.modifier)}"
        return (Run("Roll ", "plain"), Run(text, "strong"))
    parts: list[Run] = [Run("By ")]
    for index, name in enumerate(table.inputs):
        if index:
            parts.append(Run(" and "))
        parts.append(Run(notation.name(name), "strong"))
        var = notation.book.vars.get(name)
        if var is not None and var.label and clean(var.label).casefold() != notation.name(name).casefold():
            parts.append(Run(f" ({clean(var.label)})", "muted"))
    return tuple(parts)


def table_grid(table: m.Table, notation: Notation) -> Grid:
    """Ruled rows: the key (die range, band, choice), every column, and for an unmodified die
    roll the exact chance of each row."""
    if table.two_dimensional:
        header = [notation.name(table.inputs[0])]
        header += [clean(label) if label else display_name(name) for name, label in table.columns]
        rows = [(row_key(row), *(notation.cell(c) for c in row.cells)) for row in table.rows]
        return Grid(tuple(header), tuple(rows))
    if table.pool is not None:
        key_header = pool_text(table.pool)
    else:
        key_header = notation.name(table.inputs[0]) if table.inputs else ""
    header = [key_header]
    header += [clean(label) if label else title_case_first(display_name(name)) for name, label in table.columns]
    if header[1:] == ["Value"]:
        header[1] = "Result"
    chances = table.pool is not None and table.modifier is None and table.overflow is None
    if chances:
        header.append("Chance")
    dist = distribution(table.pool.count, table.pool.sides, table.pool.keep) if table.pool is not None else None
    rows = []
    for row in table.rows:
        cells = [row_key(row), *(notation.cell(c) for c in row.cells)]
        if chances and dist is not None:
            low = row.low if row.low is not None else dist.low
            high = row.high if row.high is not None else dist.high
            chance = dist.between_p(Fraction(low), Fraction(high))
            # A row only a modified roll reaches (7 on a d6 rolled again +1) has no chance of its own.
            cells.append(percent(chance) if chance and not row.is_else else DASH)
        rows.append(tuple(cells))
    return Grid(tuple(header), tuple(rows))
