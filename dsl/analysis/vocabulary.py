"""The vocabulary of a rulebook: types, inputs and stats with their defaults, stacking groups,
the difficulty grades, outcome tiers and the resistance formula."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.analysis.context import Context, guess_high, num, text
from dsl.analysis.infer import Scope, check_dice
from dsl.diagnostics import did_you_mean
from dsl.model.exprs import names_read, stats_read, walk
from dsl.runtime.pools import showing_key


def analyze_type(cx: Context, node: n.TypeExpr) -> t.Type | None:
    if isinstance(node, (n.IntType, n.NumberType, n.PercentType)):
        kind = {n.IntType: "int", n.NumberType: "number", n.PercentType: "percent"}[type(node)]
        low = high = None
        if node.bounds is not None:
            low, high = node.bounds.low, node.bounds.high
            if high is not None and low > high:
                cx.reporter.report(
                    "E302",
                    f"the range {num(low)}..{num(high)} is empty: it ends below where it starts",
                    node.bounds.span,
                    f"did you mean {num(low)}..{num(guess_high(low, high))}?",
                )
                return None
            if kind != "number" and (low.denominator != 1 or (high is not None and high.denominator != 1)):
                cx.reporter.report("E201", f"{kind} bounds must be whole numbers", node.bounds.span)
                return None
        elif kind == "percent":
            low = Fraction(0)
        unit = None
        if not isinstance(node, n.PercentType) and node.unit is not None:
            unit = node.unit.text
            if unit not in cx.book.units:
                cx.reporter.report(
                    "E101",
                    f"unknown unit `{unit}`",
                    node.unit.span,
                    did_you_mean(unit, cx.book.units) or f"declare it: unit {unit}",
                )
                return None
        return t.Numeric(kind, low, high, unit)
    if isinstance(node, n.FlagType):
        return t.FLAG
    if isinstance(node, n.DiceType):
        return t.DICE
    if isinstance(node, n.TextType):
        return t.TEXT
    if isinstance(node, (n.EnumType, n.LevelsType)):
        names = [m_.text for m_ in node.members]
        for i, member in enumerate(node.members):
            if member.text in names[:i]:
                cx.reporter.report("E102", f"`{member.text}` is listed twice", member.span)
                return None
            if not cx.check_name(member, "member"):
                return None
        return t.Enum(tuple(names), isinstance(node, n.LevelsType))
    assert isinstance(node, n.NamedType)
    alias = cx.type_aliases.get(node.name.text)
    if alias is None:
        cx.reporter.report(
            "E101",
            f"unknown type `{node.name.text}`",
            node.name.span,
            did_you_mean(node.name.text, cx.type_aliases)
            or "types are int, number, percent, flag, dice, text, one of {...}, levels {...}",
        )
    return alias


def analyze_var(cx: Context, decl: n.InputDecl | n.StatDecl) -> None:
    if not cx.declare(decl.name, "input or stat"):
        return
    type_ = analyze_type(cx, decl.type)
    if type_ is None:
        # its type is reported already (or did not parse): its uses are not news
        cx.unknown_from_now_on(decl.name.text)
        return
    phrase = negative = None
    if decl.phrase is not None:
        phrase = decl.phrase.text.value
        if decl.phrase.negative is not None:
            if not isinstance(type_, t.Flag):
                cx.reporter.report(
                    "E205",
                    f"`{decl.name.text}` is not a flag: its phrase has one text, not two",
                    decl.phrase.span,
                    'two texts (`phrase "holds" / "does not hold"`) are for a flag',
                )
            else:
                negative = decl.phrase.negative.value
    cx.book.vars[decl.name.text] = m.Var(
        decl.name.text,
        text(decl.label),
        type_,
        None,
        isinstance(decl, n.StatDecl),
        decl.span,
        phrase=phrase,
        negative=negative,
        members=_member_phrases(cx, decl.type),
    )


def _member_phrases(cx: Context, node: n.TypeExpr) -> tuple[tuple[str, str], ...]:
    """The phrases written with the choices of a type, its own or the one it names."""
    if isinstance(node, n.NamedType):
        alias = next(
            (d for d in cx.tree.declarations if isinstance(d, n.TypeDecl) and d.name.text == node.name.text), None
        )
        return () if alias is None or isinstance(alias.type, n.NamedType) else _member_phrases(cx, alias.type)
    if isinstance(node, (n.EnumType, n.LevelsType)):
        return tuple((m_.text, p.value) for m_, p in zip(node.members, node.phrases, strict=False) if p is not None)
    return ()


def analyze_default(cx: Context, decl: n.InputDecl | n.StatDecl) -> None:
    """A default is a fixed value, or (once every input is known) a formula of other values:
    `stat to_hit: int = DEX` starts from the effective DEX unless given."""
    var = cx.book.vars.get(decl.name.text)
    if var is None or cx.book.vars[decl.name.text].span != decl.span:
        return
    if decl.default is None:
        default = implicit_default(var.type)
        if default is None:
            cx.reporter.report(
                "E201",
                f"`{decl.name.text}` needs a default value (`= ...`)",
                decl.name.span,
                "for dice, e.g. `= 1d6`",
            )
        cx.book.vars[var.name] = dataclasses.replace(var, default=default)
        return
    if not any(isinstance(x, (n.NameRef, n.BaseRef)) and x.name in cx.book.vars for x in walk(decl.default)):
        value = cx.constant(decl.default, var.type, "the default")
        cx.book.vars[var.name] = dataclasses.replace(var, default=value)
        return
    found = cx.typer.expect(decl.default, Scope(), loose(var.type), "the default")
    if found is None:
        return
    if decl.name.text in names_read(decl.default, cx.book) | stats_read(decl.default, cx.book):
        cx.reporter.report(
            "E601", f"`{var.name}` cannot start from itself", decl.default.span, "give it a fixed default"
        )
        return
    cx.book.vars[var.name] = dataclasses.replace(var, default=None, default_expr=decl.default)


def analyze_grades(cx: Context, decl: n.GradesDecl) -> None:
    grades: list[m.Grade] = []
    for item in decl.grades:
        if not cx.declare(item.name, "grade"):
            continue
        effect = item.effect
        value_expr = (
            effect.value
            if isinstance(effect, n.SetMod)
            else getattr(effect, "factor", None) or getattr(effect, "divisor", None)
        )
        assert value_expr is not None
        value = cx.constant(value_expr, t.NUMBER, "a grade's factor")
        if value is None or not isinstance(value, (int, Fraction)):
            continue
        op = {n.MulMod: "mul", n.DivMod: "div", n.SetMod: "set"}[type(effect)]
        rounding = getattr(effect, "rounding", None)
        grades.append(m.Grade(item.name.text, item.step, op, Fraction(value), rounding, item.span))  # type: ignore[arg-type]
    cx.book.grades = tuple(grades)


def analyze_tiers(cx: Context, decl: n.TiersDecl) -> None:
    if not cx.declare(decl.name, "tiers"):
        return
    scope = Scope(specials={"target": t.Numeric("number")})
    tiers: list[m.Tier] = []
    for item in decl.tiers:
        if item.name.text in [x.name for x in tiers]:
            cx.reporter.report("E102", f"tier `{item.name.text}` is listed twice", item.name.span)
            continue
        if item.bound is not None:
            if item.op not in ("<=", ">="):
                cx.reporter.report(
                    "E203",
                    f"a tier is bounded with `roll <=` or `roll >=`, not `roll {item.op}`",
                    item.span,
                )
                continue
            cx.typer.expect(item.bound, scope, t.Numeric("number"), "a tier's bound")
            _only_specials(cx, item.bound, scope, "a tier's bound")
        ranges = ([item.natural] if item.natural is not None else []) + [(x.low, x.high) for x in item.also]
        empty = next(((low, high) for low, high in ranges if low > high), None)
        if empty is not None:
            low, high = empty
            cx.reporter.report(
                "E302",
                f"the range {low}..{high} is empty: it ends below where it starts",
                item.span,
                f"did you mean {high}..{low}?",
            )
            continue
        die = _read_key(item.die, item.showing)
        also = tuple(m.NaturalTest(x.low, x.high, _read_key(x.die, x.showing)) for x in item.also)
        tiers.append(
            m.Tier(item.name.text, item.op, item.bound, item.span, item.natural, item.always, die, also, item.joined)
        )
    cx.book.tiers[decl.name.text] = m.TierSystem(decl.name.text, text(decl.label), tuple(tiers), decl.span)


def _read_key(die: n.Name | None, showing: tuple[int | None, int | None] | None) -> str | None:
    """What a tier's test reads, as the model and the resolvers name it: a die's name, None for
    the dice alone, `showing 6` for how many dice show 6."""
    if showing is not None:
        return showing_key(showing)
    return die.text if die is not None else None


def _only_specials(cx: Context, expr: n.Expr, scope: Scope, what: str) -> None:
    """A tier's bound and the resistance formula are shared by every roll that uses them, so
    they read only their own names (`target`; `active`, `passive`), never a stat or input."""
    allowed = ", ".join(f"`{name}`" for name in scope.specials)
    for node in walk(expr):
        if isinstance(node, n.NameRef) and node.name not in scope.specials and node.name in cx.book.vars:
            name = node.name
        elif isinstance(node, n.BaseRef) and node.name in cx.book.vars:
            name = f"base {node.name}"
        elif isinstance(node, n.Lookup):
            name = node.table.text
        else:
            continue
        cx.reporter.report(
            "E104",
            f"{what} cannot read `{name}`: it may use only {allowed} and numbers",
            node.span,
            "it serves every roll that uses it: read other values in the roll itself, or write a second roll",
        )


def analyze_resistance(cx: Context, decl: n.ResistanceDecl) -> None:
    check_dice(decl.pool.count, decl.pool.sides, decl.pool, cx.reporter)
    scope = Scope(specials={"active": t.Numeric("int"), "passive": t.Numeric("int")})
    cx.typer.expect(decl.target, scope, t.Numeric("number"), "the resistance target")
    _only_specials(cx, decl.target, scope, "the resistance formula")
    cx.book.resistance = m.Resistance(text(decl.label), decl.pool, decl.op, decl.target, decl.span)


# ------------------------------------------------------------------ tables


def analyze_group(cx: Context, group: n.GroupDecl) -> None:
    if cx.declare(group.name, "group"):
        cx.book.groups[group.name.text] = m.Group(group.name.text, text(group.label), group.stacking, group.span)


def implicit_default(type_: t.Type) -> m.Constant | None:
    if isinstance(type_, t.Numeric):
        low = type_.low if type_.low is not None else Fraction(0)
        if type_.high is not None and low > type_.high:
            low = type_.high
        return int(low) if type_.integral else low
    if isinstance(type_, t.Flag):
        return False
    if isinstance(type_, t.Enum):
        return type_.members[0]
    if isinstance(type_, t.Text):
        return ""
    return None


def loose(type_: t.Type) -> t.Type:
    """The type a modifier's value must have: the stat's kind, without its range."""
    if isinstance(type_, t.Numeric):
        return t.Numeric("int" if type_.kind == "percent" else type_.kind, unit=type_.unit)
    return type_


def analyze_statblock(cx: Context, decl: n.StatBlockDecl) -> None:
    """A stat block's rows name rules (the traits a card composes) or stats (that a card
    changes); anything else is an unknown name."""
    if not cx.declare(decl.name, "statblock"):
        return
    rows = []
    for row in decl.rows:
        names = []
        for name in row.names:
            if name.text in cx.book.rules or (name.text in cx.book.vars and cx.book.vars[name.text].is_stat):
                names.append(name.text)
                continue
            known = [*cx.book.rules, *(v for v, var in cx.book.vars.items() if var.is_stat)]
            cx.reporter.report(
                "E101",
                f"unknown rule or stat `{name.text}` in a stat block",
                name.span,
                did_you_mean(name.text, known) or "a row names rules (traits) and stats",
            )
        rows.append((row.label.value, tuple(names)))
    cx.book.statblocks += (m.StatBlock(decl.name.text, text(decl.label), decl.kinds, tuple(rows), decl.span),)
