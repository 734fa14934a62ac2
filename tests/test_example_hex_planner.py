"""The example app examples/hex_planner/: a browser page over the JavaScript module of the bundled
rulebook mecha_tables, driven in Debian's chromium with playwright as a user drives it.

The page is served as static files (its index.html and app.js, and the package `rulecraft build
--target js` writes beside them, as its README says); the test paints terrain on hexes, picks a
path by clicking hexes, and reads the costs and chances the page shows: each must equal what the
Python resolver of the same rulebook gives for the same hex (rules `terrain_movement` and
`skidding`), and the totals the exact sum and product of them.  Without chromium or playwright
(CI installs both: see .ci/run) the test is skipped, saying why.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from tests.browser import CHROMIUM, LAUNCH_ARGS, in_a_browser, sync_api
from tests.conftest import ROOT, RULEBOOKS, module_for, run_cli

APP = ROOT / "examples" / "hex_planner"
UNIT = {"unit": "wheel", "vehicle_size": 10, "speed": "half_top_speed", "pilot_skill": 3}
PAINT = [
    ("1,1", "terrain", "road"),
    ("2,1", "terrain", "mud"),
    ("2,1", "surface", "ice"),
    ("3,2", "forest", "dense"),
    ("3,3", "surface", "snow"),
    ("3,4", "terrain", "sand"),
    ("2,4", "terrain", "swamp"),
]
PATH = ["0,1", "1,1", "2,1", "3,2", "3,3", "3,4", "2,4"]
TURNS = [False, True, False, True, True, False]
"""Whether the path bends in each hex it enters (odd rows are shifted right): east, east, down
right, down right, down left, west."""

pytestmark = [pytest.mark.slow, in_a_browser]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def site(tmp_path: Path) -> Iterator[str]:
    """The app served over HTTP as its README serves it: its files and the built package."""
    root = tmp_path / "hex_planner"
    root.mkdir()
    for name in ("index.html", "app.js"):
        shutil.copy(APP / name, root / name)
    built = run_cli("build", "--target", "js", "-o", str(root / "rules"), "mecha_tables")
    assert built.exit_code == 0, built.output
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        thread.join()


def _text(json_value: Any) -> str:
    """A number of `to_dict()` as the page writes it: `31/2`, `6`, `X`."""
    if isinstance(json_value, dict):
        return str(json_value.get("special") or json_value["fraction"])
    return str(json_value)


def _expected(unit: dict[str, Any], hexes: dict[str, dict[str, str]]) -> tuple[list[list[str]], str, str]:
    """The rows, the total cost and the chance of no skid, from the Python resolver."""
    module = module_for(RULEBOOKS / "mecha_tables.rules")
    rows = []
    total = Fraction(0)
    blocked = None
    no_skid = Fraction(1)
    for key, turning in zip(PATH[1:], TURNS, strict=True):
        data = module.resolve(["terrain_movement", "skidding"], **unit, **hexes[key], turning=turning).to_dict()
        cost = data["derived"]["cost"]
        if isinstance(cost, dict) and "special" in cost:
            blocked = "X" if blocked == "X" else cost["special"]
        else:
            total += Fraction(_text(cost))
        skids = [roll for roll in data["rolls"] if roll["name"] == "skid"]
        skid = ""
        if skids:
            chance = Fraction(skids[0]["probability"]["fraction"])
            no_skid *= chance
            skid = str(chance)
        rows.append([_text(cost), blocked or str(total), "yes" if turning else "", skid])
    return rows, blocked or str(total), str(no_skid)


def _shown(tab: Any) -> list[list[str]]:
    found = []
    for row in tab.query_selector_all("#steps tbody tr"):
        cells = [row.query_selector(f"td.{name}").inner_text().strip() for name in ("cost", "total", "turning", "skid")]
        cells[3] = cells[3].split(" (")[0]  # the exact chance, without its percentage
        found.append(cells)
    return found


def test_the_hex_planner_shows_the_python_resolvers_numbers(site: str) -> None:
    errors: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        try:
            tab = browser.new_page(viewport={"width": 1300, "height": 900})
            tab.on("pageerror", lambda error: errors.append(str(error)))
            tab.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
            tab.set_default_timeout(15_000)
            tab.goto(site)
            for name, value in UNIT.items():
                if name == "vehicle_size":
                    tab.fill("#vehicle_size", str(value))
                    tab.dispatch_event("#vehicle_size", "change")
                else:
                    tab.select_option(f"#{name}", str(value))
            hexes = {key: {"terrain": "clear", "forest": "no_forest", "surface": "bare"} for key in PATH}
            for key, field, member in PAINT:
                tab.select_option("#brush", f"{field}:{member}")
                tab.click(f"#hex-{key.replace(',', '-')}")
                hexes[key][field] = member
            tab.select_option("#brush", "path")
            for key in PATH:
                tab.click(f"#hex-{key.replace(',', '-')}")
            tab.wait_for_selector(f"body[data-steps='{len(PATH) - 1}']")

            rows, total, no_skid = _expected(UNIT, hexes)
            assert sum(bool(row[3]) for row in rows) == 3  # the bends on mud under ice, snow and sand
            assert _shown(tab) == rows
            assert tab.inner_text("#total-cost") == total
            assert tab.inner_text("#no-skid") == no_skid

            # a hovercraft: no skid rolls, and dense forest is impassable (X) for it
            tab.select_option("#unit", "gev")
            rows, total, no_skid = _expected({**UNIT, "unit": "gev"}, hexes)
            assert total == "X" and no_skid == "1"
            assert _shown(tab) == rows
            assert (tab.inner_text("#total-cost"), tab.inner_text("#no-skid")) == (total, no_skid)

            # a hex that does not touch the path's end is refused, saying why; the path stays
            tab.click("#hex-7-0")
            assert "does not touch" in tab.inner_text("#message")
            assert len(_shown(tab)) == len(PATH) - 1
        finally:
            browser.close()
    assert errors == []
