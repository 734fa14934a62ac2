"""Rolling in JavaScript gives what rolling in Python gives: the same generator (pinned outputs),
and, for every rule and table of the bundled rulebooks, the dice books and forms.rules (a roll of
every dice form), the same whole Resolution rolled from the same seeds (each die's faces, the
outcome, the consequences) and told the same faces; bad results told are refused with the same
message.  Node runs the generated modules (tests/js/rolling.mjs), as in tests/backends/test_js.py.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.backends.test_js import DICE, books, encoded, need_node
from tests.conftest import FIGURES, ROOT, RULEBOOKS, compiled, module_for, run_cli
from tests.differential import drawn
from tests.runtime.test_rolling import PINNED_D6, PINNED_OUTPUTS

JS_TESTS = ROOT / "tests" / "js"
ROUNDS = ROOT / "tests" / "fixtures" / "rolling" / "rounds.rules"
ROUND_IDIOMS = ROOT / "tests" / "fixtures" / "features" / "round_idioms.rules"
"""Rounds without a counter, until the Nth failure, a count the dice read (issue 26)."""
BOOKS = [
    *sorted(RULEBOOKS.glob("*.rules")), *books(DICE), ROOT / "tests" / "fixtures" / "rolling" / "forms.rules", ROUNDS, ROUND_IDIOMS
]


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("js-rolling")
    for path in BOOKS:  # one package per book: the dice books' names may repeat the bundled ones'
        result = run_cli("build", "--target", "js", "-o", str(out / path.stem), str(path))
        assert result.exit_code == 0, result.output
    return out


def _node(*args: str) -> list[str]:
    result = subprocess.run(
        [need_node(), str(JS_TESTS / "rolling.mjs"), *args], capture_output=True, text=True, timeout=1200
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return result.stdout.splitlines()


def test_the_generator_is_the_same_in_javascript(package: Path) -> None:
    path = BOOKS[0]
    pinned = json.loads(_node(str(package / path.stem / f"{compiled(path).book.name}.js"))[0])  # type: ignore[union-attr]
    assert pinned == {
        "state": [0x7B1DCDAF, 0xE220A839, 0xA1B965F4, 0x6E789E6A],
        "outputs": PINNED_OUTPUTS,
        "d6": PINNED_D6,
    }


def _situations(path: Path, count: int, seed: int) -> list[dict[str, Any]]:
    """Every rule and table at its defaults with three seeds, and `count` drawn situations (some
    over rounds), each with a seed; then each situation Python rolled, told to JavaScript as the
    faces it rolled (over rounds: the first round's, the rounds rolled stop there)."""
    book = compiled(path).book
    assert book is not None
    module = module_for(path)
    chooser = random.Random(seed)
    found: list[dict[str, Any]] = []
    for name in [*book.rules, *book.tables]:
        for _ in range(3):
            found.append({"names": [name], "given": {}, "rng": str(chooser.getrandbits(64)), "rolled": None})
    for names, given, rounds in drawn(book, count, chooser):
        found.append({"names": names, "given": given, "rng": str(chooser.getrandbits(64)), "rolled": None, "rounds": rounds})
    told = []
    for situation in found:
        try:
            rounds = {"rounds": situation["rounds"]} if situation.get("rounds") is not None else {}
            resolution = module.resolve(
                situation["names"], rng=int(situation["rng"]), **rounds, **_plain(situation["given"])
            )
        except module.RuleInputError:
            continue
        faces = {
            f"{roll.rule}.{roll.name}": [f for side in roll.rolled.sides for d in side.rolled for f in d.faces]
            for roll in resolution.rolls
            if roll.rolled is not None and roll.rolled.sides and roll.automatic is None
        }
        if faces and len({key.split(".")[1] for key in faces}) == len(faces):
            told.append({**situation, "rng": None, "rolled": faces})
    return found + told


def _plain(given: dict[str, Any]) -> dict[str, Any]:
    return {k: (str(v) if type(v).__name__ == "Dice" else v) for k, v in given.items()}


def _compare(path: Path, package: Path, situations: list[dict[str, Any]], tmp_path: Path) -> tuple[int, list[str]]:
    book = compiled(path).book
    assert book is not None
    module = module_for(path)
    listed = tmp_path / f"{book.name}.rolling.json"
    listed.write_text(json.dumps([{**s, "given": {k: encoded(v) for k, v in s["given"].items()}} for s in situations]))
    answers = _node(str(package / path.stem / f"{book.name}.js"), str(listed))
    mismatches = []
    for situation, line in zip(situations, answers, strict=True):
        ours = json.loads(line)
        rng = None if situation["rng"] is None else int(situation["rng"])
        rounds = {"rounds": situation["rounds"]} if situation.get("rounds") is not None else {}
        try:
            resolution = module.resolve(
                situation["names"], rng=rng, rolled=situation["rolled"], **rounds, **_plain(situation["given"])
            )
            theirs: dict[str, Any] = {"ok": json.loads(json.dumps(resolution.to_dict()))}
        except module.RuleInputError as error:
            theirs = {"error": str(error)}
        if ours != theirs:
            mismatches.append(f"{book.name} {situation}: python {str(theirs)[:400]} / js {str(ours)[:400]}")
    return len(situations), mismatches


@pytest.mark.parametrize(
    "path",
    # the rounds book (some 4 s of rounds rolled a situation) in the slow tier: a plain run rolls
    # rounds in test_rounds_are_rolled_alike
    [pytest.param(p, marks=pytest.mark.slow) if p == ROUNDS else p for p in BOOKS],
    ids=[f"{p.parent.name}/{p.stem}" for p in BOOKS],
)
def test_javascript_rolls_what_python_rolls(path: Path, package: Path, tmp_path: Path) -> None:
    count, mismatches = _compare(path, package, _situations(path, 20, 27), tmp_path)
    assert mismatches == [], "\n".join(mismatches[:5])
    assert count > 0


@pytest.mark.slow
@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.stem)
def test_javascript_rolls_what_python_rolls_1000_situations_per_book(path: Path, package: Path, tmp_path: Path) -> None:
    """One book a test, so the run's workers share them."""
    count, mismatches = _compare(path, package, _situations(path, 1_000, 2027), tmp_path)
    assert mismatches == [], "\n".join(mismatches[:5])
    FIGURES.append(f"javascript rolling {path.stem}: {count} rolled or told situations, Python and JavaScript agree on every one")


