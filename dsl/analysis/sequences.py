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

OUTCOME_WORDS = {
    "fails": "failure",
    "succeeds": "success",
    "failure": "failure",
    "success": "success",
    "failures": "failure",
    "successes": "success",
}
"""How a sequence names the outcome that ends it or that it counts (`until hold_breath fails`,
`count stamina failures as failed`), as a resolution names it; the tiers of a roll (`until hold_breath fumble`) are named as themselves."""


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
    counter, ok = _counter(cx, block, rule)
    if counter is False:
        return None
    start = block.start if block.start is not None else 1
    if counter is not None:
        numeric = counter.type
        assert isinstance(numeric, t.Numeric)
        if (numeric.low is not None and start < numeric.low) or (numeric.high is not None and start > numeric.high):
            cx.reporter.report(
                "E801",
                f"the {block.unit.text}s cannot start at {start}: `{counter.name}` is {numeric.describe()}",
                block.counter.span if block.counter is not None else block.span,
                f"start inside the range: `each {block.unit.text} {counter.name} from {numeric.low}:`",
            )
            ok = False
    effects = list(flat_effects(cx.book, rule.effects))
    until = _until(cx, block, rule, effects)
    then = _then(cx, block, rule)
    counts = _counts(cx, block, rule, effects, until)
    totals = _totals(cx, block, rule, effects)
    if not ok or until is False or then is False or counts is None or totals is None:
        return None
    return m.Sequence(
        unit=block.unit.text,
        counter=counter.name if counter is not None else None,
        start=start,
        until=until,
        then=then,
        totals=totals,
        span=block.span,
        times=block.until_times if block.until_times is not None else 1,
        counts=counts,
    )


def _counter(cx: Context, block: n.SequenceBlock, rule: m.Rule) -> tuple[m.Var | Literal[False] | None, bool]:
    """The int input that counts the rounds (None without one: every round resolved alike), and
    whether the rule reads it; False when it is no int input (nothing more to check of it)."""
    if block.counter is None:
        return None, True
    counter = cx.book.vars.get(block.counter.text)
    if counter is None:
        cx.reporter.report(
            "E101",
            f"unknown input `{block.counter.text}`",
            block.counter.span,
            did_you_mean(block.counter.text, cx.book.vars),
        )
        return False, False
    numeric = counter.type if isinstance(counter.type, t.Numeric) else None
    if counter.is_stat or numeric is None or numeric.kind != "int":
        cx.reporter.report(
            "E801",
            f"`{counter.name}` cannot count the {block.unit.text}s: a sequence counts with an int input",
            block.counter.span,
            f"declare it as `input {counter.name}: int 1..100`",
        )
        return False, False
    if counter.name not in rule.reads:
        cx.reporter.report(
            "E801",
            f"rule `{rule.name}` never reads `{counter.name}`: every {block.unit.text} would be the same",
            block.counter.span,
            f"make what changes by {block.unit.text} depend on `{counter.name}`, or resolve every"
            f" {block.unit.text} alike: `each {block.unit.text}:`",
        )
        return counter, False
    return counter, True


def _until(
    cx: Context, block: n.SequenceBlock, rule: m.Rule, effects: list[m.Effect]
) -> tuple[str, str] | Literal[False] | None:
    """(roll, outcome), None without `until`, False when it names what the rule lacks."""
    if block.until_roll is None or block.until_outcome is None:
        return None
    if block.until_times is not None and block.until_times < 1:
        cx.reporter.report(
            "E801",
            f"the {block.unit.text}s cannot end after the outcome has come {block.until_times} times:"
            " they end the first time it comes, or a later time",
            block.until_outcome.span,
            f"`until {block.until_roll.text} {block.until_outcome.text}` ends them the first time;"
            f" `until {block.until_roll.text} {block.until_outcome.text} 3 times` the third",
        )
        return False
    return _outcome(cx, block, rule, effects, block.until_roll, block.until_outcome, "to end the")


