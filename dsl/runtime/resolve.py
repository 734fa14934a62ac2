"""The entry points of a generated module: `resolve_with` (rules resolved together) and
`resolve_rule` (a rule's own function), and how a situation settles.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from operator import itemgetter
from typing import Any, Final, TypeVar, cast

from .base import HugeNumber, RuleInputError, as_number, clip, close_match, shown, whole
from .book import MAX_CACHED, Book, CachedScope, Scope, Settled
from .chains import chains_of
from .dice import Value, pool_text
from .inputs import accepted
from .results import Modifier, Note, Resolution, Restriction, TraceEntry
from .rolls import merge_rolls, roll_of, roll_result
from .settle import settle_stat, settled_stat
from .specs import Amount, Clause, ModSpec, Step, TextSpec, TraceSpec
from .tables import sends_on, table_result


class _Situation:
    """One resolution: the steps of the rules, and their values as they settle."""

    def __init__(self, book: Book, rules: tuple[str, ...], v: dict[str, Any], given: frozenset[str]) -> None:
        self.book = book
        self.rules = rules
        self.v = v
        self.given = given
        self.e: Settled = Settled()
        self.trace: list[TraceEntry] = []
        self.scope = Scope(book, v, self.e, self.trace)
        self.modifiers: list[tuple[int, Modifier]] = []  # with the step each comes from
        self.steps = book.steps_of(rules)
        self.decided: list[int] = [0] * len(self.steps)  # per step: the clause that failed, -1 all held
        self.counted: dict[str, int] = {}  # step key -> the step that counts

    def decide(self, index: int) -> int:
        """Evaluate a step's clauses (those of the `as` around it first); record and return the one
        that failed, or -1."""
        step, outer, _, _ = self.steps[index]
        scope = self.scope
        decided = -1
        for position, clause in enumerate(outer + step.clauses):
            if not clause(scope):
                decided = position
                break
        self.decided[index] = decided
        return decided

    def count(self, indexes: list[int]) -> list[tuple[int, bool]]:
        """The steps of one kind, each key once: the first whose conditions hold counts (where it
        is met); a key none of whose steps hold appears once, not applied, where first met."""
        where: dict[str, int] = {}
        out: list[tuple[int, bool] | None] = []
        for index in indexes:
            key = self.steps[index][0].spec.key
            earlier = where.get(key)
            previous = out[earlier] if earlier is not None else None
            if previous is not None and previous[1]:
                continue
            holds = self.decide(index) < 0
            if previous is not None:
                if not holds:
                    continue
                out[where[key]] = None
            where[key] = len(out)
            out.append((index, holds))
        return [x for x in out if x is not None]

    def trace_step(self, index: int) -> None:
        step, _, texts, names = self.steps[index]
        trace = step.trace
        assert trace is not None
        if texts:
            trace = TraceSpec(trace.rule, trace.source, trace.item, texts + trace.clauses, names + trace.names)
        self.trace.append(TraceEntry(trace, self.decided[index], self.v, self.e))

    def amount(self, value: Amount) -> Any:
        return value(self.scope) if callable(value) else value

    # -- settling

    def settle(self) -> dict[str, Value]:
        """Every value the rules touch, in the order they depend on each other; returns the
        derived values (the stats and derived values settle into `e`)."""
        book = self.book
        by_node: dict[str, list[int]] = {}
        for index, (step, _, _, _) in enumerate(self.steps):
            if step.kind == "mod":
                by_node.setdefault("stat " + step.spec.target, []).append(index)
            elif step.kind == "derive":
                by_node.setdefault("derive " + step.spec.name, []).append(index)
        v, e = self.v, self.e
        derived: dict[str, Value] = {}
        for node in book.nodes_of(self.rules):
            kind, _, name = node.partition(" ")
            if kind == "base":
                if v.get(name) is None:
                    formula = book.inputs[name].derived
                    assert formula is not None
                    v[name] = whole(formula(self.scope))
            elif kind == "stat":
                e[name] = whole(self._stat(name, by_node.get(node, [])))
            elif node in by_node:
                self._derive(name, by_node[node], derived)
        return derived

    def _stat(self, name: str, indexes: list[int]) -> Value:
        base = self.v[name]
        held: list[tuple[ModSpec, Any]] = []
        where: list[int] = []
        for index, holds in self.count(indexes):
            self.trace_step(index)
            if holds:
                step = self.steps[index][0]
                held.append((step.spec, self.amount(step.payload)))
                where.append(index)
        if not held:
            return base  # type: ignore[no-any-return]
        value, statuses = settle_stat(self.book, name, base, held)
        self.modifiers += [
            (index, Modifier(spec, whole(amount), status, reason))
            for index, (spec, amount), (status, reason) in zip(where, held, statuses, strict=True)
        ]
        return value

    def _derive(self, name: str, indexes: list[int], derived: dict[str, Value]) -> None:
        """A derived value: of the first `derive` whose conditions hold.  When none holds, the
        first written is the value only if something reads it, and is worked out then (it may
        divide by what its own conditions rule out, as the reference evaluator reads it)."""
        counted = self.count(indexes)
        for index, _ in counted:
            self.trace_step(index)
        chosen = next((index for index, holds in counted if holds), None)
        if chosen is None:
            payload = self.steps[counted[0][0]][0].payload
            self.e.wait(name, lambda: whole(self.amount(payload)))
            return
        self.e[name] = derived[name] = whole(self.amount(self.steps[chosen][0].payload))

    # -- the rest

    def finish(self) -> Resolution:
        book = self.book
        derived = self.settle()
        rolls = []
        texts: list[int] = []
        roll_steps: list[int] = []
        for index, (step, _, _, _) in enumerate(self.steps):
            if step.kind == "roll":
                roll_steps.append(index)
            elif step.kind == "text":
                texts.append(index)
        for index, holds in self.count(roll_steps):
            self.trace_step(index)
            if holds:
                step = self.steps[index][0]
                rolls.append(roll_result(self.scope, step.spec, *step.payload))
        restrictions: list[Restriction] = []
        notes: list[Note] = []
        for index, holds in self.count(texts):
            step, outer, _, _ = self.steps[index]
            spec = step.spec
            if step.clauses or outer:
                self.trace_step(index)
            if not holds:
                continue
            if spec.kind == "cannot":
                restrictions.append(Restriction(spec.rule, spec.source, spec.text))
            else:
                notes.append(Note(spec.rule, spec.source, spec.text, spec.quote, spec.kind))
        notes += self._unread()
        for name in self.rules:
            table = book.tables.get(name)
            if table is not None:
                notes.extend(table.notes)
        reads = {key for name in self.rules for key in book.rules[name].reads}
        order = book.order
        inputs = {key: self.v[key] for key in sorted(reads | self.given, key=lambda k: order.get(k, len(order)))}
        stats_read: dict[str, Value] = {
            key: self.e[key] if key in self.e else self.v[key]
            for key in inputs
            if key in book.inputs and book.inputs[key].is_stat
        }
        tables = tuple(table_result(self.scope, book.tables[name]) for name in self.rules if name in book.tables)
        return Resolution(
            rulebook=book.info.name,
            rules=self.rules,
            inputs=inputs,
            stats=stats_read,
            derived=derived,
            modifiers=tuple(modifier for _, modifier in sorted(self.modifiers, key=lambda x: x[0])),
            rolls=merge_rolls(self.scope, rolls),
            restrictions=tuple(restrictions),
            notes=tuple(notes),
            tables=tables,
            trace=tuple(self.trace),
            chains=chains_of(self.scope, rolls, tables),
        )

    def _unread(self) -> list[Note]:
        """An input given that no evaluated clause or value read: it had no effect, because the
        conditions that lead to it did not hold.  Say which."""
        gated: dict[str, list[int]] = {}
        for index, (step, _, _, _) in enumerate(self.steps):
            for name, _ in step.reads:
                if name in self.given:
                    gated.setdefault(name, []).append(index)
        notes = []
        for name, indexes in gated.items():
            read = False
            for index in indexes:
                step, outer, _, _ = self.steps[index]
                decided = self.decided[index]
                for input_name, clause in step.reads:
                    if input_name == name and (decided < 0 or decided >= len(outer) + clause):
                        read = True
            if not read:
                step, outer, texts, _ = self.steps[indexes[0]]
                clause = min(c for n, c in step.reads if n == name)
                trace = step.trace
                conditions = texts + (trace.clauses if trace is not None else ())
                needed = "; ".join(conditions[: len(outer) + clause] or conditions)
                notes.append(
                    Note(
                        step.spec.rule,
                        None if trace is None else trace.source,
                        f"`{name}` had no effect: it is read only {needed}",
                        kind="input",
                    )
                )
        return notes


FIRST: Final = itemgetter(0)
SECOND: Final = itemgetter(1)


_Group = tuple[tuple[int, ...], bool]
"""Steps of one kind, by index, and whether each has a key of its own (no composed rule met
twice), so that each counts without looking for another of the same key."""


class _Plan:
    """A set of rules resolved together, as `_Situation` works it out, with everything that does
    not depend on the situation found once."""

    __slots__ = (
        "book",
        "chains",
        "clauses",
        "fixed_texts",
        "gated",
        "inputs_order",
        "keys",
        "nodes",
        "reads",
        "roll_group",
        "rules",
        "settled",
        "stat_keys",
        "steps",
        "table_notes",
        "tables",
        "text_group",
        "text_steps",
        "texts",
        "told",
        "traced",
        "traces",
        "watched",
    )

    def __init__(self, book: Book, rules: tuple[str, ...]) -> None:
        steps = book.steps_of(rules)
        self.book = book
        self.rules = rules
        self.steps = tuple(step for step, _, _, _ in steps)
        self.clauses = tuple(tuple(enumerate(outer + step.clauses)) for step, outer, _, _ in steps)
        """Each step's clauses (those of the `as` around it first), numbered: met in a loop on
        every call, numbered once here rather than by `enumerate` there."""
        self.keys = tuple(step.spec.key for step, _, _, _ in steps)
        self.traces = tuple(_merged_trace(step, texts, names) for step, _, texts, names in steps)
        by_node: dict[str, list[int]] = {}
        rolls: list[int] = []
        texts_at: list[int] = []
        for index, (step, _, _, _) in enumerate(steps):
            if step.kind == "mod":
                by_node.setdefault("stat " + step.spec.target, []).append(index)
            elif step.kind == "derive":
                by_node.setdefault("derive " + step.spec.name, []).append(index)
            elif step.kind == "roll":
                rolls.append(index)
            elif step.kind == "text":
                texts_at.append(index)
        self.nodes: tuple[tuple[str, str, Any], ...] = tuple(
            (
                "unmodified" if kind == "stat" and node not in by_node else kind,
                name,
                book.inputs[name].derived if kind == "base" else self._group(by_node.get(node, [])),
            )
            for node in book.nodes_of(rules)
            for kind, _, name in (node.partition(" "),)
            if kind != "derive" or node in by_node
        )
        """What settles, in order: `base X` (a default worked out, with its formula), `stat X`,
        `unmodified X` (a stat no modifier of these rules changes), `derive X`; with the steps of
        each (a `_Group`)."""
        self.roll_group = self._group(rolls)
        self.text_group = self._group(texts_at)
        self.traced = frozenset(i for i in texts_at if steps[i][0].clauses or steps[i][1])
        self.texts: dict[int, Restriction | Note] = {i: _text_result(self.steps[i].spec) for i in texts_at}
        self.text_steps = tuple(
            (i, self.clauses[i], self.traces[i], self.texts[i], isinstance(self.texts[i], Restriction))
            for i in texts_at
        )
        """Each text, with its clauses (none when untraced), trace spec and what it says."""
        self.fixed_texts: tuple[tuple[Restriction, ...], tuple[Note, ...]] | None = None
        """The restrictions and notes when no text has a condition (and none is met twice)."""
        if self.text_group[1] and not self.traced:
            found = [self.texts[i] for i in texts_at]
            self.fixed_texts = (
                tuple(x for x in found if isinstance(x, Restriction)),
                tuple(x for x in found if isinstance(x, Note)),
            )
        self.gated = _gated(steps)
        self.table_notes = tuple(note for name in rules if name in book.tables for note in book.tables[name].notes)
        order = book.order
        self.reads = frozenset(key for name in rules for key in book.rules[name].reads)
        self.inputs_order = tuple(sorted(self.reads, key=lambda k: order.get(k, len(order))))
        self.stat_keys = tuple(k for k in self.inputs_order if k in book.inputs and book.inputs[k].is_stat)
        told = book.rules[rules[0]].reads if len(rules) == 1 and rules[0] in book.rules else ()
        """The inputs of a rule alone, in the order its function tells them (`resolve_rule`)."""
        self.told = tuple((key, *accepted(book.inputs[key])) for key in told)
        """Each with the values taken as they are (`accepted`: a type and the values of that type)."""
        watched = {name for name, _, _ in self.gated}
        self.watched = tuple((key, book.defaults[key]) for key in told if key in watched)
        """Those of them a "had no effect" note may name, with their defaults: whether they are
        given is all the resolution reads of what was given (every other input is read)."""
        self.tables = tuple(book.tables[name] for name in rules if name in book.tables)
        self.chains = any(sends_on(table) for table in self.tables) or any(self.steps[i].spec.steps for i in rolls)
        """A table or a roll outcome may send on: the resolution has chains (`chains_of`)."""
        self.settled: dict[tuple[Any, ...], tuple[Value, tuple[tuple[int, Modifier], ...]]] = {}
        """The stats settled so far, by base and the modifiers that held, with the Modifiers."""

    def _group(self, indexes: list[int]) -> _Group:
        return tuple(indexes), len({self.keys[i] for i in indexes}) == len(indexes)

    def _count(self, group: _Group, scope: Scope, decided: list[int]) -> list[tuple[int, bool]]:
        """`_Situation.count`: each step of a key of its own counts; of several steps of one key,
        the first whose conditions hold, or the first met when none holds."""
        indexes, unique = group
        if unique:
            self._decided(indexes, scope, decided)
            return [(index, decided[index] < 0) for index in indexes]
        out: list[tuple[int, bool] | None] = []
        where: dict[str, int] = {}
        for index in indexes:
            key = self.keys[index]
            earlier = where.get(key)
            previous = out[earlier] if earlier is not None else None
            if previous is not None and previous[1]:
                continue
            holds = self._decide(index, scope, decided) < 0
            if previous is not None:
                if not holds:
                    continue
                out[where[key]] = None
            where[key] = len(out)
            out.append((index, holds))
        return [x for x in out if x is not None]

    def _decide(self, index: int, scope: Scope, decided: list[int]) -> int:
        """The first clause of a step (those of the `as` around it first) that does not hold, or
        -1; recorded in `decided`."""
        position = -1
        for at, clause in self.clauses[index]:
            if not clause(scope):
                position = at
                break
        decided[index] = position
        return position

    def _decided(self, indexes: Iterable[int], scope: Scope, decided: list[int]) -> None:
        """`_decide` for each step of a group, all of them before any is traced or acted on, as
        `_Situation.count` decides them (a condition that looks a row up is traced as it does)."""
        clauses = self.clauses
        for index in indexes:
            position = -1
            for at, clause in clauses[index]:
                if not clause(scope):
                    position = at
                    break
            decided[index] = position

    def resolve(self, v: dict[str, Any], given: frozenset[str]) -> Resolution:
        """The Resolution `_Situation(book, rules, v, given).finish()` returns."""
        book = self.book
        e = Settled()
        trace: list[TraceEntry] = []
        scope = CachedScope(book, v, e, trace)
        decided = [0] * len(self.steps)
        steps = self.steps
        traces = self.traces
        modifiers: list[tuple[int, Modifier]] = []
        derived: dict[str, Value] = {}
        for kind, name, group in self.nodes:
            # (`whole` is called only for a Fraction: every other value it returns as it is)
            if kind == "unmodified":
                value = v[name]
                e[name] = whole(value) if type(value) is Fraction else value
                continue
            if kind == "base":
                if v.get(name) is None:
                    value = group(scope)  # a `base` node's formula
                    v[name] = whole(value) if type(value) is Fraction else value
                continue
            indexes, unique = group
            if kind == "stat" and unique:  # `_count` and the loop below in one: the common case
                held: list[tuple[ModSpec, Any]] = []
                where: list[int] = []
                self._decided(indexes, scope, decided)
                for index in indexes:
                    position = decided[index]
                    trace.append(TraceEntry(traces[index], position, v, e))
                    if position < 0:
                        step = steps[index]
                        payload = step.payload
                        held.append((step.spec, payload(scope) if callable(payload) else payload))
                        where.append(index)
                value = self._stat(name, v[name], held, where, modifiers) if held else v[name]
                e[name] = whole(value) if type(value) is Fraction else value
                continue
            counted = self._count(group, scope, decided)
            if kind == "stat":
                held = []
                where = []
                for index, holds in counted:
                    trace.append(TraceEntry(traces[index], decided[index], v, e))  # type: ignore[arg-type]
                    if holds:
                        step = steps[index]
                        payload = step.payload
                        held.append((step.spec, payload(scope) if callable(payload) else payload))
                        where.append(index)
                e[name] = whole(self._stat(name, v[name], held, where, modifiers) if held else v[name])
                continue
            chosen = None
            for index, holds in counted:
                trace.append(TraceEntry(traces[index], decided[index], v, e))  # type: ignore[arg-type]
                if holds and chosen is None:
                    chosen = index
            if chosen is None:
                first = steps[counted[0][0]].payload
                e.wait(name, lambda first=first: whole(first(scope) if callable(first) else first))  # type: ignore[misc]
                continue
            payload = steps[chosen].payload
            e[name] = derived[name] = whole(payload(scope) if callable(payload) else payload)
        rolls = []
        if self.roll_group[1]:  # as a stat's modifiers above
            self._decided(self.roll_group[0], scope, decided)
            for index in self.roll_group[0]:
                position = decided[index]
                trace.append(TraceEntry(traces[index], position, v, e))  # type: ignore[arg-type]
                if position < 0:
                    rolls.append(roll_of(scope, steps[index]))
        else:
            for index, holds in self._count(self.roll_group, scope, decided):
                trace.append(TraceEntry(traces[index], decided[index], v, e))  # type: ignore[arg-type]
                if holds:
                    rolls.append(roll_of(scope, steps[index]))
        restrictions: Sequence[Restriction]
        if self.fixed_texts is not None:  # no text has a condition: the same every time
            restrictions, fixed = self.fixed_texts
            notes = list(fixed)
        else:
            restrictions, notes = self._texts(scope, decided, trace)
        for name, reads, note in self.gated:
            if name in given and not any(decided[i] < 0 or decided[i] >= at for i, at in reads):
                notes.append(note)
        notes += self.table_notes
        if given <= self.reads:
            inputs = {key: v[key] for key in self.inputs_order}
            stats: dict[str, Value] = {key: e[key] for key in self.stat_keys}  # each settled above
        else:
            order = book.order
            inputs = {key: v[key] for key in sorted(self.reads | given, key=lambda k: order.get(k, len(order)))}
            specs = book.inputs
            stats = {key: e[key] if key in e else v[key] for key in inputs if key in specs and specs[key].is_stat}
        if len(modifiers) > 1:
            modifiers.sort(key=FIRST)
        tables = tuple([table_result(scope, table) for table in self.tables]) if self.tables else ()
        return Resolution(
            rulebook=book.info.name,
            rules=self.rules,
            inputs=inputs,
            stats=stats,
            derived=derived,
            modifiers=tuple(map(SECOND, modifiers)),
            rolls=merge_rolls(scope, rolls) if len(rolls) > 1 else tuple(rolls),
            restrictions=tuple(restrictions),
            notes=tuple(notes),
            tables=tables,
            trace=tuple(trace),
            chains=chains_of(scope, rolls, tables) if self.chains else (),
        )

    def _texts(self, scope: Scope, decided: list[int], trace: list[TraceEntry]) -> tuple[list[Restriction], list[Note]]:
        """The restrictions and notes whose conditions hold, the conditional ones traced."""
        restrictions: list[Restriction] = []
        notes: list[Note] = []
        traced = self.traced
        v, e = scope.v, scope.e
        if self.text_group[1]:  # `_count` and the loop below in one: each text of a key of its own
            self._decided(self.text_group[0], scope, decided)
            for index, clauses, spec, text, restricts in self.text_steps:
                position = decided[index]
                if clauses:
                    trace.append(TraceEntry(spec, position, v, e))  # type: ignore[arg-type]
                if position < 0:
                    if restricts:
                        restrictions.append(text)  # type: ignore[arg-type]
                    else:
                        notes.append(text)  # type: ignore[arg-type]
            return restrictions, notes
        for index, holds in self._count(self.text_group, scope, decided):
            if index in traced:
                trace.append(TraceEntry(self.traces[index], decided[index], v, e))  # type: ignore[arg-type]
            if holds:
                text = self.texts[index]
                if isinstance(text, Restriction):
                    restrictions.append(text)
                else:
                    notes.append(text)
        return restrictions, notes

    def _stat(
        self, name: str, base: Any, held: list[tuple[ModSpec, Any]], where: list[int], out: list[tuple[int, Modifier]]
    ) -> Value:
        """A stat's value from the modifiers that hold; each becomes a Modifier in `out`.  Both are
        kept for the base and the modifiers' amounts (equal values settle alike: a resolver's
        numbers are ints where whole, Fractions where not)."""
        key = (name, base, tuple(where), tuple(map(SECOND, held)))
        found = self.settled.get(key)
        if found is None:
            value, statuses = settled_stat(self.book, name, base, held)
            made = tuple(
                (index, Modifier(spec, whole(amount), status, reason))
                for index, (spec, amount), (status, reason) in zip(where, held, statuses, strict=True)
            )
            if len(self.settled) >= MAX_CACHED:
                self.settled.clear()
            found = self.settled[key] = (value, made)
        out += found[1]
        return found[0]


def resolve_rule(book: Book, name: str, told: tuple[object, ...]) -> Resolution:
    """What a rule's own function returns: `resolve_with(book, (name,), given, signature=True)`,
    `given` the inputs the rule reads (its `RuleInfo.reads`, in that order) with the values `told`
    (None for a default worked out from others)."""
    plan = plan_of(book, (name,))
    values: dict[str, Any] = dict(book.defaults)
    for raw, (key, kind, plain) in zip(told, plan.told, strict=True):
        if type(raw) is kind and raw in plain:
            values[key] = raw  # what `coerce` returns for it, found without the call
        elif raw is None and key in book.derived_inputs:
            continue  # None asks for the computed default
        else:
            values[key] = book.inputs[key].coerce(raw)
    # given, as `resolve_with` counts it: only whether a gated input was given changes the result
    watched = plan.watched
    given = frozenset([key for key, default in watched if values[key] != default]) if watched else NOTHING
    straight = book.straight.get(name)
    if straight is not None:
        return straight(values, given)
    return plan.resolve(values, given)


NOTHING: Final[frozenset[str]] = frozenset()


def changed(*told: tuple[str, object, object]) -> frozenset[str]:
    """Of the inputs told (name, value, default), those told a value other than their default:
    `resolve_rule`'s `given`, for a rule written out."""
    return frozenset([name for name, value, default in told if value != default]) or NOTHING


