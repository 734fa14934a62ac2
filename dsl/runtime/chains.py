"""Chains: the whole procedure from one roll to the end, with the exact chance of each way it goes.

A table row or a roll's outcome may send the reader on: `then roll TABLE +N`, `then roll twice`,
`then roll again +N`, `above N: as M then roll again`.  The rules (docs/language.md, "Chains"):
- a chained roll on a table is its dice plus the step's modifier (`+N`, or 0): the table's own
  modifier input belongs to the first roll of the situation only;
- `roll twice` rolls the same table twice with the same modifier; a roll-twice row met by one of
  those two rolls is rolled again, so a roll twice gives exactly two other rows (duplicates
  count twice);
- a row that only sends on (`roll on`, `roll twice`) is a pointer; every other row visited
  applies, `roll again` rows included ("apply the results").
Chains without a cycle are listed completely; a chain that can come back to a table it left
(`roll again`) is listed up to CHAIN_DEPTH rolls in a row with the exact chance of the rest, and
its expected number of rolls, expected visits of each row and expected value totals are solved
exactly (an absorbing Markov chain: a linear system over Fractions).

Listing ways costs their number, which grows as rows ** rolls: every chain is held to
CHAIN_PATHS paths, counted before any is listed (`listing_size`), and listed to fewer rolls in
a row when it would take more (the rest is `beyond`); its flow to CHAIN_FLOW lines.  The
closed forms solve one equation per roll a chain can come to: at most CHAIN_ROLLS of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Final

from .base import RuleInputError, show, whole
from .book import Scope
from .dice import Value, pool_text
from .results import Chain, ChainOutcome, ChainStep, FlowStep, Roll, TableResult, TableRow
from .tables import sends_on

CHAIN_DEPTH: Final = 4
"""How many rolls in a row a chain that can repeat is listed to; the rest is one chance."""

CHAIN_PATHS: Final = 20_000
"""The most paths a chain's listing follows (ways listed and partial ways followed), and the
most lines its flow shows: 99 rows that roll again on a d100 make 99 ** 4 ways of four rolls."""

CHAIN_FLOW: Final = 2_000
"""The most lines a chain's flow shows (each roll once per route): deeper rolls are cut."""

CHAIN_ROLLS: Final = 200
"""The most different rolls (table and modifier) one chain can come to: its expectations are a
linear system of that many equations, solved exactly."""

_STEP = re.compile(r"roll on (?P<table>\w+)(?: (?P<on>[+-]\d+))?|roll twice on this table|roll again(?: (?P<again>[+-]\d+))?")

_ChainState = tuple[str, int, bool]  # table, modifier of the roll, drawn for a roll twice


def parse_step(step: str, table: str) -> tuple[str, int, bool]:
    """A row's step as the compiler writes it: (table rolled, its modifier, roll twice)."""
    found = _STEP.fullmatch(step)
    assert found is not None, f"not a step: {step!r}"
    if found["table"] is not None:
        return found["table"], int(found["on"] or 0), False
    if step.startswith("roll twice"):
        return table, 0, True
    return table, int(found["again"] or 0), False


@dataclass(frozen=True, slots=True)
class _Draw:
    """One row of a chained roll: its chance, the step record and the rolls it leads to."""

    probability: Fraction
    step: ChainStep
    children: tuple[_ChainState, ...]
    values: Mapping[str, int | Fraction]


