"""Rolling a situation: every roll it calls for, and every table it rolls on, rolled from a seed
(`rng=`) or told as rolled elsewhere (`rolled=`), with what came of each: the dice, the total, the
tier and outcome, the margin and the consequences that come, beside the exact chances.

A roll's outcome is decided as its chances count it (rolls.py), die by die instead of total by
total: the first tier that holds (a `natural` tier reads the dice alone or a named die's first
face), then success by the tier's `always` or by the comparison; a count meets the target die by
die; an opposed roll compares the two sides' totals, a tie going as the roll says.  So over many
seeds the outcomes come up as often as the chances say (tests/runtime/test_rolling_chances.py
counts them).

Each table rolled on dice gets its own roll (a `roll` input would select the rows of all): its
row, trace entry and chain are those the situation resolved with `roll` at its total reports.
Rolled from a seed, the generator goes in one order, the same in every runtime: the tables of
the situation in the order named, each followed by the chain its row sends on to (depth first:
each step of a row, in the order written, rolled to its end before the next; the two rolls of a
`roll twice` one after the other), then its rolls in the order the resolution lists them, each
followed by the chain the outcome that came up sends on to (`on fumble: ... then roll
light_damage`: each step of each such outcome, in the order written, rolled as a row's steps
are); a roll or table whose result is told takes no face from it.  A chain is rolled as chains.py counts it:
a chained roll is the table's dice plus the step's `+N`, a roll-twice row met by one of the two
rolls of a roll twice is rolled again; a chain that is still rolling after MAX_CHAINED_ROLLS
rolls is refused (its table can send on for ever).  A table of a chain is told by its name: one
list of faces for every roll the chain makes on it, first roll first, or a total when it is
rolled once; with no generator, the chain stops at a table not told.  A roll is told by its name (`rule.name`
when two rules of the situation have a roll of that name), as faces (a list, in the order its
dice take them, throws.py) or as a total (a number: what the dice show, before the roll adds its
bonus; for a count, the dice that met the target).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Final, cast

from .base import HugeNumber, RuleInputError, as_number, clip, shown, whole
from .book import Book, Scope
from .chains import chains_of, parse_step
from .dice import MAX_COMBINATIONS, Dice, pool_dice
from .pools import showing_within, within_faces
from .resolve import resolve_with
from .results import (
    ChainRoll,
    Consequence,
    DiceRoll,
    Resolution,
    Roll,
    RollMade,
    TableResult,
    TableRow,
    TraceEntry,
)
from .rolls import meets
from .specs import TierSpec, counts_dice, natural_names
from .tables import sends_on, table_result
from .throws import FaceSource, GeneratedFaces, ThrownDice, ToldFaces, throw_dice

MAX_CHAINED_ROLLS: Final = 1_000
"""The most rolls one rolled chain makes: `roll again` rows can send on for ever."""


def resolve_rolling(
    book: Book,
    names: str | Sequence[str],
    given: Mapping[str, object],
    rng: object,
    rolled: object,
    resolve: Callable[[Mapping[str, object]], Resolution],
) -> Resolution:
    """The situation resolved by `resolve` (on `given`), then rolled: its tables and rolls from
    `rng` (a seed or a random.Random; None: only what `rolled` tells), or as `rolled` tells."""
    generated = GeneratedFaces(rng) if rng is not None else None
    told = told_results(rolled)
    chosen = [names] if isinstance(names, str) else list(names) if isinstance(names, Sequence) else []
    tables = [name for name in dict.fromkeys(chosen) if isinstance(name, str) and name in book.tables]
    on_dice = [name for name in tables if book.tables[name].pool is not None]
    to_roll = [name for name in on_dice if name in told or (generated is not None and "roll" not in given)]
    if to_roll and "roll" in given:
        raise RuleInputError(
            f"`roll` selects the rows of {', '.join(on_dice)}, and {', '.join(to_roll)} is told: give one or the other"
        )
    chained_told = _ToldTables(book, told)
    resolution = resolve(given)
    for name in to_roll:
        spec = book.tables[name]
        assert spec.pool is not None
        dice = pool_dice(*spec.pool)
        thrown = chained_told.throw(name, dice) if chained_told.has(name) else throw_dice(dice, _generated(generated))
        side = _thrown_side(dice, 0, thrown)
        resolution = _by_its_roll(book, resolution, name, side.dice_total)
        index = next(i for i, t in enumerate(resolution.tables) if t.name == name)
        table = resolution.tables[index]
        table = replace(
            table,
            rolled=_table_side(book, table, side),
            chained=_roll_chain(book, resolution, table, chained_told, generated),
        )
        resolution = replace(resolution, tables=(*resolution.tables[:index], table, *resolution.tables[index + 1 :]))
    if len(to_roll) == 1:  # as the situation resolved with `roll` lists its inputs
        rolled_table = next(t for t in resolution.tables if t.name == to_roll[0])
        assert rolled_table.rolled is not None
        resolution = replace(resolution, inputs={**resolution.inputs, "roll": rolled_table.rolled.dice_total})
    rolls = list(resolution.rolls)
    places = _places(rolls, told, tables)
    results: list[Roll] = []
    for index, roll in enumerate(rolls):
        said = places.get(index)
        if said is None and generated is None:
            results.append(roll)
            continue
        made = _roll_made(roll, said, generated)
        made = replace(made, chained=_outcome_chain(book, resolution, roll, made, chained_told, generated))
        results.append(replace(roll, rolled=made))
    chained_told.finish()
    return replace(resolution, rolls=tuple(results))


def _by_its_roll(book: Book, resolution: Resolution, name: str, total: int) -> Resolution:
    """The situation with table `name`'s row selected by its own roll, `total` (each table rolled
    on dice has its own roll; a `roll` input would select the rows of all): its result, its trace
    entry and the chain its row starts, as the situation resolved with `roll` reports them."""
    spec = book.tables[name]
    index = next(i for i, t in enumerate(resolution.tables) if t.name == name)
    scope = Scope(
        book,
        {**resolution.inputs, **resolution.tables[index].keys, "roll": total},
        {**resolution.stats, **resolution.derived},
        [],
    )
    table = table_result(scope, spec)
    trace = tuple(scope.trace[0] if _unrolled(entry, name) else entry for entry in resolution.trace)
    chains = list(resolution.chains)
    if sends_on(spec):
        at = next(i for i, chain in enumerate(chains) if chain.rule == name)
        chains[at : at + 1] = chains_of(scope, (), (table,))
    tables = (*resolution.tables[:index], table, *resolution.tables[index + 1 :])
    return replace(resolution, tables=tables, trace=trace, chains=tuple(chains))


def _unrolled(entry: TraceEntry, table: str) -> bool:
    """The trace entry of `table` resolved with no roll given (every row with its chance)."""
    return entry.spec.rule == table and entry.spec.clauses == ("no roll given",)


def roll_rule(book: Book, name: str, told: tuple[object, ...], rng: object, rolled: object) -> Resolution:
    """A rule's own function rolling (`rng=`, `rolled=`): its inputs `told` in the order of its
    reads, as `resolve_rule` takes them (None for a default worked out from others)."""
    given = {key: value for key, value in zip(book.rules[name].reads, told, strict=True)}
    return resolve_rolling(
        book, (name,), given, rng, rolled, lambda inputs: resolve_with(book, (name,), inputs, signature=True)
    )


def roll_dice(name: str, dice: Dice, said: object, rng: object) -> DiceRoll:
    """A dice value rolled from `rng` (a Xoshiro128 or random.Random, kept by the caller to roll
    on from), or as `said` tells it (faces or a total, as a roll is told)."""
    if said is None:
        return _thrown_side(dice, 0, throw_dice(dice, GeneratedFaces(rng)))
    if isinstance(said, (list, tuple)):
        faces = _faces(name, said)
        thrown = throw_dice(dice, faces)
        faces.finish()
        return _thrown_side(dice, 0, thrown)
    return _thrown_side(dice, 0, _total_told(name, dice, said))


def told_results(rolled: object) -> dict[str, object]:
    """What `rolled=` tells, by name (a RuleInputError when it is not a mapping of names)."""
    if rolled is None:
        return {}
    if not isinstance(rolled, Mapping) or not all(isinstance(key, str) for key in rolled):
        raise RuleInputError(
            f"rolled maps each roll's name to its faces or its total, as in {{'fall': [3, 4, 2]}}, not {shown(rolled)}"
        )
    return dict(rolled)


def _generated(generated: FaceSource | None) -> FaceSource:
    assert generated is not None, "a table is rolled only when told or from a generator"
    return generated


class _ToldTables:
    """The results told for tables rolled on dice (taken out of `told`): each table's faces, one
    list for every roll made on it, first roll first, or a total for a table rolled once."""

    def __init__(self, book: Book, told: dict[str, object]) -> None:
        names = [key for key in told if key in book.tables and book.tables[key].pool is not None]
        self._said = {name: told.pop(name) for name in names}
        self._faces: dict[str, ToldFaces] = {}
        self._totals_used: set[str] = set()

    def has(self, table: str) -> bool:
        return table in self._said

    def throw(self, table: str, dice: Dice) -> ThrownDice:
        said = self._said[table]
        if said is None or isinstance(said, (list, tuple)):
            faces = self._faces.get(table)
            if faces is None:
                faces = self._faces[table] = _faces(table, said)
            return throw_dice(dice, faces)
        if table in self._totals_used:
            raise RuleInputError(
                f"{table}: the chain rolls on it again; tell its faces, every roll's in order, not one total"
            )
        self._totals_used.add(table)
        return _total_told(table, dice, said)

    def finish(self) -> None:
        """RuleInputError for a table told and not rolled on, or faces left over."""
        for table in self._said:
            if table not in self._faces and table not in self._totals_used:
                raise RuleInputError(f"{table}: told, but the situation does not roll on it")
        for faces in self._faces.values():
            faces.finish()


def _roll_chain(
    book: Book, resolution: Resolution, table: TableResult, told: _ToldTables, generated: FaceSource | None
) -> tuple[ChainRoll, ...]:
    """The rolls the selected row of a rolled table sends on to, depth first (the steps of a row
    in the order written, each rolled to its end), from `told` or `generated`."""
    if table.selected is None:
        return ()
    spec = book.tables[table.name]
    offset = spec.sign * int(cast(int, table.keys[spec.modifier])) if spec.modifier else 0
    pending = _children(table.name, offset, table.selected.steps, 1)
    return _rolled_on(book, resolution, f"table {table.name}", pending, told, generated)


def _outcome_chain(
    book: Book, resolution: Resolution, roll: Roll, made: RollMade, told: _ToldTables, generated: FaceSource | None
) -> tuple[ChainRoll, ...]:
    """The rolls the outcomes that came up send on to (`on fumble: ... then roll light_damage`):
    each step of each outcome that came, in the order written (the roll's own rule first, then
    the rules merged into it), rolled depth first as a table's chain is."""
    steps = tuple(
        step for asking in (roll, *roll.merged) for outcome, step in asking.spec.steps if outcome in made.outcomes
    )
    pending = _children("", 0, steps, 1)
    return _rolled_on(book, resolution, f"roll {roll.spec.name}", pending, told, generated)


