"""Balance blocks: the rules they apply, the space of situations they cover (each axis an input the
rules read, with values its type allows) and the values they hold fixed.

What the claims measure (a roll the rules call for, a stat they change) is checked over the
finished model (dsl/checks/balance.py); here, every name and value of the block.
"""

from __future__ import annotations

from fractions import Fraction

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.analysis.context import Context
from dsl.diagnostics import Span, did_you_mean
from dsl.printer import number_text as num


def analyze_balance(cx: Context, decl: n.BalanceDecl) -> m.Balance | None:
    rules = [ref.text for ref in decl.rules]
    if not rules:
        cx.reporter.report(
            "E101",
            "a balance block names the rules it applies",
            decl.title.span,
            'write `balance "..." for rule_a, rule_b:`',
        )
        return None
    known = [*cx.rule_decls, *cx.table_shapes]
    named = [
        *decl.rules,
        *(ref for claim in decl.claims for measure in m.claim_measures(claim) for ref in measure.variant),
    ]
    unknown = [ref for ref in named if ref.text not in known]
    for ref in unknown:
        cx.reporter.report("E101", f"unknown rule `{ref.text}`", ref.span, did_you_mean(ref.text, known))
    seen: dict[str, Span] = {}
    space: list[m.SpaceAxis] = []
    for axis in decl.space:
        found = _axis(cx, axis, seen)
        if found is not None:
            space.append(found)
    givens: list[tuple[str, m.Constant]] = []
    given_at: list[Span] = []
    for binding in decl.givens:
        name = binding.name.text
        var = _var(cx, binding.name, seen)
        if var is None:
            continue
        value = cx.constant(binding.value, var.type, f"`{name}`")
        if value is not None:
            givens.append((name, value))
            given_at.append(binding.name.span)
    for claim in decl.claims:
        _amounts(cx, claim)
    if unknown or len(space) != len(decl.space) or len(givens) != len(decl.givens):
        return None
    return m.Balance(
        decl.title.value, tuple(rules), tuple(space), tuple(givens), decl.claims, decl.span, tuple(given_at)
    )


def _var(cx: Context, name: n.Name, seen: dict[str, Span]) -> m.Var | None:
    """The input or stat NAME, named once in the block (in `over` or in `given`)."""
    var = cx.book.vars.get(name.text)
    if var is None:
        cx.reporter.report("E101", f"unknown input `{name.text}`", name.span, did_you_mean(name.text, cx.book.vars))
        return None
    if name.text in seen:
        cx.reporter.report(
            "E902",
            f"`{name.text}` is named twice in this balance block",
            name.span,
            f"give its values once, in `over` (every value swept) or in `given` (one value); first at line {seen[name.text].line}",
        )
        return None
    seen[name.text] = name.span
    return var


def _axis(cx: Context, axis: n.OverAxis, seen: dict[str, Span]) -> m.SpaceAxis | None:
    var = _var(cx, axis.name, seen)
    if var is None:
        return None
    type_ = var.type
    name = axis.name.text
    if isinstance(axis, n.OverMembers):
        if not isinstance(type_, t.Enum):
            cx.reporter.report(
                "E902",
                f"`{name}` is {type_.describe()}, not a choice: `in {{...}}` lists choices",
                axis.span,
                f"write `{name} = LOW..HIGH`" if isinstance(type_, t.Numeric) else None,
            )
            return None
        members = [member.text for member in axis.members]
        for member in axis.members:
            if member.text not in type_.members:
                cx.reporter.report(
                    "E105",
                    f"`{member.text}` is not a value of `{name}` ({type_.describe()})",
                    member.span,
                    did_you_mean(member.text, type_.members),
                )
                return None
        return m.SpaceAxis(name, tuple(dict.fromkeys(members)), axis.span)
    if isinstance(axis, n.OverEvery):
        if isinstance(type_, t.Flag):
            return m.SpaceAxis(name, (False, True), axis.span)
        if isinstance(type_, t.Enum):
            return m.SpaceAxis(name, type_.members, axis.span)
        if isinstance(type_, t.Numeric) and type_.integral and type_.low is not None and type_.high is not None:
            return m.SpaceAxis(name, range(int(type_.low), int(type_.high) + 1), axis.span)
        cx.reporter.report(
            "E902",
            f"`{name}` ({type_.describe()}) has no list of every value to sweep",
            axis.span,
            f"give its values: `{name} = LOW..HIGH by STEP`"
            if isinstance(type_, t.Numeric)
            else f"give it one value with `given {name} = ...`",
        )
        return None
    assert isinstance(axis, n.OverRange)
    if not isinstance(type_, t.Numeric):
        cx.reporter.report(
            "E902",
            f"`{name}` is {type_.describe()}, not a number: a range needs one",
            axis.span,
            f"write `{name}` alone to sweep every value, or `{name} in {{...}}`"
            if isinstance(type_, (t.Enum, t.Flag))
            else None,
        )
        return None
    low, high = axis.low.value, axis.high.value
    step = axis.step.value if axis.step is not None else Fraction(1)
    if step <= 0:
        cx.reporter.report("E302", f"the step of `{name}` must be more than 0", axis.span)
        return None
    if high < low:
        cx.reporter.report(
            "E302", f"the range {num(low)}..{num(high)} of `{name}` is empty", axis.span, "write the lower bound first"
        )
        return None
    for bound, at in ((low, axis.low), (high, axis.high)):
        if not type_.contains(bound):
            cx.reporter.report("E301", f"`{name}` {num(bound)} is outside {type_.describe()}", at.span)
            return None
    if type_.integral and any(x.denominator != 1 for x in (low, step)):
        cx.reporter.report("E201", f"`{name}` is a whole number: sweep it by whole steps", axis.span)
        return None
    count = int((high - low) // step) + 1
    if low.denominator == step.denominator == 1:
        return m.SpaceAxis(name, range(int(low), int(low + count * step), int(step)), axis.span)
    return m.SpaceAxis(name, tuple(low + index * step for index in range(count)), axis.span)


def _amounts(cx: Context, claim: n.Claim) -> None:
    """A chance is between 0 and 1 (0% and 100%): a bound beyond that could never be met, or is
    always met, and is a slip."""
    measure = claim.measure
    if not isinstance(measure, n.ChanceMeasure):
        return
    amounts: list[n.Amount] = []
    if isinstance(claim, n.ClaimBetween):
        amounts = [claim.low, claim.high]
        if claim.high.value < claim.low.value:
            cx.reporter.report("E302", "the range of a `between` is empty", claim.span, "write the lower bound first")
    elif isinstance(claim, n.ClaimBound):
        amounts = [claim.bound]
    for amount in amounts:
        if not 0 <= amount.value <= 1:
            cx.reporter.report("E301", f"a chance of {_shown(amount)} is outside 0..1 (0% to 100%)", amount.span)
    if isinstance(claim, n.ClaimVersus) and claim.offset is not None and not -1 <= claim.offset.value <= 1:
        cx.reporter.report("E301", f"two chances never differ by {_shown(claim.offset)}", claim.offset.span)


def _shown(amount: n.Amount) -> str:
    return f"{num(amount.value * 100)}%" if amount.percent else num(amount.value)