def test_bad_results_told_are_refused_alike(package: Path, tmp_path: Path) -> None:
    path = RULEBOOKS / "skirmish_terrain.rules"
    bad: list[Any] = [[3, 4, 9], [3, 4], [3, 4, 2, 1], 2, 19, "nine"]
    situations = [
        {"names": ["broken_ground"], "given": {"moved": 8}, "rng": None, "rolled": {"fall": told}} for told in bad
    ] + [{"names": ["broken_ground"], "given": {"moved": 8}, "rng": None, "rolled": {"fal": 9}}]
    count, mismatches = _compare(path, package, situations, tmp_path)
    assert mismatches == [] and count == len(bad) + 1


def test_chains_roll_and_are_told_alike(package: Path, tmp_path: Path) -> None:
    """A rolled table's chain (tests/runtime/test_rolling_chains.py): JavaScript follows it with
    the same faces from the same seeds (roll twice, a roll twice met again, sub-tables), takes
    each table of it told by name, and refuses a chain told wrong with the same message."""
    path = RULEBOOKS / "mecha_tables.rules"
    told: list[Any] = [
        {"light_damage": [6, 6, 6, 2, 6, 1], "structural": [6], "fire_control": [2]},
        {"light_damage": [6, 6, 6, 2, 6, 1], "structural": [6]},
        {"light_damage": 6},
        {"light_damage": [3], "structural": [6]},
        {"light_damage": [6, 6, 6, 2, 6, 1], "structural": [6], "fire_control": [7]},
    ]
    situations = [{"names": ["light_damage"], "given": {}, "rng": str(seed), "rolled": None} for seed in range(40)] + [
        {"names": ["light_damage"], "given": {}, "rng": None, "rolled": rolled} for rolled in told
    ]
    count, mismatches = _compare(path, package, situations, tmp_path)
    assert mismatches == [] and count == len(situations)


