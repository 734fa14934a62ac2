"""What `check` accepts, build and resolve handle: programs generated from the grammar, and
mutants of every real rulebook, held to the promise of docs/language.md section 16 (see
tests/fuzz/programs.py).  A few thousand programs here; tests/soak/fuzz.py runs 100,000."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings

from tests.conftest import FIGURES
from tests.fuzz.programs import Outcome, exercise, grammar_files, grammar_programs, mutant, seeds

GRAMMAR_PROGRAMS = 400
GRAMMAR_FILES = 300
MUTANTS = 1_500

pytestmark = pytest.mark.slow  # fuzzing: `pytest --slow` (CI) runs it, a plain `pytest` does not


def _settings(count: int) -> settings:
    return settings(
        max_examples=count, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck)
    )


def _report(what: str, outcome: Outcome) -> None:
    FIGURES.append(
        f"fuzz {what}: {outcome.programs} programs, {outcome.accepted} accepted by check, "
        f"{outcome.resolved} situations resolved both ways, {len(outcome.problems)} problems"
    )
    assert not outcome.problems, "\n\n".join(p[:3000] for p in outcome.problems[:3])


def test_grammar_programs_keep_the_promise() -> None:
    outcome = Outcome()
    rng = random.Random(1)

    @_settings(GRAMMAR_PROGRAMS)
    @given(grammar_programs())
    def run(text: str) -> None:
        exercise(text, "generated.rules", outcome, rng)

    run()
    _report("grammar programs", outcome)


def test_whole_files_from_the_grammar_keep_the_promise() -> None:
    outcome = Outcome()
    rng = random.Random(2)

    @_settings(GRAMMAR_FILES)
    @given(grammar_files())
    def run(text: str) -> None:
        exercise(text, "generated.rules", outcome, rng)

    run()
    _report("grammar files", outcome)


def test_mutants_of_real_rulebooks_keep_the_promise() -> None:
    rng = random.Random(20261123)
    pool = seeds()
    small = [seed for seed in pool if len(seed[1]) < 8_000]
    outcome = Outcome()
    for index in range(MUTANTS):
        # one mutant in fifty comes from a bundled rulebook: slower to build, richer in rules
        name, text = rng.choice(pool if index % 50 == 0 else small)
        exercise(mutant(text, rng), name, outcome, rng, situations=2)
    _report("mutants", outcome)