def _rolled_on(
    book: Book,
    resolution: Resolution,
    origin: str,
    pending: list[tuple[str, int, bool, int]],
    told: _ToldTables,
    generated: FaceSource | None,
) -> tuple[ChainRoll, ...]:
    """Roll the chain `pending` starts (a stack: the first to roll last), depth first."""
    scope = Scope(book, dict(resolution.inputs), {**resolution.stats, **resolution.derived}, [])
    made: list[ChainRoll] = []
    while pending:
        name, modifier, twice, depth = pending.pop()
        if not told.has(name) and generated is None:
            continue  # nothing told for it, nothing to roll it with: the chain stops here
        if len(made) >= MAX_CHAINED_ROLLS:
            raise RuleInputError(f"the chain from {origin} was still rolling after {MAX_CHAINED_ROLLS:,} rolls")
        chained = book.tables[name]
        assert chained.pool is not None
        dice = pool_dice(*chained.pool)
        thrown = told.throw(name, dice) if told.has(name) else throw_dice(dice, _generated(generated))
        result = thrown.total + modifier
        steps: tuple[str, ...] = ()
        if chained.above is not None and chained.becomes is not None and result > chained.above:
            result = chained.becomes
            steps = (chained.overflow_step,) if chained.overflow_step else ()
        row = chained.row_for((result,))
        assert row is not None, "the checker proves every reachable total has a row"
        steps = row.steps + steps
        parsed = [parse_step(step, name) for step in steps]
        again = twice and any(is_twice for _, _, is_twice in parsed)
        applies = not again and (not parsed or any(t == name and not w for t, _, w in parsed))
        values = {
            column: whole(cell(scope) if callable(cell) else cell)
            for column, cell in zip(chained.columns, row.cells, strict=True)
        }
        side = _thrown_side(dice, modifier, thrown)
        made.append(ChainRoll(name, depth, side, int(result), TableRow(row.key, values, steps, None), applies, again))
        if again:
            pending.append((name, modifier, True, depth))
        else:
            pending += _children(name, modifier, steps, depth + 1)
    return tuple(made)