def test_a_roll_outcome_sends_on_alike(package: Path, tmp_path: Path) -> None:
    """A roll's outcome that sends on (a walker knockdown's fumble: `then roll light_damage`):
    JavaScript rolls the table and its chain after the roll from the same seeds, takes it told by
    name, and refuses it told when the outcome does not send on, with Python's message."""
    path = RULEBOOKS / "mecha_tables.rules"
    given = {"unit": "walker", "damage_taken": 14, "vehicle_size": 6, "MoS": 3}
    told: list[Any] = [
        {"knockdown": [1, 1], "light_damage": [6, 5, 3]},
        {"knockdown": [1, 1], "light_damage": 2, "structural": 4},
        {"knockdown": [1, 1]},
        {"knockdown": [4, 2], "light_damage": [3]},
    ]
    situations = [
        {"names": ["walker_knockdown"], "given": given, "rng": str(seed), "rolled": None} for seed in range(60)
    ] + [{"names": ["walker_knockdown"], "given": given, "rng": None, "rolled": rolled} for rolled in told]
    count, mismatches = _compare(path, package, situations, tmp_path)
    assert mismatches == [] and count == len(situations)


def test_two_tables_rolled_on_dice_alike(package: Path, tmp_path: Path) -> None:
    """Light and heavy damage in one situation (tests/runtime/test_rolling_tables.py): JavaScript
    gives each table its own roll and chain from the same seeds, takes each told by name, keeps
    `roll` selecting both, and refuses `roll` with a table told with Python's message."""
    path = RULEBOOKS / "mecha_tables.rules"
    both = ["light_damage", "heavy_damage"]
    told: list[Any] = [{"light_damage": 3, "heavy_damage": [2], "structural": 4}, {"heavy_damage": 4}]
    situations = (
        [{"names": both, "given": {}, "rng": str(seed), "rolled": None} for seed in range(60)]
        + [{"names": both, "given": {}, "rng": None, "rolled": rolled} for rolled in told]
        + [{"names": both, "given": {"roll": 3}, "rng": "1", "rolled": None}]
        + [{"names": both, "given": {"roll": 3}, "rng": None, "rolled": {"light_damage": 3}}]
    )
    count, mismatches = _compare(path, package, situations, tmp_path)
    assert mismatches == [] and count == len(situations)


def test_rounds_are_rolled_alike(package: Path, tmp_path: Path) -> None:
    """Rounds rolled (tests/runtime/test_rolling_rounds.py): JavaScript rolls each round from the
    same seeds (the counter up, `until` ending or changing the rounds, totals summed), takes
    rounds told as `N:name`, and refuses them told wrong with Python's message."""
    cases: list[tuple[Path, list[str], dict[str, Any], int, list[Any]]] = [
        (RULEBOOKS / "spot_rules_a_to_e.rules", ["asphyxiation"], {"CON": 12}, 5, [{"hold_breath": 99, "2:damage_per_round": 3}]),
        (RULEBOOKS / "spot_rules_a_to_e.rules", ["disease_recovery"], {"diseased": True}, 6, [
            {"recover": 90, "3:recover": 95, "4:recover": 5},
            {"recover": 90, "3:recover": 5, "4:recover": 5},
            {"recover": 90, "4:recover": 5},
            {"9:recover": 1},
        ]),
        (RULEBOOKS / "skirmish_terrain.rules", ["spacesuit"], {}, 3, [
            {"leak_damage": 4, "2:leak_damage": [1, 2], "3:leak_damage": 12},
            {"leak_damage": 4, "2:leak_damage": 3, "3:leak_damage": [1]},
        ]),
        (ROUNDS, ["burning"], {}, 4, [
            {"douse": 3, "2:douse": 2},
            {"douse": 3, "burn": 2, "2:burn": 3},
            {"douse": 3, "burn": 2, "2:douse": 1, "2:burn": [4, 4], "3:douse": [5], "3:burn": 7},
        ]),
    ]
    for path, names, given, rounds, told in cases:
        situations = [
            {"names": names, "given": given, "rng": str(seed), "rolled": None, "rounds": rounds} for seed in range(40)
        ] + [{"names": names, "given": given, "rng": None, "rolled": rolled, "rounds": rounds} for rolled in told]
        count, mismatches = _compare(path, package, situations, tmp_path)
        assert mismatches == [] and count == len(situations)
