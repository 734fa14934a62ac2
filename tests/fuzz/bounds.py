"""The bound on what `check` accepts: every command a user runs on it finishes in stated time and
memory (docs/language.md, section 20, "Time and memory").

A program `check` accepts is put through what a user does with it, each step through the public
surface: the command line (`build` with its cards, `list`, `describe` and `resolve` of every rule
and table at the defaults, `export`), run in-process by click as the `rulecraft` script runs it,
and the preview's endpoints (`/api/state`, `/cards`, `/api/resolve` of every rule) called through
its ASGI application with the headers a browser sends.  Each step is timed on the CPU, and the
process's peak resident memory is measured across the whole program (Linux's VmHWM, reset before
each program).

The steps run in a worker process of their own (`python -m tests.fuzz.bounds --worker`), which
reads programs as JSON lines and answers each with its measures; its address space is capped, so a
runaway allocation ends in MemoryError instead of taking the machine, and the parent kills it when
a program overruns the wall-clock bound.  Either is a broken bound, reported with the program.

Used by tests/fuzz/test_bounds.py (a few thousand programs in CI) and tests/soak/bounds.py.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import resource
import select
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

STEP_SECONDS = 10.0
"""The bound on one step's CPU time (one command, or one endpoint answering)."""
PROGRAM_SECONDS = 120.0
"""The wall-clock bound on one program's every step together; the worker is killed past it."""
MEMORY_BYTES = 1 << 30
"""The bound on the worker's peak resident memory while it works on one program (1 GiB)."""
ADDRESS_SPACE = 4 << 30
"""The worker's address-space cap: an allocation past it fails at once (MemoryError)."""
RULES_PER_PROGRAM = 12
"""Rules and tables described and resolved per program (a mutant of a large book has hundreds;
its first twelve are as good a test of the bound as all of them, at a twentieth of the time)."""


@dataclass
class Measure:
    """What one program cost: each step's CPU seconds, the peak memory, and what broke."""

    accepted: bool = False
    steps: dict[str, float] = field(default_factory=dict)
    peak_bytes: int = 0
    broken: list[str] = field(default_factory=list)


# ------------------------------------------------------------------ the worker


