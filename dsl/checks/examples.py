"""E701: a worked example that expects something its rules never produce.

Caught when checking, before any example runs: expecting a stat no rule changes, a roll no rule
calls for, or a restriction no rule states is a mistake in the example, not in the rules.
"""

from __future__ import annotations

from dsl import model as m
from dsl import nodes as n
from dsl.diagnostics import Reporter, did_you_mean
from dsl.model.parts import flat_effects


def check_examples(book: m.Book, reporter: Reporter) -> None:
    for example in all_examples(book):
        _check(example, book, reporter)


def all_examples(book: m.Book) -> list[m.Example]:
    return [x for rule in book.rules.values() for x in rule.examples] + list(book.examples)


def _check(example: m.Example, book: m.Book, reporter: Reporter) -> None:
    stats: set[str] = set()
    derives: set[str] = set()
    rolls: dict[str, set[str]] = {}  # each roll's outcomes
    texts: set[str] = set()
    columns: dict[str, set[str]] = {}
    for name in example.rules:
        rule = book.rules.get(name)
        if rule is None:
            table = book.tables.get(name)
            if table is not None:
                columns[name] = {c for c, _ in table.columns}
            continue
        for effect in flat_effects(book, rule.effects):
            if isinstance(effect, m.ModEffect):
                stats.add(effect.target)
            elif isinstance(effect, m.DeriveEffect):
                derives.add(effect.name)
            elif isinstance(effect, m.RollEffect):
                rolls.setdefault(effect.name, set()).update(book.outcome_names(effect))
            elif isinstance(effect, m.CannotEffect):
                texts.add(effect.text)
    rules = ", ".join(f"`{r}`" for r in example.rules)
    never = f"rule `{example.rules[0]}` never" if len(example.rules) == 1 else f"none of {rules}"
    _givens(example, book, reporter, rules)
    for expectation in example.expectations:
        if isinstance(expectation, (n.ExpectValue, n.ExpectChance)):
            name = expectation.name.text
            if name not in stats | derives:
                reporter.report(
                    "E701",
                    f"{never} changes or derives `{name}`",
                    expectation.name.span,
                    did_you_mean(name, stats | derives) or _elsewhere(name, example, book),
                )
        elif isinstance(expectation, (n.ExpectRoll, n.ExpectNoRoll)):
            name = expectation.roll.text
            if name not in rolls:
                reporter.report(
                    "E701",
                    f"{never} calls for a roll `{name}`",
                    expectation.roll.span,
                    did_you_mean(name, rolls),
                )
            elif isinstance(expectation, n.ExpectRoll) and expectation.tier is not None:
                tier, known = expectation.tier.text, rolls[name]
                if tier not in known:
                    reporter.report(
                        "E701",
                        f"the roll `{name}` has no outcome `{tier}` (its outcomes: {', '.join(sorted(known))})",
                        expectation.tier.span,
                        did_you_mean(tier, known),
                    )
        elif isinstance(expectation, n.ExpectCannot):
            if expectation.text.value not in texts:
                reporter.report(
                    "E701",
                    f'{never} says `cannot "{expectation.text.value}"`',
                    expectation.text.span,
                    did_you_mean(expectation.text.value, texts),
                )
        elif isinstance(expectation, n.ExpectColumn):
            table_name = expectation.table.text
            if table_name not in columns:
                reporter.report("E701", f"table `{table_name}` is not among {rules}", expectation.table.span)
            elif expectation.column.text not in columns[table_name]:
                reporter.report(
                    "E701",
                    f"table `{table_name}` has no column `{expectation.column.text}`",
                    expectation.column.span,
                    did_you_mean(expectation.column.text, columns[table_name]),
                )
        elif isinstance(expectation, n.ExpectSuppressed) and expectation.rule.text not in example.rules:
            reporter.report("E701", f"`{expectation.rule.text}` is not among {rules}", expectation.rule.span)


def _givens(example: m.Example, book: m.Book, reporter: Reporter, rules: str) -> None:
    """A value an example gives that none of its rules reads would be refused by a resolver (it
    could only mislead a reader of the example)."""
    reads: set[str] = set()
    for name in example.rules:
        if name in book.rules:
            reads.update(book.rules[name].reads)
        elif name in book.tables:
            reads.update(book.tables[name].reads)
            reads.add("roll")
    for (name, _), span in zip(example.givens, example.given_at, strict=True):
        if name in reads:
            continue
        readers = [rule.name for rule in book.rules.values() if name in rule.reads]
        reporter.report(
            "E701",
            f"`{name}` has no effect on {rules}",
            span,
            f"remove it, or apply a rule that reads it too ({', '.join(f'`{r}`' for r in readers[:3])})"
            if readers
            else "remove it: no rule reads it",
        )


def _elsewhere(name: str, example: m.Example, book: m.Book) -> str | None:
    """Where the value does come from, when another rule changes or derives it."""
    for part in book.parts.values():
        if any(
            (isinstance(e, m.ModEffect) and e.target == name) or (isinstance(e, m.DeriveEffect) and e.name == name)
            for e in part.effects
        ):
            owner = example.rules[0]
            return (
                f"rule `{part.rule}` changes `{name}`: compose it into `{owner}` (`as {part.rule}`), "
                f"or apply it in the example too (`for {', '.join(example.rules)}, {part.rule}`)"
            )
    return None
