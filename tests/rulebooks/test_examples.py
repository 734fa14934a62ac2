"""Every worked example of every rulebook and feature fixture, run as its own test.

The examples state, next to each rule, numbers worked out by hand from the source text; this runs
them through the generated resolvers exactly as `rulecraft test` does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dsl.checks.examples import all_examples
from dsl.runner import run_examples
from tests.conftest import FEATURES, RULEBOOKS, compiled

BOOKS = sorted(RULEBOOKS.glob("*.rules")) + sorted(FEATURES.glob("*.rules"))


def _cases() -> list[tuple[Path, str]]:
    cases = []
    for path in BOOKS:
        book = compiled(path).book
        assert book is not None
        cases += [(path, example.title) for example in all_examples(book)]
    return cases


@pytest.fixture(scope="module")
def outcomes() -> dict[Path, dict[str, list[str]]]:
    results: dict[Path, dict[str, list[str]]] = {}
    for path in BOOKS:
        outcome = run_examples(compiled(path))
        results[path] = {r.example.title: [d.message for d in r.failures] for r in outcome.results}
    return results


@pytest.mark.parametrize(("path", "title"), _cases(), ids=lambda x: x.name if isinstance(x, Path) else x)
def test_worked_example(path: Path, title: str, outcomes: dict[Path, dict[str, list[str]]]) -> None:
    assert outcomes[path][title] == []


def test_every_section_of_the_first_source_has_three_examples() -> None:
    book = compiled(RULEBOOKS / "skirmish_terrain.rules").book
    assert book is not None
    per_section: dict[str, int] = {}
    for rule in book.rules.values():
        per_section[rule.cites or ""] = per_section.get(rule.cites or "", 0) + len(rule.examples)
    sections = [f"17.{n}" for n in range(1, 12)]
    assert {s: per_section.get(s, 0) >= 3 for s in sections} == dict.fromkeys(sections, True)
