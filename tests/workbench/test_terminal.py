"""A terminal never receives a control character from rulecraft's text output, and JSON output
stays exact.  resolve's text output passed NUL, BEL and DEL through (the reliability review);
ESC, the C1 controls and the bidirectional overrides are as bad."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from dsl.cli import main
from dsl.report import visible

CONTROL = [chr(c) for c in (*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))] + [
    "\u061c",
    "\u200e",
    "\u200f",
    "\u2028",
    "\u2029",
    *map(chr, range(0x202A, 0x202F)),
    *map(chr, range(0x2066, 0x206A)),
]


def _run(*args: str) -> Result:
    try:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        runner = CliRunner()
    result = runner.invoke(main, list(args))
    assert "Traceback" not in result.stdout + result.stderr
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    return result


HOSTILE = "bell\x07 nul\x00 esc\x1b[2J del\x7f csi\x9b2J bidi\u202eevil\u202c sep\u2028 end"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hostile") / "hostile.rules"
    path.write_text(
        f'''rulebook hostile "Hostile\x1b[31m":
    source "s"

stat DEX "Dex\x07": int 0..20 = 10
stat motto "Motto": text = "calm"
input said "Said": text

rule r "R\x07ule" cites "1\x00":
    DEX -1 "{HOSTILE}"
    roll fall "Fall\x1b[5m": 3d6 <= DEX
        on failure: "{HOSTILE}"
    cannot "{HOSTILE}"
    note "{HOSTILE}"
    erratum "{HOSTILE}": "{HOSTILE}"
    when said == "x": motto = "{HOSTILE}"

table t "T\x7f" roll d6:
    1..3: "{HOSTILE}"
    4..6: "b\x00"
''',
        encoding="utf-8",
    )
    return path


def test_resolve_shows_control_characters_escaped(hostile: Path) -> None:
    """resolve's text output passed NUL, BEL and DEL (and ESC, C1 controls, bidi overrides)
    through to the terminal: they could ring it, clear it, recolour or reorder it."""
    result = _run("resolve", str(hostile), "r", "t", "--set", "said=x", "--set", "roll=2")
    assert result.exit_code == 0, result.stderr
    assert not [c for c in CONTROL if c in result.stdout]
    assert "bell\\x07 nul\\x00 esc\\x1b[2J del\\x7f csi\\x9b2J bidi\\u202eevil\\u202c sep\\u2028 end" in result.stdout
    assert "motto  bell\\x07" in result.stdout


@pytest.mark.parametrize("command", [["list"], ["describe", "r"]])
def test_list_and_describe_show_control_characters_escaped(hostile: Path, command: list[str]) -> None:
    result = _run(command[0], str(hostile), *command[1:])
    assert result.exit_code == 0, result.stderr
    assert not [c for c in CONTROL if c in result.stdout]
    assert "\\x07" in result.stdout


def test_resolve_json_stays_exact(hostile: Path) -> None:
    result = _run("resolve", str(hostile), "r", "--set", "said=x", "--json")
    assert not [c for c in CONTROL if c in result.stdout]
    data = json.loads(result.stdout)
    assert data["notes"][0]["text"] == HOSTILE
    assert data["stats"]["motto"] == {"start": "calm", "final": HOSTILE}


def _texts(data: object) -> list[str]:
    """Every string in parsed JSON."""
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [text for key, value in data.items() for text in (*_texts(key), *_texts(value))]
    if isinstance(data, list):
        return [text for item in data for text in _texts(item)]
    return []


def test_export_stays_exact_and_shows_no_control_character(hostile: Path, tmp_path: Path) -> None:
    printed = _run("export", str(hostile))
    assert printed.exit_code == 0, printed.stderr
    assert not [c for c in CONTROL if c in printed.stdout]
    assert any(HOSTILE in text for text in _texts(json.loads(printed.stdout)))
    written = _run("export", str(hostile), "-o", str(tmp_path / "hostile.json"))
    assert written.exit_code == 0, written.stderr
    assert (tmp_path / "hostile.json").read_text(encoding="utf-8") == printed.stdout


@pytest.mark.parametrize("as_json", [False, True])
def test_diff_shows_no_control_character(hostile: Path, tmp_path: Path, as_json: bool) -> None:
    edited = tmp_path / "hostile.rules"
    text = hostile.read_text(encoding="utf-8")
    edited.write_text(text.replace("DEX -1", "DEX -2").replace('    note "', '    note "now '), encoding="utf-8")
    result = _run("diff", str(hostile), str(edited), *(["--json"] if as_json else []))
    assert result.exit_code == 0, result.stderr
    assert not [c for c in CONTROL if c in result.stdout]
    if as_json:
        assert any(HOSTILE in text for text in _texts(json.loads(result.stdout)))
    else:
        assert "\\x07" in result.stdout


def test_visible_keeps_text_as_it_reads() -> None:
    assert visible("Ankle deep is 10 cm; knee-deep — 50 cm. ½ MOV ≤ 3, שלום") == (
        "Ankle deep is 10 cm; knee-deep — 50 cm. ½ MOV ≤ 3, שלום"
    )
    assert visible("one\ntwo\tthree") == "one\\ntwo\tthree"
    assert visible("one\ntwo", "    ") == "one\n    two"
