"""Balance analysis: sweep a rulebook's situations through its compiled resolver, tabulate and
chart the exact chances (see docs/balance.md)."""

from dsl.balance.books import BalanceError, Edition, RulebookErrors, load_edition
from dsl.balance.sweep import DEFAULT_LIMIT, Sweep, prepare, sweep, sweep_frame

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
