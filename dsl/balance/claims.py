"""Checking a rulebook's balance blocks: every claim, in every situation of its space, exactly.

A balance block is swept as `rulecraft sweep` sweeps (the same plan, chunks and worker
processes, or a Dask cluster), once for its own rules and once for each variant a claim names
(`chance fall in deep_mud`), the sweeps read in step so that each situation's measures meet.
Every number comes from the rulebook's generated resolver: a claim is a comparison of exact
fractions, never a sample.

A claim's *margin* in a situation says how far it is from failing, in the claim's own units (a
chance's in probability, so 1/20 is five percentage points): for `M <= B` it is B - M, for
`M >= B` M - B, for `M between L and H` the nearer of M - L and H - M, for `==` minus the
distance, for `!=` the distance.  The claim holds where its margin is at least 0 (above 0 for
`<`, `>` and `!=`).  Its *worst situation* is the one of least margin (the first, on a tie): the
one reported when it fails, the one closest to failing when it holds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dsl import model as m
from dsl import nodes as n
from dsl.balance.books import Edition
from dsl.balance.layout import build_layout, columns
from dsl.balance.rows import Plan, Row, plain
from dsl.balance.spec import Axis, input_label, shown_value
from dsl.balance.sweeps import Sweep
from dsl.diagnostics import Diagnostic, render
from dsl.runtime.dice import Dice

Progress = Callable[[int], None]


@dataclass(frozen=True)
class Situation:
    """Where a claim was measured: the situation's index in the space, its varied values, the
    measure (and the other measure of a comparison) there, and the claim's margin."""

    index: int
    values: tuple[Any, ...]
    measured: Fraction
    other: Fraction | None
    margin: Fraction


@dataclass
class ClaimResult:
    claim: n.Claim
    measured: int = 0  # situations where the claim's measures exist (the roll is called for ...)
    failed: int = 0
    worst: Situation | None = None
    first_failure: Situation | None = None

    @property
    def passed(self) -> bool:
        return self.measured > 0 and self.failed == 0


@dataclass
class BalanceResult:
    balance: m.Balance
    axes: tuple[Axis, ...]
    claims: list[ClaimResult] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(result.passed for result in self.claims)

    def situation_text(self, situation: Situation) -> str:
        if not self.axes:
            return "in its one situation"
        shown = ", ".join(
            f"{axis.name} = {shown_value(value)}" for axis, value in zip(self.axes, situation.values, strict=True)
        )
        return f"at {shown}"


def check_balance(
    edition: Edition,
    balance: m.Balance,
    jobs: int | None = None,
    progress: Progress | None = None,
    scheduler: str | None = None,
) -> BalanceResult:
    """Every claim of BALANCE over its whole space, resolved by EDITION's resolver module (in
    JOBS processes, or on the Dask cluster of SCHEDULER, as a sweep is)."""
    axes = tuple(_axis(edition, axis) for axis in balance.space)
    given = tuple((name, plain(value)) for name, value in balance.givens)
    variants = balance.variants()
    sweeps = [_sweep(edition, rules, axes, given) for rules in variants]
    readers = [_Reader(sweep, rules) for sweep, rules in zip(sweeps, variants, strict=True)]
    results = [ClaimResult(claim) for claim in balance.claims]
    measures = [
        [(variants.index(m.rules_of(measure, balance.rules)), measure) for measure in m.claim_measures(claim)]
        for claim in balance.claims
    ]
    index = 0
    streams = [sweep.chunks(jobs, progress if number == 0 else None, scheduler) for number, sweep in enumerate(sweeps)]
    for chunks in zip(*streams, strict=True):
        for rows in zip(*chunks, strict=True):
            values = rows[0][: len(axes)]
            for claim, result, parts in zip(balance.claims, results, measures, strict=True):
                found = [readers[variant].measure(rows[variant], measure) for variant, measure in parts]
                measured = found[0]
                if measured is None or None in found:
                    continue
                _judge(claim, result, Situation(index, tuple(values), measured, *_margin(claim, found)))
            index += 1
    return BalanceResult(balance, axes, results)


def check_balances(edition: Edition, jobs: int | None = None) -> list[BalanceResult]:
    return [check_balance(edition, balance, jobs) for balance in edition.model.balances]


