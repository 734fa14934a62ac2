"""The trace of a resolution, worked out from the model (docs/language.md, "What a resolution
reports"), and what follows from it: the inputs given to no effect.

The values of a situation are worked out by the reference resolver (dsl/semantics/reference.py),
each when first needed.  The trace says, in a fixed order, why each part of the rules did or did
not apply:

- the values settle in the book's order (`Book.settle`), each after what it reads; for each
  value of the situation (a stat the rules read or change, a value that starts from a formula, a
  derived value), the steps that settle it are decided first, all of them, clause after clause
  (a clause that does not hold ends the step's; `and`/`or` read their right side only when they
  must), each table row looked up on the way traced where it is met; then each step, a part
  composed twice once (the first of its steps that holds, else the first), is traced, and the
  amount of a modifier that holds, or the value of the derived value chosen, is worked out
  after its own entry (its lookups follow it);
- then the rolls the same way, each roll that holds followed by its changes (each traced after
  its clauses are decided) and by the values it reads; then the texts that have conditions;
- a derived value none of whose steps held is worked out where something first reads it;
- the tables looked up by name, then a word for each roll several rules ask for.

A step is decided on the clauses of the `as` statements that bring it in first, then its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dsl import model as m
from dsl import nodes as n
from dsl import printer
from dsl.model.exprs import input_places, trace_names
from dsl.runtime.base import show
from dsl.runtime.dice import Value, pool_text
from dsl.runtime.results import Note, TraceEntry
from dsl.runtime.specs import TraceSpec
from dsl.semantics.values import evaluate, row_for

if TYPE_CHECKING:
    from dsl.semantics.reference import Situation


@dataclass(frozen=True)
class Step:
    """An effect a situation reaches, with the conditions of every `as` on the way to it, and its
    place among the steps of the situation (the rules in the order named, each in its own order)."""

    effect: m.Effect
    outer: tuple[m.Condition, ...]
    place: int

    @property
    def clauses(self) -> tuple[m.Condition, ...]:
        return (*self.outer, *self.effect.guard)


def spec_of(book: m.Book, step: Step) -> TraceSpec:
    """What the trace says of a step: its clauses as written (those of the `as` around it first),
    and the names each reads."""
    effect = step.effect
    clauses = step.clauses
    return TraceSpec(
        effect.origin,
        effect.cites,
        printer.trace_item(effect),
        tuple(printer.condition_text(c) for c in clauses),
        tuple(tuple(trace_names(book, c.expr)) for c in clauses),
    )


def change_spec(book: m.Book, effect: m.RollEffect, change: m.RollChange) -> TraceSpec:
    return TraceSpec(
        effect.origin,
        effect.cites,
        f"roll {effect.name}: {printer.change_text(change)}",
        tuple(printer.condition_text(c) for c in change.guard),
        tuple(tuple(trace_names(book, c.expr)) for c in change.guard),
    )


def lookup_spec(table: m.Table, keys: tuple[Value, ...], row: m.TableRow) -> TraceSpec:
    """A row looked up: the table, the keys, the row found."""
    shown = ", ".join(show(k) for k in keys)
    names = tuple((name,) for name in table.inputs)
    return TraceSpec(
        table.name, table.cites, f"look up {table.name}: row {row.key_text()}", (f"{table.name}[{shown}]",), names,
        f"row {row.key_text()}",
    )


class Tracer:
    """The environment of the trace pass: the situation's values, each table row looked up traced
    where it is met, and a derived value none of whose steps held worked out (and its lookups
    traced) where it is first read."""

    def __init__(self, situation: Situation, pending: dict[str, Step]) -> None:
        self.situation = situation
        self.book = situation.book
        self.trace: list[TraceEntry] = []
        self.effective: dict[str, Value] = {}
        self.pending = pending

    def value(self, ref: m.Ref) -> Value:
        if ref.kind == "derive" and ref.name in self.pending:
            step = self.pending.pop(ref.name)
            assert isinstance(step.effect, m.DeriveEffect)
            self.effective[ref.name] = self.eval(step.effect.value)
        return self.situation.value(ref)

    def lookup(self, table: str, keys: tuple[Value, ...], column: str) -> Value:
        spec = self.book.tables[table]
        row = row_for(spec, keys[0])
        value = self.situation.lookup(table, keys, column)
        if row is not None:
            index = [c for c, _ in spec.columns].index(str(keys[1]) if spec.two_dimensional else column)
            cell = row.cells[index]
            if cell.value is not None:
                self.eval(cell.value)  # the lookups its cell makes come first
            self.trace.append(TraceEntry(lookup_spec(spec, keys, row), -1, self.situation.values, self.effective))
        return value

    def eval(self, expr: n.Expr) -> Value:
        return evaluate(expr, self.book, self)

    def decide(self, clauses: Sequence[m.Condition]) -> int:
        """The first clause that does not hold, or -1."""
        for position, condition in enumerate(clauses):
            if bool(self.eval(condition.expr)) == condition.negated:
                return position
        return -1

    def entry(self, spec: TraceSpec, decided: int) -> None:
        self.trace.append(TraceEntry(spec, decided, self.situation.values, self.effective))


def counted(steps: Sequence[Step], decided: dict[int, int]) -> list[tuple[Step, bool]]:
    """Each key once: the first step whose clauses hold counts, where it is met; a key none of
    whose steps hold appears once, not applied, where it is first met."""
    where: dict[str, int] = {}
    out: list[tuple[Step, bool] | None] = []
    for step in steps:
        holds = decided[step.place] < 0
        earlier = where.get(step.effect.key)
        if earlier is not None:
            previous = out[earlier]
            if (previous is not None and previous[1]) or not holds:
                continue
            out[earlier] = None
        where[step.effect.key] = len(out)
        out.append((step, holds))
    return [x for x in out if x is not None]


def trace_of(
    situation: Situation, steps: Sequence[Step], rules: Sequence[str], given: frozenset[str]
) -> tuple[list[TraceEntry], dict[int, int], dict[str, Value], list[Note]]:
    """The trace of a situation, the clause that decided each step, the values the entries read
    (the stats and the derived values worked out), and a note for each input given that no step
    read."""
    book = situation.book
    wanted: set[str] = set()
    for name in rules:
        for key in book.rules[name].reads if name in book.rules else book.tables[name].reads:
            var = book.vars[key]
            if var.is_stat:
                wanted.add(f"stat {key}")
            if var.default_expr is not None:
                wanted.add(f"base {key}")
    by_node: dict[str, list[Step]] = {}
    rolls: list[Step] = []
    texts: list[Step] = []
    for step in steps:
        effect = step.effect
        if isinstance(effect, m.ModEffect):
            by_node.setdefault(f"stat {effect.target}", []).append(step)
        elif isinstance(effect, m.DeriveEffect):
            by_node.setdefault(f"derive {effect.name}", []).append(step)
            wanted.add(f"derive {effect.name}")
        elif isinstance(effect, m.RollEffect):
            rolls.append(step)
        else:
            texts.append(step)
    tracer = Tracer(situation, {})
    decided: dict[int, int] = {}

    def decide_all(group: Sequence[Step]) -> list[tuple[Step, bool]]:
        for step in group:
            decided[step.place] = tracer.decide(step.clauses)
        return counted(group, decided)

    for node in book.settle:
        if node not in wanted:
            continue
        kind, _, name = node.partition(" ")
        if kind == "base":
            formula = book.vars[name].default_expr
            if situation.given_base(name):
                continue
            assert formula is not None
            tracer.eval(formula)
        elif kind == "stat":
            tracer.effective[name] = situation.stat(name)
            for step, holds in decide_all(by_node.get(node, [])):
                tracer.entry(spec_of(book, step), decided[step.place])
                if holds:
                    _amount(tracer, step)
        elif kind == "derive":
            chosen = None
            group = decide_all(by_node[node])
            for step, holds in group:
                tracer.entry(spec_of(book, step), decided[step.place])
                if holds and chosen is None:
                    chosen = step
            if chosen is None:
                tracer.pending[name] = group[0][0]
            else:
                assert isinstance(chosen.effect, m.DeriveEffect)
                tracer.eval(chosen.effect.value)
                tracer.effective[name] = situation.derive(name)
    for step, holds in decide_all(rolls):
        tracer.entry(spec_of(book, step), decided[step.place])
        if holds:
            _roll(tracer, step)
    for step in texts:
        decided[step.place] = tracer.decide(step.clauses) if step.clauses else -1
    for step, _ in counted(texts, decided):
        if step.clauses:  # a text without conditions always applies: nothing to say why
            tracer.entry(spec_of(book, step), decided[step.place])
    for name in rules:
        if name in book.tables:
            tracer.entry(_table_spec(book.tables[name], situation.values), -1)
    return tracer.trace, decided, tracer.effective, _unread(book, steps, decided, given)


def _whole(value: Value) -> int:
    assert isinstance(value, int)
    return value


def _table_spec(table: m.Table, values: dict[str, Value]) -> TraceSpec:
    """What the trace says of a table named in the situation: the row its inputs select; for a
    rolled table, the row of the roll given (its modifier added, a total past `above N` read as
    its row), or that every row is given with its chance."""
    def said(item: str, clause: str, names: tuple[str, ...], verdict: str) -> TraceSpec:
        return TraceSpec(table.name, table.cites, item, (clause,), (names,), verdict)

    if table.pool is None:
        keys = [values[name] for name in table.inputs]
        row = row_for(table, keys[0])
        found = f"row {row.key_text()}" if row is not None else "no row"
        return said(f"look up {table.name}: {found}", f"{table.name}[{', '.join(show(k) for k in keys)}]", table.inputs, found)
    sign = "+" if table.modifier_sign > 0 else "-"
    rolled = values.get("roll")
    if rolled is None:
        pool = table.pool
        dice = pool_text((pool.count, pool.sides, pool.keep)) + (f" {sign} {table.modifier}" if table.modifier else "")
        return said(f"roll {dice} on {table.name}", "no roll given", (), "every row with its chance")
    result = _whole(rolled) + (table.modifier_sign * _whole(values[table.modifier]) if table.modifier else 0)
    if table.overflow is not None and result > table.overflow.above:
        result = table.overflow.becomes
    row = row_for(table, result)
    found = f"row {row.key_text()}" if row is not None else "no row"
    rolled_as = f"roll {sign} {table.modifier}" if table.modifier else "roll"
    read = ("roll", table.modifier) if table.modifier else ("roll",)
    return said(f"roll on {table.name}: {result}, {found}", f"{rolled_as} = {result}", read, found)


def _amount(tracer: Tracer, step: Step) -> None:
    effect = step.effect
    assert isinstance(effect, m.ModEffect)
    for expr in (effect.value, effect.per):
        if expr is not None:
            tracer.eval(expr)


def _roll(tracer: Tracer, step: Step) -> None:
    """A roll that holds: its changes, each decided and traced, then the values it reads."""
    effect = step.effect
    assert isinstance(effect, m.RollEffect)
    book = tracer.book
    for change in effect.changes:
        position = tracer.decide(change.guard)
        tracer.entry(change_spec(book, effect, change), position)
        if position < 0 and change.value is not None:
            tracer.eval(change.value)
    reads: list[n.Expr] = []
    if effect.kind in ("check", "total", "count"):
        reads = [x for x in (effect.target, *effect.adds, effect.dice, effect.needed) if x is not None]
    elif effect.kind == "resist":
        reads = [x for x in (effect.active, effect.passive) if x is not None]
    elif effect.kind == "opposed":
        reads = [x for x in (effect.bonus, effect.against_bonus, effect.dice, effect.against_dice) if x is not None]
    for expr in reads:
        tracer.eval(expr)


def _unread(book: m.Book, steps: Sequence[Step], decided: dict[int, int], given: frozenset[str]) -> list[Note]:
    """An input given that no evaluated clause or value read: it had no effect, because the
    conditions that lead to it did not hold.  Say which (of the first step that reads it)."""
    readers: dict[str, list[tuple[Step, int]]] = {}
    for step in steps:
        for name, place in input_places(book, step.effect).items():
            readers.setdefault(name, []).append((step, len(step.outer) + place))
    notes = []
    for name, reads in readers.items():
        if name not in given or any(at == 0 for _, at in reads):
            continue  # not given, or read from the first clause on: always read
        if any(decided[step.place] < 0 or decided[step.place] >= at for step, at in reads):
            continue
        first, at = reads[0]
        conditions = [printer.condition_text(c) for c in first.clauses]
        needed = "; ".join(conditions[:at] or conditions)
        effect = first.effect
        notes.append(Note(effect.origin, effect.cites, f"`{name}` had no effect: it is read only {needed}", kind="input"))
    return notes

