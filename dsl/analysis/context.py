"""What every part of the analysis shares: the book being built, the reporter, the expression
typer, and the names declared so far (with the rules of naming)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.analysis.infer import ExprTyper, Scope, TableShape
from dsl.categories import CATEGORIES
from dsl.codes import NewCheck
from dsl.diagnostics import Reporter, Span, did_you_mean
from dsl.parser import reserved_words
from dsl.semantics import constant_value

_UNKNOWN = re.compile(r"unknown (?:\w+ )?`([^`]+)`")


@dataclass
class Unparsed(Reporter):
    """Passes diagnostics on, except `unknown ... NAME` for a name whose declaration did not parse:
    its syntax error is reported already, and every use of the name would only repeat it."""

    inner: Reporter = field(default_factory=Reporter)
    names: set[str] = field(default_factory=set)

    def report(self, code: str, message: str, span: Span, hint: str | None = None, new: NewCheck | None = None) -> None:
        match = _UNKNOWN.fullmatch(message)
        if code == "E101" and match is not None and match.group(1) in self.names:
            return
        self.inner.report(code, message, span, hint, new)

    @property
    def has_errors(self) -> bool:
        return self.inner.has_errors


class Context:
    """The state of one analysis.  The analysis modules (vocabulary, tables, rules, modifiers,
    rolls, examples) are functions of a Context and the node they analyse."""

    def __init__(self, tree: n.Rulebook, reporter: Unparsed, book: m.Book) -> None:
        self.tree = tree
        self.reporter = reporter
        self.book = book
        self.type_aliases: dict[str, t.Type] = {}
        self.rule_decls: dict[str, n.RuleDecl] = {}
        self.table_shapes: dict[str, TableShape] = {}
        self.typer = ExprTyper(book, reporter, self.table_shapes)
        self.expanding: list[str] = []  # the rules whose parts are being analysed, outermost first
        self.circles: set[frozenset[str]] = set()
        self.derive_owner: dict[str, str] = {}
        self.seen_names: dict[tuple[str, str], Span] = {}
        self.part_names: dict[str, frozenset[str]] = {}  # what each part reads or changes

    # ------------------------------------------------------------------ names

    def check_name(self, name: n.Name, what: str) -> bool:
        if name.text.startswith("_"):
            self.reporter.report(
                "E103",
                f"names starting with `_` are reserved for generated code: `{name.text}`",
                name.span,
                f"call it `{name.text.lstrip('_') or 'x'}`",
            )
            return False
        if name.text in reserved_words():
            self.reporter.report(
                "E103",
                f"`{name.text}` is a word of the language and cannot name {article(what)}",
                name.span,
                _other_name(name.text),
            )
            return False
        return True

    def declare(self, name: n.Name, namespace: str) -> bool:
        """Declare a name; False for a duplicate.  A reserved name is reported but still
        declared, so its uses do not pile up `unknown name` errors."""
        self.check_name(name, namespace)
        key = (namespace, name.text)
        if key in self.seen_names:
            first = self.seen_names[key]
            self.reporter.report(
                "E102",
                f"`{name.text}` is already declared (line {first.line})",
                name.span,
                "rename one of them",
            )
            return False
        self.seen_names[key] = name.span
        return True

    def unknown_from_now_on(self, name: str) -> None:
        """A name whose declaration failed (reported already): its uses are not news."""
        self.reporter.names.add(name)

    # ------------------------------------------------------------------ shared checks

    def constant(self, expr: n.Expr, type_: t.Type, what: str) -> m.Constant | None:
        """Evaluate a value that must be known when compiling, checking its type and range."""
        found = self.typer.expect(expr, Scope(), type_, what)
        if found is None:
            return None
        value = constant_value(expr, self.book)
        if value is None:
            self.reporter.report("E201", f"{what} must be a fixed value, not a formula of inputs", expr.span)
            return None
        if isinstance(type_, t.Numeric) and isinstance(value, (int, Fraction)):
            if type_.integral and Fraction(value).denominator != 1:
                self.reporter.report("E201", f"{what} must be a whole number", expr.span)
                return None
            if not type_.contains(Fraction(value)):
                self.reporter.report("E301", f"{what} {num(Fraction(value))} is outside {type_.describe()}", expr.span)
                return None
        return value

    def category(self, statement: n.CategoryStmt) -> str | None:
        if statement.name.text not in CATEGORIES:
            self.reporter.report(
                "E106",
                f"unknown category `{statement.name.text}`",
                statement.name.span,
                did_you_mean(statement.name.text, CATEGORIES) or "categories: " + ", ".join(CATEGORIES),
            )
            return None
        return statement.name.text


# ---------------------------------------------------------------------- small helpers


def article(what: str) -> str:
    return ("an " if what[:1] in "aeiou" else "a ") + what


def _other_name(word: str) -> str:
    upper = word.upper()
    if upper not in reserved_words() and upper != word:
        return f"choose another name, e.g. `{upper}` or `{word}_value`"
    return f"choose another name, e.g. `{word}_value`"


def text(node: n.Text | None) -> str | None:
    return node.value if node is not None else None


def note_pair(statement: n.NoteStmt | n.ErratumStmt) -> tuple[str, str | None]:
    """(text, quoted source): the quote is set for an erratum."""
    if isinstance(statement, n.ErratumStmt):
        return (statement.text.value, statement.quote.value)
    return (statement.text.value, None)


def num(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else str(value)


def signed(value: Fraction) -> str:
    return ("+" if value >= 0 else "-") + num(abs(value))


def through(first: Span, last: Span) -> Span:
    """The span from the start of `first` to the end of `last`."""
    return Span(first.path, first.line, first.column, last.end_line, last.end_column)


def guess_high(low: Fraction, high: Fraction) -> Fraction:
    """For `501..99`, the likely intent 501..999: the upper bound's digits, padded to the lower's magnitude."""
    digits = str(int(high))
    width = len(str(int(low)))
    if len(digits) < width:
        return Fraction(int(digits + digits[-1] * (width - len(digits))))
    return low
