"""The entry points of a generated module: `resolve_with` (rules and tables resolved together) and
`resolve_rule` (a rule's own function).

A module writes each rule out twice over the same code: as one function, `_resolve_RULE`, that
works the rule alone out top to bottom; and as one function per value it settles (a stat, a
derived value; its rolls, its texts), each deciding that rule's steps of the value and handing
them on as `Candidate`s.  A situation of several rules settles its values in the book's order
(`Book.settle`), each from the candidates of every rule in the order the rules are named; the
helpers here count them (a part two rules compose counts once), trace them and settle them, as
the written-out function of one rule does in place.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Final, TypeVar, cast

from .base import HugeNumber, RuleInputError, as_number, clip, close_match, shown, whole
from .book import Book, CachedScope, Scope, Settled
from .chains import chains_of
from .dice import Value, pool_text
from .inputs import accepted
from .results import Modifier, Note, Resolution, Restriction, Roll, TraceEntry
from .rolls import merge_rolls, roll_of
from .settle import settle_held
from .specs import Candidate, NodeFunction, TextSpec, TraceSpec
from .tables import sends_on, table_result

FIRST: Final = itemgetter(0)
SECOND: Final = itemgetter(1)

NOTHING: Final[frozenset[str]] = frozenset()


# ---------------------------------------------------------------------------- a rule alone


def resolve_rule(book: Book, name: str, told: tuple[object, ...]) -> Resolution:
    """What a rule's own function returns: `resolve_with(book, (name,), given, signature=True)`,
    `given` the inputs the rule reads (its `RuleInfo.reads`, in that order) with the values `told`
    (None for a default worked out from others)."""
    checks, watched = _told(book, name)
    values: dict[str, Any] = dict(book.defaults)
    for raw, (key, kind, plain) in zip(told, checks, strict=True):
        if type(raw) is kind and raw in plain:
            values[key] = raw  # what `coerce` returns for it, found without the call
        elif raw is None and key in book.derived_inputs:
            continue  # None asks for the computed default
        else:
            values[key] = book.inputs[key].coerce(raw)
    # given, as `resolve_with` counts it: only whether a watched input was given changes the result
    given = frozenset([key for key, default in watched if values[key] != default]) if watched else NOTHING
    return book.code[name].resolve(values, given)


def _told(
    book: Book, name: str
) -> tuple[tuple[tuple[str, type, Any], ...], tuple[tuple[str, object], ...]]:
    """A rule's inputs in the order its function tells them, each with the values `coerce` takes
    as they are (`accepted`); and those a "had no effect" note may name, with their defaults."""
    found = book.told.get(name)
    if found is None:
        reads = book.rules[name].reads
        checks = tuple((key, *accepted(book.inputs[key])) for key in reads)
        watched = {input_name for input_name, _, _ in book.code[name].watches}
        found = book.told[name] = (checks, tuple((key, book.defaults[key]) for key in reads if key in watched))
    return found


def changed(*told: tuple[str, object, object]) -> frozenset[str]:
    """Of the inputs told (name, value, default), those told a value other than their default:
    `resolve_rule`'s `given`, for a rule written out."""
    return frozenset([name for name, value, default in told if value != default]) or NOTHING


def within(trace: TraceSpec, texts: tuple[str, ...], names: tuple[tuple[str, ...], ...]) -> TraceSpec:
    """A trace spec with the clauses (as written, and the names each reads) of the `as`
    statements around its step first."""
    return TraceSpec(trace.rule, trace.source, trace.item, texts + trace.clauses, names + trace.names)


def restriction_of(spec: TextSpec) -> Restriction:
    """What a `cannot` says when its conditions hold."""
    return Restriction(spec.rule, spec.source, spec.text)


def note_of(spec: TextSpec) -> Note:
    """What a note or an erratum says when its conditions hold."""
    return Note(spec.rule, spec.source, spec.text, spec.quote, spec.kind)


# ---------------------------------------------------------------------------- candidates
#
# A candidate is a step of a rule as its rule's code decided it: (its place, its key, the clause
# that did not hold or -1, its trace spec (None for a text without conditions), its spec, what
# it gives: a modifier's amount when it holds, a derived value's function, a roll's recipe, a
# text's note or restriction).


def counted(candidates: list[Candidate]) -> list[tuple[Candidate, bool]]:
    """The candidates of one value (or of the rolls, or the texts), each key once: the first
    whose clauses hold counts, where it is met; a key none of whose steps holds appears once,
    not applied, where it is first met (a part composed by two rules is one part)."""
    where: dict[str, int] = {}
    out: list[tuple[Candidate, bool] | None] = []
    for candidate in candidates:
        key = candidate[1]
        holds = candidate[2] < 0
        earlier = where.get(key)
        if earlier is not None:
            previous = out[earlier]
            if previous is not None and previous[1]:
                continue
            if not holds:
                continue
            out[earlier] = None
        where[key] = len(out)
        out.append((candidate, holds))
    return [x for x in out if x is not None]


