"""The stable diagnostic codes.

A code never changes meaning once released: tools and users match on it.  Each code is
documented in docs/language.md and has an invalid fixture with its expected output in
tests/fixtures/invalid/ (E790, a failing worked example, and E990, a failing balance claim, in
tests/fixtures/failing_examples/); the test suite fails if either is missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from dsl import __version__


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
    Code("E007", "a release rulecraft does not know"),
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


# ---------------------------------------------------------------------- checks of a release

Release = tuple[int, int]
"""A release of rulecraft as a book states it (`for rulecraft 0.2`): major and minor."""

RELEASES: tuple[Release, ...] = ((0, 1), (0, 2))
"""Every release a rulebook may say it is written for, oldest first; the last is this one."""

CURRENT: Release = (int(__version__.split(".")[0]), int(__version__.split(".")[1]))
"""This release: the major and minor of the package's version."""


@dataclass(frozen=True, slots=True)
class NewCheck:
    """A check added in a release, under a code that may be older (E202 existed before its check of
    a plain value beside a quantity did).  A book written before `since` (one that states an
    older release, or none) gets it as a warning, its fix in the hint, until `error_from`; a book
    that states `since` or later gets it as an error at once (docs/language.md, "Keeping books
    working across releases")."""

    code: str
    title: str
    since: Release
    error_from: Release


PLAIN_BESIDE_QUANTITY = NewCheck("E202", "a plain value combined with a quantity in a unit", (0, 2), (0, 3))
NATURAL_NEVER_SHOWN = NewCheck("E301", "a natural result its dice never show", (0, 2), (0, 3))

NEW_CHECKS: tuple[NewCheck, ...] = (PLAIN_BESIDE_QUANTITY, NATURAL_NEVER_SHOWN)
"""Every check added since the first release: the one table the checker and the docs read."""


def release_text(release: Release) -> str:
    return f"{release[0]}.{release[1]}"


def parse_release_loose(text: str) -> Release | None:
    """`0.2` -> (0, 2), whether rulecraft had that release or not; None for what is no release."""
    major, dot, minor = text.partition(".")
    if not (major.isdigit() and minor.isdigit()) or not dot:
        return None
    return int(major), int(minor)


def parse_release(text: str) -> Release | None:
    """`0.2` -> (0, 2); None for a release rulecraft never had."""
    found = parse_release_loose(text)
    return found if found in RELEASES else None


def graced(check: NewCheck, written_for: Release | None, current: Release = CURRENT) -> bool:
    """Whether `check` is only a warning on a book written for `written_for` (None: not stated)."""
    if current >= check.error_from:
        return False
    return written_for is None or written_for < check.since


def graced_text(check: NewCheck, written_for: Release | None) -> tuple[str, str]:
    """What a graced diagnostic adds to its message and to its hint."""
    since, error_from = release_text(check.since), release_text(check.error_from)
    said = f"; a check new in rulecraft {since}: it will be an error from rulecraft {error_from}"
    if written_for is None:
        then = f"then say the release the book is written for in its header, `for rulecraft {since}`"
    else:
        then = f"then say `for rulecraft {since}` in the header, where it says `for rulecraft {release_text(written_for)}`"
    return said, then
