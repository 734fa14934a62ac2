"""The preview page's web application (Starlette), served on the loopback interface only.

Routes: `/` the page and `/static/*` its script and styles; `/api/state` the rulebook's state;
`/api/resolve` a resolution; `/cards` the screen cards (of `?rule=NAME`s, or all); `/events` a
server-sent event stream that says "the state changed" after each rebuild, so the page refetches.

The page's script puts rulebook text into the page only as text nodes, and the cards are the
build's own escaped HTML; the headers add a content security policy (no inline or foreign
scripts) as a second line of defence.  A request naming any host but the loopback's is refused,
so another web site cannot reach the server by pointing a name of its own at 127.0.0.1; one from
a page of another origin, one with a body larger than 1 MB or one whose body is not JSON is
refused before its body is read (dsl/workbench/guard.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from dsl.workbench.guard import HEADERS, LOOPBACK_NAMES, RequestGuard
from dsl.workbench.playground import RequestError, cards_page, page_state, resolve
from dsl.workbench.session import Round, Session

STATIC = Path(__file__).resolve().parent / "static"

_PAGE_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; frame-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'none'"
)
_CARDS_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'"


class Hub:
    """The latest round and the event streams waiting to hear of the next one."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.latest: Round | None = None
        self.version = 0
        self._streams: set[asyncio.Queue[int | None]] = set()
        self.closed = False

    def publish(self, latest: Round) -> None:
        self.latest = latest
        self.version += 1
        for queue in self._streams:
            queue.put_nowait(self.version)

    def close(self) -> None:
        """End every event stream (the server is stopping: an open stream would hold it up)."""
        self.closed = True
        for queue in self._streams:
            queue.put_nowait(None)

    async def versions(self) -> AsyncIterator[int]:
        queue: asyncio.Queue[int | None] = asyncio.Queue()
        self._streams.add(queue)
        try:
            if self.closed:
                return
            yield self.version
            while (version := await queue.get()) is not None:
                yield version
        finally:
            self._streams.discard(queue)

    def state(self) -> dict[str, Any]:
        return page_state(self.session, self.latest, self.version)


def create_app(hub: Hub) -> Starlette:
    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={**HEADERS, "Content-Security-Policy": _PAGE_POLICY})

    async def state(request: Request) -> Response:
        return JSONResponse(hub.state(), headers=HEADERS)

    async def resolution(request: Request) -> Response:
        good = hub.session.good
        if good is None:
            return JSONResponse({"error": "the rulebook has not built yet: fix its errors"}, 409, headers=HEADERS)
        try:
            payload = json.loads(await request.body())
        except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested past reading
            return JSONResponse({"error": "send JSON"}, 400, headers=HEADERS)
        try:
            answer = resolve(good, payload)
        except RequestError as error:
            return JSONResponse({"error": str(error)}, 400, headers=HEADERS)
        return JSONResponse({"version": hub.version, "resolution": answer}, headers=HEADERS)

    async def cards(request: Request) -> Response:
        good = hub.session.good
        if good is None:
            return Response("no good build yet", 409, media_type="text/plain", headers=HEADERS)
        page = cards_page(good, request.query_params.getlist("rule"))
        headers = {**HEADERS, "Content-Security-Policy": _CARDS_POLICY}
        return Response(page, media_type="text/html; charset=utf-8", headers=headers)

    async def events(request: Request) -> Response:
        async def stream() -> AsyncIterator[str]:
            yield "retry: 1000\n\n"
            async for version in hub.versions():
                yield f"event: state\ndata: {version}\n\n"

        headers = {**HEADERS, "X-Accel-Buffering": "no"}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    routes = [
        Route("/", index),
        Route("/api/state", state),
        Route("/api/resolve", resolution, methods=["POST"]),
        Route("/cards", cards),
        Route("/events", events),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=list(LOOPBACK_NAMES)), Middleware(RequestGuard)]
    return Starlette(routes=routes, middleware=middleware)


class PreviewServer(uvicorn.Server):
    """uvicorn's server, leaving signals to the watch loop, which stops the server itself (and
    ends the event streams first, so that stopping does not wait for them)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def preview_server(hub: Hub) -> PreviewServer:
    config = uvicorn.Config(
        create_app(hub),
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=2,
    )
    return PreviewServer(config)
