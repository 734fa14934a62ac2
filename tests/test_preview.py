"""The preview page of `rulecraft watch --serve`, driven in a real browser as a designer uses it.

Debian's chromium, driven by playwright: load the page, pick a rule, set inputs with the widgets,
read the chance shown and compare it with the resolver's exact value; then edit the rulebook on
disk and see the page change, break it and see the diagnostics (and the last good state kept),
fix it again.  Without chromium (CI installs it: see .ci/run) the test is skipped, saying why.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from dsl.report import percent
from tests.conftest import ROOT, module_from_text
from tests.watching import Watch, save

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = "RULECRAFT_SCREENSHOTS"
"""Set to a directory to keep screenshots of the page at each step (to look at them)."""

pytest.importorskip("watchfiles", reason="`rulecraft watch` needs the `workbench` extra (pip install -e '.[test]')")
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="the browser test needs playwright (pip install -e '.[test]')"
)
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason=f"no {CHROMIUM}: install Debian's chromium (apt-get install chromium) to test the page",
)

MARSH = ROOT / "tests" / "fixtures" / "workbench" / "marsh.rules"
TEXT = MARSH.read_text(encoding="utf-8").replace(
    '"Missile weapons are fired from the bank."', '"<b>Missile</b> weapons are fired from the bank."'
)
EDITED = TEXT.replace('DEX -2 in footing "deep water"', 'DEX -4 in footing "deep water"').replace(
    "3d6 <= STR", "3d6 <= STR + 1"
)
TIMEOUT = 30_000
"""Milliseconds to wait for the page to show something (a rebuild takes about a second)."""


def _chance(text: str, rule: str, roll: str, **inputs: object) -> str:
    """The chance of `roll` as the page must show it, from the resolver compiled from `text`."""
    p: Fraction = module_from_text(text).resolve(rule, **inputs).roll(roll).probability
    exact = f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator)
    return f"{exact} ({percent(p)})"


@pytest.fixture
def page(tmp_path: Path) -> Iterator[tuple[Any, Path, Watch]]:
    book = tmp_path / "marsh.rules"
    save(book, TEXT)
    watch = Watch(tmp_path, book.name, "-o", "out", "--serve", "--port", "0")
    url = watch.line(r"serving the preview at (http://127\.0\.0\.1:\d+/)").group(1)
    errors: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        try:
            tab = browser.new_page(viewport={"width": 1400, "height": 900})
            tab.on("pageerror", lambda error: errors.append(str(error)))
            tab.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
            tab.set_default_timeout(TIMEOUT)
            tab.goto(url)
            yield tab, book, watch
        finally:
            browser.close()
            assert watch.stop() == 0
    assert errors == []


def _shot(tab: Any, name: str) -> None:
    folder = os.environ.get(SCREENSHOTS)
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(Path(folder) / f"{name}.png"))


def test_the_playground_shows_the_resolvers_chances_and_follows_the_file(page: tuple[Any, Path, Watch]) -> None:
    t, book, _ = page
    expect = sync_api.expect
    expect(t.locator("#book-title")).to_have_text("Marsh Terrain")
    expect(t.locator("#status")).to_contain_text("1 example passed, 0 failed")

    # pick the bog alone
    t.locator('[data-entry="soft_ground"]').uncheck()
    t.locator('[data-entry="bog"]').check()
    sink = t.locator('[data-roll="sink"] .chance.main')
    expect(sink).to_have_text(_chance(TEXT, "bog", "sink"))

    # widgets from the types: a number for STR (with a slider), a checkbox, a select
    assert t.locator("#in-STR").get_attribute("min") == "3"
    assert t.locator("#in-STR").get_attribute("max") == "18"
    assert t.locator("#in-STR-slider").get_attribute("type") == "range"
    t.locator("#in-STR").fill("12")
    expect(sink).to_have_text(_chance(TEXT, "bog", "sink", STR=12))
    assert sink.locator(".exact").inner_text() == "20/27"  # 160 of 216 ways
    expect(t.locator("#in-STR-slider")).to_have_value("12")
    t.locator("#in-swimmer").check()
    expect(sink).to_have_text(_chance(TEXT, "bog", "sink", STR=12, swimmer=True))  # 2d6 <= 12: always
    t.locator("#in-swimmer").uncheck()
    assert sorted(t.locator("#in-water option").all_inner_texts()) == ["ankle", "knee", "waist"]
    t.locator("#in-water").select_option("knee")
    expect(t.locator('[data-stat="DEX"] .value')).to_have_text("8")
    t.locator("#in-weapon").select_option("missile")
    note = t.locator(".notes li").first
    expect(note).to_contain_text("<b>Missile</b> weapons are fired from the bank.")
    assert t.locator(".notes b").count() == 0
    expect(t.frame_locator("#card-frame").locator("h2").first).to_have_text("Bog")
    _shot(t, "1-playground")

    # the designer edits the rulebook: a modifier and the roll change; the page follows
    save(book, EDITED)
    expected = _chance(EDITED, "bog", "sink", STR=12, water="knee", weapon="missile")
    expect(sink).to_have_text(expected)
    assert expected != _chance(TEXT, "bog", "sink", STR=12, water="knee", weapon="missile")
    expect(t.locator('[data-stat="DEX"] .value')).to_have_text("6")
    expect(t.locator("#in-STR")).to_have_value("12")
    expect(t.frame_locator("#card-frame").locator("body")).to_contain_text("DEX \u22124")
    _shot(t, "2-edited")

    # a typo: the diagnostics show; the playground keeps the last good build
    save(book, EDITED.replace("3d6 <= STR + 1", "3d6 <= SRT + 1"))
    problems = t.locator("#problems")
    expect(problems).to_be_visible()
    expect(problems.locator('[data-code="E101"]')).to_contain_text("unknown name `SRT`")
    expect(problems).to_contain_text("hint: did you mean `STR`?")
    expect(t.locator("#status")).to_contain_text("1 error, 0 warnings — showing the last good build")
    t.locator("#in-STR").fill("13")
    expect(sink).to_have_text(_chance(EDITED, "bog", "sink", STR=13, water="knee", weapon="missile"))
    _shot(t, "3-broken")

    save(book, TEXT)
    expect(problems.locator('[data-code="E101"]')).to_have_count(0)
    expect(sink).to_have_text(_chance(TEXT, "bog", "sink", STR=13, water="knee", weapon="missile"))

    # every card of the book, one tab away
    t.locator("#tab-cards").click()
    cards = t.frame_locator("#deck-frame").locator("article.card h2")
    expect(cards).to_have_text(["Marsh Terrain", "Reading these cards", "Index A\u2013Z", "Soft ground", "Bog", "Mishap"])
    assert t.locator("#play").is_hidden()