def settle_counted(scope: Scope, name: str, candidates: list[Candidate], modifiers: list[Any]) -> Value:
    """A stat from its modifiers' candidates: counted, traced, and those that hold settled on its
    base (`settle_held`); each Modifier goes to `modifiers` with its place."""
    trace, v, e = scope.trace, scope.v, scope.e
    held: list[tuple[Any, Any]] = []
    where: list[Any] = []
    for candidate, holds in counted(candidates):
        trace.append(TraceEntry(candidate[3], candidate[2], v, e))  # type: ignore[arg-type]
        if holds:
            amount = candidate[5]
            held.append((candidate[4], amount() if callable(amount) else amount))
            where.append(candidate[0])
    return settle_held(scope.book, name, v[name], held, modifiers, where)


def derive_counted(scope: Scope, name: str, candidates: list[Candidate], derived: dict[str, Value]) -> None:
    """A derived value: that of the first candidate whose clauses hold.  When none holds, the first
    written is the value only if something reads it, and is worked out then (it may divide by
    what its own clauses rule out)."""
    trace, v, e = scope.trace, scope.v, cast(Settled, scope.e)
    chosen: Candidate | None = None
    first: Candidate | None = None
    for candidate, holds in counted(candidates):
        trace.append(TraceEntry(candidate[3], candidate[2], v, e))  # type: ignore[arg-type]
        first = first or candidate
        if holds and chosen is None:
            chosen = candidate
    if chosen is None:
        assert first is not None
        compute = first[5]
        e.wait(name, lambda: whole(compute()))
        return
    e[name] = derived[name] = whole(chosen[5]())


def rolls_counted(scope: Scope, candidates: list[Candidate]) -> list[Roll]:
    """The rolls whose clauses hold, counted and traced, each made with its changes."""
    trace, v, e = scope.trace, scope.v, scope.e
    rolls = []
    for candidate, holds in counted(candidates):
        trace.append(TraceEntry(candidate[3], candidate[2], v, e))  # type: ignore[arg-type]
        if holds:
            rolls.append(roll_of(scope, candidate[5]))
    return rolls


def texts_counted(
    scope: Scope, candidates: list[Candidate], restrictions: list[Restriction], notes: list[Note]
) -> None:
    """The restrictions and notes whose clauses hold, counted; those with clauses traced."""
    trace, v, e = scope.trace, scope.v, scope.e
    for candidate, holds in counted(candidates):
        if candidate[3] is not None:
            trace.append(TraceEntry(candidate[3], candidate[2], v, e))
        if holds:
            said = candidate[5]
            if isinstance(said, Restriction):
                restrictions.append(said)
            else:
                notes.append(said)


# ---------------------------------------------------------------------------- rules together


@dataclass(frozen=True, slots=True)
class Schedule:
    """How a set of rules resolved together settles, found once: its values in the book's order,
    each with the functions of the rules that decide its steps (and the rule's place); its rolls'
    and texts' functions; the inputs a note may say had no effect; what the resolution reports."""

    nodes: tuple[tuple[str, str, Any], ...]
    rolls: tuple[tuple[int, NodeFunction], ...]
    texts: tuple[tuple[int, NodeFunction], ...]
    watches: tuple[tuple[str, tuple[tuple[tuple[int, int], int], ...], Note], ...]
    reads: frozenset[str]
    order: tuple[str, ...]
    tables: tuple[str, ...]
    chains: bool


def schedule_of(book: Book, rules: tuple[str, ...]) -> Schedule:
    found = book.schedules.get(rules)
    if found is None:
        found = book.schedules[rules] = _schedule(book, rules)
    return found


