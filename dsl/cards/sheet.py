"""The quick-reference sheet (a GM screen): every table, the odds of the dice the rules roll,
every rule's effects by category, and the terms the conditions use."""

from __future__ import annotations

from fractions import Fraction

from dsl import model as m
from dsl import types as t
from dsl.cards.blocks import Block, Grid, Run, Sheet, SheetEntry, SheetSection, Text
from dsl.cards.chances import distribution
from dsl.cards.deck import LEGEND_ORDER, category, legend_samples, shared_definitions, table_blocks
from dsl.cards.effects import EffectWriter
from dsl.cards.notation import Notation
from dsl.cards.text import DASH, NBSP, clean, display_name, number, percent
from dsl.categories import CATEGORIES
from dsl.runtime.dice import Dice, listed_reach, pool_text

_ROLL_UNDER = ("<=", "<")


def build_sheet(book: m.Book) -> Sheet:
    notation = Notation(book)
    writer = EffectWriter(book, notation, full=False)
    subtitle = " · ".join(x for x in ("Quick reference", clean(book.source or ""), clean(book.version or "")) if x)
    intro: list[Block] = [Text((Run(_legend(book, notation), "plain"),), small=True)]
    intro += shared_definitions(book, notation)
    sections: list[SheetSection] = []
    if book.tables:
        entries = [_table_entry(table, notation) for table in book.tables.values()]
        sections.append(SheetSection("Tables", None, tuple(entries)))
    odds = _odds(book)
    if odds:
        sections.append(SheetSection("Dice odds", None, tuple(odds)))
    for name, found in CATEGORIES.items():
        rules = [r for r in book.rules.values() if category(r.category).name == name]
        if not rules:
            continue
        entries = [
            SheetEntry(clean(r.title), clean(r.cites or ""), r.kind.title(), found, tuple(writer.rule(r)))
            for r in rules
        ]
        sections.append(SheetSection(found.label, found, tuple(entries)))
    terms = _terms(book, notation)
    if terms is not None:
        sections.append(SheetSection("Terms", None, (terms,)))
    return Sheet(clean(book.title), subtitle, tuple(intro), tuple(sections))


def _legend(book: m.Book, notation: Notation) -> str:
    """The deck legend's rows in one line: the book's own stats and dice, only what it uses."""
    samples = legend_samples(book, notation)
    rows = [f"{sample} {meaning}" for sample, meaning in (samples[k] for k in LEGEND_ORDER if k in samples)]
    stacking = "Modifiers add up, unless a stacking group says otherwise." if book.groups else "Modifiers add up."
    return (f"Notation: {' · '.join(rows)}.  " if rows else "") + stacking


def _table_entry(table: m.Table, notation: Notation) -> SheetEntry:
    blocks = table_blocks(table, notation)
    return SheetEntry(clean(table.title), clean(table.cites or ""), "Table", category(table.category), tuple(blocks))


def _odds(book: m.Book) -> list[SheetEntry]:
    """Chance of rolling at most (or at least) each total on the pools the rules roll against a
    target: the table a GM looks up when a modifier moves the target."""
    under: set[tuple[int, int, str | None]] = set()
    over: set[tuple[int, int, str | None]] = set()
    for part in book.parts.values():
        for effect in part.effects:
            if not isinstance(effect, m.RollEffect) or effect.kind != "check" or effect.pool is None:
                continue
            pools = [effect.pool] + [c.pool for c in effect.changes if c.pool is not None]
            dice_changes = [c.delta for c in effect.changes if c.kind == "dice"]
            keys: set[tuple[int, int, str | None]] = {(p.count, p.sides, p.keep) for p in pools}
            keys |= {(max(effect.pool.count + d, 1), effect.pool.sides, effect.pool.keep) for d in dice_changes}
            (under if effect.op in _ROLL_UNDER else over).update(k for k in keys if k[1] < 100)
    entries = []
    for title, keys, at_most in (
        ("Roll under: total ≤ target", under, True),
        ("Roll over: total ≥ target", over, False),
    ):
        if keys:
            entries.append(
                SheetEntry(
                    title, "", "Odds", CATEGORIES["general"], (_odds_grid(sorted(keys, key=_pool_order), at_most),)
                )
            )
    return entries


def _pool_order(key: tuple[int, int, str | None]) -> tuple[int, int, str]:
    """Pools by dice, then plain totals before `highest of` and `lowest of` of the same dice."""
    count, sides, keep = key
    return count, sides, keep or ""


def _odds_grid(keys: list[tuple[int, int, str | None]], at_most: bool) -> Grid:
    # exploding dice have no highest total: all of them are worked out to one horizon, the
    # farthest any pool of the grid is listed (as a resolver lists it), so every pool has a
    # chance for every target of the grid
    reach = max((listed_reach(*key) for key in keys), default=0)
    dists = [
        distribution(count, sides, keep, horizon=reach) if keep == "exploding"
        # a plain pool's distribution, every total listed
        else distribution(count, sides, keep)
        for count, sides, keep in keys
    ]
    op = "<=" if at_most else ">="
    low = min(d.low for d in dists)
    high = max(d.high for d in dists)
    rows = []
    for target in range(low, high + 1):
        chances = [d.compare_p(op, target) for d in dists]
        if all(p < Fraction(1, 100) or p > Fraction(99, 100) for p in chances):
            continue  # nothing to look up: every pool (almost) always or never makes it
        rows.append((str(target), *(percent(p) if 0 < p < 1 else (DASH if p == 0 else "100%") for p in chances)))
    header = ("Target", *(pool_text(key, short=True) for key in keys))
    return Grid(header, tuple(rows))


def _terms(book: m.Book, notation: Notation) -> SheetEntry | None:
    """Every input and stat: the name conditions use, what it means, the values it takes."""
    rows = []
    for var in book.vars.values():
        meaning = clean(var.label) if var.label else ""
        rows.append((notation.name(var.name), meaning, _values(var, notation)))
    if not rows:
        return None
    return SheetEntry("Terms", "", "Terms", CATEGORIES["general"], (Grid(("Name", "Meaning", "Values"), tuple(rows)),))


def _values(var: m.Var, notation: Notation) -> str:
    kind = var.type
    text = ""
    if isinstance(kind, t.Numeric):
        unit = notation.unit(kind.unit)
        if kind.low is not None and kind.high is not None:
            text = f"{number(kind.low)}{DASH}{number(kind.high)}"
        elif kind.low is not None:
            text = f"{number(kind.low)}+"
        text = " ".join(x for x in (text, "%" if kind.kind == "percent" else "", unit) if x)
    elif isinstance(kind, t.Enum):
        text = (f" <{NBSP}" if kind.ordered else ", ").join(display_name(x) for x in kind.members)
    elif isinstance(kind, t.Flag):
        text = "yes / no"
    elif isinstance(kind, t.Dice):
        text = "dice"
    else:
        text = "text"
    default = _default(var.default)
    if not default and var.default_expr is not None:  # a default computed from other values
        default = notation.expr(var.default_expr)
    return f"{text}; usually {default}" if default else text


def _default(value: m.Constant | None) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Dice):
        return str(value)
    if isinstance(value, str):
        return display_name(value)
    return number(value)