def _merged_trace(step: Step, texts: tuple[str, ...], names: tuple[tuple[str, ...], ...]) -> TraceSpec | None:
    """A step's trace spec with the clauses of the `as` statements around it first."""
    trace = step.trace
    if trace is None or not texts:
        return trace
    return within(trace, texts, names)


def within(trace: TraceSpec, texts: tuple[str, ...], names: tuple[tuple[str, ...], ...]) -> TraceSpec:
    """A trace spec with the clauses (as written, and the names each reads) of the `as`
    statements around its step first."""
    return TraceSpec(trace.rule, trace.source, trace.item, texts + trace.clauses, names + trace.names)


def _text_result(spec: TextSpec) -> Restriction | Note:
    return restriction_of(spec) if spec.kind == "cannot" else note_of(spec)


def restriction_of(spec: TextSpec) -> Restriction:
    """What a `cannot` says when its conditions hold."""
    return Restriction(spec.rule, spec.source, spec.text)


def note_of(spec: TextSpec) -> Note:
    """What a note or an erratum says when its conditions hold."""
    return Note(spec.rule, spec.source, spec.text, spec.quote, spec.kind)


def _gated(
    steps: Sequence[tuple[Step, tuple[Clause, ...], tuple[str, ...], tuple[tuple[str, ...], ...]]],
) -> tuple[tuple[str, tuple[tuple[int, int], ...], Note], ...]:
    """`_Situation._unread` for every input a step reads: the steps that read it, each with the
    first clause from which on it is read (it is, when that clause is reached or all hold), and
    the note saying it had no effect."""
    gated: dict[str, list[int]] = {}
    for index, (step, _, _, _) in enumerate(steps):
        for name, _ in step.reads:
            gated.setdefault(name, []).append(index)
    out = []
    for name, indexes in gated.items():
        reads = tuple(
            (index, len(steps[index][1]) + min(c for n, c in steps[index][0].reads if n == name))
            for index in dict.fromkeys(indexes)
        )
        step, outer, texts, _ = steps[indexes[0]]
        clause = min(c for n, c in step.reads if n == name)
        trace = step.trace
        conditions = texts + (trace.clauses if trace is not None else ())
        needed = "; ".join(conditions[: len(outer) + clause] or conditions)
        note = Note(
            step.spec.rule,
            None if trace is None else trace.source,
            f"`{name}` had no effect: it is read only {needed}",
            kind="input",
        )
        if all(at > 0 for _, at in reads):  # read from the first clause on, it is always read
            out.append((name, reads, note))
    return tuple(out)




