"""Rolls: the exact chance of success and of each outcome of a roll the situation calls for, with
its changes, tiers, margins and consequences; and the merging of the same roll asked for by
several rules (rolled once).

Several rules of one situation may ask for the same roll (darkness and broken ground both ask
for a fall roll when moving over half MOV): it is rolled once.  Two rolls are the same when, as
the situation settles them, they have the same name, kind, dice (after their changes), bonus,
comparison, target, number needed, automatic result and tiers: the same chances of every
outcome.  What each rule makes of an outcome may differ: the first roll's effects are the
roll's, the others' stay with it (`merged`).  A roll marked `separate` is never merged.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from fractions import Fraction
from itertools import accumulate
from typing import Any

from .base import RuleInputError, whole
from .book import MAX_CACHED, Book, Scope
from .dice import Dice, Distribution, Value, pool_dice, pool_text
from .results import Consequence, Roll, TraceEntry
from .settle import apply_one
from .specs import Amount, ChangeSpec, Clause, RollSpec, RollStep, TierSpec, TraceSpec, counts_dice, natural_names


def roll_of(scope: Scope, step: RollStep) -> Roll:
    """The roll of a step whose conditions hold: its changes traced, its chances kept by what
    decides them (when no consequence reads the scope).  A value the roll cannot be made with (a
    dice stat given as dice the roll cannot name, keep or explode) is refused naming the roll."""
    try:
        return _roll_of(scope, step)
    except RuleInputError as error:
        spec = step.spec
        raise RuleInputError(f"roll `{spec.name}` of `{spec.rule}`: {error}") from None


def _roll_of(scope: Scope, step: RollStep) -> Roll:
    spec = step.spec
    changed = roll_changes(scope, spec, step.changes)
    values = step.values
    found = values(scope) if callable(values) else values
    if spec.consequences:
        return roll_from(scope, spec, found, *changed, cached=True)
    key = (id(spec), found, *changed[:4], id(changed[4]))  # the tiers: one of the book's, by identity
    rolls = scope.book.rolled
    roll = rolls.get(key)
    if roll is None:
        if len(rolls) >= MAX_CACHED:
            rolls.clear()
        roll = rolls[key] = roll_from(scope, spec, found, *changed, cached=True)
    return roll


_Changed = tuple[tuple[int, int, str | None] | None, int, int | Fraction, str | None, tuple[TierSpec, ...]]
"""What a roll's changes that hold come to: its pool, dice added, target shift, automatic result
and the tiers it is read with."""


def roll_changes(
    scope: Scope, spec: RollSpec, changes: tuple[tuple[ChangeSpec, tuple[Clause, ...], Amount, TraceSpec], ...]
) -> _Changed:
    """The changes of a roll that hold, each traced, in order.  Changes of one kind that replace
    (the pool, the tiers) go as the last that holds says; a failure made automatic wins over a
    success."""
    pool = spec.pool
    tiers = spec.tiers
    delta = 0
    shift: int | Fraction = 0
    automatic = None if spec.kind != "automatic" else ("success" if spec.success else "failure")
    for change, clauses, amount, trace in changes:
        decided = -1
        for position, clause in enumerate(clauses):
            if not clause(scope):
                decided = position
                break
        scope.trace.append(TraceEntry(trace, decided, scope.v, scope.e))
        if decided >= 0:
            continue
        if change.kind == "pool":
            pool = change.pool
        elif change.kind == "dice":
            delta += change.delta
        elif change.kind == "target":
            shift += amount(scope) if callable(amount) else amount
        elif change.kind == "tiers":
            tiers = change.tiers
        elif automatic != "failure":
            automatic = "success" if change.success else "failure"
    return pool, delta, shift, automatic, tiers


def roll_from(
    scope: Scope,
    spec: RollSpec,
    found: Any,
    pool: tuple[int, int, str | None] | None,
    delta: int,
    shift: int | Fraction,
    automatic: str | None,
    tiers: tuple[TierSpec, ...],
    cached: bool = False,
) -> Roll:
    """A roll from its values (`found`: target, bonus, dice value and count needed; or the two
    sides of a resistance or opposed roll) and its changes: its dice, exact chances, consequences."""
    book = scope.book
    goal: int | Fraction | None = None
    bonus: int | Fraction = 0
    op = spec.op
    dice = ""
    value: Dice | None = None
    needed = 0
    if spec.kind == "resist":
        assert book.resistance is not None and book.resistance_pool is not None
        active, passive = found
        goal = book.resistance(active, passive)
        pool = book.resistance_pool
        op = book.resistance_op
    elif spec.kind in ("check", "total", "count"):
        goal, bonus, value, needed = found
        if goal is not None:
            goal += shift
    if value is not None and pool is not spec.pool:
        value = None  # a pool change that holds replaces the dice, worked out or written
    if value is not None:
        value = value.with_dice(delta) if delta else value
        dice = str(value)
    elif pool is not None:
        count, sides, keep = pool
        pool = (max(count + delta, 1), sides, keep)
        dice = pool_text(pool)
    if automatic is not None:
        dice = dice or "none"
    elif spec.kind == "opposed":
        if spec.pool is not None and spec.against is not None:
            dice = f"{pool_text(spec.pool)} vs {pool_text(spec.against)}"
        else:
            dice = f"{found[2]} vs {found[3]}"
        op = "vs"
    pair = found if spec.kind == "opposed" and automatic is None else None
    plan = _plan(spec, automatic, pool, value, bonus, pair)
    chances = _chances_of(book, spec, automatic, pool, value, goal, bonus, op, needed, pair, tiers, cached)
    probability, outcomes, margins, totals, successes = chances
    consequences = []
    for consequence in spec.consequences:
        after = None
        if consequence.target is not None and consequence.op is not None:
            target = consequence.target
            current: Value = scope.e[target] if target in scope.e else scope.v[target]
            amount = consequence.value(scope) if callable(consequence.value) else consequence.value
            after = apply_one(book.inputs[consequence.target], current, consequence.op, amount, consequence.rounding)
        chance = outcomes.get(consequence.outcome, Fraction(0))
        consequences.append(Consequence(consequence.outcome, consequence.text, chance, consequence.target, whole(after)))
    return Roll(
        spec=spec,
        dice=dice,
        bonus=whole(bonus),
        comparison=op,
        target=whole(goal),
        probability=probability,
        automatic=automatic,
        outcomes=outcomes,
        margins=margins,
        totals=totals,
        successes=successes,
        needed=needed if spec.kind == "count" else None,
        consequences=tuple(consequences),
        plan=plan,
        tiers=tiers,
    )


def _plan(
    spec: RollSpec,
    automatic: str | None,
    pool: tuple[int, int, str | None] | None,
    value: Dice | None,
    bonus: int | Fraction,
    pair: Any,
) -> tuple[tuple[Dice, int | Fraction], ...]:
    """What is rolled, as the chances take it: each side's dice and the number added to them (a
    count rolls its first kind of dice, each die met against the target)."""
    if automatic is not None:
        return ()
    if spec.kind == "opposed":
        if spec.pool is not None and spec.against is not None:
            return ((pool_dice(*spec.pool), pair[0]), (pool_dice(*spec.against), pair[1]))
        return ((pair[2], pair[0]), (pair[3], pair[1]))
    if spec.kind == "count":
        if value is not None:
            return ((Dice.pool(value.first_count(), value.terms[0][1] if value.terms else 2), 0),)
        assert pool is not None
        return ((Dice.pool(pool[0], pool[1]), 0),)
    dice = value if value is not None else pool_dice(*pool) if pool is not None else None
    return ((dice, bonus),) if dice is not None else ()


_Chances = tuple[
    Fraction | None, Mapping[str, Fraction], Mapping[int, Fraction], Mapping[int, Fraction], Mapping[int, Fraction]
]
"""A roll's chance of success, and of each outcome, margin, total and number of successes."""