def measure_text(measure: n.Measure) -> str:
    """A measure as the book writes it: `chance fall.failure in deep_mud`."""
    if isinstance(measure, n.ChanceMeasure):
        text = f"chance {measure.name.text}" + (f".{measure.tier.text}" if measure.tier is not None else "")
    elif isinstance(measure, n.AverageMeasure):
        text = f"average {measure.name.text}"
    else:
        text = measure.name.text
    if measure.variant:
        text += " in " + ", ".join(name.text for name in measure.variant)
    return text


def amount_text(value: Fraction, chance: bool) -> str:
    """A value measured or bounded: a chance as a fraction and a percentage (`5/8 (62.5%)`)."""
    exact = str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if not chance:
        return exact if value.denominator == 1 else f"{exact} ({float(value):.4g})"
    percent = f"{float(value * 100):.4g}%"
    return percent if value.denominator == 1 or (value * 100).denominator == 1 else f"{exact} ({percent})"


def diagnostics(result: BalanceResult) -> list[Diagnostic]:
    """An E990 for every claim that fails: its worst situation, with the value measured there."""
    found: list[Diagnostic] = []
    title = result.balance.title
    for claim_result in result.claims:
        if claim_result.passed:
            continue
        claim = claim_result.claim
        if claim_result.worst is None:
            found.append(
                Diagnostic(
                    "E990",
                    f'balance "{title}": `{measure_text(claim.measure)}` is measured in no situation of the space',
                    claim.span,
                    "no situation of the space calls for the roll; widen the space, or give what the rule needs",
                )
            )
            continue
        worst = claim_result.worst
        found.append(
            Diagnostic(
                "E990",
                f'balance "{title}": {result.situation_text(worst)}, {_failure(claim, worst)}; '
                f"it fails in {claim_result.failed:,} of {claim_result.measured:,} situations measured",
                claim.span,
            )
        )
    return found


def lines(result: BalanceResult, path: str, source: Sequence[str], verbose: bool) -> list[str]:
    """What `rulecraft test` prints of one balance block."""
    size = f"{result.balance.size:,} situation{'s' if result.balance.size != 1 else ''}"
    if result.passed:
        if not verbose:
            return []
        out = [f'ok    {path}: balance "{result.balance.title}" ({size})']
        for claim_result in result.claims:
            worst = claim_result.worst
            assert worst is not None
            out.append(
                f"      {_claim_text(claim_result.claim)}: closest {result.situation_text(worst)}, "
                f"{_measured_text(claim_result.claim, worst)}"
            )
        return out
    out = [f'FAIL  {path}: balance "{result.balance.title}" ({size})']
    out.extend(render(d, list(source)) for d in diagnostics(result))
    return out


# ---------------------------------------------------------------------- sweeping


def _axis(edition: Edition, axis: m.SpaceAxis) -> Axis:
    spec = edition.module.INPUTS[axis.name]
    values: Sequence[Any] = axis.values if isinstance(axis.values, range) else tuple(plain(v) for v in axis.values)
    return Axis(axis.name, input_label(edition, axis.name), spec.kind, values)


def _sweep(
    edition: Edition, rules: tuple[str, ...], axes: tuple[Axis, ...], given: tuple[tuple[str, Any], ...]
) -> Sweep:
    layout = build_layout([edition], [rules])
    plan = Plan(rules, axes, given, layout, 1)
    return Sweep((edition,), plan, columns(axes, layout, 1))


class _Reader:
    """Reads measures out of the rows of one variant's sweep."""

    def __init__(self, sweep: Sweep, rules: tuple[str, ...]) -> None:
        self.at = {column.name: index for index, column in enumerate(sweep.columns)}
        self.keys = {name: key for (_, name), key in sweep.plan.layout.roll_keys.get(rules, {}).items()}

    def measure(self, row: Row, measure: n.Measure) -> Fraction | None:
        """The measure in the situation of ROW; None where it does not exist (no roll called for,
        a stat the situation leaves without a number)."""
        if isinstance(measure, n.ChanceMeasure):
            key = self.keys[measure.name.text]
            tier = measure.tier.text if measure.tier is not None else None
            column = f"roll.{key}[{tier}]"
            if tier is not None and column in self.at:
                return _fraction(row[self.at[column]])
            chance = _fraction(row[self.at[f"roll.{key}"]])
            if chance is None or tier in (None, "success", "win"):
                return chance
            return 1 - chance  # "failure" of a roll without tiers
        value = row[self.at[f"stat.{measure.name.text}"]]
        if isinstance(measure, n.AverageMeasure) and isinstance(value, str):
            try:
                return Fraction(Dice.parse(value).chances().mean)
            except ValueError:
                return None  # X or N/A of a table cell
        return _fraction(value)


