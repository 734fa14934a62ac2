"""`order STAT: A before B ...`: the order a book states for the modifiers of a stat.

A stat's modifiers apply by kind (docs/language.md, "The order in which modifiers apply"), and
those of a kind applied one at a time in the order the rules are named.  Where the source says
otherwise, or to say that the source means the same, a book states the order of two or more
kinds (`order MOV: additions before scaling`) or of rules (`order MP: weather before night`); the
resolver and the reference semantics apply it (model.StatOrder), and the order check (W505) stops
asking.  A statement of kinds that the language already applies changes nothing but stands as the
book's word, with the source it quotes.
"""

from __future__ import annotations

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.analysis.context import Context, note_pair
from dsl.diagnostics import did_you_mean
from dsl.runtime.specs import KIND_OPS, MODIFIER_KINDS, ONE_AT_A_TIME


def family(type_: t.Type) -> str | None:
    """`number` or `dice`: the stats whose modifiers' order can matter (levels add their shifts
    up and stop at the ends, other stats are only set)."""
    if isinstance(type_, t.Numeric):
        return "number"
    if isinstance(type_, t.Dice):
        return "dice"
    return None


def modifier_kind(effect: m.ModEffect, book: m.Book) -> str | None:
    """The kind of a modifier whose order can matter, or None: `=`, `min` and `max` state the
    final value or its bounds, an absolute grade (`impossible: = 0`) too, and level shifts add up."""
    if effect.op == "grade":
        grade = next((g for g in book.grades if g.name == effect.grade), None)
        return "grade" if grade is not None and grade.step is not None else None
    return next((kind for kind, ops in KIND_OPS.items() if effect.op in ops), None)


def analyze_order(cx: Context, decl: n.OrderDecl) -> None:
    name = decl.stat.text
    var = cx.book.vars.get(name)
    if var is None:
        stats = [v for v, x in cx.book.vars.items() if x.is_stat]
        cx.reporter.report("E101", f"unknown stat `{name}`", decl.stat.span, did_you_mean(name, stats))
        return
    if not var.is_stat:
        cx.reporter.report(
            "E206",
            f"`{name}` is an input of the situation; only the modifiers of a stat have an order",
            decl.stat.span,
            f"declare it with `stat {name}: ...` if rules change it",
        )
        return
    kind_family = family(var.type)
    if kind_family is None:
        cx.reporter.report(
            "E203",
            f"`{name}` is {var.type.describe()}: no order of its modifiers can change it",
            decl.stat.span,
            "the order matters for numbers (scaling, additions, grade) and dice (dice, steps, additions, scaling)",
        )
        return
    kinds = MODIFIER_KINDS[kind_family]
    items = [item.text for item in decl.items]
    of_kinds = [item.text in kinds for item in decl.items]
    for item, is_kind in zip(decl.items, of_kinds, strict=True):
        if not is_kind and not _ranked_rule(cx, item, name, kinds, kind_family):
            return
    if any(of_kinds) and not all(of_kinds):
        cx.reporter.report(
            "E506",
            f"`order {name}` names kinds of modifier and rules together",
            decl.span,
            f"state the order of kinds ({', '.join(kinds)}) and that of rules in two `order` declarations",
        )
        return
    repeated = next((x for i, x in enumerate(items) if x in items[:i]), None)
    if repeated is not None:
        cx.reporter.report(
            "E506",
            f"`order {name}` names `{repeated}` twice",
            decl.span,
            "an order names each kind or rule once, first to last",
        )
        return
    cx.book.orders.append(m.Order(name, tuple(items), tuple(note_pair(x) for x in decl.notes), decl.span))


def _ranked_rule(cx: Context, item: n.Name, stat: str, kinds: tuple[str, ...], kind_family: str) -> bool:
    """Whether a name that is no kind names a rule with modifiers of the stat applied one at a
    time: only those have an order among rules (additions add up, grades net out)."""
    rule = cx.book.rules.get(item.text)
    one_at_a_time = ONE_AT_A_TIME[kind_family]
    if rule is None:
        cx.reporter.report(
            "E101",
            f"unknown kind of modifier or rule `{item.text}`",
            item.span,
            did_you_mean(item.text, [*kinds, *cx.book.rules]) or f"the kinds of modifier of `{stat}`: {', '.join(kinds)}",
        )
        return False
    if not any(
        isinstance(e, m.ModEffect) and e.target == stat and modifier_kind(e, cx.book) in one_at_a_time
        for e in rule.effects
    ):
        cx.reporter.report(
            "E506",
            f"rule `{rule.name}` has no modifier of `{stat}` that applies one at a time",
            item.span,
            f"rules are ordered by their {', '.join(sorted(one_at_a_time))} of `{stat}`;"
            " additions add up and grades net out in any order",
        )
        return False
    return True


def settle_orders(cx: Context) -> None:
    """Each stat's order from its statements: its kinds, the language's order but where the
    statements say otherwise, and its ranked rules, in the order first named but where a statement
    says otherwise.  Statements that contradict one another (a before b, b before a) are refused."""
    by_stat: dict[str, list[m.Order]] = {}
    for order in cx.book.orders:
        by_stat.setdefault(order.stat, []).append(order)
    for stat, orders in by_stat.items():
        kind_family = family(cx.book.vars[stat].type)
        assert kind_family is not None
        defaults = MODIFIER_KINDS[kind_family]
        of_kinds = [o for o in orders if o.items[0] in defaults]
        of_rules = [o for o in orders if o.items[0] not in defaults]
        kinds = _sequence(cx, stat, defaults, of_kinds)
        named = tuple(dict.fromkeys(rule for o in of_rules for rule in o.items))
        rules = _sequence(cx, stat, named, of_rules)
        if kinds is not None and rules is not None:
            cx.book.stat_orders[stat] = m.StatOrder(kinds, rules)


def _sequence(cx: Context, stat: str, items: tuple[str, ...], orders: list[m.Order]) -> tuple[str, ...] | None:
    """`items` sorted so that each statement's items come in its order, the others keeping theirs
    where free (each time the first item nothing left must follow), or None when the statements
    go round in a circle."""
    after: dict[str, set[str]] = {item: set() for item in items}
    for order in orders:
        for earlier, later in zip(order.items, order.items[1:], strict=False):
            after[later].add(earlier)
    found: list[str] = []
    while len(found) < len(items):
        free = next((x for x in items if x not in found and after[x] <= set(found)), None)
        if free is None:
            stuck = [x for x in items if x not in found]
            cx.reporter.report(
                "E506",
                f"the orders of `{stat}` contradict one another: {', '.join(f'`{x}`' for x in stuck)} each come"
                " after another of them",
                orders[-1].span,
                "keep the order the source states and remove the statement that reverses it",
            )
            return None
        found.append(free)
    return tuple(found)