def _chances_of(
    book: Book,
    spec: RollSpec,
    automatic: str | None,
    pool: tuple[int, int, str | None] | None,
    value: Dice | None,
    goal: int | Fraction | None,
    bonus: int | Fraction,
    op: str | None,
    needed: int,
    pair: Any,
    tiers: tuple[TierSpec, ...],
    cached: bool,
) -> _Chances:
    """The chances of a roll, worked out once for what decides them (`cached`: looked up when
    worked out before, and returned read-only, as every resolution of it shares them)."""
    if not cached:
        return _roll_chances(book, spec, automatic, pool, value, goal, bonus, op, needed, pair, tiers)
    key = (id(spec), automatic, pool, value, goal, bonus, op, needed, pair, id(tiers))
    found = book.chances.get(key)
    if found is None:
        probability, outcomes, margins, totals, successes = _roll_chances(
            book, spec, automatic, pool, value, goal, bonus, op, needed, pair, tiers
        )
        if len(book.chances) >= MAX_CACHED:
            book.chances.clear()
        found = book.chances[key] = (
            probability,
            _ReadOnly(outcomes),
            _ReadOnly(margins),
            _ReadOnly(totals),
            _ReadOnly(successes),
        )
    return found


class _ReadOnly(dict[Any, Any]):
    """A dict that cannot be changed (it reads and prints as one): the chances a book keeps are
    shared by every resolution that reports them."""

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> Any:
        raise TypeError("the chances of a roll are shared by every resolution of it: copy them to change them")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse


