"""The rulecraft language server (pygls), over stdio.

Each open document is compiled in a worker thread as the designer types; the diagnostics
published are the ones `rulecraft check` prints (same codes, same messages, the hint on a second
line), placed by their spans.  Edits arriving while a compile runs are taken together by the next
compile, so a fast typist never queues a compile per keystroke, and only the diagnostics of the
latest text are published.  Requests (hover, definition ...) wait for the analysis of the text
they were made on, so an answer never points into an older version of the document.

Formatting is `rulecraft fmt`'s (dsl/fmt.py): the whole document, replaced by its canonical
layout; a text with syntax errors is left as it is (its diagnostics are already shown).

Analyses run one at a time, whatever the document (each takes the CPU and memory a compile
takes).  Formatting runs beside them, not after them: the parser reads several texts at once
(dsl.parser.RulecraftIndenter), so formatting a large document does not hold up the diagnostics
of the others.

Every request is answered.  One about a document that is not open gets the empty answer (no
hover, no edits, no completions), never a read of the file on disk; a bug met while answering is
an internal error (-32603) with a one-line message.  Malformed input (headers, JSON, params) is
dsl/lsp/stdio.py's to refuse.

Positions: spans count characters from 1; LSP counts UTF-16 code units (or what the client
chose) from 0.  pygls' position codec converts between the two on the document's own lines.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TypeVar

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace.position_codec import PositionCodec

from dsl import __version__
from dsl.codes import Level
from dsl.compiler import Compiled, compile_text, deep, display_path, generate, load_module
from dsl.diagnostics import Diagnostic, Span
from dsl.fmt import FormatError, format_text
from dsl.lsp.index import Index, Symbol, build_index
from dsl.lsp.info import completions, hover_text
from dsl.lsp.stdio import serve

SOURCE = "rulecraft"

_COMPLETION_KINDS = {
    "keyword": lsp.CompletionItemKind.Keyword,
    "stat": lsp.CompletionItemKind.Property,
    "input": lsp.CompletionItemKind.Variable,
    "derive": lsp.CompletionItemKind.Variable,
    "member": lsp.CompletionItemKind.EnumMember,
    "unit": lsp.CompletionItemKind.Unit,
    "type": lsp.CompletionItemKind.TypeParameter,
    "group": lsp.CompletionItemKind.Module,
    "grade": lsp.CompletionItemKind.EnumMember,
    "tiers": lsp.CompletionItemKind.Enum,
    "tier": lsp.CompletionItemKind.EnumMember,
    "table": lsp.CompletionItemKind.Struct,
    "column": lsp.CompletionItemKind.Field,
    "roll": lsp.CompletionItemKind.Event,
}
_RULE_COMPLETION = lsp.CompletionItemKind.Function

_SYMBOL_KINDS = {
    "rule": lsp.SymbolKind.Function,
    "terrain": lsp.SymbolKind.Module,
    "condition": lsp.SymbolKind.Event,
    "trait": lsp.SymbolKind.Interface,
    "table": lsp.SymbolKind.Struct,
    "column": lsp.SymbolKind.Field,
    "stat": lsp.SymbolKind.Property,
    "input": lsp.SymbolKind.Variable,
    "unit": lsp.SymbolKind.Constant,
    "type": lsp.SymbolKind.TypeParameter,
    "group": lsp.SymbolKind.Namespace,
    "grade": lsp.SymbolKind.EnumMember,
    "tiers": lsp.SymbolKind.Enum,
    "tier": lsp.SymbolKind.EnumMember,
    "derive": lsp.SymbolKind.Variable,
    "roll": lsp.SymbolKind.Method,
}

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------------------- analyses


@dataclass
class Analysis:
    """One version of a document, compiled and indexed."""

    version: int
    compiled: Compiled
    index: Index
    _module: ModuleType | None = None
    _loaded: bool = False

    @property
    def lines(self) -> list[str]:
        return self.compiled.text.split("\n")

    def module(self) -> ModuleType | None:
        """The generated resolver, loaded on first use (hover on a roll); None with errors."""
        if not self._loaded:
            self._loaded = True
            if self.compiled.ok and self.compiled.book is not None:
                self._module = load_module(generate(self.compiled), self.compiled.book.name)
        return self._module


def analyze(text: str, path: str, version: int) -> Analysis:
    compiled = compile_text(text, path)
    return Analysis(version, compiled, deep(build_index, compiled.tree, compiled.book))


@dataclass
class _Tracked:
    text: str = ""
    version: int = 0
    path: str = ""
    wanted: int = 0
    done: int = 0
    analysis: Analysis | None = None
    indexed: Analysis | None = None
    """The latest analysis that found any declaration: completion offers its names while the
    text being typed does not parse."""
    idle: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None


class Documents:
    """The open documents and their latest analyses (one compile at a time per document)."""

    def __init__(self, finished: Callable[[str, Analysis], None]) -> None:
        self._docs: dict[str, _Tracked] = {}
        self._finished = finished
        self.analyzing = asyncio.Lock()
        """Held while a text is analyzed, in a worker thread: one analysis at a time."""

    def update(self, uri: str, version: int, text: str) -> None:
        doc = self._docs.setdefault(uri, _Tracked(path=_path_of(uri)))
        doc.text, doc.version = text, version
        doc.wanted += 1
        doc.idle.clear()
        if doc.task is None or doc.task.done():
            doc.task = asyncio.create_task(self._catch_up(uri, doc))

    def close(self, uri: str) -> None:
        self._docs.pop(uri, None)

    def text(self, uri: str) -> tuple[str, str] | None:
        """The latest text of an open document, with its path; None if it is not open."""
        doc = self._docs.get(uri)
        return None if doc is None else (doc.text, doc.path)

    async def current(self, uri: str) -> Analysis | None:
        doc = self._docs.get(uri)
        if doc is None:
            return None
        await doc.idle.wait()
        return doc.analysis

    async def indexed(self, uri: str) -> Analysis | None:
        doc = self._docs.get(uri)
        if doc is None:
            return None
        await doc.idle.wait()
        return doc.indexed

    async def _catch_up(self, uri: str, doc: _Tracked) -> None:
        while doc.done < doc.wanted:
            wanted, text, version = doc.wanted, doc.text, doc.version
            try:
                async with self.analyzing:
                    analysis = await asyncio.to_thread(analyze, text, doc.path, version)
            except Exception:  # a bug in rulecraft: say so in the editor's log, keep serving
                logger.exception("rulecraft could not analyze %s", uri)
                doc.done = wanted
                continue
            doc.analysis, doc.done = analysis, wanted
            if analysis.index.symbols:
                doc.indexed = analysis
            if doc.done == doc.wanted and self._docs.get(uri) is doc:
                self._finished(uri, analysis)
        doc.idle.set()


def _path_of(uri: str) -> str:
    path = to_fs_path(uri)
    return display_path(Path(path)) if path else uri


# ---------------------------------------------------------------------------- positions


def _clamp(lines: list[str], line: int, column: int) -> tuple[int, int]:
    """A 1-based span position as a 0-based (line, character) within the text."""
    if line > len(lines):
        return len(lines) - 1, len(lines[-1])
    row = max(line - 1, 0)
    return row, min(max(column - 1, 0), len(lines[row]))


def to_range(span: Span, lines: list[str], codec: PositionCodec) -> lsp.Range:
    start = _clamp(lines, span.line, span.column)
    end = _clamp(lines, span.end_line, span.end_column)
    if end < start:
        end = start
    server_range = lsp.Range(lsp.Position(*start), lsp.Position(*end))
    return codec.range_to_client_units(lines, server_range)


def from_position(position: lsp.Position, lines: list[str], codec: PositionCodec) -> tuple[int, int]:
    """An LSP position as the 1-based line and column that spans use."""
    server = codec.position_from_client_units(lines, position)
    return server.line + 1, server.character + 1


def whole_range(text: str, codec: PositionCodec) -> lsp.Range:
    """From the start of a text to its end, in the client's units."""
    lines = text.split("\n")
    last = lines[-1].removesuffix("\r")
    return lsp.Range(lsp.Position(0, 0), lsp.Position(len(lines) - 1, codec.client_num_units(last)))


