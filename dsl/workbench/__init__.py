"""The designer's live tools: `rulecraft watch [--serve]` and the preview page it serves.

They need packages the core install leaves out (a file watcher, a web server), installed with the
`workbench` extra.  `require` names what is missing before a command starts, so a designer gets
one sentence telling them what to install rather than an ImportError.
"""

from __future__ import annotations

import importlib.util

EXTRA = "workbench"


class MissingExtra(Exception):
    """Packages of the workbench extra are not installed (the message says which, and how)."""


def require(command: str, *modules: str) -> None:
    """Raise MissingExtra naming the `modules` that cannot be imported."""
    missing = [name for name in modules if not _importable(name)]
    if missing:
        raise MissingExtra(
            f"`rulecraft {command}` needs the optional packages of the `{EXTRA}` extra"
            f" (missing: {', '.join(missing)}); install them with: pip install 'rulecraft[{EXTRA}]'"
        )


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a parent package missing, or a module blocked in sys.modules
        return False
