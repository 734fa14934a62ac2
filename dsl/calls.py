"""Calling a generated module's `resolve` as the command line and the worked examples do: with
the rounds, the generator and the rolled results passed by the keywords that module names them.
Standard library only, so `rulecraft resolve` loads no more than it needs (no lark, no checks)."""

from __future__ import annotations

import inspect
import types
from collections.abc import Mapping, Sequence
from typing import Any


def resolve_in(
    module: types.ModuleType,
    names: Sequence[str],
    given: Mapping[str, object],
    rounds: int | None = None,
    rng: object = None,
    rolled: object = None,
) -> Any:
    """`module.resolve(names, **given)`, over `rounds` rounds when given, rolled from `rng` or told
    `rolled` when given.  A generated `resolve` takes these by keywords that an input of the same
    name pushes aside (`rounds_` when a rulebook has an input `rounds`): the keywords are read
    from its signature, where they come in that order."""
    if rounds is None and rng is None and rolled is None:
        return module.resolve(list(names), **given)
    keywords = [
        p.name for p in inspect.signature(module.resolve).parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY
    ]
    options = {k: v for k, v in zip(keywords, (rounds, rng, rolled), strict=True) if v is not None}
    return module.resolve(list(names), **options, **given)
