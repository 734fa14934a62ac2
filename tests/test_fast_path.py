"""A resolver works a situation out by its rules' plan (everything that does not depend on the
situation found once); the step-by-step reading of the rules (`reference=True`) is kept as the
reference.  The two must give the same Resolution for every situation: here, random situations
for every rule and table of every bundled book, alone and together with others of its book,
through `resolve` and through the per-rule functions' path (`signature=True`)."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from dsl.runtime.resolve import resolve_with
from tests.conftest import FIGURES, RULEBOOKS, compiled, module_for
from tests.differential import random_situation, texts_of

BOOKS = sorted(RULEBOOKS.glob("*.rules"))
PER_NAME = 7
"""Situations per rule or table alone (and as many again with other rules): with 145 rules and
the tables of six books, a few thousand situations in all."""


def outcome(module: ModuleType, names: list[str], given: dict[str, Any], signature: bool, reference: bool) -> Any:
    """What resolving gives: the Resolution, its to_dict() and repr; or the error raised."""
    try:
        resolution = resolve_with(module._BOOK, names, given, signature=signature, reference=reference)
    except module.RuleInputError as error:
        return ("error", str(error))
    return resolution, resolution.to_dict(), repr(resolution)


@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.stem)
def test_the_plan_resolves_every_situation_as_the_rules_read_step_by_step(path: Path) -> None:
    result = compiled(path)
    book = result.book
    assert book is not None
    module = module_for(path)
    names = [*book.rules, *book.tables]
    texts = texts_of(book)
    rng = random.Random(f"fast path {path.stem}")
    compared = functions = 0
    for name in names:
        for round_ in range(2 * PER_NAME):
            chosen = [name] if round_ < PER_NAME else [name, *rng.sample(list(book.rules), rng.choice((1, 2)))]
            chosen = list(dict.fromkeys(chosen))
            given = random_situation(book, chosen, rng, texts)
            signature = round_ % 3 == 0 and len(chosen) == 1
            if signature:  # a per-rule function passes every input it takes
                reads = book.rules[name].reads if name in book.rules else book.tables[name].reads
                given = {**{key: module._BOOK.defaults[key] for key in reads}, **given}
            expected = outcome(module, chosen, dict(given), signature, reference=True)
            fast = outcome(module, chosen, dict(given), signature, reference=False)
            again = outcome(module, chosen, dict(given), signature, reference=False)  # with its chances kept
            assert fast == expected, (chosen, given)
            assert again == expected, (chosen, given)
            function = getattr(module, name, None)
            params = getattr(getattr(function, "__wrapped__", None), "__kwdefaults__", None) or {}
            if signature and name in book.rules and set(given) <= set(params):  # a rule's own function
                functions += 1
                try:
                    called: Any = function(**given)  # type: ignore[misc]
                    assert (called, called.to_dict(), repr(called)) == expected, (chosen, given)
                except module.RuleInputError as error:
                    assert ("error", str(error)) == expected, (chosen, given)
            compared += 1
    assert compared >= 2 * PER_NAME * len(names)
    assert functions >= len(book.rules)  # most rules' own functions, at least once each on average
    FIGURES.append(
        f"fast path {path.stem}: {compared} situations ({functions} by a rule's function), plan == reference"
    )


def test_the_plan_keeps_nothing_a_caller_can_change(skirmish: ModuleType) -> None:
    """Chances are kept from call to call: what a resolution hands out of them is read-only."""
    situation = {"DEX": 12, "MOV": 10, "moved": 6}
    first = skirmish.broken_ground(**situation).roll("fall")
    with pytest.raises(TypeError):
        first.outcomes["success"] = 1
    # 3d6 <= 10 (DEX 12 - 2 for bad footing): 108 of 216 totals, 1/2
    assert skirmish.broken_ground(**situation).roll("fall").outcomes["success"] == first.probability == 0.5


class _Text(str):
    """A member's name as a subclass of str: accepted by checking, not by its type alone."""