def _fraction(value: Any) -> Fraction | None:
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        return None
    return Fraction(value)


# ---------------------------------------------------------------------- judging


def _margin(claim: n.Claim, found: list[Fraction | None]) -> tuple[Fraction | None, Fraction]:
    """The other side of the comparison (None for a `between`) and the claim's margin."""
    measured = found[0]
    assert measured is not None
    if isinstance(claim, n.ClaimBetween):
        return None, min(measured - claim.low.value, claim.high.value - measured)
    if isinstance(claim, n.ClaimBound):
        return claim.bound.value, _signed(claim.op, measured, claim.bound.value)
    assert isinstance(claim, n.ClaimVersus)
    other = found[1]
    assert other is not None
    right = other + (claim.offset.value if claim.offset is not None else 0)
    return right, _signed(claim.op, measured, right)


def _signed(op: str, left: Fraction, right: Fraction) -> Fraction:
    if op in ("<=", "<"):
        return right - left
    if op in (">=", ">"):
        return left - right
    if op == "==":
        return -abs(left - right)
    return abs(left - right)  # !=


def _holds(claim: n.Claim, margin: Fraction) -> bool:
    strict = isinstance(claim, (n.ClaimBound, n.ClaimVersus)) and claim.op in ("<", ">", "!=")
    return margin > 0 if strict else margin >= 0


def _judge(claim: n.Claim, result: ClaimResult, situation: Situation) -> None:
    result.measured += 1
    if not _holds(claim, situation.margin):
        result.failed += 1
        if result.first_failure is None:
            result.first_failure = situation
    if result.worst is None or situation.margin < result.worst.margin:
        result.worst = situation


def _chance(claim: n.Claim) -> bool:
    return isinstance(claim.measure, n.ChanceMeasure)


def _claim_text(claim: n.Claim) -> str:
    chance = _chance(claim)
    left = measure_text(claim.measure)
    if isinstance(claim, n.ClaimBetween):
        return f"{left} between {_amount(claim.low, chance)} and {_amount(claim.high, chance)}"
    if isinstance(claim, n.ClaimBound):
        return f"{left} {claim.op} {_amount(claim.bound, chance)}"
    assert isinstance(claim, n.ClaimVersus)
    right = measure_text(claim.other)
    if claim.offset is not None:
        sign = "-" if claim.offset.value < 0 else "+"
        right += (
            f" {sign} {_amount(n.Amount(claim.offset.span, abs(claim.offset.value), claim.offset.percent), chance)}"
        )
    return f"{left} {claim.op} {right}"


def _amount(amount: n.Amount, chance: bool) -> str:
    """An amount of a claim as written: a percentage, or a number (a chance's with its percentage)."""
    if amount.percent:
        return f"{float(amount.value * 100):g}%"
    value = amount.value
    exact = str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if not chance or value.denominator == 1:
        return exact
    return f"{exact} ({float(value * 100):.4g}%)"


def _measured_text(claim: n.Claim, situation: Situation) -> str:
    chance = _chance(claim)
    text = f"{measure_text(claim.measure)} = {amount_text(situation.measured, chance)}"
    if isinstance(claim, n.ClaimVersus) and situation.other is not None:
        other = situation.other - (claim.offset.value if claim.offset is not None else 0)
        text += f", {measure_text(claim.other)} = {amount_text(other, chance)}"
    return text


def _failure(claim: n.Claim, situation: Situation) -> str:
    """`chance fall.failure is 5/8 (62.5%), above 40%`: the measure in its worst situation,
    against what the claim asks."""
    chance = _chance(claim)
    measured = f"{measure_text(claim.measure)} is {amount_text(situation.measured, chance)}"
    if isinstance(claim, n.ClaimBetween):
        low, high = _amount(claim.low, chance), _amount(claim.high, chance)
        side = f"below {low}" if situation.measured < claim.low.value else f"above {high}"
        return f"{measured}, {side} (wanted between {low} and {high})"
    if isinstance(claim, n.ClaimBound):
        return f"{measured}; wanted {claim.op} {_amount(claim.bound, chance)}"
    assert isinstance(claim, n.ClaimVersus) and situation.other is not None
    offset = claim.offset.value if claim.offset is not None else Fraction(0)
    other = situation.other - offset
    return f"{measured}, {measure_text(claim.other)} is {amount_text(other, chance)}; wanted {_claim_text(claim)}"