def _children(table: str, offset: int, steps: tuple[str, ...], depth: int) -> list[tuple[str, int, bool, int]]:
    """The rolls a row's steps send on to, as a stack (the first to roll last): `roll twice`
    rolls the table twice with the modifier of the roll that met it."""
    rolls: list[tuple[str, int, bool, int]] = []
    for target, modifier, twice in (parse_step(step, table) for step in steps):
        rolls += [(target, offset, True, depth)] * 2 if twice else [(target, modifier, False, depth)]
    return rolls[::-1]


def _table_side(book: Book, table: TableResult, side: DiceRoll) -> DiceRoll:
    """A table's dice with what its modifier adds (`roll d6 + heavy_hit`)."""
    spec = book.tables[table.name]
    if spec.modifier is None:
        return side
    offset = spec.sign * int(cast(int, table.keys[spec.modifier]))
    return replace(side, bonus=offset, total=side.dice_total + offset)


def _places(rolls: list[Roll], told: dict[str, object], tables: list[str]) -> dict[int, object]:
    """Which roll each told result is for (by its name, or `rule.name`)."""
    places: dict[int, object] = {}
    for key, value in told.items():
        rule, _, name = key.rpartition(".")
        found = [i for i, r in enumerate(rolls) if r.spec.name == name and (not rule or rule in r.asked_by)]
        if len(found) > 1:
            rules = ", ".join(f"{rolls[i].spec.rule}.{name}" for i in found)
            raise RuleInputError(f"several rules of the situation have a roll `{clip(name)}`: say which ({rules})")
        if not found:
            called = [f"{r.spec.name}" for r in rolls] + [t for t in tables]
            if key in tables:
                raise RuleInputError(f"`{clip(key)}` is a table looked up by its inputs, not rolled on")
            raise RuleInputError(
                f"no roll `{clip(key)}` in this situation (rolled: {', '.join(called) or 'none'})"
            )
        places[found[0]] = value
    return places