def chain_draws(scope: Scope, state: _ChainState) -> tuple[_Draw, ...]:
    """The rows a roll of a table (with a modifier; for a roll twice, without its roll-twice
    rows) can give, each with its exact chance.  Kept per book: a chain's rolls repeat."""
    book = scope.book
    cache: dict[_ChainState, tuple[_Draw, ...]] = book.chains
    found = cache.get(state)
    if found is not None:
        return found
    name, offset, for_twice = state
    table = book.tables[name]
    assert table.pool is not None
    roll = pool_text(table.pool, short=True) + (f" {'+' if offset > 0 else '-'} {abs(offset)}" if offset else "")
    ways: dict[tuple[int, bool], Fraction] = {}
    for total, chance in book.pool(table.pool).chances().items():
        total += offset
        folded = table.above is not None and table.becomes is not None and total > table.above
        if folded:
            assert table.becomes is not None
            total = table.becomes
        row = table.row_for((total,))
        if row is None:
            continue  # the checker proves every reachable total has a row
        index = table.rows.index(row)
        ways[(index, folded)] = ways.get((index, folded), Fraction(0)) + chance
    draws: list[_Draw] = []
    constant = True
    for (index, folded), chance in ways.items():
        row = table.rows[index]
        steps = row.steps + ((table.overflow_step,) if folded and table.overflow_step else ())
        parsed = [parse_step(step, name) for step in steps]
        if for_twice and any(twice for _, _, twice in parsed):
            continue  # rolled again: a roll twice gives two other rows
        children: list[_ChainState] = []
        for target, modifier, twice in parsed:
            children += [(target, offset, True)] * 2 if twice else [(target, modifier, False)]
        values: list[Value] = []
        for cell in row.cells:
            constant = constant and not callable(cell)
            values.append(whole(cell(scope) if callable(cell) else cell))
        applies = not parsed or any(target == name and not twice for target, _, twice in parsed)
        text = ", ".join(show(v) for v in values if v != "")
        key = f"above {table.above} as {row.key}" if folded else row.key
        numbers = {
            column: value
            for column, value in zip(table.columns, values, strict=True)
            if applies and isinstance(value, (int, Fraction)) and not isinstance(value, bool)
        }
        draws.append(_Draw(chance, ChainStep(name, roll, key, text, steps, applies, 0), tuple(children), numbers))
    kept = sum((d.probability for d in draws), Fraction(0))
    result = tuple(
        _Draw(d.probability / kept, d.step, d.children, d.values) for d in draws
    )  # renormalized: the rows rolled again are left out
    if constant:
        cache[state] = result
    return result


def chain_states(scope: Scope, starts: Sequence[_ChainState]) -> tuple[list[_ChainState], bool]:
    """Every roll a chain can come to, and whether one can come back to itself (a cycle)."""
    order: list[_ChainState] = []
    seen: set[_ChainState] = set()
    stack = list(starts)
    while stack:
        state = stack.pop()
        if state in seen:
            continue
        seen.add(state)
        order.append(state)
        stack.extend(c for d in chain_draws(scope, state) for c in d.children)
    edges = {s: {c for d in chain_draws(scope, s) for c in d.children} for s in order}
    done: set[_ChainState] = set()
    for root in order:  # a depth-first search for a back edge, without recursion
        if root in done:
            continue
        active = {root}
        path: list[tuple[_ChainState, Iterator[_ChainState]]] = [(root, iter(edges[root]))]
        while path:
            state, children = path[-1]
            child = next(children, None)
            if child is None:
                path.pop()
                active.discard(state)
                done.add(state)
            elif child in active:
                return order, True
            elif child not in done:
                active.add(child)
                path.append((child, iter(edges[child])))
    return order, False


def _solve(matrix: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction] | None:
    """Solve matrix @ x = rhs exactly; None when singular."""
    size = len(matrix)
    rows = [[*matrix[i], rhs[i]] for i in range(size)]
    for column in range(size):
        pivot = next((r for r in range(column, size) if rows[r][column] != 0), None)
        if pivot is None:
            return None
        rows[column], rows[pivot] = rows[pivot], rows[column]
        lead = rows[column][column]
        rows[column] = [x / lead for x in rows[column]]
        for r in range(size):
            factor = rows[r][column]
            if r != column and factor != 0:
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[column], strict=True)]
    return [row[size] for row in rows]


def _expected(
    scope: Scope, order: list[_ChainState], starts: Sequence[_ChainState]
) -> tuple[Fraction | None, dict[str, Fraction], dict[str, Fraction]]:
    """Expected number of rolls, visits of each row and total of each value column of the chain
    from `starts` (each rolled once).  With M[s][c] the chance that a roll s leads to a roll c
    (twice for a roll twice), the expected number of times each roll is made is y = e + M^T y,
    e counting the starts: one linear system, whatever the number of rows and columns; each
    expectation is then y summed with the chances of each roll's rows.  A negative or
    unsolvable y is a procedure that need not end."""
    index = {s: i for i, s in enumerate(order)}
    size = len(order)
    matrix = [[Fraction(int(i == j)) for j in range(size)] for i in range(size)]  # (I - M^T)
    rhs = [Fraction(0)] * size
    for state in starts:
        rhs[index[state]] += 1
    for state in order:
        i = index[state]
        for draw in chain_draws(scope, state):
            for child in draw.children:
                matrix[index[child]][i] -= draw.probability
    made = _solve(matrix, rhs)
    if made is None or any(y < 0 for y in made):
        return None, {}, {}  # the procedure need not end: no finite expectation
    visits: dict[str, Fraction] = {}
    means: dict[str, Fraction] = {}
    for state in order:
        times = made[index[state]]
        for draw in chain_draws(scope, state):
            label = f"{draw.step.table} {draw.step.key}"
            visits[label] = visits.get(label, Fraction(0)) + times * draw.probability
            for column, value in draw.values.items():
                means[column] = means.get(column, Fraction(0)) + times * draw.probability * value
    return sum(made, Fraction(0)), {k: v for k, v in visits.items() if v}, means


