"""The chains of a situation, worked out from the model (docs/language.md, "Chains").

A chain is the whole procedure from one roll to the end: a rolled table whose rows send on, a
row given that does, or a roll's outcome that sends to a table.  Written here from the rules, in
plain recursion over the model's tables: a chained roll is its table's dice plus the step's
`+N` (the table's own modifier input is the first roll's only); `roll twice` rolls the same
table twice and rolls again a roll-twice row met by one of the two; a row that only sends on is
a pointer, every other row applies and its number columns add up; every way is listed to the
depth the chain is listed to (its tables' `chain depth`, 4 rolls in a row when it can repeat,
every way when it cannot; fewer while that follows more than CHAIN_PATHS paths, counted as the
runtime counts them), the rest is one chance, `beyond`; the expected rolls, visits and totals
are the solution of y = e + M^T y over the rolls it comes to; the flow shows each roll once per
route, to the depth that fits CHAIN_FLOW lines.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

from dsl import model as m
from dsl.runtime.base import RuleInputError, show, whole
from dsl.runtime.chains import CHAIN_DEPTH, CHAIN_FLOW, CHAIN_PATHS, CHAIN_ROLLS
from dsl.runtime.dice import Distribution, Value, distribution, pool_text
from dsl.runtime.results import Chain, ChainOutcome, ChainStep, FlowStep, Roll, TableResult

State = tuple[str, int, bool]
"""A roll of a chain: the table, the modifier of its roll, drawn for a roll twice."""


@dataclass(frozen=True)
class Draw:
    """A row one roll of a table can give, with its chance on that roll."""

    probability: Fraction
    step: ChainStep
    children: tuple[State, ...]
    values: Mapping[str, int | Fraction]


Way = tuple[tuple[ChainStep, ...], Fraction, dict[str, int | Fraction]]


class Chains:
    """The chains of one situation: `cell` gives a table cell's value in it."""

    def __init__(self, book: m.Book, cell: Callable[[m.TableCell], Value]) -> None:
        self.book = book
        self.cell = cell
        self.known: dict[State, list[Draw]] = {}

    # -- one roll

    def draws(self, state: State) -> list[Draw]:
        """The rows of a roll, each with its chance (a roll twice's without its roll-twice rows,
        the others' chances scaled up to 1), in the order the dice first reach them."""
        found = self.known.get(state)
        if found is not None:
            return found
        name, offset, for_twice = state
        table = self.book.tables[name]
        pool = table.pool
        assert pool is not None
        dist = _distribution(pool.count, pool.sides, pool.keep)
        roll = pool_text((pool.count, pool.sides, pool.keep), short=True)
        if offset:
            roll += f" {'+' if offset > 0 else '-'} {abs(offset)}"
        chances: dict[tuple[int, bool], Fraction] = {}
        for total in range(dist.low, dist.high + 1):
            chance = dist.between_p(total, total)
            if not chance:
                continue
            value = total + offset
            folded = table.overflow is not None and value > table.overflow.above
            if folded:
                assert table.overflow is not None
                value = table.overflow.becomes
            row = _row(table, value)
            if row is not None:
                index = table.rows.index(row)
                chances[(index, folded)] = chances.get((index, folded), Fraction(0)) + chance
        draws: list[Draw] = []
        for (index, folded), chance in chances.items():
            row = table.rows[index]
            steps = [c.step for c in row.cells if c.step is not None]
            if folded and table.overflow is not None and table.overflow.step is not None:
                steps.append(table.overflow.step)
            if for_twice and any(step.kind == "twice" for step in steps):
                continue  # rolled again: a roll twice gives two other rows
            children: list[State] = []
            for step in steps:
                if step.kind == "twice":
                    children += [(name, offset, True), (name, offset, True)]
                else:
                    children.append((_target(step, name), step.offset, False))
            applies = not steps or any(step.kind != "twice" and _target(step, name) == name for step in steps)
            draws.append(_draw(self, table, row, steps, folded, roll, applies, chance, tuple(children)))
        kept = sum((d.probability for d in draws), Fraction(0))
        found = self.known[state] = [Draw(d.probability / kept, d.step, d.children, d.values) for d in draws]
        return found

    # -- a whole chain

    def chain(
        self,
        rule: str,
        start: str,
        chance: Fraction,
        state: State,
        given: tuple[m.TableRow, Mapping[str, Value], tuple[m.Step, ...]] | None = None,
    ) -> Chain:
        """The chain from a roll of a table (or from a row given, with its values and steps),
        reached with `chance`."""
        if given is None:
            starts = [state]
            depth = 0
            lead: list[FlowStep] = []
        else:
            row, values, steps = given
            starts = []
            for step in steps:
                if step.kind == "twice":
                    starts += [(state[0], state[1], True)] * 2
                else:
                    starts.append((_target(step, state[0]), step.offset, False))
            depth = 1
            applies = any(step.kind != "twice" and _target(step, state[0]) == state[0] for step in steps)
            text = ", ".join(show(v) for v in values.values() if v != "")
            then = tuple(_step_text(step) for step in steps)
            head = ChainStep(state[0], "given", row.key_text(), text, then, applies, 0)
            lead = [FlowStep(0, head.table, head.roll, head.key, head.text, Fraction(1), Fraction(1), then, False)]
        rolls = self.rolls_from(starts)
        if len(rolls) > CHAIN_ROLLS:
            raise RuleInputError(
                f"the chain from table {starts[0][0]} comes to {len(rolls):,} different rolls (tables and"
                f" modifiers); a resolver works out chains of at most {CHAIN_ROLLS}"
            )
        cyclic = self.cyclic(rolls)
        limit = self.listed_depth(starts, depth, rolls, cyclic)
        if given is None:
            ways, beyond = self.ways(state, 0, limit)
        else:
            found: dict[tuple[ChainStep, ...], Way] = {}
            numbers = {
                k: v for k, v in given[1].items() if head.applies and isinstance(v, (int, Fraction)) and not isinstance(v, bool)
            }
            beyond = self.branch(Fraction(1), head, numbers, tuple(starts), limit, found)
            ways = list(found.values())
        expected, visits, means = self.expected(rolls, starts)
        outcomes = tuple(
            ChainOutcome(path, p * chance, MappingProxyType(totals)) for path, p, totals in sorted(ways, key=lambda w: -w[1])
        )
        flow = [
            FlowStep(s.depth, s.table, s.roll, s.key, s.text, s.chance, s.reach * chance, s.then, s.repeats, s.twice, s.cut)
            for s in self.flow(starts, lead)
        ]
        return Chain(
            rule=rule,
            start=start,
            probability=chance,
            outcomes=outcomes,
            complete=limit is None,
            depth=limit,
            beyond=beyond * chance,
            rolls=expected,
            visits=MappingProxyType(visits),
            means=MappingProxyType(means),
            flow=tuple(flow),
        )

    def stated(self, rolls: Sequence[State]) -> int | None:
        """The deepest `chain depth` the tables of these rolls state."""
        return max((d for d in (self.book.tables[s[0]].chain_depth for s in rolls) if d is not None), default=None)

    def rolls_from(self, starts: Sequence[State]) -> list[State]:
        """Every roll the chain can come to."""
        found: list[State] = []
        pending = list(starts)
        while pending:
            state = pending.pop()
            if state not in found:
                found.append(state)
                pending += [c for d in self.draws(state) for c in d.children]
        return found

    def cyclic(self, rolls: Sequence[State]) -> bool:
        """Whether some roll can come back to itself: a roll that no other remaining roll leads
        to is peeled off, again and again; what is left is a cycle."""
        left = set(rolls)
        while True:
            reached = {c for s in left for d in self.draws(s) for c in d.children if c in left}
            peeled = left - reached
            if not peeled:
                return bool(left)
            left = reached

    def listed_depth(self, starts: Sequence[State], depth: int, rolls: Sequence[State], cyclic: bool) -> int | None:
        """The number of rolls in a row the ways are listed to (None: all of them)."""
        if not cyclic:
            if self.paths(starts, depth, None) <= CHAIN_PATHS:
                return None
            deepest = depth + self.longest(starts)
        else:
            deepest = self.stated(rolls) or CHAIN_DEPTH
        for limit in range(deepest, depth + 1, -1):  # the deepest that fits
            if self.paths(starts, depth, limit) <= CHAIN_PATHS:
                return limit
        return depth + 1  # the rolls of the starts alone

    def paths(self, starts: Sequence[State], depth: int, limit: int | None) -> int:
        """The paths listing follows to `limit` rolls in a row: every way it lists and every
        partial way it follows (the starts rolled together count as one more)."""

        known: dict[tuple[State, int], tuple[int, int]] = {}

        def count(state: State, at: int) -> tuple[int, int]:
            if limit is not None and at >= limit:
                return 0, 1
            key = (state, at if limit is not None else 0)  # without a limit, the same at any depth
            if key in known:
                return known[key]
            ways, followed = 0, 1
            for draw in self.draws(state):
                combos = 1
                for child in draw.children:
                    listed, more = count(child, at + 1)
                    combos *= listed
                    followed += more
                ways += combos
                followed += combos
            known[key] = (ways, followed)
            return ways, followed

        combos, followed = 1, 1
        for start in starts:
            listed, more = count(start, depth)
            combos *= listed
            followed += more
        return followed + combos

    def longest(self, starts: Sequence[State]) -> int:
        known: dict[State, int] = {}

        def longest(state: State) -> int:
            if state not in known:
                known[state] = 1 + max((longest(c) for d in self.draws(state) for c in d.children), default=0)
            return known[state]

        return max((longest(s) for s in starts), default=0)

    def ways(self, state: State, depth: int, limit: int | None) -> tuple[list[Way], Fraction]:
        """Every way a roll goes on, to `limit` rolls in a row, and the chance of the rest."""
        if limit is not None and depth >= limit:
            return [], Fraction(1)
        out: dict[tuple[ChainStep, ...], Way] = {}
        beyond = Fraction(0)
        for draw in self.draws(state):
            s = draw.step
            step = ChainStep(s.table, s.roll, s.key, s.text, s.then, s.applies, depth)
            beyond += self.branch(draw.probability, step, draw.values, draw.children, limit, out)
        return list(out.values()), beyond

    def branch(
        self,
        chance: Fraction,
        step: ChainStep,
        values: Mapping[str, int | Fraction],
        children: tuple[State, ...],
        limit: int | None,
        out: dict[tuple[ChainStep, ...], Way],
    ) -> Fraction:
        """Every way a row reached with `chance` goes on, into `out`; the chance left out."""
        branches = [self.ways(child, step.depth + 1, limit) for child in children]
        listed = Fraction(1)
        for _, rest in branches:
            listed *= 1 - rest
        combos: list[tuple[list[Way], Fraction]] = [([], chance)]
        for ways, _ in branches:
            combos = [([*done, way], p * way[1]) for done, p in combos for way in ways]
        twice = len(children) == 2 and children[0] == children[1]
        for parts, p in combos:
            if twice:  # the two rolls of a roll twice are one outcome whatever their order
                parts = sorted(parts, key=lambda way: [(s.table, s.key) for s in way[0]])
            path = (step, *[s for way in parts for s in way[0]])
            totals: dict[str, int | Fraction] = dict(values)
            for way in parts:
                for column, value in way[2].items():
                    totals[column] = totals.get(column, 0) + value
            previous = out.get(path)
            out[path] = (path, p + (previous[1] if previous else 0), totals)
        return chance * (1 - listed)

    def expected(
        self, rolls: list[State], starts: Sequence[State]
    ) -> tuple[Fraction | None, dict[str, Fraction], dict[str, Fraction]]:
        """How many times each roll is made on average, y = e + M^T y (M: the chance a roll leads
        to another, twice for a roll twice; e: the starts), by elimination over fractions; the
        expected rolls, visits of each row and column totals follow.  No finite solution, or a
        negative one: the procedure need not end."""
        index = {s: i for i, s in enumerate(rolls)}
        size = len(rolls)
        rows = [[Fraction(int(i == j)) for j in range(size)] + [Fraction(0)] for i in range(size)]
        for state in starts:
            rows[index[state]][size] += 1
        for state in rolls:
            for draw in self.draws(state):
                for child in draw.children:
                    rows[index[child]][index[state]] -= draw.probability
        for column in range(size):
            pivot = next((r for r in range(column, size) if rows[r][column] != 0), None)
            if pivot is None:
                return None, {}, {}
            rows[column], rows[pivot] = rows[pivot], rows[column]
            lead = rows[column][column]
            rows[column] = [x / lead for x in rows[column]]
            for r in range(size):
                if r != column and rows[r][column] != 0:
                    factor = rows[r][column]
                    rows[r] = [a - factor * b for a, b in zip(rows[r], rows[column], strict=True)]
        made = [row[size] for row in rows]
        if any(y < 0 for y in made):
            return None, {}, {}
        visits: dict[str, Fraction] = {}
        means: dict[str, Fraction] = {}
        for state, times in zip(rolls, made, strict=True):
            for draw in self.draws(state):
                label = f"{draw.step.table} {draw.step.key}"
                visits[label] = visits.get(label, Fraction(0)) + times * draw.probability
                for name, value in draw.values.items():
                    means[name] = means.get(name, Fraction(0)) + times * draw.probability * value
        return sum(made, Fraction(0)), {k: v for k, v in visits.items() if v}, means

    def flow(self, starts: Sequence[State], lead: list[FlowStep]) -> list[FlowStep]:
        """Each roll once per route, its rows with their chances, to the deepest level that fits
        CHAIN_FLOW lines (the rows of the deepest rolls shown that lead on marked `cut`)."""
        top = len(lead)
        deepest: int | None = None
        if self.lines(starts, (), top, None) > CHAIN_FLOW:
            deepest = top
            while deepest < top + CHAIN_ROLLS and self.lines(starts, (), top, deepest + 1) <= CHAIN_FLOW:
                deepest += 1
        out = list(lead)
        self.write_flow(starts, top, Fraction(1), (), out, deepest)
        return out

    def lines(self, states: Sequence[State], route: tuple[State, ...], depth: int, deepest: int | None) -> int:
        count = 0
        for state in dict.fromkeys(states):
            for draw in self.draws(state):
                count += 1
                if count > CHAIN_FLOW:
                    return count
                repeats = any(c in route or c == state for c in draw.children)
                if not repeats and draw.children and (deepest is None or depth < deepest):
                    count += self.lines(draw.children, (*route, state), depth + 1, deepest)
                    if count > CHAIN_FLOW:
                        return count
        return count

    def write_flow(
        self,
        states: Sequence[State],
        depth: int,
        reach: Fraction,
        route: tuple[State, ...],
        out: list[FlowStep],
        deepest: int | None,
    ) -> None:
        for state in dict.fromkeys(states):  # the two rolls of a roll twice are shown once
            for draw in self.draws(state):
                s = draw.step
                here = reach * draw.probability
                repeats = any(c in route or c == state for c in draw.children)
                cut = not repeats and bool(draw.children) and deepest is not None and depth >= deepest
                out.append(
                    FlowStep(depth, s.table, s.roll, s.key, s.text, draw.probability, here, s.then, repeats, state[2], cut)
                )
                if not repeats and not cut:
                    self.write_flow(draw.children, depth + 1, here, (*route, state), out, deepest)


