"""Where rulecraft keeps files between runs, and which of them it trusts.

Compiled rulebooks (dsl/cache.py) and lark's parser tables (dsl/parser.py) are kept in one
directory: $RULECRAFT_CACHE_DIR, else $XDG_CACHE_HOME/rulecraft, else ~/.cache/rulecraft
(%LOCALAPPDATA%/rulecraft on Windows); RULECRAFT_CACHE_DIR set to an empty value keeps nothing.

What is loaded from it is run, so only what the user wrote is loaded: the root is created 0700; a
root or a directory in it that is a symbolic link, and a root, a directory or a file that belongs
to another user or that group or others may write, is not used (said once, on stderr).  Files
are opened without following links and checked on the open descriptor, so what is read is what
was checked; new files are written whole (mode 0600), synced, and renamed into place.  (On
Windows, where POSIX owners and modes do not apply, the default root lies in the user's own
profile.)  A store that cannot be read or written is never an error: the caller works as it
would without one.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO

CACHE_VARIABLE = "RULECRAFT_CACHE_DIR"

POSIX = os.name == "posix"
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
BINARY = getattr(os, "O_BINARY", 0)


Identity = tuple[int, int]
"""A directory as the file system knows it (device, inode)."""


def cache_dir() -> Path | None:
    """Where entries are kept; None when the cache is turned off."""
    configured = os.environ.get(CACHE_VARIABLE)
    if configured is not None:
        return Path(configured) if configured else None
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "rulecraft"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rulecraft"


def load_saved(name: str) -> bytes | None:
    """The bytes of the file `name` kept in the cache's root (lark's parser tables) when the
    user may load it; None when there is none, or it is refused (said on stderr)."""
    root = trusted_root(create=False)
    if root is None:
        return None
    try:
        return read_own(root / name)
    except (OSError, Refused):
        return None


def save(name: str, write: Callable[[IO[bytes]], None]) -> None:
    """Keep the file `name` in the cache's root, as `write` writes it: whole or not at all."""
    import tempfile

    root = trusted_root(create=True)
    if root is None:
        return
    try:
        fd, temporary = tempfile.mkstemp(dir=root, prefix=f".{name}.", suffix=".tmp")  # mode 0600
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, root / name)
        sync_directory(root)
    except Exception:  # the parser was built; keeping it is only for the next run
        pass
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)  # left only when it was not renamed into place


# ---------------------------------------------------------------------------- what may be loaded


class Refused(Exception):
    """A file of the cache the user may not load (said on stderr)."""


def trusted_root(create: bool) -> Path | None:
    """The cache's root when the user may use it (created 0700 when `create`); None otherwise,
    said on stderr when it is refused."""
    root = cache_dir()
    if root is None:
        return None
    try:
        info = os.lstat(root)
    except FileNotFoundError:
        if not create:
            return None
        try:
            root.parent.mkdir(parents=True, exist_ok=True)
            os.mkdir(root, 0o700)
        except FileExistsError:
            pass  # another process made it: checked below
        except OSError:
            return None
        try:
            info = os.lstat(root)
        except OSError:
            return None
    except OSError:
        return None
    return None if refused(root, info, directory=True) else root


def read_own(file: Path) -> bytes:
    """The bytes of a regular file the user may load: opened without following a link, checked on
    the open descriptor.  Refused (said on stderr) or OSError otherwise."""
    fd = os.open(file, os.O_RDONLY | NOFOLLOW | BINARY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{file} is not a regular file")
        if refused(file, info, directory=False):
            raise Refused(str(file))
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read()
    finally:
        os.close(fd)


def refused(where: Path, info: os.stat_result, directory: bool) -> bool:
    """Whether the cache's directory or file `where` (as `info` found it) must not be used: a
    symbolic link or something else where a directory is expected, or anything another user owns
    or may write.  Said on stderr, once a process."""
    why = None
    if directory and stat.S_ISLNK(info.st_mode):
        why = "it is a symbolic link"
    elif directory and not stat.S_ISDIR(info.st_mode):
        why = "it is not a directory"
    elif POSIX and info.st_uid != os.geteuid():
        why = "it belongs to another user"
    elif POSIX and info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        why = "it is writable by other users"
    if why is None:
        return False
    say_once(f"rulecraft: not using the cache at {where}: {why}")
    return True


_SAID: set[str] = set()


def say_once(message: str) -> None:
    if message not in _SAID:
        _SAID.add(message)
        print(message, file=sys.stderr)


def identity(folder: Path) -> Identity | None:
    try:
        info = os.lstat(folder)
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


def write_new(file: Path, data: bytes) -> None:
    """A new file holding `data`, mode 0600, synced to disk."""
    fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | BINARY, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_directory(folder: Path) -> None:
    """Make the names in `folder` durable (on POSIX: Windows cannot open a directory)."""
    if not POSIX:
        return
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