def listing_size(
    children_of: Callable[[_ChainState], Iterable[tuple[_ChainState, ...]]],
    starts: Sequence[_ChainState],
    depth: int,
    limit: int | None,
) -> int:
    """How many paths listing a chain to `limit` rolls in a row follows (CHAIN_PATHS): the ways
    it lists and the partial ways it follows, counted exactly without following them (each roll
    once at each depth).  `children_of(roll)` gives, for each row of the roll, the rolls the row
    leads to; `starts` are rolled together at `depth`."""
    known: dict[tuple[_ChainState, int], tuple[int, int]] = {}

    def count(state: _ChainState, at: int) -> tuple[int, int]:  # (ways listed, paths followed)
        if limit is not None and at >= limit:
            return 0, 1
        key = (state, at if limit is not None else 0)
        found = known.get(key)
        if found is None:
            ways, paths = 0, 1
            for children in children_of(state):
                combos = 1
                for child in children:
                    listed, followed = count(child, at + 1)
                    combos *= listed
                    paths += followed
                ways += combos
                paths += combos
            found = known[key] = (ways, paths)
        return found

    combos, paths = 1, 1
    for start in starts:
        listed, followed = count(start, depth)
        combos *= listed
        paths += followed
    return paths + combos


def listed_depth(
    children_of: Callable[[_ChainState], Iterable[tuple[_ChainState, ...]]],
    starts: Sequence[_ChainState],
    depth: int,
    cyclic: bool,
    stated: int | None,
) -> int | None:
    """How many rolls in a row a chain is listed to (None: every way): the depth its tables state
    or CHAIN_DEPTH when it can repeat, every way when it cannot; fewer while that follows more
    than CHAIN_PATHS paths, down to the rolls of `starts` alone."""
    if not cyclic:
        if listing_size(children_of, starts, depth, None) <= CHAIN_PATHS:
            return None
        high = depth + _longest(children_of, starts)
    else:
        high = stated or CHAIN_DEPTH
    low = depth + 1
    if high <= low or listing_size(children_of, starts, depth, high) <= CHAIN_PATHS:
        return max(high, low)
    while high - low > 1:  # the size grows with the depth: the deepest that fits
        middle = (low + high) // 2
        if listing_size(children_of, starts, depth, middle) <= CHAIN_PATHS:
            low = middle
        else:
            high = middle
    return low


def _longest(
    children_of: Callable[[_ChainState], Iterable[tuple[_ChainState, ...]]], starts: Sequence[_ChainState]
) -> int:
    """The most rolls in a row from `starts` of a chain that cannot repeat."""
    known: dict[_ChainState, int] = {}

    def longest(state: _ChainState) -> int:
        found = known.get(state)
        if found is None:
            found = known[state] = 1 + max(
                (longest(child) for children in children_of(state) for child in children), default=0
            )
        return found

    return max((longest(start) for start in starts), default=0)


_Way = tuple[tuple[ChainStep, ...], Fraction, dict[str, int | Fraction]]


def _ways(scope: Scope, state: _ChainState, depth: int, limit: int | None) -> tuple[list[_Way], Fraction]:
    """Every way a roll goes on, to `limit` rolls in a row, and the chance of the rest."""
    if limit is not None and depth >= limit:
        return [], Fraction(1)
    out: dict[tuple[ChainStep, ...], _Way] = {}
    beyond = Fraction(0)
    for draw in chain_draws(scope, state):
        step = draw.step
        if depth:
            step = ChainStep(step.table, step.roll, step.key, step.text, step.then, step.applies, depth)
        beyond += _branch(scope, draw.probability, step, draw.values, draw.children, limit, out)
    return list(out.values()), beyond


def _branch(
    scope: Scope,
    chance: Fraction,
    step: ChainStep,
    values: Mapping[str, int | Fraction],
    children: tuple[_ChainState, ...],
    limit: int | None,
    out: dict[tuple[ChainStep, ...], _Way],
) -> Fraction:
    """Add to `out` every way a row visited with `chance` goes on; return the chance left out."""
    branches = [_ways(scope, child, step.depth + 1, limit) for child in children]
    listed = Fraction(1)
    for _, rest in branches:
        listed *= 1 - rest
    combos: list[tuple[list[_Way], Fraction]] = [([], chance)]
    for ways, _ in branches:
        combos = [([*done, way], p * way[1]) for done, p in combos for way in ways]
    twice = len(children) == 2 and children[0] == children[1]
    for parts, p in combos:
        if twice:  # the two rolls of a roll twice are alike: one order of the pair
            parts = sorted(parts, key=lambda way: [(s.table, s.key) for s in way[0]])
        path = (step, *[s for way in parts for s in way[0]])
        totals: dict[str, int | Fraction] = dict(values)
        for way in parts:
            for column, value in way[2].items():
                totals[column] = totals.get(column, 0) + value
        previous = out.get(path)
        out[path] = (path, p + (previous[1] if previous else 0), totals)
    return chance * (1 - listed)


