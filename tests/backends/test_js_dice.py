"""The JavaScript runtime's dice held to Python's, below the level of a module: pools.js against
dsl/runtime/pools.py on drawn pools of every reading (sum, kept, counted, matched, pairs won,
a named die cancelling),
and dice.js's dice values against dsl/runtime/dice.py on drawn trees of the algebra's constructs
(exploding, kept, named, counted, re-rolled, paired, added, the better or worse of two): the same
weights, texts, bounds and refusals, run through tests/js/pools.mjs and tests/js/dice_values.mjs.
"""

from __future__ import annotations

import json
import random
import subprocess
from typing import Any

from dsl.runtime.dice import Dice
from tests.backends.test_js import JS_TESTS, need_node
from tests.conftest import ROOT

RUNTIME = ROOT / "dsl" / "backends" / "js" / "runtime"


def _drawn_pools(rng: random.Random, count: int) -> list[dict[str, Any]]:
    """Pools of every reading, of plain, Fate, exploding (bounded or not), re-rolled and named
    dice, with a horizon, a named die's first face or the joint natural asked for."""
    cases = []
    for _ in range(count):
        pairs = rng.random() < 0.15  # pairs won need two sides
        groups: list[dict[str, Any]] = []
        for index in range(rng.choice([2, 2, 3]) if pairs else rng.choice([1, 1, 2, 3])):
            fate = rng.random() < 0.15
            sides = 3 if fate else rng.choice([2, 4, 6, 8, 10])
            explode: int | str = 0 if fate else rng.choice((0, 0, 1, 2, "unbounded"))
            reroll = None
            if rng.random() < 0.25:
                low = -1 if fate else 1
                reroll = [low, low + rng.randrange(2)]
            name = f"d{index}" if rng.random() < 0.4 else None
            groups.append(
                {"count": rng.randint(1, 4), "sides": sides, "fate": fate, "explode": explode, "reroll": reroll, "name": name}
            )
        reading = "sum" if len(groups) == 1 and rng.random() < 0.4 else rng.choice(["highest", "lowest", "count", "matches"])
        if pairs:
            reading = "pairs"
        named = [g for g in groups if g["name"]]
        trigger = None
        if not pairs and rng.random() < 0.2:
            reading = "cancel"
            if named and rng.random() < 0.9:
                named[0]["count"] = 1 if rng.random() < 0.9 else 2
                trigger = named[0]["name"]
        size = sum(g["count"] for g in groups)
        within = [rng.choice([None, 2, 4]), rng.choice([None, None, 5])]
        if within == [None, None]:
            within[0] = 1  # the language counts the dice showing some faces, never all of them unsaid
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
                "within": within,
                "side": rng.randint(1, len(groups) - 1) if pairs else 0,
                "trigger": trigger,
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
        pool = Pooled(groups, case["reading"], case["kept"], tuple(case["within"]), case["side"], case["trigger"])
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
    """dsl/backends/js/runtime/pools.js against dsl/runtime/pools.py on 600 drawn pools, pairs
    won and counted faces among them: the same weights, denominators, texts and bounds, and the
    same refusals (tests/js/pools.mjs)."""
    node = need_node()
    cases = _drawn_pools(random.Random(27), 600)
    done = subprocess.run(
        [node, str(JS_TESTS / "pools.mjs"), str(RUNTIME)],
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
    worked = [case["reading"] for case, x in zip(cases, expected, strict=True) if "error" not in x]
    assert len(worked) > 300 and worked.count("pairs") > 30 and worked.count("count") > 30, worked
    assert worked.count("cancel") > 20, worked


def _dice_tree(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    """A dice value as a tree of the algebra's constructs."""
    roll = rng.random()
    if depth >= 2 or roll < 0.25:
        if rng.random() < 0.15:
            return {"op": "number", "value": rng.randint(-2, 3)}
        return {"op": "pool", "count": rng.randint(1, 3), "sides": rng.choice([4, 6, 8, 10])}
    if roll < 0.4:
        return {"op": "exploding", "dice": _dice_tree(rng, 2), "times": rng.choice([None, 1, 2])}
    if roll < 0.48:
        side = rng.choice(["highest", "lowest"])
        return {"op": "kept", "dice": _dice_tree(rng, depth + 1), "side": side, "kept": rng.choice([None, 1, 2])}
    if roll < 0.56:
        die: dict[str, Any] = {"op": "pool", "count": 1, "sides": rng.choice([6, 8, 10])}
        if rng.random() < 0.6:
            die = {"op": "exploding", "dice": die, "times": rng.choice([None, None, 2])}
        named = {"op": "named", "dice": die, "name": f"w{depth}"}
        chosen = rng.random()
        if chosen < 0.2:
            return named
        added = {"op": "plus", "first": _dice_tree(rng, depth + 1), "second": named}
        if chosen < 0.3:
            return added
        if rng.random() < 0.7:  # dice added together, which a named die cancels
            added["first"] = {"op": "pool", "count": rng.randint(1, 3), "sides": rng.choice([4, 6])}
        low, high = rng.choice([(1, 1), (1, 2), (None, 1), (6, None)])
        name = f"w{depth}" if rng.random() < 0.9 else "x"
        return {"op": "cancelled", "dice": added, "name": name, "low": low, "high": high}
    if roll < 0.72:
        op = rng.choice(["counted", "rerolled"])
        low, high = rng.choice([(None, 2), (5, None), (2, 5), (6, 6), (1, 1), (1, 10)])
        return {"op": op, "dice": _dice_tree(rng, depth + 1), "low": low, "high": high}
    if roll < 0.8:
        return {"op": "paired", "first": _dice_tree(rng, depth + 1), "second": _dice_tree(rng, depth + 1)}
    if roll < 0.92:
        return {"op": "plus", "first": _dice_tree(rng, depth + 1), "second": _dice_tree(rng, depth + 1)}
    return {"op": rng.choice(["max", "min"]), "first": _dice_tree(rng, depth + 1), "second": _dice_tree(rng, depth + 1)}


def _python_dice(case: dict[str, Any]) -> dict[str, Any]:
    from dsl.runtime.base import RuleInputError
    from dsl.runtime.dice import (
        cancelled_dice,
        clamp_dice,
        counted_dice,
        exploding_dice,
        kept_dice,
        named_die,
        paired_dice,
        rerolled_dice,
    )

    def built(tree: dict[str, Any]) -> Dice:
        match tree["op"]:
            case "pool":
                return Dice.pool(tree["count"], tree["sides"])
            case "number":
                return Dice((), tree["value"])
            case "exploding":
                return exploding_dice(built(tree["dice"]), tree["times"])
            case "kept":
                return kept_dice(built(tree["dice"]), tree["side"], tree["kept"])
            case "named":
                return named_die(built(tree["dice"]), tree["name"])
            case "counted":
                return counted_dice(built(tree["dice"]), tree["low"], tree["high"])
            case "rerolled":
                return rerolled_dice(built(tree["dice"]), tree["low"], tree["high"])
            case "cancelled":
                return cancelled_dice(built(tree["dice"]), tree["name"], tree["low"], tree["high"])
            case "paired":
                return paired_dice(built(tree["first"]), built(tree["second"]))
            case "plus":
                return built(tree["first"]).plus(built(tree["second"]))
        return clamp_dice(tree["op"], built(tree["first"]), built(tree["second"]))

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
    """dice.js's dice values against dsl/runtime/dice.py on 800 drawn trees, counted, re-rolled,
    paired and cancelling dice among them: the same text, totals to a horizon, naturals and refusals
    (tests/js/dice_values.mjs)."""
    node = need_node()
    rng = random.Random(2027)
    cases = []
    for _ in range(800):
        tree = _dice_tree(rng)
        names: list[str | None] = [None] if rng.random() < 0.5 else []
        names += [name for name in ("w0", "w1") if name in json.dumps(tree) and rng.random() < 0.7]
        cases.append({"tree": tree, "horizon": rng.choice([None, 15, 30]), "names": names or [None]})
    done = subprocess.run(
        [node, str(JS_TESTS / "dice_values.mjs"), str(RUNTIME)],
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
    worked = [json.dumps(case["tree"]) for case, x in zip(cases, expected, strict=True) if "error" not in x]
    assert len(worked) > 150, len(worked)
    for op in ("counted", "rerolled", "paired", "cancelled"):
        assert sum(f'"op": "{op}"' in tree for tree in worked) > 10, op