def _roll_chances(
    book: Book,
    spec: RollSpec,
    automatic: str | None,
    pool: tuple[int, int, str | None] | None,
    value: Dice | None,
    goal: int | Fraction | None,
    bonus: int | Fraction,
    op: str | None,
    needed: int,
    pair: Any,
    tiers: tuple[TierSpec, ...],
) -> _Chances:
    """The exact chances of a roll: of success, of each outcome (tiers, win/tie/lose), margin,
    total (a roll without a target) and number of successes (a count), the roll read with
    `tiers`."""
    outcomes: dict[str, Fraction] = {}
    margins: dict[int, Fraction] = {}
    totals: dict[int, Fraction] = {}
    successes: dict[int, Fraction] = {}
    probability: Fraction | None
    if automatic is not None:
        probability = Fraction(1 if automatic == "success" else 0)
    elif spec.kind == "opposed":
        first, second = pair[0], pair[1]
        edge = Fraction(second) - Fraction(first)
        if spec.pool is not None and spec.against is not None:
            diff = book.pool_difference(spec.pool, spec.against)
            win = 1 - diff.at_most_p(edge)
            tie = diff.between_p(edge, edge) if edge.denominator == 1 else Fraction(0)
        else:
            win, tie = beats(pair[2], pair[3], edge)
        outcomes = {"win": win, "tie": tie, "lose": 1 - win - tie}
        probability = win + (tie if spec.ties == "win" else 0)
    elif spec.kind == "count":
        assert goal is not None and op is not None
        if value is not None:
            count, sides = value.first_count(), value.terms[0][1] if value.terms else 2
        else:
            assert pool is not None
            count, sides = pool[0], pool[1]
        successes = successes_of(count, sides, op, goal)
        probability = sum((p for k, p in successes.items() if k >= needed), Fraction(0))
        outcomes = {"success": probability, "failure": 1 - probability}
    else:
        exploding = (pool is not None and pool[2] == "exploding") or (value is not None and not value.bounded)
        horizon = _horizon(goal, bonus, tiers) if exploding else None
        dist = book.dice(value, horizon) if value is not None else book.pool(pool, horizon)  # type: ignore[arg-type]
        rows = None
        if any(tier.natural is not None for tier in tiers) and (value is not None or exploding or counts_dice(tiers)):
            rows = book.naturals(value if value is not None else pool_dice(*pool), tiers, horizon)  # type: ignore[misc]
        if spec.kind == "total":
            totals = {t + bonus: p for t, p in dist.chances().items()}  # type: ignore[misc]
            probability = None
            outcomes = tier_chances(dist, tiers, Fraction(0), bonus, None, rows) if tiers else {}
        else:
            assert goal is not None and op is not None
            if tiers:
                outcomes = tier_chances(dist, tiers, goal, bonus, op, rows)
                chance = outcomes.pop(" success")
                named = {tier.name for tier in tiers}
                # a tier called success or failure reports its own chance (a plain success:
                # neither special nor critical); `probability` is the overall chance
                outcomes.update({k: v for k, v in (("success", chance), ("failure", 1 - chance)) if k not in named})
            else:
                chance = dist.compare_p(op, Fraction(goal) - bonus)
                outcomes = {"success": chance, "failure": 1 - chance}
            probability = chance
            if spec.margin_outcomes:
                margins = _margins(dist, op, Fraction(goal) - bonus, "success" in spec.margin_outcomes)
    return probability, outcomes, margins, totals, successes


