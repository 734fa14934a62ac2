"""`rulecraft tune`: the values of a book's constants that make every balance claim hold.

A constant is a number written in the rulebook: the amount of a modifier, named by its label
(`"bad footing"`, every modifier so labelled) or by its rule and stat (`rough.DEX`, the
modifiers of DEX written in that rule), or the default of an input or stat (`DEX`).  Each
combination of the values tried is written into the rulebook's text in place of the number,
compiled and checked like any edit (a value the book refuses is reported as such), and every
balance claim is checked over its whole space, exactly, as `rulecraft test` checks it: the same
compiler and resolver, no second model of the rules.

When no combination satisfies every claim, the *closest miss* is the one with the fewest claims
failing; among those, the one whose largest shortfall (the most negative margin of a failing
claim, in that claim's own units: probability for a chance) is smallest; then the one with the
fewest failing situations; then the first tried.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

from dsl import nodes as n
from dsl.balance.books import BalanceError, edition_of
from dsl.balance.claims import BalanceResult, ClaimResult, Progress, check_balance
from dsl.compiler import Compiled, compile_text, normalize_newlines
from dsl.diagnostics import Span

MOST_TRIED = 1_000
"""Combinations one `tune` tries at most: each compiles the book and sweeps every balance space."""

_NUMBER = r"-?[0-9]+(?:\.[0-9]+)?"
_RANGE = re.compile(rf"^\s*({_NUMBER})\s*\.\.\s*({_NUMBER})\s*(?:/\s*({_NUMBER})\s*)?$", re.ASCII)


@dataclass(frozen=True)
class Place:
    """Where a constant's number is written: character offsets into the text, and whether the
    text there carries its sign (`DEX -2`: the sign is the modifier's) or is a plain number."""

    start: int
    end: int
    signed: bool


@dataclass(frozen=True)
class Knob:
    """A constant to vary: its name as given, where it is written, the values to try."""

    name: str
    places: tuple[Place, ...]
    values: tuple[Fraction, ...]


@dataclass
class Trial:
    """One combination of values, and what became of it."""

    values: tuple[Fraction, ...]
    refused: str | None = None  # the book did not check with these values: its first error
    results: tuple[BalanceResult, ...] = ()

    @property
    def claims(self) -> int:
        return sum(len(result.claims) for result in self.results)

    @property
    def failing(self) -> int:
        return sum(not claim.passed for result in self.results for claim in result.claims)

    @property
    def situations(self) -> int:
        """Failing situations, over every claim."""
        return sum(claim.failed for result in self.results for claim in result.claims)

    @property
    def shortfall(self) -> Fraction:
        """The largest shortfall of a failing claim (0 when every claim holds)."""
        worst = self.worst()
        return Fraction(0) if worst is None or worst.worst is None else -worst.worst.margin

    def worst(self) -> ClaimResult | None:
        """The failing claim of the largest shortfall."""
        failing = [claim for result in self.results for claim in result.claims if not claim.passed and claim.worst]
        return min(failing, key=lambda claim: claim.worst.margin if claim.worst else Fraction(0), default=None)

    def shortfall_text(self) -> str:
        """The largest shortfall in its claim's units: percentage points for a chance."""
        worst = self.worst()
        if worst is None:
            return "-"
        value = self.shortfall
        exact = value_text(value) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
        if isinstance(worst.claim.measure, n.ChanceMeasure):
            return f"{exact} ({float(value * 100):.4g} points)"
        return exact

    @property
    def holds(self) -> bool:
        return self.refused is None and self.failing == 0

    def rank(self) -> tuple[int, int, Fraction, int]:
        """Closer misses sort first (see the module's docstring); a refused trial last."""
        if self.refused is not None:
            return (1, 0, Fraction(0), 0)
        return (0, self.failing, self.shortfall, self.situations)


def knobs(compiled: Compiled, varied: Sequence[tuple[str, str]]) -> list[Knob]:
    """The constants `--vary NAME=VALUES` names, found in the compiled book's syntax tree."""
    assert compiled.tree is not None
    found: list[Knob] = []
    for name, raw in varied:
        if any(knob.name == name for knob in found):
            raise BalanceError(f"--vary {name} is given twice; list its values once: {name}=a,b,c")
        places = _places(compiled, name)
        found.append(Knob(name, places, _values(name, raw)))
    taken = sorted((place.start, place.end, knob.name) for knob in found for place in knob.places)
    for (_, end, first), (start, _, second) in itertools.pairwise(taken):
        if start < end:
            raise BalanceError(f"--vary {first} and --vary {second} name the same number; vary it once")
    count = 1
    for knob in found:
        count *= len(knob.values)
    if count > MOST_TRIED:
        raise BalanceError(f"{count:,} combinations to try, more than {MOST_TRIED:,}: narrow a --vary")
    return found


def run_trials(
    compiled: Compiled,
    varied: Sequence[Knob],
    jobs: int | None = None,
    tried: Callable[[Trial], None] | None = None,
    progress: Progress | None = None,
) -> list[Trial]:
    """Try every combination of the knobs' values, in order (the last turning fastest)."""
    text = normalize_newlines(compiled.text)
    trials: list[Trial] = []
    for values in itertools.product(*(knob.values for knob in varied)):
        trial = _try(compiled.path, text, varied, values, jobs, progress)
        trials.append(trial)
        if tried is not None:
            tried(trial)
    return trials


def closest(trials: Sequence[Trial]) -> Trial:
    return min(trials, key=Trial.rank)


def value_text(value: Fraction) -> str:
    """A value as the book would write it: `-2`, `1.5`."""
    if value.denominator == 1:
        return str(value.numerator)
    return _decimal(value) or f"{value.numerator}/{value.denominator}"


# ---------------------------------------------------------------------- finding the constants


def _places(compiled: Compiled, name: str) -> tuple[Place, ...]:
    assert compiled.tree is not None
    starts = _line_starts(normalize_newlines(compiled.text))
    places: list[Place] = []
    rule_name, dot, stat = name.partition(".")
    for declaration in compiled.tree.declarations:
        if isinstance(declaration, (n.InputDecl, n.StatDecl)) and declaration.name.text == name:
            if declaration.default is None:
                raise BalanceError(f"--vary {name}: `{name}` has no default written in the book to vary")
            places.append(_plain(starts, declaration.default, name))
        elif isinstance(declaration, n.RuleDecl):
            for modifier in _modifiers(declaration.body):
                labelled = modifier.label is not None and modifier.label.value == name
                named = bool(dot) and declaration.name.text == rule_name and modifier.target.text == stat
                if labelled or named:
                    places.append(_amount(starts, compiled.text, modifier, name))
    if not places:
        raise BalanceError(
            f'--vary {name}: no modifier labelled "{name}", no RULE.STAT modifier and no input or stat '
            f"`{name}` with a default in {compiled.path}"
        )
    return tuple(places)


def _modifiers(body: Sequence[n.Statement]) -> Iterator[n.Modifier]:
    for statement in body:
        if isinstance(statement, n.Modifier):
            yield statement
        elif isinstance(statement, n.WhenBlock):
            yield from _modifiers(statement.body)
            yield from _modifiers(statement.orelse)


def _amount(starts: list[int], text: str, modifier: n.Modifier, name: str) -> Place:
    op = modifier.op
    if isinstance(op, n.AddMod) and isinstance(op.value, n.Number) and op.per is None:
        place = _offsets(starts, op.value.span)
        sign = text.rindex("-" if op.value.value < 0 else "+", 0, place[0])
        return Place(sign, place[1], True)
    value = getattr(op, "value", None) or getattr(op, "factor", None) or getattr(op, "divisor", None)
    if isinstance(value, n.Expr) and not isinstance(op, n.AddMod):
        return _plain(starts, value, name)
    raise BalanceError(
        f"--vary {name}: the modifier at line {modifier.span.line} ({modifier.target.text}) has no single number to vary"
    )


def _plain(starts: list[int], value: n.Expr, name: str) -> Place:
    number = value.operand if isinstance(value, n.Negate) else value
    if not isinstance(number, n.Number) or number.unit is not None:
        raise BalanceError(f"--vary {name}: the value at line {value.span.line} is a formula, not a number to vary")
    start, end = _offsets(starts, value.span)
    return Place(start, end, False)


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(match.end() for match in re.finditer("\n", text))
    return starts


def _offsets(starts: list[int], span: Span) -> tuple[int, int]:
    return starts[span.line - 1] + span.column - 1, starts[span.end_line - 1] + span.end_column - 1


def _values(name: str, raw: str) -> tuple[Fraction, ...]:
    """`-4..0`, `0..2/0.5` (a step), or `1,2,5`."""
    where = f"--vary {name}={raw}"
    match = _RANGE.match(raw)
    if match is None:
        try:
            values = [Fraction(part.strip()) for part in raw.split(",") if part.strip()]
        except ValueError:
            raise BalanceError(f"{where}: give numbers, a range LOW..HIGH, or LOW..HIGH/STEP") from None
    else:
        low, high = Fraction(match.group(1)), Fraction(match.group(2))
        step = Fraction(match.group(3)) if match.group(3) else Fraction(1)
        if step <= 0 or high < low:
            raise BalanceError(f"{where}: the range is empty (write the lower bound first, a step above 0)")
        values = [low + index * step for index in range(int((high - low) // step) + 1)]
    if not values:
        raise BalanceError(f"{where} gives no value")
    for value in values:
        if value.denominator != 1 and _decimal(value) is None:
            raise BalanceError(f"{where}: {value} cannot be written as a decimal number in a rulebook")
    return tuple(dict.fromkeys(values))


def _decimal(value: Fraction) -> str | None:
    for digits in range(1, 7):
        scaled = value * 10**digits
        if scaled.denominator == 1:
            return f"{float(value):.{digits}f}"
    return None


# ---------------------------------------------------------------------- trying a combination


def _try(
    path: str,
    text: str,
    varied: Sequence[Knob],
    values: tuple[Fraction, ...],
    jobs: int | None,
    progress: Progress | None,
) -> Trial:
    edits = sorted(
        ((place, value) for knob, value in zip(varied, values, strict=True) for place in knob.places),
        key=lambda edit: edit[0].start,
        reverse=True,
    )
    changed = text
    for place, value in edits:
        written = value_text(abs(value))
        if place.signed:
            written = ("-" if value < 0 else "+") + written
        elif value < 0:
            written = f"(-{written})"
        changed = changed[: place.start] + written + changed[place.end :]
    trial = Trial(values)
    compiled = compile_text(changed, path)
    if not compiled.ok or compiled.book is None:
        first = compiled.errors[0] if compiled.errors else None
        trial.refused = first.message if first is not None else "the book does not compile"
        return trial
    edition = edition_of(compiled)
    trial.results = tuple(check_balance(edition, balance, jobs, progress) for balance in compiled.book.balances)
    return trial
