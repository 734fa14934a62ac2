"""The stable diagnostic codes.

A code never changes meaning once released: tools and users match on it.  Each code is
documented in docs/language.md and has an invalid fixture with its expected output in
tests/fixtures/invalid/ (E790, a failing worked example, and E990, a failing balance claim, in
tests/fixtures/failing_examples/); the test suite fails if either is missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Level(Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Code:
    code: str
    title: str

    @property
    def severity(self) -> Level:
        return Level.WARNING if self.code.startswith("W") else Level.ERROR


_ALL = [
    # reading and parsing
    Code("E001", "syntax error: unexpected token"),
    Code("E002", "syntax error: unexpected character"),
    Code("E003", "inconsistent indentation"),
    Code("E004", "unexpected end of file"),
    Code("E005", "file cannot be read as UTF-8 text"),
    Code("E006", "half of a surrogate pair in a string"),
    # names
    Code("E101", "unknown name"),
    Code("E102", "duplicate definition"),
    Code("E103", "reserved name"),
    Code("E104", "wrong kind of name"),
    Code("E105", "value is not a member of the type"),
    Code("E106", "unknown category"),
    Code("E107", "recursive composition"),
    Code("E108", "unknown table column"),
    # types
    Code("E201", "type mismatch"),
    Code("E202", "unit mismatch"),
    Code("E203", "operation not allowed on this type"),
    Code("E204", "rounding must be explicit"),
    Code("E205", "wrong number of values"),
    Code("E206", "only stats can be modified"),
    # ranges
    Code("E301", "value out of range"),
    Code("E302", "empty range"),
    Code("E303", "impossible dice"),
    Code("E304", "dice value too big"),
    # tables
    Code("E401", "table does not cover every value"),
    Code("E402", "table rows overlap"),
    Code("E403", "table rows out of order"),
    Code("E404", "table misses members of an enumeration"),
    Code("E405", "row key does not fit the table"),
    # logic
    Code("E501", "condition can never hold"),
    Code("W502", "condition always holds"),
    Code("E503", "contradictory modifiers"),
    Code("W504", "rules contradict each other when applied together"),
    Code("W505", "modifiers whose order decides the result"),
    Code("E506", "an order of modifiers that cannot apply"),
    Code("E507", "a chain depth that cannot apply"),
    Code("W508", "a chain listed in part"),
    # dependencies
    Code("E601", "circular dependency"),
    # worked examples
    Code("E701", "example expects something its rules never produce"),
    Code("E790", "worked example failed"),
    # sequences
    Code("E801", "a sequence that cannot run"),
    # balance
    Code("E901", "balance claim about something its rules never give"),
    Code("E902", "balance space that cannot be swept"),
    Code("E990", "balance claim failed"),
    # hygiene
    Code("W101", "declared but never used"),
    Code("W102", "rule cites no source"),
]

CODES: dict[str, Code] = {c.code: c for c in _ALL}