def chain_from(
    scope: Scope, rule: str, start: str, chance: Fraction, state: _ChainState, first: TableRow | None = None
) -> Chain:
    """The chain from a roll on a table (or from a row already selected, `first`), reached with
    `chance`.  Worked out once per book (when its rows are constants), then scaled by `chance`."""
    row = None if first is None else (first.key, first.steps, tuple(first.values.items()))
    key = ("chain", rule, start, state, row)
    found: Chain | None = scope.book.chains.get(key)
    if found is None:
        found, constant = _chain_from(scope, rule, start, state, first)
        if constant:
            scope.book.chains[key] = found
    if chance == 1:
        return found
    outcomes = tuple(ChainOutcome(o.path, o.probability * chance, o.totals) for o in found.outcomes)
    flow = tuple(
        FlowStep(s.depth, s.table, s.roll, s.key, s.text, s.chance, s.reach * chance, s.then, s.repeats, s.twice, s.cut)
        for s in found.flow
    )
    return Chain(
        found.rule,
        found.start,
        chance,
        outcomes,
        found.complete,
        found.depth,
        found.beyond * chance,
        found.rolls,
        found.visits,
        found.means,
        flow,
    )


def _chain_from(
    scope: Scope, rule: str, start: str, state: _ChainState, first: TableRow | None
) -> tuple[Chain, bool]:
    """The chain with chance 1, and whether every row in it is a constant (it can be kept)."""
    if first is not None:  # the row is known: the chain goes on from its steps
        starts = [parse_step(step, state[0]) for step in first.steps]
        children = [c for t, m, w in starts for c in ([(t, state[1], True)] * 2 if w else [(t, m, False)])]
        applies = any(t == state[0] and not w for t, _, w in starts)
        text = ", ".join(show(v) for v in first.values.values() if v != "")
        head = ChainStep(state[0], "given", first.key, text, first.steps, applies, 0)
        numbers = {
            k: v
            for k, v in first.values.items()
            if applies and isinstance(v, (int, Fraction)) and not isinstance(v, bool)
        }
        order, cyclic = chain_states(scope, children)
        limit = _listing_limit(scope, children, 1, order, cyclic)
        found: dict[tuple[ChainStep, ...], _Way] = {}
        beyond_all = _branch(scope, Fraction(1), head, numbers, tuple(children), limit, found)
        ways = list(found.values())
        one = Fraction(1)
        lead = [FlowStep(0, head.table, head.roll, head.key, head.text, one, one, head.then, False)]
    else:
        lead = []
        children = [state]
        order, cyclic = chain_states(scope, children)
        limit = _listing_limit(scope, children, 0, order, cyclic)
        ways, beyond_all = _ways(scope, state, 0, limit)
    rolls, visits, means = _expected(scope, order, children)
    outcomes = tuple(
        ChainOutcome(path, p, MappingProxyType(totals))
        for path, p, totals in sorted(ways, key=lambda way: -way[1])
    )
    chain = Chain(
        rule=rule,
        start=start,
        probability=Fraction(1),
        outcomes=outcomes,
        complete=limit is None,
        depth=limit,
        beyond=beyond_all,
        rolls=rolls,
        visits=MappingProxyType(visits),
        means=MappingProxyType(means),
        flow=tuple(_bounded_flow(scope, children, lead)),
    )
    return chain, all(s in scope.book.chains for s in order)


def _listing_limit(
    scope: Scope, starts: Sequence[_ChainState], depth: int, order: Sequence[_ChainState], cyclic: bool
) -> int | None:
    """The rolls in a row the chain from `starts` is listed to (`listed_depth`), once it is known
    to come to at most CHAIN_ROLLS different rolls."""
    if len(order) > CHAIN_ROLLS:
        raise RuleInputError(
            f"the chain from table {starts[0][0]} comes to {len(order):,} different rolls (tables and"
            f" modifiers); a resolver works out chains of at most {CHAIN_ROLLS}"
        )
    stated = stated_depth(scope, order) if cyclic else None
    return listed_depth(lambda s: [d.children for d in chain_draws(scope, s)], starts, depth, cyclic, stated)


