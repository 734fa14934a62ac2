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
from dsl.runtime.dice import Dice
from dsl.semantics import constant_value
from tests.conftest import FEATURES, FIGURES, ROOT, RULEBOOKS, compiled, module_for, run_cli
from tests.differential import drawn

JS_TESTS = ROOT / "tests" / "js"
MECHANICS = ROOT / "tests" / "fixtures" / "mechanics"
GROUPS = {"rulebooks": RULEBOOKS, "mechanics": MECHANICS, "features": FEATURES}
"""Built as one package each (mechanics and features both have a book named `percentile`)."""

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
        result = run_cli("build", "--target", "js", "-o", str(out), *map(str, sorted(folder.glob("*.rules"))))
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


NOT_YET = [
    ("wild_check", "`natural N on` a named die"),
    ("one_die", "`natural` of exploding dice or of a dice value"),
    ("contest", "dice worked out when resolving on an opposed roll's second side"),
    ("skill_check", "`natural` of exploding dice or of a dice value"),
]
"""Rules of tests/fixtures/dice/opend6.rules, each with the construct the JavaScript target
refuses in it (dsl/backends/js/expressions.py `Unsupported`)."""


@pytest.mark.parametrize(("rule", "construct"), NOT_YET, ids=[rule for rule, _ in NOT_YET])
def test_a_construct_the_javascript_target_cannot_write_is_a_build_error(
    rule: str, construct: str, tmp_path: Path
) -> None:
    """A build refuses it with the rulebook, the rule and the construct, and writes nothing:
    never a module that would resolve differently from the Python one."""
    book = ROOT / "tests" / "fixtures" / "dice" / "opend6.rules"
    head, *rules = re.split(r"\n(?=rule )", book.read_text())
    kept = next(text for text in rules if text.startswith(f"rule {rule} "))
    path = tmp_path / "opend6.rules"
    path.write_text(head + "\n" + kept)
    assert run_cli("check", str(path)).exit_code == 0
    result = run_cli("build", "--target", "js", "-o", str(tmp_path / "out"), str(path))
    assert result.exit_code == 1, result.output
    said = f"error: {path}: the JavaScript target cannot write {construct}"
    assert said in result.output and f"(rule `{rule}`" in result.output, result.output
    assert not (tmp_path / "out").exists()


def _drawn_pools(rng: random.Random, count: int) -> list[dict[str, Any]]:
    """Pools of every reading, of plain, Fate, exploding (bounded or not), re-rolled and named
    dice, with a horizon, a named die's first face or the joint natural asked for."""
    cases = []
    for _ in range(count):
        groups = []
        for index in range(rng.choice([1, 1, 2, 3])):
            fate = rng.random() < 0.15
            sides = 3 if fate else rng.choice([2, 4, 6, 8, 10])
            explode: int | str = 0 if fate else rng.choice([0, 0, 1, 2, "unbounded"])
            reroll = None
            if rng.random() < 0.25:
                low = -1 if fate else 1
                reroll = [low, low + rng.randrange(2)]
            name = f"d{index}" if rng.random() < 0.4 else None
            groups.append(
                {
                    "count": rng.randint(1, 4),
                    "sides": sides,
                    "fate": fate,
                    "explode": explode,
                    "reroll": reroll,
                    "name": name,
                }
            )
        reading = (
            "sum" if len(groups) == 1 and rng.random() < 0.4 else rng.choice(["highest", "lowest", "count", "matches"])
        )
        size = sum(g["count"] for g in groups)
        low = rng.choice([None, 2, 4])
        high = rng.choice([None, None, 5])
        condition = {
            g["name"]: rng.choice([-1, 0, 1] if g["fate"] else [1, 2, g["sides"]])
            for g in groups
            if g["name"] and rng.random() < 0.5
        }
        cases.append(
            {
                "groups": groups,
                "reading": reading,
                "kept": rng.randint(1, size),
                "within": [low, high],
                "horizon": rng.choice([None, 12, 25]),
                "condition": condition,
                "joint": rng.random() < 0.3,
            }
        )
    return cases


