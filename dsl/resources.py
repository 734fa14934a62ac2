"""Files that ship with the compiler: the grammar and the bundled rulebooks.

In a source checkout they live at the top of the repository (grammars/, rulebooks/); in an
installed wheel they are packaged under dsl/_data/ (see [tool.hatch] in pyproject.toml).
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _data_dir(name: str) -> Path:
    packaged = _PACKAGE / "_data" / name
    if packaged.is_dir():
        return packaged
    return _PACKAGE.parent / name


def grammar_path() -> Path:
    return _data_dir("grammars") / "rulecraft.lark"


def grammar_text() -> str:
    return grammar_path().read_text(encoding="utf-8")


def bundled_rulebooks_dir() -> Path:
    return _data_dir("rulebooks")
