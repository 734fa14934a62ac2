"""How dsl/cards is put together: one way from the checked model to the page, and reportlab
through its public API only.

What a card says (the content modules) is decided without any knowledge of layout, and the
layout modules read only the blocks they are handed: no module imports one that imports it
back, content imports no layout and no reportlab, layout imports no content builder.  No module
imports a private name of reportlab, reads an underscored attribute of its objects, or assigns
to reportlab's modules, classes or settings."""

from __future__ import annotations

import ast
import functools
import graphlib
from pathlib import Path

import pytest

import dsl.cards

PACKAGE = Path(dsl.cards.__file__).parent
CONTENT = {"text", "blocks", "notation", "chances", "implication", "chain", "effects", "deck", "sheet", "memo"}
LAYOUT = {"fonts", "formats", "canvas", "typeset", "flow", "paginate", "pdfcards", "pdfsheet", "pdfx", "press", "preflight", "images"}
DATA = {"blocks", "text", "memo"}  # what layout may read of the content side


@functools.cache
def _trees() -> dict[str, ast.Module]:
    return {path.stem: ast.parse(path.read_text(), str(path)) for path in sorted(PACKAGE.glob("*.py"))}


def _imports(tree: ast.Module) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("dsl.cards."):
                found.add(node.module.split(".")[2])
            elif node.module == "dsl.cards":
                found |= {alias.name for alias in node.names}
            elif node.module.split(".")[0] == "reportlab":
                found.add("reportlab")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("dsl.cards."):
                    found.add(alias.name.split(".")[2])
                elif alias.name.split(".")[0] == "reportlab":
                    found.add("reportlab")
    return found


def test_every_module_is_in_one_layer() -> None:
    assert set(_trees()) == CONTENT | LAYOUT | {"__init__", "html"}


def test_no_module_imports_one_that_imports_it_back() -> None:
    trees = _trees()
    graph = {name: _imports(tree) & set(trees) for name, tree in trees.items()}
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        pytest.fail(f"modules that import one another: {' -> '.join(error.args[1])}")


def test_content_knows_nothing_of_layout_and_layout_reads_only_blocks() -> None:
    trees = _trees()
    for name in CONTENT:
        assert not _imports(trees[name]) & (LAYOUT | {"reportlab", "html", "__init__"}), name
    for name in LAYOUT:
        assert not _imports(trees[name]) & (CONTENT - DATA), name


def test_reportlab_only_through_its_public_api() -> None:
    problems = []
    for name, tree in _trees().items():
        if "reportlab" not in _imports(tree):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("reportlab"):
                problems += [f"{name}: imports {a.name}" for a in node.names if a.name.startswith("_")]
                problems += [f"{name}: imports {node.module}" for part in (node.module or "").split(".") if part.startswith("_")]
            elif isinstance(node, ast.Attribute) and _private(node.attr):
                base = node.value
                if not (isinstance(base, ast.Name) and base.id in ("self", "cls")):
                    problems.append(f"{name}:{node.lineno}: .{node.attr}")
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Attribute) and _reportlab_object(target.value, tree):
                        problems.append(f"{name}:{node.lineno}: assigns to reportlab's {ast.unparse(target)}")
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "setattr"
                and node.args
                and _reportlab_object(node.args[0], tree)
            ):
                problems.append(f"{name}:{node.lineno}: setattr on reportlab's {ast.unparse(node.args[0])}")
    assert problems == []


def _private(attribute: str) -> bool:
    return attribute.startswith("_") and not (attribute.startswith("__") and attribute.endswith("__"))


def _reportlab_object(node: ast.expr, tree: ast.Module) -> bool:
    """Whether an expression starts from a name the module imported from reportlab."""
    while isinstance(node, ast.Attribute):
        node = node.value
    if not isinstance(node, ast.Name):
        return False
    for statement in ast.walk(tree):
        if isinstance(statement, ast.ImportFrom) and (statement.module or "").startswith("reportlab"):
            if any((a.asname or a.name) == node.id for a in statement.names):
                return True
        elif isinstance(statement, ast.Import) and any(
            (a.asname or a.name).split(".")[0] == node.id and a.name.startswith("reportlab") for a in statement.names
        ):
            return True
    return False
