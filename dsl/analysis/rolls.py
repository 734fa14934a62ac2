"""Rolls: checks, resistance and opposed rolls, automatic outcomes; their changes under
conditions, outcomes (with margins and table steps), tiers and ties."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import Any

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.analysis.context import Context, note_pair, text
from dsl.analysis.infer import MAX_EXPLODING, MAX_EXPLODING_DICE, Scope, check_dice, describe, die_sides
from dsl.analysis.modifiers import analyze_modifier
from dsl.codes import NATURAL_NEVER_SHOWN
from dsl.diagnostics import Span, did_you_mean
from dsl.model.exprs import substitute, walk
from dsl.printer import expr_text, pool_text
from dsl.runtime.dice import Dice
from dsl.runtime.pools import showing_within

TIE_RULES = ("win", "lose", "tie")

MAX_POOL = 100
"""The most dice a roll's pool may reach through its changes (the checker bounds pools too)."""


def analyze_roll(
    cx: Context,
    statement: n.RollDecl,
    base: dict[str, Any],
    bindings: dict[str, n.Expr],
    scope: Scope,
) -> m.RollEffect | None:
    spec = statement.spec
    fields: dict[str, Any] = {
        "name": statement.name.text,
        "label": text(statement.label),
        "pool": None,
        "dice": None,
        "adds": (),
        "needed": None,
        "op": None,
        "target": None,
        "active": None,
        "passive": None,
        "against": None,
        "bonus": None,
        "against_bonus": None,
        "success": False,
        "target_dice": None,
    }
    number = t.Numeric("number")
    dice_target = False  # a check whose target is dice, subtracted from its own (`_against_dice`)
    if isinstance(spec, (n.CheckSpec, n.TotalSpec, n.CountSpec)):
        if isinstance(spec, n.CheckSpec):
            rewritten = _against_dice(cx, spec, bindings, scope)
            if rewritten is None:
                return None
            dice_target = rewritten is not spec
            if dice_target:
                fields["target_dice"] = substitute(spec.target, bindings)
            spec = rewritten
        dice = _dice(cx, spec.pool, bindings, scope)
        if dice is None:
            return None
        if isinstance(spec, n.TotalSpec) and dice[0] is not None and dice[0].keep == "exploding":
            cx.reporter.report(
                "E203",
                "exploding dice have no highest total: a roll of them needs a target",
                spec.pool.span,
                "roll them against a target, e.g. `exploding d6 >= 8`",
            )
            return None
        fields.update(pool=dice[0], dice=dice[1])
        if not isinstance(spec, n.CountSpec):
            joined = _joined(cx, dice, tuple(substitute(x, bindings) for x in spec.bonus), scope)
            if joined is None:
                return None
            fields.update(pool=joined[0], dice=joined[1])
            spec = dataclasses.replace(spec, bonus=joined[2])
            if isinstance(spec, n.TotalSpec) and joined[1] is not None and _explodes_without_end(joined[1]):
                cx.reporter.report(
                    "E203",
                    "exploding dice have no highest total: a roll of them needs a target",
                    spec.pool.span,
                    "roll them against a target, e.g. `exploding d6 >= 8`, or bound them: `exploding d6 at most 3 times`",
                )
                return None
        if isinstance(spec, n.CountSpec):
            if not _counted_dice(cx, spec.pool, dice[0]):
                return None
            needed = substitute(spec.needed, bindings)
            cx.typer.expect(needed, scope, t.Numeric("int"), "the number of dice needed")
            fields.update(kind="count", needed=needed)
        else:
            adds = spec.bonus
            for added in adds:
                cx.typer.expect(added, scope, number, "what is added to the dice")
            fields.update(kind="check" if isinstance(spec, n.CheckSpec) else "total", adds=adds)
        if not isinstance(spec, n.TotalSpec):
            target = substitute(spec.target, bindings)
            cx.typer.expect(target, scope, number, "the target of a roll")
            fields.update(op=spec.op, target=target)
    elif isinstance(spec, n.ResistSpec):
        if cx.book.resistance is None:
            cx.reporter.report(
                "E101",
                "a resistance roll needs the rulebook's `resistance` formula",
                spec.span,
                "declare e.g. `resistance: d100 <= 50 + (active - passive) * 5`",
            )
            return None
        active = substitute(spec.active, bindings)
        passive = substitute(spec.passive, bindings)
        cx.typer.expect(active, scope, number, "the active side")
        cx.typer.expect(passive, scope, number, "the passive side")
        fields.update(kind="resist", active=active, passive=passive)
    elif isinstance(spec, n.OpposedSpec):
        sides = []
        for written, side_bonus in ((spec.pool, spec.bonus), (spec.against, spec.against_bonus)):
            side = _dice(cx, written, bindings, scope)
            if side is None:
                return None
            joined = _joined(cx, side, () if side_bonus is None else (substitute(side_bonus, bindings),), scope)
            if joined is None:
                return None
            sides.append(joined)
        (first_pool, first, first_adds), (against, second, second_adds) = sides
        bonus = first_adds[0] if first_adds else None
        against_bonus = second_adds[0] if second_adds else None
        for value in (bonus, against_bonus):
            if value is not None:
                cx.typer.expect(value, scope, number, "a bonus")
        plain = first_pool is not None and against is not None and "exploding" not in (first_pool.keep, against.keep)
        if not plain:
            # the general form: each side a dice value (`exploding d6 + pips vs (ndice - 1) d6`)
            first = first if first is not None else _as_dice(cx, first_pool, scope)
            second = second if second is not None else _as_dice(cx, against, scope)
            if first is None or second is None:
                return None
            if _explodes_without_end(first) and _explodes_without_end(second):
                cx.reporter.report(
                    "E303",
                    "both sides of this opposed roll explode without end: the chance of one beating the other"
                    " is not worked out exactly",
                    spec.span,
                    "bound the explosions of one side, e.g. `exploding d6 at most 10 times`",
                )
                return None
            first_pool = against = None
        fields.update(
            kind="opposed",
            pool=first_pool,
            against=against,
            dice=None if plain else first,
            against_dice=None if plain else second,
            bonus=bonus,
            against_bonus=against_bonus,
        )
    else:
        assert isinstance(spec, n.AutomaticSpec)
        fields.update(kind="automatic", success=spec.success)
    kind = fields["kind"]
    changes: list[m.RollChange] = []
    outcomes: list[m.Outcome] = []
    notes: list[tuple[str, str | None]] = []
    tiers = None
    read_with: list[tuple[str, n.TiersRef]] = []  # each tier system the roll may be read with, where named
    ties = None
    lines_said: dict[str, int] = {}  # consequences said so far of each outcome
    # the systems come first, its own and those chosen under a condition: they name the outcomes
    chosen: dict[int, m.RollChange | None] = {}
    for item in statement.items:
        if isinstance(item, n.TiersRef):
            tiers = _tier_system(cx, item.name, kind, item.span)
            if tiers is not None:
                read_with.append((tiers, item))
        elif isinstance(item, n.GuardedChange) and isinstance(item.change, n.TiersChange):
            change = chosen[id(item)] = _roll_change(cx, item, kind, bindings, scope)
            if change is not None and change.tiers is not None:
                read_with.append((change.tiers, n.TiersRef(span=item.change.span, name=item.change.name)))
    allowed = m.OPPOSED_OUTCOMES if kind == "opposed" else () if kind == "total" else m.PLAIN_OUTCOMES
    for system, _ in read_with:
        # a tier may be called success or failure: each outcome is listed once
        allowed = tuple(dict.fromkeys((*allowed, *(x.name for x in cx.book.tiers[system].tiers))))
    for item in statement.items:
        if isinstance(item, n.GuardedChange):
            change = chosen[id(item)] if id(item) in chosen else _roll_change(cx, item, kind, bindings, scope)
            if change is not None:
                changes.append(change)
        elif isinstance(item, n.OutcomeItem):
            if item.outcome.text not in allowed:
                cx.reporter.report(
                    "E101",
                    f"`{item.outcome.text}` is not an outcome of this roll",
                    item.outcome.span,
                    did_you_mean(item.outcome.text, allowed) or "outcomes: " + ", ".join(allowed),
                )
                continue
            if item.by_margin and kind != "check":
                cx.reporter.report("E203", "`by margin` applies to a roll against a target", item.span)
                continue
            step = None
            if item.step is not None:
                if not isinstance(item.step, n.RollOn):
                    cx.reporter.report("E203", "an outcome can roll on a table, not roll itself again", item.step.span)
                else:
                    if item.step.table.text not in cx.table_shapes:
                        cx.reporter.report(
                            "E101",
                            f"unknown table `{item.step.table.text}`",
                            item.step.table.span,
                            did_you_mean(item.step.table.text, cx.table_shapes),
                        )
                    step = m.Step("roll_on", item.step.table.text, item.step.offset, item.step.span)
            said = lines_said.get(item.outcome.text, 0)
            lines_said[item.outcome.text] = said + len(item.consequences)
            consequences = _consequences(cx, item, base, bindings, scope, said)
            outcomes.append(
                m.Outcome(item.outcome.text, item.by_margin, text(item.text), step, item.span, *consequences)
            )
        elif isinstance(item, n.TiesItem):
            if kind != "opposed":
                cx.reporter.report("E203", "`ties` belongs to opposed rolls", item.span)
            elif item.winner.text not in TIE_RULES:
                cx.reporter.report(
                    "E101",
                    f"ties are `win`, `lose` or `tie`, not `{item.winner.text}`",
                    item.winner.span,
                    did_you_mean(item.winner.text, TIE_RULES),
                )
            else:
                ties = item.winner.text
        elif isinstance(item, n.RollNote) and not isinstance(item.note, n.AsideStmt):
            notes.append(note_pair(item.note))  # an aside is the rule's (dsl/analysis/rules.py)
    separate = any(isinstance(item, n.SeparateItem) for item in statement.items)
    outcomes = _merged(cx, outcomes)
    pools = [c.pool for c in changes if c.pool is not None] + ([fields["pool"]] if fields["pool"] is not None else [])
    if pools:
        more = sum(c.delta for c in changes if c.kind == "dice" and c.delta > 0)
        most = max(p.count for p in pools) + more
        if most > MAX_POOL:
            cx.reporter.report(
                "E303",
                f"with every change that adds dice, this roll reaches {most} dice: exact probabilities for "
                "so many are out of reach",
                statement.name.span,
                f"keep pools to {MAX_POOL} dice or fewer",
            )
            return None
        exploding = [p for p in pools if p.keep == "exploding"]
        if exploding and not _exploding_bounded(cx, statement, exploding, more, changes, fields):
            return None
        if fields["dice"] is None:
            for system, ref in read_with:
                _naturals_shown(cx, cx.book.tiers[system], ref, pools, changes)
    dice = fields["dice"]
    unbounded = dice is not None and kind == "check" and _explodes_without_end(dice)
    if unbounded and not _exploding_bounded(cx, statement, [], 0, changes, fields):
        return None
    endless = any(p.keep == "exploding" for p in pools) or (dice is not None and _explodes_without_end(dice))
    for system, ref in read_with:
        _natural_dice(cx, cx.book.tiers[system], ref, dice, dice_target, endless)
    return m.RollEffect(
        **base,
        **fields,
        changes=tuple(changes),
        outcomes=tuple(outcomes),
        tiers=tiers,
        ties=ties,
        notes=tuple(notes),
        separate=separate,
    )


