"""A rule resolved round after round (`each round ...`, `rounds=N`), worked out from the model
(docs/language.md, "Sequences: rounds, turns, days").

Round after round the situation is in one of three phases: still going, changed by `then` (the
`until` outcome came and set an input from the next round on), or ended (it came and nothing is
set); and, when the sequence counts an outcome (`count ...`, `until ... N times`), at one count
of it.  Each state carries its chance and, for each total, the chance of each value it has
reached.  A round resolves the rule in each state that goes on (the counter at the round's
number, the `then` input set once changed, each count input at the state's count); what the
round derives is added to every total, as an independent roll; the chance of the followed
outcome moves that much of the state on (one count higher; ended or changed by the `until`).
Plain fractions throughout: a resolver's bound on the work (SEQUENCE_WORK) is a resolver's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

from dsl import model as m
from dsl.runtime.base import RuleInputError, show
from dsl.runtime.dice import Chances, Dice, Value
from dsl.runtime.results import Resolution, RoundResult, SequenceResult

Weights = dict[int | Fraction, Fraction]


State = tuple[str, int]
"""A state of a sequence: its phase (`going`, `changed` by `then`, `ended`) and how many rounds
the outcome it follows has come in (0 when nothing reads that)."""


def over_rounds(
    rule: m.Rule, rounds: int, start: int, resolve_round: Callable[[int, bool, int], Resolution]
) -> SequenceResult:
    """`resolve_round(number, changed, come)` resolves one round: the counter at `number`, the
    `then` input set when `changed`, each `count` input `come` higher than where it started."""
    sequence = rule.sequence
    assert sequence is not None
    states: dict[State, tuple[Fraction, dict[str, Weights]]] = {
        ("going", 0): (Fraction(1), {name: {0: Fraction(1)} for name in sequence.totals})
    }
    results = []
    for number in range(start, start + rounds):
        following: dict[State, tuple[Fraction, dict[str, Weights]]] = {}
        rolled: dict[str, dict[str, Fraction]] = {}
        going = sum((mass for (phase, _), (mass, _) in states.items() if phase == "going"), Fraction(0))
        ends = Fraction(0)
        for (phase, count), (mass, totals) in states.items():
            if phase == "ended" or not mass:
                _add(following, (phase, count), mass, totals)
                continue
            resolution = resolve_round(number, phase == "changed", count)
            added = {name: _plus(totals[name], _value(resolution, name, sequence, number)) for name in sequence.totals}
            for roll in resolution.rolls:
                chances = rolled.setdefault(roll.name, {})
                for outcome, p in roll.outcomes.items():
                    chances[outcome] = chances.get(outcome, Fraction(0)) + mass * p
            came = _followed(resolution, sequence)
            hit, miss = _after(sequence, phase, count, came=True), _after(sequence, phase, count, came=False)
            if hit[0] != phase:
                ends += mass * came
            if came != 1:
                _add(following, miss, mass * (1 - came), _times(added, 1 - came))
            if came:
                _add(following, hit, mass * came, _times(added, came))
        states = following
        means = {
            name: sum((Fraction(v) * p for _, totals in states.values() for v, p in totals[name].items()), Fraction(0))
            for name in sequence.totals
        }
        results.append(RoundResult(number, going, ends, rolled, means))
    final = {}
    for name in sequence.totals:
        combined: Weights = {}
        for _, totals in states.values():
            for v, p in totals[name].items():
                combined[v] = combined.get(v, Fraction(0)) + p
        final[name] = Chances(tuple(sorted((v, p) for v, p in combined.items() if p)))
    lasting = sum((mass for (phase, _), (mass, _) in states.items() if phase == "going"), Fraction(0))
    until = None
    if sequence.until is not None:
        until = f"{sequence.until[0]} {sequence.until[1]}" + (f" {sequence.times} times" if sequence.times > 1 else "")
    return SequenceResult(rule.name, sequence.unit, sequence.counter, until, tuple(results), lasting, final)


def _after(sequence: m.Sequence, phase: str, count: int, came: bool) -> State:
    """The state after a round in `(phase, count)`, the followed outcome come or not: the count
    one higher when it came (kept only while something reads it: a count, or an `until` that
    waits for its Nth time); the sequence ended or changed the round the `until` outcome has
    come `times` times."""
    if not came:
        return (phase, count)
    after = count + 1
    if phase == "going" and sequence.until is not None and after >= sequence.times:
        phase = "changed" if sequence.then is not None else "ended"
    keeps = bool(sequence.counts) or (phase == "going" and sequence.times > 1)
    return (phase, after if keeps else 0)


def _value(resolution: Resolution, name: str, sequence: m.Sequence, number: int) -> Weights:
    """What a derived value adds in a round: the chance of each of its values; 0 when the round
    derives none."""
    value: Value | None = resolution.derived.get(name)
    if value is None:
        return {0: Fraction(1)}
    if isinstance(value, Dice):
        return {total: chance for total, chance in value.totals().items()}
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        return {value: Fraction(1)}
    raise RuleInputError(
        f"`{name}` is {show(value)} in {sequence.unit} {number}: not a number to add up"
    )


def _followed(resolution: Resolution, sequence: m.Sequence) -> Fraction:
    """The chance the outcome the sequence follows (its `until`'s, else its counts') comes up this
    round: of a roll's success or failure as a whole (a critical succeeds too), or of the outcome
    or tier it names; 0 when not rolled or when nothing is followed."""
    event = sequence.until or next(((c.roll, c.outcome) for c in sequence.counts), None)
    if event is None:
        return Fraction(0)
    name, outcome = event
    for roll in resolution.rolls:
        if roll.name == name:
            if roll.probability is not None and outcome in ("success", "failure"):
                return roll.probability if outcome == "success" else 1 - roll.probability
            return roll.outcomes.get(outcome, Fraction(0))
    return Fraction(0)


def _plus(weights: Weights, value: Weights) -> Weights:
    """The chances of a total plus an independent value: every pair of values, its chance the
    product of theirs.  Worked out over whole numbers (each side's chances over its common
    denominator), since a round adds as many pairs as its totals have values times the value's."""
    low, ways = _over_whole_numbers(weights)
    high, adds = _over_whole_numbers(value)
    out: dict[int | Fraction, int] = {}
    for a, wa in ways:
        for b, wb in adds:
            total = a + b
            key = total.numerator if isinstance(total, Fraction) and total.denominator == 1 else total
            out[key] = out.get(key, 0) + wa * wb
    denominator = low * high
    return {key: Fraction(count, denominator) for key, count in out.items()}


def _over_whole_numbers(weights: Weights) -> tuple[int, list[tuple[int | Fraction, int]]]:
    """Chances as whole numbers over one denominator: (the denominator, each value's count)."""
    denominator = math.lcm(*(p.denominator for p in weights.values())) if weights else 1
    return denominator, [(v, p.numerator * (denominator // p.denominator)) for v, p in weights.items()]


def _times(totals: dict[str, Weights], factor: Fraction) -> dict[str, Weights]:
    return {name: {v: p * factor for v, p in weights.items()} for name, weights in totals.items()}


def _add(states: dict[State, tuple[Fraction, dict[str, Weights]]], state: State, mass: Fraction, totals: dict[str, Weights]) -> None:
    if state not in states:
        states[state] = (mass, totals)
        return
    before, kept = states[state]
    merged = {name: dict(weights) for name, weights in kept.items()}
    for name, weights in totals.items():
        for v, p in weights.items():
            merged[name][v] = merged[name].get(v, Fraction(0)) + p
    states[state] = (before + mass, merged)