def _roll_made(roll: Roll, said: object, generated: FaceSource | None) -> RollMade:
    """What a roll came to: rolled from `generated`, or as `said` (faces or a total)."""
    spec = roll.spec
    if roll.automatic is not None:
        if said is not None:
            raise RuleInputError(f"{spec.name}: no dice are rolled, it is an automatic {roll.automatic}")
        return _decided(roll, "automatic", (), None, None, (roll.automatic,), roll.automatic == "success")
    plan = roll.plan
    if spec.kind == "opposed":
        if said is not None and not isinstance(said, (list, tuple)):
            raise RuleInputError(f"{spec.name}: an opposed roll is told by the faces of both sides, first side first")
        faces = _faces(spec.name, said) if said is not None else generated
        assert faces is not None
        sides = tuple(_thrown_side(dice, bonus, throw_dice(dice, faces)) for dice, bonus in plan)
        if isinstance(faces, ToldFaces):
            faces.finish()
        first, second = sides[0].total, sides[1].total
        outcome = "win" if first > second else "tie" if first == second else "lose"
        success = outcome == "win" or (outcome == "tie" and spec.ties == "win")
        return _decided(roll, "faces" if said is not None else "rng", sides, None, None, (outcome,), success)
    dice, bonus = plan[0]
    if spec.kind == "count":
        return _count(roll, dice, said, generated)
    if said is None or isinstance(said, (list, tuple)):
        faces = _faces(spec.name, said) if said is not None else generated
        assert faces is not None
        thrown = throw_dice(dice, faces)
        if isinstance(faces, ToldFaces):
            faces.finish()
        source = "faces" if said is not None else "rng"
    else:
        thrown = _total_told(spec.name, dice, said, roll.tiers)
        source = "total"
    side = _thrown_side(dice, bonus, thrown)
    return _checked(roll, source, side, thrown)