def _tier_system(cx: Context, name: n.Name, kind: str, span: Span) -> str | None:
    """The tier system a roll names (`tiers move`, `when advanced: tiers advanced_move`), if it
    is one and the roll can be read with tiers."""
    if kind not in ("check", "total"):
        cx.reporter.report("E203", "outcome tiers split the totals of a roll of dice and modifiers", span)
        return None
    if name.text not in cx.book.tiers:
        cx.reporter.report("E101", f"unknown tiers `{name.text}`", name.span, did_you_mean(name.text, cx.book.tiers))
        return None
    return name.text


def _joined(
    cx: Context, dice: tuple[n.Pool | None, n.Expr | None], adds: tuple[n.Expr, ...], scope: Scope
) -> tuple[n.Pool | None, n.Expr | None, tuple[n.Expr, ...]] | None:
    """The dice of a roll with the dice added to them (`(ndice - 1) d6 + exploding d6 + pips`:
    one dice value, the wild die among the others), and the numbers added to them."""
    pool, value = dice
    dice_adds = [x for x in adds if isinstance(cx.typer.infer(x, scope), t.Dice)]
    numbers = tuple(x for x in adds if not any(x is d for d in dice_adds))
    if not dice_adds:
        return pool, value, numbers
    base = value if value is not None else _as_dice(cx, pool, scope)
    if base is None:
        return None
    for added in dice_adds:
        if isinstance(added, n.Negate):
            cx.reporter.report(
                "E201",
                "dice cannot be subtracted from a roll's dice",
                added.span,
                "raise the target instead, or oppose the two: `opposed 3d6 vs 2d6`",
            )
            return None
        base = n.Binary(span=added.span, op="+", left=base, right=added)
    if cx.typer.infer(base, scope) is None:
        return None
    _bounded_counts(cx, base)
    return None, base, numbers


