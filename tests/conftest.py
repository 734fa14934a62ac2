"""Shared fixtures: the repository's paths and compiled, loaded resolver modules."""

from __future__ import annotations

import functools
from pathlib import Path
from types import ModuleType

import pytest

from dsl.compiler import Compiled, compile_file, compile_text, generate, load_module

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = ROOT / "rulebooks"
FEATURES = Path(__file__).resolve().parent / "fixtures" / "features"


@functools.cache
def compiled(path: Path) -> Compiled:
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


@pytest.fixture(scope="session")
def skirmish() -> ModuleType:
    return module_for(RULEBOOKS / "skirmish_terrain.rules")
