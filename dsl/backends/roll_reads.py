"""What a roll reads of a situation when it is resolved, chosen once for every backend.

A generated module hands its runtime's roll step a small function of the situation that returns
the roll's values in the order the runtime takes them (dsl/runtime/rolls.py, and rolls.js its
twin): a check, total or count reads its target, what is added to the dice, the dice worked out
when resolving and how many dice must meet the target; a resistance roll its active and passive
values; an opposed roll each side's bonus, and each side's dice when both are worked out when
resolving.  Which of a roll's expressions fill those places, and what stands in for one it does
not have, is the same for Python and JavaScript; only how each writes an expression differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from dsl import model as m
from dsl import nodes as n


@dataclass(frozen=True, slots=True)
class RollRead:
    """One value a roll reads: the sum of `terms`; without terms, `absent` stands in (`none`:
    the runtime's null, the roll has no such value; `zero`: nothing is added).  `whole`: the
    runtime takes a whole number (a count of dice)."""

    terms: tuple[n.Expr, ...]
    absent: Literal["none", "zero"]
    whole: bool = False


def roll_reads(effect: m.RollEffect) -> tuple[RollRead, ...] | None:
    """The values `effect` reads when it is resolved, in the runtime's order; None for a roll
    that reads none (its chances are known when the module is written)."""
    if effect.kind in ("check", "total", "count"):
        return (
            _read(effect.target, "none"),
            RollRead(effect.adds, "zero"),
            _read(effect.dice, "none"),
            _read(effect.needed, "zero", whole=True),
        )
    if effect.kind == "resist":
        assert effect.active is not None and effect.passive is not None
        return (_read(effect.active, "none"), _read(effect.passive, "none"))
    if effect.kind == "opposed":
        bonuses = (_read(effect.bonus, "zero"), _read(effect.against_bonus, "zero"))
        if effect.dice is not None and effect.against_dice is not None:
            return (*bonuses, _read(effect.dice, "none"), _read(effect.against_dice, "none"))
        return bonuses
    return None


def _read(expr: n.Expr | None, absent: Literal["none", "zero"], *, whole: bool = False) -> RollRead:
    return RollRead(() if expr is None else (expr,), absent, whole)
