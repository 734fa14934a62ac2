"""`rulecraft lsp`, driven by a language client over stdio as an editor drives it.

pytest-lsp starts `rulecraft lsp` as a subprocess and speaks LSP to it: open a rulebook with a
typo and receive its diagnostic (the one `rulecraft check` prints), fix it as one types, hover,
go to definition, find references, complete, outline.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytest.importorskip("pygls", reason="the language server needs the `workbench` extra (pip install -e '.[test]')")
pytest_lsp = pytest.importorskip("pytest_lsp", reason="the LSP tests need pytest-lsp (pip install -e '.[test]')")

from lsprotocol import types as lsp  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

MARSH = ROOT / "tests" / "fixtures" / "workbench" / "marsh.rules"
TEXT = MARSH.read_text(encoding="utf-8")
_opened = itertools.count(1)


def _rulecraft() -> list[str]:
    """The installed `rulecraft` command, as an editor would start it."""
    script = Path(sys.executable).with_name("rulecraft")
    if script.exists():
        return [str(script)]
    found = shutil.which("rulecraft")
    return [found] if found else [sys.executable, "-c", "from dsl.cli import main; main()"]


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=[*_rulecraft(), "lsp"]))
async def client(lsp_client: LanguageClient) -> AsyncIterator[None]:
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=MARSH.parent.as_uri(),
        )
    )
    yield
    await lsp_client.shutdown_session()


def _where(text: str, needle: str, nth: int = 0) -> lsp.Position:
    """The position of the `nth` occurrence of `needle` (0-based line and character)."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(needle, start + 1)
    return _position(text, start)


def _position(text: str, offset: int) -> lsp.Position:
    line = text.count("\n", 0, offset)
    return lsp.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))


async def _open(client: LanguageClient, text: str) -> tuple[str, lsp.PublishDiagnosticsParams]:
    """Open `text` as a new document (each test has its own, in one server) and wait for its
    diagnostics; its URI names a file beside the fixture, as an editor's would."""
    uri = MARSH.with_name(f"marsh-{next(_opened)}.rules").as_uri()
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri=uri, language_id="rulecraft", version=1, text=text))
    )
    return uri, await _diagnostics(client, uri, 1)


async def _diagnostics(client: LanguageClient, uri: str, version: int) -> lsp.PublishDiagnosticsParams:
    while True:
        params: lsp.PublishDiagnosticsParams = await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if params.uri == uri and params.version == version:
            return params


def _check(text: str, tmp_path: Path) -> list[tuple[str, str, int, int]]:
    """What `rulecraft check` prints for `text`: (code, message, line, column) of each diagnostic."""
    path = tmp_path / "marsh.rules"
    path.write_text(text, encoding="utf-8")
    run = subprocess.run([*_rulecraft(), "check", str(path)], capture_output=True, text=True, check=False)
    found = re.findall(r"^.*?:(\d+):(\d+): (?:error|warning)\[(\w+)\]: (.*)$", run.stderr, re.MULTILINE)
    return [(code, message, int(line), int(column)) for line, column, code, message in found]


@pytest.mark.asyncio(loop_scope="module")
async def test_a_typo_is_reported_as_check_reports_it_and_goes_away_when_fixed(
    client: LanguageClient, tmp_path: Path
) -> None:
    # a character outside the BMP before the typo: LSP columns count UTF-16 units, spans characters
    typo = TEXT.replace('roll sink "Stay afloat": 3d6 <= STR', 'roll sink "Stay \U0001f40a afloat": 3d6 <= SRT')
    uri, published = await _open(client, typo)
    checked = _check(typo, tmp_path)
    got = sorted((d.code, d.message.split("\n")[0], d.range.start.line + 1) for d in published.diagnostics)
    assert got == sorted((code, message, line) for code, message, line, _ in checked)
    error = next(d for d in published.diagnostics if d.code == "E101")
    assert error.message == "unknown name `SRT`\nhint: did you mean `STR`?"
    assert error.severity == lsp.DiagnosticSeverity.Error
    (column,) = [column for code, _, _, column in checked if code == "E101"]
    start = _where(typo, "SRT")
    assert start.character == column - 1
    line = typo.split("\n")[start.line]
    utf16 = len(line[: start.character].encode("utf-16-le")) // 2
    assert utf16 == start.character + 1
    assert error.range == lsp.Range(lsp.Position(start.line, utf16), lsp.Position(start.line, utf16 + 3))

    # typing the fix: replace `SRT` by `STR`, an incremental change as editors send it
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                lsp.TextDocumentContentChangePartial(
                    range=lsp.Range(lsp.Position(start.line, utf16), lsp.Position(start.line, utf16 + 3)), text="STR"
                )
            ],
        )
    )
    fixed = await _diagnostics(client, uri, 2)
    assert [(d.code, d.severity) for d in fixed.diagnostics] == [("W101", lsp.DiagnosticSeverity.Warning)]
    assert fixed.diagnostics[0].message == "input `moved` is never used\nhint: use it in a rule, or remove it"


