"""What the preview page is told: the rulebook's state as JSON, and resolutions of what it asks.

The page builds its widgets from the generated resolver's own description of its inputs (the
`INPUTS` an app reads), so a widget accepts exactly what the resolver does, and every answer is
the resolver's `Resolution.to_dict()`: the page shows what an app would get.  Values arrive as
the text a widget holds and are read as `rulecraft resolve --set` reads them.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

from dsl.cards.html import cards_html
from dsl.cards.text import clean
from dsl.diagnostics import render
from dsl.report import visible
from dsl.runtime.dice import value_json
from dsl.workbench.session import Good, Round, Session

ROLL = "roll"
"""The extra input of a rolled table: the die result that picks a row."""


class RequestError(Exception):
    """A request the page should not have sent (a bad value, an unknown rule): its message is
    shown on the page, as the CLI would print it."""


def page_state(session: Session, latest: Round | None, version: int) -> dict[str, Any]:
    good = session.good
    compiled = latest.compiled if latest is not None else None
    state: dict[str, Any] = {
        "version": version,
        "path": session.shown,
        "checked": compiled is not None,
        "ok": compiled is not None and compiled.ok,
        "diagnostics": _diagnostics(latest) if latest is not None else [],
        "stale": good is not None and latest is not None and latest.good is None,
        "built_at": time.strftime("%H:%M:%S", time.localtime(good.at)) if good is not None else None,
        "build": good.number if good is not None else None,
        "book": None,
        "entries": [],
        "inputs": {},
        "examples": _examples(latest),
    }
    if good is None:
        return state
    book = good.compiled.book
    assert book is not None
    module = good.module
    state["book"] = {"name": book.name, "title": book.title, "source": book.source, "version": book.version}
    entries = []
    for info in module.RULES.values():
        table = book.tables.get(info.name)
        roll = None
        if table is not None and table.pool is not None:
            pool = table.pool
            roll = [1, pool.sides] if pool.keep else [pool.count, pool.count * pool.sides]
        category = book.rules[info.name].category if info.name in book.rules else table.category if table else None
        entries.append(
            {
                "name": info.name,
                "kind": info.kind,
                "title": info.title,
                "source": info.source,
                "category": category,
                "reads": list(info.reads),
                "roll": roll,
            }
        )
    state["entries"] = entries
    state["inputs"] = {name: _input(spec) for name, spec in module.INPUTS.items()}
    return state


def _input(spec: Any) -> dict[str, Any]:
    whole = spec.kind in ("int", "percent")
    return {
        "name": spec.name,
        "label": spec.label,
        "kind": spec.kind,
        "low": None if spec.low is None else float(spec.low),
        "high": None if spec.high is None else float(spec.high),
        "step": 1 if whole else None,
        "unit": spec.unit,
        "members": list(spec.members),
        "default": None if spec.default is None else value_json(spec.default),
        "default_from": spec.default_text if spec.derived is not None else None,
        "stat": spec.is_stat,
        "describe": spec.describe(),
    }


def _diagnostics(latest: Round) -> list[dict[str, Any]]:
    compiled = latest.compiled
    source = compiled.text.split("\n")
    return [
        {
            "code": d.code,
            "severity": d.severity.value,
            "message": d.message,
            "hint": d.hint,
            "line": d.span.line,
            "column": d.span.column,
            "text": render(d, source),
        }
        for d in compiled.diagnostics
    ]


def _examples(latest: Round | None) -> dict[str, Any] | None:
    if latest is None or latest.examples is None:
        return None
    outcome = latest.examples
    return {
        "passed": outcome.passed,
        "failed": outcome.failed,
        "failures": [r.example.title for r in outcome.results if not r.passed],
    }


def resolve(good: Good, payload: Any) -> dict[str, Any]:
    """Resolve `{"names": [...], "inputs": {NAME: TEXT}}` with the good build's resolver."""
    module = good.module
    if not isinstance(payload, dict):
        raise RequestError("send a JSON object with `names` and `inputs`")
    names = payload.get("names")
    raw = payload.get("inputs", {})
    if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
        raise RequestError("`names` must be a list of rule and table names")
    if not isinstance(raw, dict):
        raise RequestError("`inputs` must be an object of input names and values")
    given: dict[str, object] = {}
    for name, text in raw.items():
        if not isinstance(text, str):
            raise RequestError(f"the value of `{_quoted(name)}` must be sent as text")
        spec = module.INPUTS.get(name)
        try:
            given[name] = spec.parse(text) if spec is not None else _roll(name, text)
        except module.RuleInputError as error:
            raise RequestError(str(error)) from None
    try:
        resolution = module.resolve(names, **given)
    except module.RuleInputError as error:
        raise RequestError(str(error)) from None
    result: dict[str, Any] = resolution.to_dict()
    return result


def _quoted(name: str) -> str:
    """A name from a request as a message quotes it: short, and with what cannot be shown or
    written as UTF-8 escaped (an answer never echoes a request's text at length)."""
    return visible(name if len(name) <= 60 else name[:40] + "\u2026")


def _roll(name: str, text: str) -> object:
    """A value for a name that is not an input: the die result of a rolled table is a whole
    number; anything else is passed on for the resolver to refuse with its own message."""
    if name != ROLL:
        return text
    try:
        value = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        return text
    return value.numerator if value.denominator == 1 else text


def cards_page(good: Good, names: list[str]) -> bytes:
    """The screen cards of the named rules and tables, or of the whole book when none is named."""
    book = good.compiled.book
    assert book is not None
    title = clean(book.title)
    deck = [card for card in good.deck if card.key in names] if names else list(good.deck)
    return cards_html(deck, title)