def _faces(name: str, said: object) -> ToldFaces:
    if not isinstance(said, (list, tuple)) or not all(type(f) is int for f in said):
        raise RuleInputError(f"{name}: the faces told are whole numbers, as in [3, 4, 2], not {shown(said)}")
    return ToldFaces(name, list(said))


def _thrown_side(dice: Dice, bonus: int | Fraction, thrown: ThrownDice) -> DiceRoll:
    return DiceRoll(str(dice), whole(bonus), thrown.dice, thrown.total, whole(thrown.total + bonus))


def _total_told(name: str, dice: Dice, said: object, tiers: tuple[TierSpec, ...] = ()) -> ThrownDice:
    """A total told: one the dice can show, and one that says what `tiers` read."""
    try:
        number = as_number(said)
    except HugeNumber:
        number = None
    if number is None or number.denominator != 1 or isinstance(said, bool):
        raise RuleInputError(f"{name}: a total told is a whole number (or a list of faces), not {shown(said)}")
    total = number.numerator
    try:
        weights, _ = dice.total_weights(MAX_COMBINATIONS, None if dice.bounded else max(total, dice.lowest))
    except ValueError as error:
        raise RuleInputError(f"{name}: {error}") from None
    if not weights.get(total):
        low, high = min(weights), max(weights)
        reach = f"{low}..{high}" if dice.bounded else f"{low} or more"
        raise RuleInputError(f"{name}: {total} is not a total {dice} can show ({reach})")
    natural = None
    natural_needed = any(t.natural is not None for t in tiers)
    if counts_dice(tiers):
        raise RuleInputError(f"{name}: its outcome reads how many dice show a face; tell the faces, not the total")
    if all(g.plain for g in dice.groups()):
        natural = total - dice.bonus
    elif natural_needed:
        raise RuleInputError(f"{name}: its outcome reads the dice as first rolled; tell the faces, not the total")
    named: dict[str, int] = {}
    if natural_needed and any(g.name is not None for g in dice.groups()):
        raise RuleInputError(f"{name}: its outcome reads a named die; tell the faces, not the total")
    return ThrownDice(total, natural, named, ())


