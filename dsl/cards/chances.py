"""Exact success chances printed under a roll: "3d6 ≤ DEX — DEX 8: 26%, 10: 50%, 12: 74%".

Chances come from dsl.runtime's exact distributions (the numbers a resolver returns), computed
as fractions and rounded only for display.  A card shows the chance against a handful of target
values where the roll is uncertain, one row per dice pool a rule can ask for.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from fractions import Fraction

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.cards.blocks import ChanceRow, ChanceTable
from dsl.cards.memo import Identity
from dsl.cards.notation import Notation, literal_fraction, phrase_of_member, pool_text, var_label
from dsl.cards.text import DASH, MINUS, NBSP, display_name, number, signed
from dsl.model.exprs import walk
from dsl.runtime import dice
from dsl.runtime.base import round_value
from dsl.runtime.dice import Distribution, Value, difference
from dsl.runtime.rolls import tier_chances
from dsl.runtime.specs import TierSpec
from dsl.semantics import is_number, special_value
from dsl.semantics.values import Constants, NotConstant, NoValue, evaluate

MAX_COLUMNS = 7
"""Target values shown per table: as many as fit across a poker card at 7 pt."""

_NICE_STEPS = (1, 2, 3, 4, 5, 10, 20, 25, 50, 100)


Variant = tuple[str, str, Fraction, "n.Rounding | None"]
"""A modifier a card makes to a roll's target under a condition of its own: the condition in
words ("if the task is Difficult"), the operation (add, mul, div, set), its value and rounding."""


class ChanceTables:
    """The chance tables of one book's rolls, each worked out once for a deck: a roll is printed
    on its rule's card and named on the card of every rule built on it, and the book's skill
    rolls share their outcome tiers' rows (`d100 \u2264 skill` at 20, 40, 60, 80)."""

    def __init__(self, notation: Notation) -> None:
        self.notation = notation
        self.tables: Identity[m.RollEffect, dict[_TableKey, ChanceTable | None]] = Identity()
        self.tiers: dict[_TierKey, list[ChanceRow]] = {}

    def of(
        self,
        effect: m.RollEffect,
        fixed: Fraction | None = None,
        shift: tuple[Fraction, str] | None = None,
        variants: tuple[Variant, ...] = (),
    ) -> ChanceTable | None:
        """`roll_chances` of the roll, remembered."""
        known = self.tables.remembered(effect, dict)
        key = (fixed, shift, variants)
        if key not in known:
            known[key] = roll_chances(effect, self.notation, fixed, shift, variants, tiers=self.tiers)
        return known[key]


_TableKey = tuple[Fraction | None, tuple[Fraction, str] | None, tuple[Variant, ...]]
_TierKey = tuple[str, Distribution, str, tuple[Fraction | int, ...], Fraction]


def roll_chances(
    effect: m.RollEffect,
    notation: Notation,
    fixed: Fraction | None = None,
    shift: tuple[Fraction, str] | None = None,
    variants: tuple[Variant, ...] = (),
    *,
    tiers: dict[_TierKey, list[ChanceRow]] | None = None,
) -> ChanceTable | None:
    """The chance table of a roll, or None when there is nothing uncertain to show or the table
    would only repeat the target (`d100 \u2264 skill` succeeds skill% of the time).  `fixed`: the one
    value a check's target takes (the rule sets it): the chance against it alone.  `shift`: what
    the card's own modifiers add to the stat the roll is made against, and how it is written
    (`\u22122`): the columns are then the value the player knows, before those modifiers.
    `variants`: the card's modifiers of the target under conditions of their own, a row each,
    for a roll whose plain row would only repeat its target (`d100 \u2264 skill`): the columns
    are then the value on the player's sheet.  `tiers`: outcome tiers' rows worked out before,
    by their system, dice, comparison, targets and bonus (see `ChanceTables`)."""
    try:
        if effect.kind == "check" and effect.pool is not None and effect.pool.keep != "exploding":
            return _check(effect, notation, fixed, shift, variants, {} if tiers is None else tiers)
        if effect.kind == "count" and effect.pool is not None:
            return _count(effect, notation)
        if effect.kind == "opposed" and effect.pool is not None and effect.against is not None:
            return _opposed(effect, notation)
        if effect.kind == "resist":
            return _resist(effect, notation)
    except (ValueError, ArithmeticError, _Unknown):
        return None
    return None