def _python_pool(case: dict[str, Any]) -> dict[str, Any]:
    from dsl.runtime.pools import UNBOUNDED, Group, Pooled

    try:
        groups = tuple(
            Group(
                g["count"],
                g["sides"],
                g["fate"],
                UNBOUNDED if g["explode"] == "unbounded" else g["explode"],
                None if g["reroll"] is None else tuple(g["reroll"]),
                g["name"],
            )
            for g in case["groups"]
        )
        pool = Pooled(groups, case["reading"], case["kept"], tuple(case["within"]))
        if case["joint"]:
            pairs, denominator = pool.joint(case["horizon"])
            weights = {f"{a},{b}": str(w) for (a, b), w in pairs.items()}
        else:
            found, denominator = pool.weights(case["horizon"], case["condition"])
            weights = {str(v): str(w) for v, w in found.items()}
    except ValueError as error:
        return {"error": str(error)}
    return {
        "text": pool.text(),
        "low": str(pool.low),
        "high": None if pool.high is None else str(pool.high),
        "weights": weights,
        "denominator": str(denominator),
    }


def test_the_javascript_pools_agree_with_python() -> None:
    """dsl/backends/js/runtime/pools.js against dsl/runtime/pools.py on 400 drawn pools: the
    same weights, denominators, texts and bounds, and the same refusals (tests/js/pools.mjs)."""
    node = need_node()
    cases = _drawn_pools(random.Random(27), 400)
    runtime = ROOT / "dsl" / "backends" / "js" / "runtime"
    done = subprocess.run(
        [node, str(JS_TESTS / "pools.mjs"), str(runtime)],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    found = json.loads(done.stdout)
    expected = [_python_pool(case) for case in cases]
    mismatches = [(case, a, b) for case, a, b in zip(cases, expected, found, strict=True) if a != b]
    assert not mismatches, mismatches[:3]
    worked = sum("error" not in x for x in expected)
    assert worked > 250, worked


def _dice_tree(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    """A dice value as a tree of the algebra's constructs (exploding, kept, named, added, the
    better or worse of two), for test_dice_values_agree_with_python."""
    roll = rng.random()
    if depth >= 2 or roll < 0.3:
        if rng.random() < 0.15:
            return {"op": "number", "value": rng.randint(-2, 3)}
        return {"op": "pool", "count": rng.randint(1, 3), "sides": rng.choice([4, 6, 8, 10])}
    if roll < 0.5:
        times = rng.choice([None, 1, 2])
        return {"op": "exploding", "dice": _dice_tree(rng, 2), "times": times}
    if roll < 0.6:
        return {
            "op": "kept",
            "dice": _dice_tree(rng, depth + 1),
            "side": rng.choice(["highest", "lowest"]),
            "kept": rng.choice([None, 1, 2]),
        }
    if roll < 0.72:
        die = {"op": "pool", "count": 1, "sides": rng.choice([6, 8, 10])}
        if rng.random() < 0.6:
            die = {"op": "exploding", "dice": die, "times": rng.choice([None, None, 2])}
        named = {"op": "named", "dice": die, "name": f"w{depth}"}
        return named if rng.random() < 0.5 else {"op": "plus", "first": _dice_tree(rng, depth + 1), "second": named}
    if roll < 0.9:
        return {"op": "plus", "first": _dice_tree(rng, depth + 1), "second": _dice_tree(rng, depth + 1)}
    return {"op": rng.choice(["max", "min"]), "first": _dice_tree(rng, depth + 1), "second": _dice_tree(rng, depth + 1)}


def _python_dice(case: dict[str, Any]) -> dict[str, Any]:
    from dsl.runtime.base import RuleInputError
    from dsl.runtime.dice import clamp_dice, exploding_dice, kept_dice, named_die

    def built(tree: dict[str, Any]) -> Dice:
        op = tree["op"]
        if op == "pool":
            return Dice.pool(tree["count"], tree["sides"])
        if op == "number":
            return Dice((), tree["value"])
        if op == "exploding":
            return exploding_dice(built(tree["dice"]), tree["times"])
        if op == "kept":
            return kept_dice(built(tree["dice"]), tree["side"], tree["kept"])
        if op == "named":
            return named_die(built(tree["dice"]), tree["name"])
        if op == "plus":
            return built(tree["first"]).plus(built(tree["second"]))
        return clamp_dice(op, built(tree["first"]), built(tree["second"]))

    found: dict[str, Any] = {}
    try:
        dice = built(case["tree"])
        found["text"] = str(dice)
        found["bounded"] = dice.bounded
        found["totals"] = {str(k): str(v) for k, v in dice.totals(1_000_000, case["horizon"]).items()}
        naturals = dice.naturals(tuple(case["names"]), case["horizon"])
        found["naturals"] = [[[str(x) for x in key], str(total), str(p)] for (key, total), p in naturals.items()]
    except (ValueError, RuleInputError) as error:
        found["error"] = str(error)
    return found


def test_dice_values_agree_with_python() -> None:
    """dice.js's dice values of pools (exploding, kept, named, the better of two) against
    dsl/runtime/dice.py on 300 drawn trees: the same text, totals to a horizon, naturals and
    refusals (tests/js/dice_values.mjs)."""
    node = need_node()
    rng = random.Random(2027)
    cases = []
    for _ in range(300):
        tree = _dice_tree(rng)
        names = [None] if rng.random() < 0.5 else []
        names += [name for name in ("w0", "w1") if name in json.dumps(tree) and rng.random() < 0.7]
        cases.append({"tree": tree, "horizon": rng.choice([None, 15, 30]), "names": names or [None]})
    runtime = ROOT / "dsl" / "backends" / "js" / "runtime"
    done = subprocess.run(
        [node, str(JS_TESTS / "dice_values.mjs"), str(runtime)],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    found = json.loads(done.stdout)
    expected = [_python_dice(case) for case in cases]
    mismatches = [(case, a, b) for case, a, b in zip(cases, expected, found, strict=True) if a != b]
    assert not mismatches, mismatches[:2]
    worked = sum("error" not in x for x in expected)
    assert worked > 150, worked


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
        for path in sorted(folder.glob("*.rules")):
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
GALLERY = [("mechanics", p) for p in sorted(MECHANICS.glob("*.rules"))] + [
    ("features", p) for p in sorted(FEATURES.glob("*.rules"))
]


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_javascript_agrees_with_python(path: Path, packages: dict[str, Path], tmp_path: Path) -> None:
    *_, mismatches = differential(path, packages["rulebooks"], 150, 20261201, tmp_path)
    assert not mismatches, "\n".join(mismatches[:5])


@pytest.mark.parametrize(("group", "path"), GALLERY, ids=lambda x: x.stem if isinstance(x, Path) else x)
def test_javascript_agrees_with_python_on_the_gallery(
    group: str, path: Path, packages: dict[str, Path], tmp_path: Path
) -> None:
    *_, mismatches = differential(path, packages[group], 300, 20261202, tmp_path)
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
    written as the same JSON integer Python writes."""
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


def test_a_typescript_app_checks_against_the_declarations(packages: dict[str, Path], tmp_path: Path) -> None:
    """The app installs the package (`npm install ./OUT`), `tsc --strict` passes it and it runs;
    calls the declarations forbid (tests/js/app/wrong.ts) are each reported."""
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
    config = json.loads((app / "tsconfig.json").read_text())
    (app / "tsconfig.wrong.json").write_text(json.dumps({**config, "files": ["wrong.ts"]}))
    wrong = subprocess.run(
        [node, str(tsc), "-p", "tsconfig.wrong.json", "--noEmit"], cwd=app, capture_output=True, text=True, timeout=300
    )
    errors = re.findall(r"^wrong\.ts\((\d+),\d+\): error", wrong.stdout, re.M)
    assert wrong.returncode != 0 and errors == ["4", "5", "6"], wrong.stdout
