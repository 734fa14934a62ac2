"""The designer's editing commands: `rulecraft fmt` and `rulecraft new`.

They live apart from dsl/cli.py, which only registers them, and use click's own UsageError for
bad usage (exit 2), as the rest of the command line does.
"""

from __future__ import annotations

import difflib
import os
import sys
import tempfile
from pathlib import Path

import click

from dsl.compiler import display_path, read_text, rulebook_files
from dsl.diagnostics import Reporter, render
from dsl.fmt import FormatError, format_text
from dsl.scaffold import ScaffoldError, create_project

DEFAULT_RULEBOOKS = Path("rulebooks")


@click.command(name="fmt")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 if a file would change, naming it.")
@click.option("--diff", "show_diff", is_flag=True, help="Write nothing; print the changes as a unified diff.")
def fmt(paths: tuple[Path, ...], check_only: bool, show_diff: bool) -> None:
    """Lay out rulebooks in the one canonical layout, keeping every comment.

    PATHS are rulebook files or directories (default: ./rulebooks).  A file with syntax errors
    is left as it is, with its diagnostics printed (exit 1).
    """
    files = _files(paths)
    changed = unchanged = broken = 0
    for path in files:
        shown = display_path(path)
        reporter = Reporter()
        text = read_text(path, shown, reporter)
        if text is None or reporter.has_errors:
            click.echo("\n".join(render(d, (text or "").split("\n")) for d in reporter.sorted()), err=True)
            broken += 1
            continue
        try:
            formatted = format_text(text, shown)
        except FormatError as error:
            click.echo(error.render(), err=True)
            click.echo(f"{shown}: not formatted: fix the syntax errors first", err=True)
            broken += 1
            continue
        if formatted == text:
            unchanged += 1
            continue
        changed += 1
        if show_diff:
            click.echo(_diff(text, formatted, shown), nl=False)
        if check_only:
            click.echo(f"would reformat {shown}", err=True)
        elif not show_diff:
            write_text_atomically(path, formatted)
            click.echo(f"reformatted {shown}", err=True)
    click.echo(_summary(changed, unchanged, broken, written=not (check_only or show_diff)), err=True)
    sys.exit(1 if broken or (check_only and changed) else 0)


def _files(paths: tuple[Path, ...]) -> list[Path]:
    """The rulebooks named; by default those in ./rulebooks (never the installed ones)."""
    if not paths:
        if not DEFAULT_RULEBOOKS.is_dir():
            raise click.UsageError("name the rulebooks to format: there is no ./rulebooks here")
        paths = (DEFAULT_RULEBOOKS,)
    for path in paths:
        if not path.exists():
            raise click.UsageError(f"no such file or directory: {path}")
    files = rulebook_files(list(paths))
    if not files:
        raise click.UsageError("no rulebooks (*.rules) found in " + ", ".join(str(p) for p in paths))
    return files


def _diff(before: str, after: str, shown: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), f"{shown}", f"{shown} (formatted)"
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def write_text_atomically(path: Path, text: str) -> None:
    """Replace the file at once (never half-written), keeping its permissions (a new file gets
    the usual ones); through a symbolic link, the file it points to."""
    target = path.resolve()
    try:
        if target.exists():
            mode = target.stat().st_mode & 0o7777
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
                out.write(text)
            os.chmod(temporary, mode)
            os.replace(temporary, target)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError as error:
        raise click.UsageError(f"cannot write to `{path}`: {error.strerror or error}") from None


def _summary(changed: int, unchanged: int, broken: int, written: bool) -> str:
    def files(count: int) -> str:
        return f"{count} file{'s' if count != 1 else ''}"

    verb = "reformatted" if written else "would be reformatted"
    parts = [f"{files(changed)} {verb}", f"{files(unchanged)} already formatted"]
    if broken:
        parts.append(f"{files(broken)} with errors left as they are")
    return ", ".join(parts)


@click.command(name="new")
@click.argument("name")
@click.option(
    "--dir",
    "directory",
    type=click.Path(path_type=Path),
    default=None,
    help="The project's directory (default: ./NAME); created if need be.",
)
def new(name: str, directory: Path | None) -> None:
    """Start a rulebook project NAME: a rulebook that checks, tests, builds and prints as it is,
    and a README saying what to do next.  Existing files are never overwritten."""
    directory = directory if directory is not None else Path(name)
    try:
        created = create_project(name, directory)
    except ScaffoldError as error:
        raise click.UsageError(str(error)) from None
    except OSError as error:
        raise click.UsageError(f"cannot write to `{directory}`: {error.strerror or error}") from None
    for path in created:
        click.echo(f"created {display_path(path)}")
    book = display_path(created[0])
    click.echo(f"next: rulecraft check {book} && rulecraft test {book}")
