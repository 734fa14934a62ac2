"""Sequences: a rule resolved round after round (`rounds=N`), carrying the chance of still going
on and the exact distribution of what adds up from round to round.

Rolled (`rng=`, `rolled=`), the rounds are also played one after another: `roll_round` steps a
`RoundState` (the counter, whether `then` has changed the rounds, whether they have ended, the
totals so far, how often the followed outcome has come) through one round rolled, so that what a sequence can say (its state) and how a
round is rolled stay in one place.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Final, cast

from .base import RuleInputError, clip, show, shown, whole
from .book import Book
from .dice import MAX_COMBINATIONS, Chances, Dice
from .prng import Xoshiro128
from .resolve import resolve_with
from .results import Resolution, RolledRound, RolledSequence, RolledValue, RoundResult, SequenceResult
from .rolling import resolve_rolling, roll_dice, told_results
from .specs import SequenceSpec
from .throws import GeneratedFaces

_MAX_ROUNDS = 1000
"""The most rounds a sequence is resolved over: each round is a resolution or two (one per state:
still going, or changed by `then`), so a thousand stays well under a second."""


def resolve_rounds(
    book: Book,
    sequences: Mapping[str, SequenceSpec],
    names: str | Sequence[str],
    given: Mapping[str, object],
    rounds: object,
    signature: bool = False,
    rng: object = None,
    rolled: object = None,
) -> Resolution:
    """`resolve(names, rounds=N, ...)`: the situation of the first round, with its sequence over
    N rounds (`Resolution.sequence`).  Without `rounds`, `resolve_with` alone.  `rng` (a seed, a
    Xoshiro128 or a random.Random) rolls the situation's rolls and tables, `rolled` tells results
    rolled elsewhere (dsl/runtime/rolling.py); over rounds, each round in turn (`roll_round`)."""
    rolling = rng is not None or rolled is not None
    if rounds is None:
        if rolling:
            return resolve_rolling(
                book, names, given, rng, rolled, lambda inputs: resolve_with(book, names, inputs, signature)
            )
        return resolve_with(book, names, given, signature)
    if type(rounds) is not int or not 1 <= rounds <= _MAX_ROUNDS:
        raise RuleInputError(f"rounds is a whole number from 1 to {_MAX_ROUNDS}, not {shown(rounds)}")
    chosen = (names,) if isinstance(names, str) else tuple(names)
    specs = [sequences[name] for name in chosen if isinstance(name, str) and name in sequences]
    if not specs:
        first = resolve_with(book, names, given, signature)  # a bad name or input says so first
        with_sequence = ", ".join(sequences) or "none"
        raise RuleInputError(
            f"{', '.join(first.rules)} says nothing changes from round to round (rules with rounds: {with_sequence})"
        )
    if len(specs) > 1:
        raise RuleInputError(f"resolve one sequence at a time: {', '.join(s.rule for s in specs)} each have one")
    spec = specs[0]
    inputs = dict(given)
    start = spec.start
    last = start + rounds - 1
    if spec.counter is not None:
        counter = book.inputs[spec.counter]
        raw = given.get(spec.counter)
        unsaid = raw is None or (signature and raw == book.defaults.get(spec.counter))
        start = spec.start if unsaid else int(cast(int, counter.coerce(raw)))
        last = start + rounds - 1
        if counter.high is not None and last > counter.high:
            raise RuleInputError(
                f"{rounds} {spec.unit}s from {spec.counter} {start} run to {last}, past its highest, {show(counter.high)}"
            )
        inputs[spec.counter] = start
    counted = {name: _count_start(book, name, given.get(name), signature) for name in spec.counted}
    first = resolve_with(book, names, inputs, signature)
    result = sequence_over(
        spec,
        rounds,
        lambda number, changed, come: resolve_with(
            book, names, round_inputs(book, spec, inputs, counted, (number, changed, come)), signature
        ),
        start,
    )
    if not rolling:
        return replace(first, sequence=result)
    told = _told_by_round(spec, rolled, start, last)
    stream = Xoshiro128(rng) if type(rng) is int else rng  # one generator, rolled on from round to round
    if stream is not None:
        GeneratedFaces(stream)  # refuses what is no generator before any round is rolled
    state = RoundState(start, False, False, {name: 0 for name in spec.totals}, 0)
    played: list[RolledRound] = []
    first_rolled = first
    while state.number <= last and not state.ended and (stream is not None or state.number in told):
        number = state.number
        try:
            resolution, state, record = roll_round(
                spec,
                state,
                lambda inputs, rolls: resolve_rolling(
                    book, names, inputs, stream, rolls, lambda rolled: resolve_with(book, names, rolled, signature)
                ),
                lambda at: round_inputs(book, spec, inputs, counted, at),
                stream,
                told.pop(number, {}),
            )
        except RuleInputError as error:
            raise RuleInputError(f"{spec.unit} {number}: {error}") from None
        first_rolled = resolution if number == start else first_rolled
        played.append(record)
    if told:
        stop = (
            f"the sequence ended in {spec.unit} {state.number - 1}"
            if state.ended
            else f"{spec.unit} {state.number} is neither told nor rolled from a seed"
        )
        raise RuleInputError(f"{spec.unit} {min(told)} is told, but {stop}")
    rounds_out = tuple(
        replace(item, rolled=played[index]) if index < len(played) else item for index, item in enumerate(result.rounds)
    )
    ended = start + len(played) - 1 if state.ended else None
    changed = next((start + i for i, r in enumerate(played) if r.ends and spec.then is not None), None)
    summary = RolledSequence(len(played), ended, changed, dict(state.totals))
    return replace(first_rolled, sequence=replace(result, rounds=rounds_out, rolled=summary))


@dataclass(frozen=True, slots=True)
class RoundState:
    """Where a rolled sequence stands before a round: the counter's value, whether `then` has set
    its input (the `until` outcome came up in an earlier round), whether it has ended, each
    total rolled so far, and in how many rounds the outcome the sequence follows has come
    (`count`, `until ... N times`; next_state)."""

    number: int
    changed: bool
    ended: bool
    totals: Mapping[str, int | Fraction]
    come: int = 0


def roll_round(
    spec: SequenceSpec,
    state: RoundState,
    roll: Callable[[Mapping[str, object], Mapping[str, object]], Resolution],
    inputs_at: Callable[[Round], Mapping[str, object]],
    stream: object,
    told: Mapping[str, object],
) -> tuple[Resolution, RoundState, RolledRound]:
    """One round rolled, from `state` to the next: the situation of the round (its inputs from
    `inputs_at`: the counter, once changed the input `then` sets, the counts; round_inputs)
    rolled by `roll` (told the results of `told` that are rolls), then the dice of each total
    (`stream`, or as `told`), in the order the totals are named; the outcome the sequence
    follows read from the roll made, and the state stepped as the exact rounds step it
    (next_state)."""
    round_told = dict(told)
    said = {name: round_told.pop(name) for name in spec.totals if name in round_told}
    resolution = roll(inputs_at((state.number, state.changed, state.come)), round_told)
    values = {name: _rolled_value(resolution, name, spec, stream, said.get(name), state.number) for name in spec.totals}
    phase = "changed" if state.changed else "going"
    after, come = next_state(spec, phase, state.come, _came_up(resolution, spec, state.number))
    ends = after != phase
    totals = {name: whole(state.totals[name] + values[name].value) for name in spec.totals}
    following = RoundState(state.number + 1, after == "changed", after == "ended", totals, come)
    rolls = tuple(r for r in resolution.rolls if r.rolled is not None)
    tables = tuple(t for t in resolution.tables if t.rolled is not None)
    return resolution, following, RolledRound(state.changed, ends, rolls, tables, values, totals)


def _told_by_round(spec: SequenceSpec, rolled: object, start: int, last: int) -> dict[int, dict[str, object]]:
    """The results told, by round: `N:name` for round N (the counter's value), `name` for the first."""
    by_round: dict[int, dict[str, object]] = {}
    for key, value in told_results(rolled).items():
        place, colon, name = key.partition(":")
        if not colon:
            place, name = str(start), key
        if not place.isascii() or not place.isdigit() or len(place) > 30 or not name:
            raise RuleInputError(
                f"`{clip(key)}`: a result told for a {spec.unit} is `N:name`, N its {spec.counter or 'number'}"
            )
        number = int(place)
        if not start <= number <= last:
            raise RuleInputError(f"`{clip(key)}`: {spec.unit} {number} is not among those resolved ({start} to {last})")
        found = by_round.setdefault(number, {})
        if name in found:
            raise RuleInputError(f"`{clip(name)}` is told twice for {spec.unit} {number}")
        found[name] = value
    return by_round


def _rolled_value(
    resolution: Resolution, name: str, spec: SequenceSpec, stream: object, said: object, number: int
) -> RolledValue:
    """What a total takes from a rolled round `number`: its number, or its dice rolled (or told);
    0 when the round derives none."""
    value = resolution.derived.get(name)
    if value is None or (isinstance(value, (int, Fraction)) and not isinstance(value, bool)):
        if said is not None:
            raise RuleInputError(f"`{name}` is told, but it is no dice here: nothing is rolled")
        return RolledValue(whole(value) if value is not None else 0, None)
    if not isinstance(value, Dice):
        _round_value(resolution, name, spec, number)  # the error: not a number to add up
    assert isinstance(value, Dice)
    if said is None and stream is None:
        raise RuleInputError(f"`{name}` is {show(value)}: tell it (`{number}:{name}`), or give a seed")
    side = roll_dice(name, value, said, stream)
    return RolledValue(side.total, side)


def _came_up(resolution: Resolution, spec: SequenceSpec, number: int) -> bool:
    """Whether the outcome the sequence follows (its `until`'s, else its counts') came up in a
    rolled round (False when the roll is not made, or nothing is followed)."""
    event = spec.until or spec.follows
    if event is None:
        return False
    name, outcome = event
    for roll in resolution.rolls:
        if roll.name == name:
            made = roll.rolled
            if made is None:
                raise RuleInputError(
                    f"`{name}` decides whether the {spec.unit}s go on: tell it (`{number}:{name}`), or give a seed"
                )
            # succeeding or failing as a whole (a critical succeeds too), else the outcome or tier named
            if made.success is not None and outcome in ("success", "failure"):
                return made.success == (outcome == "success")
            return outcome in made.outcomes
    return False


def _count_start(book: Book, name: str, raw: object, signature: bool) -> int:
    """Where a count input starts: the value the caller gave it, else 0."""
    if raw is None or (signature and raw == book.defaults.get(name)):
        return 0
    return int(cast(int, book.inputs[name].coerce(raw)))


Round = tuple[int, bool, int]
"""What one round of a sequence is resolved at: its number, whether `then` has changed the
situation, and how many rounds before it the followed outcome came in."""


def round_inputs(
    book: Book, spec: SequenceSpec, given: Mapping[str, object], counted: Mapping[str, int], at: Round
) -> dict[str, object]:
    """The inputs of one round: the counter at the round's number, the `then` input once changed,
    each count input as many higher than where it started (`counted`) as the outcome has come;
    a count past its input's highest is refused with the rounds that fit."""
    number, changed, come = at
    inputs = dict(given)
    if spec.counter is not None:
        inputs[spec.counter] = number
    if changed and spec.then is not None:
        inputs[spec.then[0]] = spec.then[1]
    for name, begun in counted.items():
        high = book.inputs[name].high
        if high is not None and begun + come > high:
            raise RuleInputError(
                f"`{name}` reaches {begun + come} in {spec.unit} {number}, past its highest, {show(high)}:"
                f" fewer {spec.unit}s, or a wider range for `{name}`"
            )
        inputs[name] = begun + come
    return inputs


def next_state(spec: SequenceSpec, phase: str, come: int, came: bool) -> tuple[str, int]:
    """The state after a round in (`phase`, `come`), the followed outcome come in it or not: the
    count one higher when it came (kept while something reads it: a count, or an `until` waiting
    for its Nth time); the sequence ended, or changed by `then`, the round the `until` outcome
    has come `times` times."""
    if not came:
        return (phase, come)
    after = come + 1
    if phase == "going" and spec.until is not None and after >= spec.times:
        phase = "changed" if spec.then is not None else "ended"
    keeps = bool(spec.counted) or (phase == "going" and spec.times > 1)
    return (phase, after if keeps else 0)


SEQUENCE_WORK: Final = 300_000_000
"""The most work a sequence's totals may cost: each step adds one value's chance into one total,
and costs 100 plus a unit per 64 bits of the whole numbers it multiplies (measured: about 550 ns
a step, and 6 ns more per 64 bits).  A total's values grow by a die's span each round and its
chances by a digit or more, so the work of N rounds grows as N cubed; this bound is a second or
two of work, past which the resolution is refused with the rounds that fit."""


class _Weights:
    """The chances of each value of a total, in one state of a sequence: whole numbers over one
    denominator (a Fraction per value would spend most of the time reducing them)."""

    __slots__ = ("denominator", "ways")

    def __init__(self, denominator: int, ways: dict[int | Fraction, int]) -> None:
        self.denominator = denominator
        self.ways = ways

    def scaled(self, factor: Fraction) -> _Weights:
        top = factor.numerator
        return _Weights(self.denominator * factor.denominator, {v: w * top for v, w in self.ways.items()})

    def plus(self, other: _Weights) -> _Weights:
        """The weights of either (their chances added): over the common denominator."""
        common = math.lcm(self.denominator, other.denominator)
        mine, theirs = common // self.denominator, common // other.denominator
        ways = {v: w * mine for v, w in self.ways.items()}
        for v, w in other.ways.items():
            ways[v] = ways.get(v, 0) + w * theirs
        return _Weights(common, ways)

    def mean(self) -> Fraction:
        return Fraction(sum(v * w for v, w in self.ways.items()), self.denominator)

    def cost(self, terms: int) -> int:
        """The work of adding `terms` values to each of these totals (SEQUENCE_WORK)."""
        return len(self.ways) * terms * (100 + self.denominator.bit_length() // 64)


_State = tuple[Fraction, dict[str, _Weights]]

RESOLUTION_WORK: Final = 10_000
"""The work one round's resolution costs, in SEQUENCE_WORK's units (measured: a rule with a roll
and a derived value takes 10 to 40 µs a round, its state's chances split along); a sequence that
counts resolves a round once for each count it may be at, so its rounds' work grows as their
square."""


def sequence_over(
    spec: SequenceSpec, rounds: int, resolve_round: Callable[[int, bool, int], Resolution], start: int
) -> SequenceResult:
    """Round after round, the chance of each state (going on; changed by `then`; ended; each at
    how many rounds the followed outcome has come in) and, in each state, the distribution of
    every total so far (weights that add up to the state's chance).  The values of a round do
    not depend on its roll, so a round adds them to every state it leaves, and a state is split
    by the chance of the followed outcome (next_state).  The work the resolutions and the
    totals cost is counted as it is done (SEQUENCE_WORK)."""
    states: dict[tuple[str, int], _State] = {
        ("going", 0): (Fraction(1), {name: _Weights(1, {0: 1}) for name in spec.totals})
    }
    results: list[RoundResult] = []
    work = 0
    for index in range(rounds):
        number = start + index
        following: dict[tuple[str, int], _State] = {}
        rolled: dict[str, dict[str, Fraction]] = {}
        going = sum((mass for (phase, _), (mass, _) in states.items() if phase == "going"), Fraction(0))
        ends = Fraction(0)
        for (phase, come), (mass, totals) in states.items():
            if phase == "ended" or not mass:
                _merge(following, (phase, come), mass, totals)
                continue
            work += RESOLUTION_WORK
            if work > SEQUENCE_WORK:
                raise RuleInputError(_too_many(spec, rounds, index, len(states)))
            resolution = resolve_round(number, phase == "changed", come)
            added: dict[str, _Weights] = {}
            for name in spec.totals:
                value = _round_value(resolution, name, spec, number)
                work += totals[name].cost(len(value.table))
                if work > SEQUENCE_WORK:
                    raise RuleInputError(_too_long(spec, rounds, index, totals[name], name))
                added[name] = _convolved(totals[name], value)
            for roll in resolution.rolls:
                outcomes = rolled.setdefault(roll.name, {})
                for outcome, p in roll.outcomes.items():
                    outcomes[outcome] = outcomes.get(outcome, Fraction(0)) + mass * p
            came = _followed_chance(resolution, spec)
            hit, miss = next_state(spec, phase, come, True), next_state(spec, phase, come, False)
            if hit[0] != phase:
                ends += mass * came
            if came != 1:
                _merge(following, miss, mass * (1 - came), {k: w.scaled(1 - came) for k, w in added.items()})
            if came:
                _merge(following, hit, mass * came, {k: w.scaled(came) for k, w in added.items()})
        states = following
        means = {name: sum((totals[name].mean() for _, totals in states.values()), Fraction(0)) for name in spec.totals}
        results.append(RoundResult(number, going, ends, rolled, means))
    final: dict[str, Chances] = {}
    for name in spec.totals:
        combined: _Weights | None = None
        for _, totals in states.values():
            combined = totals[name] if combined is None else combined.plus(totals[name])
        assert combined is not None
        final[name] = Chances(
            tuple(sorted((v, Fraction(w, combined.denominator)) for v, w in combined.ways.items() if w))
        )
    lasting = sum((mass for (phase, _), (mass, _) in states.items() if phase == "going"), Fraction(0))
    until = f"{spec.until[0]} {spec.until[1]}{_times_text(spec.times)}" if spec.until is not None else None
    return SequenceResult(spec.rule, spec.unit, spec.counter, until, tuple(results), lasting, final)


def _times_text(times: int) -> str:
    """`until` said in a result: ` 3 times` when it waits for more than the first time."""
    return f" {times} times" if times > 1 else ""


def _too_many(spec: SequenceSpec, rounds: int, done: int, states: int) -> str:
    """A sequence that counts resolves each round once per count it may be at: refused when
    that is more than a resolver works out, with the rounds that fit."""
    held = f"{spec.unit} {done + 1} is resolved at {states:,} counts of `{spec.counted[0]}`"
    if not done:
        return f"one {spec.unit} of {spec.rule} is more than a resolver works out exactly: {held}"
    return (
        f"{rounds} {spec.unit}s of {spec.rule} are more than a resolver works out exactly: {held}, and each"
        f" {spec.unit} adds one; ask for at most {done} {spec.unit}{'s' if done > 1 else ''}"
    )


def _too_long(spec: SequenceSpec, rounds: int, done: int, weights: _Weights, name: str) -> str:
    digits = len(str(weights.denominator))
    grown = f"`{name}` already has {len(weights.ways):,} values whose chances take {digits:,} digits"
    if not done:
        return f"one {spec.unit} of {spec.rule} is more than a resolver works out exactly: {grown}"
    return (
        f"{rounds} {spec.unit}s of {spec.rule} are more than a resolver works out exactly: after {done}"
        f" {spec.unit}{'s' if done > 1 else ''}, {grown}, and each {spec.unit} adds to both;"
        f" ask for at most {done} {spec.unit}{'s' if done > 1 else ''}"
    )


def _round_value(resolution: Resolution, name: str, spec: SequenceSpec, number: int) -> Chances:
    """What a derived value adds in a round: its distribution, or 0 when the round derives none."""
    value = resolution.derived.get(name)
    if value is None:
        return Chances(((0, Fraction(1)),))
    if isinstance(value, (Dice, int, Fraction)) and not isinstance(value, bool):
        return Chances.of(value)
    raise RuleInputError(f"`{name}` is {show(value)} in {spec.unit} {number}: not a number to add up")


def _followed_chance(resolution: Resolution, spec: SequenceSpec) -> Fraction:
    """The chance the outcome the sequence follows (its `until`'s, else its counts') comes up
    this round (0 when the roll is not made, or nothing is followed)."""
    event = spec.until or spec.follows
    if event is None:
        return Fraction(0)
    name, outcome = event
    for roll in resolution.rolls:
        if roll.name == name:
            # succeeding or failing as a whole (a critical succeeds too), else the outcome or tier named
            if roll.probability is not None and outcome in ("success", "failure"):
                return roll.probability if outcome == "success" else Fraction(1) - roll.probability
            return roll.outcomes.get(outcome, Fraction(0))
    return Fraction(0)


def _convolved(weights: _Weights, value: Chances) -> _Weights:
    """The weights of a total with one more round's value added (an independent roll)."""
    if len(weights.ways) * len(value.table) > MAX_COMBINATIONS:
        raise RuleInputError("a total over the rounds has too many values to work out exactly: fewer rounds")
    theirs = math.lcm(*(p.denominator for _, p in value.table))
    ways = [(b, p.numerator * (theirs // p.denominator)) for b, p in value.table]
    combined: dict[int | Fraction, int] = {}
    for a, wa in weights.ways.items():
        for b, wb in ways:
            key = a + b if type(a) is int and type(b) is int else whole(Fraction(a) + b)
            combined[key] = combined.get(key, 0) + wa * wb
    return _Weights(weights.denominator * theirs, combined)


def _merge(states: dict[tuple[str, int], _State], state: tuple[str, int], mass: Fraction, totals: dict[str, _Weights]) -> None:
    found = states.get(state)
    if found is None:
        states[state] = (mass, totals)
        return
    states[state] = (found[0] + mass, {name: found[1][name].plus(weights) for name, weights in totals.items()})
