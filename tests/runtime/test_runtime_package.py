"""The runtime is one package that every generated module imports (docs/language.md, "The generated
Python API"): one `Dice`, one `RuleInputError` for every book; a module refuses a runtime of
another API with both versions named; `build --standalone` writes the runtime once beside the
modules for an app that copies files in."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import dsl
from dsl import runtime
from tests.conftest import RULEBOOKS, module_for, run_cli

GENERATED = RULEBOOKS.parent / "generated"


def test_every_book_shares_the_runtime_s_types() -> None:
    """A `Dice` of one book passes into another's rule; one `except RuleInputError` catches every
    book's error."""
    zone = module_for(RULEBOOKS / "zone_combat.rules")
    spot = module_for(RULEBOOKS / "spot_rules_a_to_e.rules")
    assert zone.Dice is spot.Dice is runtime.Dice
    assert zone.RuleInputError is spot.RuleInputError is runtime.RuleInputError
    # acid damage as dice made by another book's module: 2d6 of acid
    resolution = spot.acid(acid_damage=zone.Dice.parse("2d6"))
    assert str(resolution.inputs["acid_damage"]) == "2d6"
    caught = []
    for module, call in ((zone, lambda: zone.resolve("no such rule")), (spot, lambda: spot.resolve("nope"))):
        try:
            call()
        except runtime.RuleInputError as error:
            caught.append((module.RULEBOOK.name, type(error)))
    assert caught == [("zone_combat", runtime.RuleInputError), ("spot_rules_a_to_e", runtime.RuleInputError)]


def test_a_module_lists_its_names_once_and_completely() -> None:
    """`__all__` is assigned once, and holds what the docs promise an app: the module's own API,
    its rules and tables, and the runtime's values (X and N/A, Special, InputSpec, ...)."""
    source = (GENERATED / "mecha_tables.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    assigned = [
        node
        for node in tree.body
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
    ]
    assert len(assigned) == 1
    module = module_for(RULEBOOKS / "mecha_tables.rules")
    names = set(module.__all__)
    promised = {"IMPASSABLE", "NOT_APPLICABLE", "Special", "InputSpec", "RuleInfo", "RulebookInfo", "Value"}
    promised |= {"RULEBOOK", "INPUTS", "RULES", "resolve", "Dice", "RuleInputError", "Resolution"}
    assert promised <= names
    assert {name for name in module.RULES if name.isidentifier()} <= names | {n.rstrip("_") for n in names}
    for name in names:
        assert hasattr(module, name), name


def test_no_generated_module_carries_a_runtime_of_its_own() -> None:
    for path in GENERATED.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # the only classes a module defines are the TypedDicts of its rules' inputs (types, not runtime)
        classes = [
            node.name
            for node in tree.body
            if isinstance(node, ast.ClassDef)
            and not (len(node.bases) == 1 and isinstance(node.bases[0], ast.Name) and node.bases[0].id == "TypedDict")
        ]
        assert classes == [], (path.name, classes)


def test_a_module_refuses_a_runtime_of_another_api(monkeypatch: pytest.MonkeyPatch) -> None:
    """Built for runtime API 1 and loaded where the runtime offers API 2: an ImportError that names
    both versions and what to do."""
    monkeypatch.setattr(runtime, "API", runtime.API + 1)
    with pytest.raises(ImportError) as refused:
        module_for.__wrapped__(RULEBOOKS / "skirmish_terrain.rules")  # type: ignore[attr-defined]
    message = str(refused.value)
    assert f"for runtime API {runtime.API - 1}" in message and f"(API {runtime.API})" in message
    assert "skirmish_terrain.py was built by rulecraft" in message and "rulecraft build" in message


def test_the_runtime_is_the_compiler_s_release() -> None:
    pyproject = (RULEBOOKS.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert f'version = "{runtime.VERSION}"' in pyproject
    assert dsl.__version__ == runtime.VERSION


def test_the_runtime_imports_only_the_standard_library_and_itself() -> None:
    """So that it works copied on its own (`--standalone`), as `rulecraft_runtime`."""
    package = Path(runtime.__file__).parent
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                assert node.module is not None and node.module.split(".")[0] in sys.stdlib_module_names, (path, node.module)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    assert alias.name.split(".")[0] in sys.stdlib_module_names, (path, alias.name)


def test_a_standalone_build_runs_with_the_standard_library_alone(tmp_path: Path) -> None:
    """`build --standalone` writes the runtime once beside the modules; an interpreter that has no
    rulecraft installed (`-I -S`: no site-packages) imports them and resolves."""
    out = tmp_path / "out"
    book = tmp_path / "swamp.rules"
    book.write_text((Path(__file__).parent.parent / "soak" / "swamp.rules").read_text(encoding="utf-8"), encoding="utf-8")
    result = run_cli("build", str(book), "-o", str(out), "--standalone", "--no-cards")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == [
        "__init__.py",
        "rulecraft_runtime",
        "swamp.py",
    ]
    assert "from rulecraft_runtime import (" in (out / "swamp.py").read_text(encoding="utf-8")
    script = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import swamp\n"
        "r = swamp.resolve('quicksand', STR=12, in_quicksand=True)\n"
        "print(r.roll('sink').probability, swamp.Dice.__module__, 'dsl' in sys.modules)\n"
    )
    ran = subprocess.run([sys.executable, "-I", "-S", "-c", script, str(out)], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["20/27", "rulecraft_runtime", "False"]
    # built again without --standalone, the copy is no longer produced: removed, as any output
    # (Python's own __pycache__ there is not rulecraft's, and stays)
    again = run_cli("build", str(book), "-o", str(out), "--no-cards")
    assert again.exit_code == 0, again.output
    assert not list((out / "rulecraft_runtime").glob("*.py"))
