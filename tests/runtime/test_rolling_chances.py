"""Seeded rolls come up as often as the exact chances say: chi-square at a fixed seed.

The rolls tried: every roll of the dice fixture books (tests/fixtures/dice/*.rules: the idioms of
published games, the OpenD6 wild die, RISK), of the gallery (tests/fixtures/mechanics/*.rules:
d20, 2d6 bands, pools, Fate, OpenD6, Year Zero, Blades, roll and keep, Savage Worlds, Cortex,
PbtA, ...) and of tests/fixtures/rolling/forms.rules (one roll of every dice form) at their
defaults; and, of the bundled rulebooks' rolls at their defaults, one per kind of dice,
comparison and tiers (percentile rolls with tiers, resistance rolls, 2d6 and 3d6 checks, ...).
Each is rolled through the public API (`resolve(rule, rng=stream)`, one `Xoshiro128` stream
per roll) and what it came to is counted against its exact chances: its totals (a roll without a
target), its number of successes (a count), else its outcomes (the tier, success or failure, win
/ tie / lose).  The slow test rolls each roll of the gallery 100,000 times and the others 20,000; the fast one
each 300.
"""

from __future__ import annotations

import importlib
import math
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from dsl.runtime import Xoshiro128
from tests.conftest import FIGURES, ROOT, module_for

DICE = ROOT / "tests" / "fixtures" / "dice"
MECHANICS = ROOT / "tests" / "fixtures" / "mechanics"
FORMS = ROOT / "tests" / "fixtures" / "rolling" / "forms.rules"
BUNDLED = ("skirmish_terrain", "spot_rules_a_to_e", "spot_rules_e_to_z", "zone_combat", "mecha_tables", "terrain_cards")
SEED = 20261127
LEAST_P = 1e-4
"""A roll fails the test when its chi-square p-value is below this (the seed is fixed: a pass
stays a pass)."""


def _fixture_rolls() -> Iterator[tuple[str, ModuleType, str, str]]:
    for path in [*sorted(DICE.glob("*.rules")), *sorted(MECHANICS.glob("*.rules")), FORMS]:
        module = module_for(Path(path))
        for rule in module.RULES:
            for roll in module.resolve(rule).rolls:
                if roll.automatic is None:
                    yield f"{path.stem}:{rule}.{roll.name}", module, rule, roll.name


def _bundled_rolls() -> Iterator[tuple[str, ModuleType, str, str]]:
    seen: set[tuple[object, ...]] = set()
    for name in BUNDLED:
        module = importlib.import_module(f"generated.{name}")
        for rule in module.RULES:
            try:
                rolls = module.resolve(rule).rolls
            except Exception:  # a table looked up by inputs without defaults
                continue
            for roll in rolls:
                kind = (roll.dice, roll.kind, roll.comparison, tuple(t.name for t in roll.spec.tiers))
                if roll.automatic is None and kind not in seen:
                    seen.add(kind)
                    yield f"{name}:{rule}.{roll.name}", module, rule, roll.name


ROLLS = [*_fixture_rolls(), *_bundled_rolls()]


def _single(module: ModuleType, rule: str, name: str) -> Any:
    return next(r for r in module.resolve(rule).rolls if r.name == name)


def _expected(roll: Any) -> tuple[dict[object, Fraction], Any]:
    """The exact chance of each result, and how to read a result from what a roll came to."""
    if roll.totals:
        return dict(roll.totals), lambda made: made.total
    if roll.successes:
        return dict(roll.successes), lambda made: made.total
    tiers = [t.name for t in roll.spec.tiers]
    if tiers:
        chances: dict[object, Fraction] = {t: roll.outcomes[t] for t in tiers}
        rest = 1 - sum(chances.values(), Fraction(0))
        if rest:
            chances["none"] = rest
        return chances, lambda made: made.outcomes[0] if made.outcomes and made.outcomes[0] in tiers else "none"
    return dict(roll.outcomes), lambda made: made.outcome


def chi_square_p(observed: Counter[object], expected: dict[object, Fraction], n: int) -> float:
    """The p-value of Pearson's chi-square, results expected fewer than 5 times pooled."""
    bins: list[tuple[float, int]] = []
    pooled_e, pooled_o = 0.0, 0
    for key, chance in sorted(expected.items(), key=lambda item: str(item[0])):
        e = float(chance) * n
        if e < 5:
            pooled_e += e
            pooled_o += observed.get(key, 0)
        else:
            bins.append((e, observed.get(key, 0)))
    if pooled_e > 0:
        bins.append((pooled_e, pooled_o))
    unexpected = sum(c for k, c in observed.items() if k not in expected)
    assert unexpected == 0, f"results with no chance at all: {[k for k in observed if k not in expected]}"
    if len(bins) < 2:
        return 1.0
    statistic = sum((o - e) ** 2 / e for e, o in bins)
    return _upper_gamma(len(bins) - 1, statistic)