def _as_dice(cx: Context, pool: n.Pool | None, scope: Scope) -> n.Expr | None:
    """A pool known when writing as the dice value it is: `exploding d6`, `highest 3 of 5d10`."""
    assert pool is not None
    if pool.keep == "fate":
        cx.reporter.report(
            "E201", "Fate dice are rolled alone: nothing but numbers is added to them", pool.span
        )
        return None
    dice: n.Expr = n.DiceLiteral(span=pool.span, count=pool.count, sides=pool.sides)
    if pool.keep is not None:
        op, _, kept = pool.keep.partition(" ")
        amount = n.Number(span=pool.span, value=Fraction(int(kept)), literal=kept) if kept else None
        dice = n.PoolDice(span=pool.span, op=op, operand=dice, amount=amount)  # type: ignore[arg-type]
    cx.typer.infer(dice, scope)
    return dice


def _explodes_without_end(expr: n.Expr) -> bool:
    return any(isinstance(x, n.PoolDice) and x.op == "exploding" and x.amount is None for x in walk(expr))


def _bounded_counts(cx: Context, value: n.Expr) -> bool:
    """Every number of dice worked out when resolving has a bound (E303)."""
    for found in walk(value):
        if not isinstance(found, n.DiceCount):
            continue
        counted = cx.book.types.get(found.count)
        high = counted.high if isinstance(counted, t.Numeric) else None
        if high is None or high > MAX_POOL:
            reach = "has no upper bound" if high is None else f"can reach {high}"
            cx.reporter.report(
                "E303",
                f"the number of dice `{expr_text(found.count)}` {reach}: the chances are worked out for "
                f"at most {MAX_POOL} dice",
                found.count.span,
                f"bound it, e.g. `min({expr_text(found.count)}, {min(MAX_POOL, 20)})`, or give what it reads a range",
            )
            return False
    return True


