"""A `rulecraft watch` process for tests: started on a copy of a rulebook, read line by line."""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

SUMMARY_END = re.compile(r"^  written   ")


def rulecraft() -> list[str]:
    """The installed `rulecraft` command, as a designer runs it."""
    script = Path(sys.executable).with_name("rulecraft")
    if script.exists():
        return [str(script)]
    found = shutil.which("rulecraft")
    return [found] if found else [sys.executable, "-c", "from dsl.cli import main; main()"]


class Watch:
    """`rulecraft watch ARGS` running in `cwd`; its output read by a thread, line by line."""

    def __init__(self, cwd: Path, *args: str) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [*rulecraft(), "watch", *args],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def line(self, pattern: str, timeout: float = 60) -> re.Match[str]:
        """Read up to the first line matching `pattern` (a regular expression)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                line = self.lines.get(timeout=max(left, 0.01))
            except queue.Empty:
                raise AssertionError(
                    f"no line matching {pattern!r} in {timeout} s; read:\n" + "\n".join(self.seen)
                ) from None
            if line is None:
                raise AssertionError(f"rulecraft watch ended before {pattern!r}; read:\n" + "\n".join(self.seen))
            self.seen.append(line)
            match = re.search(pattern, line)
            if match:
                return match

    def summary(self, timeout: float = 60) -> list[str]:
        """The next summary: from its first line (`[hh:mm:ss] path: ...`) to its `written` line."""
        first = self.line(r"^\[\d\d:\d\d:\d\d\] ", timeout)
        lines = [first.string]
        while not SUMMARY_END.match(lines[-1]):
            lines.append(self.line(r"", timeout).string)
        return lines

    def stop(self, timeout: float = 20) -> int:
        """Ctrl-C, as a designer stops it; the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise

    def rest(self) -> list[str]:
        """Every line printed after those read (once the process has ended)."""
        out = []
        while (line := self.lines.get(timeout=5)) is not None:
            out.append(line)
        return out


def save(path: Path, text: str) -> None:
    """Save as an editor does: the whole file at once, with a new modification time."""
    path.write_text(text, encoding="utf-8")