@pytest.mark.asyncio(loop_scope="module")
async def test_completion_still_works_while_the_text_being_typed_does_not_parse(client: LanguageClient) -> None:
    uri, _ = await _open(client, TEXT)
    half = TEXT.replace("rulebook marsh", "rulebook")  # the header no longer parses: no tree at all
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=half)],
        )
    )
    broken = await _diagnostics(client, uri, 2)
    assert broken.diagnostics and {d.code for d in broken.diagnostics} == {"E001"}
    offered = await client.text_document_completion_async(
        lsp.CompletionParams(text_document=lsp.TextDocumentIdentifier(uri), position=lsp.Position(line=0, character=0))
    )
    assert isinstance(offered, lsp.CompletionList)
    assert {"DEX", "bog", "when"} <= {item.label for item in offered.items}


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_shows_the_declaration_of_a_name(client: LanguageClient) -> None:
    uri, _ = await _open(client, TEXT)
    hover = await client.text_document_hover_async(
        lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri), position=_where(TEXT, "STR", 1)
        )  # in `3d6 <= STR`
    )
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    text = hover.contents.value
    assert text.startswith("**stat** `STR` — Strength")
    assert 'stat STR "Strength": int 3..18 = 10' in text
    assert "range: 3..18" in text and "default: `10`" in text

    hover = await client.text_document_hover_async(
        lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri), position=_where(TEXT, "knee", 1)
        )  # in `water >= knee`
    )
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    assert "level 2 of 3 `depth`: ankle < knee < waist" in hover.contents.value


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_on_a_roll_gives_its_dice_and_exact_chance_at_the_defaults(client: LanguageClient) -> None:
    uri, _ = await _open(client, TEXT)
    hover = await client.text_document_hover_async(
        lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri), position=_where(TEXT, "sink"))
    )
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    text = hover.contents.value
    assert "**roll** `sink` — Stay afloat" in text
    assert "roll `3d6 <= STR`" in text
    # STR 10 at the defaults: 3d6 <= 10 in 108 of 216 ways
    assert "`3d6 <= 10`: **1/2 (50.0%)**" in text


@pytest.mark.asyncio(loop_scope="module")
async def test_definition_and_references(client: LanguageClient) -> None:
    uri, _ = await _open(client, TEXT)
    use = _where(TEXT, "footing", 2)  # `DEX -2 in footing`
    found = await client.text_document_definition_async(
        lsp.DefinitionParams(text_document=lsp.TextDocumentIdentifier(uri), position=use)
    )
    assert isinstance(found, lsp.Location)
    assert found.uri == uri
    assert found.range.start == _where(TEXT, 'footing "Bad footing"')

    uses = await client.text_document_references_async(
        lsp.ReferenceParams(
            text_document=lsp.TextDocumentIdentifier(uri),
            position=use,
            context=lsp.ReferenceContext(include_declaration=True),
        )
    )
    assert uses is not None
    expected = [_position(TEXT, m.start()) for m in re.finditer(r"(?<=group )footing|(?<=in )footing", TEXT)]
    assert len(expected) == 3
    assert sorted((u.range.start.line, u.range.start.character) for u in uses) == [
        (p.line, p.character) for p in expected
    ]
    # a trait used with `as`: its declaration and its use
    trait = await client.text_document_references_async(
        lsp.ReferenceParams(
            text_document=lsp.TextDocumentIdentifier(uri),
            position=_where(TEXT, "soft_ground", 1),
            context=lsp.ReferenceContext(include_declaration=True),
        )
    )
    assert trait is not None
    starts = sorted((u.range.start.line, u.range.start.character) for u in trait)
    assert starts == [(p.line, p.character) for p in (_where(TEXT, "soft_ground"), _where(TEXT, "soft_ground", 1))]