def stated_depth(scope: Scope, order: Sequence[_ChainState]) -> int | None:
    """The bound the tables a chain comes to state (`chain depth N`; the deepest of them)."""
    return max((d for d in (scope.book.tables[s[0]].depth for s in order) if d is not None), default=None)


def _bounded_flow(scope: Scope, states: Sequence[_ChainState], lead: list[FlowStep]) -> list[FlowStep]:
    """The flow (`_flow`) to as many rolls in a row as fit in CHAIN_FLOW lines: each roll once
    per route, the rows of the deepest rolls shown marked `cut` when they lead further."""
    top = len(lead)
    deepest: int | None = None
    if _flow_lines(scope, states, (), top, None, CHAIN_FLOW) > CHAIN_FLOW:
        low, high = top, top + CHAIN_ROLLS  # a route comes to each roll once: no deeper than that
        while high - low > 1:  # the deepest that fits (each count stops past CHAIN_FLOW lines)
            middle = (low + high) // 2
            if _flow_lines(scope, states, (), top, middle, CHAIN_FLOW) <= CHAIN_FLOW:
                low = middle
            else:
                high = middle
        deepest = low
    return _flow(scope, states, top, Fraction(1), (), list(lead), deepest)


def _flow_lines(
    scope: Scope,
    states: Sequence[_ChainState],
    route: tuple[_ChainState, ...],
    depth: int,
    deepest: int | None,
    budget: int,
) -> int:
    """How many lines `_flow` writes, counted up to `budget` + 1 (no further)."""
    lines = 0
    shown: list[_ChainState] = []
    for state in states:
        if state in shown:
            continue
        shown.append(state)
        for draw in chain_draws(scope, state):
            lines += 1
            if lines > budget:
                return lines
            repeats = any(child in route or child == state for child in draw.children)
            if not repeats and draw.children and (deepest is None or depth < deepest):
                lines += _flow_lines(scope, draw.children, (*route, state), depth + 1, deepest, budget - lines)
                if lines > budget:
                    return lines
    return lines


def _flow(
    scope: Scope,
    states: Sequence[_ChainState],
    depth: int,
    reach: Fraction,
    route: tuple[_ChainState, ...],
    out: list[FlowStep],
    deepest: int | None = None,
) -> list[FlowStep]:
    """The rows of each roll, each followed by the rolls it leads to, indented; a roll already
    on the route is not shown again (`repeats`), nor the rolls deeper than `deepest` (`cut`).
    The two rolls of a roll twice are shown once."""
    shown: list[_ChainState] = []
    for state in states:
        if state in shown:
            continue  # the second roll of a roll twice: as the first
        shown.append(state)
        for draw in chain_draws(scope, state):
            step = draw.step
            here = reach * draw.probability
            repeats = any(child in route or child == state for child in draw.children)
            cut = not repeats and bool(draw.children) and deepest is not None and depth >= deepest
            out.append(
                FlowStep(
                    depth, step.table, step.roll, step.key, step.text, draw.probability, here, step.then, repeats,
                    state[2], cut,
                )
            )
            if not repeats and not cut:
                _flow(scope, draw.children, depth + 1, here, (*route, state), out, deepest)
    return out


def chains_of(scope: Scope, rolls: Sequence[Roll], tables: Sequence[TableResult]) -> tuple[Chain, ...]:
    """The chains a situation starts: from each rolled table with a step on some row (from the row
    given, if `roll` was), each table row looked up that sends on, and each roll's outcome that
    does."""
    book = scope.book
    found: list[Chain] = []
    for result in tables:
        spec = book.tables[result.name]
        if not sends_on(spec):
            continue
        offset = spec.sign * int(scope.v[spec.modifier]) if spec.modifier else 0
        if result.selected is not None:
            if result.selected.steps:
                start = f"table {spec.name}, row {result.selected.key}"
                found.append(chain_from(scope, spec.name, start, Fraction(1), (spec.name, offset, False), result.selected))
        elif spec.pool is not None:
            start = f"table {spec.name} ({result.dice})"
            found.append(chain_from(scope, spec.name, start, Fraction(1), (spec.name, offset, False)))
    for roll in rolls:
        for outcome, step in roll.spec.steps:
            chance = roll.outcomes.get(outcome, Fraction(0))
            target, modifier, _ = parse_step(step, "")
            start = f"roll {roll.spec.name}: {outcome}"
            found.append(chain_from(scope, roll.spec.rule, start, chance, (target, modifier, False)))
    return tuple(found)