def _natural_dice(
    cx: Context,
    system: m.TierSystem,
    ref: n.TiersRef,
    dice: n.Expr | None,
    dice_target: bool = False,
    endless: bool = False,
) -> None:
    """A natural tier on a named die reads a die the roll names, on a face it has (E101, E301);
    the natural of dice that change after they are rolled and are then kept or compared is
    defined only for a named die (E203), and so is the natural of a roll against dice (its
    dice alone would take in the target's)."""
    named = {x.name.text: x for x in walk(dice) if isinstance(x, n.NamedDie)} if dice is not None else {}
    if not _counts_read_alone(cx, system, ref, dice, dice_target, endless):
        return
    for tier in system.tiers:
        if tier.joined == "and" and _never_together(cx, system, tier, ref):
            continue
        for first, last, name in tier.tests():
            if showing_within(name) is None:
                _natural_test(cx, system, tier, ref, dice, dice_target, named, first, last, name)


def _counts_read_alone(
    cx: Context, system: m.TierSystem, ref: n.TiersRef, dice: n.Expr | None, dice_target: bool, endless: bool
) -> bool:
    """Tiers that count the dice showing a face (`roll showing 6 >= 2`) count one set of faces,
    read no dice-alone natural beside it, count dice that have a highest value, of a roll whose
    target is not dice (whose dice would be counted too), read as the counts are worked out
    beside: summed, kept, counted, matched or the better of two; not pairs won, dice cancelled
    or the die a keep leaves (E203)."""
    reads = tuple(dict.fromkeys(name for tier in system.tiers for _, _, name in tier.tests()))
    counted = [name for name in reads if showing_within(name) is not None]
    if not counted:
        return True
    problem = None
    if len(counted) > 1:
        problem = (
            f"the tiers of `{system.name}` count the dice {counted[0]} and {counted[1]}: a roll's tiers count"
            " the dice showing one set of faces",
            "count one set of faces, e.g. `roll showing 6 >= 2`, and read the others from the roll's total",
        )
    elif None in reads:
        problem = (
            f"the tiers of `{system.name}` read the dice alone (`natural ...`) and count the dice {counted[0]}:"
            " a roll's tiers read one or the other",
            "read the natural of a named die (`natural 1 on wild`) beside the count",
        )
    elif endless:
        problem = (
            f"the tiers of `{system.name}` count the dice {counted[0]}, and dice of this roll explode without end:"
            " how many show a face is not worked out",
            "bound the explosions, e.g. `exploding d6 at most 5 times`",
        )
    elif dice_target:
        problem = (
            f"the tiers of `{system.name}` count the dice {counted[0]}, and this roll's target is dice too:"
            " the target's dice would be counted with the roll's",
            "roll against a number, or count the dice in a roll of their own (`3d6 showing 6 >= 2`)",
        )
    elif dice is not None and (
        read := next((x for x in walk(dice) if isinstance(x, (n.PairedDice, n.CancellingDice, n.LeftDie))), None)
    ):
        what = {n.PairedDice: "pairs won", n.CancellingDice: "dice cancelled", n.LeftDie: "the die a keep leaves"}
        problem = (
            f"the tiers of `{system.name}` count the dice {counted[0]} beside {what[type(read)]}"
            f" (`{expr_text(read)}`): that is not worked out",
            "count the dice in a roll of their own (`3d6 showing 6 >= 2`)",
        )
    if problem is None:
        return True
    cx.reporter.report("E203", problem[0], ref.span, problem[1])
    return False