def _outcome(
    cx: Context,
    block: n.SequenceBlock,
    rule: m.Rule,
    effects: list[m.Effect],
    roll_name: n.Name,
    word_name: n.Name,
    purpose: str,
) -> tuple[str, str] | Literal[False]:
    """(roll, outcome) of `until` or `count`, the outcome as a resolution names it; False when
    the rule makes no such roll or the roll has no such outcome."""
    rolls = {e.name: e for e in effects if isinstance(e, m.RollEffect)}
    roll = rolls.get(roll_name.text)
    if roll is None:
        cx.reporter.report(
            "E801",
            f"rule `{rule.name}` calls for no roll `{roll_name.text}` {purpose} {block.unit.text}s",
            roll_name.span,
            did_you_mean(roll_name.text, rolls) or "follow an outcome of one of the rule's rolls",
        )
        return False
    word = word_name.text
    names = set(cx.book.tier_names(roll)) | {outcome.name for outcome in roll.outcomes}
    outcome = OUTCOME_WORDS.get(word, word if word in names else None)
    if outcome is None:
        cx.reporter.report(
            "E801",
            f"roll `{roll.name}` has no outcome `{word}`",
            word_name.span,
            did_you_mean(word, [*OUTCOME_WORDS, *names]) or "say `fails` or `succeeds`, or name a tier",
        )
        return False
    return (roll.name, outcome)


def _counts(
    cx: Context,
    block: n.SequenceBlock,
    rule: m.Rule,
    effects: list[m.Effect],
    until: tuple[str, str] | Literal[False] | None,
) -> tuple[m.SequenceCount, ...] | None:
    """`count ROLL OUTCOME as INPUT`: int inputs the rule reads, whose range holds 0, each set
    once.  The counts and a later `until` follow one outcome of one roll, so that one chance a
    round moves every count and the end together (two outcomes would need the chance of them
    coming together, which a round's resolution does not give)."""
    found: list[m.SequenceCount] = []
    ok = True
    followed = until or None
    taken = {name.text for name in (block.counter, block.then.name if block.then else None) if name is not None}
    for count in block.counts:
        outcome = _outcome(cx, block, rule, effects, count.roll, count.outcome, "to count over the")
        into = _count_input(cx, block, rule, count, taken)
        if outcome is False or into is None:
            ok = False
            continue
        taken.add(into)
        if followed is not None and followed != outcome:
            cx.reporter.report(
                "E801",
                f"a sequence follows one outcome of one roll: `{count.roll.text} {count.outcome.text}` is not"
                f" `{followed[0]} {_said(followed[1])}`",
                count.span,
                f"count the outcome the {block.unit.text}s follow: `count {followed[0]} {_said(followed[1])} as {into}`",
            )
            ok = False
            continue
        followed = outcome
        found.append(m.SequenceCount(roll=outcome[0], outcome=outcome[1], input=into))
    return tuple(found) if ok else None


def _said(outcome: str) -> str:
    """An outcome as a sequence says it: `fails` and `succeeds` for the roll as a whole."""
    return {"failure": "fails", "success": "succeeds"}.get(outcome, outcome)


def _count_input(
    cx: Context, block: n.SequenceBlock, rule: m.Rule, count: n.SequenceCount, taken: set[str]
) -> str | None:
    """The input a count sets: an int input the rule reads, with 0 in its range, set by nothing
    else of the sequence."""
    name = count.into
    var = cx.book.vars.get(name.text)
    numeric = var.type if var is not None and isinstance(var.type, t.Numeric) else None
    if var is None or var.is_stat or name.text not in rule.reads:
        what = "reads no input" if var is None or var.is_stat else "never reads"
        cx.reporter.report(
            "E801",
            f"rule `{rule.name}` {what} `{name.text}`: `count` sets an input the rule reads",
            name.span,
            did_you_mean(name.text, [v for v in rule.reads if not cx.book.vars[v].is_stat])
            or f"make what the count changes depend on `{name.text}`",
        )
        return None
    if numeric is None or numeric.kind != "int" or (numeric.low is not None and numeric.low > 0):
        high = numeric.high if numeric is not None and numeric.kind == "int" and numeric.high is not None else 100
        cx.reporter.report(
            "E801",
            f"`{var.name}` cannot hold a count: it is {var.type.describe()}, and a count starts at 0",
            name.span,
            f"declare it as `input {var.name}: int 0..{high}`",
        )
        return None
    if name.text in taken:
        cx.reporter.report(
            "E801",
            f"`{name.text}` is set by the sequence already: a count sets an input nothing else of it sets",
            name.span,
            "count into an input of its own",
        )
        return None
    return var.name


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