def _upper_gamma(freedom: int, statistic: float) -> float:
    """P(chi-square with `freedom` degrees > statistic): the regularized upper incomplete gamma
    Q(k/2, x/2), by its series below a + 1 and its continued fraction above (Numerical Recipes)."""
    a, x = freedom / 2, statistic / 2
    if x <= 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1 / a
        k = a
        for _ in range(10_000):
            k += 1
            term *= x / k
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return 1 - total * math.exp(log_front)
    b = x + 1 - a
    c = 1 / 1e-300
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(log_front) * h


def _rolled_p(module: ModuleType, rule: str, name: str, n: int) -> float:
    expected, read = _expected(_single(module, rule, name))
    stream = Xoshiro128(SEED)
    observed: Counter[object] = Counter()
    for _ in range(n):
        made = next(r for r in module.resolve(rule, rng=stream).rolls if r.name == name).rolled
        observed[read(made)] += 1
    return chi_square_p(observed, expected, n)


def test_the_chi_square_helper_tells_a_fair_die_from_a_loaded_one() -> None:
    fair = {face: Fraction(1, 6) for face in range(1, 7)}
    assert chi_square_p(Counter({1: 100, 2: 100, 3: 100, 4: 100, 5: 100, 6: 100}), fair, 600) > 0.99
    assert chi_square_p(Counter({1: 150, 2: 90, 3: 90, 4: 90, 5: 90, 6: 90}), fair, 600) < 1e-4
    assert abs(_upper_gamma(1, 3.841) - 0.05) < 1e-3 and abs(_upper_gamma(10, 18.307) - 0.05) < 1e-3


def test_the_set_covers_every_dice_form() -> None:
    """Every form of the dice algebra is among the rolls counted (forms.rules has one of each)."""
    dice = " ".join(_single(m, rule, name).dice for _, m, rule, name in ROLLS)
    for form in ("exploding", "at most", "highest", "lowest", "as wild", "max(", "showing", "rerolling", "dF", "by pairs", " vs ", "round up", "cancelling", "as trait_die", "ignoring", "largest die left by"):
        assert form in dice, form
    assert len(ROLLS) >= 40


@pytest.mark.parametrize(("label", "module", "rule", "name"), ROLLS, ids=[r[0] for r in ROLLS])
def test_seeded_rolls_follow_the_exact_chances_300_each(label: str, module: ModuleType, rule: str, name: str) -> None:
    """A plain `pytest` rolls each 300 times (a roll gone wrong as a whole shows at once); CI,
    below, 20,000 or 100,000 times."""
    p = _rolled_p(module, rule, name, 300)
    assert p > LEAST_P, f"{label}: chi-square p = {p:.2e} over 300 seeded rolls"


CHUNKS = 6
"""The slow test's rolls in so many parts, which pytest-xdist's workers take in parallel."""

GALLERY_TIMES = 100_000
"""Seeded rolls of each roll of the gallery (tests/fixtures/mechanics) in CI."""
OTHER_TIMES = 20_000
"""Seeded rolls of each other roll (the dice fixtures, forms.rules, the bundled books' kinds)."""
GALLERY = {path.stem for path in MECHANICS.glob("*.rules")}


def _times(label: str) -> int:
    return GALLERY_TIMES if label.partition(":")[0] in GALLERY else OTHER_TIMES


@pytest.mark.slow
@pytest.mark.parametrize("part", range(CHUNKS))
def test_seeded_rolls_follow_the_exact_chances_100000_each(part: int) -> None:
    """100,000 rolls of every roll of the gallery, 20,000 of every other roll of the set (one part
    of it); the smallest p-value of each part goes to the run's figures."""
    chosen = ROLLS[part::CHUNKS]
    results = [(label, _rolled_p(module, rule, name, _times(label))) for label, module, rule, name in chosen]
    bad = [(label, p) for label, p in results if p <= LEAST_P]
    worst = min(results, key=lambda item: item[1])
    gallery = sum(1 for label, _ in results if _times(label) == GALLERY_TIMES)
    FIGURES.append(
        f"rolling, part {part + 1} of {CHUNKS}: {len(results)} of {len(ROLLS)} rolls, {gallery} of the gallery x"
        f" {GALLERY_TIMES:,} seeded rolls each, the rest x {OTHER_TIMES:,}; chi-square; smallest p = {worst[1]:.3g}"
        f" ({worst[0]})"
    )
    assert not bad, bad
