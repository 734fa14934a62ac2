"""`each round COUNTER: ...`: a rule resolved round after round.

A sequence needs an input that counts the rounds and that the rule reads (else every round is
the same), a start inside that input's range, a roll of the rule whose outcome ends it, an input
the rule reads to set after it, and derived numbers or dice to add up.  Every way a sequence
cannot run is E801, reported where the book says it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.analysis.context import Context
from dsl.diagnostics import did_you_mean
from dsl.model.parts import flat_effects

OUTCOME_WORDS = {"fails": "failure", "succeeds": "success", "failure": "failure", "success": "success"}
"""How a sequence names the outcome that ends it (`until hold_breath fails`), as a resolution names
it; the tiers of a roll (`until hold_breath fumble`) are named as themselves."""


def analyze_sequence(cx: Context, decl: n.RuleDecl, rule: m.Rule) -> m.Sequence | None:
    """The sequence of a rule: its one `each` block, at the top of its body."""
    _nested(cx, decl.body, top=True)
    blocks = [s for s in decl.body if isinstance(s, n.SequenceBlock)]
    for extra in blocks[1:]:
        cx.reporter.report("E801", f"rule `{rule.name}` has one sequence: `each` once", extra.span)
    return _sequence(cx, blocks[0], rule) if blocks else None


def _nested(cx: Context, body: Iterable[n.Statement], top: bool) -> None:
    for statement in body:
        if isinstance(statement, n.SequenceBlock) and not top:
            cx.reporter.report(
                "E801",
                "a sequence belongs to the whole rule, not to a condition",
                statement.span,
                "move `each ...` to the top of the rule; the conditions inside the rule decide each round",
            )
        elif isinstance(statement, n.WhenBlock):
            _nested(cx, (*statement.body, *statement.orelse), top=False)


def _sequence(cx: Context, block: n.SequenceBlock, rule: m.Rule) -> m.Sequence | None:
    ok = True
    counter = cx.book.vars.get(block.counter.text)
    if counter is None:
        cx.reporter.report(
            "E101",
            f"unknown input `{block.counter.text}`",
            block.counter.span,
            did_you_mean(block.counter.text, cx.book.vars),
        )
        return None
    numeric = counter.type if isinstance(counter.type, t.Numeric) else None
    if counter.is_stat or numeric is None or numeric.kind != "int":
        cx.reporter.report(
            "E801",
            f"`{counter.name}` cannot count the {block.unit.text}s: a sequence counts with an int input",
            block.counter.span,
            f"declare it as `input {counter.name}: int 1..100`",
        )
        return None
    if counter.name not in rule.reads:
        cx.reporter.report(
            "E801",
            f"rule `{rule.name}` never reads `{counter.name}`: every {block.unit.text} would be the same",
            block.counter.span,
            f"make what changes by {block.unit.text} depend on `{counter.name}`",
        )
        ok = False
    start = block.start if block.start is not None else 1
    if (numeric.low is not None and start < numeric.low) or (numeric.high is not None and start > numeric.high):
        cx.reporter.report(
            "E801",
            f"the {block.unit.text}s cannot start at {start}: `{counter.name}` is {numeric.describe()}",
            block.counter.span,
            f"start inside the range: `each {block.unit.text} {counter.name} from {numeric.low}:`",
        )
        ok = False
    effects = list(flat_effects(cx.book, rule.effects))
    until = _until(cx, block, rule, effects)
    then = _then(cx, block, rule)
    totals = _totals(cx, block, rule, effects)
    if not ok or until is False or then is False or totals is None:
        return None
    return m.Sequence(
        unit=block.unit.text,
        counter=counter.name,
        start=start,
        until=until,
        then=then,
        totals=totals,
        span=block.span,
    )


def _until(
    cx: Context, block: n.SequenceBlock, rule: m.Rule, effects: list[m.Effect]
) -> tuple[str, str] | Literal[False] | None:
    """(roll, outcome), None without `until`, False when it names what the rule lacks."""
    if block.until_roll is None or block.until_outcome is None:
        return None
    rolls = {e.name: e for e in effects if isinstance(e, m.RollEffect)}
    roll = rolls.get(block.until_roll.text)
    if roll is None:
        cx.reporter.report(
            "E801",
            f"rule `{rule.name}` calls for no roll `{block.until_roll.text}` to end the {block.unit.text}s",
            block.until_roll.span,
            did_you_mean(block.until_roll.text, rolls) or "end the sequence on an outcome of one of the rule's rolls",
        )
        return False
    word = block.until_outcome.text
    tiers = cx.book.tiers.get(roll.tiers) if roll.tiers else None
    names = {tier.name for tier in tiers.tiers} if tiers is not None else set()
    names |= {outcome.name for outcome in roll.outcomes}
    outcome = OUTCOME_WORDS.get(word, word if word in names else None)
    if outcome is None:
        cx.reporter.report(
            "E801",
            f"roll `{roll.name}` has no outcome `{word}`",
            block.until_outcome.span,
            did_you_mean(word, [*OUTCOME_WORDS, *names]) or "say `fails` or `succeeds`, or name a tier",
        )
        return False
    return (roll.name, outcome)


def _then(cx: Context, block: n.SequenceBlock, rule: m.Rule) -> tuple[str, n.Expr] | Literal[False] | None:
    if block.then is None:
        return None
    name = block.then.name
    var = cx.book.vars.get(name.text)
    if var is None or var.is_stat or name.text not in rule.reads:
        what = "reads no input" if var is None or var.is_stat else "never reads"
        cx.reporter.report(
            "E801",
            f"rule `{rule.name}` {what} `{name.text}`: `then` sets an input the rule reads",
            name.span,
            did_you_mean(name.text, [v for v in rule.reads if not cx.book.vars[v].is_stat]),
        )
        return False
    if cx.constant(block.then.value, var.type, f"`{var.name}`") is None:
        return False
    return (var.name, block.then.value)


def _totals(cx: Context, block: n.SequenceBlock, rule: m.Rule, effects: list[m.Effect]) -> tuple[str, ...] | None:
    derives = {e.name: e for e in effects if isinstance(e, m.DeriveEffect)}
    names: list[str] = []
    for ref in block.totals:
        derived = derives.get(ref.text)
        if derived is None:
            cx.reporter.report(
                "E801",
                f"rule `{rule.name}` derives no `{ref.text}` to total over the {block.unit.text}s",
                ref.span,
                did_you_mean(ref.text, derives) or "total a value the rule derives: `derive NAME = ...`",
            )
            return None
        if not isinstance(derived.type, (t.Numeric, t.Dice)):
            cx.reporter.report(
                "E801",
                f"`{ref.text}` cannot add up over the {block.unit.text}s: it is not a number or dice",
                ref.span,
            )
            return None
        if ref.text not in names:
            names.append(ref.text)
    return tuple(names)
