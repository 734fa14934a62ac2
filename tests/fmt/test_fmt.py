"""rulecraft fmt: one canonical layout that keeps what a rulebook means and every comment.

The properties: the output parses to the same AST (spans aside), formatting it again changes
nothing, and its comments are the same, in the same order, as lark's lexer finds them.  They are
checked on every fixture that parses and on programs made up from the grammar
(tests/programs.py).  The bundled rulebooks and every ```rules block of the docs are already
formatted, which implies the properties for them; their layout spoiled (indentation halved,
blank lines tripled, spaces at line ends, Windows line ends) formats back to them.  The layout
itself is pinned by readable pairs in tests/fixtures/fmt/ (NAME.rules formats to
NAME.formatted.rules); a text that does not parse is refused with the diagnostics of `check`.
"""

from __future__ import annotations

import re
import stat
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings

from dsl.compiler import deep, normalize_newlines
from dsl.diagnostics import Reporter
from dsl.fmt import WIDTH, FormatError, format_text
from dsl.parser import parse
from tests.conftest import run_cli
from tests.corpus import BOOKS, DOCS, FIXTURE_BOOKS, FIXTURES, REFUSED, ast_of
from tests.programs import comments, programs

LAYOUT = FIXTURES / "fmt"


def _check_properties(text: str) -> str:
    formatted = format_text(text)
    if formatted == text:
        return formatted  # a fixed point: the properties hold
    assert deep(lambda: ast_of(formatted) == ast_of(text)), "the formatted text means something else"
    assert format_text(formatted) == formatted, "formatting the formatted text changes it"
    assert comments(formatted) == comments(text), "comments were lost, added or reordered"
    return formatted


def test_the_corpus_is_broad() -> None:
    assert len(BOOKS) >= 6 and len(DOCS) >= 30 and len(FIXTURE_BOOKS) >= 60
    assert len(REFUSED) >= 5


@pytest.mark.parametrize(("name", "text"), FIXTURE_BOOKS, ids=[name for name, _ in FIXTURE_BOOKS])
def test_formatting_keeps_meaning_and_comments_and_settles(name: str, text: str) -> None:
    _check_properties(text)


@pytest.mark.parametrize(("name", "text"), BOOKS + DOCS, ids=[name for name, _ in BOOKS + DOCS])
def test_bundled_and_documented_rulebooks_are_formatted(name: str, text: str) -> None:
    assert format_text(text) == text


SHOWN = [(name, text) for name, text in FIXTURE_BOOKS if name.split("/")[0] in ("dice", "mechanics", "features", "rolling")]
"""Fixture books written as a designer would (the gallery, the dice idioms, the features): held
to `fmt` as the bundled ones are.  The diagnostics pairs keep the layout their columns name."""


@pytest.mark.parametrize(("name", "text"), SHOWN, ids=[name for name, _ in SHOWN])
def test_the_gallery_and_feature_books_are_formatted(name: str, text: str) -> None:
    assert format_text(text) == text


def test_a_rolls_bonus_is_written_as_dice_print_and_a_name_stays_apart() -> None:
    # `2d6 + 4 >= 9` was written `2d6 +4`: the bonus is tight as a sum of dice prints
    # (`1d6+1`); a name added stays spaced, as any other sum
    head = 'rulebook t "T":\n    source "s"\n\ninput m "M": int 0..5 = 1\n\nrule r "R" cites "1":\n'
    text = head + '    roll a "A": 2d6 + 4 >= 9\n    roll b "B": 2d6 + m >= 9\n    roll c "C": 3d6 >= 2d6 + 4\n'
    assert format_text(text) == head + (
        '    roll a "A": 2d6+4 >= 9\n    roll b "B": 2d6 + m >= 9\n    roll c "C": 3d6 >= 2d6+4\n'
    )


