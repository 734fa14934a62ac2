"""E303 for the distributions a roll needs beyond the pools it writes: the difference of an
opposed roll, and a check's pool once every change that adds dice applies.

A resolver computes each of these exactly (dsl/runtime.py), so each is held to the bound of a
single pool: at most MAX_TOTALS possible totals.  The written pools are checked where they are
read (dsl/infer.py `check_dice`), and the count of dice a check's changes reach in analysis.
"""

from __future__ import annotations

from dsl import model as m
from dsl import nodes as n
from dsl.diagnostics import Reporter, Span
from dsl.infer import MAX_TOTALS
from dsl.printer import pool_text

_OPPOSED_HINT = (
    f"roll smaller pools (their difference has {MAX_TOTALS:,} totals at most), or describe the roll in a `note`"
)
_GROWN_HINT = f"add fewer dice: the largest pool a roll reaches has {MAX_TOTALS:,} totals at most"


def check_dice_sizes(book: m.Book, reporter: Reporter) -> None:
    for part in book.parts.values():
        for effect in part.effects:
            if not isinstance(effect, m.RollEffect) or effect.pool is None:
                continue
            if effect.kind == "opposed" and effect.against is not None:
                _opposed(effect.pool, effect.against, reporter)
            elif effect.kind == "check":
                _grown(effect, reporter)


def _totals(count: int, sides: int, keep: str | None) -> int:
    """How many totals a pool can show, counted as dsl/infer.py `check_dice` counts them."""
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