def chains_of(
    book: m.Book,
    values: Mapping[str, Value],
    cell: Callable[[m.TableCell], Value],
    rolls: Sequence[Roll],
    tables: Sequence[TableResult],
    effects: Mapping[str, m.RollEffect],
) -> tuple[Chain, ...]:
    """The chains a situation starts: from each table named that sends on (its roll, or the row
    given or looked up), and from each roll's outcome that sends on (`effects`: each roll's
    effect, by the key of its spec)."""
    chains = Chains(book, cell)
    found: list[Chain] = []
    for result in tables:
        table = book.tables[result.name]
        if not _sends_on(table):
            continue
        modifier = values[table.modifier] if table.modifier else 0
        assert isinstance(modifier, int)
        offset = table.modifier_sign * modifier
        state = (table.name, offset, False)
        if result.selected is not None:
            row = _selected(table, result)
            steps = tuple(c.step for c in row.cells if c.step is not None)
            if result.selected.steps and table.overflow is not None and len(result.selected.steps) > len(steps):
                assert table.overflow.step is not None
                steps = (*steps, table.overflow.step)
            if steps:
                start = f"table {table.name}, row {result.selected.key}"
                found.append(chains.chain(table.name, start, Fraction(1), state, (row, result.selected.values, steps)))
        elif table.pool is not None:
            found.append(chains.chain(table.name, f"table {table.name} ({result.dice})", Fraction(1), state))
    for roll in rolls:
        effect = effects[roll.spec.key]
        for outcome in effect.outcomes:
            if outcome.step is None:
                continue
            target = outcome.step.table if outcome.step.kind == "roll_on" and outcome.step.table else ""
            chance = roll.outcomes.get(outcome.name, Fraction(0))
            start = f"roll {effect.name}: {outcome.name}"
            found.append(chains.chain(effect.origin, start, chance, (target, outcome.step.offset, False)))
    return tuple(found)


