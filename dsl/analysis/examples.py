"""Worked examples: the rules they apply, the values they give, and what they expect (each value
checked against the type of what it names)."""

from __future__ import annotations

from fractions import Fraction

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.analysis.context import Context
from dsl.analysis.infer import Scope
from dsl.diagnostics import Span, did_you_mean


def analyze_example(cx: Context, decl: n.ExampleDecl, owner: m.Rule | None) -> m.Example | None:
    rules = [r.text for r in decl.rules]
    if owner is not None and not rules:
        rules = [owner.name]
    if not rules:
        cx.reporter.report(
            "E101",
            "a worked example outside a rule names the rules it applies",
            decl.title.span,
            'write `example "..." for rule_a, rule_b:`',
        )
        return None
    ok = True
    for ref in decl.rules:
        if ref.text not in cx.rule_decls and ref.text not in cx.table_shapes:
            cx.reporter.report(
                "E101",
                f"unknown rule `{ref.text}`",
                ref.span,
                did_you_mean(ref.text, [*cx.rule_decls, *cx.table_shapes]),
            )
            ok = False
    if not ok:
        return None
    givens: list[tuple[str, n.Expr]] = []
    given_at: list[Span] = []
    table_inputs = {"roll": t.Numeric("int")} if any(r in cx.table_shapes for r in rules) else {}
    for binding in decl.givens:
        name = binding.name.text
        var = cx.book.vars.get(name)
        type_ = var.type if var is not None else table_inputs.get(name)
        if type_ is None:
            cx.reporter.report(
                "E101",
                f"unknown input `{name}`",
                binding.name.span,
                did_you_mean(name, [*cx.book.vars, *table_inputs]),
            )
            continue
        if cx.constant(binding.value, type_, f"`{name}`") is not None:
            givens.append((name, binding.value))
            given_at.append(binding.name.span)
    for expectation in decl.expectations:
        value = getattr(expectation, "value", None)
        if isinstance(expectation, n.ExpectValue):
            var = cx.book.vars.get(expectation.name.text)
            if var is not None:
                cx.constant(expectation.value, var.type, f"`{var.name}`")
            elif value is not None:
                cx.typer.infer(value, Scope())
        elif isinstance(expectation, (n.ExpectRoll, n.ExpectChance, n.ExpectLasting, n.ExpectChain)):
            cx.constant(expectation.value, t.Numeric("number", Fraction(0), Fraction(1)), "a probability")
            if isinstance(expectation, n.ExpectChance):
                cx.constant(expectation.bound, t.Numeric("number"), "the bound of a chance")
        elif value is not None:
            cx.typer.infer(value, Scope())
    _rounds(cx, decl, rules)
    return m.Example(
        decl.title.value, tuple(rules), tuple(givens), decl.expectations, decl.span, tuple(given_at), decl.rounds
    )


def _has_sequence(decl: n.RuleDecl) -> bool:
    return any(isinstance(statement, n.SequenceBlock) for statement in decl.body)


def _rounds(cx: Context, decl: n.ExampleDecl, rules: list[str]) -> None:
    """`over N rounds` needs a rule with a sequence; `lasting` needs `over N rounds`."""
    if decl.rounds is not None:
        # a rule whose `each` block is wrong is reported there: its examples are not news
        stated = [name for name in rules if name in cx.rule_decls and _has_sequence(cx.rule_decls[name])]
        if decl.rounds < 1:
            cx.reporter.report("E801", "an example runs over 1 round or more", decl.title.span)
        elif not stated:
            cx.reporter.report(
                "E801",
                f"none of {', '.join(rules)} says what changes from round to round",
                decl.title.span,
                "give the rule a sequence: `each round COUNTER:`",
            )
    for expectation in decl.expectations:
        if isinstance(expectation, n.ExpectLasting) and decl.rounds is None:
            cx.reporter.report(
                "E801",
                "`lasting` is the chance of lasting every round of a sequence",
                expectation.span,
                "say how many: `over 3 rounds`",
            )