def _schedule(book: Book, rules: tuple[str, ...]) -> Schedule:
    codes = [(at, book.code[name]) for at, name in enumerate(rules) if name in book.code]
    wanted: set[str] = set()
    for name in rules:
        for key in book.rules[name].reads:
            spec = book.inputs[key]
            if spec.is_stat:
                wanted.add("stat " + key)
            if spec.derived is not None:
                wanted.add("base " + key)
    for _, code in codes:
        wanted.update(node for node in code.nodes if node.startswith("derive "))
    nodes: list[tuple[str, str, Any]] = []
    for node in book.settle:
        if node not in wanted:
            continue
        kind, _, name = node.partition(" ")
        deciding = tuple((at, code.nodes[node]) for at, code in codes if node in code.nodes)
        if kind == "base":
            nodes.append(("base", name, book.inputs[name].derived))
        elif kind == "stat" and not deciding:
            nodes.append(("unmodified", name, None))
        else:
            nodes.append((kind, name, deciding))
    assert len(nodes) == len(wanted), f"not in the settle order: {sorted(wanted - set(book.settle))}"
    watches: dict[str, tuple[list[tuple[tuple[int, int], int]], Note]] = {}
    for at, code in codes:
        for name, steps, note in code.watches:
            places = [((at, step), clause) for step, clause in steps]
            if name in watches:
                watches[name][0].extend(places)
            else:
                watches[name] = (places, note)
    gated = tuple(
        (name, tuple(places), note)
        for name, (places, note) in watches.items()
        if all(clause > 0 for _, clause in places)  # read from the first clause on, it is always read
    )
    reads = frozenset(key for name in rules for key in book.rules[name].reads)
    tables = tuple(name for name in rules if name in book.tables)
    return Schedule(
        nodes=tuple(nodes),
        rolls=tuple((at, code.rolls) for at, code in codes if code.rolls is not None),
        texts=tuple((at, code.texts) for at, code in codes if code.texts is not None),
        watches=gated,
        reads=reads,
        order=tuple(sorted(reads, key=lambda k: book.order.get(k, len(book.order)))),
        tables=tables,
        chains=any(code.chains for _, code in codes) or any(sends_on(book.tables[t]) for t in tables),
    )


def resolve_together(book: Book, rules: tuple[str, ...], v: dict[str, Any], given: frozenset[str]) -> Resolution:
    """The situation of several rules and tables: each value settled from the candidates of every
    rule, in the book's order; then the rolls, the texts, the tables and the chains."""
    plan = schedule_of(book, rules)
    e = Settled()
    trace: list[TraceEntry] = []
    scope = CachedScope(book, v, e, trace)
    modifiers: list[tuple[Any, Modifier]] = []
    derived: dict[str, Value] = {}
    decided: dict[tuple[int, int], int] = {}
    for kind, name, deciding in plan.nodes:
        if kind == "unmodified":
            e[name] = whole(v[name])
        elif kind == "base":
            if v.get(name) is None:
                v[name] = whole(deciding(scope))
        else:
            candidates = _candidates(scope, deciding, decided)
            if kind == "stat":
                e[name] = settle_counted(scope, name, candidates, modifiers)
            else:
                derive_counted(scope, name, candidates, derived)
    rolls = rolls_counted(scope, _candidates(scope, plan.rolls, decided)) if plan.rolls else []
    restrictions: list[Restriction] = []
    notes: list[Note] = []
    if plan.texts:
        texts_counted(scope, _candidates(scope, plan.texts, decided), restrictions, notes)
    for name, places, note in plan.watches:
        if name in given and not any(decided[step] < 0 or decided[step] >= clause for step, clause in places):
            notes.append(note)
    for name in plan.tables:
        notes.extend(book.tables[name].notes)
    if given <= plan.reads:
        inputs = {key: v[key] for key in plan.order}
    else:
        inputs = {key: v[key] for key in sorted(plan.reads | given, key=lambda k: book.order.get(k, len(book.order)))}
    stats = {key: e[key] if key in e else v[key] for key in inputs if key in book.inputs and book.inputs[key].is_stat}
    modifiers.sort(key=FIRST)
    tables = tuple(table_result(scope, book.tables[name]) for name in plan.tables)
    return Resolution(
        rulebook=book.info.name,
        rules=rules,
        inputs=inputs,
        stats=stats,
        derived=derived,
        modifiers=tuple(map(SECOND, modifiers)),
        rolls=merge_rolls(scope, rolls) if len(rolls) > 1 else tuple(rolls),
        restrictions=tuple(restrictions),
        notes=tuple(notes),
        tables=tables,
        trace=tuple(trace),
        chains=chains_of(scope, rolls, tables) if plan.chains else (),
    )


def _candidates(
    scope: Scope, deciding: tuple[tuple[int, NodeFunction], ...], decided: dict[tuple[int, int], int]
) -> list[Candidate]:
    """The candidates of each rule, in the order the rules are named, their clauses decided (all of
    them before any is traced, as a rule alone decides them)."""
    candidates: list[Candidate] = []
    for at, function in deciding:
        function(scope, at, candidates)
    for candidate in candidates:
        decided[candidate[0]] = candidate[2]
    return candidates


# ---------------------------------------------------------------------------- the entry point


def resolve_with(
    book: Book,
    names: str | Sequence[str],
    given: Mapping[str, object],
    signature: bool = False,
) -> Resolution:
    """Resolve a situation in which the named rules and tables apply together.

    `signature`: `given` comes from a per-rule function, whose parameters all have a value; one
    at its default counts as not given (no "had no effect" note for what the caller never said)."""
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
    rules = tuple(chosen)
    plan = schedule_of(book, rules)
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
        if key not in plan.reads:
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
    code = book.code.get(rules[0]) if len(rules) == 1 else None
    if code is not None:
        return code.resolve(values, frozenset(supplied))
    return resolve_together(book, rules, values, frozenset(supplied))


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
