"""docs/language.md stays true to the compiler.

- every ```rules block is a complete rulebook that compiles without a diagnostic, and its worked
  examples pass;
- every ```console block shows what rulecraft really prints: its commands are run in a scratch
  directory holding the files named in earlier blocks (```rules book.rules, ```text book.rules),
  and the output must match line for line (a line `...` stands for any number of lines);
- every ```pycon session runs as shown (a doctest) against the modules generated from the
  rulebooks named in earlier blocks;
- every diagnostic code has a heading in the diagnostics reference, and no heading names a code
  that does not exist;
- the reserved words and the categories listed are the compiler's;
- every link to a heading of the page leads somewhere.
- every test the Guarantees section names exists, and every guarantee names one.
"""

from __future__ import annotations

import ast
import codecs
import doctest
import io
import os
import re
import shlex
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from dsl.categories import CATEGORIES
from dsl.cli import main
from dsl.codes import CODES
from dsl.compiler import compile_text, generate
from dsl.parser import reserved_words
from dsl.runner import run_examples
from tests.conftest import ROOT

DOC = ROOT / "docs" / "language.md"
_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Block:
    """A fenced block: its language, the file name after it (if any), its text and doc line."""

    language: str
    name: str | None
    text: str
    line: int

    @property
    def where(self) -> str:
        return f"docs/language.md:{self.line}"


def _doc() -> str:
    return DOC.read_text(encoding="utf-8")


def _blocks() -> list[Block]:
    text = _doc()
    found = []
    for match in _FENCE.finditer(text):
        words = match.group(1).split()
        language = words[0] if words else ""
        name = words[1] if len(words) > 1 else None
        line = text.count("\n", 0, match.start()) + 1
        found.append(Block(language, name, match.group(2), line))
    return found


def _section(title: str) -> str:
    """The text of the `## ...` section whose heading contains `title`, up to the next one."""
    text = _doc()
    match = re.search(rf"^## [^\n]*{re.escape(title)}[^\n]*$", text, re.MULTILINE)
    assert match, f"docs/language.md has no section `{title}`"
    following = re.search(r"^## ", text[match.end() :], re.MULTILINE)
    return text[match.end() : match.end() + following.start()] if following else text[match.end() :]


RULES_BLOCKS = [b for b in _blocks() if b.language == "rules"]
CONSOLE_BLOCKS = [b for b in _blocks() if b.language == "console"]
PYCON_BLOCKS = [b for b in _blocks() if b.language == "pycon"]


def test_the_doc_has_examples() -> None:
    assert len(RULES_BLOCKS) >= 30
    assert len(CONSOLE_BLOCKS) >= len(CODES)


@pytest.mark.parametrize("block", RULES_BLOCKS, ids=lambda b: f"line{b.line}")
def test_rules_block_compiles_cleanly(block: Block) -> None:
    code = [line for line in block.text.split("\n") if line.strip() and not line.startswith("#")]
    assert code and code[0].startswith("rulebook "), f"{block.where}: a ```rules block is a whole rulebook"
    compiled = compile_text(block.text, block.where)
    assert not compiled.errors, compiled.render()
    assert not compiled.warnings, compiled.render()


@pytest.mark.parametrize("block", [b for b in RULES_BLOCKS if "example " in b.text], ids=lambda b: f"line{b.line}")
def test_worked_examples_in_the_doc_pass(block: Block) -> None:
    compiled = compile_text(block.text, block.where)
    assert compiled.ok, compiled.render()
    outcome = run_examples(compiled)
    assert outcome.results, f"{block.where}: no worked example found"
    assert outcome.failed == 0, "\n".join(outcome.lines(verbose=False))


def _files_before(line: int) -> dict[str, str]:
    """The files named by blocks above `line`: the latest block of each name wins."""
    files: dict[str, str] = {}
    for block in _blocks():
        if block.line < line and block.name is not None and block.language in ("rules", "text"):
            files[block.name] = block.text
    return files


def _commands(block: Block) -> Iterator[tuple[str, list[str]]]:
    """Each `$ command` of a console block with the output lines shown under it."""
    command: str | None = None
    output: list[str] = []
    for line in block.text.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            if command is not None:
                yield command, output
            command, output = line[2:], []
        else:
            assert command is not None, f"{block.where}: output before any `$ command`"
            output.append(line)
    if command is not None:
        yield command, output


def _matches(expected: list[str], actual: list[str]) -> bool:
    """Line-by-line equality, where an expected line `...` stands for any number of lines."""
    pattern = "".join(r"(?:[^\n]*\n)*?" if line == "..." else re.escape(line) + r"\n" for line in expected)
    return re.fullmatch(pattern, "".join(line + "\n" for line in actual)) is not None


