"""Measure the designer's live tools on a bundled rulebook (default: the largest, zone_combat).

    python bench/live.py                  # watch and lsp
    python bench/live.py --page           # also the preview page (needs /usr/bin/chromium)

- watch: seconds from saving the rulebook to `rulecraft watch` printing its summary (check,
  examples, resolver written), and to its cards written, over saves that change a modifier;
- lsp: seconds from `didOpen`, and from each `didChange` (one character typed), to the
  diagnostics of that version arriving at the client;
- page: seconds from saving the rulebook to the preview page in chromium showing the new chance.

Each save waits until the previous round is over (its cards written): a save made while the
cards of the previous one are being written waits for them, up to the cards' time more.

Each figure is the median of the runs, with the slowest; run on an idle machine.
"""

from __future__ import annotations

import argparse
import asyncio
import queue
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = 5


def rulecraft() -> list[str]:
    script = Path(sys.executable).with_name("rulecraft")
    return [str(script)] if script.exists() else [sys.executable, "-c", "from dsl.cli import main; main()"]


def report(what: str, seconds: list[float]) -> None:
    print(f"{what}: median {statistics.median(seconds):.2f} s, slowest {max(seconds):.2f} s ({len(seconds)} runs)")


class Lines:
    """A process's output, line by line, with the time each line arrived."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.queue: queue.Queue[tuple[float, str]] = queue.Queue()
        threading.Thread(target=self._read, args=(process,), daemon=True).start()

    def _read(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            self.queue.put((time.perf_counter(), line))

    def until(self, prefix: str) -> tuple[float, str]:
        while True:
            at, line = self.queue.get(timeout=120)
            if line.startswith(prefix):
                return at, line


MODIFIER = re.compile(r"^(\s+\w+ -)(\d+)\b", re.MULTILINE)
"""A modifier that subtracts (`    DEX -2 ...`): the edit each run makes."""


def edits(text: str, count: int) -> list[str]:
    """Versions of a rulebook that each change its first subtracting modifier (-2 becomes -3, -4 ...)."""
    found = MODIFIER.search(text)
    assert found is not None, "no modifier like `DEX -2` to edit"
    head, number = found.group(1), int(found.group(2))
    return [text[: found.start()] + f"{head}{number + 1 + i}" + text[found.end() :] for i in range(count)]


def measure_watch(book: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / book.name
        text = book.read_text(encoding="utf-8")
        copy.write_text(text, encoding="utf-8")
        process = subprocess.Popen(
            [*rulecraft(), "watch", copy.name, "-o", "out"], cwd=folder, stdout=subprocess.PIPE, text=True
        )
        lines = Lines(process)
        lines.until("watching ")
        seconds, cards = [], []
        for version in edits(text, RUNS):
            saved = time.perf_counter()
            copy.write_text(version, encoding="utf-8")
            at, _ = lines.until("  written ")
            seconds.append(at - saved)
            done, _ = lines.until("  cards ")  # idle again before the next save
            cards.append(done - saved)
        process.send_signal(signal.SIGINT)
        process.wait(30)
    report(f"watch {book.name}: save -> summary printed", seconds)
    report(f"watch {book.name}: save -> cards written", cards)


async def _lsp(book: Path) -> tuple[float, list[float]]:
    from lsprotocol import types as lsp
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("bench", "1")
    arrived: dict[int, float] = {}
    got = asyncio.Event()

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
        if params.version is not None:
            arrived[params.version] = time.perf_counter()
            got.set()

    async def wait(version: int) -> float:
        while version not in arrived:
            got.clear()
            await asyncio.wait_for(got.wait(), 120)
        return arrived[version]

    command = rulecraft()
    await client.start_io(command[0], *command[1:], "lsp")
    await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
    client.initialized(lsp.InitializedParams())
    uri = book.as_uri()
    text = book.read_text(encoding="utf-8")
    sent = time.perf_counter()
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri=uri, language_id="rulecraft", version=1, text=text))
    )
    opened = await wait(1) - sent
    found = MODIFIER.search(text)
    assert found is not None, "no modifier like `DEX -2` to edit"
    line = text[: found.start(2)].count("\n")
    column = len(text.split("\n")[line]) - len(text.split("\n")[line].lstrip())
    changes = []
    for version in range(2, 2 + RUNS):
        sent = time.perf_counter()
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    lsp.TextDocumentContentChangePartial(
                        range=lsp.Range(lsp.Position(line, column), lsp.Position(line, column)), text="x"
                    )
                ],
            )
        )
        changes.append(await wait(version) - sent)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return opened, changes


def measure_lsp(book: Path) -> None:
    opened, changes = asyncio.run(_lsp(book))
    print(f"lsp {book.name}: didOpen -> diagnostics {opened:.2f} s")
    report(f"lsp {book.name}: didChange -> diagnostics", changes)


def measure_page(book: Path) -> None:
    from playwright.sync_api import sync_playwright

    chromium = "/usr/bin/chromium"
    if not Path(chromium).exists():
        print(f"page: skipped, no {chromium}")
        return
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / book.name
        text = book.read_text(encoding="utf-8")
        copy.write_text(text, encoding="utf-8")
        process = subprocess.Popen(
            [*rulecraft(), "watch", copy.name, "-o", "out", "--serve", "--port", "0"],
            cwd=folder,
            stdout=subprocess.PIPE,
            text=True,
        )
        lines = Lines(process)
        url = re.search(r"http://\S+/", lines.until("serving the preview at ")[1]).group(0)  # type: ignore[union-attr]
        seconds = []
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium, args=["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
            )
            page = browser.new_page()
            page.goto(url)
            page.locator('[data-entry="zone_move"]').check()
            page.locator("#in-pace").fill("4")
            chance = page.locator('[data-roll="move"] .chance.main .exact')
            chance.filter(has_text="2/3").wait_for()
            lines.until("  cards ")
            for i in range(RUNS):
                op, shown = ("<", "1/2") if i % 2 == 0 else ("<=", "2/3")
                saved = time.perf_counter()
                copy.write_text(text.replace("d6 <= move_target", f"d6 {op} move_target", 1), encoding="utf-8")
                chance.filter(has_text=shown).wait_for(timeout=120_000)
                seconds.append(time.perf_counter() - saved)
                lines.until("  cards ")  # idle again before the next save
            browser.close()
        process.send_signal(signal.SIGINT)
        process.wait(30)
    report(f"page {book.name}: save -> new chance shown", seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("book", nargs="?", default=str(ROOT / "rulebooks" / "zone_combat.rules"))
    parser.add_argument("--page", action="store_true", help="also time the preview page in chromium")
    args = parser.parse_args()
    book = Path(args.book).resolve()
    if shutil.which("rulecraft") is None and not Path(sys.executable).with_name("rulecraft").exists():
        print("note: running rulecraft through the interpreter, not its script")
    measure_watch(book)
    measure_lsp(book)
    if args.page:
        measure_page(book)


if __name__ == "__main__":
    main()