def tier_chances(
    dist: Distribution,
    tiers: tuple[TierSpec, ...],
    goal: int | Fraction,
    bonus: int | Fraction,
    op: str | None,
    rows: Mapping[tuple[tuple[int, ...], int], Fraction] | None = None,
) -> dict[str, Fraction]:
    """Outcome tiers, first match wins, total by total: `roll` tests the total (dice and what is
    added to them), `natural` the dice alone (or the first face of a named die).  `rows`: the
    chance of each (naturals, total of the dice), when the naturals are not the totals
    themselves (`Dice.naturals`: exploding or named dice, numbers inside a dice value).  With a
    comparison, the key " success" holds the chance of success, where a tier that `always`
    succeeds or fails decides whatever the target."""
    bounds = {tier.name: Fraction(tier.bound(goal)) for tier in tiers if tier.bound is not None}
    names = natural_names(tiers)
    found = {tier.name: Fraction(0) for tier in tiers}
    success = Fraction(0)
    if rows is None:
        chances = [((total,) * len(names), total, chance) for total, chance in dist.chances().items()]
        if dist.limit is not None:  # exploding: every total above the limit falls in the same tiers
            above = dist.limit + 1
            chances.append(((above,) * len(names), above, 1 - dist.at_most_p(dist.limit)))
    else:
        chances = [(naturals, total, chance) for (naturals, total), chance in rows.items()]
    for naturals, dice_total, chance in chances:
        total = dice_total + bonus
        chosen = None
        for tier in tiers:
            if tier.natural is not None:
                holds = tier.shows(names, naturals)
            elif tier.op == "<=":
                holds = total <= bounds[tier.name]
            elif tier.op == ">=":
                holds = total >= bounds[tier.name]
            else:
                holds = True
            if holds:
                chosen = tier
                break
        if chosen is not None:
            found[chosen.name] += chance
        if op is not None:
            won = chosen.always == "success" if chosen is not None and chosen.always else meets(total, op, goal)
            success += chance if won else 0
    if op is not None:
        found[" success"] = success
    return found


def _horizon(goal: int | Fraction | None, bonus: int | Fraction, tiers: tuple[TierSpec, ...]) -> int:
    """The highest total of the dice alone whose chance a roll needs (exploding dice have no
    highest total): past the target and every tier's bound."""
    edges = [Fraction(goal) - bonus] if goal is not None else []
    edges += [Fraction(tier.bound(goal if goal is not None else 0)) - bonus for tier in tiers if tier.bound is not None]
    edges += [Fraction(last) for tier in tiers for _, last, die in tier.tests() if die is None]
    return max((math.ceil(edge) for edge in edges), default=0) + 1


def meets(total: int | Fraction, op: str, goal: int | Fraction) -> bool:
    """Whether a total meets a target by a comparison."""
    if op == "<=":
        return total <= goal
    if op == "<":
        return total < goal
    if op == ">=":
        return total >= goal
    if op == ">":
        return total > goal
    if op == "==":
        return total == goal
    return total != goal


