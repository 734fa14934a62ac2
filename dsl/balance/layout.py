"""The columns of a sweep, known before a single situation is resolved.

They come from the checked model of the rules swept: the stats their modifiers change, the
values they derive, the rolls they can call for (with their outcome tiers) and the tables they
consult.  Knowing them first lets a sweep stream its rows (CSV and JSON lines are written while
the sweep runs) and keeps the table tidy: the same columns on every row, empty where a situation
does not call for a roll.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from dsl import model as m
from dsl import types as t
from dsl.balance.books import Edition
from dsl.balance.spec import Axis
from dsl.model.parts import PartFilter, flat_effects

ColumnKind = Literal["input", "stat", "chance", "float", "value", "restrictions"]


@dataclass(frozen=True)
class Column:
    """One column of the tidy table.

    kind: `input` (a varied input), `stat` (a final stat or derived value), `chance` (an exact
    probability, a Fraction), `float` (the same as a float; `exact` names its exact column),
    `value` (a table cell), `restrictions` (what the situation forbids).  `edition` is 0 for the
    book, 1 for the `--against` book, None for an input or a difference (`diff.`, BOOK - OTHER).
    """

    name: str
    label: str
    kind: ColumnKind
    edition: int | None
    exact: str | None = None


@dataclass(frozen=True)
class RollColumns:
    key: str  # the roll's name, or name@rule where two rules of one situation call a roll so named
    label: str
    outcomes: tuple[str, ...]  # outcome tiers (critical, special, ...) or win/tie/lose


@dataclass(frozen=True)
class TableColumns:
    name: str
    title: str
    values: tuple[tuple[str, str], ...]  # (column, label) of the row an input selects
    two_d: tuple[str, str] | None  # the row and column inputs of a two-dimensional table
    rows: tuple[str, ...]  # the rows of a rolled table, each with its chance


@dataclass(frozen=True)
class Layout:
    stats: tuple[tuple[str, str, bool], ...]  # (name, label, numeric): stats first, then derived values
    rolls: tuple[RollColumns, ...]
    roll_keys: dict[tuple[str, ...], dict[tuple[str, str], str]] = field(hash=False)
    tables: tuple[TableColumns, ...]


def combinations(rules: Sequence[str], axes: Sequence[Axis]) -> list[tuple[str, ...]]:
    """The sets of rules the situations apply: the fixed ones, plus each varied rule in turn."""
    varied = next((axis for axis in axes if axis.kind == "rule"), None)
    if varied is None:
        return [tuple(rules)]
    return [tuple(dict.fromkeys([*rules, str(name)])) for name in varied.values]


def build_layout(editions: Sequence[Edition], combos: Sequence[tuple[str, ...]]) -> Layout:
    stats: dict[str, tuple[str, bool]] = {}
    rolls: dict[str, RollColumns] = {}
    roll_keys: dict[tuple[str, ...], dict[tuple[str, str], str]] = {}
    tables: dict[str, TableColumns] = {}
    filters = [PartFilter(edition.model, _counted) for edition in editions]
    for combo in combos:
        identities: dict[tuple[str, str], m.RollEffect] = {}
        for edition, only in zip(editions, filters, strict=True):
            book = edition.model
            for name in combo:
                rule = book.rules.get(name)
                if rule is not None:
                    _effects(book, flat_effects(book, rule.effects, only), stats, identities)
                elif name in book.tables and name not in tables:
                    tables[name] = _table(book.tables[name])
        names = [name for _, name in identities]
        keys = {
            identity: identity[1] if names.count(identity[1]) == 1 else f"{identity[1]}@{identity[0]}"
            for identity in identities
        }
        roll_keys[combo] = keys
        for identity, key in keys.items():
            if key not in rolls:
                effect = identities[identity]
                rolls[key] = RollColumns(key, effect.label or effect.name, _outcomes(editions, effect))
    order = {name: index for index, name in enumerate(editions[0].model.vars)}
    ranked = sorted(stats.items(), key=lambda item: order.get(item[0], len(order)))
    return Layout(
        tuple((name, label, numeric) for name, (label, numeric) in ranked),
        tuple(rolls.values()),
        roll_keys,
        tuple(tables.values()),
    )


def columns(axes: Sequence[Axis], layout: Layout, editions: int) -> tuple[Column, ...]:
    found: list[Column] = [Column(axis.name, axis.label, "input", None) for axis in axes]
    for edition in range(editions):
        found.extend(_edition_columns(layout, edition, "against." if edition else ""))
    if editions == 2:
        found.extend(_difference_columns(layout))
    return tuple(found)


def _edition_columns(layout: Layout, edition: int, prefix: str) -> list[Column]:
    found = [Column(f"{prefix}stat.{name}", label, "stat", edition) for name, label, _ in layout.stats]
    for roll in layout.rolls:
        base = f"{prefix}roll.{roll.key}"
        found += _chance(base, roll.label, edition)
        for outcome in roll.outcomes:
            found += _chance(f"{base}[{outcome}]", f"{roll.label}: {outcome}", edition)
    for table in layout.tables:
        base = f"{prefix}table.{table.name}"
        if table.two_d is not None:
            found.append(Column(base, table.title, "value", edition))
        else:
            found += [Column(f"{base}.{column}", label, "value", edition) for column, label in table.values]
        for row in table.rows:
            found += _chance(f"{base}[{row}]", f"{table.title}: {row}", edition)
    found.append(Column(f"{prefix}restrictions", "Restrictions", "restrictions", edition))
    return found


def _difference_columns(layout: Layout) -> list[Column]:
    found = [Column(f"diff.stat.{name}", label, "stat", None) for name, label, numeric in layout.stats if numeric]
    for roll in layout.rolls:
        base = f"diff.roll.{roll.key}"
        found += _chance(base, roll.label, None)
        for outcome in roll.outcomes:
            found += _chance(f"{base}[{outcome}]", f"{roll.label}: {outcome}", None)
    for table in layout.tables:
        for row in table.rows:
            found += _chance(f"diff.table.{table.name}[{row}]", f"{table.title}: {row}", None)
    return found


def _chance(name: str, label: str, edition: int | None) -> list[Column]:
    return [Column(name, label, "chance", edition), Column(f"{name}.p", label, "float", edition, exact=name)]


def _counted(effect: m.Effect) -> bool:
    """The effects that make columns: modifiers (their stats), derived values, rolls."""
    return isinstance(effect, (m.ModEffect, m.DeriveEffect, m.RollEffect))


def _effects(
    book: m.Book,
    effects: Iterable[m.Effect],
    stats: dict[str, tuple[str, bool]],
    identities: dict[tuple[str, str], m.RollEffect],
) -> None:
    for effect in effects:
        if isinstance(effect, m.ModEffect) and effect.target not in stats:
            var = book.vars[effect.target]
            stats[effect.target] = (var.label or var.name, isinstance(var.type, (t.Numeric, t.Cell)))
        elif isinstance(effect, m.DeriveEffect) and effect.name not in stats:
            stats[effect.name] = (effect.label or effect.name, isinstance(effect.type, (t.Numeric, t.Cell)))
        elif isinstance(effect, m.RollEffect):
            identities.setdefault((effect.origin, effect.name), effect)


def _outcomes(editions: Sequence[Edition], effect: m.RollEffect) -> tuple[str, ...]:
    if effect.kind == "opposed":
        return m.OPPOSED_OUTCOMES
    for edition in editions:
        names = edition.model.tier_names(effect)
        if names:
            return names
    return ()


def _table(table: m.Table) -> TableColumns:
    rows = tuple(row.key_text() for row in table.rows) if table.key == "roll" else ()
    if table.key == "roll":
        return TableColumns(table.name, table.title, (), None, rows)
    if table.two_dimensional:
        return TableColumns(table.name, table.title, (), (table.inputs[0], table.inputs[1]), ())
    values = tuple((name, label or name) for name, label in table.columns)
    return TableColumns(table.name, table.title, values, None, ())
