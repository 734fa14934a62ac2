"""Random situations, resolved by a generated module and by the reference resolver, compared.

Shared by tests/test_semantics.py (a few thousand situations per rulebook in CI) and
tests/soak/differential.py (a million, with figures printed)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import ModuleType
from typing import Any

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.analysis import walk
from dsl.runtime.base import show
from dsl.runtime.dice import DIE_LADDER, Dice
from dsl.semantics import NoValue
from dsl.semantics.reference import resolve as reference_resolve


@dataclass
class Tally:
    situations: int = 0
    refused: int = 0  # both refused the situation (e.g. a lookup with no row): agreed
    mismatches: list[str] = field(default_factory=list)


def texts_of(book: m.Book) -> list[str]:
    """Text values worth trying for text inputs: the literals the rulebook compares with."""
    found = {""}
    for part in book.parts.values():
        for effect in part.effects:
            for condition in effect.guard:
                for node in walk(condition.expr):
                    if isinstance(node, n.TextLiteral):
                        found.add(node.value)
    return sorted(found)


def random_value(var: m.Var, rng: random.Random, texts: Sequence[str]) -> Any:
    kind = var.type
    if isinstance(kind, t.Numeric):
        low = kind.low if kind.low is not None else (kind.high - 40 if kind.high is not None else Fraction(-20))
        high = kind.high if kind.high is not None else low + 40
        if kind.integral:
            # the ends of a range are where rules change most: give them a fair share
            pick = rng.random()
            if pick < 0.1:
                return int(low)
            if pick < 0.2:
                return int(high)
            return rng.randint(int(low), int(high))
        denominator = rng.choice((1, 1, 2, 4, 10))
        value = Fraction(rng.randint(int(low * denominator), int(high * denominator)), denominator)
        return min(max(value, low), high)
    if isinstance(kind, t.Flag):
        return rng.random() < 0.5
    if isinstance(kind, t.Enum):
        return rng.choice(kind.members)
    if isinstance(kind, t.Dice):
        terms = tuple((rng.randint(1, 4), rng.choice(DIE_LADDER)) for _ in range(rng.choice((1, 1, 1, 2))))
        return Dice(terms, rng.choice((0, 0, 1, 2, -1)))
    return rng.choice(list(texts))


def random_situation(book: m.Book, names: Sequence[str], rng: random.Random, texts: Sequence[str]) -> dict[str, Any]:
    reads: list[str] = []
    for name in names:
        if name in book.rules:
            reads += book.rules[name].reads
        else:
            reads += book.tables[name].reads
    given: dict[str, Any] = {}
    for name in dict.fromkeys(reads):
        var = book.vars[name]
        if var.default_expr is not None and rng.random() < 0.5:
            continue  # its default is computed from other values
        if rng.random() < 0.15 and var.default is not None:
            continue  # its fixed default
        given[name] = random_value(var, rng, texts)
    # one `roll` serves every rolled table of the situation: a result all of their dice can show
    ranges = [_roll_range(book.tables[x].pool) for x in names if x in book.tables and book.tables[x].pool]
    low, high = max((r[0] for r in ranges), default=1), min((r[1] for r in ranges), default=0)
    if ranges and low <= high and rng.random() < 0.7:
        given["roll"] = rng.randint(low, high)
    return given


def _roll_range(pool: n.Pool | None) -> tuple[int, int]:
    assert pool is not None
    return (1, pool.sides) if pool.keep else (pool.count, pool.count * pool.sides)


def projection(resolution: Any) -> dict[str, Any]:
    """What a resolution says, in plain values: the generated module and the reference use
    classes of their own, so they are compared through this."""

    def exact(value: Any) -> Any:
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, (int, Fraction)):
            return show(Fraction(value))
        return str(value)

    return {
        "inputs": {k: exact(v) for k, v in resolution.inputs.items()},
        "stats": {k: exact(v) for k, v in resolution.stats.items()},
        "derived": {k: exact(v) for k, v in resolution.derived.items()},
        "modifiers": sorted(
            (x.rule, x.target, x.operation, exact(x.amount), x.text, x.status, x.reason or "")
            for x in resolution.modifiers
        ),
        "rolls": [
            (
                r.rule,
                r.name,
                r.dice,
                exact(r.bonus),
                r.comparison,
                exact(r.target),
                exact(r.probability),
                r.needed,
                r.automatic,
                {k: exact(v) for k, v in r.outcomes.items()},
                {k: exact(v) for k, v in r.margins.items()},
                {k: exact(v) for k, v in r.totals.items()},
                {k: exact(v) for k, v in r.successes.items()},
                [(c.outcome, c.text, exact(c.probability), c.stat, exact(c.value)) for c in r.consequences],
                dict(r.effects),
                tuple(r.notes),
            )
            for r in resolution.rolls
        ],
        "restrictions": [(x.rule, x.what) for x in resolution.restrictions],
        # a note on an input given to no effect comes from the generated module's trace alone
        "notes": [(x.rule, x.kind, x.text, x.quote) for x in resolution.notes if x.kind != "input"],
        "tables": [
            (
                x.name,
                x.dice,
                {k: exact(v) for k, v in x.keys.items()},
                x.result,
                None if x.selected is None else (x.selected.key, {k: exact(v) for k, v in x.selected.values.items()}),
                [(row.key, exact(row.probability), {k: exact(v) for k, v in row.values.items()}) for row in x.rows],
            )
            for x in resolution.tables
        ],
    }


def compare(book: m.Book, module: ModuleType, names: Sequence[str], given: dict[str, Any], tally: Tally) -> None:
    """Resolve both ways; record a mismatch (with the situation) in `tally`."""
    tally.situations += 1
    as_module = {k: (str(v) if isinstance(v, Dice) else v) for k, v in given.items()}
    try:
        generated: Any = module.resolve(list(names), **as_module)
    except module.RuleInputError as error:
        generated = error
    try:
        reference: Any = reference_resolve(book, names, dict(given))
    except NoValue as error:
        reference = error
    if isinstance(generated, Exception) or isinstance(reference, Exception):
        if isinstance(generated, Exception) and isinstance(reference, Exception):
            tally.refused += 1
            return
        tally.mismatches.append(f"{book.name} {list(names)} {given}: generated {generated!r}, reference {reference!r}")
        return
    ours, theirs = projection(generated), projection(reference)
    if ours != theirs:
        differing = [k for k in ours if ours[k] != theirs[k]]
        detail = "; ".join(f"{k}: generated {ours[k]} / reference {theirs[k]}" for k in differing)
        tally.mismatches.append(f"{book.name} {list(names)} {given}: {detail}")
