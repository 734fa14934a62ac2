"""What a request to the preview server must be before the application reads any of it.

The preview listens on the loopback interface, but the designer's browser can reach it from any
page it shows: a page elsewhere may send a "simple" cross-origin POST (`text/plain`, no preflight)
to 127.0.0.1:8000, and the server would read its body whole, however large (a 100 MB body took
the server from 83 MB to 730 MB).  So, as ASGI middleware, in this order:

- a request that names an `Origin` must name the server's own (`http://127.0.0.1:PORT` or
  `http://localhost:PORT`, the port it serves on): 403 otherwise.  A browser names the origin of
  the page on every cross-origin request and every POST; tools such as curl name none;
- a body is at most MAX_BODY_BYTES: a larger `Content-Length` is refused at once (413) without
  reading a byte of it, and a body sent without one (chunked) is counted as it arrives and
  refused as soon as it passes the limit; uvicorn reads no further than the application asks;
- a request with a body (any method but GET and HEAD) says `Content-Type: application/json`:
  415 otherwise.  A page elsewhere cannot send that type without a preflight, which this server
  never grants.

Each refusal is a JSON object `{"error": "..."}`, as the application's own errors are.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY_BYTES = 1024 * 1024
"""The largest request body read: a resolution request is a few hundred bytes."""

LOOPBACK_NAMES = ("127.0.0.1", "localhost")
"""The host names the preview answers to (a request naming any other is refused)."""

HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}
"""The headers of every answer of the preview's."""


class _TooLarge(Exception):
    """A body passed MAX_BODY_BYTES while it was read."""


class RequestGuard:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = _refusal(scope, Headers(scope=scope))
        if refusal is not None:
            status, message = refusal
            await JSONResponse({"error": message}, status, headers=HEADERS)(scope, receive, send)
            return
        received = 0
        started = False

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > MAX_BODY_BYTES:
                    raise _TooLarge
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except _TooLarge:
            if started:
                raise
            await JSONResponse({"error": _too_large()}, 413, headers=HEADERS)(scope, receive, send)


def _refusal(scope: Scope, headers: Headers) -> tuple[int, str] | None:
    """The status and message refusing a request from what its first line and headers say."""
    origin = headers.get("origin")
    if origin is not None and origin not in _own_origins(scope):
        return 403, f"requests from {_clip(origin)} are refused: the preview answers its own page only"
    length = headers.get("content-length")
    if length is not None:
        digits = length.strip()
        if not digits.isdigit() or not digits.isascii():
            return 400, f"Content-Length {_clip(length)} is not a number of bytes"
        if len(digits) > len(str(MAX_BODY_BYTES)) or int(digits) > MAX_BODY_BYTES:
            return 413, _too_large()
    if scope["method"] not in ("GET", "HEAD"):
        media_type = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if media_type != "application/json":
            shown = _clip(media_type) if media_type else "none"
            return 415, f"send JSON with Content-Type: application/json (this request's type: {shown})"
    return None


def _own_origins(scope: Scope) -> set[str]:
    """The origins of the preview page as the browser names them: the server's port on each
    loopback name it answers to."""
    server = scope.get("server")
    if not server or server[1] is None:
        return set()
    return {f"http://{name}:{server[1]}" for name in LOOPBACK_NAMES}


def _too_large() -> str:
    return f"the request is larger than {MAX_BODY_BYTES // 1024} KB: the preview reads no more"


def _clip(text: str, limit: int = 80) -> str:
    """A header's text as a message quotes it: short, and in ASCII."""
    shown = text[:limit].encode("ascii", "backslashreplace").decode("ascii")
    return f"`{shown}{'...' if len(text) > limit else ''}`"