def total_range(effect: m.RollEffect) -> str | None:
    """What a roll without a target gives (damage): `2\u201312, average 7`."""
    if effect.kind != "total" or effect.pool is None or effect.pool.keep == "exploding":
        return None
    try:
        dist = _distribution(effect.pool)
    except ValueError:
        return None
    added = sum((literal_fraction(a) or Fraction(0)) for a in effect.adds)
    if any(literal_fraction(a) is None for a in effect.adds):
        return None
    chances = dist.chances()
    mean = sum((Fraction(v) * p for v, p in chances.items()), Fraction(0)) + added
    low, high = dist.low + added, dist.high + added
    return f"{number(low)}{DASH}{number(high)}, average {number(Fraction(round(mean * 2), 2) if mean.denominator > 2 else mean)}"


# ---------------------------------------------------------------- checks: pool against a target


def _check(
    effect: m.RollEffect,
    notation: Notation,
    fixed: Fraction | None,
    shift: tuple[Fraction, str] | None,
    variants: tuple[Variant, ...],
    tiers: dict[_TierKey, list[ChanceRow]],
) -> ChanceTable | None:
    assert effect.pool is not None and effect.target is not None and effect.op is not None
    pool, op = effect.pool, effect.op
    dist = _distribution(pool)
    book = notation.book
    constant_adds = [literal_fraction(a) for a in effect.adds]
    bonus = sum((a for a in constant_adds if a is not None), Fraction(0))
    against = notation.expr(effect.target)
    if any(a is None for a in constant_adds):
        # `d20 + attack >= AC`: the chance depends on what the die must show, AC - attack.
        others = [notation.expr(a) for a, c in zip(effect.adds, constant_adds, strict=True) if c is None]
        against = f"{against}{NBSP}{MINUS}{NBSP}" + f"{NBSP}{MINUS}{NBSP}".join(others)
        low = high = None
        less = _whole(bonus)
        keys: list[Fraction | int] = list(
            pick_targets(
                lambda v: _successes(dist, op, v - less),
                dist.denominator,
                dist.low - 1 + int(bonus),
                dist.high + 1 + int(bonus),
                None,
                None,
            )
        )
        labels = [number(v) for v in keys]
        goals = keys
        offset = Fraction(0)
    else:
        constant = literal_fraction(effect.target)
        members = _by_member(effect.target, book)
        offset = shift[0] if shift is not None else Fraction(0)
        if constant is not None:
            keys = [constant]
            labels = [number(constant)]
            goals = keys
            against = "target"
        elif fixed is not None:
            low, high = _interval(book.types.get(effect.target))
            keys = [min(max(fixed, low if low is not None else fixed), high if high is not None else fixed)]
            labels = [number(k) for k in keys]
            goals = keys
            offset = Fraction(0)
        elif members is not None:
            against = members[0]
            labels = [label for label, _ in members[1]]
            goals = [goal for _, goal in members[1]]
            keys = goals
        else:
            low, high = _interval(book.types.get(effect.target))
            shift_by = _whole(offset - bonus)
            keys = list(
                pick_targets(
                    lambda v: _successes(dist, op, v + shift_by),
                    dist.denominator,
                    dist.low - 1 - int(offset) + int(bonus),
                    dist.high + 1 - int(offset) + int(bonus),
                    low,
                    high,
                )
            )
            labels = [number(v) for v in keys]
            goals = [k + offset for k in keys]
            if shift is not None:
                against = f"{against} before {shift[1]}"
            elif variants and _plain_percentile(pool, op):
                against = f"{against} on your sheet"
                varied = [
                    ChanceRow(pool_text(pool), label, tuple(dist.compare_p(op, _varied(g, how) - bonus) for g in goals))
                    for label, *how in variants
                ]
                return ChanceTable(against, tuple(labels), tuple(varied))
    if not keys:
        return None
    rows: list[ChanceRow] = []
    system = book.tiers.get(effect.tiers) if effect.tiers else None
    if system is not None:
        key = (system.name, dist, op, tuple(goals), bonus)
        if key not in tiers:
            tiers[key] = _tier_rows(book, system, dist, op, goals, bonus)
        rows += tiers[key]
    else:
        rows.append(ChanceRow(pool_text(pool), "", tuple(dist.compare_p(op, g - bonus) for g in goals)))
    for change in effect.changes:
        note = notation.guard(change.guard)
        note = "if " + note.removeprefix("when ") if note.startswith("when ") else note
        if change.kind == "pool" and change.pool is not None:
            other = _distribution(change.pool)
            rows.append(ChanceRow(pool_text(change.pool), note, tuple(other.compare_p(op, g - bonus) for g in goals)))
        elif change.kind == "dice":
            changed = n.Pool(pool.span, max(pool.count + change.delta, 1), pool.sides, pool.keep)
            other = _distribution(changed)
            rows.append(ChanceRow(pool_text(changed), note, tuple(other.compare_p(op, g - bonus) for g in goals)))
        elif change.kind == "tiers" and change.tiers in book.tiers:
            assert change.tiers is not None
            chosen = book.tiers[change.tiers]
            key = (chosen.name, dist, op, tuple(goals), bonus)
            if key not in tiers:
                tiers[key] = _tier_rows(book, chosen, dist, op, goals, bonus)
            rows += [ChanceRow(row.dice, note, row.chances) for row in tiers[key]]
        elif change.kind == "target" and change.value is not None:
            step = literal_fraction(change.value)
            if step is not None:
                label = f"target {signed(step)}"
                rows.append(ChanceRow(label, note, tuple(dist.compare_p(op, g + step - bonus) for g in goals)))
    if labels == [number(g) for g in goals]:
        rows = [row for row in rows if not _repeats(row, goals, pool, op)]
    unique: list[ChanceRow] = []
    for row in rows:
        if not any(row.chances == kept.chances and not row.note for kept in unique):
            unique.append(row)
    rows = unique
    if not rows or all(all(p in (0, 1) for p in row.chances) for row in rows):
        return None
    return ChanceTable(against, tuple(labels), tuple(rows))