def _never_together(cx: Context, system: m.TierSystem, tier: m.Tier, ref: n.TiersRef) -> bool:
    """Two faces of one die read with `and` that share no face never hold together (E301)."""
    seen: dict[str | None, tuple[int, int]] = {}
    for first, last, name in tier.tests():
        if name in seen and (last < seen[name][0] or first > seen[name][1]):
            die = "the dice" if name is None else f"`{name}`"
            cx.reporter.report(
                "E301",
                f"tier `{tier.name}` of `{system.name}` reads {die} twice with `and`, on faces it never shows"
                " at once: the tier never holds",
                ref.span,
                "join them with `or`, or read another die",
            )
            return True
        seen[name] = (first, last)
    return False


def _natural_test(
    cx: Context,
    system: m.TierSystem,
    tier: m.Tier,
    ref: n.TiersRef,
    dice: n.Expr | None,
    dice_target: bool,
    named: dict[str, n.NamedDie],
    first: int,
    last: int,
    name: str | None,
) -> None:
    """One `natural N [on NAME]` of a tier, checked against the roll's dice."""
    if name is None:
        if dice_target:
            cx.reporter.report(
                "E203",
                f"tier `{tier.name}` of `{system.name}` reads the natural result of the dice, and this roll's"
                " target is dice too: which dice are natural is not defined",
                ref.span,
                "name the die the tier reads, e.g. `d20 as d`, and write `natural 20 on d`",
            )
        elif dice is not None and _changed_then_read(dice):
            cx.reporter.report(
                "E203",
                f"tier `{tier.name}` of `{system.name}` reads the natural result of `{expr_text(dice)}`, whose"
                " dice explode and are then kept or compared: which faces are natural is not defined",
                ref.span,
                "name the die the tier reads, e.g. `exploding d6 as wild`, and write `natural 6 on wild`",
            )
        return
    die = named.get(name)
    if die is None:
        cx.reporter.report(
            "E101",
            f"tier `{tier.name}` of `{system.name}` reads the die `{name}`, which this roll does not name",
            ref.span,
            did_you_mean(name, named) or "name a die of the roll: `2d6 + exploding d6 as wild`",
        )
        return
    sides = die_sides(die.operand)
    if sides is not None and (last < 1 or first > sides):
        faces = str(first) if first == last else f"{first}..{last}"
        cx.reporter.report(
            "E301",
            f"tier `{tier.name}` of `{system.name}` is a natural {faces} on `{name}`, a d{sides}, which never"
            " shows it",
            ref.span,
            f"the die shows 1 to {sides}",
            new=NATURAL_NEVER_SHOWN,
        )


def _changed_then_read(expr: n.Expr) -> bool:
    """Dice that explode inside a keep or a better-of (their natural result is not defined)."""
    for found in walk(expr):
        readers = (isinstance(found, n.PoolDice) and found.op != "exploding") or (
            isinstance(found, n.Call) and found.function.text in ("min", "max")
        )
        if readers and any(isinstance(x, n.PoolDice) and x.op == "exploding" for x in walk(found)):
            return True
    return False