def beats(first: Dice, second: Dice, edge: Fraction) -> tuple[Fraction, Fraction]:
    """P(first - second > edge) and P(first - second == edge), the two rolled apart, for dice
    of any form (a side that explodes without end is worked out as far as the other side
    reaches): each total of one side against the running sums of the other."""
    try:
        if second.bounded:
            theirs = second.totals()
            mine = first.totals(horizon=max(theirs) + math.ceil(edge) + 1)
        else:
            mine = first.totals()
            theirs = second.totals(horizon=max(mine) - math.floor(edge) + 1)
    except ValueError as error:
        raise RuleInputError(str(error)) from None
    values = sorted(mine)
    above = list(accumulate(mine[v] for v in reversed(values)))[::-1]  # P(first >= values[i])
    win = tie = Fraction(0)
    for value, chance in theirs.items():
        needed = value + edge  # first must be above it
        index = bisect_right(values, needed)
        if index < len(values):
            win += chance * above[index]
        if needed.denominator == 1:
            tie += chance * mine.get(int(needed), Fraction(0))
    return win, tie


def successes_of(count: int, sides: int, op: str, goal: int | Fraction) -> dict[int, Fraction]:
    """How many of `count` dice meet the target, each number with its chance (a binomial)."""
    meeting = sum(1 for face in range(1, sides + 1) if meets(face, op, goal))
    total = sides**count
    return {
        k: Fraction(math.comb(count, k) * meeting**k * (sides - meeting) ** (count - k), total)
        for k in range(count + 1)
        if (meeting or k == 0) and (meeting < sides or k == count)
    }


def _margins(dist: Distribution, op: str, target: int | Fraction, successes: bool) -> dict[int, Fraction]:
    """The chance of each margin (how far the total lands from the target) on failure or success."""
    margins: dict[int, Fraction] = {}
    for total in range(dist.low, dist.high + 1):
        p = dist.between_p(total, total)
        if p == 0:
            continue
        success = {
            "<=": total <= target,
            "<": total < target,
            ">=": total >= target,
            ">": total > target,
            "==": total == target,
            "!=": total != target,
        }[op]
        if success != successes:
            continue
        margin = abs(math.floor(total - target)) if total >= target else math.ceil(target - total)
        margins[margin] = margins.get(margin, Fraction(0)) + p
    return dict(sorted(margins.items()))


def _roll_identity(roll: Roll) -> tuple[object, ...]:
    spec = roll.spec
    tiers = tuple(tier.name for tier in roll.tiers)
    return (spec.name, spec.kind, roll.dice, roll.bonus, roll.comparison, roll.target, roll.needed, roll.automatic, tiers)


def merge_rolls(scope: Scope, rolls: Sequence[Roll]) -> tuple[Roll, ...]:
    """The rolls of a situation with each roll asked for by several rules once (`merged_rolls`);
    a trace entry names the rules that asked for it."""
    out = merged_rolls(rolls)
    for roll in out:
        if roll.merged:
            said = f"asked for by {', '.join(roll.asked_by)}: one roll"
            spec = TraceSpec(roll.spec.rule, roll.spec.source, f"roll {roll.spec.name}: {said}", ("same roll",), ((),), said)
            scope.trace.append(TraceEntry(spec, -1, scope.v, scope.e))
    return out


def merged_rolls(rolls: Sequence[Roll]) -> tuple[Roll, ...]:
    """Each roll asked for by several rules once, where first asked for.  A rule that asks twice
    for the same roll gets two; a roll marked `separate` is never merged."""
    first: dict[tuple[object, ...], int] = {}
    out: list[Roll] = []
    for roll in rolls:
        key = _roll_identity(roll)
        where = None if roll.spec.separate else first.get(key)
        if where is not None and roll.spec.rule in out[where].asked_by:
            where = None
        if where is None:
            if not roll.spec.separate and key not in first:
                first[key] = len(out)
            out.append(roll)
            continue
        kept = out[where]
        out[where] = Roll(
            kept.spec,
            kept.dice,
            kept.bonus,
            kept.comparison,
            kept.target,
            kept.probability,
            kept.automatic,
            kept.outcomes,
            kept.margins,
            kept.totals,
            kept.successes,
            kept.needed,
            kept.consequences,
            (*kept.merged, roll),
            kept.plan,
            tiers=kept.tiers,
        )
    return tuple(out)