def _plain_percentile(pool: n.Pool, op: str) -> bool:
    """`d100 \u2264 target`: succeeds target% of the time."""
    return pool.count == 1 and pool.sides == 100 and pool.keep is None and op == "<="


def _varied(goal: Fraction | int, how: list[object]) -> Fraction:
    """A target after a variant's modifier (see `Variant`), rounded as the modifier says."""
    op, value, rounding = how
    assert isinstance(value, Fraction)
    if op == "add":
        return goal + value
    if op == "set":
        return value
    result = Fraction(goal) * value if op == "mul" else Fraction(goal) / value
    return result if rounding is None else Fraction(round_value(result, str(rounding)))


def _repeats(row: ChanceRow, goals: list[Fraction | int], pool: n.Pool, op: str) -> bool:
    """Whether a row only says what its column already says: d100 at or under 40 is 40%."""
    if pool.count != 1 or pool.sides != 100 or pool.keep is not None or op != "<=" or row.note:
        return False
    return len(goals) > 0 and all(p == Fraction(min(max(g, 0), 100), 100) for p, g in zip(row.chances, goals, strict=True))


def _by_member(expr: n.Expr, book: m.Book) -> tuple[str, list[tuple[str, Fraction]]] | None:
    """The values a target takes, one per choice of the one input it reads (`d100 \u2264
    rain_chance[clouds]`: heavy 25, severe 50 ...), labelled by the choice; None otherwise."""
    read = {x.name for x in walk(expr) if isinstance(x, n.NameRef) and book.refs.get(x) is not None and book.refs[x].kind in ("input", "stat")}
    if len(read) != 1:
        return None
    name = read.pop()
    var = book.vars.get(name)
    if var is None or not isinstance(var.type, t.Enum) or len(var.type.members) > MAX_COLUMNS + 1:
        return None
    found = []
    for member in var.type.members:
        try:
            value = evaluate(expr, book, _OneChoice(name, member, book))
        except (NotConstant, NoValue, ValueError):
            return None
        if not is_number(value):
            return None
        found.append((phrase_of_member(book, name, member), Fraction(value)))  # type: ignore[arg-type]
    label = var_label(book, name)
    return label, found


