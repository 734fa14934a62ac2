"""E303 for the distributions a roll needs beyond the pools it writes: the difference of an
opposed roll, and a check's pool once every change that adds dice applies.  E304 for a dice
value, written with dice and numbers, whose distribution is past a resolver's bounds.

A resolver computes each of these exactly (dsl/runtime/), so each is held to the bound of a
single pool: at most MAX_TOTALS possible totals.  The written pools are checked where they are
read (dsl/analysis/infer.py `check_dice`), and the count of dice a check's changes reach in analysis.
"""

from __future__ import annotations

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.analysis.infer import MAX_TOTALS, pooled_dice
from dsl.diagnostics import Reporter, Span
from dsl.model.exprs import walk
from dsl.printer import expr_text, pool_text
from dsl.runtime.dice import MAX_COMBINATIONS, MAX_DICE_WORK, Dice
from dsl.semantics.values import constant_value

_OPPOSED_HINT = (
    f"roll smaller pools (their difference has {MAX_TOTALS:,} totals at most), or describe the roll in a `note`"
)
_GROWN_HINT = f"add fewer dice: the largest pool a roll reaches has {MAX_TOTALS:,} totals at most"


def check_dice_sizes(book: m.Book, reporter: Reporter) -> None:
    _dice_values(book, reporter)
    _pooled_stats(book, reporter)
    for part in book.parts.values():
        for effect in part.effects:
            if not isinstance(effect, m.RollEffect) or effect.pool is None:
                continue
            if effect.kind == "opposed" and effect.against is not None:
                _opposed(effect.pool, effect.against, reporter)
            elif effect.kind == "check":
                _grown(effect, reporter)


def _totals(count: int, sides: int, keep: str | None) -> int:
    """How many totals a pool can show, counted as dsl/analysis/infer.py `check_dice` counts them."""
    kept = keep.partition(" ")[2] if keep else ""
    if keep in ("highest", "lowest"):
        return sides
    if keep == "fate":
        return 2 * count + 1
    return (int(kept) if kept else count) * (sides - 1) + 1


def _opposed(first: n.Pool, second: n.Pool, reporter: Reporter) -> None:
    """first - second takes every value from first's lowest minus second's highest up."""
    totals = _totals(first.count, first.sides, first.keep) + _totals(second.count, second.sides, second.keep) - 1
    if totals <= MAX_TOTALS:
        return
    span = Span(first.span.path, first.span.line, first.span.column, second.span.end_line, second.span.end_column)
    reporter.report(
        "E303",
        f"`{pool_text(first)} vs {pool_text(second)}` is too big a roll: the difference of the two has"
        f" {totals:,} possible totals; exact probabilities for more than {MAX_TOTALS:,} are out of reach",
        span,
        _OPPOSED_HINT,
    )


def _grown(effect: m.RollEffect, reporter: Reporter) -> None:
    """Each pool the check may roll, with every `+N dice` of the roll added to it."""
    added = sum(change.delta for change in effect.changes if change.kind == "dice" and change.delta > 0)
    if not added:
        return
    pools = [effect.pool] + [change.pool for change in effect.changes if change.kind == "pool"]
    for pool in pools:
        assert pool is not None
        count = pool.count + added
        totals = _totals(count, pool.sides, pool.keep)
        if totals > MAX_TOTALS:
            grown = pool_text(n.Pool(span=pool.span, count=count, sides=pool.sides, keep=pool.keep))
            reporter.report(
                "E303",
                f"with every change that adds dice, `{pool_text(pool)}` becomes `{grown}`: it has {totals:,}"
                f" possible totals; exact probabilities for more than {MAX_TOTALS:,} are out of reach",
                pool.span,
                _GROWN_HINT,
            )


_VALUE_HINT = (
    f"add fewer dice (a resolver works out a dice value of at most {MAX_DICE_WORK:,} dice times totals;"
    " 100d100 is 100 x 9,901), or describe the roll in a `note`"
)


def _dice_values(book: m.Book, reporter: Reporter) -> None:
    """E304 for a dice value written with dice and numbers only (`derive blast = 10d6 * 3 + 2d6`)
    whose distribution a resolver could not work out: the resolver's own bounds (dsl/runtime/
    `Dice.totals`), tried on the value itself, and reported where it is written.  Only the
    expressions that write dice are evaluated; each constant part is tried once, at its top."""
    rolled = {
        id(x)
        for part in book.parts.values()
        for effect in part.effects
        if isinstance(effect, m.RollEffect)
        for x in (effect.dice, effect.against_dice)
        if x is not None
    }
    expressions = [x for part in book.parts.values() for effect in part.effects for x in _valued(effect)]
    expressions += [
        cell.value for table in book.tables.values() for row in table.rows for cell in row.cells if cell.value
    ]
    for expr in expressions:
        if any(isinstance(node, n.DiceLiteral) for node in walk(expr)):
            _try_dice(expr, book, reporter, id(expr) in rolled)


