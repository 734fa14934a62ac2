"""`rulecraft lsp` fed raw bytes on stdin, as a broken or hostile client would send them.

Each test starts the server as a subprocess, writes bytes (well-formed messages and malformed
ones), and reads what comes back on stdout: every request gets an answer, a malformed one the
JSON-RPC error it calls for with a plain message, and the next well-formed message is served.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.watching import rulecraft

pytest.importorskip("pygls", reason="the language server needs the `workbench` extra (pip install -e '.[test]')")

MARSH = ROOT / "tests" / "fixtures" / "workbench" / "marsh.rules"
TIMEOUT = 30


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(ident: int, method: str, params: object) -> bytes:
    return frame({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})


INITIALIZE = request(1, "initialize", {"processId": None, "rootUri": None, "capabilities": {}})


class Raw:
    """`rulecraft lsp` on pipes: bytes in, framed messages out (read by a thread)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [*rulecraft(), "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.process.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                if line.startswith(b"Content-Length:"):
                    length = int(line.split(b":")[1])
                elif line == b"\r\n" and length is not None:
                    break
            self.messages.put(json.loads(out.read(length)))

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def answer(self, ident: int | None) -> dict[str, Any]:
        """The next response to `ident` (None: an error to no id), skipping notifications."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            message = self.messages.get(timeout=max(deadline - time.monotonic(), 0.01))
            assert message is not None, "the server ended: " + self.stop()
            if "id" in message and message["id"] == ident and "method" not in message:
                return message

    def stop(self) -> str:
        """Close stdin (the client has gone) and return what the server logged."""
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        assert self.process.stderr is not None
        return self.process.stderr.read().decode("utf-8", errors="replace")


@pytest.fixture
def raw() -> Iterator[Raw]:
    session = Raw()
    try:
        yield session
    finally:
        log = session.stop()
        assert "Traceback" not in log, log
        assert session.process.returncode == 0, log


def _error(message: dict[str, Any], code: int) -> str:
    assert "result" not in message, message
    error = message["error"]
    assert error["code"] == code, error
    assert error.get("data") is None and "Traceback" not in error["message"], error
    text: str = error["message"]
    return text


def _served(raw: Raw, ident: int) -> None:
    """The server still answers: a hover on a document never opened gets its empty answer."""
    at = {"textDocument": {"uri": MARSH.as_uri()}, "position": {"line": 0, "character": 0}}
    raw.send(request(ident, "textDocument/hover", at))
    assert raw.answer(ident) == {"jsonrpc": "2.0", "id": ident, "result": None}


# Each group of bad inputs goes to one server, one after another: each must leave it serving the
# next message (and a server started per case would cost a second of start-up each).

BAD_LENGTHS = [
    (b"Content-Length: 99999999999999999999\r\n\r\n{}", "is more than a message may have"),
    (b"Content-Length: 67108865\r\n\r\n{}", "is more than a message may have"),
    (b"Content-Length: -5\r\n\r\n{}", "`-5` is not a number of bytes"),
    (b"Content-Length: twelve\r\n\r\n{}", "`twelve` is not a number of bytes"),
    (b"Content-Type: application/vscode-jsonrpc\r\n\r\n{}", "a message needs a Content-Length header"),
]


def test_a_bad_content_length_is_refused_and_the_next_message_served(raw: Raw) -> None:
    """lsp_overflow.sh: `Content-Length: 99999999999999999999` ended the server (internal error:
    OverflowError); a length it cannot read is a parse error (to id null), and no body is read
    for it."""
    first, says = BAD_LENGTHS[0]
    raw.send(first)
    assert says in _error(raw.answer(None), -32700)
    raw.send(INITIALIZE)
    assert "capabilities" in raw.answer(1)["result"]
    for ident, (bad, says) in enumerate(BAD_LENGTHS[1:], start=10):
        raw.send(bad)
        assert says in _error(raw.answer(None), -32700), bad
        _served(raw, ident)


GARBAGE = [b"hello\r\n", b"\x00\xff\xfe garbage \xe2\x80\xae\r\n", b"x" * 100_000, b"\r\n\r\n\r\n", b"{}{}"]


def test_garbage_between_messages_is_skipped(raw: Raw) -> None:
    """lsp_overflow.sh: bytes that are no header, even glued to the next message's header, are
    skipped; the message after them is served."""
    raw.send(GARBAGE[0] + INITIALIZE)
    assert "capabilities" in raw.answer(1)["result"]
    at = {"textDocument": {"uri": MARSH.as_uri()}, "position": {"line": 0, "character": 0}}
    for ident, garbage in enumerate(GARBAGE[1:], start=10):
        raw.send(garbage + request(ident, "textDocument/hover", at))
        assert raw.answer(ident)["result"] is None, garbage[:40]
    raw.send(request(2, "shutdown", None))
    assert raw.answer(2)["result"] is None


def test_a_huge_body_is_not_held(raw: Raw) -> None:
    """A length past the limit reads no body: the bytes after it are skipped a line at a time,
    so 100 MB on one line never sits in the server's memory."""
    raw.send(b"Content-Length: 104857600\r\n\r\n")
    assert "is more than a message may have" in _error(raw.answer(None), -32700)
    chunk = b"A" * (1 << 20)
    for _ in range(100):
        raw.send(chunk)
    raw.send(b"\r\n" + INITIALIZE)
    assert "capabilities" in raw.answer(1)["result"]
    rss = _rss_kb(raw.process.pid)
    assert rss is None or rss < 300_000, f"{rss} KB"


def _rss_kb(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):  # the peak resident set
            return int(line.split()[1])
    return None


MALFORMED = [
    (b"{not json", -32700, None, "the message is not JSON"),
    (b"\xff\xfe{}", -32700, None, "the message is not JSON"),
    (b"[" * 100_000 + b"]" * 100_000, -32700, None, "the message is not JSON"),
    (b"[]", -32600, None, "a message is a JSON object (LSP sends no batches)"),
    (b"7", -32600, None, "a message is a JSON object"),
    (b'{"jsonrpc": "1.0", "id": 5, "method": "shutdown"}', -32600, 5, '"jsonrpc": "2.0"'),
    (b'{"jsonrpc": "2.0", "id": 5, "method": 12}', -32600, 5, "method is a string"),
    (b'{"jsonrpc": "2.0", "id": [5], "method": "shutdown"}', -32600, None, "id is a number or a string"),
    (b'{"jsonrpc": "2.0", "id": 5}', -32600, 5, "a request, a notification or a response"),
    (b'{"jsonrpc": "2.0", "id": 5, "method": "textDocument/hover", "params": 1}', -32602, 5,
     "the params of textDocument/hover are an object or an array, not 1"),
]  # fmt: skip


def test_a_malformed_message_gets_the_json_rpc_error_it_calls_for(raw: Raw) -> None:
    """lsp_overflow.sh: a message that is not JSON, not a JSON-RPC message, or has params that
    are no object got no answer at all."""
    raw.send(INITIALIZE)
    raw.answer(1)
    for serial, (body, code, ident, says) in enumerate(MALFORMED, start=10):
        raw.send(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        assert says in _error(raw.answer(ident), code), body[:60]
        _served(raw, serial)
    raw.send(request(2, "shutdown", None))
    assert raw.answer(2)["result"] is None


def test_params_that_do_not_fit_the_method_are_invalid_params(raw: Raw) -> None:
    """lsp_overflow.sh: a negative position got no response; it is -32602, saying where."""
    raw.send(INITIALIZE)
    raw.answer(1)
    document = {"uri": MARSH.as_uri()}
    raw.send(request(2, "textDocument/hover", {"textDocument": document, "position": {"line": -1, "character": 0}}))
    assert _error(raw.answer(2), -32602) == "invalid params for textDocument/hover: invalid value @ $.params.position"
    raw.send(request(3, "textDocument/hover", {"textDocument": document}))
    assert "required field missing" in _error(raw.answer(3), -32602)
    raw.send(request(4, "no/suchMethod", {}))
    assert _error(raw.answer(4), -32601)
    # a notification is never answered, even a broken one; the next request is
    raw.send(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": 1}))
    raw.send(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": 3}}))
    raw.send(request(5, "shutdown", None))
    assert raw.answer(5) == {"jsonrpc": "2.0", "id": 5, "result": None}


def test_requests_about_a_document_that_is_not_open_get_empty_answers(raw: Raw) -> None:
    """lsp_overflow.sh: completion or formatting on a document never opened read it from disk
    and answered -32603 with a Python traceback in `data`."""
    raw.send(INITIALIZE)
    raw.answer(1)
    for uri in (MARSH.as_uri(), (ROOT / "no-such-file.rules").as_uri()):
        document = {"uri": uri}
        at = {"textDocument": document, "position": {"line": 0, "character": 0}}
        asked = {
            "textDocument/completion": (at, {"isIncomplete": False, "items": []}),
            "textDocument/formatting": ({"textDocument": document, "options": {"tabSize": 4, "insertSpaces": True}}, []),
            "textDocument/hover": (at, None),
            "textDocument/definition": (at, None),
            "textDocument/references": ({**at, "context": {"includeDeclaration": True}}, []),
            "textDocument/documentSymbol": ({"textDocument": document}, []),
        }
        for ident, (method, (params, empty)) in enumerate(asked.items(), start=10):
            raw.send(request(ident, method, params))
            assert raw.answer(ident) == {"jsonrpc": "2.0", "id": ident, "result": empty}, method


def test_a_document_holding_a_lone_surrogate_gets_its_diagnostics(raw: Raw) -> None:
    """surrogate.sh: JSON can carry `"\\ud800"`, so an editor's text can hold half a character;
    in a string it is E006, elsewhere an unexpected character, and nothing fails on it."""
    raw.send(INITIALIZE)
    raw.answer(1)
    uri = (ROOT / "surrogate.rules").as_uri()
    text = 'rulebook sur "T":\n    source "s \ud800"\n\nrule r "R" cites "c":\n    note "x"\n    \ud800\n'
    raw.send(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                    "params": {"textDocument": {"uri": uri, "languageId": "rulecraft", "version": 1, "text": text}}}))  # fmt: skip
    deadline = time.monotonic() + TIMEOUT
    while True:
        message = raw.messages.get(timeout=max(deadline - time.monotonic(), 0.01))
        assert message is not None
        if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
            break
    found = [(d["code"], d["range"]["start"]["line"]) for d in message["params"]["diagnostics"]]
    assert found == [("E006", 1), ("E002", 5)]
    formatting = {"textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": True}}
    raw.send(request(2, "textDocument/formatting", formatting))
    assert raw.answer(2)["result"] == []
