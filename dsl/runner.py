"""Running worked examples against the generated resolvers, exactly as an app would call them."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol

from dsl import model as m
from dsl import nodes as n
from dsl.calls import resolve_in
from dsl.checks.examples import all_examples
from dsl.compiler import Compiled, generate, load_module
from dsl.diagnostics import Diagnostic, Span, render
from dsl.runtime.base import show
from dsl.runtime.dice import Chances, Dice
from dsl.semantics import constant_value


@dataclass
class ExampleResult:
    example: m.Example
    failures: list[Diagnostic] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures


@dataclass
class RunOutcome:
    compiled: Compiled
    results: list[ExampleResult]

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.results)

    @property
    def failed(self) -> int:
        return sum(not r.passed for r in self.results)

    def lines(self, verbose: bool) -> list[str]:
        out = []
        source = self.compiled.text.split("\n")
        for result in self.results:
            if result.passed:
                if verbose:
                    out.append(f"ok    {self.compiled.path}: {result.example.title}")
                continue
            out.append(f"FAIL  {self.compiled.path}: {result.example.title}")
            out.extend(render(d, source) for d in result.failures)
        return out


def run_examples(compiled: Compiled, module: Any = None) -> RunOutcome:
    """Run every worked example against the rulebook's resolver module (generated here unless
    `module`, already loaded from the same compile, is given)."""
    book = compiled.book
    assert book is not None and compiled.ok
    if module is None:
        module = load_module(generate(compiled), book.name)
    results = []
    for example in all_examples(book):
        results.append(_run(example, module, book))
    return RunOutcome(compiled, results)


def _value(expr: n.Expr, book: m.Book) -> Any:
    value = constant_value(expr, book)
    if isinstance(value, Dice):
        # as text: the generated module has its own Dice class, and parses dice given as text
        return str(value)
    return value


def _run(example: m.Example, module: Any, book: m.Book) -> ExampleResult:
    result = ExampleResult(example)

    def fail(span: Span, message: str, hint: str | None = None) -> None:
        result.failures.append(Diagnostic("E790", f'example "{example.title}": {message}', span, hint))

    given = {name: _value(expr, book) for name, expr in example.givens}
    try:
        resolution = resolve_in(module, example.rules, given, example.rounds)
    except module.RuleInputError as error:
        fail(example.span, f"the resolver refused the inputs: {error}")
        return result
    for expectation in example.expectations:
        _expect(expectation, resolution, book, fail)
    return result


def _same(actual: Any, expected: Any) -> bool:
    if type(actual).__name__ == "Dice":
        if str(actual) == str(expected):  # e.g. a scaled value, expected as "(2d6)/2 round down"
            return True
        try:
            return str(actual) == str(Dice.parse(str(expected)))
        except ValueError:
            return False
    if type(actual).__name__ == "Special":  # a table's X or N/A, expected as the text "X" / "N/A"
        return str(actual) == str(expected)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return actual is expected
    if isinstance(expected, (int, Fraction)) and isinstance(actual, (int, Fraction)):
        return Fraction(actual) == Fraction(expected)
    return bool(actual == expected)


def _how(name: str, resolution: Any) -> str | None:
    """How the resolver reached a stat's value: its value given, then each modifier of it."""
    modifiers = [x for x in resolution.modifiers if x.target == name]
    if not modifiers:
        return None
    steps = [f"`{x.text}` ({x.rule}{'' if x.status == 'applied' else ', ' + x.status})" for x in modifiers]
    given = resolution.inputs.get(name)
    start = f"from {name} {show(given)}: " if given is not None else ""
    return start + ", ".join(steps)


def _chance(value: Any) -> str:
    """A chance as a fraction, as worked out by hand (`1/4`, not `0.25`), on both sides of a
    failed expectation."""
    if value is None:
        return "none"
    p = Fraction(value)
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


def _rolled(roll: Any) -> str:
    """The roll as the resolver made it, to show beside a failed chance: what is added to the
    dice, how many must meet the target, and the target only where there is one."""
    dice = str(roll.dice) + (f" {'-' if roll.bonus < 0 else '+'} {show(abs(roll.bonus))}" if roll.bonus else "")
    if roll.needed is not None:
        dice = f"at least {roll.needed} of {dice}"
    if roll.target is None or roll.comparison in (None, "vs"):
        return dice
    return f"{dice} {roll.comparison} {show(roll.target)}"


class _Fail(Protocol):
    def __call__(self, span: Span, message: str, hint: str | None = None) -> None: ...


