"""`rulecraft chart`: a chart of every bundled rulebook in each format, exact values in the web
page, the same bytes for the same chart, and the mistakes a designer makes."""

from __future__ import annotations

import functools
import html
import re
import shlex
import struct
from pathlib import Path

import pytest

from dsl.balance import Edition, Sweep, load_edition, prepare
from dsl.balance.chart import gather, measure_for, rules_calling
from dsl.balance.page import page
from dsl.balance.plots import render
from tests.conftest import ROOT, run_cli

pytest.importorskip("matplotlib")
pytestmark = pytest.mark.usefixtures("at_root")

CHARTS = {
    "skirmish_terrain": "broken_ground --vary DEX=3..18 --vary acrobatics=all --set moved=6",
    "terrain_cards": "lof_roll --roll hit --vary attribute=6..20 --vary lof_zone=clear_of,through",
    "spot_rules_a_to_e": "skill_roll --vary skill=0..100/10 --vary difficult=all --outcome critical",
    "spot_rules_e_to_z": "--vary rule=all --roll hit --set skill=60",
    "mecha_tables": "skidding --set turning=yes --set terrain=mud --vary speed=all --vary unit=wheel,track,walker",
    "zone_combat": "zone_move --vary pace=-2..12 --vary running=all --y running",
}
"""One chart per bundled rulebook: lines, bars (over the rules, and over a choice), a heatmap."""

DEFAULT_CHARTS = ("spot_rules_e_to_z", "zone_combat")


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.parametrize(
    "book",
    # bars over the rules and a heatmap by default; every kind of chart, one a book, in the slow tier
    [book if book in DEFAULT_CHARTS else pytest.param(book, marks=pytest.mark.slow) for book in sorted(CHARTS)],
)
def test_every_bundled_book_charts_in_every_format(book: str, tmp_path: Path) -> None:
    args = shlex.split(CHARTS[book])
    out = tmp_path / f"{book}.png"
    result = run_cli("chart", book, *args, "-o", str(out))
    assert result.exit_code == 0, result.output
    width, height = png_size(out.read_bytes())
    assert width >= 800 and height >= 400 and out.stat().st_size > 10_000
    # the same chart drawn in-process, as SVG and as a web page
    planned = prepare_args(book, args)
    roll, outcome = _measure_options(args)
    measure = measure_for(planned, roll, outcome)
    if roll is not None and any(axis.kind == "rule" for axis in planned.axes):
        planned = prepare_args(book, args, only=rules_calling(planned, roll))
    data = gather(planned, measure, y=args[args.index("--y") + 1] if "--y" in args else None, jobs=1)
    svg = render(data, "svg").decode("utf-8")
    assert svg.startswith("<?xml") and "<svg" in svg and len(svg) > 10_000
    web = page(data)
    assert "<script src" not in web and "https://" not in web
    assert "http://" not in web.replace("http://www.w3.org", "")
    # every exact value the chart draws is on the page, as a fraction
    drawn = {row[measure.exact] for row in planned.rows(jobs=1)} - {None}
    assert drawn
    for value in drawn:
        text = f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value.numerator)
        assert f">{text} (" in web and f": {text} (" in web, text
    assert web.count("<title>") == len(data.hover) + 1


def _rules_and_options(args: list[str]) -> tuple[list[str], dict[str, list[tuple[str, str]]]]:
    """The RULEs, --vary and --set of a chart's arguments, for the same sweep in Python."""
    rules = args[: next((i for i, a in enumerate(args) if a.startswith("--")), len(args))]
    pairs = {
        option: [_pair(args[i + 1]) for i, a in enumerate(args) if a == f"--{option}"] for option in ("vary", "set")
    }
    return rules, {"vary": pairs["vary"], "given": pairs["set"]}


def _pair(text: str) -> tuple[str, str]:
    name, _, value = text.partition("=")
    return name, value


def _measure_options(args: list[str]) -> tuple[str | None, str | None]:
    roll = args[args.index("--roll") + 1] if "--roll" in args else None
    outcome = args[args.index("--outcome") + 1] if "--outcome" in args else None
    return roll, outcome


def prepare_args(book: str, args: list[str], only: list[str] | None = None) -> Sweep:
    rules, options = _rules_and_options(args)
    vary = [(name, ",".join(only) if name == "rule" and only else raw) for name, raw in options["vary"]]
    return prepare(_edition(book), rules, vary=vary, given=options["given"])


@functools.cache
def _edition(book: str) -> Edition:
    return load_edition(book)


def test_the_same_chart_gives_the_same_bytes(tmp_path: Path) -> None:
    args = ["chart", "skirmish_terrain", "broken_ground", "--vary", "DEX=3..18", "--set", "moved=6"]
    first, second = tmp_path / "a.png", tmp_path / "b.png"
    assert run_cli(*args, "-o", str(first)).exit_code == 0
    assert run_cli(*args, "-o", str(second)).exit_code == 0
    assert first.read_bytes() == second.read_bytes()
    planned = prepare_args("skirmish_terrain", args[2:])
    data = gather(planned, measure_for(planned), jobs=1)
    again = gather(prepare_args("skirmish_terrain", args[2:]), measure_for(planned), jobs=1)
    assert render(data, "svg") == render(again, "svg")
    assert b"<dc:date>" not in render(data, "svg")
    assert page(data) == page(again)


