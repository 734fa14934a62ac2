"""The bodies of `rulecraft watch` and `rulecraft lsp` (dsl/cli.py registers them).

Both start by checking that the `workbench` extra is installed, so a core install answers with
the command to run (exit 2) instead of an ImportError.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from dsl.workbench import MissingExtra, require

WATCH_MODULES = ("watchfiles",)
SERVE_MODULES = ("starlette", "uvicorn")
LSP_MODULES = ("pygls", "lsprotocol", "cattrs")


def _require(command: str, modules: tuple[str, ...]) -> None:
    try:
        require(command, *modules)
    except MissingExtra as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)


def watch_command(path: Path, output: Path | None, *, serve: bool, port: int, cards: bool) -> None:
    _require("watch --serve" if serve else "watch", WATCH_MODULES + (SERVE_MODULES if serve else ()))
    from dsl.workbench.session import Session
    from dsl.workbench.watch import ServeError, WatchError, watch

    session = Session(path, output, cards=cards)
    try:
        watch(session, click.echo, port=port if serve else None)
    except ServeError as error:
        raise click.UsageError(str(error)) from None
    except WatchError as error:
        click.echo(f"error: {error}; stopped watching", err=True)
        sys.exit(1)
    except KeyboardInterrupt:  # where the event loop cannot take the signal itself
        click.echo("stopped watching")


def lsp_command() -> None:
    _require("lsp", LSP_MODULES)
    from dsl.lsp.server import serve_stdio

    serve_stdio()
