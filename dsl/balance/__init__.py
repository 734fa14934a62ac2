"""Balance analysis: sweep a rulebook's situations through its compiled resolver, tabulate and
chart the exact chances (see docs/balance.md).

The names below load on first use: the command line imports this package for its commands, and
a `rulecraft check` or `resolve` should not pay for worker processes and tables it never uses.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dsl.balance.books import BalanceError, Edition, RulebookErrors, load_edition
    from dsl.balance.limits import DEFAULT_LIMIT
    from dsl.balance.sweeps import Sweep, prepare, sweep, sweep_frame

_HOMES = {
    "BalanceError": "dsl.balance.books",
    "Edition": "dsl.balance.books",
    "RulebookErrors": "dsl.balance.books",
    "load_edition": "dsl.balance.books",
    "DEFAULT_LIMIT": "dsl.balance.limits",
    "Sweep": "dsl.balance.sweeps",
    "prepare": "dsl.balance.sweeps",
    "sweep": "dsl.balance.sweeps",
    "sweep_frame": "dsl.balance.sweeps",
}

__all__ = [
    "DEFAULT_LIMIT",
    "BalanceError",
    "Edition",
    "RulebookErrors",
    "Sweep",
    "load_edition",
    "prepare",
    "sweep",
    "sweep_frame",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