def _faces(pool: n.Pool, count: int) -> tuple[int, int | None]:
    """The lowest and highest the dice alone can show (a natural result), None when unbounded."""
    if pool.keep == "fate":
        return -count, count
    if pool.keep == "exploding":
        return count, None
    kept = count if pool.keep is None else 1 if " " not in pool.keep else min(int(pool.keep.split()[1]), count)
    return kept, kept * pool.sides


def _naturals_shown(
    cx: Context, system: m.TierSystem, ref: n.TiersRef, pools: list[n.Pool], changes: list[m.RollChange]
) -> None:
    """A natural tier whose faces the roll's dice never show never happens: `natural 00` on a
    d100 reads as 0, which no d100 shows (it shows 100)."""
    fewer = sum(c.delta for c in changes if c.kind == "dice" and c.delta < 0)
    more = sum(c.delta for c in changes if c.kind == "dice" and c.delta > 0)
    reach = [_faces(p, max(p.count + fewer, 1)) for p in pools] + [_faces(p, p.count + more) for p in pools]
    low = min(r[0] for r in reach)
    high = None if any(r[1] is None for r in reach) else max(r[1] for r in reach if r[1] is not None)
    for tier in system.tiers:
        for first, last, name in tier.tests():
            if showing_within(name) is None and not (last >= low and (high is None or first <= high)):
                _natural_not_shown(cx, system, tier, ref, pools, first, last, low, high)


def _natural_not_shown(
    cx: Context,
    system: m.TierSystem,
    tier: m.Tier,
    ref: n.TiersRef,
    pools: list[n.Pool],
    first: int,
    last: int,
    low: int,
    high: int | None,
) -> None:
    """E301: the dice alone never show the faces a natural tier reads."""
    shown = f"{low} or more" if high is None else f"{low} to {high}"
    faces = str(first) if first == last else f"{first}..{last}"
    dice = " or ".join(dict.fromkeys(pool_text(p) for p in pools))
    hint = f"the dice alone show {shown}"
    if first == last == 0 and high in (10, 100):
        hint = f"a d{high} read as 0 or 00 is its {high}: write `natural {high}`"
    cx.reporter.report(
        "E301",
        f"tier `{tier.name}` of `{system.name}` is a natural {faces}, which `{dice}` never shows",
        ref.span,
        hint,
        new=NATURAL_NEVER_SHOWN,
    )


def _against_dice(cx: Context, spec: n.CheckSpec, bindings: dict[str, n.Expr], scope: Scope) -> n.CheckSpec | None:
    """A roll whose target is dice ("+1D to the difficulty": `skill >= difficulty` with the
    difficulty dice, `3d6 > 2d6 + 4`) is the roll of both: the target's dice are subtracted from
    the roll's and the rest is compared with 0 (`3d6 + (2d6 + 4) * -1 > 0`), so a tie (`>=`
    succeeds on it, `>` does not), the margin and every tier of a check keep their meaning, and
    every backend and the reference work it out as they work out dice scaled by -1.  A target of
    dice that explode without end has no highest total to subtract (E303).  Any other target is
    left as it is."""
    target = substitute(spec.target, bindings)
    if not isinstance(cx.typer.infer(target, scope), t.Dice):
        return spec
    endless = _explodes_without_end(target) or any(
        isinstance(x, n.NameRef)
        and (var := cx.book.vars.get(x.name)) is not None
        and isinstance(var.default, Dice)
        and not var.default.bounded
        for x in walk(target)
    )
    if endless:
        cx.reporter.report(
            "E303",
            "the target's dice explode without end: a roll against them is not worked out exactly",
            spec.target.span,
            "bound their explosions, e.g. `exploding d6 at most 10 times`",
        )
        return None
    span = spec.target.span
    subtracted = n.Binary(
        span=span, op="*", left=spec.target, right=n.Number(span=span, value=Fraction(-1), literal="-1")
    )
    zero = n.Number(span=span, value=Fraction(0), literal="0")
    return dataclasses.replace(spec, bonus=(*spec.bonus, subtracted), target=zero)


