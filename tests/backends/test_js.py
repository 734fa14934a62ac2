"""The JavaScript target (`rulecraft build --target js`), run in Node.

- the package a build writes: its files, `package.json`, byte-identical rebuilds, `--check`;
- every worked example of every bundled and gallery rulebook, run by Node's test runner
  (tests/js/examples.test.mjs) against the generated modules;
- the differential: situations drawn as tests/semantics/test_semantics.py draws them
  (tests/differential.py `drawn`), resolved by Python and by JavaScript (one node process per
  book over all of them, tests/js/situations.mjs), whole Resolutions compared as parsed JSON;
  10,000 per bundled book with `--slow`;
- a TypeScript app (tests/js/app/) installed against the package and checked by `tsc --strict`.

Node comes from Debian's packages in CI (.ci/run sets RULECRAFT_REQUIRE_NODE=1, so these tests
fail rather than skip there); TypeScript from tests/js/package-lock.json (`npm ci`).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from dsl import model as m
from dsl.checks.examples import all_examples
from dsl.runtime import RuleInputError
from dsl.runtime.dice import Dice
from dsl.semantics import constant_value
from tests.conftest import FEATURES, FIGURES, ROOT, RULEBOOKS, compiled, module_for, run_cli
from tests.differential import drawn

JS_TESTS = ROOT / "tests" / "js"
MECHANICS = ROOT / "tests" / "fixtures" / "mechanics"
DICE = ROOT / "tests" / "fixtures" / "dice"
GROUPS = {"rulebooks": RULEBOOKS, "mechanics": MECHANICS, "features": FEATURES, "dice": DICE}
"""Built as one package each (mechanics and features both have a book named `percentile`)."""



def books(folder: Path) -> list[Path]:
    """The rulebooks of a group."""
    return sorted(folder.glob("*.rules"))

NODE = shutil.which("node")


def need_node() -> str:
    if NODE is None:
        if os.environ.get("RULECRAFT_REQUIRE_NODE") == "1":
            pytest.fail("node is not installed, and RULECRAFT_REQUIRE_NODE=1 says these tests must run")
        pytest.skip("node is not installed: the JavaScript target's tests run it (CI installs nodejs and npm)")
    return NODE


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each group of rulebooks built into a package of its own."""
    found = {}
    for group, folder in GROUPS.items():
        out = tmp_path_factory.mktemp(f"js-{group}")
        result = run_cli("build", "--target", "js", "-o", str(out), *map(str, books(folder)))
        assert result.exit_code == 0, result.output
        found[group] = out
    return found


def encoded(value: object) -> object:
    """A value as the JavaScript tests read it: numbers exact as text, dice as their notation."""
    if isinstance(value, bool | str) or value is None:
        return value
    if isinstance(value, int | Fraction):
        number = Fraction(value)
        text = str(number.numerator) if number.denominator == 1 else f"{number.numerator}/{number.denominator}"
        return {"$number": text}
    if isinstance(value, Dice):
        return {"$dice": str(value)}
    raise TypeError(f"no JSON for {value!r}")


# ---------------------------------------------------------------------------- the package


def test_a_build_writes_an_npm_package(packages: dict[str, Path]) -> None:
    out = packages["rulebooks"]
    books = sorted(path.stem for path in RULEBOOKS.glob("*.rules"))
    manifest = json.loads((out / "package.json").read_text())
    assert manifest["name"] == "rulecraft-rulebooks" and manifest["type"] == "module"
    assert sorted(key[2:] for key in manifest["exports"] if key not in (".", "./runtime")) == books
    for book in books:
        assert (out / f"{book}.js").is_file() and (out / f"{book}.d.ts").is_file()
        assert manifest["exports"][f"./{book}"] == {"types": f"./{book}.d.ts", "default": f"./{book}.js"}
    runtime = sorted(path.name for path in (out / "runtime").glob("*.js"))
    python_runtime = sorted(path.stem + ".js" for path in (ROOT / "dsl" / "runtime").glob("*.py"))
    # one JavaScript module per module of dsl/runtime/ (`__init__` is `index`), and the version
    assert sorted([*(x for x in python_runtime if x != "__init__.js"), "index.js", "version.js"]) == runtime
    check = run_cli("build", "--target", "js", "-o", str(out), "--check", *map(str, sorted(RULEBOOKS.glob("*.rules"))))
    assert check.exit_code == 0, check.output