def edge_values(spec: Any) -> list[Any]:
    """Values of an input at and past every edge a check draws: its bounds and one beyond, the
    same number as another type (True for 1, 2.0, a Fraction, text), flags as 0 and 1, members
    as a subclass of str and in other case, None."""
    values: list[Any] = [None, True, False, 0, 1, "1", 1.0, Fraction(1), Fraction(1, 2)]
    for bound in (spec.low, spec.high):
        if bound is not None:
            values += [bound, bound - 1, bound + 1, Fraction(bound), float(bound), str(bound)]
    for member in spec.members:
        values += [member, _Text(member), member.upper()]
    return values


@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.stem)
def test_a_rule_function_takes_or_refuses_each_input_as_the_reference_does(path: Path) -> None:
    """A rule's own function takes the values it is told plainly without the full check
    (`resolve_rule`): every rule, every input it reads, every edge of its check, one at a time,
    gives what the reference gives (the same Resolution, or the same error)."""
    book = compiled(path).book
    assert book is not None
    module = module_for(path)
    specs = module._BOOK.inputs
    compared = 0
    for name, rule in book.rules.items():
        function = getattr(module, name, None)
        params = getattr(getattr(function, "__wrapped__", None), "__kwdefaults__", None) or {}
        if not params or not set(rule.reads) <= set(params):
            continue  # no function, or one whose parameters are renamed (`range_`)
        for key in rule.reads:
            for value in edge_values(specs[key]):
                given = {**{k: module._BOOK.defaults[k] for k in rule.reads}, key: value}
                expected = outcome(module, [name], dict(given), True, reference=True)
                try:
                    called: Any = function(**given)  # type: ignore[misc]
                    assert (called, called.to_dict(), repr(called)) == expected, (name, key, value)
                except module.RuleInputError as error:
                    assert ("error", str(error)) == expected, (name, key, value)
                compared += 1
    assert compared >= 10 * len(book.rules)
    FIGURES.append(f"inputs {path.stem}: {compared} edge values through the rules' functions, as the reference")


def test_the_plan_traces_lookups_in_conditions_in_the_references_order() -> None:
    """The reference decides every step of a group (a stat's modifiers, the rolls, the texts)
    before it traces any: a condition that looks a row up is traced where it is decided.  Here
    both lookups come before both modifiers and before both notes, on either path."""
    from tests.conftest import module_from_text

    module = module_from_text(
        "\n".join(
            [
                'rulebook order "Order":',
                '    source "Order"',
                "",
                'input zone "Zone": levels {low < poor} = low',
                'stat skill "Skill": int 0..20 = 10',
                "",
                'table tb "B" cites "B" by zone:',
                '    columns m "M"',
                "    low: 1",
                "    poor: 0",
                "",
                'table tc "C" cites "C" by zone:',
                '    columns m "M"',
                "    low: 2",
                "    poor: 0",
                "",
                'rule r "R" cites "R":',
                '    when tb[zone].m > 0: skill + 1 "first"',
                '    when tc[zone].m > 0: skill + 2 "second"',
                '    when tb[zone].m > 0: note "first note"',
                '    when tc[zone].m > 0: note "second note"',
                "",
            ]
        )
    )
    for signature in (False, True):
        given = {"zone": "low", "skill": 10} if signature else {}
        expected = outcome(module, ["r"], dict(given), signature, reference=True)
        fast = outcome(module, ["r"], dict(given), signature, reference=False)
        assert fast == expected
    trace = module.resolve("r").trace
    items = [entry.spec.item for entry in trace]
    # look up tb, look up tc, skill +1, skill +2; then the notes' conditions, looked up again
    assert [item.split(":")[0] for item in items] == [
        "look up tb",
        "look up tc",
        "skill +1",
        "skill +2",
        "look up tb",
        "look up tc",
        "note",
        "note",
    ]
