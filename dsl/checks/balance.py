"""E901 and E902: balance claims that measure nothing their rules give, and spaces whose inputs
the rules never read.

Caught when checking, before a single situation is resolved: a claim about a roll no rule of it
calls for would hold (or fail) in every situation for the wrong reason, and an input the rules
never read would sweep the same situation again and again.
"""

from __future__ import annotations

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.diagnostics import Reporter, did_you_mean
from dsl.model.parts import flat_effects


def check_balances(book: m.Book, reporter: Reporter) -> None:
    for balance in book.balances:
        _check_space(balance, book, reporter)
        for claim in balance.claims:
            kinds = [_check_measure(measure, balance, book, reporter) for measure in m.claim_measures(claim)]
            if len(kinds) == 2 and None not in kinds and kinds[0] != kinds[1]:
                assert isinstance(claim, n.ClaimVersus)
                reporter.report(
                    "E201",
                    f"a {kinds[0]} compared with a {kinds[1]}",
                    claim.span,
                    "compare a chance with a chance, a number with a number",
                )


def _reads(book: m.Book, rules: tuple[str, ...]) -> set[str]:
    found: set[str] = set()
    for name in rules:
        if name in book.rules:
            found.update(book.rules[name].reads)
        elif name in book.tables:
            found.update(book.tables[name].reads)
    return found


def _check_space(balance: m.Balance, book: m.Book, reporter: Reporter) -> None:
    variants = balance.variants()
    reads = set().union(*(_reads(book, rules) for rules in variants))
    named = ", ".join(f"`{rule}`" for rules in variants for rule in rules)
    for axis in balance.space:
        if axis.name not in reads:
            reporter.report(
                "E902",
                f"no rule of this balance block ({named}) reads `{axis.name}`: every value would give the same situations",
                axis.span,
                "sweep an input the rules read, or apply the rule that reads it",
            )
    for (name, _), span in zip(balance.givens, balance.given_at, strict=True):
        if name not in reads:
            reporter.report("E902", f"no rule of this balance block ({named}) reads `{name}`", span, "remove it")


def _effects(book: m.Book, rules: tuple[str, ...]) -> list[m.Effect]:
    return [effect for name in rules if name in book.rules for effect in flat_effects(book, book.rules[name].effects)]


def _check_measure(measure: n.Measure, balance: m.Balance, book: m.Book, reporter: Reporter) -> str | None:
    """Report what the measure cannot be taken of; its kind (`chance`, `number`) if it can."""
    rules = m.rules_of(measure, balance.rules)
    effects = _effects(book, rules)
    names = ", ".join(f"`{rule}`" for rule in rules)
    never = f"rule {names} never" if len(rules) == 1 else f"none of {names}"
    name = measure.name.text
    if isinstance(measure, n.ChanceMeasure):
        rolls = {(e.origin, e.name): e for e in effects if isinstance(e, m.RollEffect)}
        found = [roll for (_, roll_name), roll in rolls.items() if roll_name == name]
        if not found:
            reporter.report(
                "E901",
                f"{never} calls for a roll `{name}`",
                measure.name.span,
                did_you_mean(name, {roll_name for _, roll_name in rolls}),
            )
            return None
        if len(found) > 1:
            reporter.report(
                "E901",
                f"{', '.join(f'`{roll.origin}`' for roll in found)} each call for a roll `{name}`: which one is measured?",
                measure.name.span,
                "measure one rule's roll: `chance NAME in RULE`",
            )
            return None
        roll = found[0]
        if roll.kind == "total":
            reporter.report(
                "E901",
                f"the roll `{name}` rolls a total against no target: it has no chance to measure",
                measure.name.span,
                "measure the total's average (`average` of a value derived from it), or give the roll a target",
            )
            return None
        if measure.tier is not None and measure.tier.text not in book.outcome_names(roll):
            known = book.outcome_names(roll)
            reporter.report(
                "E901",
                f"the roll `{name}` has no outcome `{measure.tier.text}` (its outcomes: {', '.join(known)})",
                measure.tier.span,
                did_you_mean(measure.tier.text, known),
            )
            return None
        return "chance"
    given: dict[str, t.Type] = {}
    for effect in effects:
        if isinstance(effect, m.ModEffect):
            given.setdefault(effect.target, book.vars[effect.target].type)
        elif isinstance(effect, m.DeriveEffect):
            given.setdefault(effect.name, effect.type)
    type_ = given.get(name)
    if type_ is None:
        reporter.report("E901", f"{never} changes or derives `{name}`", measure.name.span, did_you_mean(name, given))
        return None
    numeric = isinstance(type_, (t.Numeric, t.Cell))
    if isinstance(measure, n.AverageMeasure) and (numeric or isinstance(type_, t.Dice)):
        return "number"
    if isinstance(measure, n.ValueMeasure) and numeric:
        return "number"
    hint = f"measure its average: `average {name}`" if isinstance(type_, t.Dice) else None
    reporter.report("E901", f"`{name}` is {type_.describe()}, not a number to measure", measure.name.span, hint)
    return None