class _OneChoice(Constants):
    """An input with a value, and the tables it looks up: enough to evaluate a target that reads
    one choice."""

    def __init__(self, name: str, value: str, book: m.Book) -> None:
        self.name = name
        self.choice = value
        self.book = book

    def value(self, ref: m.Ref) -> Value:
        if ref.name == self.name and ref.kind in ("input", "stat"):
            return self.choice
        raise NotConstant(ref.name)

    def lookup(self, table: str, keys: tuple[Value, ...], column: str) -> Value:
        found = self.book.tables[table]
        index = next((i for i, (c, _) in enumerate(found.columns) if c == column), 0)
        for row in found.rows:
            if row.member == keys[0] or row.is_else:
                cell = row.cells[index]
                if cell.value is None:
                    raise NotConstant(table)
                return evaluate(cell.value, self.book, self)
        raise NotConstant(table)


def _count(effect: m.RollEffect, notation: Notation) -> ChanceTable | None:
    """`at least 2 of 6d6 >= 5`: the chance of each number of successes, and of enough."""
    assert effect.pool is not None
    if effect.target is None or effect.op is None or effect.pool.keep is not None:
        return None
    goal = literal_fraction(effect.target)
    if goal is None:
        return None
    die = _distribution(n.Pool(effect.pool.span, 1, effect.pool.sides, None))
    p = die.compare_p(effect.op, goal)
    count = effect.pool.count
    if count > MAX_COLUMNS + 2:
        return None
    each = [Fraction(math.comb(count, k)) * p**k * (1 - p) ** (count - k) for k in range(count + 1)]
    rows = [ChanceRow("exactly", "", tuple(each))]
    needed = literal_fraction(effect.needed) if effect.needed is not None else None
    if needed is not None:
        rows.append(ChanceRow("at least", "", tuple(sum(each[k:], Fraction(0)) for k in range(count + 1))))
    return ChanceTable("successes", tuple(str(k) for k in range(count + 1)), tuple(rows))


def _tier_rows(
    book: m.Book,
    system: m.TierSystem,
    dist: Distribution,
    op: str,
    targets: list[Fraction | int],
    bonus: Fraction = Fraction(0),
) -> list[ChanceRow]:
    """The chance of any success, then one row per outcome tier, computed as the resolver does
    (the first matching tier wins, so a tier called `success` is a plain success)."""
    specs = []
    for tier in system.tiers:
        bound = tier.bound
        function = None if bound is None else _bound_function(bound, book)
        specs.append(TierSpec(tier.name, tier.op, function, tier.natural, tier.always, tier.die, tier.tests()[1:], tier.joined))
    columns: dict[str, list[Fraction]] = {tier.name: [] for tier in system.tiers}
    overall: list[Fraction] = []
    for value in targets:
        try:
            found = tier_chances(dist, tuple(specs), Fraction(value), bonus, op)
        except _Unknown:
            return []
        overall.append(found.pop(" success"))
        for name in columns:
            columns[name].append(found.get(name, Fraction(0)))
    rows = [ChanceRow("any success", "", tuple(overall))]
    return rows + [ChanceRow(display_name(name), "", tuple(values)) for name, values in columns.items()]


