"""One semantics, two implementations: the generated resolvers against the reference resolver.

dsl/semantics/reference.py works a situation out from the checked model, as plainly as the
language reference states it; the generated module is written for speed.  Random situations of
every rule and table of every bundled rulebook (and of the feature fixtures) are resolved both
ways and must agree on stats, modifiers, rolls, restrictions, notes and tables.  The soak script
tests/soak/differential.py runs the same comparison a million times.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from dsl.checks.examples import all_examples
from dsl.runner import _expect
from dsl.semantics import constant_value
from dsl.semantics.reference import resolve as reference_resolve
from dsl.semantics.reference import resolve_over_rounds as reference_over_rounds
from tests.conftest import FEATURES, FIGURES, RULEBOOKS, compiled, module_for
from tests.differential import Tally, compare, drawn

BOOKS = sorted(RULEBOOKS.glob("*.rules")) + sorted(FEATURES.glob("*.rules"))
PER_BOOK = 3_000
"""Situations per rulebook in CI (`pytest --slow`): 30,000 in all (the soak script runs a million)."""
QUICK_PER_BOOK = 300
"""Situations per rulebook in a plain `pytest`, drawn with another seed."""


def situations(path: Path, count: int, seed: int) -> Tally:
    book = compiled(path).book
    assert book is not None
    module = module_for(path)
    tally = Tally()
    for names, situation, rounds in drawn(book, count, random.Random(seed)):
        compare(book, module, names, situation, tally, rounds)
    return tally


@pytest.mark.parametrize(
    "count,seed",
    [pytest.param(QUICK_PER_BOOK, 20261128, id="quick"), pytest.param(PER_BOOK, 20261123, id="ci", marks=pytest.mark.slow)],
)
@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.stem)
def test_generated_resolvers_agree_with_the_reference(path: Path, count: int, seed: int) -> None:
    tally = situations(path, count, seed)
    FIGURES.append(
        f"differential {path.stem}: {tally.situations} situations, {tally.refused} refused by both, "
        f"{tally.bounded} past a resolver's bounds, {len(tally.mismatches)} mismatches"
    )
    assert not tally.mismatches, "\n".join(tally.mismatches[:5])


@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.stem)
def test_the_reference_passes_every_worked_example(path: Path) -> None:
    """The reference is held to the rulebooks' worked examples, numbers worked out by hand."""
    book = compiled(path).book
    assert book is not None
    failures: list[str] = []
    for example in all_examples(book):
        given = {name: constant_value(expr, book) for name, expr in example.givens}
        if example.rounds is None:
            resolution = reference_resolve(book, example.rules, given)
        else:
            resolution = reference_over_rounds(book, example.rules, given, example.rounds)
        for expectation in example.expectations:
            _expect(expectation, resolution, book, lambda span, message, hint=None: failures.append(message))
    assert not failures, "\n".join(failures[:10])
