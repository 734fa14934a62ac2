"""The file a sweep writes (`sweep -o FILE`): whole, or not at all.

A sweep can run for minutes and be stopped at any point (Ctrl-C, a job scheduler's SIGTERM, a
closed terminal's SIGHUP, a situation the resolver refuses).  Its rows go to a temporary file
beside FILE, renamed over it only once the last row is written: until then FILE keeps what it
held (the previous sweep's results), and a sweep that does not finish removes its temporary
file.  The rename is atomic because the temporary file is in FILE's own directory.

SIGTERM and SIGHUP would end the process on the spot, leaving the temporary file and the worker
processes behind; `stopped_by_signals` turns them into an exception for the time of a command,
so everything unwinds (the temporary file removed, the workers stopped) before the signal ends
the process as it would have.
"""

from __future__ import annotations

import errno
import os
import signal
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

STOPPING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
"""Signals that end the process without unwinding it; while a file is written they raise
`Stopped` instead, so the temporary file is removed, then end the process as they would have."""


class Stopped(BaseException):
    """A stopping signal arrived (as KeyboardInterrupt says Ctrl-C did)."""

    def __init__(self, number: int) -> None:
        super().__init__(f"stopped by signal {number}")
        self.number = number


@contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A new, empty temporary file beside PATH, to write; renamed over PATH when the block ends
    without an error, removed if it ends with one (or KeyboardInterrupt, or Stopped).  PATH keeps
    its permissions (a new file gets the usual ones); through a symbolic link, the file it points
    to is replaced.  A device or a pipe (`-o /dev/null`) is not replaced but written to, as it
    is.  OSError if the directory cannot take the file, or PATH is a directory."""
    target = path.resolve()
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if target.exists() and not target.is_file():
        yield path
        return
    mode = _mode(target)
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _mode(target: Path) -> int:
    if target.exists():
        return target.stat().st_mode & 0o7777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextmanager
def stopped_by_signals() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise Stopped; once the block has unwound, the signal
    is delivered again, ending the process as it would have.  A signal set aside before (`nohup`
    ignores SIGHUP) or handled by the program is left as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread can set handlers
        return

    def stop(number: int, frame: FrameType | None) -> None:
        raise Stopped(number)

    taken = [number for number in STOPPING if signal.getsignal(number) == signal.SIG_DFL]
    for number in taken:
        signal.signal(number, stop)
    try:
        yield
    except Stopped as stopped:
        _restore(taken)
        signal.raise_signal(stopped.number)
        raise  # not reached: the signal ends the process
    finally:
        _restore(taken)


def _restore(taken: list[int]) -> None:
    for number in taken:
        signal.signal(number, signal.SIG_DFL)
