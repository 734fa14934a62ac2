"""Hostile and oversized input: every case ends in a diagnostic or a usage error, promptly.

Each test reproduces a report of a review: the input is generated small (a few thousand lines at
most), so the whole file runs in seconds.  What is checked is the outcome (a diagnostic, an exit
code, no traceback) and, for the costs that were quadratic, the count of operations, not the time.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import dsl.checks.contradictions as contradictions
import dsl.cli as cli
from dsl import compiler
from dsl.cli import main
from dsl.compiler import Compiled, compile_file, compile_text, generate

HEAD = """rulebook big "Big":
    source "generated"

stat MOV "Movement": int 0..30 = 10
stat STR "Strength": int 0..30 = 10
input a "A number": int 0..1000 = 0
"""


def _runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        return CliRunner()


def _run(*args: str, **env: str) -> Result:
    result = _runner().invoke(main, list(args), env=env or None)
    assert "Traceback" not in result.stdout + result.stderr
    return result


def _codes(compiled: Compiled) -> list[str]:
    return [d.code for d in compiled.diagnostics]


def _errors(compiled: Compiled) -> list[str]:
    return [f"{d.span.line}:{d.span.column} {d.code} {d.message}" for d in compiled.errors]


@pytest.fixture
def book(tmp_path: Path) -> Path:
    path = tmp_path / "ok.rules"
    path.write_text(HEAD + 'rule mud "Mud" cites "1":\n    MOV - 1\n    STR + a\n', encoding="utf-8")
    return path


# ---------------------------------------------------------------------- 1. contradictions


def test_many_terrains_with_one_minimum_are_checked_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """3,000 terrains that each say `MOV min 1`: no two can contradict, so no pair is looked at.
    (Comparing every pair took 13 s here, and a 5 MB rulebook never finished.)"""
    text = HEAD + "".join(f'terrain t{i} "T{i}" cites "1":\n    MOV min 1\n    STR + a\n' for i in range(3000))
    compiled = compile_text(text, "many.rules")
    assert compiled.ok and compiled.book is not None, compiled.render()[:2000]
    calls = {"value": 0, "guard": 0}
    value, guard = contradictions.constant_value, contradictions._guard

    def counted_value(*args: object) -> object:
        calls["value"] += 1
        return value(*args)  # type: ignore[arg-type]

    def counted_guard(*args: object) -> object:
        calls["guard"] += 1
        return guard(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(contradictions, "constant_value", counted_value)
    monkeypatch.setattr(contradictions, "_guard", counted_guard)
    contradictions.check_contradictions(compiled.book, compiler.Reporter())
    assert calls == {"value": 3000, "guard": 0}


def test_the_pairs_that_do_contradict_are_all_still_found() -> None:
    text = HEAD + (
        'terrain mud "Mud" cites "1":\n    MOV min 1\n'
        'terrain bog "Bog" cites "1":\n    MOV min 2\n'
        'terrain ice "Ice" cites "1":\n    MOV min 0\n'
        'rule stuck "Stuck" cites "1":\n    MOV max 1\n'
        'rule swap "Swap" cites "1":\n'
        "    when a > 1: STR = 1\n    when a > 2: STR = 1\n    when a > 3: STR = 2\n"
    )
    compiled = compile_text(text, "pairs.rules")
    found = sorted((d.code, d.message.split(" when ")[0]) for d in compiled.diagnostics if d.code in ("E503", "W504"))
    assert found == [
        ("E503", "`STR = 2` contradicts `STR = 1` (line 16)"),
        ("E503", "`STR = 2` contradicts `STR = 1` (line 17)"),
        ("W504", "`MOV max 1` contradicts `MOV min 2` (line 10)"),
    ]


# ---------------------------------------------------------------------- 2a. output paths


def test_build_into_an_existing_file_is_a_usage_error(book: Path, tmp_path: Path) -> None:
    target = tmp_path / "generated.txt"
    target.write_text("not a directory\n", encoding="utf-8")
    for args in (["build", str(book), "-o", str(target)], ["build", "--check", str(book), "-o", str(target)]):
        result = _run(*args)
        assert result.exit_code == 2, result.stderr
        assert f"cannot write to `{target}`: it is not a directory" in result.stderr
    assert target.read_text(encoding="utf-8") == "not a directory\n"


def test_build_below_a_file_is_a_usage_error(book: Path, tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("", encoding="utf-8")
    result = _run("build", str(book), "-o", str(target / "sub"))
    assert result.exit_code == 2
    assert f"cannot write to `{target / 'sub'}`: `{target}` is not a directory" in result.stderr


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc")
def test_build_where_no_directory_can_be_made_is_a_usage_error(book: Path) -> None:
    result = _run("build", str(book), "-o", "/proc/nope", "--no-cards")
    assert result.exit_code == 2
    assert "cannot write to `/proc/nope`" in result.stderr


def test_cards_into_an_existing_file_is_a_usage_error(book: Path, tmp_path: Path) -> None:
    target = tmp_path / "cards.pdf"
    target.write_bytes(b"%PDF")
    result = _run("cards", str(book), "-o", str(target))
    assert result.exit_code == 2
    assert f"cannot write to `{target}`: it is not a directory" in result.stderr


def test_a_failed_write_is_a_usage_error_naming_the_path(
    book: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> int:
        raise PermissionError(13, "Permission denied", str(tmp_path / "out" / "big.py"))

    monkeypatch.setattr(cli, "write_outputs", refuse)
    result = _run("build", str(book), "-o", str(tmp_path / "out"), "--no-cards")
    assert result.exit_code == 2
    assert f"cannot write to `{tmp_path / 'out'}` ({tmp_path / 'out' / 'big.py'}): Permission denied" in result.stderr


# ---------------------------------------------------------------------- 2b. deep nesting


def _sum(terms: int) -> str:
    return HEAD + f'rule r "R" cites "1":\n    MOV + ({" + ".join(["1"] * terms)})\n    STR + a\n'


def _ors(terms: int) -> str:
    condition = " or ".join(f"a == {i}" for i in range(terms))
    return HEAD + f'rule r "R" cites "1":\n    when {condition}:\n        MOV - 1\n    STR + 1\n'


def _nested(depth: int) -> str:
    lines = [HEAD + 'rule r "R" cites "1":\n    STR + 1\n']
    lines += ["    " * (i + 1) + f"when a > {i}:\n" for i in range(depth)]
    lines.append("    " * (depth + 1) + "MOV - 1\n")
    return "".join(lines)


@pytest.mark.parametrize(("text", "name"), [(_ors(400), "ors"), (_nested(300), "nested")])
def test_deep_but_reasonable_nesting_compiles(text: str, name: str) -> None:
    compiled = compile_text(text, f"{name}.rules")
    assert compiled.ok, compiled.render()[:2000]
    source = generate(compiled)
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # as an app that imports the module would have it
    try:
        compile(source, f"{name}.py", "exec")
    finally:
        sys.setrecursionlimit(previous)


def test_the_recursion_limit_is_restored() -> None:
    before = sys.getrecursionlimit()
    compile_text(_ors(400), "ors.rules")
    assert sys.getrecursionlimit() == before


def test_an_expression_nested_too_deeply_is_a_diagnostic() -> None:
    compiled = compile_text(_sum(5000), "sum.rules")
    assert _errors(compiled) == [
        "8:12 E001 this expression is nested too deeply to compile (5000 levels; the limit is 1000)"
    ]


def test_blocks_nested_too_deeply_are_a_diagnostic() -> None:
    compiled = compile_text(_nested(501), "nested.rules")
    assert _errors(compiled) == [
        f"{8 + 501}:{4 * 501 + 1} E001 this block is nested too deeply to compile (more than 500 blocks deep)"
    ]


def test_brackets_python_cannot_read_are_a_diagnostic() -> None:
    """Python reads at most 200 nested brackets: `check` says so, rather than `build` writing a
    module no app can import."""
    nested = "(1 - " * 250 + "1" + ")" * 250
    compiled = compile_text(HEAD + f'rule r "R" cites "1":\n    MOV + ({nested})\n    STR + a\n', "brackets.rules")
    assert [(d.code, d.span.line) for d in compiled.errors] == [("E001", 8)]
    assert "Python cannot read the code it becomes" in compiled.errors[0].message


def test_recursion_beyond_the_raised_limit_is_a_diagnostic(monkeypatch: pytest.MonkeyPatch) -> None:
    """What still exhausts the stack is reported where it was, not raised."""
    monkeypatch.setattr(compiler, "_RECURSION_LIMIT", 1000)  # not raised at all
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        compiled = compile_text(_ors(900), "ors.rules")
    finally:
        sys.setrecursionlimit(previous)
    assert compiled.book is None
    assert [(d.code, d.message, d.span.line) for d in compiled.errors] == [
        ("E001", "this expression is nested too deeply to compile", 8)
    ]


def test_a_deep_rulebook_never_shows_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "sum.rules"
    path.write_text(_sum(5000), encoding="utf-8")
    result = _run("check", str(path))
    assert result.exit_code == 1
    assert "error[E001]: this expression is nested too deeply to compile" in result.stderr


# ---------------------------------------------------------------------- 2c. long numbers


def test_a_number_of_5000_digits_is_a_diagnostic() -> None:
    text = HEAD + f'rule r "R" cites "1":\n    MOV + {"9" * 5000}\n    STR + a\n'
    compiled = compile_text(text, "long.rules")
    assert _errors(compiled) == ["8:11 E301 a number this long (5000 digits) is not a game value"]


def test_dice_with_a_5000_digit_count_are_a_diagnostic() -> None:
    text = HEAD + f'rule r "R" cites "1":\n    roll x "X": {"1" * 5000}d6 <= STR\n    MOV + a\n'
    compiled = compile_text(text, "long.rules")
    assert [(d.code, d.span.line) for d in compiled.errors] == [("E301", 8)]


def test_long_lines_are_shown_cut_around_the_mistake() -> None:
    text = HEAD + f'rule r "R" cites "1":\n    MOV + {"9" * 5000}\n    STR + a\n'
    rendered = compile_text(text, "long.rules").render()
    assert max(len(line) for line in rendered.splitlines()) < 200
    assert "    MOV + 999" in rendered and rendered.split("\n")[1].endswith("...")


# ---------------------------------------------------------------------- 2d. the last resort


def test_an_unexpected_exception_is_one_line_and_exit_1(book: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> object:
        raise ValueError("something inside\nbroke")

    monkeypatch.setattr(cli, "compile_file", broken)
    result = _run("check", str(book))
    assert result.exit_code == 1
    assert result.stderr == (
        "rulecraft: internal error: ValueError: something inside broke "
        "(this is a bug in rulecraft; please report it with the rulebook that caused it)\n"
    )


def test_rulecraft_debug_shows_the_exception(book: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> object:
        raise ValueError("broke")

    monkeypatch.setattr(cli, "compile_file", broken)
    result = _runner().invoke(main, ["check", str(book)], env={"RULECRAFT_DEBUG": "1"})
    assert isinstance(result.exception, ValueError)


def test_click_errors_and_exits_are_untouched(book: Path) -> None:
    assert _run("check", "--no-such-option").exit_code == 2
    assert _run("check", str(book)).exit_code == 0
    assert _run("--version").exit_code == 0


# ---------------------------------------------------------------------- 3. dice


@pytest.mark.parametrize("dice", ["50d1000", "d1000000", "1000d6", "11d1000"])
def test_dice_too_many_for_exact_odds_are_a_diagnostic(dice: str) -> None:
    text = HEAD + f'rule r "R" cites "1":\n    roll x "X": {dice} <= STR\n    MOV + a\n'
    compiled = compile_text(text, "dice.rules")
    assert [(d.code, d.span.line) for d in compiled.errors] == [("E303", 8)]
    assert "out of reach" in compiled.errors[0].message
    assert "at most 100 dice" in (compiled.errors[0].hint or "")


@pytest.mark.parametrize("dice", ["d100", "10d10", "4d6", "100d100", "d1000", "highest of 20d1000"])
def test_dice_within_reach_are_fine(dice: str) -> None:
    text = HEAD + f'rule r "R" cites "1":\n    roll x "X": {dice} <= STR\n    MOV + a\n'
    compiled = compile_text(text, "dice.rules")
    assert compiled.ok, compiled.render()


# ---------------------------------------------------------------------- 4. files


def _compile_within(path: Path, seconds: float = 10) -> Compiled:
    """compile_file in a thread, so a read that blocks fails the test instead of hanging it."""
    found: list[Compiled] = []
    thread = threading.Thread(target=lambda: found.append(compile_file(path, path.name)), daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        if path.is_fifo():  # unblock the reader
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail(f"reading {path} blocked")
    return found[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
def test_a_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.rules"
    os.mkfifo(fifo)
    compiled = _compile_within(fifo)
    assert _errors(compiled) == ["1:1 E005 a pipe (FIFO) is not a rulebook: only a regular file can be read"]


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_is_refused() -> None:
    compiled = _compile_within(Path("/dev/zero"))
    assert _errors(compiled) == ["1:1 E005 a device is not a rulebook: only a regular file can be read"]


def test_a_directory_is_refused(tmp_path: Path) -> None:
    compiled = _compile_within(tmp_path)
    assert _errors(compiled) == ["1:1 E005 a directory is not a rulebook: only a regular file can be read"]
    result = _run("list", str(tmp_path))
    assert result.exit_code == 2 and "is a directory" in result.stderr


def test_a_file_over_10_mb_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "huge.rules"
    path.write_bytes(b"#" * (10 * 1024 * 1024 + 1))
    compiled = _compile_within(path)
    assert _errors(compiled) == ["1:1 E005 the file is larger than 10 MB: too big to be a rulebook"]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-16-le"])
def test_a_utf16_file_is_named(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "wide.rules"
    data = (HEAD + 'rule r "R" cites "1":\n    MOV + a\n    STR + 1\n').encode(encoding)
    bom = {"utf-16-be": b"\xfe\xff", "utf-16-le": b"\xff\xfe"}.get(encoding, b"")
    path.write_bytes(bom + data)
    compiled = _compile_within(path)
    assert _errors(compiled) == ["1:1 E005 the file is UTF-16; save it as UTF-8"]


def test_a_diagnostic_about_the_file_shows_no_source_line(tmp_path: Path) -> None:
    path = tmp_path / "wide.rules"
    path.write_bytes("rulebook x".encode("utf-16"))
    result = _run("check", str(path))
    assert result.exit_code == 1
    assert " | " not in result.stderr
    assert result.stderr.splitlines()[0].endswith("error[E005]: the file is UTF-16; save it as UTF-8")


@pytest.mark.parametrize("newline", ["\r", "\r\n"])
def test_old_mac_and_windows_line_endings_report_the_right_line(tmp_path: Path, newline: str) -> None:
    text = HEAD + 'rule r "R" cites "1":\n    MOV + a\n    STR +\n'
    path = tmp_path / "lines.rules"
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    compiled = _compile_within(path)
    assert [(d.code, d.span.line) for d in compiled.errors] == [("E001", 9)]
    assert "9 |     STR +" in compiled.render()


def test_a_bad_byte_in_a_cr_only_file_is_on_its_line(tmp_path: Path) -> None:
    path = tmp_path / "latin.rules"
    path.write_bytes(b'rulebook x "X":\r    source "caf\xe9"\r')
    compiled = _compile_within(path)
    assert _errors(compiled) == ["2:16 E005 byte 0xe9 (`\xe9` in Windows-1252 or Latin-1) is not UTF-8 text"]


# ---------------------------------------------------------------------- 5. unreachable rows


def test_a_run_of_unreachable_rows_is_one_diagnostic() -> None:
    rows = "".join(f'    {i}: "r{i}"\n' for i in range(3000))
    compiled = compile_text(HEAD + 'table t "T" cites "1" by a:\n' + rows, "rows.rules")
    assert _errors(compiled) == ["1009:5 E301 rows 1001..2999 (1999 rows) can never be reached: `a` is int 0..1000"]
    assert compiled.errors[0].hint == "remove them, or widen the range of `a`"


def test_runs_below_and_above_the_range_are_reported_apart() -> None:
    text = HEAD.replace("0..1000 = 0", "5..6 = 5") + (
        'table t "T" cites "1" by a:\n    1..2: "x"\n    3..4: "x"\n    5..6: "x"\n    7: "x"\n    8+: "x"\n'
    )
    compiled = compile_text(text, "rows.rules")
    assert _errors(compiled) == [
        "8:5 E301 rows 1..4 (2 rows) can never be reached: `a` is int 5..6",
        "11:5 E301 rows 7+ (2 rows) can never be reached: `a` is int 5..6",
    ]


def test_one_unreachable_row_reads_as_before() -> None:
    text = HEAD + 'table t "T" cites "1" roll d6:\n    1..3: "x"\n    4..6: "y"\n    7: "z"\n'
    compiled = compile_text(text, "rows.rules")
    assert _errors(compiled) == ["10:5 E301 row 7 can never be reached: d6 gives 1..6"]
    assert compiled.errors[0].hint == "remove it, or send results to it from another table with `then roll t +N`"


# ---------------------------------------------------------------------- 6. one name, two books


@pytest.fixture
def twins(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    first, second = tmp_path / "a.rules", tmp_path / "b.rules"
    for path in (first, second):
        path.write_text(HEAD + 'rule r "R" cites "1":\n    MOV + a\n    STR + 1\n', encoding="utf-8")
    previous = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield Path("a.rules"), Path("b.rules")
    finally:
        os.chdir(previous)


def test_check_reports_two_rulebooks_of_one_name(twins: tuple[Path, Path]) -> None:
    first, second = twins
    result = _run("check", str(first), str(second))
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        "b.rules:1:10: error[E102]: two rulebooks are named `big`: a.rules (line 1) and this one"
    )
    assert result.stderr.splitlines()[-1] == "checked 2 rulebooks: 1 error, 0 warnings"
    assert _run("check", str(first)).exit_code == 0


def test_build_and_check_agree_on_two_rulebooks_of_one_name(twins: tuple[Path, Path]) -> None:
    first, second = twins
    result = _run("build", str(first), str(second), "-o", "out", "--no-cards")
    assert result.exit_code == 1
    assert "b.rules:1:10: error[E102]: two rulebooks are named `big`: a.rules (line 1) and this one" in result.stderr
    assert not Path("out").exists()


# ---------------------------------------------------------------------- fixtures an editor could spoil


FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_the_utf16_fixture_is_still_utf16() -> None:
    """An editor that re-saves it as UTF-8 would silently turn it into a valid file."""
    assert (FIXTURES / "invalid" / "E005_utf16_file.rules").read_bytes()[:2] in (b"\xff\xfe", b"\xfe\xff")


@pytest.mark.parametrize("folder", ["invalid", "valid"])
def test_the_old_mac_fixtures_still_end_lines_with_cr_alone(folder: str) -> None:
    data = (FIXTURES / folder / "E001_old_mac_line_endings.rules").read_bytes()
    assert b"\r" in data and b"\n" not in data


# A stray indented line ends the header's vocabulary early; the rule still reads `moved`, whose
# declaration comes after the damage. Found by the mutant fuzzer: check folded `moved` and raised.
STRAY_LINE = """\
rulebook mini "Mini":
    version "1.0"

stat MOV "Movement allowance": int 0..12 = 8
        expect MOV = 4
input acrobatics "Has the Acrobatics skill": flag

rule mud "Mud":
    MOV / 2 round up
    when moved > MOV / 2:
        roll fall "Avoid falling": 3d6 <= MOV
input moved "Hexes moved this turn": int 0..24
"""


def test_a_name_lost_to_a_syntax_error_is_reported_not_raised() -> None:
    compiled = compile_text(STRAY_LINE, "stray.rules")
    assert not compiled.ok
    assert "error[E001]" in compiled.render()