@pytest.mark.asyncio(loop_scope="module")
async def test_completion_offers_keywords_names_and_choices(client: LanguageClient) -> None:
    uri, _ = await _open(client, TEXT)
    everything = await client.text_document_completion_async(
        lsp.CompletionParams(
            text_document=lsp.TextDocumentIdentifier(uri), position=lsp.Position(line=TEXT.count("\n"), character=0)
        )
    )
    assert isinstance(everything, lsp.CompletionList)
    labels = {item.label: item.kind for item in everything.items}
    assert labels["when"] == lsp.CompletionItemKind.Keyword
    assert labels["DEX"] == lsp.CompletionItemKind.Property
    assert labels["swimmer"] == lsp.CompletionItemKind.Variable
    assert labels["mishap"] == lsp.CompletionItemKind.Struct
    assert labels["knee"] == lsp.CompletionItemKind.EnumMember

    after = _where(TEXT, "missile:")  # `when weapon == missile:` -> complete after `weapon == `
    choices = await client.text_document_completion_async(
        lsp.CompletionParams(text_document=lsp.TextDocumentIdentifier(uri), position=after)
    )
    assert isinstance(choices, lsp.CompletionList)
    assert [item.label for item in choices.items] == ["none", "melee", "missile"]


@pytest.mark.asyncio(loop_scope="module")
async def test_document_symbols_outline_rules_and_tables(client: LanguageClient) -> None:
    uri, _ = await _open(client, TEXT)
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(text_document=lsp.TextDocumentIdentifier(uri))
    )
    assert symbols is not None
    outline = {s.name: s for s in symbols if isinstance(s, lsp.DocumentSymbol)}
    assert outline["bog"].kind == lsp.SymbolKind.Module and outline["bog"].detail == "terrain: Bog"
    assert outline["soft_ground"].kind == lsp.SymbolKind.Interface
    assert outline["mishap"].kind == lsp.SymbolKind.Struct
    assert [c.name for c in outline["bog"].children or []] == ["sink"]
    assert [c.name for c in outline["mishap"].children or []] == ["result"]
    assert outline["DEX"].kind == lsp.SymbolKind.Property
    assert outline["bog"].range.start.line == _where(TEXT, "terrain bog").line
    assert outline["bog"].range.end.line == _where(TEXT, "expect DEX").line


@pytest.mark.asyncio(loop_scope="module")
async def test_formatting_is_rulecraft_fmt(client: LanguageClient) -> None:
    from dsl.fmt import format_text

    messy = TEXT.replace('    DEX -1 in footing "soft ground"', '    DEX  -1   in footing "soft ground"').replace(
        "unit hex", "\n\nunit   hex"
    )
    assert format_text(messy) == TEXT
    uri, _ = await _open(client, messy)
    edits = await client.text_document_formatting_async(
        lsp.DocumentFormattingParams(
            text_document=lsp.TextDocumentIdentifier(uri), options=lsp.FormattingOptions(tab_size=4, insert_spaces=True)
        )
    )
    assert edits is not None and len(edits) == 1
    lines = messy.split("\n")
    assert edits[0].range == lsp.Range(lsp.Position(0, 0), lsp.Position(len(lines) - 1, len(lines[-1])))
    assert edits[0].new_text == TEXT

    # a text with a syntax error is left as it is
    uri, _ = await _open(client, TEXT.replace('terrain bog "Bog" cites "M.2":', 'terrain bog "Bog" cites "M.2"'))
    edits = await client.text_document_formatting_async(
        lsp.DocumentFormattingParams(
            text_document=lsp.TextDocumentIdentifier(uri), options=lsp.FormattingOptions(tab_size=4, insert_spaces=True)
        )
    )
    assert edits is not None and list(edits) == []


@pytest.mark.asyncio(loop_scope="module")
async def test_formatting_a_large_document_does_not_hold_up_the_diagnostics_of_another(client: LanguageClient) -> None:
    """fmt_deep.sh: a formatting request held the one parse lock while it ran, so the diagnostics
    of every other document waited for it; formatting now runs beside the analyses."""
    depth = 10_000
    deep = f'rulebook deep "Deep":\n    source "s"\n\nrule r "R" cites "c":\n    derive z = {"(" * depth}1{")" * depth}\n'
    uri, _ = await _open(client, deep)
    formatting = asyncio.ensure_future(
        client.text_document_formatting_async(
            lsp.DocumentFormattingParams(
                text_document=lsp.TextDocumentIdentifier(uri),
                options=lsp.FormattingOptions(tab_size=4, insert_spaces=True),
            )
        )
    )
    tiny = 'rulebook tiny "Tiny":\n    source "s"\n\nstat DEX: int 0..20 = 10\n\nrule mud "Mud" cites "1":\n    DXE -2\n'
    _, published = await _open(client, tiny)
    assert not formatting.done(), "the other document's diagnostics waited for the formatting"
    assert [d.code for d in published.diagnostics] == ["E101"]
    assert list(await formatting or []) == []  # the deep text is in its canonical layout already
