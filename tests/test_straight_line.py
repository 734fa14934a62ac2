"""Rules written out as straight-line functions (dsl/emit_rules.py) resolve every situation as
the rule's plan (`_Plan.resolve`) and as the reference (`_Situation.finish`) do: the same
Resolution, to_dict() and repr, or the same error.

Every rule written out of every bundled book and of the fixture (tests/fixtures/straight), over a
grid of the values where its conditions change (each input's bounds and the numbers its rule
compares with, one beyond each; every member, both flags), one input at a time and in random
combinations, with the inputs told chosen at random (they decide the "had no effect" notes); and
through the rule's own function, which calls the written-out function at once with values it
takes as they are (tests/test_fast_path.py tries it with every edge of every input's check)."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.analysis import effect_exprs, walk
from dsl.compiler import generate
from dsl.runtime.dice import Dice
from dsl.runtime.resolve import _Situation, plan_of, resolve_with
from tests.conftest import FIGURES, ROOT, RULEBOOKS, compiled, module_for
from tests.differential import texts_of

FIXTURE = ROOT / "tests" / "fixtures" / "straight" / "straight_line.rules"
BOOKS = [*sorted(RULEBOOKS.glob("*.rules")), FIXTURE]
RANDOM = 40
"""Random combinations of grid values per rule, besides each grid value alone."""


def book_and_module(path: Path) -> tuple[m.Book, ModuleType]:
    book = compiled(path).book
    assert book is not None
    return book, module_for(path)


def numbers_of(book: m.Book, rule: str) -> set[Fraction]:
    """The numbers a rule (the parts it composes included) writes in its conditions and amounts."""
    found: set[Fraction] = set()
    todo, seen = [rule], set()
    while todo:
        key = todo.pop()
        if key in seen or key not in book.parts:
            continue
        seen.add(key)
        for effect in book.parts[key].effects:
            if isinstance(effect, m.PartEffect):
                todo.append(effect.part)
            exprs = [c.expr for c in effect.guard] + list(effect_exprs(effect))
            for expr in exprs:
                found.update(node.value for node in walk(expr) if isinstance(node, n.Number))
    return found


def grid(var: m.Var, numbers: set[Fraction], texts: list[str]) -> list[Any]:
    """The values of an input where a rule's conditions may change."""
    kind = var.type
    values: list[Any] = [] if var.default is None else [var.default]
    if isinstance(var.default, Dice):
        values = [str(var.default)]  # the module has a Dice class of its own: told as text
    if var.default_expr is not None:
        values.append(None)  # worked out from its formula
    if isinstance(kind, t.Numeric):
        low = kind.low if kind.low is not None else Fraction(-40)
        high = kind.high if kind.high is not None else Fraction(40)
        near = {low, low + 1, high - 1, high, Fraction(0)}
        for number in numbers:
            near |= {number - 1, number, number + 1, number * 2, number * 2 + 1}
            if not kind.integral:
                near.add(number + Fraction(1, 2))
        values += sorted(x for x in near if low <= x <= high and (not kind.integral or x.denominator == 1))
    elif isinstance(kind, t.Flag):
        values += [False, True]
    elif isinstance(kind, t.Enum):
        values += list(kind.members)
    elif isinstance(kind, t.Dice):
        values += ["1d6", "2d6+1", "3d10"]
    else:
        values += texts
    return list(dict.fromkeys(values))


