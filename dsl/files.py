"""Light helpers the command line needs before it knows whether anything must be compiled:
where rulebooks are, reading one, and room to recurse.  They import nothing of the compiler,
so a command that finds its rulebook compiled already (dsl/cache.py) does not load the parser
or the checks."""

from __future__ import annotations

import gc
import os
import stat
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SUFFIX = ".rules"

MAX_FILE_BYTES = 10 * 1024 * 1024
"""The largest rulebook read: ten times the biggest real one, and enough to stop a device or a
mistaken path (a log, a disk image) from being read to the end."""

RECURSION_LIMIT = 20_000

limit_lock = threading.Lock()
"""Held while the recursion limit or the thread stack size is changed."""

_limit_users = 0
_limit_before = 0


def rulebook_files(paths: list[Path]) -> list[Path]:
    """The rulebooks named: files as given, directories searched for *.rules, sorted."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(path.rglob(f"*{SUFFIX}")))
        else:
            found.append(path)
    unique: list[Path] = []
    for path in found:
        if path not in unique:
            unique.append(path)
    return unique


class UnreadableFile(Exception):
    """Why a file is not read as a rulebook (`message`), and what to do about it (`hint`)."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


def read_regular_file(path: Path) -> bytes:
    """The bytes of a regular file of at most MAX_FILE_BYTES; UnreadableFile for anything else.
    Opened without blocking (a FIFO with no writer would wait forever) and checked on the open
    descriptor, then read no further than the size limit (a file may grow while it is read)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as error:
        raise UnreadableFile(f"cannot read the file: {error.strerror or error}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            what = _file_kind(info.st_mode)
            raise UnreadableFile(f"{what} is not a rulebook: only a regular file can be read", "name a .rules file")
        chunks: list[bytes] = []
        size = 0
        while size <= MAX_FILE_BYTES:
            chunk = os.read(fd, min(1 << 20, MAX_FILE_BYTES + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        raise UnreadableFile(f"cannot read the file: {error.strerror or error}") from None
    finally:
        os.close(fd)
    if size > MAX_FILE_BYTES:
        raise UnreadableFile(
            f"the file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB: too big to be a rulebook",
            "split the rulebook into several files",
        )
    return b"".join(chunks)


def _file_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "this file"


@contextmanager
def recursion_room(limit: int = RECURSION_LIMIT) -> Iterator[None]:
    """Raise Python's recursion limit (to `limit`) for the duration; the last one out restores it."""
    global _limit_users, _limit_before
    with limit_lock:
        if _limit_users == 0:
            _limit_before = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_limit_before, limit))
        _limit_users += 1
    try:
        yield
    finally:
        with limit_lock:
            _limit_users -= 1
            if _limit_users == 0:
                sys.setrecursionlimit(_limit_before)


_GC_THRESHOLD = (100_000, 50, 1000)
"""The collector's thresholds while compiling.  A compile allocates millions of objects that live
until it ends (tokens, trees, nodes, the model), so with the default (700, 10, 10) the collector
scans them again and again for cycles there are none of: compile time grew faster than the
rulebook.  The objects alive before the compile are frozen (not scanned at all), and the previous
thresholds come back when the last compile running ends."""

_gc_users = 0
_gc_before: tuple[int, int, int] = (700, 10, 10)


@contextmanager
def collector_tuned() -> Iterator[None]:
    """Fewer garbage collections for the duration (see _GC_THRESHOLD); re-entrant and thread-safe."""
    global _gc_users, _gc_before
    with limit_lock:
        if _gc_users == 0:
            _gc_before = gc.get_threshold()
            gc.freeze()
            gc.set_threshold(*_GC_THRESHOLD)
        _gc_users += 1
    try:
        yield
    finally:
        with limit_lock:
            _gc_users -= 1
            if _gc_users == 0:
                gc.set_threshold(*_gc_before)
                gc.unfreeze()