def _draw(
    chains: Chains,
    table: m.Table,
    row: m.TableRow,
    steps: list[m.Step],
    folded: bool,
    roll: str,
    applies: bool,
    chance: Fraction,
    children: tuple[State, ...],
) -> Draw:
    values = [whole(chains.cell(cell)) for cell in row.cells]
    text = ", ".join(show(v) for v in values if v != "")
    key = f"above {table.overflow.above} as {row.key_text()}" if folded and table.overflow else row.key_text()
    then = tuple(_step_text(step) for step in steps)
    numbers = {
        column: value
        for (column, _), value in zip(table.columns, values, strict=True)
        if applies and isinstance(value, (int, Fraction)) and not isinstance(value, bool)
    }
    return Draw(chance, ChainStep(table.name, roll, key, text, then, applies, 0), children, numbers)


def _row(table: m.Table, value: int) -> m.TableRow | None:
    for row in table.rows:
        if row.low is not None and row.low <= value and (row.high is None or value <= row.high):
            return row
    return next((row for row in table.rows if row.is_else), None)


def _selected(table: m.Table, result: TableResult) -> m.TableRow:
    assert result.selected is not None
    return next(row for row in table.rows if row.key_text() == result.selected.key)


def _sends_on(table: m.Table) -> bool:
    return any(c.step is not None for row in table.rows for c in row.cells) or bool(
        table.overflow is not None and table.overflow.step is not None
    )


def _target(step: m.Step, own: str) -> str:
    """The table a step rolls on: its own for `roll again`."""
    return step.table if step.kind == "roll_on" and step.table else own


def _step_text(step: m.Step) -> str:
    offset = f" {step.offset:+d}" if step.offset else ""
    if step.kind == "roll_on":
        return f"roll on {step.table}{offset}"
    if step.kind == "twice":
        return "roll twice on this table"
    return f"roll again{offset}"


_distributions: dict[tuple[int, int, str | None], Distribution] = {}


def _distribution(count: int, sides: int, keep: str | None) -> Distribution:
    key = (count, sides, keep)
    found = _distributions.get(key)
    if found is None:
        found = _distributions[key] = distribution(count, sides, keep)
    return found