def outcome(call: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        resolution = call(*args, **kwargs)
    except Exception as error:  # the module's RuleInputError, compared by its text
        return ("error", type(error).__name__, str(error))
    return resolution, resolution.to_dict(), repr(resolution)


@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.stem)
def test_a_rule_written_out_resolves_as_its_plan_and_the_reference(path: Path) -> None:
    book, module = book_and_module(path)
    B = module._BOOK
    assert B.straight, "no rule written out"
    texts = texts_of(book)
    rng = random.Random(f"straight {path.stem}")
    compared = called = 0
    for name, function in B.straight.items():
        rule = book.rules[name]
        numbers = numbers_of(book, name)
        grids = {key: grid(book.vars[key], numbers, texts) for key in rule.reads}
        situations: list[dict[str, Any]] = [{}]
        situations += [{key: value} for key, values in grids.items() for value in values]
        situations += [{key: rng.choice(values) for key, values in grids.items()} for _ in range(RANDOM)]
        function_of = getattr(module, name, None)
        params = getattr(getattr(function_of, "__wrapped__", None), "__kwdefaults__", None) or {}
        params = params if set(rule.reads) <= set(params) else {}  # not renamed (`range_`)
        for situation in situations:
            values = dict(B.defaults)
            for key, value in situation.items():
                if value is not None:
                    values[key] = B.inputs[key].coerce(value)
                elif B.inputs[key].derived is None:
                    values[key] = None
            given = frozenset(key for key in rule.reads if rng.random() < 0.5)
            reference = outcome(_Situation(B, (name,), dict(values), given).finish)
            plan = outcome(plan_of(B, (name,)).resolve, dict(values), given)
            straight = outcome(function, dict(values), given)
            again = outcome(function, dict(values), given)  # with its stats and rolls kept
            assert straight == reference, (name, situation, sorted(given))
            assert again == reference, (name, situation, sorted(given))
            assert plan == reference, (name, situation, sorted(given))
            compared += 1
            if params:  # the rule's own function, every input told (None: worked out)
                told = {key: situation.get(key, B.defaults[key]) for key in rule.reads}
                expected = outcome(resolve_with, B, [name], dict(told), True, True)
                assert outcome(function_of, **told) == expected, (name, told)
                called += 1
    assert compared >= 20 * len(B.straight)
    assert called >= compared // 2
    FIGURES.append(
        f"straight-line {path.stem}: {len(B.straight)} of {len(book.rules)} rules written out, "
        f"{compared} situations as their plans and the reference ({called} through the rules' own functions)"
    )


def test_the_fixture_writes_out_every_construct_it_can_and_no_other() -> None:
    """Composed twice, a chain and a sequence keep going through the plan; the rest is written
    out (the traits it composes too)."""
    _, module = book_and_module(FIXTURE)
    assert set(module._BOOK.straight) == {"bad_footing", "both_footings", "broken", "mud", "march", "woods"}
    assert {"doubled", "slip", "breath"} <= set(module.RULES)
    source = generate(compiled(FIXTURE))
    for name in ("doubled", "slip", "breath"):
        assert f"def _resolve_{name}(" not in source
    # what each written-out function reaches for: a scope only where a lookup or a roll reads it,
    # settle_held only for stats that do more than add, the modifiers sorted only out of order
    woods = source[source.index("def _resolve_woods(") :]
    woods = woods[: woods.index("\n    )\n")]
    assert "settle_held(_BOOK, 'MOV'" in woods and "CachedScope" not in woods
    march = source[source.index("def _resolve_march(") :]
    march = march[: march.index("\n    )\n")]
    assert "modifiers.sort(key=FIRST)" in march and "e.wait('caution'" in march


def test_a_rule_written_out_gives_the_hand_worked_figures() -> None:
    _, module = book_and_module(FIXTURE)
    assert "broken" in module._BOOK.straight
    # DEX 12, two hexes of smoke (-1 each) and knee-deep footing (-3): 12 - 2 - 3 = 7.  Moved 6 >
    # 10 / 2: the fall roll, 3d6 <= 7: 1 + 3 + 6 + 10 + 15 = 35 of 216 ways.
    resolution = module.broken(DEX=12, MOV=10, moved=6, smoke_hexes=2, depth="knee")
    assert resolution.stats["DEX"] == 7
    assert [x.amount for x in resolution.modifiers] == [-2, -3]
    assert resolution.roll("fall").probability == Fraction(35, 216)
    # with Acrobatics 2d6 <= 7: 1 + 2 + 3 + 4 + 5 + 6 = 21 of 36 = 7/12
    assert module.broken(DEX=12, moved=6, smoke_hexes=2, depth="knee", acrobatics=True).roll(
        "fall"
    ).probability == Fraction(7, 12)
    # not moving enough to fall: Acrobatics told had no effect, and careful in knee-deep mud
    # cannot run (the restriction) and moves carefully (the note)
    quiet = module.broken(moved=5, acrobatics=True, careful=True, depth="knee")
    assert quiet.rolls == ()
    assert [x.text for x in quiet.restrictions] == ["cannot run"]
    assert [x.text for x in quiet.notes] == [
        "moves carefully",
        "rough going",
        "`acrobatics` had no effect: it is read only when moved > MOV / 2",
    ]
    # march: DEX 10 - 1 = 9 (not above 12, so MOV stays 10); moved 5: pace 5/2, reach 10 + 2 = 12;
    # load 5 x 3/2 = 15/2, + 1/2 with Acrobatics = 8
    march = module.march(moved=5, acrobatics=True)
    assert march.stats == {"DEX": 9, "MOV": 10, "reach": 12, "load": 8}
    assert march.derived == {"pace": Fraction(5, 2)}
