"""Names in generated modules: never two things under one name, a module name that imports, and
work that grows with the number of rules (not with its square)."""

from __future__ import annotations

import ast
import itertools
from collections.abc import Container

import pytest

import dsl.backends.python.module as emitter
from dsl.backends.python.module import PrivateNames
from dsl.compiler import compile_text, generate
from tests.conftest import module_from_text

HEAD = 'rulebook names "Names":\n    source "s"\n\nstat DEX: int 0..99 = 50\ninput k: int 1..2 = 1\n\n'

TRICKY = [
    "x",
    "rule_x",
    "x__mod1",
    "rule_x__mod1",
    "x__mod1__mod1",
    "table_x",
    "x__roll1",
    "x__roll1_change1",
    "rule_x__roll1_change1",
    "x__text1",
    "x__derive1",
    "table_x__mod1",
    "x__mod1_",
    "rule_rule_x",
    "mod1",
    "BOOK",
    "resistance",
    "rule_table_x",
    "x__part2",
    "rule_x__part2",
    "x__part2__mod1",
]
"""Rulebook names built to meet the generated private names halfway: `rule_` and `table_` in
front, `__mod1` and friends behind, and both."""


def _rule(name: str, delta: int) -> str:
    """A rule with an effect of every kind, so every kind of private name is made for it."""
    return (
        f'rule {name} "{name}" cites "1":\n'
        f"    DEX -{delta}\n"
        f'    note "about {name}"\n'
        f"    derive d{delta} = k + {delta}\n"
        f'    roll r{delta} "R": 3d6 <= DEX\n'
        f"        when k == 2: +1 dice\n\n"
    )


def _module_bindings(source: str) -> list[str]:
    names: list[str] = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return names


def test_rules_rule_x_and_x__mod1_keep_their_own_names() -> None:
    # the reproducer name_collision_rule_x.rules: both emitted `_rule_x__mod1`, and the module
    # failed with an AttributeError
    module = module_from_text(HEAD + _rule("rule_x", 1) + _rule("x__mod1", 2))
    assert module.resolve("rule_x").stats["DEX"] == 49
    assert module.resolve("x__mod1").stats["DEX"] == 48


def test_no_two_things_share_a_module_level_name_whatever_the_rulebook_names() -> None:
    tables = "".join(f'table {name}_t "T" cites "1" by k:\n    1: {i}\n    2: {i + 1}\n\n' for i, name in enumerate(TRICKY))
    # `as ... with` makes a part of `x` with its own function (`_rule_x__partN`) and constants
    composed = "".join(f'rule with_{i} "W" cites "1":\n    as x with k = 2\n\n' for i in range(3))
    text = HEAD + "".join(_rule(name, i + 1) for i, name in enumerate(TRICKY)) + tables + composed
    compiled = compile_text(text, "names.rules")
    assert compiled.ok, compiled.render()
    source = generate(compiled)
    bindings = _module_bindings(source)
    # the runtime's `__all__` is meant to be replaced by the module's own
    repeated = sorted({name for name in bindings if bindings.count(name) > 1} - {"__all__"})
    assert not repeated
    module = module_from_text(text)
    assert module.resolve("with_0").stats["DEX"] == 49
    assert [roll.name for roll in module.resolve("with_2").rolls] == ["r1"]
    for i, name in enumerate(TRICKY):
        resolution = module.resolve(name)
        assert resolution.stats["DEX"] == 50 - (i + 1), name
        assert [roll.name for roll in resolution.rolls] == [f"r{i + 1}"]
        assert module.resolve(f"{name}_t", k=2).tables[0].selected.values["value"] == i + 1


def test_private_names_are_distinct_for_every_pair_of_names() -> None:
    reserved = {"_BOOK", "_resistance", "_counts", "_add_dice", "Run"}
    names = PrivateNames(reserved)
    given: dict[str, tuple[str, ...]] = {}
    for number, (first, second) in enumerate(itertools.product(TRICKY, repeat=2), start=1):
        bound = f"{first}|k={second}"  # the key of `first` composed with a binding
        for key, made in [
            (("part", first), names.part(first, first, number)),
            (("part", bound), names.part(bound, first, number)),
            (("table", second), names.table(second)),
            (("effect", first, "mod"), names.effect(first, "mod", 1)),
            (("effect", bound, "mod"), names.effect(bound, "mod", 1)),
            (("change", second), names.change(names.effect(first, "roll", number), 1)),
        ]:
            assert made not in reserved
            assert given.setdefault(made, key) == key, (made, key, given[made])
    assert names.function("x") == "_rule_x"  # a name nothing else wants reads as itself


def test_public_names_are_chosen_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each rule's public name was looked up in a new set of every name taken so far (50,000 rules:
    a build of 262 s, the reproducer build_quadratic_in_rules.py); the sets looked in now grow
    with the number of rules."""
    rules = 1000
    text = HEAD + "".join(f'terrain t{i} "T{i}" cites "{i}":\n    DEX -1\n' for i in range(rules))
    compiled = compile_text(text, "many.rules")
    assert compiled.ok and compiled.book is not None
    seen: dict[int, int] = {}
    real = emitter.python_name

    def counted(name: str, taken: Container[str]) -> str:
        seen.setdefault(id(taken), len(taken))  # type: ignore[arg-type]
        return real(name, taken)

    monkeypatch.setattr(emitter, "python_name", counted)
    emitter.ModuleWriter(compiled.book, "many.rules", "0").emit()
    reserved = len(emitter.ModuleWriter(compiled.book, "many.rules", "0").reserved)
    assert sum(seen.values()) <= (reserved + 10) * (rules + 1)


@pytest.mark.parametrize("name", ["fractions", "re", "types", "typing", "difflib", "math", "class", "None", "def"])
def test_a_rulebook_named_like_a_python_module_or_keyword_is_refused(name: str) -> None:
    # the reproducer rulebook_named_fractions.rules: its module imported itself, not `fractions`
    compiled = compile_text(f'rulebook {name} "X":\n    source "s"\n\nstat DEX: int 0..20 = 10\n', "named.rules")
    assert [(d.code, d.span.line, d.span.column, d.span.end_column) for d in compiled.errors] == [
        ("E103", 1, 10, 10 + len(name))
    ]
    assert compiled.errors[0].message.startswith(f"`{name}` is a ")


@pytest.mark.parametrize("name", ["swamp", "fractions_rules", "match", "print"])
def test_other_rulebook_names_are_fine(name: str) -> None:
    compiled = compile_text(f'rulebook {name} "X":\n    source "s"\n\nstat DEX: int 0..20 = 10\n', "named.rules")
    assert not compiled.errors