def _printf(command: str, directory: Path) -> None:
    """`printf 'TEXT' > FILE`, the way the doc writes a file that is not UTF-8 text."""
    words = shlex.split(command)
    assert len(words) == 4 and words[0] == "printf" and words[2] == ">", f"unsupported command: {command}"
    data = codecs.escape_decode(words[1].encode("ascii"))[0]
    assert isinstance(data, bytes)
    (directory / words[3]).write_bytes(data)


@pytest.mark.parametrize("block", CONSOLE_BLOCKS, ids=lambda b: f"line{b.line}")
def test_console_block_shows_real_output(block: Block, tmp_path: Path) -> None:
    for name, text in _files_before(block.line).items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    previous = Path.cwd()
    os.chdir(tmp_path)
    try:
        for command, expected in _commands(block):
            if command.startswith("printf "):
                _printf(command, tmp_path)
                assert not expected, f"{block.where}: printf prints nothing"
                continue
            words = shlex.split(command)
            assert words[0] == "rulecraft", f"{block.where}: unsupported command: {command}"
            result = CliRunner().invoke(main, words[1:], prog_name="rulecraft")
            assert "Traceback" not in result.output, result.output
            actual = [line.rstrip() for line in result.output.rstrip("\n").split("\n")]
            wanted = [line.rstrip() for line in expected]
            assert _matches(wanted, actual), (
                f"{block.where}: `{command}` prints:\n" + "\n".join(actual) + "\n\nthe doc shows:\n" + "\n".join(wanted)
            )
    finally:
        os.chdir(previous)


@pytest.mark.parametrize("block", PYCON_BLOCKS, ids=lambda b: f"line{b.line}")
def test_python_session_runs_as_shown(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, text in _files_before(block.line).items():
        compiled = compile_text(text, name)
        if name.endswith(".rules") and compiled.ok and compiled.book is not None:
            (tmp_path / f"{compiled.book.name}.py").write_text(generate(compiled), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    try:
        test = doctest.DocTestParser().get_doctest(block.text, {}, block.where, str(DOC), block.line)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        report = io.StringIO()
        runner.run(test, out=report.write)
        assert runner.failures == 0, report.getvalue()
    finally:
        for module in set(sys.modules) - before:
            del sys.modules[module]


def test_every_code_has_a_heading_in_the_diagnostics_reference() -> None:
    headings = re.findall(r"^###+ (.*)$", _section("Diagnostics reference"), re.MULTILINE)
    named = {code for heading in headings for code in re.findall(r"\b[EW]\d{3}\b", heading)}
    assert sorted(set(CODES) - named) == [], "codes without a heading in the diagnostics reference"
    assert sorted(named - set(CODES)) == [], "headings name codes that dsl/codes.py does not define"


def test_the_reserved_words_listed_are_the_parsers() -> None:
    section = _section("Lexical structure")
    listed = re.search(r"^### Reserved words$.*?^```text\n(.*?)^```", section, re.MULTILINE | re.DOTALL)
    assert listed, "the lexical section lists the reserved words in a ```text block"
    assert set(listed.group(1).split()) == set(reserved_words())


def test_every_category_is_listed() -> None:
    section = _section("Rules: rule")
    missing = [name for name in CATEGORIES if f"`{name}`" not in section]
    assert missing == []


def _anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_links_to_headings_resolve() -> None:
    prose = _FENCE.sub("", _doc())
    anchors = {_anchor(heading) for heading in re.findall(r"^#+ (.*)$", prose, re.MULTILINE)}
    links = set(re.findall(r"\]\(#([^)]+)\)", prose))
    assert sorted(links - anchors) == []


_TEST_REFERENCE = re.compile(r"`(tests/[\w/]+\.py)::(test_\w+)`")


def _tests_in(path: Path) -> set[str]:
    """The test functions a module defines at its top level, as pytest collects them."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}


def test_every_test_the_guarantees_name_exists() -> None:
    named = _TEST_REFERENCE.findall(_section("Guarantees"))
    assert len(named) >= 40, "the Guarantees section names the tests that hold each promise"
    missing = [
        f"{file}::{test}" for file, test in named if not (ROOT / file).is_file() or test not in _tests_in(ROOT / file)
    ]
    assert missing == [], "docs/language.md names tests that do not exist"


def test_every_guarantee_names_a_test() -> None:
    promises = re.split(r"^### (.*)$", _section("Guarantees"), flags=re.MULTILINE)[1:]
    assert len(promises) >= 16, "each promise is a ### heading followed by its text"
    unheld = [
        title for title, text in zip(promises[::2], promises[1::2], strict=True) if not _TEST_REFERENCE.search(text)
    ]
    assert unheld == []
