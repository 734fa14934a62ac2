"""Rules: their statements flattened into guarded effects, and composition (`as OTHER`).

A composed rule is analysed once per set of bindings (a Part of `Book.parts`) and referenced by a
PartEffect wherever it is composed, so a lattice of traits that compose each other is analysed
in time proportional to its text, not to the number of ways through it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import Any

from dsl import model as m
from dsl import nodes as n
from dsl.analysis.context import Context
from dsl.analysis.derives import analyze_derive
from dsl.analysis.examples import analyze_example
from dsl.analysis.infer import Scope
from dsl.analysis.modifiers import analyze_modifier
from dsl.analysis.rolls import analyze_roll
from dsl.analysis.sequences import analyze_sequence
from dsl.diagnostics import did_you_mean
from dsl.model.exprs import effect_exprs, names_in, names_read, substitute, with_starts
from dsl.printer import expr_text


def analyze_rule(cx: Context, decl: n.RuleDecl) -> m.Rule:
    name = decl.name.text
    if decl.cites is None:
        cx.reporter.report(
            "W102",
            f"rule `{name}` cites no source",
            decl.name.span,
            'say where it comes from: rule NAME "Title" cites "section"',
        )
    part = analyze_part(cx, decl, {})
    categories = [s for s in decl.body if isinstance(s, n.CategoryStmt)]
    for extra in categories[1:]:
        cx.reporter.report("E102", "a rule has one category", extra.span)
    rule = m.Rule(
        name=name,
        kind=decl.kind,
        title=decl.title.value if decl.title else name.replace("_", " ").title(),
        cites=decl.cites.value if decl.cites else None,
        category=cx.category(categories[0]) if categories else None,
        effects=part.effects,
        examples=(),
        reads=_reads(cx, part.key),
        span=decl.span,
    )
    sequence = analyze_sequence(cx, decl, rule)
    if sequence is not None:
        rule = dataclasses.replace(rule, sequence=sequence)
    examples = tuple(x for x in (analyze_example(cx, e, rule) for e in decl.examples) if x is not None)
    return dataclasses.replace(rule, examples=examples) if examples else rule


def analyze_part(cx: Context, decl: n.RuleDecl, bindings: dict[str, n.Expr]) -> m.Part:
    """The effects of a rule with these bindings substituted: analysed on first use, then reused."""
    name = decl.name.text
    key = part_key(name, bindings)
    found = cx.book.parts.get(key)
    if found is not None:
        return found
    cx.expanding.append(name)
    scope = Scope(later_derives=frozenset(_derived_names(decl.body)))
    effects = tuple(_expand(cx, decl, decl.body, (), bindings, scope))
    cx.expanding.pop()
    part = m.Part(key, name, effects, tuple(scope.derives.items()))
    cx.book.parts[key] = part
    return part


def part_key(rule: str, bindings: dict[str, n.Expr]) -> str:
    if not bindings:
        return rule
    return f"{rule}[{','.join(f'{k}={expr_text(v)}' for k, v in sorted(bindings.items()))}]"


def _expand(
    cx: Context,
    rule: n.RuleDecl,
    body: Iterable[n.Statement],
    guard: tuple[m.Condition, ...],
    bindings: dict[str, n.Expr],
    scope: Scope,
    path: str = "",
    guard_names: frozenset[str] = frozenset(),
) -> Iterator[m.Effect]:
    """The effects of statements, each keyed by its place in its rule (`mud#3`, `mud#2.1`): a
    key that survives edits elsewhere in the file, and that is the same when the statement is
    reached through `as`, which is how a rule applied twice is recognised.  The key names the
    `with` bindings the statement reads (itself or in the conditions around it): reached with
    bindings it never reads, it is the same statement.  `guard_names` are the names read by
    those conditions."""
    origin = rule.name.text
    for index, statement in enumerate(body, start=1):
        place = f"{path}{index}"
        read = guard_names | names_in(statement) if bindings else guard_names
        bound = {k: v for k, v in bindings.items() if k in read}
        key = _effect_key(origin, place, bound)
        base: dict[str, Any] = {
            "key": key,
            "origin": origin,
            "cites": rule.cites.value if rule.cites else None,
            "guard": guard,
            "via": (),
            "span": statement.span,
        }
        if isinstance(statement, n.WhenBlock):
            condition = substitute(statement.condition, bindings)
            cx.typer.condition(condition, scope)
            inner_names = guard_names | names_in(statement.condition) if bindings else guard_names
            for branch, negated, suffix in (
                (statement.body, statement.negated, "."),
                (statement.orelse, not statement.negated, "else."),
            ):
                if branch:
                    yield from _expand(
                        cx,
                        rule,
                        branch,
                        (*guard, m.Condition(condition, negated)),
                        bindings,
                        scope,
                        f"{place}{suffix}",
                        inner_names,
                    )
        elif isinstance(statement, n.Modifier):
            modifier = analyze_modifier(cx, statement, base, bindings, scope)
            if modifier is not None:
                yield modifier
        elif isinstance(statement, n.RollDecl):
            roll = analyze_roll(cx, statement, base, bindings, scope)
            if roll is not None:
                yield roll
            for number, item in enumerate(statement.items, start=1):
                if isinstance(item, n.RollNote) and isinstance(item.note, n.AsideStmt):
                    # reading matter about the roll: the rule's aside, under the roll's conditions
                    aside = {**base, "key": _effect_key(origin, f"{place}.{number}", bound), "span": item.span}
                    yield m.NoteEffect(**aside, text=item.note.text.value, quote=None, aside=True)
        elif isinstance(statement, n.CannotStmt):
            yield m.CannotEffect(**base, text=statement.text.value)
        elif isinstance(statement, n.NoteStmt):
            yield m.NoteEffect(**base, text=statement.text.value, quote=None)
        elif isinstance(statement, n.AsideStmt):
            yield m.NoteEffect(**base, text=statement.text.value, quote=None, aside=True)
        elif isinstance(statement, n.ErratumStmt):
            yield m.NoteEffect(**base, text=statement.text.value, quote=statement.quote.value)
        elif isinstance(statement, n.DeriveStmt):
            derived = analyze_derive(cx, statement, base, bindings, scope)
            if derived is not None:
                yield derived
        elif isinstance(statement, n.AsStmt):
            yield from _as(cx, statement, base, bindings, scope)
        elif isinstance(statement, n.CategoryStmt) and guard:
            cx.reporter.report("E203", "a category belongs to the whole rule, not to a condition", statement.span)


def _as(
    cx: Context, statement: n.AsStmt, base: dict[str, Any], bindings: dict[str, n.Expr], scope: Scope
) -> Iterator[m.PartEffect]:
    for ref in statement.rules:
        target = cx.rule_decls.get(ref.text)
        if target is None:
            hint = did_you_mean(ref.text, cx.rule_decls)
            if ref.text in cx.table_shapes:
                cx.reporter.report(
                    "E104",
                    f"`{ref.text}` is a table; `as` takes a rule, terrain, condition or trait",
                    ref.span,
                    f"use a table by looking it up, `{ref.text}[...]`, or from a roll: `then roll {ref.text}`",
                )
            else:
                cx.reporter.report("E101", f"unknown rule `{ref.text}`", ref.span, hint)
            continue
        if ref.text in cx.expanding:
            circle = cx.expanding[cx.expanding.index(ref.text) :]
            if frozenset(circle) not in cx.circles:  # met again from each rule of the circle
                cx.circles.add(frozenset(circle))
                cx.reporter.report(
                    "E107",
                    f"rules compose in a circle: {' -> '.join([*circle, ref.text])}",
                    ref.span,
                    "one of them must not use `as`",
                )
            continue
        inner: dict[str, n.Expr] = {}
        for binding in statement.bindings:
            var = cx.book.vars.get(binding.name.text)
            if var is None:
                cx.reporter.report(
                    "E101",
                    f"unknown input `{binding.name.text}`",
                    binding.name.span,
                    did_you_mean(binding.name.text, cx.book.vars),
                )
                continue
            value = substitute(binding.value, bindings)
            if cx.typer.expect(value, scope, var.type, f"`{var.name}`") is not None:
                inner[var.name] = value
        part = analyze_part(cx, target, {**bindings, **inner})
        scope.derives.update(part.derives)
        yield m.PartEffect(**{**base, "key": f"{base['key']}>{part.key}"}, part=part.key, rule=ref.text)


def _effect_key(origin: str, place: str, bindings: dict[str, n.Expr]) -> str:
    where = f"{origin}#{place}"
    if not bindings:
        return where
    bound = ",".join(f"{k}={expr_text(v)}" for k, v in sorted(bindings.items()))
    return f"{where}[{bound}]"


def _derived_names(body: Iterable[n.Statement]) -> set[str]:
    names: set[str] = set()
    for statement in body:
        if isinstance(statement, n.DeriveStmt):
            names.add(statement.name.text)
        elif isinstance(statement, n.WhenBlock):
            names |= _derived_names(statement.body) | _derived_names(statement.orelse)
    return names


def _reads(cx: Context, key: str) -> tuple[str, ...]:
    """Every input and stat a part reads or changes, composed parts included, in declaration
    order (worked out once per part)."""
    return with_starts(cx.book, _part_names(cx, key))


def _part_names(cx: Context, key: str) -> frozenset[str]:
    found = cx.part_names.get(key)
    if found is not None:
        return found
    names: set[str] = set()
    part = cx.book.parts.get(key)
    for effect in part.effects if part else ():
        if isinstance(effect, m.PartEffect):
            names |= _part_names(cx, effect.part)
            for condition in effect.guard:
                names |= names_read(condition.expr, cx.book)
            continue
        for expr in effect_exprs(effect):
            names |= names_read(expr, cx.book)
        if isinstance(effect, m.ModEffect):
            names.add(effect.target)
        elif isinstance(effect, m.RollEffect):
            names.update(change.target for outcome in effect.outcomes for change in outcome.changes)
    cx.part_names[key] = frozenset(names)
    return cx.part_names[key]