def _expect(expectation: n.Expectation, resolution: Any, book: m.Book, fail: _Fail) -> None:
    if isinstance(expectation, n.ExpectValue):
        name = expectation.name.text
        wanted = _value(expectation.value, book)
        found = resolution.derived if name in resolution.derived else resolution.stats
        if name not in found:
            fail(expectation.span, f"expected {name} = {show(wanted)}, but none of these rules reads or derives {name}")
        elif not _same(found[name], wanted):
            fail(
                expectation.span,
                f"expected {name} = {show(wanted)}, got {show(found[name])}",
                _how(name, resolution),
            )
    elif isinstance(expectation, n.ExpectRoll):
        name = expectation.roll.text
        wanted = _value(expectation.value, book)
        rolls = [r for r in resolution.rolls if r.name == name]
        if not rolls:
            fail(expectation.span, f"expected a roll `{name}`, but the situation calls for none")
            return
        if len({(r.dice, r.comparison, r.target, r.probability) for r in rolls}) > 1:
            rules = ", ".join(r.rule for r in rolls)
            fail(
                expectation.span, f"several rules call for different rolls `{name}` ({rules}); expect one rule's alone"
            )
            return
        roll = rolls[0]
        if expectation.tier is None:
            actual = roll.probability
            what = f"P({name})"
        else:
            tier = expectation.tier.text
            actual = roll.outcomes.get(tier)
            what = f"P({name}: {tier})"
            if actual is None:
                # `check` knows the roll may come to it (E701): read here with tiers that lack it, it never comes
                actual = 0
        if actual is None or Fraction(actual) != Fraction(wanted):
            fail(
                expectation.span,
                f"expected {what} = {_chance(wanted)}, got {_chance(actual)} ({_rolled(roll)})",
            )
    elif isinstance(expectation, n.ExpectChain):
        row = expectation.row.value
        wanted = _value(expectation.value, book)
        chains = [c for c in getattr(resolution, "chains", ()) if any(s.row == row for o in c.outcomes for s in o.path)]
        if len(chains) != 1:
            found = "none" if not chains else "several"
            fail(expectation.span, f"expected a chain that reaches `{row}`; {found} of this situation's chains do")
            return
        actual = chains[0].chance(row)
        if actual != Fraction(wanted):
            fail(expectation.span, f"expected P(chain reaches {row}) = {_chance(wanted)}, got {_chance(actual)}")
    elif isinstance(expectation, n.ExpectNoRoll):
        if any(r.name == expectation.roll.text for r in resolution.rolls):
            fail(expectation.span, f"expected no roll `{expectation.roll.text}`, but the situation calls for one")
    elif isinstance(expectation, n.ExpectCannot):
        texts = [r.what for r in resolution.restrictions]
        if expectation.text.value not in texts:
            fail(expectation.span, f'expected the restriction "{expectation.text.value}"; got {texts or "none"}')
    elif isinstance(expectation, n.ExpectColumn):
        tables = [x for x in resolution.tables if x.name == expectation.table.text]
        wanted = _value(expectation.value, book)
        if not tables or tables[0].selected is None:
            fail(
                expectation.span, f"expected a row of `{expectation.table.text}`, but none was selected (give `roll`?)"
            )
            return
        actual = tables[0].selected.values.get(expectation.column.text)
        if not _same(actual, wanted):
            fail(
                expectation.span,
                f"expected {expectation.table.text}.{expectation.column.text} = {show(wanted)}, got {show(actual)}",
            )
    elif isinstance(expectation, n.ExpectChance):
        _expect_chance(expectation, resolution, book, fail)
    elif isinstance(expectation, n.ExpectLasting):
        wanted = _value(expectation.value, book)
        actual = resolution.sequence.lasting if resolution.sequence is not None else None
        if actual is None or Fraction(actual) != Fraction(wanted):
            fail(
                expectation.span,
                f"expected the chance of lasting every round = {_chance(wanted)}, got {_chance(actual)}",
            )
    elif isinstance(expectation, n.ExpectSuppressed):
        rule = expectation.rule.text
        if not any(x.rule == rule and x.status != "applied" for x in resolution.modifiers):
            fail(expectation.span, f"expected a modifier of `{rule}` to be suppressed or overridden; none was")


def _expect_chance(expectation: n.ExpectChance, resolution: Any, book: m.Book, fail: _Fail) -> None:
    """`chance NAME >= 6 = P`: of a total over the rounds when the example runs over rounds, else
    of the value the rules give NAME (dice, or a number: certain)."""
    name = expectation.name.text
    wanted = _value(expectation.value, book)
    bound = _value(expectation.bound, book)
    sequence = resolution.sequence
    if sequence is not None and name in sequence.totals:
        table = sequence.totals[name].table
        what = f"the total of {name} over {len(sequence.rounds)} {sequence.unit}s"
    else:
        found = resolution.derived if name in resolution.derived else resolution.stats
        value = found.get(name)
        if value is None or isinstance(value, (bool, str)):
            fail(expectation.span, f"expected a chance of {name}, but these rules give it no number or dice")
            return
        # the module's own Dice: its distribution, read through its table
        table = value.chances().table if type(value).__name__ == "Dice" else ((value, Fraction(1)),)
        what = f"{name} ({show(value)})"
    actual = Chances(tuple(table)).chance_that(expectation.op, bound)
    if Fraction(actual) != Fraction(wanted):
        fail(
            expectation.span,
            f"expected P({what} {expectation.op} {show(bound)}) = {_chance(wanted)}, got {_chance(actual)}",
        )
