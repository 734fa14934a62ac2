"""The resolver runtime: what every module rulecraft generates imports, one copy per installation.

A generated module holds its rulebook (inputs, rules written out as functions, tables) and
imports the rest from here: the values apps pass and get back (`Dice`, `Resolution`, ...), the
one error they catch (`RuleInputError`), and the helpers the written-out rules call.  So every
book's `Dice` is the same class, one `except RuleInputError` catches every book's, and a fix here
reaches every module through `pip install --upgrade rulecraft`.

The package uses the Python standard library only and imports nothing of the compiler (its
modules import one another relatively), so it also works copied on its own:
`rulecraft build --standalone` writes it once beside the modules, as `rulecraft_runtime`, for an
app that copies files in rather than installing rulecraft.

Its modules, lowest first: `base` (errors, numbers, the special cells), `dice` (dice
expressions and their exact distributions), `specs` (what a module says of each rule), `results`
(what a resolution returns), `inputs`, `book` (a module's rulebook and its caches), `settle`
(stacking and the order of modifiers), `rolls`, `tables`, `chains`, `resolve` (the entry points),
`sequences` (rounds); and for rolling: `prng` (the one seeded generator), `throws` (dice
rolled die by die), `rolling` (a situation rolled, or told what was rolled elsewhere).

A module states the API it was built for: `require(API, ...)` at its top refuses, with both
versions named, a runtime that does not offer it.
"""

from __future__ import annotations

from .base import IMPASSABLE, NOT_APPLICABLE, RuleInputError, Special
from .chains import CHAIN_DEPTH
from .dice import Chances, Clamped, Dice, Distribution, Scaled, Value
from .inputs import InputSpec
from .prng import Xoshiro128
from .results import (
    Chain,
    ChainOutcome,
    ChainRoll,
    ChainStep,
    Consequence,
    DiceRoll,
    DieRoll,
    FlowStep,
    Modifier,
    ModOperation,
    Note,
    Resolution,
    Restriction,
    Roll,
    RolledRound,
    RolledSequence,
    RolledValue,
    RollKind,
    RollMade,
    RoundResult,
    RulebookInfo,
    RuleInfo,
    SequenceResult,
    TableResult,
    TableRow,
    TraceEntry,
)

VERSION = "0.2.0"
"""The rulecraft release this runtime is part of (the compiler's `dsl.__version__`)."""

API = 3
"""The contract between generated modules and this runtime: the names they import and what each
does.  Raised whenever a module built before would no longer work with it, or a module built now
needs what an older runtime lacks."""


class RuntimeMismatch(ImportError):
    """A generated module built for another runtime API than the one installed."""


def require(api: int, module: str, built_by: str) -> None:
    """Refuse to load `module` (built by rulecraft `built_by` for runtime API `api`) with a runtime
    that does not offer that API: an ImportError naming both versions and what to do."""
    if api != API:
        newer = "a newer" if api > API else "an older"
        raise RuntimeMismatch(
            f"{module} was built by rulecraft {built_by} for runtime API {api}, but the rulecraft runtime"
            f" here is {VERSION} (API {API}): rebuild the module with `rulecraft build`, or use the"
            f" runtime of {newer} rulecraft ({built_by})"
        )


__all__ = [
    "API",
    "CHAIN_DEPTH",
    "IMPASSABLE",
    "NOT_APPLICABLE",
    "VERSION",
    "Chain",
    "ChainOutcome",
    "ChainRoll",
    "ChainStep",
    "Chances",
    "Clamped",
    "Consequence",
    "Dice",
    "DiceRoll",
    "DieRoll",
    "Distribution",
    "FlowStep",
    "InputSpec",
    "ModOperation",
    "Modifier",
    "Note",
    "Resolution",
    "Restriction",
    "Roll",
    "RollKind",
    "RollMade",
    "RolledRound",
    "RolledSequence",
    "RolledValue",
    "RoundResult",
    "RuleInfo",
    "RuleInputError",
    "RulebookInfo",
    "RuntimeMismatch",
    "Scaled",
    "SequenceResult",
    "Special",
    "TableResult",
    "TableRow",
    "TraceEntry",
    "Value",
    "Xoshiro128",
    "require",
]

for _name in __all__:  # shown as the package's names: `rulecraft_runtime.Dice` in a standalone copy
    _value = globals()[_name]
    if isinstance(_value, type) and _value.__module__.startswith(__name__ + "."):
        _value.__module__ = __name__
del _name, _value