def test_a_javascript_build_is_byte_identical(tmp_path: Path) -> None:
    """Two builds write the same bytes, and `--check` finds an edited file stale."""
    first, second = tmp_path / "a", tmp_path / "b"
    for out in (first, second):
        assert run_cli("build", "--target", "js", "-o", str(out), "skirmish_terrain").exit_code == 0
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    assert all((first / f).read_bytes() == (second / f).read_bytes() for f in files)
    (first / "runtime" / "dice.js").write_text("// edited\n")
    stale = run_cli("build", "--target", "js", "-o", str(first), "--check", "skirmish_terrain")
    assert stale.exit_code == 1 and "dice.js differs from a fresh build" in stale.output, stale.output


def test_target_js_usage_errors(tmp_path: Path) -> None:
    """Usage errors exit 2 with the reason (no default output: it would share generated/)."""
    cases = [
        (["build", "--target", "js", "skirmish_terrain"], "-o OUT"),
        (["build", "--target", "js", "--standalone", "-o", str(tmp_path), "skirmish_terrain"], "--standalone"),
        (["build", "--target", "js", "--package-name", "Bad Name", "-o", str(tmp_path), "skirmish_terrain"], "npm"),
        (["build", "--package-name", "x", "skirmish_terrain"], "--target js"),
    ]
    for args, said in cases:
        result = run_cli(*args)
        assert result.exit_code == 2 and said in result.output, result.output


def test_a_rulebook_named_like_a_package_file_is_refused(tmp_path: Path) -> None:
    source = (
        (RULEBOOKS / "skirmish_terrain.rules").read_text().replace("rulebook skirmish_terrain", "rulebook runtime", 1)
    )
    (tmp_path / "runtime.rules").write_text(source)
    result = run_cli("build", "--target", "js", "-o", str(tmp_path / "out"), str(tmp_path / "runtime.rules"))
    assert result.exit_code == 1 and "rename the rulebook" in result.output
    assert not (tmp_path / "out").exists()