def _spoiled(text: str) -> str:
    """The same rulebook laid out worse: every indentation halved (a block level is then 2
    spaces; lines inside brackets or after a `\\` may stand anywhere), every blank line tripled,
    spaces at the ends of lines, Windows line ends."""
    lines = []
    for line in text.split("\n"):
        stripped = line.lstrip(" ")
        lines.extend(["", ""] if not stripped else [])
        lines.append(" " * ((len(line) - len(stripped)) // 2) + stripped + ("  " if stripped else ""))
    return "\r\n".join(lines)


@pytest.mark.parametrize(("name", "text"), BOOKS + DOCS, ids=[name for name, _ in BOOKS + DOCS])
def test_a_spoiled_layout_formats_back(name: str, text: str) -> None:
    spoiled = _spoiled(text)
    assert spoiled != text and deep(lambda: ast_of(spoiled) == ast_of(text))
    assert format_text(spoiled) == text


LAYOUT_PAIRS = sorted(p for p in LAYOUT.glob("*.rules") if not p.name.endswith(".formatted.rules"))


@pytest.mark.parametrize("path", LAYOUT_PAIRS, ids=lambda p: p.stem)
def test_layout_fixture(path: Path) -> None:
    expected = path.with_suffix(".formatted.rules").read_text(encoding="utf-8")
    assert format_text(path.read_text(encoding="utf-8")) == expected
    assert format_text(expected) == expected


def test_layout_fixtures_cover_the_rules() -> None:
    assert {p.stem for p in LAYOUT_PAIRS} >= {"spacing", "comments", "texts", "blank_lines", "continuations"}


def test_a_cut_text_fits_the_width() -> None:
    formatted = (LAYOUT / "texts.formatted.rules").read_text(encoding="utf-8").split("\n")
    strings = [line for line in formatted if line.lstrip().startswith('"') or '("' in line]
    assert len(strings) >= 8
    too_wide = [line for line in strings if len(line) > WIDTH and " " in line.split('"', 1)[1]]
    assert too_wide == []


@pytest.mark.parametrize(("name", "text"), REFUSED, ids=[name for name, _ in REFUSED])
def test_a_text_with_syntax_errors_is_refused_with_the_diagnostics(name: str, text: str) -> None:
    with pytest.raises(FormatError) as refused:
        format_text(text, name)
    expected = Reporter()
    deep(parse, normalize_newlines(text), name, expected)
    assert refused.value.diagnostics == expected.sorted()
    assert refused.value.render().startswith(f"{name}:")


def test_windows_line_ends_and_a_byte_order_mark_become_plain_lines() -> None:
    text = '\ufeffrulebook a "A":\r\n    source "s"\r\n\r\n\r\nunit hex\r\n'
    assert format_text(text) == 'rulebook a "A":\n    source "s"\n\nunit hex\n'


@pytest.mark.parametrize("text", ['rulebook a "A":\n\tsource "s"\n', 'rulebook a "A":\n    source s\n', ""])
def test_refused_texts(text: str) -> None:
    with pytest.raises(FormatError):
        format_text(text)


GENERATED = 200


@pytest.mark.slow  # fuzzing
def test_programs_made_up_from_the_grammar() -> None:
    formatted: list[str] = []

    @settings(max_examples=GENERATED, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(programs())
    def check(text: str) -> None:
        assume(ast_of(text) is not None)
        formatted.append(_check_properties(text))

    check()
    assert len(formatted) >= GENERATED * 3 // 4, "too few made-up programs parse: the generator has drifted"
    assert sum(out.count("\n") for out in formatted) >= 10 * GENERATED


# ---------------------------------------------------------------------------- the command


def _copy(name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    target.write_bytes((LAYOUT / name).read_bytes())
    return target


def test_fmt_rewrites_a_file_and_then_leaves_it_alone(tmp_path: Path) -> None:
    path = _copy("spacing.rules", tmp_path)
    path.chmod(0o640)
    first = run_cli("fmt", str(path))
    assert first.exit_code == 0, first.output
    assert f"reformatted {path.as_posix()}" in first.output
    assert "1 file reformatted, 0 files already formatted" in first.output
    assert path.read_text(encoding="utf-8") == (LAYOUT / "spacing.formatted.rules").read_text(encoding="utf-8")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    again = run_cli("fmt", str(path))
    assert again.exit_code == 0
    assert "0 files reformatted, 1 file already formatted" in again.output
    assert list(tmp_path.iterdir()) == [path]


def test_fmt_check_lists_what_would_change_and_writes_nothing(tmp_path: Path) -> None:
    messy = _copy("comments.rules", tmp_path)
    tidy = _copy("comments.formatted.rules", tmp_path)
    before = messy.read_bytes()
    result = run_cli("fmt", "--check", str(tmp_path))
    assert result.exit_code == 1
    assert f"would reformat {messy.as_posix()}" in result.output
    assert tidy.as_posix() not in result.output
    assert "1 file would be reformatted, 1 file already formatted" in result.output
    assert messy.read_bytes() == before
    assert run_cli("fmt", "--check", str(tidy)).exit_code == 0


def test_fmt_diff_prints_a_unified_diff_and_writes_nothing(tmp_path: Path) -> None:
    path = _copy("blank_lines.rules", tmp_path)
    before = path.read_bytes()
    result = run_cli("fmt", "--diff", str(path))
    assert result.exit_code == 0
    assert path.read_bytes() == before
    shown = path.as_posix()
    assert result.stdout.startswith(f"--- {shown}\n+++ {shown} (formatted)\n@@ ")
    expected = (LAYOUT / "blank_lines.formatted.rules").read_text(encoding="utf-8")
    assert _patched(before.decode("utf-8"), result.stdout) == expected
    assert run_cli("fmt", "--diff", "--check", str(path)).exit_code == 1


def _patched(text: str, diff: str) -> str:
    """`text` with a unified diff applied, as `patch` would."""
    old = text.split("\n")
    new: list[str] = []
    at = 0
    for hunk in re.split(r"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@\n", diff, flags=re.MULTILINE)[1:]:
        if hunk.isdigit():
            start = max(int(hunk) - 1, 0)
            new.extend(old[at:start])
            at = start
            continue
        for line in hunk.split("\n")[:-1]:
            if line[:1] in (" ", "-"):
                assert old[at] == line[1:], f"context mismatch at line {at + 1}"
                at += 1
            if line[:1] in (" ", "+"):
                new.append(line[1:])
    return "\n".join(new + old[at:])


def test_fmt_leaves_a_broken_file_untouched_and_prints_its_diagnostics(tmp_path: Path) -> None:
    broken = tmp_path / "broken.rules"
    broken.write_text('rulebook b "B":\n    source "s"\nrule r "R" cites "1"\n    DEX -2\n', encoding="utf-8")
    fine = _copy("indentation.rules", tmp_path)
    before = broken.read_bytes()
    result = run_cli("fmt", str(tmp_path))
    assert result.exit_code == 1
    assert broken.read_bytes() == before
    check = run_cli("check", str(broken))
    diagnostics = check.output.rsplit("checked 1 rulebook", 1)[0]
    assert "error[E001]" in diagnostics and diagnostics in result.output
    assert f"{broken.as_posix()}: not formatted: fix the syntax errors first" in result.output
    assert "1 file reformatted, 0 files already formatted, 1 file with errors left as they are" in result.output
    assert fine.read_text(encoding="utf-8") == (LAYOUT / "indentation.formatted.rules").read_text(encoding="utf-8")


def test_fmt_reports_a_file_that_is_not_text(tmp_path: Path) -> None:
    path = tmp_path / "latin1.rules"
    path.write_bytes(b'rulebook a "A":\n    source "\xd7"\n')
    result = run_cli("fmt", str(path))
    assert result.exit_code == 1
    assert "error[E005]" in result.output
    assert path.read_bytes() == b'rulebook a "A":\n    source "\xd7"\n'


def test_fmt_rewrites_windows_line_ends(tmp_path: Path) -> None:
    path = tmp_path / "crlf.rules"
    path.write_bytes(b'rulebook a "A":\r\n    source "s"\r\n')
    assert run_cli("fmt", "--check", str(path)).exit_code == 1
    assert run_cli("fmt", str(path)).exit_code == 0
    assert path.read_bytes() == b'rulebook a "A":\n    source "s"\n'


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("no/such.rules",), "no such file or directory"),
        (("{empty}",), "no rulebooks (*.rules) found"),
        ((), "there is no ./rulebooks here"),
    ],
)
def test_fmt_bad_usage(
    args: tuple[str, ...], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    result = run_cli("fmt", *(a.format(empty=tmp_path / "empty") for a in args))
    assert result.exit_code == 2
    assert message in result.output


def test_texts_read_at_once_in_several_threads_read_as_they_do_alone() -> None:
    """fmt_deep.sh: the language server held formatting and compiling to one at a time, because
    lark's indenter kept the state of the text being read on the one shared parser.  Each text
    now has an indenter of its own: formatting a book while another compiles (the language
    server's threads) gives what each gives alone."""
    import threading

    from dsl.compiler import compile_text

    books = dict(BOOKS)
    names = ["skirmish_terrain.rules", "terrain_cards.rules"]
    formatted_alone = {name: format_text(books[name]) for name in names}
    checked_alone = {name: compile_text(books[name], name).diagnostics for name in names}
    found: list[str] = []

    def repeat(work: Callable[[str], bool], name: str) -> None:
        for _ in range(2):
            try:
                if not work(name):
                    found.append(f"{name} read otherwise")
            except Exception as error:
                found.append(f"{name}: {type(error).__name__}: {error}")

    def formats(name: str) -> bool:
        return format_text(books[name]) == formatted_alone[name]

    def checks(name: str) -> bool:
        return compile_text(books[name], name).diagnostics == checked_alone[name]

    threads = [threading.Thread(target=repeat, args=(work, name)) for work in (formats, checks) for name in names]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # threads take turns often, in the middle of texts
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert found == []


def test_formatting_deep_brackets_takes_time_in_proportion_to_the_text() -> None:
    """fmt_deep.sh on fmt_deep_parens.rules: `check` read 50,000 nested brackets in seconds, but
    `fmt` scanned every gap inside each pair of brackets (2,000 levels 1.4 s, 4,000 levels 3.5 s, 10,000 levels 100 s).
    Linear, 10,000 levels take about a second; the bound is generous for a loaded machine.
    bench/benchmark.py measures the per-bracket cost at 2,000 and 20,000 levels."""
    import threading

    depth = 10_000
    text = f'rulebook deep "Deep":\n    source "s"\n\nrule r "R" cites "c":\n    derive z = {"(" * depth}1{")" * depth}\n'
    formatted: list[str] = []
    worker = threading.Thread(target=lambda: formatted.append(format_text(text)), daemon=True)
    worker.start()
    worker.join(30)
    assert formatted, "formatting 10,000 nested brackets took more than 30 s"
    assert formatted == [text]  # in its canonical layout already