def _peak_reset() -> bool:
    """Reset this process's peak resident memory (Linux 4.0+: writing 5 to clear_refs)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _peak() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _cli(args: list[str]) -> tuple[int, str]:
    """Run `rulecraft ARGS` in this process, as the script does: exit status and output."""
    from dsl.cli import main

    out = io.StringIO()
    status = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            main.main(args, prog_name="rulecraft", standalone_mode=True)
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else 1
    return status, out.getvalue()


async def _asgi(app: Any, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
    """One request to an ASGI application, as the browser's page sends it (its own Host and
    Origin, JSON for a POST): the status and the body."""
    path, _, query = path.partition("?")
    headers = [(b"host", b"127.0.0.1:8000"), (b"origin", b"http://127.0.0.1:8000")]
    if method == "POST":
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "headers": headers,
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
        "root_path": "",
    }
    sent = False
    status = 0
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, b"".join(chunks)


class _Steps:
    def __init__(self, measure: Measure) -> None:
        self.measure = measure

    @contextlib.contextmanager
    def step(self, name: str) -> Any:
        started = time.process_time()
        try:
            yield
        except MemoryError:
            self.measure.broken.append(f"{name}: ran out of the {ADDRESS_SPACE >> 30} GiB address space")
        except Exception as error:  # a step must answer, never raise
            self.measure.broken.append(f"{name}: raised {error!r}")
        spent = time.process_time() - started
        self.measure.steps[name] = self.measure.steps.get(name, 0.0) + spent
        if spent > STEP_SECONDS:
            self.measure.broken.append(f"{name}: took {spent:.1f} s of CPU (the bound: {STEP_SECONDS:.0f} s)")

    def command(self, name: str, args: list[str], ok: tuple[int, ...] = (0,)) -> None:
        with self.step(name):
            status, output = _cli(args)
            if status not in ok:
                self.measure.broken.append(f"{name}: `rulecraft {' '.join(args)}` exited {status}:\n{output[-1500:]}")
            elif "internal error" in output or "Traceback" in output or '"code": "internal"' in output:
                self.measure.broken.append(f"{name}: `rulecraft {' '.join(args)}` failed inside:\n{output[-1500:]}")


def run_program(text: str, work: Path) -> Measure:
    """Put one program through every command and endpoint (in this process)."""
    from dsl.compiler import compile_text
    from dsl.workbench.server import Hub, create_app
    from dsl.workbench.session import Session

    measure = Measure()
    _peak_reset()
    steps = _Steps(measure)
    compiled = None
    with steps.step("check"):
        compiled = compile_text(text, "program.rules")
    if compiled is None or not compiled.ok or compiled.book is None:
        return measure
    measure.accepted = True
    book = compiled.book
    path = work / "program.rules"
    path.write_text(text, encoding="utf-8")
    out = work / "out"
    names = [*book.rules, *book.tables][:RULES_PER_PROGRAM]
    steps.command("build", ["build", str(path), "-o", str(out)])
    steps.command("list", ["list", str(path)])
    steps.command("export", ["export", str(path), "-o", str(work / "export.json")])
    for rule in names:
        steps.command("describe", ["describe", str(path), rule])
        # a rule may refuse its defaults with a clear message (an input without a default is a
        # bad input: exit 2, its error as JSON), never with an internal error
        steps.command("resolve", ["resolve", str(path), rule, "--json"], ok=(0, 1, 2))
    with steps.step("preview"):
        session = Session(path, None, cards=False)
        hub = Hub(session)
        hub.publish(session.rebuild())
        app = create_app(hub)

        async def visit() -> None:
            for method, where, body in [
                ("GET", "/api/state", b""),
                ("GET", "/cards", b""),
                *[("POST", "/api/resolve", json.dumps({"names": [rule], "inputs": {}}).encode()) for rule in names],
            ]:
                status, answer = await _asgi(app, method, where, body)
                if status >= 500 or (status != 200 and where != "/api/resolve"):
                    measure.broken.append(f"preview: {method} {where} answered {status}: {answer[:500]!r}")

        asyncio.run(visit())
    measure.peak_bytes = _peak()
    if measure.peak_bytes > MEMORY_BYTES:
        measure.broken.append(
            f"peak resident memory {measure.peak_bytes >> 20} MiB (the bound: {MEMORY_BYTES >> 20} MiB)"
        )
    return measure


def _worker() -> int:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    with tempfile.TemporaryDirectory(prefix="rulecraft-bounds-") as folder:
        os.environ["RULECRAFT_CACHE_DIR"] = str(Path(folder) / "cache")
        for number, line in enumerate(sys.stdin):
            work = Path(folder) / f"p{number}"
            work.mkdir()
            measure = run_program(json.loads(line), work)
            print(json.dumps(measure.__dict__), flush=True)
    return 0


# ------------------------------------------------------------------ the parent


class Worker:
    """A worker process fed one program at a time, killed and replaced when one overruns."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[str] | None = None

    def _start(self) -> subprocess.Popen[str]:
        if self.process is None or self.process.poll() is not None:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "tests.fuzz.bounds", "--worker"],
                cwd=ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
        return self.process

    def measure(self, text: str) -> Measure:
        process = self._start()
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(text) + "\n")
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], PROGRAM_SECONDS)
        line = process.stdout.readline() if ready else ""
        if not line:
            overran = not ready
            self.close()
            why = f"did not finish within {PROGRAM_SECONDS:.0f} s" if overran else "the worker died"
            return Measure(accepted=True, broken=[why])
        return Measure(**json.loads(line))

    def close(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


@dataclass
class Tally:
    programs: int = 0
    accepted: int = 0
    slowest: dict[str, float] = field(default_factory=dict)
    peak_bytes: int = 0
    problems: list[str] = field(default_factory=list)

    def add(self, text: str, measure: Measure) -> None:
        self.programs += 1
        self.accepted += measure.accepted
        for name, seconds in measure.steps.items():
            self.slowest[name] = max(self.slowest.get(name, 0.0), seconds)
        self.peak_bytes = max(self.peak_bytes, measure.peak_bytes)
        if measure.broken:
            self.problems.append("\n".join(measure.broken) + f"\nin the program:\n{text}")

    def summary(self) -> str:
        slowest = ", ".join(f"{name} {seconds:.2f} s" for name, seconds in sorted(self.slowest.items()))
        return (
            f"{self.programs:,} programs, {self.accepted:,} accepted by check; slowest step CPU: {slowest}; "
            f"peak memory {self.peak_bytes >> 20} MiB; {len(self.problems)} beyond the bound"
        )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker", action="store_true")
    args = parser.parse_args()
    if args.worker:
        return _worker()
    parser.error("run by tests/fuzz/test_bounds.py and tests/soak/bounds.py")
    return 2


if __name__ == "__main__":
    sys.exit(main())