def to_diagnostic(diagnostic: Diagnostic, lines: list[str], codec: PositionCodec) -> lsp.Diagnostic:
    message = diagnostic.message + (f"\nhint: {diagnostic.hint}" if diagnostic.hint else "")
    severity = lsp.DiagnosticSeverity.Error if diagnostic.severity is Level.ERROR else lsp.DiagnosticSeverity.Warning
    return lsp.Diagnostic(
        range=to_range(diagnostic.span, lines, codec),
        message=message,
        severity=severity,
        code=diagnostic.code,
        source=SOURCE,
    )


def _trimmed(span: Span, lines: list[str]) -> Span:
    """A declaration's span without the blank lines and comments that follow it (the parser's
    span of a block runs up to the next declaration)."""
    end_line, end_column = span.end_line, span.end_column
    if end_column == 1 and end_line > span.line:
        end_line -= 1
        while end_line > span.line and (
            not lines[end_line - 1].strip() or lines[end_line - 1].lstrip().startswith("#")
        ):
            end_line -= 1
        end_column = len(lines[end_line - 1]) + 1
    return Span(span.path, span.line, span.column, end_line, end_column)


# ---------------------------------------------------------------------------- the server

_P = TypeVar("_P")
_R = TypeVar("_R")


def _answering(handler: Callable[[_P], Awaitable[_R]]) -> Callable[[_P], Awaitable[_R]]:
    """A request handler whose failure (a bug in rulecraft) is answered as an internal error with
    a one-line message, and logged as one line: pygls would send its traceback as the error's data."""

    @functools.wraps(handler)
    async def answer(params: _P) -> _R:
        try:
            return await handler(params)
        except JsonRpcException:
            raise
        except Exception as error:
            what = f"{type(error).__name__}: {error}"[:200]
            logger.error("internal error in %s: %s", handler.__name__, what)
            raise JsonRpcInternalError(f"internal error: {what} (this is a bug in rulecraft; please report it)") from None

    return answer