def _exploding_bounded(
    cx: Context,
    statement: n.RollDecl,
    pools: list[n.Pool],
    added: int,
    changes: list[m.RollChange],
    fields: dict[str, Any],
) -> bool:
    """Exploding dice have no highest total: a resolver works their chances out up to the total
    the target asks of them, which must be bounded (E303), as must the pool with every die the
    changes add."""
    for pool in pools:
        count = pool.count + added
        if added and (count > MAX_EXPLODING_DICE or 2 * count * pool.sides > MAX_EXPLODING):
            cx.reporter.report(
                "E303",
                f"with every change that adds dice, this roll reaches exploding {count}d{pool.sides}: exploding dice "
                f"are worked out for at most {MAX_EXPLODING_DICE} dice, and dice times sides up to {MAX_EXPLODING // 2}",
                statement.name.span,
                "roll fewer or smaller exploding dice",
            )
            return False
    target = fields["target"]
    if target is None:
        return True
    read = [target, *fields["adds"], *(c.value for c in changes if c.kind == "target" and c.value is not None)]
    if not all(isinstance(cx.book.types.get(expr), t.Numeric) for expr in read):
        return True  # not a number: said where it is (E201), no bound to speak of
    # the highest total the dice alone may need: the target at its highest, raised by every change
    # that may raise it, less what is added to the dice at its lowest
    highs = [_bound(cx, target, "high")]
    highs += [_bound(cx, c.value, "high") for c in changes if c.kind == "target" and c.value is not None]
    lows = [_bound(cx, added_term, "low") for added_term in fields["adds"]]
    reach: Fraction | None = None
    if None not in highs and None not in lows:
        first, *raised = (h for h in highs if h is not None)
        reach = first + sum((max(h, Fraction(0)) for h in raised), Fraction(0))
        reach -= sum((low for low in lows if low is not None), Fraction(0))
    if reach is None or reach > MAX_EXPLODING:
        where = "has no upper bound" if reach is None else f"can ask them for a total of {math.ceil(reach):,}"
        cx.reporter.report(
            "E303",
            f"the target of these exploding dice {where}: their chances are worked out up to a total of "
            f"{MAX_EXPLODING:,}",
            target.span,
            f"bound it, e.g. `min({expr_text(target)}, 100)`, or give what it reads a range",
        )
        return False
    return True


def _bound(cx: Context, expr: n.Expr, end: str) -> Fraction | None:
    """The highest or lowest value a number may take, from the ranges it reads (None: unbounded)."""
    found = cx.book.types.get(expr)
    if not isinstance(found, t.Numeric):
        return None
    return found.high if end == "high" else found.low


def _roll_change(
    cx: Context, item: n.GuardedChange, kind: object, bindings: dict[str, n.Expr], scope: Scope
) -> m.RollChange | None:
    guard: tuple[m.Condition, ...] = ()
    if item.condition is not None:
        condition = substitute(item.condition, bindings)
        cx.typer.condition(condition, scope)
        guard = (m.Condition(condition, item.negated),)
    change = item.change
    if isinstance(change, n.AutomaticChange):
        return m.RollChange(guard, "automatic", None, 0, None, change.success, change.span)
    if isinstance(change, n.TiersChange):
        system = _tier_system(cx, change.name, str(kind), change.span)
        return None if system is None else m.RollChange(guard, "tiers", None, 0, None, False, change.span, system)
    if kind not in ("check", "count", "total"):
        cx.reporter.report(
            "E203", "a resistance or opposed roll changes only its outcome (`automatic success`)", change.span
        )
        return None
    if kind == "total" and isinstance(change, n.TargetChange):
        cx.reporter.report("E203", "a roll without a target has no target to change", change.span)
        return None
    if isinstance(change, n.PoolChange):
        if isinstance(change.pool, n.DicePool):
            cx.reporter.report(
                "E203",
                "a roll's dice are replaced by dice of one kind (`4d6`, `highest 3 of 5d10`, `exploding d6`), "
                "not dice mixed or worked out when resolving",
                change.pool.span,
                "make each a roll of its own under its condition: the first under `unless C:`, "
                "the other under `when C:`",
            )
            return None
        if not check_dice(change.pool.count, change.pool.sides, change.pool, cx.reporter):
            return None
        if kind == "count" and change.pool.keep is not None:
            cx.reporter.report(
                "E203", "successes are counted on plain dice (`6d6`), not kept or exploding ones", change.pool.span
            )
            return None
        if kind == "total" and change.pool.keep == "exploding":
            cx.reporter.report(
                "E203",
                "exploding dice have no highest total: a roll of them needs a target",
                change.pool.span,
                "roll them against a target, e.g. `exploding d6 >= 8`",
            )
            return None
        return m.RollChange(guard, "pool", change.pool, 0, None, False, change.span)
    if isinstance(change, n.DiceChange):
        return m.RollChange(guard, "dice", None, change.delta, None, False, change.span)
    assert isinstance(change, n.TargetChange)
    value = substitute(change.delta, bindings)
    cx.typer.expect(value, scope, t.Numeric("number"), "the change of target")
    return m.RollChange(guard, "target", None, 0, value, False, change.span)


