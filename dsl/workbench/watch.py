"""`rulecraft watch`: rebuild a rulebook on every save, and with `--serve` keep a preview page live.

The watcher (watchfiles) follows the rulebook's directory rather than the file: editors that save
by writing a new file and renaming it over the old one replace the file a watch on it would
follow.  Changes are batched (a save often arrives as several events, and a large file may be
written in pieces) and a change that leaves the text as it was is ignored.  A half-written or
broken file is only a round with errors: the last good build stays until the text checks.  Rebuilding runs in a
worker thread, so the page stays responsive while a large rulebook compiles.

Ctrl-C (SIGINT) or SIGTERM stops watching and serving, and the command exits with 0: stopping is
how the command is meant to end.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import signal
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dsl.workbench.session import Round, Session
from dsl.workbench.summary import SKIPPED_CARDS, cards_line, summary_text

if TYPE_CHECKING:
    from dsl.workbench.server import Hub, PreviewServer

HOST = "127.0.0.1"
"""The only interface the preview is served on: it is for the designer at this machine."""

BATCH_MS = 100
"""How long the files must stay quiet before a batch of changes is handled (watchfiles' `step`):
long enough to take an editor's save (truncate, write, rename) as one change."""

MAX_BATCH_MS = 1600
"""The longest a batch is held while changes keep arriving (watchfiles' `debounce`)."""

CHECK_MS = 500
"""When no change is reported for this long, the file is compared with what was last built
anyway (a hash of its bytes): that covers a save made while the watcher was starting, and any
event a file system fails to deliver, at the cost of reading the file twice a second."""


class ServeError(Exception):
    """The preview cannot start (the port is taken, say): a usage error, with this message."""


class WatchError(Exception):
    """Watching cannot go on (the rulebook's folder was removed, say): an error, with this message."""


def listen(port: int) -> socket.socket:
    """A listening socket on the loopback interface, or ServeError saying why not."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HOST, port))
        sock.listen(64)
    except OSError as error:
        sock.close()
        raise ServeError(f"cannot serve on {HOST}:{port}: {error.strerror or error}") from None
    return sock


def watch(session: Session, echo: Callable[[str], None], *, port: int | None = None) -> None:
    """Rebuild now and after every change of the file, until Ctrl-C; serve the page if `port` is
    given (0 picks a free port).  The URL is printed before the first rebuild."""
    sock = listen(port) if port is not None else None
    asyncio.run(_run(session, echo, sock))


async def _run(session: Session, echo: Callable[[str], None], sock: socket.socket | None) -> None:
    import watchfiles

    stop = asyncio.Event()
    hub: Hub | None = None
    server: PreviewServer | None = None
    tasks: list[asyncio.Task[Any]] = []
    if sock is not None:
        from dsl.workbench.server import Hub, preview_server

        hub = Hub(session)
        server = preview_server(hub)
        tasks.append(asyncio.create_task(server.serve(sockets=[sock])))

    def stopping() -> None:
        stop.set()
        if hub is not None:
            hub.close()
        if server is not None:
            server.should_exit = True

    with _signals(stopping):
        if sock is not None:
            host, port = sock.getsockname()[:2]
            echo(f"serving the preview at http://{host}:{port}/ (Ctrl-C to stop)")
        await _round(session, echo, hub)
        echo(f"watching {session.shown} for changes (Ctrl-C to stop)")
        target = _key(session.path)
        folder = session.path.resolve().parent
        changes = watchfiles.awatch(
            folder,
            watch_filter=lambda change, path: _key(Path(path)) == target,
            step=BATCH_MS,
            debounce=MAX_BATCH_MS,
            recursive=False,
            stop_event=stop,
            rust_timeout=CHECK_MS,
            yield_on_timeout=True,
        )
        problem: WatchError | None = None
        try:
            async for _ in changes:
                if stop.is_set():
                    break
                if not folder.is_dir():  # not every file system tells the watcher
                    raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(folder))
                if session.changed():
                    await _round(session, echo, hub)
        except OSError as error:  # the folder itself went away, or cannot be watched
            problem = WatchError(f"cannot watch {folder}: {error.strerror or error}")
        stopping()
        await asyncio.gather(*tasks)
    if problem is not None:
        raise problem
    echo("stopped watching")


async def _round(session: Session, echo: Callable[[str], None], hub: Hub | None) -> None:
    found: Round = await asyncio.to_thread(session.check)
    if hub is not None:
        hub.publish(found)  # the page updates now; examples and files follow
    await asyncio.to_thread(session.finish, found)
    if hub is not None:
        hub.publish(found)  # with the examples' results
    echo(summary_text(found, session))
    if found.good is None or session.output is None or not session.cards:
        return
    if session.changed():  # saved again meanwhile: the next round's cards replace these anyway
        echo(SKIPPED_CARDS)
        return
    await asyncio.to_thread(session.write_cards, found)
    echo(cards_line(found, session))


def _key(path: Path) -> str:
    return str(path.resolve())


@contextlib.contextmanager
def _signals(handler: Callable[[], None]) -> Iterator[None]:
    """Run `handler` on SIGINT and SIGTERM instead of raising KeyboardInterrupt, for the time
    being (where the loop cannot take signals, Ctrl-C raises KeyboardInterrupt as usual)."""
    loop = asyncio.get_running_loop()
    installed = []
    for number in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(number, handler)
        except (NotImplementedError, RuntimeError):
            continue
        installed.append(number)
    try:
        yield
    finally:
        for number in installed:
            loop.remove_signal_handler(number)