def _valued(effect: m.Effect) -> list[n.Expr]:
    """The expressions of an effect that may be dice values (not its conditions, which are flags)."""
    if isinstance(effect, m.ModEffect):
        return [x for x in (effect.value, effect.per) if x is not None]
    if isinstance(effect, m.DeriveEffect):
        return [effect.value]
    if isinstance(effect, m.RollEffect):
        return [x for x in (effect.dice, effect.against_dice, effect.target, *effect.adds) if x is not None]
    return []


def _try_dice(expr: n.Expr, book: m.Book, reporter: Reporter, rolled: bool) -> None:
    """`rolled`: the dice of a roll, where dice that explode without end are worked out up to
    the total the roll needs; elsewhere such a value has no distribution (E304)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        value = constant_value(node, book)
        if value is None:
            stack.extend(child for child in _children(node) if any(isinstance(x, n.DiceLiteral) for x in walk(child)))
            continue
        if not isinstance(value, Dice):
            continue
        if not value.bounded:
            if not rolled:
                reporter.report(
                    "E304",
                    f"the dice value `{value}` has no highest total: its dice explode without end",
                    node.span,
                    "say how many times they may explode, e.g. `exploding d6 at most 5 times`, or roll them"
                    " against a target",
                )
            continue
        try:
            value.totals(limit=MAX_COMBINATIONS)
        except ValueError as error:
            reason = str(error).partition(" has ")[2] or "too many totals to work out exactly"
            reporter.report("E304", f"the dice value `{value}` has {reason}", node.span, _VALUE_HINT)


def _children(expr: n.Expr) -> list[n.Expr]:
    found = []
    for node in walk(expr):
        if node is not expr:
            found.append(node)
    # the direct children only: those no other child contains
    inner = {id(x) for child in found for x in walk(child) if x is not child}
    return [child for child in found if id(child) not in inner]


def _pooled_stats(book: m.Book, reporter: Reporter) -> None:
    """E203 for a modifier that would leave a stat read die by die unreadable when resolving: a
    number added to its dice, or it scaled (`highest 2 of (attribute + skill)`: the dice and the
    number could not be kept apart); more than one die where it is named as one (`exploding
    (trait) as trait_die`).  Steps, whole dice and dice added keep a pool; steps keep one die."""
    read: dict[str, n.Expr] = {}
    named: set[str] = set()
    for part in book.parts.values():
        for effect in part.effects:
            for expr in _valued(effect):
                for node in walk(expr):
                    operands: tuple[n.Expr, ...] = ()
                    if isinstance(node, (n.PoolDice, n.FacedDice, n.CancellingDice, n.NamedDie)):
                        operands = (node.operand,)
                    elif isinstance(node, n.PairedDice):
                        operands = (node.first, node.second)
                    for operand in operands:
                        for found in walk(operand):
                            var = book.vars.get(found.name) if isinstance(found, n.NameRef) else None
                            if var is not None and isinstance(var.type, t.Dice):
                                read.setdefault(var.name, node)
                                if isinstance(node, n.NamedDie):
                                    named.add(var.name)
    for part in book.parts.values():
        for effect in part.effects:
            if not isinstance(effect, m.ModEffect) or effect.target not in read:
                continue
            stat, value = effect.target, effect.value
            how = {"mul": "scales it", "div": "scales it", "dice": "adds dice to it"}.get(
                effect.op,
                "changes it" if value is None else f"adds `{expr_text(value)}` to it" if effect.op == "add"
                else f"sets it to `{expr_text(value)}`",
            )
            if stat in named:
                one_die = isinstance(value, n.DiceLiteral) and value.count == 1
                wrong = (effect.op == "dice" and effect.delta > 0) or effect.op in ("add", "mul", "div") or (
                    effect.op == "set" and not one_die
                )
                problem = f"is named as one die (`{expr_text(read[stat])}`), and this {how}: more than one die"
                hint = f"step the die (`{stat} +1 step`), or set it to one die (`{stat} = 1d10`)"
            else:
                wrong = effect.op in ("mul", "div") or (
                    effect.op in ("add", "set") and value is not None and not pooled_dice(value, book)
                )
                problem = (
                    f"is kept die by die (`{expr_text(read[stat])}`), and this {how}: dice with a number added or"
                    " scaled, which cannot be kept apart"
                )
                hint = (
                    f"change its dice (`{stat} +1 step`, `{stat} +1 die`, `{stat} +1d4`), or add a number to the"
                    " roll instead"
                )
            if wrong:
                reporter.report("E203", f"`{stat}` {problem} when resolving", effect.span, hint)