class _Unknown(Exception):
    """An expression the card cannot evaluate ahead of play (it reads an input)."""


def _bound_function(expr: n.Expr, book: m.Book) -> Callable[[Fraction | int], Fraction | int]:
    def bound(target: Fraction | int) -> Fraction | int:
        value = special_value(expr, book, {"target": target})
        if not is_number(value):
            raise _Unknown
        assert isinstance(value, (int, Fraction))
        return value

    return bound


# ---------------------------------------------------------------- opposed and resistance rolls


def _opposed(effect: m.RollEffect, notation: Notation) -> ChanceTable | None:
    assert effect.pool is not None and effect.against is not None
    diff = difference(_distribution(effect.pool), _distribution(effect.against))

    def win(bonus: int) -> Fraction:
        return 1 - diff.at_most_p(-bonus)

    def tie(bonus: int) -> Fraction:
        return diff.between_p(-bonus, -bonus)

    def wins(bonus: int) -> int:  # win's numerator over diff.denominator
        return diff.denominator - diff.count_at_most(-bonus)

    bonuses = pick_targets(wins, diff.denominator, diff.low - 1, diff.high + 1, None, None, anchor=0)
    if not bonuses:
        return None
    rows = [ChanceRow("win", "", tuple(win(b) + (tie(b) if effect.ties == "win" else 0) for b in bonuses))]
    if effect.ties not in ("win", "lose"):
        rows.append(ChanceRow("tie", "", tuple(tie(b) for b in bonuses)))
    first = notation.expr(effect.bonus) if effect.bonus is not None else "0"
    second = notation.expr(effect.against_bonus) if effect.against_bonus is not None else "0"
    against = f"{first}{NBSP}{MINUS}{NBSP}{second}" if effect.bonus or effect.against_bonus else "modifier"
    return ChanceTable(against, tuple(signed(b) if b else "0" for b in bonuses), tuple(rows))


def _resist(effect: m.RollEffect, notation: Notation) -> ChanceTable | None:
    """Against the difference active minus passive, when the rulebook's resistance formula depends
    on nothing else (as resistance tables do)."""
    resistance = notation.book.resistance
    if resistance is None or effect.active is None or effect.passive is None:
        return None
    found = _resistance_columns(notation.book, resistance)
    if found is None:
        return None
    differences, row = found
    against = f"{notation.expr(effect.active)}{NBSP}{MINUS}{NBSP}{notation.expr(effect.passive)}"
    return ChanceTable(against, tuple(signed(d) if d else "0" for d in differences), (row,))


def _resistance_columns(book: m.Book, resistance: m.Resistance) -> tuple[list[int], ChanceRow] | None:
    """The differences a resistance roll's table shows and the chance at each, from the book's
    formula."""
    @functools.cache  # each difference is asked for twice: choosing the columns, then filling them
    def goal(active: int, passive: int) -> Fraction | None:
        value = special_value(resistance.target, book, {"active": active, "passive": passive})
        return Fraction(value) if is_number(value) else None  # type: ignore[arg-type]

    probes = [goal(10 + d, 10) == goal(20 + d, 20) for d in (-3, 0, 4)]
    if not all(probes) or goal(10, 10) is None:
        return None
    dist = _distribution(resistance.pool)
    op = resistance.op

    def value(difference: int) -> Fraction:
        found = goal(10 + difference, 10)
        assert found is not None
        return found

    def successes(difference: int) -> int:
        return _successes(dist, op, value(difference))

    differences = pick_targets(successes, dist.denominator, -60, 60, None, None, anchor=0)
    if not differences:
        return None
    return differences, ChanceRow(pool_text(resistance.pool), "", tuple(dist.compare_p(op, value(d)) for d in differences))


