"""The language server's messages over stdio, read so that no input stops the server.

pygls' own loop reads a message's `Content-Length` and then that many bytes, whatever the number
says (an absurd one ended the server with OverflowError, a huge one would be waited for and held
whole), and drops a request whose params do not fit its method without answering it.  This loop
takes the bytes apart itself and hands pygls only JSON-RPC messages it can structure:

- a header block is lines `Name: value` up to a blank line; its Content-Length must be a number
  of at most MAX_MESSAGE_BYTES.  A block without one, or with another, is answered with a parse
  error (-32700, to id null: no id can be read) and no body is read for it;
- anything else between messages is skipped, a line at a time (a line no longer than
  MAX_HEADER_BYTES is held); a line that ends with a `Content-Length:` header (a message glued to
  the rest of a body whose length was wrong) starts a header block there;
- a body must be JSON (-32700) holding one JSON-RPC 2.0 request, notification or response
  (-32600 Invalid Request otherwise); a request whose params do not fit its method is answered
  -32602 Invalid Params, saying where they do not fit.

Every error is answered with a plain message (no traceback in `data`); a notification, which
JSON-RPC never answers, is logged instead.  The log (stderr) holds one line per event.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import cattrs
from pygls.exceptions import JsonRpcException
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

MAX_MESSAGE_BYTES: Final = 64 * 1024 * 1024
"""The largest body read: six times the largest rulebook (dsl.compiler.MAX_FILE_BYTES), as a JSON
string may write each character of its text in up to six bytes (`\\u001f`)."""

MAX_HEADER_BYTES: Final = 4096
"""The longest header line: `Content-Type: application/vscode-jsonrpc; charset=utf-8` is 56."""

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603

MessageId = int | str

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Refused:
    """A message that cannot be handled, and the error that answers it (to `id`, None when it
    cannot be told); `answer` is False for a notification, which is logged instead."""

    code: int
    message: str
    id: MessageId | None = None
    answer: bool = True


class Frames:
    """The bodies of the messages read by `read` (os.read of a descriptor: a blocked read holds
    no lock of Python's buffered files, which a daemon thread still waiting at exit would keep
    from the interpreter's last flush), one at a time."""

    def __init__(self, read: Callable[[int], bytes]) -> None:
        self.read = read
        self.buffer = bytearray()
        self.ended = False
        self.skipping = False
        """Whether the line before was skipped (one log line per run of skipped lines)."""

    def next(self) -> bytes | Refused | None:
        """The next message's body; Refused for a header block that gives no readable length;
        None at the end of the input."""
        length: int | None = None
        problem: str | None = None
        started = False
        while True:
            line = self._line()
            if line is None:
                return None
            if not line:
                if started:
                    break  # the blank line that ends a header block
                continue  # a blank line between messages
            header = _header(line)
            if header is None:
                started, length, problem = False, None, None
                if not self.skipping:
                    logger.warning("skipped input that is not a message header: %s", _shown(line))
                self.skipping = True
                glued = line.lower().rfind(b"content-length:")
                header = _header(line[glued:]) if glued > 0 else None
                if header is None:
                    continue
            self.skipping = False
            started = True
            name, value = header
            if name == b"content-length":
                length, problem = _length(value)
        if problem is not None:
            return Refused(PARSE_ERROR, problem)
        if length is None:
            return Refused(PARSE_ERROR, "a message needs a Content-Length header")
        return self._exactly(length)

    def _fill(self) -> bool:
        """Read more into the buffer; False at the end of the input."""
        if not self.ended:
            chunk = self.read(1 << 16)
            self.ended = not chunk
            self.buffer += chunk
        return not self.ended

    def _line(self) -> bytes | None:
        """The next line without its line break.  Of a line longer than a header can be, only the
        last MAX_HEADER_BYTES are kept (where a glued header would be).  None at the end."""
        searched = 0
        while (end := self.buffer.find(b"\n", searched)) < 0:
            if len(self.buffer) > 2 * MAX_HEADER_BYTES:
                del self.buffer[:-MAX_HEADER_BYTES]
            searched = len(self.buffer)
            if not self._fill():
                if not self.buffer:
                    return None
                end = len(self.buffer) - 1
                break
        line = bytes(self.buffer[: end + 1])
        del self.buffer[: end + 1]
        return line.rstrip(b"\r\n")

    def _exactly(self, length: int) -> bytes | None:
        """The next `length` bytes; None if the input ends first."""
        while len(self.buffer) < length:
            if not self._fill():
                return None
        body = bytes(self.buffer[:length])
        del self.buffer[:length]
        return body


def _header(line: bytes) -> tuple[bytes, bytes] | None:
    """`Name: value` as (the name in lower case, the value), or None for a line that is no header."""
    name, colon, value = line.partition(b":")
    if not colon or not name or len(line) > MAX_HEADER_BYTES:
        return None
    if not all(char in _NAME_BYTES for char in name):
        return None
    return name.lower(), value.strip()


_NAME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")


def _length(value: bytes) -> tuple[int | None, str | None]:
    """The body length a Content-Length header gives, or the problem with it."""
    if not value.isdigit():
        return None, f"Content-Length {_shown(value)} is not a number of bytes"
    if len(value) > len(str(MAX_MESSAGE_BYTES)) or int(value) > MAX_MESSAGE_BYTES:
        return None, f"Content-Length {_shown(value)} is more than a message may have ({MAX_MESSAGE_BYTES} bytes)"
    return int(value), None


def _shown(data: bytes, limit: int = 40) -> str:
    """Bytes from the input, as a message quotes them: clipped, and escaped where not ASCII."""
    text = data[:limit].decode("ascii", errors="backslashreplace")
    return f"`{text}{'...' if len(data) > limit else ''}`"


# ---------------------------------------------------------------------------- messages


def envelope(data: object) -> Refused | None:
    """Why a JSON value is not a JSON-RPC 2.0 message pygls can take, if it is not."""
    if not isinstance(data, dict):
        batch = " (LSP sends no batches)" if isinstance(data, list) else ""
        return Refused(INVALID_REQUEST, f"a message is a JSON object{batch}")
    has_id = "id" in data
    ident = data.get("id")
    good_id = isinstance(ident, (int, str)) and not isinstance(ident, bool)
    reply_to = ident if good_id else None
    if data.get("jsonrpc") != "2.0":
        return Refused(INVALID_REQUEST, 'a message says "jsonrpc": "2.0"', reply_to)
    if has_id and not good_id:
        return Refused(INVALID_REQUEST, "a message's id is a number or a string")
    if "method" not in data:
        if not has_id or ("result" not in data and "error" not in data):
            return Refused(INVALID_REQUEST, "a message is a request, a notification or a response", reply_to)
        return None
    method = data["method"]
    if not isinstance(method, str):
        return Refused(INVALID_REQUEST, "a message's method is a string", reply_to)
    params = data.get("params")
    if params is not None and not isinstance(params, (dict, list)):  # null is no params, as clients send for `shutdown`
        wanted = f"the params of {_clip(method)} are an object or an array, not {_clip(json.dumps(params))}"
        return Refused(INVALID_PARAMS, wanted, reply_to, answer=has_id)
    return None


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _misfit(error: JsonRpcException) -> str:
    """Where params failed to fit their type, as cattrs tells it (`invalid value @ $.params.position`)."""
    cause = error.__cause__
    if isinstance(cause, cattrs.ClassValidationError):
        return "; ".join(_clip(line, 200) for line in cattrs.transform_error(cause)[:3])
    return "they do not fit the method"


class Session:
    """Hands the messages of a stream to a pygls server and writes what refuses them."""

    def __init__(self, server: LanguageServer, frames: Frames, writer: StdoutWriter) -> None:
        self.server = server
        self.frames = frames
        self.writer = writer

    async def run(self) -> None:
        """Handle messages until the input ends."""
        loop = asyncio.get_running_loop()
        ready: asyncio.Queue[bytes | Refused | None] = asyncio.Queue()
        taken = threading.Semaphore(1)
        reader = threading.Thread(target=self._read, args=(loop, ready, taken), name="rulecraft-lsp-reader", daemon=True)
        reader.start()
        while True:
            frame = await ready.get()
            taken.release()
            if frame is None:
                return
            if isinstance(frame, Refused):
                self.refuse(frame)
            else:
                self.handle(frame)

    def _read(self, loop: asyncio.AbstractEventLoop, ready: asyncio.Queue[bytes | Refused | None], taken: threading.Semaphore) -> None:
        """Read frames in a thread of their own (a read blocks), one ahead of the loop at most
        (a client that floods the server is read no faster than it is served).  A daemon thread:
        a read still waiting when the server exits does not hold the process up."""
        while True:
            taken.acquire()
            try:
                frame = self.frames.next()
            except OSError as error:  # the input broke
                logger.warning("cannot read the input: %s", error)
                frame = None
            try:
                loop.call_soon_threadsafe(ready.put_nowait, frame)
            except RuntimeError:  # the loop has closed: the server is gone
                return
            if frame is None:
                return

    def handle(self, body: bytes) -> None:
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as error:  # not JSON, not UTF-8, or nested past reading
            self.refuse(Refused(PARSE_ERROR, f"the message is not JSON: {_clip(str(error), 200)}"))
            return
        refused = envelope(data)
        if refused is not None:
            self.refuse(refused)
            return
        protocol = self.server.protocol
        request = "method" in data and "id" in data
        try:
            message = protocol.structure_message(data)
        except JsonRpcException as error:
            if "method" in data:
                why = f"invalid params for {_clip(data['method'])}: {_misfit(error)}"
                self.refuse(Refused(INVALID_PARAMS, why, data.get("id"), answer=request))
            else:
                logger.warning("a response that does not fit its request: %s", _misfit(error))
            return
        try:
            protocol.handle_message(message)
        except Exception as error:  # a bug: say so, keep serving
            logger.error("internal error: %s: %s", type(error).__name__, error)
            if request:
                self.refuse(Refused(INTERNAL_ERROR, f"internal error: {type(error).__name__}", data["id"]))

    def refuse(self, refused: Refused) -> None:
        if not refused.answer:
            logger.warning("ignored a notification: %s", refused.message)
            return
        error = {"code": refused.code, "message": refused.message}
        body = json.dumps({"jsonrpc": "2.0", "id": refused.id, "error": error}).encode("utf-8")
        self.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)


class OneLine(logging.Formatter):
    """Log records as one line each: the first line of the message, without a traceback (pygls
    logs the traceback of every message it cannot structure; an editor's log is no place for it)."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage().split("\n", 1)[0]
        return f"rulecraft lsp: {record.levelname.lower()}: {message}"


def serve(server: LanguageServer) -> None:
    """Serve `server` over stdin and stdout until the input ends or the client says `exit`."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine())
    logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)
    writer = StdoutWriter(sys.stdout.buffer)
    server.protocol.set_writer(writer)
    frames = Frames(functools.partial(os.read, sys.stdin.fileno()))
    try:
        asyncio.run(Session(server, frames, writer).run())
    except BrokenPipeError:
        logger.warning("the client has gone; stopping")
    except (KeyboardInterrupt, SystemExit):  # `exit` from the client, or Ctrl-C
        pass
