"""Random situations, resolved by a generated module and by the reference resolver, compared
whole: every field of the Resolution, the trace, chains and sequences included.

Shared by tests/semantics/test_semantics.py (a few thousand situations per rulebook in CI) and
tests/soak/differential.py (a million, with figures printed)."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import ModuleType
from typing import Any

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.model.exprs import walk
from dsl.runtime.dice import DIE_LADDER, Dice
from dsl.semantics import NoValue
from dsl.semantics.reference import resolve as reference_resolve
from dsl.semantics.reference import resolve_over_rounds as reference_over_rounds


@dataclass
class Tally:
    situations: int = 0
    refused: int = 0  # both refused the situation (e.g. a lookup with no row): agreed
    bounded: int = 0  # the resolver refused work past its documented bounds (the reference has none)
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
        default = var.default
        if isinstance(default, Dice) and default.terms and not default.bonus and rng.random() < 0.8:
            # the shape of the default, other sizes: a die whose size is a value (a trait die)
            return Dice(tuple((count, rng.choice(DIE_LADDER)) for count, _ in default.terms))
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


def drawn(book: m.Book, count: int, rng: random.Random) -> Iterator[tuple[list[str], dict[str, Any], int | None]]:
    """`count` situations of a book, as the differential tests draw them: every rule and table in
    turn, a rule with a sequence over a few rounds half the time, else now and then with a few
    other rules applied together (stacking and composition across rules)."""
    texts = texts_of(book)
    names = [*book.rules, *book.tables]
    for index in range(count):
        chosen = [names[index % len(names)]]
        rounds = None
        rule = book.rules.get(chosen[0])
        if rule is not None and rule.sequence is not None and rng.random() < 0.5:
            rounds = rng.randint(1, 6)
        elif rng.random() < 0.25:
            chosen += rng.sample(names, rng.randint(1, min(3, len(names))))
        situation = random_situation(book, chosen, rng, texts)
        yield list(dict.fromkeys(chosen)), situation, rounds


def _roll_range(pool: n.Pool | None) -> tuple[int, int]:
    assert pool is not None
    return (1, pool.sides) if pool.keep else (pool.count, pool.count * pool.sides)


def projection(resolution: Any) -> dict[str, Any]:
    """What a resolution says: all of it, as an app reads it (`to_dict`: the stats, modifiers in
    order, rolls, texts, tables, the trace, the chains and the sequence)."""
    data: dict[str, Any] = resolution.to_dict()
    return data


def compare(
    book: m.Book, module: ModuleType, names: Sequence[str], given: dict[str, Any], tally: Tally, rounds: int | None = None
) -> None:
    """Resolve both ways (over `rounds` rounds, for a rule with a sequence); record a mismatch
    (with the situation) in `tally`."""
    tally.situations += 1
    as_module = {k: (str(v) if isinstance(v, Dice) else v) for k, v in given.items()}
    try:
        if rounds is None:
            generated: Any = module.resolve(list(names), **as_module)
        else:
            generated = module.resolve(list(names), rounds=rounds, **as_module)
    except module.RuleInputError as error:
        if "more than a resolver works out exactly" in str(error):
            tally.bounded += 1  # past a resolver's stated budget: the reference has none to compare
            return
        generated = error
    try:
        if rounds is None:
            reference: Any = reference_resolve(book, names, dict(given))
        else:
            reference = reference_over_rounds(book, names, dict(given), rounds)
    except NoValue as error:
        reference = error
    if isinstance(generated, Exception) or isinstance(reference, Exception):
        if isinstance(generated, Exception) and isinstance(reference, Exception):
            tally.refused += 1
            return
        over = f" over {rounds} rounds" if rounds else ""
        tally.mismatches.append(f"{book.name} {list(names)}{over} {given}: generated {generated!r}, reference {reference!r}")
        return
    ours, theirs = projection(generated), projection(reference)
    if ours != theirs:
        differing = [k for k in ours if ours[k] != theirs[k]]
        detail = "; ".join(f"{k}: generated {ours[k]} / reference {theirs[k]}" for k in differing)
        tally.mismatches.append(f"{book.name} {list(names)} {given}: {detail}")