# ---------------------------------------------------------------- choosing the columns


def pick_targets(
    successes: Callable[[int], int],
    denominator: int,
    first: int,
    last: int,
    low: Fraction | None,
    high: Fraction | None,
    anchor: int | None = None,
) -> list[int]:
    """Target values worth printing: those where the roll is uncertain (1%..99% if there are
    enough of them), at most MAX_COLUMNS, evenly spaced around the value nearest an even chance.

    The chance against a value `v` is `successes(v)` of `denominator` equally likely outcomes:
    a table tries every value a roll can meet (a hundred for d100) and prints a few, so the
    values are compared as whole numbers, exactly, without a Fraction made for each."""
    start = first if low is None else max(first, math.ceil(low))
    stop = last if high is None else min(last, math.floor(high))
    values = [(v, successes(v)) for v in range(start, stop + 1)]
    uncertain = [(v, c) for v, c in values if 0 < c < denominator]
    # 1% <= c / denominator <= 99%
    likely = [(v, c) for v, c in uncertain if denominator <= 100 * c <= 99 * denominator]
    chosen = likely if len(likely) >= 3 else uncertain
    if len(chosen) <= MAX_COLUMNS:
        return [v for v, _ in chosen]

    def from_even(c: int) -> int:
        """|c / denominator - 1/2|, times 2 * denominator: the same order."""
        return abs(2 * c - denominator)

    step = next(s for s in _NICE_STEPS if len(chosen) / s <= MAX_COLUMNS + 1)
    if anchor is None or not any(v == anchor for v, _ in chosen):
        anchor = min(chosen, key=lambda vc: (from_even(vc[1]), vc[0]))[0]
    if step >= 5:
        anchor -= anchor % step  # round values for coarse steps: 20, 40, 60 ...
    picked = [(v, c) for v, c in chosen if (v - anchor) % step == 0]
    while len(picked) > MAX_COLUMNS:
        # Drop the end where the roll is most certain.
        picked = picked[1:] if from_even(picked[0][1]) >= from_even(picked[-1][1]) else picked[:-1]
    return [v for v, _ in picked]


def _successes(dist: Distribution, op: str, target: Fraction | int) -> int:
    """How many of `dist`'s equally likely outcomes make `total op target`: the numerator of
    `dist.compare_p(op, target)` over `dist.denominator`, read as it reads it (an op it does
    not name is `!=`)."""
    if isinstance(target, int):
        floor, below, whole = target, target - 1, True
    else:
        floor, below, whole = math.floor(target), math.ceil(target) - 1, target.denominator == 1
    if op == "<=":
        return dist.count_at_most(floor)
    if op == "<":
        return dist.count_at_most(below)
    if op == ">":
        return dist.denominator - dist.count_at_most(floor)
    if op == ">=":
        return dist.denominator - dist.count_at_most(below)
    exact = max(dist.count_at_most(floor) - dist.count_at_most(below), 0) if whole else 0
    return exact if op == "==" else dist.denominator - exact


def _whole(value: Fraction) -> Fraction | int:
    """`value` as an int when it is one: a target shifted by it stays an int, counted fast."""
    return int(value) if value.denominator == 1 else value


def _interval(found: t.Type | None) -> tuple[Fraction | None, Fraction | None]:
    if isinstance(found, t.Numeric):
        return found.low, found.high
    return None, None


def _distribution(pool: n.Pool) -> Distribution:
    return distribution(pool.count, pool.sides, pool.keep)


@functools.lru_cache(maxsize=256)
def distribution(count: int, sides: int, keep: str | None = None, horizon: int | None = None) -> Distribution:
    """`distribution`, computed once per pool (and `horizon`, for exploding dice): a table
    asks for it once per row.  The result is immutable, so sharing it is safe."""
    return dice.distribution(count, sides, keep, horizon)


# ---------------------------------------------------------------- evaluating constant formulas