def _count(roll: Roll, dice: Dice, said: object, generated: FaceSource | None) -> RollMade:
    """A count: each die meets the target or not; enough of them is a success."""
    name = roll.spec.name
    op, goal = roll.comparison, roll.target
    assert op is not None and goal is not None and roll.needed is not None
    count = dice.terms[0][0]
    if said is None or isinstance(said, (list, tuple)):
        faces = _faces(name, said) if said is not None else generated
        assert faces is not None
        thrown = throw_dice(dice, faces)
        if isinstance(faces, ToldFaces):
            faces.finish()
        met = tuple(replace(d, kept=meets(d.value, op, goal)) for d in thrown.dice)
        successes = sum(d.kept for d in met)
        sides: tuple[DiceRoll, ...] = (DiceRoll(str(dice), 0, met, successes, successes),)
        source = "faces" if said is not None else "rng"
    else:
        if type(said) is not int or not 0 <= said <= count:
            raise RuleInputError(f"{name}: the dice that met the target are a whole number from 0 to {count}, not {shown(said)}")
        successes, sides, source = said, (), "total"
    success = successes >= roll.needed
    return _decided(roll, source, sides, successes, None, ("success" if success else "failure",), success)


def _natural(name: str, side: DiceRoll, thrown: ThrownDice, die: str | None) -> int:
    """The first face of the die named `die` (None: the dice alone), as thrown; for a count
    (`showing 6`), how many of the dice thrown show it, kept or not."""
    within = showing_within(die)
    if within is not None:
        return sum(within_faces(d.value, within) for d in thrown.dice)
    natural = thrown.natural if die is None else thrown.named.get(die)
    if natural is None:
        raise RuleInputError(f"{name}: the natural result of {side.dice} is not defined")
    return natural


def _checked(roll: Roll, source: str, side: DiceRoll, thrown: ThrownDice) -> RollMade:
    """A roll of one side: its tier (the first that holds), success, margin."""
    spec = roll.spec
    total = side.total
    goal, op = roll.target, roll.comparison
    chosen = None
    for tier in roll.tiers:
        if tier.natural is not None:
            names = natural_names((tier,))
            holds = tier.shows(names, [_natural(spec.name, side, thrown, die) for die in names])
        elif tier.op in ("<=", ">=") and tier.bound is not None:
            bound = tier.bound(goal if goal is not None else 0)
            holds = total <= bound if tier.op == "<=" else total >= bound
        else:
            holds = True
        if holds:
            chosen = tier
            break
    if spec.kind == "total" or op is None or goal is None:
        outcomes = (chosen.name,) if chosen is not None else ()
        return _decided(roll, source, (side,), total, None, outcomes, None)
    won = chosen.always == "success" if chosen is not None and chosen.always else meets(total, op, goal)
    named = {tier.name for tier in roll.tiers}
    plain = "success" if won else "failure"
    found = ((chosen.name,) if chosen is not None else ()) + ((plain,) if plain not in named else ())
    margin = abs(math.floor(total - goal)) if total >= goal else math.ceil(goal - total)
    return _decided(roll, source, (side,), total, margin, found, won)


def _decided(
    roll: Roll,
    source: str,
    sides: tuple[DiceRoll, ...],
    total: int | Fraction | None,
    margin: int | None,
    outcomes: tuple[str, ...],
    success: bool | None,
) -> RollMade:
    """The result, with the consequences and effects of its outcomes (of every rule that asked for it)."""
    consequences: list[Consequence] = []
    effects: list[str] = []
    for asking in (roll, *roll.merged):
        consequences += [c for c in asking.consequences if c.outcome in outcomes]
        effects += [asking.spec.outcomes[o] for o in outcomes if o in asking.spec.outcomes]
    outcome = outcomes[0] if outcomes else "none"
    return RollMade(source, sides, total, margin, outcome, outcomes, success, tuple(consequences), tuple(effects))


