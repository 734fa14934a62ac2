"""Every rulebook text the project has, for the tests that must hold on all of them: the
bundled rulebooks, every fixture that reads as text (those that parse, and those refused), and
every ```rules block of README.md and docs/language.md (a fragment given a header)."""

from __future__ import annotations

import re
from pathlib import Path

from dsl import nodes as n
from dsl.compiler import deep, normalize_newlines, read_text
from dsl.diagnostics import Reporter
from dsl.parser import parse
from tests.conftest import ROOT, RULEBOOKS

FIXTURES = ROOT / "tests" / "fixtures"
_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
_HEADER = 'rulebook fragment "A fragment of the docs":\n    source "docs"\n\n'


def ast_of(text: str) -> n.Rulebook | None:
    reporter = Reporter()
    tree = deep(parse, normalize_newlines(text), "<text>", reporter)
    return None if reporter.has_errors else tree


def _doc_blocks() -> list[tuple[str, str]]:
    """Every ```rules block of the docs, a fragment without a header given one."""
    blocks = []
    for doc in (ROOT / "README.md", ROOT / "docs" / "language.md"):
        text = doc.read_text(encoding="utf-8")
        for match in _FENCE.finditer(text):
            if match.group(1).split()[:1] == ["rules"]:
                body = match.group(2)
                if not any(line.startswith("rulebook ") for line in body.split("\n")):
                    body = _HEADER + body
                blocks.append((f"{doc.name}:{text.count(chr(10), 0, match.start()) + 1}", body))
    return blocks


def _fixture_texts() -> list[tuple[Path, str]]:
    """Every fixture that reads as UTF-8 text."""
    found = []
    for path in sorted(FIXTURES.rglob("*.rules")):
        reporter = Reporter()
        text = read_text(path, path.name, reporter)
        if text is not None and not reporter.has_errors:
            found.append((path, text))
    return found


BOOKS = [(p.name, p.read_text(encoding="utf-8")) for p in sorted(RULEBOOKS.glob("*.rules"))]
DOCS = _doc_blocks()
_TEXTS = _fixture_texts()
FIXTURE_BOOKS = [(p.relative_to(FIXTURES).as_posix(), text) for p, text in _TEXTS if ast_of(text) is not None]
REFUSED = [(p.relative_to(FIXTURES).as_posix(), text) for p, text in _TEXTS if ast_of(text) is None]
CORPUS = BOOKS + FIXTURE_BOOKS + DOCS
