"""One rulebook kept built while a designer edits it.

Each save starts a round: check the text; if it checks, load its resolver and make the screen
cards (what the preview page needs, so it can update at once), then run the worked examples and
write the resolver (what the summary reports), and last the printable cards, which take longest
(seconds for a large rulebook: they are PDF), so that nothing else waits for them.  A round whose text has errors, or whose
file is missing or half-written, changes nothing but the diagnostics: the last good build stays,
so the page keeps working and nothing on disk is replaced by a broken build.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from dsl.build import BuildError, build_outputs, write_outputs
from dsl.cards.blocks import Card
from dsl.cards.deck import build_deck
from dsl.compiler import Compiled, compile_file, display_path, generate, load_module
from dsl.outdir import OutputError
from dsl.runner import RunOutcome, run_examples


@dataclass(frozen=True)
class Good:
    """A build that checked: what the page shows until a later save checks too."""

    number: int
    """The round that made it: the page reloads its cards when this changes."""
    compiled: Compiled
    module: ModuleType
    deck: tuple[Card, ...]
    at: float
    """When it was built (seconds since the epoch)."""


@dataclass
class Round:
    """What one rebuild found and did, for the summary."""

    number: int
    compiled: Compiled
    good: Good | None
    """The build this round made; None when the text had errors (the session keeps the last one)."""
    examples: RunOutcome | None = None
    written: int = 0
    unchanged: int = 0
    write_error: str | None = None
    cards_written: int = 0
    cards_unchanged: int = 0
    cards_error: str | None = None
    cards_seconds: float = 0.0
    started: float = field(default_factory=time.perf_counter)
    seconds: float = 0.0
    ready_seconds: float = 0.0
    """Time from the start of the round until the resolver was loaded (what the page waits for)."""


class Session:
    """The rulebook at `path`, rebuilt on demand; resolver and cards go to `output` (None: nowhere).

    Only the files `rulecraft build` makes for this rulebook are written, and files of other
    rulebooks in `output` are left alone: several rulebooks may share a `generated/` directory.
    """

    def __init__(self, path: Path, output: Path | None, *, cards: bool = True) -> None:
        self.shown = display_path(path)
        self.path = path.absolute()  # the working directory may go away while watching
        self.output = output
        self.cards = cards
        self.good: Good | None = None
        self.rounds = 0
        self._digest: bytes | None = None

    def changed(self) -> bool:
        """Whether the file differs from what the last round read (an editor may save the same
        text twice, or touch the file without changing it)."""
        return self._read_digest() != self._digest

    def _read_digest(self) -> bytes | None:
        """A hash of the file's bytes; None while it cannot be read (gone between a save's
        delete and rename, say: one round reports it, and nothing more until it is back)."""
        try:
            return hashlib.sha256(self.path.read_bytes()).digest()
        except OSError:
            return None

    def check(self) -> Round:
        """Read and check the file; when it checks, load the resolver and replace the good build."""
        self.rounds += 1
        started = time.perf_counter()
        self._digest = self._read_digest()
        compiled = compile_file(self.path, self.shown)
        good = None
        if compiled.ok:
            assert compiled.book is not None
            module = load_module(generate(compiled), compiled.book.name)
            good = Good(self.rounds, compiled, module, tuple(build_deck(compiled.book, screen=True)), time.time())
            self.good = good
        found = Round(self.rounds, compiled, good, started=started)
        found.ready_seconds = time.perf_counter() - started
        return found

    def finish(self, found: Round) -> Round:
        """Run the examples of a round that checked and write its resolver module."""
        good = found.good
        if good is not None:
            found.examples = run_examples(good.compiled, good.module)
            if self.output is not None:
                written = self._write(good.compiled, self.output, cards=False)
                if isinstance(written, str):
                    found.write_error = written
                else:
                    found.written, found.unchanged = written
        found.seconds = time.perf_counter() - found.started
        return found

    def write_cards(self, found: Round) -> Round:
        """Write the cards and sheets of a round that checked (into OUTPUT/cards)."""
        started = time.perf_counter()
        if found.good is not None and self.output is not None and self.cards:
            written = self._write(found.good.compiled, self.output, cards=True)
            if isinstance(written, str):
                found.cards_error = written
            else:
                found.cards_written, found.cards_unchanged = written
        found.cards_seconds = time.perf_counter() - started
        return found

    def rebuild(self) -> Round:
        return self.write_cards(self.finish(self.check()))

    def _write(self, compiled: Compiled, output: Path, *, cards: bool) -> tuple[int, int] | str:
        """Write this rulebook's resolver module, or (`cards`) its cards: the files changed and
        unchanged, or why nothing was written."""
        try:
            outputs = build_outputs([compiled], output, cards=cards)
        except BuildError as error:
            return str(error)
        # only this rulebook's files: `__init__.py` lists every module of a whole build
        chosen = {k: v for k, v in outputs.items() if k.startswith("cards/") == cards and k != "__init__.py"}
        try:
            written = write_outputs(chosen, output, prune=False)
        except OutputError as error:
            return str(error)
        except OSError as error:
            where = f" ({error.filename})" if error.filename else ""
            return f"cannot write to `{output}`{where}: {error.strerror or error}"
        return written.changed, written.unchanged