def create_server() -> LanguageServer:
    server = LanguageServer("rulecraft", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)

    def publish(uri: str, analysis: Analysis) -> None:
        lines = analysis.lines
        codec = server.workspace.position_codec
        server.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(
                uri=uri,
                version=analysis.version,
                diagnostics=[to_diagnostic(d, lines, codec) for d in analysis.compiled.diagnostics],
            )
        )

    documents = Documents(publish)

    def changed(uri: str) -> None:
        document = server.workspace.get_text_document(uri)  # pygls has just stored the open document's text
        documents.update(uri, document.version or 0, document.source)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: lsp.DidOpenTextDocumentParams) -> None:
        changed(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: lsp.DidChangeTextDocumentParams) -> None:
        if documents.text(params.text_document.uri) is None:  # never opened: no text to change
            logger.warning("a change to %s, which is not open", params.text_document.uri)
            return
        changed(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: lsp.DidCloseTextDocumentParams) -> None:
        documents.close(params.text_document.uri)
        server.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
        )

    async def at(uri: str, position: lsp.Position) -> tuple[Analysis, Symbol, Span] | None:
        analysis = await documents.current(uri)
        if analysis is None:
            return None
        line, column = from_position(position, analysis.lines, server.workspace.position_codec)
        occurrence = analysis.index.at(line, column)
        if occurrence is None:
            return None
        return analysis, occurrence.symbol, occurrence.span

    def location(uri: str, span: Span, analysis: Analysis) -> lsp.Location:
        return lsp.Location(uri=uri, range=to_range(span, analysis.lines, server.workspace.position_codec))

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    @_answering
    async def hover(params: lsp.HoverParams) -> lsp.Hover | None:
        found = await at(params.text_document.uri, params.position)
        if found is None:
            return None
        analysis, symbol, span = found
        text = await asyncio.to_thread(hover_text, symbol, analysis.compiled, analysis.module)
        return lsp.Hover(
            contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text),
            range=to_range(span, analysis.lines, server.workspace.position_codec),
        )

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    @_answering
    async def definition(params: lsp.DefinitionParams) -> lsp.Location | None:
        found = await at(params.text_document.uri, params.position)
        if found is None:
            return None
        analysis, symbol, _ = found
        return location(params.text_document.uri, symbol.span, analysis)

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    @_answering
    async def references(params: lsp.ReferenceParams) -> list[lsp.Location]:
        found = await at(params.text_document.uri, params.position)
        if found is None:
            return []
        analysis, symbol, _ = found
        uses = analysis.index.references(symbol, declaration=params.context.include_declaration)
        return [location(params.text_document.uri, use.span, analysis) for use in uses]

    @server.feature(
        lsp.TEXT_DOCUMENT_COMPLETION,
        lsp.CompletionOptions(trigger_characters=["{", "=", " ", "["]),
    )
    @_answering
    async def completion(params: lsp.CompletionParams) -> lsp.CompletionList:
        opened = documents.text(params.text_document.uri)
        if opened is None:
            return lsp.CompletionList(is_incomplete=False, items=[])
        analysis = await documents.indexed(params.text_document.uri)
        lines = opened[0].replace("\r\n", "\n").replace("\r", "\n").split("\n")
        line, column = from_position(params.position, lines, server.workspace.position_codec)
        before = lines[line - 1][: column - 1] if line <= len(lines) else ""
        index = analysis.index if analysis is not None else Index()
        items = [
            lsp.CompletionItem(
                label=item.label,
                kind=_COMPLETION_KINDS.get(item.kind, _RULE_COMPLETION),
                detail=item.detail,
                sort_text=("1" if item.kind == "keyword" else "0") + item.label,
            )
            for item in completions(index, before)
        ]
        return lsp.CompletionList(is_incomplete=False, items=items)

    @server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
    @_answering
    async def formatting(params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit]:
        opened = documents.text(params.text_document.uri)
        if opened is None:
            return []
        text, path = opened
        try:
            formatted = await asyncio.to_thread(format_text, text, path)
        except FormatError:
            return []
        if formatted == text:
            return []
        return [lsp.TextEdit(range=whole_range(text, server.workspace.position_codec), new_text=formatted)]

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @_answering
    async def document_symbols(params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        analysis = await documents.current(params.text_document.uri)
        if analysis is None:
            return []
        return outline(analysis, server.workspace.position_codec)

    return server


_OUTLINED = ("stat", "input", "unit", "type", "group", "tiers", "rule", "terrain", "condition", "trait", "table")
_CHILDREN = ("derive", "roll", "column", "tier")


def outline(analysis: Analysis, codec: PositionCodec) -> list[lsp.DocumentSymbol]:
    """Declarations in the order written; rules hold their rolls and derives, tables their
    columns, tiers their outcomes."""
    lines = analysis.lines
    children: dict[tuple[str, str], list[lsp.DocumentSymbol]] = {}
    for symbol in analysis.index.symbols:
        if symbol.kind not in _CHILDREN or symbol.container is None:
            continue
        span = symbol.node.span if symbol.kind in ("derive", "roll") else symbol.span
        key = ("tiers" if symbol.kind == "tier" else "decl", symbol.container)
        children.setdefault(key, []).append(
            lsp.DocumentSymbol(
                name=symbol.name,
                detail=symbol.kind,
                kind=_SYMBOL_KINDS[symbol.kind],
                range=to_range(_trimmed(span, lines), lines, codec),
                selection_range=to_range(symbol.span, lines, codec),
            )
        )
    symbols: list[lsp.DocumentSymbol] = []
    for symbol in analysis.index.symbols:
        if symbol.kind not in _OUTLINED:
            continue
        key = ("tiers" if symbol.kind == "tiers" else "decl", symbol.name)
        symbols.append(
            lsp.DocumentSymbol(
                name=symbol.name,
                detail=_outline_detail(symbol),
                kind=_SYMBOL_KINDS[symbol.kind],
                range=to_range(_trimmed(symbol.node.span, lines), lines, codec),
                selection_range=to_range(symbol.span, lines, codec),
                children=children.pop(key, []),
            )
        )
    symbols.sort(key=lambda s: (s.range.start.line, s.range.start.character))
    return symbols


def _outline_detail(symbol: Symbol) -> str:
    title = getattr(symbol.node, "title", None) or getattr(symbol.node, "label", None)
    text = getattr(title, "value", None)
    return f"{symbol.kind}: {text}" if text else symbol.kind


def serve_stdio() -> None:
    serve(create_server())
