"""The deck: one card for the rulebook itself, then one per rule, terrain, condition, trait and
table, in the order the rulebook declares them."""

from __future__ import annotations

from fractions import Fraction

from dsl import model as m
from dsl.cards.blocks import Block, Card, Detail, Entry, Grid, Heading, Note, Run, Text
from dsl.cards.chances import distribution
from dsl.cards.effects import CANNOT, EffectWriter
from dsl.cards.notation import COMPARISON, ROUNDING, Notation, pool_text
from dsl.cards.text import DASH, MINUS, NBSP, TIMES, clean, display_name, percent, signed, title_case_first
from dsl.categories import CATEGORIES, DEFAULT_CATEGORY, Category

BOOK_KIND = "Rulebook"
LEGEND_KIND = "Legend"


def category(name: str | None) -> Category:
    return CATEGORIES.get(name or DEFAULT_CATEGORY, CATEGORIES[DEFAULT_CATEGORY])


def build_deck(book: m.Book, *, screen: bool = False) -> list[Card]:
    """The cards of a book; `screen` for HTML, where a card is never split (the legend says so)."""
    notation = Notation(book)
    writer = EffectWriter(book, notation, full=True)
    footer = clean(book.title)
    cards = [book_card(book, notation), legend_card(footer, screen=screen, samples=legend_samples(book, notation))]
    items: list[m.Rule | m.Table] = [*book.rules.values(), *book.tables.values()]
    items.sort(key=lambda item: (item.span.line, item.span.column))
    for item in items:
        if isinstance(item, m.Rule):
            cards.append(
                Card(
                    key=item.name,
                    kind=item.kind.title(),
                    title=clean(item.title),
                    cites=clean(item.cites or ""),
                    category=category(item.category),
                    blocks=tuple(writer.rule(item)),
                    footer=footer,
                )
            )
        else:
            cards.append(table_card(item, notation, footer))
    return cards


# ---------------------------------------------------------------- the rulebook's own card


def book_card(book: m.Book, notation: Notation) -> Card:
    blocks: list[Block] = []
    if book.source:
        blocks.append(Detail((Run("Source: ", "strong"), Run(clean(book.source)))))
    if book.version:
        blocks.append(Detail((Run("Version: ", "strong"), Run(clean(book.version)))))
    blocks += [Text((Run(clean(text)),)) for text, quote in book.notes if quote is None]
    errata = [(text, quote) for text, quote in book.notes if quote is not None]
    if errata:
        blocks.append(Heading("Errata"))
        blocks += [Note(clean(text), clean(quote or "")) for text, quote in errata]
    blocks += shared_definitions(book, notation)
    return Card("", BOOK_KIND, clean(book.title), "", category(None), tuple(blocks), clean(book.title))


Samples = dict[str, tuple[str, str]]
"""The legend's rows that a rulebook illustrates with its own modifiers and rolls, by kind."""


def legend_samples(book: m.Book, notation: Notation) -> Samples:
    """The first short modifier or roll of each kind the rulebook writes, with what it means, so
    that a deck's legend reads in the book's own stats and dice (`skill \u221220%`, `d100 \u2264 skill`)."""
    effects = [e for rule in book.rules.values() for e in rule.effects if not isinstance(e, m.PartEffect)]
    samples: Samples = {}

    def short(text: str) -> bool:
        return len(text) <= 16

    for effect in effects:
        if isinstance(effect, m.RollEffect):
            plain = effect.kind == "check" and effect.pool is not None and not effect.adds
            if "roll" not in samples and plain and effect.op in ("<=", ">="):
                sample = notation.roll(effect)
                assert effect.pool is not None and effect.target is not None
                side = "or less" if effect.op == "<=" else "or more"
                if short(sample):
                    meaning = f"roll {pool_text(effect.pool)}: success on {notation.expr(effect.target)} {side}"
                    samples["roll"] = (sample, meaning)
            continue
        if not isinstance(effect, m.ModEffect) or effect.value is None:
            continue
        stat = notation.target(effect.target)
        value = notation.expr(effect.value)
        if effect.op == "add" and effect.per is None and "add" not in samples:
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
                    f"multiply {stat}; {ROUNDING['up']}{NBSP}rounds up, "
                    f"{ROUNDING['down']}{NBSP}down, {ROUNDING['nearest']}{NBSP}to the nearest",
                )
        elif effect.op == "set" and "set" not in samples and value.isdigit():
            samples["set"] = (notation.modifier(effect), f"{stat} counts as {value}")
    return samples


def legend_card(footer: str, *, screen: bool = False, samples: Samples | None = None) -> Card:
    """How to read the notation, for players who have not seen it before, in the book's own
    stats and dice where it has them (`samples`).  Printed cards continue on further faces; on
    a screen (HTML) a card is whole."""
    given = samples or {}
    rows = (
        given.get("add", (f"DEX{NBSP}{MINUS}2", "subtract 2 from DEX")),
        given.get(
            "mul",
            (
                f"MOV{NBSP}{TIMES}½{NBSP}{ROUNDING['up']}",
                f"halve, round up ({ROUNDING['down']}{NBSP}down, {ROUNDING['nearest']}{NBSP}nearest)",
            ),
        ),
        (f"{MINUS}1{NBSP}/{NBSP}hex", "for every hex"),
        (f"(min{NBSP}1)", "never below 1"),
        given.get("set", (f"DEX{NBSP}={NBSP}5", "DEX counts as 5")),
        given.get("roll", (f"3d6{NBSP}≤{NBSP}DEX", "roll 3d6: success on DEX or less")),
        (f"chance{NBSP}%", "exact chance of success"),
        (CANNOT + NBSP + "Cannot", "forbidden while its condition holds"),
    )
    continued = (
        "Every card is shown whole, however long."
        if screen
        else "A card too long for one face continues on the next, numbered 1/2, 2/2."
    )
    blocks: list[Block] = [
        Grid(("Notation", "Meaning"), rows),
        Text((Run("Modifiers from several rules add up, unless a stacking group says otherwise."),), small=True),
        Text((Run(continued),), small=True),
    ]
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
        blocks.append(Heading(clean(system.label) if system.label else display_name(system.name)))
        for tier in system.tiers:
            if tier.bound is None or tier.op is None:
                rule = "otherwise"
            else:
                rule = f"roll{NBSP}{COMPARISON[tier.op]}{NBSP}{notation.expr(tier.bound)}"
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


def table_card(table: m.Table, notation: Notation, footer: str) -> Card:
    blocks = table_blocks(table, notation)
    plain = [Note(clean(text)) for text, quote in table.notes if quote is None]
    errata = [Note(clean(text), clean(quote or "")) for text, quote in table.notes if quote is not None]
    if plain:
        blocks += [Heading("Notes"), *plain]
    if errata:
        blocks += [Heading("Errata"), *errata]
    return Card(
        key=table.name,
        kind="Table",
        title=clean(table.title),
        cites=clean(table.cites or ""),
        category=category(table.category),
        blocks=tuple(blocks),
        footer=footer,
    )


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
        if var is not None and var.label:
            parts.append(Run(f" ({clean(var.label)})", "muted"))
    return tuple(parts)


def row_key(row: m.TableRow) -> str:
    if row.is_else:
        return "other"
    if row.member is not None:
        return display_name(row.member)
    if row.high is None or row.threshold:
        return f"{_int(row.low)}+"
    if row.low == row.high:
        return _int(row.low)
    return f"{_int(row.low)}{DASH}{_int(row.high)}"


def _int(value: int | None) -> str:
    if value is None:
        return ""
    return f"{MINUS}{-value}" if value < 0 else str(value)


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
