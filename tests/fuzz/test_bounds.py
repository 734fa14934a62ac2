"""Whatever `check` accepts, every command finishes within the bound of docs/language.md section
20 ("Time and memory"): programs from the grammar and mutants of every real rulebook, each put
through build (cards included), list, describe, resolve at the defaults, export and the
preview's endpoints (tests/fuzz/bounds.py).  Here 1,200 grammar programs and 800 mutants;
tests/soak/bounds.py runs any count."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings

from tests.conftest import FIGURES
from tests.fuzz.bounds import Tally, Worker
from tests.fuzz.programs import grammar_files, grammar_programs, mutant, seeds

GRAMMAR_PROGRAMS = 900
GRAMMAR_FILES = 300
MUTANTS = 800

pytestmark = pytest.mark.slow


@pytest.fixture
def worker() -> Iterator[Worker]:
    running = Worker()
    yield running
    running.close()


def _report(what: str, tally: Tally) -> None:
    FIGURES.append(f"bounds, {what}: {tally.summary()}")
    assert not tally.problems, "\n\n".join(problem[:3000] for problem in tally.problems[:3])


@pytest.mark.parametrize("kind", ["programs", "files"])
def test_grammar_programs_finish_within_the_bound(worker: Worker, kind: str) -> None:
    """Statements from the grammar (900) and whole files (300), each kind a test of its own."""
    tally = Tally()
    strategy, count = (grammar_programs(), GRAMMAR_PROGRAMS) if kind == "programs" else (grammar_files(), GRAMMAR_FILES)

    @settings(max_examples=count, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(text: str) -> None:
        tally.add(text, worker.measure(text))

    run()
    _report(f"grammar {kind}", tally)


@pytest.mark.parametrize("seed", [20261127, 20261128])
def test_mutants_of_real_rulebooks_finish_within_the_bound(worker: Worker, seed: int) -> None:
    """800 mutants in two tests of 400, which the run's workers share."""
    rng = random.Random(seed)
    pool = seeds()
    tally = Tally()
    for _ in range(MUTANTS // 2):
        _, text = rng.choice(pool)
        program = mutant(text, rng)
        tally.add(program, worker.measure(program))
    _report(f"mutants (seed {seed})", tally)


def test_a_program_past_the_bound_is_reported(worker: Worker) -> None:
    """The harness can fail: with the wall-clock bound lowered below what any program takes, the
    worker is stopped and the program reported."""
    import tests.fuzz.bounds as bounds

    saved = bounds.PROGRAM_SECONDS
    bounds.PROGRAM_SECONDS = 0.001
    try:
        measure = worker.measure('rulebook slow "Slow":\n    source "x"\n\nstat DEX: int 0..20 = 10\n')
    finally:
        bounds.PROGRAM_SECONDS = saved
    assert measure.broken == ["did not finish within 0 s"]