def resolve_with(
    book: Book,
    names: str | Sequence[str],
    given: Mapping[str, object],
    signature: bool = False,
    reference: bool = False,
) -> Resolution:
    """Resolve a situation in which the named rules and tables apply together.

    `signature`: `given` comes from a per-rule function, whose parameters all have a value; one
    at its default counts as not given (no "had no effect" note for what the caller never said).
    `reference`: work it out step by step from the rules as written (`_Situation`), not by the
    rules' plan; the two give the same Resolution, and the tests hold them to it."""
    if isinstance(names, str):
        names = (names,)
    elif isinstance(names, (bytes, bytearray)) or not isinstance(names, Iterable):
        raise RuleInputError(f"name the rules as text or a sequence of texts, not {shown(names)}")
    chosen: list[str] = []
    for name in names:
        if not isinstance(name, str):
            raise RuleInputError(f"rule names are text, not {shown(name)}")
        if name not in book.rules:
            hint = close_match(name, list(book.rules)) if len(name) <= 100 else ""
            raise RuleInputError(
                f"no rule or table `{clip(name)}` in {book.info.name}" + (f"; {hint}" if hint else "")
            )
        if name not in chosen:
            chosen.append(name)
    if not chosen:
        raise RuleInputError("name at least one rule or table to resolve")
    values: dict[str, Any] = dict(book.defaults)
    plan = plan_of(book, tuple(chosen))
    read = plan.reads
    supplied: set[str] = set()
    for key, raw in given.items():
        spec = book.inputs.get(key)
        if spec is not None and raw is None and spec.derived is not None:
            continue  # None asks for the computed default
        if spec is None:
            rolled = [book.tables[x] for x in chosen if x in book.tables and book.tables[x].pool is not None]
            if key == "roll" and rolled:
                values["roll"] = _roll_input(raw, book, chosen)
                supplied.add(key)
                continue
            if key == "roll" and any(name in book.tables for name in chosen):
                raise RuleInputError(
                    f"`roll` selects a row of a table rolled with dice; {', '.join(chosen)} is looked up by its inputs"
                )
            hint = close_match(key, list(book.inputs)) if len(key) <= 100 else ""
            raise RuleInputError(f"no input `{clip(key)}` in {book.info.name}" + (f"; {hint}" if hint else ""))
        if key not in read:
            # a value no rule of the situation reads would be silently ignored: say where it belongs
            readers = [info.name for info in book.rules.values() if key in info.reads]
            where = (
                f"it is read by {', '.join(readers[:6])}{' ...' if len(readers) > 6 else ''}"
                if readers
                else "no rule reads it"
            )
            raise RuleInputError(f"`{key}` has no effect on {', '.join(chosen)}: {where}")
        values[key] = value = spec.coerce(raw)
        if not signature or value != book.defaults.get(key):
            supplied.add(key)
    if reference:
        return _Situation(book, tuple(chosen), values, frozenset(supplied)).finish()
    straight = book.straight.get(chosen[0]) if len(chosen) == 1 else None
    if straight is not None:
        return straight(values, frozenset(supplied))
    return plan.resolve(values, frozenset(supplied))