def _node_json(script: str) -> Any:
    """What an ES module script run by node prints, as JSON (its one line of output)."""
    done = subprocess.run(
        [need_node(), "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_dice_default_of_the_algebra_builds_and_imports_in_node(packages: dict[str, Path]) -> None:
    """`stat skill: dice = exploding d6` (and a Wild Die, a keep, the better of two dice, ...:
    tests/fixtures/dice/defaults.rules) was a build error, since the runtime could not read the
    default back; the module now imports, resolves at its defaults as Python does, and reads
    dice given as text (`skill: "2d6+exploding d6"`), a bad text being a RuleInputError."""
    script = (
        f"const m = await import({json.dumps((packages['dice'] / 'dice_defaults.js').as_uri())});\n"
        "const at = (given) => Object.fromEntries(m.resolve('use', given).toDict().rolls.map((r) => [r.name, r.probability.fraction]));\n"
        "let bad = null;\n"
        "try { m.resolve('use', { skill: '2d6 + explodin d6' }); } catch (e) { bad = `${e.name}: ${e.message}`; }\n"
        "console.log(JSON.stringify({ plain: at({ target: 9n }), given: at({ target: 9n, skill: '2d6+exploding d6' }), bad }));\n"
    )
    found = _node_json(script)
    python = module_for(DICE / "defaults.rules")
    for key, given in (("plain", {"target": 9}), ("given", {"target": 9, "skill": "2d6+exploding d6"})):
        rolls = python.resolve("use", **given).to_dict()["rolls"]
        assert found[key] == {r["name"]: r["probability"]["fraction"] for r in rolls}
    assert found["given"]["skill"] == "161/216"
    assert found["bad"].startswith("RuleInputError: input `skill` must be dice")
    assert "`explodin` is not part of dice" in found["bad"]


def test_a_dice_stat_the_roll_cannot_use_is_refused_naming_the_roll(packages: dict[str, Path]) -> None:
    """Savage Worlds' trait die is a dice stat of one die, named by the roll (`exploding (trait)
    as trait_die`): given two dice, or a die with a number added, the roll cannot be made, and
    both languages say which roll of which rule refused what, in the same words."""
    script = (
        f"const m = await import({json.dumps((packages['mechanics'] / 'savage_worlds.js').as_uri())});\n"
        "const said = {};\n"
        "for (const trait of ['2d8', '1d8+1']) {\n"
        "  try { m.resolve('trait_roll', { trait }); } catch (e) { said[trait] = `${e.name}: ${e.message}`; }\n"
        "}\n"
        "console.log(JSON.stringify(said));\n"
    )
    found = _node_json(script)
    python = module_for(MECHANICS / "savage_worlds.rules")
    for trait, words in (("2d8", "a name belongs to one die, not to exploding 2d8"), ("1d8+1", "only dice explode, not 1d8+1")):
        with pytest.raises(RuleInputError) as raised:
            python.resolve("trait_roll", trait=trait)
        assert str(raised.value) == f"roll `trait` of `trait_roll`: {words}"
        assert found[trait] == f"RuleInputError: {raised.value}"


@pytest.mark.parametrize("drawn", [pytest.param(25, id="25"), pytest.param(400, id="400", marks=pytest.mark.slow)])
def test_javascript_reads_and_writes_dice_as_python_does(packages: dict[str, Path], drawn: int) -> None:
    """Every dice value of the algebra as text: read by the JavaScript runtime's `Dice.parse` and
    written back by `String`, the same text as Python's (random values from
    tests/dice_expressions.py, and forms written by hand); text that is not dice is a
    RuleInputError with Python's message."""
    icepool = pytest.importorskip("icepool", reason="icepool is in the test extra")
    del icepool
    from tests.dice_expressions import build

    rng = random.Random(2026)
    texts = [
        "exploding d6",
        "2d6 + exploding d6",
        "highest 3 of 4d6",
        "highest 2 of (2d6 + exploding d6 as wild)",
        "max(exploding d8, exploding d6)",
        "(exploding 2d6 at most 2 times)/2 round up",
        "3d6*3/2 round down",
        "max(2d6-3, 0)",
        "4dF + 2",
        "matches of 4d6",
    ]
    texts += ["5d6 showing at least 5", "(2d6 + exploding d6) rerolling 1", "opposed (2d6 + d8) vs 3d6 by pairs"]
    texts += ["highest 2 of (d6 + d8 + d8) ignoring 1", "largest die left by lowest of (2d6 + d10) ignoring at most 2 else 4"]
    texts += [str(build(rng).dice) for _ in range(drawn)]
    unread = ["2d6 + explodin d6", "5d6 showing most 2", "opposed 3d6 vs 2d6", "largest die left by highest 2 of 3d8"]
    done = subprocess.run(
        [need_node(), str(JS_TESTS / "dice_text.mjs"), str(packages["dice"] / "runtime")],
        input=json.dumps(texts + unread),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    for text, theirs in zip(texts, found, strict=False):
        assert theirs == {"text": str(Dice.parse(text)), "again": True}, text
    for text, theirs in zip(unread, found[len(texts) :], strict=True):
        with pytest.raises(RuleInputError) as raised:
            Dice.parse(text)
        assert theirs == {"error": f"RuleInputError: {raised.value}"}


# ---------------------------------------------------------------------------- worked examples


def _expectation(expectation: Any, book: m.Book) -> dict[str, object]:
    from dsl import nodes as n

    def value(expr: Any) -> object:
        return encoded(constant_value(expr, book))

    match expectation:
        case n.ExpectValue():
            return {"kind": "value", "name": expectation.name.text, "value": value(expectation.value)}
        case n.ExpectRoll():
            tier = expectation.tier.text if expectation.tier else None
            return {"kind": "roll", "roll": expectation.roll.text, "tier": tier, "value": value(expectation.value)}
        case n.ExpectNoRoll():
            return {"kind": "no roll", "roll": expectation.roll.text}
        case n.ExpectCannot():
            return {"kind": "cannot", "text": expectation.text.value}
        case n.ExpectColumn():
            return {
                "kind": "column",
                "table": expectation.table.text,
                "column": expectation.column.text,
                "value": value(expectation.value),
            }
        case n.ExpectChain():
            return {"kind": "chain", "row": expectation.row.value, "value": value(expectation.value)}
        case n.ExpectChance():
            return {
                "kind": "chance",
                "name": expectation.name.text,
                "op": expectation.op,
                "bound": value(expectation.bound),
                "value": value(expectation.value),
            }
        case n.ExpectLasting():
            return {"kind": "lasting", "value": value(expectation.value)}
        case n.ExpectSuppressed():
            return {"kind": "suppressed", "rule": expectation.rule.text}
    raise TypeError(f"no JSON for {type(expectation).__name__}")


def test_every_worked_example_passes_in_node(packages: dict[str, Path], tmp_path: Path) -> None:
    """Node's test runner runs the worked examples of every bundled and gallery rulebook."""
    node = need_node()
    examples = []
    for group, folder in GROUPS.items():
        for path in books(folder):
            book = compiled(path).book
            assert book is not None
            for example in all_examples(book):
                examples.append(
                    {
                        "book": book.name,
                        "module": str(packages[group] / f"{book.name}.js"),
                        "title": example.title,
                        "rules": list(example.rules),
                        "given": {name: encoded(constant_value(expr, book)) for name, expr in example.givens},
                        "rounds": example.rounds,
                        "expectations": [_expectation(x, book) for x in example.expectations],
                    }
                )
    listed = tmp_path / "examples.json"
    listed.write_text(json.dumps(examples))
    result = subprocess.run(
        [node, "--test", "--test-reporter=tap", str(JS_TESTS / "examples.test.mjs")],
        env={**os.environ, "RULECRAFT_EXAMPLES": str(listed)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    passed = re.search(r"^# pass (\d+)$", result.stdout, re.M)
    assert result.returncode == 0 and passed is not None, result.stdout[-4000:] + result.stderr[-2000:]
    assert int(passed.group(1)) == len(examples) > 100
    FIGURES.append(f"javascript: {len(examples)} worked examples pass in node")


# ---------------------------------------------------------------------------- the differential


def differential(path: Path, out: Path, count: int, seed: int, tmp_path: Path) -> tuple[int, int, list[str]]:
    """Situations of a book resolved by Python and by its JavaScript module (one node process
    for all of them): (situations, refused by both, mismatches)."""
    node = need_node()
    book = compiled(path).book
    assert book is not None
    module = module_for(path)
    drawn_situations = list(drawn(book, count, random.Random(seed)))
    listed = tmp_path / f"{book.name}.situations.json"
    listed.write_text(
        json.dumps(
            [
                {"names": names, "given": {k: encoded(v) for k, v in given.items()}, "rounds": rounds}
                for names, given, rounds in drawn_situations
            ]
        )
    )
    result = subprocess.run(
        [node, str(JS_TESTS / "situations.mjs"), str(out / f"{book.name}.js"), str(listed)],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    answers = result.stdout.splitlines()
    refused = 0
    mismatches = []
    for (names, given, rounds), line in zip(drawn_situations, answers, strict=True):
        ours = json.loads(line)
        as_module = {k: (str(v) if isinstance(v, Dice) else v) for k, v in given.items()}
        try:
            resolution = module.resolve(names, rounds=rounds, **as_module)
            theirs: dict[str, object] = {"ok": json.loads(json.dumps(resolution.to_dict()))}
        except module.RuleInputError as error:
            theirs = {"error": str(error)}
        if "error" in theirs and "error" in ours:
            refused += 1
        elif ours != theirs:
            if "ok" in ours and "ok" in theirs:
                differ = [key for key in theirs["ok"] if theirs["ok"][key] != ours["ok"].get(key)]  # type: ignore[attr-defined]
                mismatches.append(f"{book.name} {names} {given} rounds={rounds}: {differ}")
            else:
                mismatches.append(
                    f"{book.name} {names} {given} rounds={rounds}: python {str(theirs)[:300]} / js {str(ours)[:300]}"
                )
    return len(drawn_situations), refused, mismatches


BUNDLED = sorted(RULEBOOKS.glob("*.rules"))
GALLERY = (
    [("mechanics", p) for p in sorted(MECHANICS.glob("*.rules"))]
    + [("features", p) for p in sorted(FEATURES.glob("*.rules"))]
    + [("dice", p) for p in books(DICE)]
)


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_javascript_agrees_with_python(path: Path, packages: dict[str, Path], tmp_path: Path) -> None:
    *_, mismatches = differential(path, packages["rulebooks"], 60, 20261201, tmp_path)  # CI: 10,000 a book
    assert not mismatches, "\n".join(mismatches[:5])


@pytest.mark.parametrize(
    ("count", "seed"),
    [pytest.param(15, 20261129, id="quick"), pytest.param(300, 20261202, id="ci", marks=pytest.mark.slow)],
)
@pytest.mark.parametrize(("group", "path"), GALLERY, ids=lambda x: x.stem if isinstance(x, Path) else x)
def test_javascript_agrees_with_python_on_the_gallery(
    group: str, path: Path, count: int, seed: int, packages: dict[str, Path], tmp_path: Path
) -> None:
    """15 situations a book in a plain `pytest`, 300 more with another seed in CI (`--slow`):
    the gallery's dice are the costliest to work out exactly, twice."""
    *_, mismatches = differential(path, packages[group], count, seed, tmp_path)
    assert not mismatches, "\n".join(mismatches[:5])


@pytest.mark.slow
@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_javascript_agrees_with_python_on_10000_situations(
    path: Path, packages: dict[str, Path], tmp_path: Path
) -> None:
    situations, refused, mismatches = differential(path, packages["rulebooks"], 10_000, 20261203, tmp_path)
    FIGURES.append(
        f"javascript differential {path.stem}: {situations} situations, {refused} refused by both, "
        f"{len(mismatches)} mismatches"
    )
    assert not mismatches, "\n".join(mismatches[:5])


def test_integers_beyond_2_53_stay_exact(packages: dict[str, Path], tmp_path: Path) -> None:
    """The issue's repair cost of 123456789012345678901234567890: exact in JavaScript (BigInt),
    written as Python writes it, past 2^53 as its digits in text ({"fraction": "1234...", ...})."""
    path = RULEBOOKS / "spot_rules_a_to_e.rules"
    module = module_for(path)
    given = {"armor_cost": 123456789012345678901234567890, "armor_state": "damaged"}
    listed = tmp_path / "big.json"
    listed.write_text(
        json.dumps([{"names": ["armor_damaged"], "given": {k: encoded(v) for k, v in given.items()}, "rounds": None}])
    )
    result = subprocess.run(
        [
            need_node(),
            str(JS_TESTS / "situations.mjs"),
            str(packages["rulebooks"] / "spot_rules_a_to_e.js"),
            str(listed),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    ours = json.loads(result.stdout)["ok"]
    assert ours == json.loads(json.dumps(module.resolve("armor_damaged", **given).to_dict()))
    assert "123456789012345678901234567890" in result.stdout


def test_floats_are_pythons(packages: dict[str, Path], tmp_path: Path) -> None:
    """The `float` beside each fraction is the double nearest to it, as Python's float(Fraction):
    tiny chances (subnormal doubles, and 0 below them) and floats past 2^53 (written with an
    exponent, as Python does, so they read back as floats) included."""
    from dsl.runtime.base import number_json, probability_json

    rng = random.Random(20261204)
    numbers = [Fraction(1, 3), Fraction(-7, 2), Fraction(10**400 + 1, 10**399), Fraction(1, 2**1074 * 3)]
    for _ in range(3000):
        scale = rng.choice((10**20, 10**300, 2**1060, 2**1080))
        numbers.append(Fraction(rng.randint(1, 10 ** rng.randint(1, 60)), rng.randint(1, scale)))
        numbers.append(Fraction(rng.randint(1, 2**90), rng.randint(1, 2**20)))
    listed = tmp_path / "numbers.json"
    listed.write_text(json.dumps([f"{x.numerator}/{x.denominator}" for x in numbers]))
    base = packages["rulebooks"] / "runtime" / "base.js"
    result = subprocess.run(
        [need_node(), str(JS_TESTS / "floats.mjs"), str(base), str(listed)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    expected = [{"number": number_json(x), "probability": probability_json(x)} for x in numbers]
    assert json.loads(result.stdout) == json.loads(json.dumps(expected))


# ---------------------------------------------------------------------------- TypeScript


def _npm_ci() -> Path:
    """TypeScript, installed into tests/js/node_modules from its lock file when missing."""
    tsc = JS_TESTS / "node_modules" / ".bin" / "tsc"
    if not tsc.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is needed to install TypeScript (tests/js/package-lock.json)")
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"], cwd=JS_TESTS, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stderr[-2000:]
    return tsc


@pytest.mark.slow
def test_a_typescript_app_checks_against_the_declarations(packages: dict[str, Path], tmp_path: Path) -> None:
    """The app installs the package (`npm install ./OUT`), `tsc --strict` passes it and it runs;
    calls the declarations forbid (tests/js/app/wrong.ts) are each reported.  In CI (`--slow`):
    the TypeScript compiler takes some 4 s, and the declarations change only with the runtime."""
    node = need_node()
    tsc = _npm_ci()
    npm = shutil.which("npm")
    assert npm is not None
    app = tmp_path / "app"
    shutil.copytree(JS_TESTS / "app", app)
    (app / "package.json").write_text(json.dumps({"name": "app", "private": True, "type": "module"}))
    installed = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--offline", str(packages["rulebooks"])],
        cwd=app,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stderr
    checked = subprocess.run([node, str(tsc), "-p", "."], cwd=app, capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    ran = subprocess.run([node, "dist/app.js"], cwd=app, capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    said = json.loads(ran.stdout)
    module = module_for(RULEBOOKS / "skirmish_terrain.rules")
    assert said["fall"] == str(module.broken_ground(DEX=12, MOV=10, moved=6).roll("fall").probability)
    assert said["refused"].startswith("input `DEX` must be")
    assert said["json"]["DEX"] == {"start": 12, "final": int(said["dex"])}
    seeded = module.broken_ground(moved=8, rng=20261127).rolled("fall")
    assert said["rolled"] == [str(d.faces[0]) for d in seeded.sides[0].rolled]
    assert said["told"] == ["faces", "failure", "9"]
    config = json.loads((app / "tsconfig.json").read_text())
    (app / "tsconfig.wrong.json").write_text(json.dumps({**config, "files": ["wrong.ts"]}))
    wrong = subprocess.run(
        [node, str(tsc), "-p", "tsconfig.wrong.json", "--noEmit"], cwd=app, capture_output=True, text=True, timeout=300
    )
    errors = re.findall(r"^wrong\.ts\((\d+),\d+\): error", wrong.stdout, re.M)
    assert wrong.returncode != 0 and errors == ["4", "5", "6", "7"], wrong.stdout


def test_modules_ask_for_the_api_the_javascript_runtime_offers() -> None:
    from dsl.backends.js.module import RUNTIME_API

    index = (ROOT / "dsl" / "backends" / "js" / "runtime" / "index.js").read_text(encoding="utf-8")
    assert f"export const API = {RUNTIME_API};" in index