def test_every_point_of_the_page_has_its_exact_values(tmp_path: Path) -> None:
    out = tmp_path / "fall.html"
    result = run_cli(
        "chart", "skirmish_terrain", "broken_ground", "--vary", "DEX=9..11", "--set", "moved=6", "-o", str(out)
    )
    assert result.exit_code == 0, result.output
    page = html.unescape(out.read_text(encoding="utf-8"))
    titles = re.findall(r'<g id="rc-pt-\d+"><title>(.*?)</title>', page, re.DOTALL)
    # DEX 9, 10, 11 less 2 for bad footing: 3d6 <= 7, 8, 9 = 35/216, 56/216 = 7/27, 81/216 = 3/8
    assert titles == [
        "Dexterity: 9\nAvoid falling: 35/216 (16.20%)",
        "Dexterity: 10\nAvoid falling: 7/27 (25.93%)",
        "Dexterity: 11\nAvoid falling: 3/8 (37.50%)",
    ]
    assert "<td>Dexterity</td>" not in page and "<th>Dexterity</th>" in page


def test_an_erratum_is_drawn_against_the_book(tmp_path: Path) -> None:
    errata = tmp_path / "errata.rules"
    text = (ROOT / "rulebooks" / "skirmish_terrain.rules").read_text(encoding="utf-8")
    errata.write_text(text.replace('DEX -2 "bad footing"', 'DEX -3 "bad footing"'), encoding="utf-8")
    out = tmp_path / "errata.html"
    result = run_cli(
        "chart",
        str(errata),
        "broken_ground",
        "--vary",
        "DEX=10..10",
        "--set",
        "moved=6",
        "--against",
        "skirmish_terrain",
        "-o",
        str(out),
    )
    assert result.exit_code == 0, result.output
    page = html.unescape(out.read_text(encoding="utf-8"))
    # DEX 10: 3d6 <= 7 in the erratum (35/216), <= 8 in the book (56/216): -21/216 = -7/72
    assert "Avoid falling, errata: 35/216 (16.20%)" in page
    assert "Avoid falling, skirmish_terrain: 7/27 (25.93%)" in page
    assert "difference: -7/72 (-9.72 points)" in page


def test_over_the_rules_only_those_calling_for_the_roll_are_drawn() -> None:
    planned = prepare("skirmish_terrain", vary={"rule": "terrains"}, given={"DEX": 10, "moved": 6})
    data = gather(planned, measure_for(planned, "fall"))
    assert data.kind == "bar"
    result = run_cli(
        "chart",
        "skirmish_terrain",
        "--vary",
        "rule=terrains",
        "--set",
        "DEX=10",
        "--set",
        "moved=6",
        "-o",
        "/dev/null",
        "--format",
        "svg",
    )
    assert result.exit_code == 0, result.output
    assert "left out, as they never call for the roll `fall`: wall_cover, wall_crossing, pits" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["broken_ground", "--set", "DEX=9"], "a chart needs at least one --vary"),
        (["broken_ground", "--vary", "DEX=3..5", "--x", "MOV"], "--x MOV: not a varied input (varied: DEX)"),
        (
            ["broken_ground", "--vary", "DEX=3..5", "--vary", "MOV=1..2", "--vary", "acrobatics=all", "--y", "MOV"],
            "a heatmap shows two varied inputs; --set the others (acrobatics)",
        ),
        (["broken_ground", "--vary", "DEX=3..5", "--vary", "MOV=1..13"], "13 lines (13) are more than a chart"),
        (["broken_ground", "--vary", "DEX=3..5", "--roll", "fal"], "no roll `fal` in the rules swept (rolls: fall)"),
        (
            ["darkness", "--vary", "DEX=3..5"],
            "say which roll to chart with --roll NAME (the rules swept call for: fall, hit)",
        ),
        (["broken_ground", "--vary", "DEX=3..5", "--outcome", "critical"], "the roll `fall` has no such outcome"),
        (["smoke", "--vary", "DEX=3..5", "--stat", "laser_damage"], "`laser_damage` is not a number"),
        (["broken_ground", "--vary", "DEX=3..5", "--stat", "STR"], "do not change or derive `STR`"),
    ],
)
def test_chart_mistakes_are_bad_usage(args: list[str], message: str, tmp_path: Path) -> None:
    result = run_cli("chart", "skirmish_terrain", *args, "-o", str(tmp_path / "x.png"))
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_an_unknown_suffix_is_bad_usage(tmp_path: Path) -> None:
    result = run_cli("chart", "skirmish_terrain", "ice", "--vary", "DEX=3..5", "-o", str(tmp_path / "x.gif"))
    assert result.exit_code == 2
    assert "add --format png, svg or html" in result.output


def test_the_readme_chart_is_what_its_command_draws(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Balance your rules", 1)[1].split("\n## ", 1)[0]
    (command,) = [line for line in section.splitlines() if line.startswith(".venv/bin/rulecraft chart ")]
    (image,) = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", section)
    args = shlex.split(command)[1:]
    at = args.index("-o")
    assert args[at + 1] == image, "the README shows the image its command writes"
    args[at + 1] = str(tmp_path / "chart.png")
    result = run_cli(*args)
    assert result.exit_code == 0, result.output
    assert png_size((tmp_path / "chart.png").read_bytes()) == png_size((ROOT / image).read_bytes())
