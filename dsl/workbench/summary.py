"""The summary `rulecraft watch` prints after each save: one screen, the most useful lines first.

A designer glances at it between edits, so it is short: the verdict in the first line, then the
first few diagnostics with their source line (the rest counted, with the command that lists them
all), the examples, what was written, and the time the round took.
"""

from __future__ import annotations

import time

from dsl.diagnostics import render
from dsl.workbench.session import Round, Session

SHOWN_DIAGNOSTICS = 3
"""Diagnostics shown in full (about four lines each); more would push the verdict off screen."""

SHOWN_FAILURES = 3
"""Failed worked examples shown with their diagnostic."""


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary_text(found: Round, session: Session) -> str:
    compiled = found.compiled
    errors, warnings = len(compiled.errors), len(compiled.warnings)
    clock = time.strftime("%H:%M:%S")
    if found.good is None:
        kept = session.good
        keeping = (
            f"kept the last good build ({time.strftime('%H:%M:%S', time.localtime(kept.at))})"
            if kept is not None
            else "no good build yet"
        )
        head = f"[{clock}] {session.shown}: {_plural(errors, 'error')}; {keeping}"
    else:
        failed = found.examples.failed if found.examples else 0
        verdict = "examples fail" if failed else "ok"
        head = f"[{clock}] {session.shown}: {verdict}, rebuilt in {found.seconds:.2f} s"
    lines = [head, f"  check     {_plural(errors, 'error')}, {_plural(warnings, 'warning')}"]
    source = compiled.text.split("\n")
    for diagnostic in compiled.diagnostics[:SHOWN_DIAGNOSTICS]:
        lines.extend("    " + line for line in render(diagnostic, source).split("\n"))
    hidden = len(compiled.diagnostics) - SHOWN_DIAGNOSTICS
    if hidden > 0:
        lines.append(f"    ... and {hidden} more (rulecraft check {session.shown})")
    lines.append(_examples_line(found))
    if found.examples is not None:
        failures = [r for r in found.examples.results if not r.passed]
        for result in failures[:SHOWN_FAILURES]:
            lines.append(f'    FAIL "{result.example.title}"')
            for diagnostic in result.failures:
                lines.extend("      " + line for line in render(diagnostic, source).split("\n"))
        if len(failures) > SHOWN_FAILURES:
            lines.append(f"    ... and {len(failures) - SHOWN_FAILURES} more (rulecraft test {session.shown})")
    lines.append(_written_line(found, session))
    return "\n".join(lines)


def _examples_line(found: Round) -> str:
    if found.examples is None:
        return "  examples  not run: fix the errors first"
    return f"  examples  {found.examples.passed} passed, {found.examples.failed} failed"


def _written_line(found: Round, session: Session) -> str:
    if session.output is None:
        return "  written   nothing (no output directory)"
    if found.good is None:
        keeps = "keeps the last good build" if session.good is not None else "is left as it was"
        return f"  written   nothing: {session.output} {keeps}"
    if found.write_error is not None:
        return f"  written   nothing: {found.write_error}"
    return f"  written   {session.output}: {found.written} file(s) changed, {found.unchanged} unchanged"


def cards_line(found: Round, session: Session) -> str:
    """The line printed once the cards are written (after the summary: they take longest)."""
    if found.cards_error is not None:
        return f"  cards     nothing written: {found.cards_error}"
    where = session.output / "cards" if session.output is not None else "cards"
    return (
        f"  cards     {where}: {found.cards_written} file(s) changed, {found.cards_unchanged} unchanged"
        f" ({found.cards_seconds:.2f} s)"
    )


SKIPPED_CARDS = "  cards     not written: the file changed again"