def _roll_input(raw: object, book: Book, chosen: list[str]) -> int:
    rolled = [book.tables[name] for name in chosen if name in book.tables and book.tables[name].pool is not None]
    try:
        number = as_number(raw)
    except HugeNumber:
        number = None
    if number is None or number.denominator != 1:
        raise RuleInputError(f"input `roll` must be a whole number, not {shown(raw)}")
    for table in rolled:
        assert table.pool is not None
        dist = book.pool(table.pool)
        if not dist.low <= number <= dist.high:
            raise RuleInputError(
                f"input `roll` must be a result of {pool_text(table.pool)} ({dist.low}..{dist.high}), not {shown(raw)}"
            )
    return number.numerator


_RuleFunction = TypeVar("_RuleFunction", bound=Callable[..., "Resolution"])


def inputs_by_name(function: _RuleFunction) -> _RuleFunction:
    """A rule's own typed function, made to refuse an input passed by position or one the rule
    does not read with RuleInputError, as `resolve` does, rather than Python's TypeError.  Its
    signature stays what it is for type checkers and `help()`."""
    names = frozenset(function.__kwdefaults__ or ())
    title = function.__name__

    def checked(*args: object, **inputs: object) -> Resolution:
        if args:
            raise _call_error(title, sorted(names), args, inputs)
        try:
            return function(**inputs)
        except TypeError:
            if not names.issuperset(inputs):  # looked at only when Python refused the call
                raise _call_error(title, sorted(names), args, inputs) from None
            raise

    return cast(_RuleFunction, functools.update_wrapper(checked, function))


def _call_error(title: str, names: list[str], args: tuple[object, ...], inputs: Mapping[str, object]) -> RuleInputError:
    example = f"{title}({names[0]}=...)" if names else f"{title}()"
    if args:
        return RuleInputError(f"{title}() takes its inputs by name, as in {example}, not by position")
    unknown = next(key for key in inputs if key not in names)
    hint = close_match(unknown, names) if len(unknown) <= 100 else ""
    reads = f"it reads {', '.join(names)}" if names else "it reads no input"
    return RuleInputError(f"{title}() has no input `{clip(unknown)}`; " + (hint or reads))


def plan_of(book: Book, rules: tuple[str, ...]) -> _Plan:
    """How a set of rules resolved together is worked out, found once."""
    found = book.plans.get(rules)
    if found is None:
        found = book.plans[rules] = _Plan(book, rules)
    return found
