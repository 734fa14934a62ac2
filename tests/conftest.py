"""Shared fixtures: the repository's paths and compiled, loaded resolver modules."""

from __future__ import annotations

import functools
import os
from collections.abc import Generator, Iterator
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner, Result

from dsl.compiler import Compiled, compile_file, compile_text, generate, load_module

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = ROOT / "rulebooks"
FEATURES = Path(__file__).resolve().parent / "fixtures" / "features"


@functools.cache
@functools.cache
def compiled(path: Path) -> Compiled:
    """A rulebook compiled once a test process (its checked model is not written after checking,
    so the tests share it)."""
    result = compile_file(path, path.relative_to(ROOT).as_posix())
    assert result.ok, result.render()
    return result


@functools.cache
def module_for(path: Path) -> ModuleType:
    """The resolver module of a rulebook, generated and loaded in memory."""
    result = compiled(path)
    assert result.book is not None
    return load_module(generate(result), result.book.name)


def module_from_text(text: str, name: str = "inline.rules") -> ModuleType:
    result = compile_text(text, name)
    assert result.ok, result.render()
    assert result.book is not None
    return load_module(generate(result), result.book.name)


def run_cli(*args: str) -> Result:
    """Run `rulecraft ARGS` in-process: a user's mistake must never surface as a traceback."""
    from dsl.cli import main

    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.fixture(scope="session", autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Compiled rulebooks and the parser's tables are cached (dsl/cache.py) in a directory of the
    test run, not the user's: set for the commands run here and for the processes they start."""
    previous = os.environ.get("RULECRAFT_CACHE_DIR")
    run = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        run = run.parent  # one cache for the run's workers: each compiles what the others did not
    folder = run / "rulecraft-cache"
    folder.mkdir(mode=0o700, exist_ok=True)
    os.environ["RULECRAFT_CACHE_DIR"] = str(folder)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("RULECRAFT_CACHE_DIR", None)
        else:
            os.environ["RULECRAFT_CACHE_DIR"] = previous


@pytest.fixture
def at_root() -> Iterator[None]:
    """Run the test from the repository's root, as the README's commands are."""
    previous = Path.cwd()
    os.chdir(ROOT)
    try:
        yield
    finally:
        os.chdir(previous)


@pytest.fixture(scope="session")
def skirmish() -> ModuleType:
    return module_for(RULEBOOKS / "skirmish_terrain.rules")


FIGURES: list[str] = []
"""Counts the fuzzing and differential tests report (situations compared, programs generated),
printed at the end of the run so CI logs show how much was tried.  A test appends to it in the
process that runs it (a worker, under pytest-xdist); its report carries the lines to the process
that prints the summary."""

_REPORTED: list[str] = []
"""The figures of every test of the run, as the reports brought them."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--slow",
        action="store_true",
        help="also run the tests marked slow (fuzzing, soak-sized runs, killed processes): CI runs them",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A developer's `pytest` leaves out the tests marked slow; `pytest --slow` (the README's
    test command, which CI runs) takes them too."""
    if config.getoption("--slow"):
        return
    kept = [item for item in items if item.get_closest_marker("slow") is None]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if item.get_closest_marker("slow") is not None])
        items[:] = kept


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if call.when == "call" and FIGURES:
        report.user_properties.extend(("figure", line) for line in FIGURES)
        FIGURES.clear()
    return report


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _REPORTED.extend(str(value) for key, value in report.user_properties if key == "figure")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _REPORTED:
        terminalreporter.section("figures")
        for line in _REPORTED:
            terminalreporter.write_line(line)


@functools.cache
def bundled_faces(name: str) -> tuple[object, list[object]]:
    """A bundled rulebook's checked book and its deck's printed faces (fitted_faces of deck_of),
    laid out once a session: the continuation count, the grammar check and the player's test all
    read every face of every bundled deck."""
    from dsl.cards.deck import deck_of
    from dsl.cards.pdfcards import fitted_faces
    from dsl.resources import bundled_rulebooks_dir

    compiled = compile_file(bundled_rulebooks_dir() / f"{name}.rules")
    assert compiled.book is not None
    return compiled.book, list(fitted_faces(deck_of(compiled.book)))
