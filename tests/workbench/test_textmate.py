"""The VS Code extension (editors/vscode/): its TextMate grammar tokenizes every rulebook the
project has as VS Code does (vscode-textmate and the Oniguruma regex engine, installed from the
npm registry into a scratch directory), covering every token and classing it as the parser
reads it; its manifest, language configuration and extension script hold together.

The grammar tests need node and npm (on every machine the project runs on); without them they
skip, saying so.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from dsl import highlight
from dsl.compiler import normalize_newlines
from dsl.fmt import _leaves, _token_parser
from dsl.parser import _lark
from tests.conftest import ROOT
from tests.corpus import CORPUS
from tests.programs import comments

VSCODE = ROOT / "editors" / "vscode"
GRAMMAR = VSCODE / "syntaxes" / "rulecraft.tmLanguage.json"
NODE, NPM = shutil.which("node"), shutil.which("npm")
_KEYWORDS = {t.pattern.value for t in _lark().terminals if t.pattern.type == "str" and t.pattern.value.isidentifier()}
_KEYWORD_SCOPES = ("keyword.", "storage.type.", "support.type.", "constant.language.")

Token = tuple[int, int, int, list[str]]


@pytest.fixture(scope="module")
def tokenized(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Token]]:
    """Every text of the corpus, tokenized by the grammar: by the text's name."""
    if NODE is None or NPM is None:
        pytest.skip("node and npm are needed to run the TextMate grammar as VS Code does")
    work = tmp_path_factory.mktemp("textmate")
    for name in ("package.json", "package-lock.json", "tokenize.js"):
        shutil.copy(VSCODE / "test" / name, work / name)
    installed = subprocess.run(
        [NPM, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=work, capture_output=True, text=True, timeout=600
    )
    assert installed.returncode == 0, f"npm ci failed:\n{installed.stderr}"
    files = {}
    for number, (name, text) in enumerate(CORPUS):
        path = work / f"{number}.rules"
        path.write_text(normalize_newlines(text), encoding="utf-8")
        files[str(path)] = name
    run = subprocess.run(
        [NODE, str(work / "tokenize.js"), str(GRAMMAR), *files], capture_output=True, text=True, timeout=600, check=True
    )
    return {files[path]: tokens for path, tokens in json.loads(run.stdout).items()}


def _wanted(kind: str, value: str) -> tuple[str, ...]:
    """Scope prefixes a parser token of this kind may be shown with."""
    if kind == "NAME":
        return ("variable.", "entity.name.", *(_KEYWORD_SCOPES if value in _KEYWORDS else ()))
    if kind in ("DICE", "DIE", "FATE"):
        return ("constant.numeric.dice.",)
    if kind == "NUMBER":
        return ("constant.numeric.",)
    if kind == "STRING":
        return ("string.quoted.",)
    if value.isidentifier() or value == "N/A":
        return _KEYWORD_SCOPES
    return ("keyword.operator.", "punctuation.")


@pytest.mark.parametrize(("name", "text"), CORPUS, ids=[name for name, _ in CORPUS])
def test_the_grammar_covers_every_token_as_the_parser_reads_it(
    name: str, text: str, tokenized: dict[str, list[Token]]
) -> None:
    text = normalize_newlines(text)
    lines = text.split("\n")
    tokens = tokenized[name]
    bare = [(line, lines[line][start:end]) for line, start, end, scopes in tokens if len(scopes) == 1]
    assert [b for b in bare if b[1].strip()] == [], "text no pattern of the grammar matches"
    by_line: dict[int, list[Token]] = {}
    for token in tokens:
        by_line.setdefault(token[0], []).append(token)
    for leaf in _leaves(_token_parser().parse(text if text.endswith("\n") else text + "\n")):
        parsed = leaf.token
        if parsed.type in ("_NL", "_INDENT", "_DEDENT"):
            continue
        line, column = (parsed.line or 1) - 1, (parsed.column or 1) - 1
        (shown,) = [t for t in by_line[line] if t[1] <= column < t[2]]
        assert shown[1] == column, f"{name}:{line + 1}:{column + 1}: `{parsed}` starts inside a token"
        assert any(scope.startswith(_wanted(parsed.type, parsed.value)) for scope in shown[3][1:]), (
            f"{name}:{line + 1}:{column + 1}: `{parsed}` ({parsed.type}) is shown as {shown[3]}"
        )
    shown_comments = [lines[t[0]][t[1] : t[2]].rstrip() for t in tokens if t[3][-1].startswith("comment.")]
    assert shown_comments == comments(text)


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_manifest_registers_the_language_grammar_and_server() -> None:
    manifest = _json(VSCODE / "package.json")
    (language,) = manifest["contributes"]["languages"]
    assert language["id"] == "rulecraft" and language["extensions"] == [".rules"]
    assert (VSCODE / language["configuration"]).is_file()
    (grammar,) = manifest["contributes"]["grammars"]
    assert grammar["language"] == "rulecraft" and (VSCODE / grammar["path"]).resolve() == GRAMMAR
    assert _json(GRAMMAR)["scopeName"] == grammar["scopeName"] == "source.rulecraft"
    assert "onLanguage:rulecraft" in manifest["activationEvents"]
    assert "vscode-languageclient" in manifest["dependencies"]
    script = (VSCODE / manifest["main"]).read_text(encoding="utf-8")
    assert 'args: ["lsp"]' in script and "TransportKind.stdio" in script
    assert manifest["contributes"]["configuration"]["properties"]["rulecraft.command"]["default"] == "rulecraft"


@pytest.mark.skipif(NODE is None, reason="node is needed to read the extension's script")
def test_the_extension_script_is_valid_javascript() -> None:
    assert subprocess.run([NODE or "node", "--check", str(VSCODE / "extension.js")], check=False).returncode == 0


def test_the_language_configuration_indents_after_a_colon() -> None:
    configuration = _json(VSCODE / "language-configuration.json")
    assert configuration["comments"]["lineComment"] == "#"
    indent = re.compile(configuration["indentationRules"]["increaseIndentPattern"])
    assert indent.match('rule mud "Mud: deep" cites "3.1":') and indent.match("    when wet:  # a comment")
    assert not indent.match('    note "a: b"') and not indent.match("    DEX -2  # note: a comment")
    assert re.compile(configuration["onEnterRules"][0]["beforeText"]).pattern == indent.pattern


def test_the_grammar_knows_every_keyword() -> None:
    text = GRAMMAR.read_text(encoding="utf-8")
    missing = [word for word in sorted(_KEYWORDS) if not re.search(rf"[|(:]{word}[|)]", text)]
    assert missing == []
    assert set(highlight.DECLARATIONS) <= _KEYWORDS
