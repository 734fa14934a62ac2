"""What a sweep varies and what it holds fixed: `--vary NAME=SPEC` and `--set NAME=VALUE` read
against the rulebook's own inputs.

A value is checked by the resolver module's InputSpec (the very check `resolve` applies), so a
sweep accepts exactly what an app may pass and reports a mistake in the resolver's words.  The
extra name `rule` varies the rules themselves: one situation per rule, which is how "which
terrain hurts most" becomes one sweep.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dsl.balance.books import BalanceError, Edition
from dsl.balance.limits import DEDUPLICATED
from dsl.balance.progressions import Gathered, Joined, Progression, Steps

RULE_AXIS = "rule"
"""The name `--vary` gives the rules applied: `--vary rule=broken_ground,mud` or `rule=terrains`."""

RULE_KINDS = {"rules": "rule", "terrains": "terrain", "conditions": "condition", "traits": "trait", "tables": "table"}
"""Plural kinds accepted in `--vary rule=...`: every rule of that kind in the book."""

NUMERIC_KINDS = ("int", "number", "percent")

_NUMBER = r"-?[0-9]+(?:\.[0-9]+)?"
_RANGE = re.compile(rf"^\s*({_NUMBER})\s*\.\.\s*({_NUMBER})\s*(?:/\s*({_NUMBER})\s*)?$", re.ASCII)


@dataclass(frozen=True)
class Axis:
    """One varied input (or the rules): its values in sweep order and how each reads.

    `values` are plain values a resolver accepts (int, Fraction, bool, str), read by position:
    a run of numbers is a `range` or `Steps` (progressions.py), made value by value, so an axis
    of a million numbers costs no more memory than one of three.
    """

    name: str
    label: str
    kind: str  # an InputSpec kind, or "rule"
    values: Sequence[Any]
    titles: tuple[str, ...] = ()  # a rule axis: each rule's title, in the order of `values`

    @property
    def numeric(self) -> bool:
        return self.kind in NUMERIC_KINDS

    @property
    def shown(self) -> tuple[str, ...]:
        """Every value as the book would print it (a chart's few)."""
        return tuple(self.text(value) for value in self.values)

    def text(self, value: Any) -> str:
        if self.titles:
            return self.titles[self.values.index(value)]
        return shown_value(value)


def split_assignment(text: str, option: str) -> tuple[str, str]:
    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or not name or not raw.strip():
        raise BalanceError(f"{option} takes NAME=VALUE, not `{text}`")
    return name, raw.strip()


def rule_axis(editions: Sequence[Edition], raw: str | Iterable[str]) -> Axis:
    """The rules named (or `all`, or a plural kind such as `terrains`), each a situation of its own."""
    first = editions[0]
    items = _items(raw)
    names: list[str] = []
    for item in items:
        if item in first.module.RULES:
            found = [item]
        elif item == "all":
            found = [name for name, info in first.module.RULES.items() if info.kind != "table"]
        elif item in RULE_KINDS:
            found = [name for name, info in first.module.RULES.items() if info.kind == RULE_KINDS[item]]
        else:
            raise BalanceError(f"--vary rule: {no_rule(first, item)}")
        names.extend(name for name in found if name not in names)
    if not names:
        raise BalanceError(f"--vary rule={_text(raw)} names no rule of {first.name}")
    for edition in editions[1:]:
        for name in names:
            if name not in edition.module.RULES:
                raise BalanceError(f"--vary rule: {no_rule(edition, name)} ({edition.path})")
    titles = tuple(first.module.RULES[name].title for name in names)
    kinds = {first.module.RULES[name].kind for name in names}
    label = kinds.pop().capitalize() if len(kinds) == 1 else "Rule"
    return Axis(RULE_AXIS, label, "rule", tuple(names), titles)


def input_axis(editions: Sequence[Edition], name: str, raw: str | Iterable[Any], limit: int) -> Axis:
    """The values of one input to sweep, checked against every edition."""
    spec = _spec(editions, name, "--vary")
    where = f"--vary {name}={_text(raw)}"
    gathered = Gathered(DEDUPLICATED)
    for item in _items(raw):
        found = _expand(spec, item, limit, where)
        if not isinstance(found, (range, Steps)):
            for value in found:
                gathered.add(value)
        elif not gathered.add_run(found):
            raise BalanceError(
                f"{where}: {_text(item)} repeats values given before it; a range of more than "
                f"{DEDUPLICATED:,} values must not overlap the others (split it)"
            )
        if gathered.count > limit:
            raise BalanceError(f"--vary {name}: more than {limit:,} values (raise the bound with --limit)")
    if not gathered.count:
        raise BalanceError(f"{where} gives no value")
    values = gathered.values()
    for edition in editions[1:]:
        other = _spec([edition], name, "--vary")
        for piece in values.pieces if isinstance(values, Joined) else (values,):
            if isinstance(piece, (range, Steps)):
                _checked_run(other, piece, f"--vary {name} ({edition.path})")
            else:
                for value in piece:
                    _coerce(other, value, f"--vary {name} ({edition.path})")
    return Axis(name, input_label(editions[0], name), spec.kind, values)


def setting(editions: Sequence[Edition], name: str, raw: object) -> Any:
    """The fixed value of one input (`--set NAME=VALUE`), checked against every edition."""
    value: Any = None
    for edition in editions:
        spec = _spec([edition], name, "--set")
        where = f"--set {name}" + (f" ({edition.path})" if edition is not editions[0] else "")
        value = _parse(spec, raw, where) if isinstance(raw, str) else _coerce(spec, raw, where)
    return value


def check_read(editions: Sequence[Edition], names: Sequence[str], chosen: Sequence[str], option: str) -> None:
    """Every varied or set input must be read by a rule of the situation: otherwise the sweep
    would repeat the same numbers, and the mistake (a rule left out) would go unnoticed."""
    module = editions[0].module
    read: set[str] = set()
    for rule in chosen:
        read.update(module.RULES[rule].reads)
    for name in names:
        if name in read:
            continue
        readers = [info.name for info in module.RULES.values() if name in info.reads]
        rules = ", ".join(chosen)
        if readers:
            shown = ", ".join(readers[:8]) + (f" and {len(readers) - 8} more" if len(readers) > 8 else "")
            raise BalanceError(f"{option} {name}: no rule of the situation ({rules}) reads `{name}`; read by: {shown}")
        raise BalanceError(f"{option} {name}: no rule of {editions[0].name} reads `{name}`")


def input_label(edition: Edition, name: str) -> str:
    """How the book calls an input: its label, with its unit when the label does not say it."""
    spec = edition.module.INPUTS[name]
    label = spec.label or name
    if spec.unit:
        unit = edition.model.units.get(spec.unit) or spec.unit
        if unit.lower() not in label.lower() and spec.unit.lower() not in label.lower():
            label = f"{label} ({unit})"
    return str(label)


def shown_value(value: Any) -> str:
    """A value as a chart reads it: yes/no, member names with spaces, exact numbers."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value.replace("_", " ")
    if isinstance(value, Fraction):
        return _fraction_text(value)
    return str(value)


def _fraction_text(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    decimal = float(value)
    return repr(decimal) if Fraction(repr(decimal)) == value else f"{value.numerator}/{value.denominator}"


def _items(raw: str | Iterable[Any]) -> list[Any]:
    if isinstance(raw, str):
        return [part.strip() for part in raw.split(",") if part.strip()]
    if isinstance(raw, range):
        return [raw]  # one run, not its numbers one by one
    return list(raw)


def _text(raw: str | Iterable[Any]) -> str:
    """A --vary value as the user wrote it (or, from Python, the values listed)."""
    if isinstance(raw, str):
        return raw
    if isinstance(raw, range):
        return repr(raw)
    return ",".join(str(item) for item in raw)


def no_rule(edition: Edition, name: str) -> str:
    known = list(edition.module.RULES)
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean `{close[0]}`?" if close else ""
    return f"no rule or table `{name}` in {edition.name}{hint}"


def _spec(editions: Sequence[Edition], name: str, option: str) -> Any:
    """The InputSpec of NAME in the (first) edition, or a usage error with a "did you mean"."""
    edition = editions[0]
    spec = edition.module.INPUTS.get(name)
    if spec is None:
        if name == "roll":
            raise BalanceError(
                f"{option} roll: a table's die result is not swept; the chance of each of its rows is a column already"
            )
        close = difflib.get_close_matches(name, [*edition.module.INPUTS, RULE_AXIS], n=1)
        hint = f"; did you mean `{close[0]}`?" if close else ""
        raise BalanceError(f"{option} {name}: no input `{name}` in {edition.name}{hint}")
    return spec


def _expand(spec: Any, item: Any, limit: int, where: str) -> Progression | list[Any]:
    """The values of one item of a --vary: a run of numbers stays a progression, checked without
    being written out."""
    if isinstance(item, range):
        return _checked_run(spec, item, where)
    if not isinstance(item, str):
        return [_coerce(spec, item, where)]
    if item == "all":
        return _all(spec, where, limit)
    match = _RANGE.match(item)
    if match is None:
        return [_parse(spec, item, where)]
    if spec.kind not in NUMERIC_KINDS:
        raise BalanceError(
            f"{where}: `{spec.name}` is {spec.describe()}, not a number; a range such as {item} needs one"
        )
    low, high = Fraction(match.group(1)), Fraction(match.group(2))
    step = Fraction(match.group(3)) if match.group(3) else Fraction(1)
    if step <= 0:
        raise BalanceError(f"{where}: the step of a range must be more than 0")
    if high < low:
        raise BalanceError(f"{where}: the range {item} is empty (write the lower bound first)")
    count = (high - low) // step + 1
    if count > limit:
        raise BalanceError(f"{where}: {count:,} values, more than {limit:,} (raise the bound with --limit)")
    if low.denominator == step.denominator == 1:
        run: Progression = range(int(low), int(low + count * step), int(step))
    else:
        run = Steps(low, step, int(count))
    return _checked_run(spec, run, where)


def _checked_run(spec: Any, run: Progression, where: str) -> Progression:
    """RUN, once the input accepts every number of it; else the error for the first it refuses.

    A numeric input accepts the numbers between its bounds (and of at most so many digits) and,
    if it is whole, only whole numbers: so check the first number, the second (whole if the step
    is) and the last; if the last is refused, the first refused is found by halving."""
    for value in run[:2]:
        _coerce(spec, value, where)
    error = _refusal(spec, run[-1], where)
    if error is None:
        return run
    accepted, refused = 1, len(run) - 1
    while refused - accepted > 1:
        middle = (accepted + refused) // 2
        found = _refusal(spec, run[middle], where)
        if found is None:
            accepted = middle
        else:
            refused, error = middle, found
    raise error


def _refusal(spec: Any, value: Any, where: str) -> BalanceError | None:
    try:
        _coerce(spec, value, where)
    except BalanceError as error:
        return error
    return None


def _all(spec: Any, where: str, limit: int) -> Progression | list[Any]:
    if spec.kind == "flag":
        return [False, True]
    if spec.members:
        return list(spec.members)
    if spec.kind in ("int", "percent") and spec.low is not None and spec.high is not None:
        count = int(spec.high) - int(spec.low) + 1
        if count > limit:
            raise BalanceError(f"{where}: {count:,} values, more than {limit:,} (raise the bound with --limit)")
        return range(int(spec.low), int(spec.high) + 1)
    raise BalanceError(f"{where}: `all` needs a flag, a choice, or a bounded whole number; this is {spec.describe()}")


def _parse(spec: Any, text: str, where: str) -> Any:
    try:
        return spec.parse(text)
    except ValueError as error:  # the module's RuleInputError
        raise BalanceError(f"{where}: {error}") from None


def _coerce(spec: Any, value: Any, where: str) -> Any:
    try:
        return spec.coerce(value)
    except ValueError as error:
        raise BalanceError(f"{where}: {error}") from None