# ------------------------------------------------------------------ examples


def _dice(
    cx: Context, pool: n.Pool | n.DicePool, bindings: dict[str, n.Expr], scope: Scope
) -> tuple[n.Pool | None, n.Expr | None] | None:
    """The dice of a roll: known when writing (a pool), or worked out when resolving (a dice
    value, whose number of dice must be bounded for its chances to be worked out)."""
    if isinstance(pool, n.Pool):
        return (pool, None) if check_dice(pool.count, pool.sides, pool, cx.reporter) else None
    value = substitute(pool.value, bindings)
    found = cx.typer.infer(value, scope)
    if found is None:
        return None
    if not isinstance(found, t.Dice):
        cx.reporter.report(
            "E201",
            f"a roll is made with dice, and this is {describe(found)}",
            value.span,
            "roll dice such as `3d6`, a number of dice such as `skill d6`, or a dice stat",
        )
        return None
    if not _bounded_counts(cx, value):
        return None
    return (None, value)


def _counted_dice(cx: Context, written: n.Pool | n.DicePool, pool: n.Pool | None) -> bool:
    """Dice whose successes are counted are plain dice: `6d6`, `skill d10`."""
    if pool is not None and pool.keep is not None:
        cx.reporter.report(
            "E203", "successes are counted on plain dice (`6d6`, `skill d10`), not kept or exploding ones", written.span
        )
        return False
    if isinstance(written, n.DicePool) and not isinstance(written.value, n.DiceCount):
        cx.reporter.report(
            "E203",
            "successes are counted on a number of dice (`6d6`, `skill d10`), not on a dice value",
            written.span,
        )
        return False
    return True


def _merged(cx: Context, outcomes: list[m.Outcome]) -> list[m.Outcome]:
    """One outcome per name: lines that say what the same outcome does add up, in order
    (`on failure: exhaustion +1, "..."` then `on failure: as prone`), as the statements of a rule
    do; an outcome sends to one table at most."""
    merged: dict[str, m.Outcome] = {}
    for outcome in outcomes:
        first = merged.get(outcome.name)
        if first is None:
            merged[outcome.name] = outcome
            continue
        if first.step is not None and outcome.step is not None:
            cx.reporter.report(
                "E102",
                f"`on {outcome.name}` already sends to a table",
                outcome.step.span,
                "an outcome sends to one table; the table may send on with `then roll`",
            )
        merged[outcome.name] = m.Outcome(
            outcome.name,
            first.by_margin or outcome.by_margin,
            " ".join(x for x in (first.text, outcome.text) if x) or None,
            first.step or outcome.step,
            first.span,
            first.changes + outcome.changes,
            first.applies + outcome.applies,
        )
    return list(merged.values())


def _consequences(
    cx: Context,
    item: n.OutcomeItem,
    base: dict[str, Any],
    bindings: dict[str, n.Expr],
    scope: Scope,
    said: int,
) -> tuple[tuple[m.ModEffect, ...], tuple[str, ...]]:
    """What an outcome changes (`exhaustion +1`) and the rules it brings into play (`as prone`):
    reported with the outcome's chance, since a resolver does not roll.  `said`: the consequences
    of the same outcome on earlier lines, so that each change has a key of its own."""
    changes: list[m.ModEffect] = []
    applies: list[str] = []
    for index, consequence in enumerate(item.consequences, start=said + 1):
        if isinstance(consequence, n.Modifier):
            own = {**base, "key": f"{base['key']}:{item.outcome.text}{index}", "guard": (), "span": consequence.span}
            change = analyze_modifier(cx, consequence, own, bindings, scope)
            if change is not None:
                changes.append(change)
            continue
        for ref in consequence.rules:
            if ref.text in cx.rule_decls:
                applies.append(ref.text)
            else:
                cx.reporter.report(
                    "E101", f"unknown rule `{ref.text}`", ref.span, did_you_mean(ref.text, cx.rule_decls)
                )
    return tuple(changes), tuple(applies)
