"""AST -> checked model.

The analyzer declares every name, resolves types, flattens rule bodies into guarded effects,
expands `as OTHER` compositions, and types every expression (through dsl/infer.py).  It reports
what breaks the language's rules of names and types; the checks in dsl/checks/ then look at the
finished model for logical problems (gaps, contradictions, dead conditions, cycles).
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypeVar

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.categories import CATEGORIES
from dsl.diagnostics import Reporter, Span, did_you_mean
from dsl.infer import ExprTyper, Scope, TableShape, check_dice, choices, describe, not_a_member
from dsl.parser import reserved_words
from dsl.printer import expr_text

_T = TypeVar("_T")

OUTCOMES = ("success", "failure")
OPPOSED_OUTCOMES = ("win", "tie", "lose")
TIE_RULES = ("win", "lose", "tie")


def analyze(tree: n.Rulebook, reporter: Reporter) -> m.Book:
    quiet = _Unparsed(inner=reporter, names=set(tree.unparsed))
    return Analyzer(tree, quiet).run()


_UNKNOWN = re.compile(r"unknown (?:\w+ )?`([^`]+)`")


@dataclass
class _Unparsed(Reporter):
    """Passes diagnostics on, except `unknown ... NAME` for a name whose declaration did not parse:
    its syntax error is reported already, and every use of the name would only repeat it."""

    inner: Reporter = field(default_factory=Reporter)
    names: set[str] = field(default_factory=set)

    def report(self, code: str, message: str, span: Span, hint: str | None = None) -> None:
        match = _UNKNOWN.fullmatch(message)
        if code == "E101" and match is not None and match.group(1) in self.names:
            return
        self.inner.report(code, message, span, hint)

    @property
    def has_errors(self) -> bool:
        return self.inner.has_errors


class Analyzer:
    def __init__(self, tree: n.Rulebook, reporter: Reporter) -> None:
        header = tree.header
        self.tree = tree
        self.reporter = reporter
        self.book = m.Book(
            name=header.name.text,
            title=header.title.value,
            source=header.source.value if header.source else None,
            version=header.version.value if header.version else None,
            notes=tuple(_note_pair(s) for s in header.notes),
            path=header.span.path,
        )
        self.type_aliases: dict[str, t.Type] = {}
        self.rule_decls: dict[str, n.RuleDecl] = {}
        self.table_shapes: dict[str, TableShape] = {}
        self.typer = ExprTyper(self.book, reporter, self.table_shapes)
        self.expanding: list[str] = []
        self.circles: set[frozenset[str]] = set()
        self.derive_owner: dict[str, str] = {}
        self.seen_names: dict[tuple[str, str], Span] = {}

    # ------------------------------------------------------------------ driver

    def run(self) -> m.Book:
        self._check_name(self.tree.header.name, "rulebook")
        decls = self.tree.declarations
        for unit in _of(decls, n.UnitDecl):
            if self._declare(unit.name, "unit"):
                self.book.units[unit.name.text] = unit.label.value if unit.label else None
        for alias in _of(decls, n.TypeDecl):
            if self._declare(alias.name, "type"):
                resolved = self._type(alias.type)
                if resolved is not None:
                    if isinstance(resolved, t.Enum):
                        resolved = dataclasses.replace(resolved, name=alias.name.text)
                    self.type_aliases[alias.name.text] = resolved
        var_decls = [d for d in decls if isinstance(d, (n.InputDecl, n.StatDecl))]
        for var_decl in var_decls:
            self._var(var_decl)
        for group in _of(decls, n.GroupDecl):
            if self._declare(group.name, "group"):
                self.book.groups[group.name.text] = m.Group(
                    group.name.text, _text(group.label), group.stacking, group.span
                )
        grades = list(_of(decls, n.GradesDecl))
        for extra_grades in grades[1:]:
            self.reporter.report("E102", "a rulebook has one `grades` scale", extra_grades.span, "merge the two lists")
        if grades:
            self._grades(grades[0])
        for tiers in _of(decls, n.TiersDecl):
            self._tiers(tiers)
        resistances = list(_of(decls, n.ResistanceDecl))
        for extra in resistances[1:]:
            self.reporter.report("E102", "a rulebook has one `resistance` formula", extra.span)
        if resistances:
            self._resistance(resistances[0])
        for rule in _of(decls, n.RuleDecl):
            if self._declare(rule.name, "rule or table"):
                self.rule_decls[rule.name.text] = rule
        tables = list(_of(decls, n.TableDecl))
        for table in tables:
            if self._declare(table.name, "rule or table"):
                self._table_shape(table)
        for table in tables:
            if table.name.text in self.table_shapes:
                self._table(table)
        # defaults after tables: a stat may start from a lookup (`stat pace = pace_by_class[class]`)
        for var_decl in var_decls:
            self._default(var_decl)
        for name, rule in self.rule_decls.items():
            self.book.rules[name] = self._rule(rule)
        for example in _of(decls, n.ExampleDecl):
            checked = self._example(example, None)
            if checked is not None:
                self.book.examples.append(checked)
        return self.book

    # ------------------------------------------------------------------ names

    def _check_name(self, name: n.Name, what: str) -> bool:
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
                f"`{name.text}` is a word of the language and cannot name {_article(what)}",
                name.span,
                _other_name(name.text),
            )
            return False
        return True

    def _declare(self, name: n.Name, namespace: str) -> bool:
        """Declare a name; False for a duplicate.  A reserved name is reported but still
        declared, so its uses do not pile up `unknown name` errors."""
        self._check_name(name, namespace)
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

    # ------------------------------------------------------------------ vocabulary

    def _type(self, node: n.TypeExpr) -> t.Type | None:
        if isinstance(node, (n.IntType, n.NumberType, n.PercentType)):
            kind = {n.IntType: "int", n.NumberType: "number", n.PercentType: "percent"}[type(node)]
            low = high = None
            if node.bounds is not None:
                low, high = node.bounds.low, node.bounds.high
                if high is not None and low > high:
                    self.reporter.report(
                        "E302",
                        f"the range {_num(low)}..{_num(high)} is empty: it ends below where it starts",
                        node.bounds.span,
                        f"did you mean {_num(low)}..{_num(_guess_high(low, high))}?",
                    )
                    return None
                if kind != "number" and (low.denominator != 1 or (high is not None and high.denominator != 1)):
                    self.reporter.report("E201", f"{kind} bounds must be whole numbers", node.bounds.span)
                    return None
            elif kind == "percent":
                low = Fraction(0)
            unit = None
            if not isinstance(node, n.PercentType) and node.unit is not None:
                unit = node.unit.text
                if unit not in self.book.units:
                    self.reporter.report(
                        "E101",
                        f"unknown unit `{unit}`",
                        node.unit.span,
                        did_you_mean(unit, self.book.units) or f"declare it: unit {unit}",
                    )
                    return None
            return t.Numeric(kind, low, high, unit)
        if isinstance(node, n.FlagType):
            return t.FLAG
        if isinstance(node, n.DiceType):
            return t.DICE
        if isinstance(node, n.TextType):
            return t.TEXT
        if isinstance(node, (n.EnumType, n.LevelsType)):
            names = [m_.text for m_ in node.members]
            for i, member in enumerate(node.members):
                if member.text in names[:i]:
                    self.reporter.report("E102", f"`{member.text}` is listed twice", member.span)
                    return None
                if not self._check_name(member, "member"):
                    return None
            return t.Enum(tuple(names), isinstance(node, n.LevelsType))
        assert isinstance(node, n.NamedType)
        alias = self.type_aliases.get(node.name.text)
        if alias is None:
            self.reporter.report(
                "E101",
                f"unknown type `{node.name.text}`",
                node.name.span,
                did_you_mean(node.name.text, self.type_aliases)
                or "types are int, number, percent, flag, dice, text, one of {...}, levels {...}",
            )
        return alias

    def _var(self, decl: n.InputDecl | n.StatDecl) -> None:
        if not self._declare(decl.name, "input or stat"):
            return
        type_ = self._type(decl.type)
        if type_ is None:
            # its type is reported already (or did not parse): its uses are not news
            if isinstance(self.reporter, _Unparsed):
                self.reporter.names.add(decl.name.text)
            return
        self.book.vars[decl.name.text] = m.Var(
            decl.name.text, _text(decl.label), type_, None, isinstance(decl, n.StatDecl), decl.span
        )

    def _default(self, decl: n.InputDecl | n.StatDecl) -> None:
        """A default is a fixed value, or (once every input is known) a formula of other values:
        `stat to_hit: int = DEX` starts from the effective DEX unless given."""
        var = self.book.vars.get(decl.name.text)
        if var is None or self.book.vars[decl.name.text].span != decl.span:
            return
        if decl.default is None:
            default = _implicit_default(var.type)
            if default is None:
                self.reporter.report(
                    "E201",
                    f"`{decl.name.text}` needs a default value (`= ...`)",
                    decl.name.span,
                    "for dice, e.g. `= 1d6`",
                )
            self.book.vars[var.name] = dataclasses.replace(var, default=default)
            return
        if not any(isinstance(x, (n.NameRef, n.BaseRef)) and x.name in self.book.vars for x in walk(decl.default)):
            value = self._constant(decl.default, var.type, "the default")
            self.book.vars[var.name] = dataclasses.replace(var, default=value)
            return
        found = self.typer.expect(decl.default, Scope(), _loose(var.type), "the default")
        if found is None:
            return
        if decl.name.text in names_read(decl.default, self.book) | _stats_read(decl.default, self.book):
            self.reporter.report(
                "E601", f"`{var.name}` cannot start from itself", decl.default.span, "give it a fixed default"
            )
            return
        self.book.vars[var.name] = dataclasses.replace(var, default=None, default_expr=decl.default)

    def _constant(self, expr: n.Expr, type_: t.Type, what: str) -> m.Constant | None:
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
                self.reporter.report("E301", f"{what} {_num(Fraction(value))} is outside {type_.describe()}", expr.span)
                return None
        return value

    def _grades(self, decl: n.GradesDecl) -> None:
        grades: list[m.Grade] = []
        for item in decl.grades:
            if not self._declare(item.name, "grade"):
                continue
            effect = item.effect
            value_expr = (
                effect.value
                if isinstance(effect, n.SetMod)
                else getattr(effect, "factor", None) or getattr(effect, "divisor", None)
            )
            assert value_expr is not None
            value = self._constant(value_expr, t.NUMBER, "a grade's factor")
            if value is None or not isinstance(value, (int, Fraction)):
                continue
            op = {n.MulMod: "mul", n.DivMod: "div", n.SetMod: "set"}[type(effect)]
            rounding = getattr(effect, "rounding", None)
            grades.append(m.Grade(item.name.text, item.step, op, Fraction(value), rounding, item.span))  # type: ignore[arg-type]
        self.book.grades = tuple(grades)

    def _tiers(self, decl: n.TiersDecl) -> None:
        if not self._declare(decl.name, "tiers"):
            return
        scope = Scope(specials={"target": t.Numeric("number")})
        tiers: list[m.Tier] = []
        for item in decl.tiers:
            if item.name.text in [x.name for x in tiers]:
                self.reporter.report("E102", f"tier `{item.name.text}` is listed twice", item.name.span)
                continue
            if item.bound is not None:
                if item.op not in ("<=", ">="):
                    self.reporter.report(
                        "E203",
                        f"a tier is bounded with `roll <=` or `roll >=`, not `roll {item.op}`",
                        item.span,
                    )
                    continue
                self.typer.expect(item.bound, scope, t.Numeric("number"), "a tier's bound")
                self._only_specials(item.bound, scope, "a tier's bound")
            tiers.append(m.Tier(item.name.text, item.op, item.bound, item.span))
        self.book.tiers[decl.name.text] = m.TierSystem(decl.name.text, _text(decl.label), tuple(tiers), decl.span)

    def _only_specials(self, expr: n.Expr, scope: Scope, what: str) -> None:
        """A tier's bound and the resistance formula are shared by every roll that uses them, so
        they read only their own names (`target`; `active`, `passive`), never a stat or input."""
        allowed = ", ".join(f"`{name}`" for name in scope.specials)
        for node in walk(expr):
            if isinstance(node, n.NameRef) and node.name not in scope.specials and node.name in self.book.vars:
                name = node.name
            elif isinstance(node, n.BaseRef) and node.name in self.book.vars:
                name = f"base {node.name}"
            elif isinstance(node, n.Lookup):
                name = node.table.text
            else:
                continue
            self.reporter.report(
                "E104",
                f"{what} cannot read `{name}`: it may use only {allowed} and numbers",
                node.span,
                "it serves every roll that uses it: read other values in the roll itself, or write a second roll",
            )

    def _resistance(self, decl: n.ResistanceDecl) -> None:
        check_dice(decl.pool.count, decl.pool.sides, decl.pool, self.reporter)
        scope = Scope(specials={"active": t.Numeric("int"), "passive": t.Numeric("int")})
        self.typer.expect(decl.target, scope, t.Numeric("number"), "the resistance target")
        self._only_specials(decl.target, scope, "the resistance formula")
        self.book.resistance = m.Resistance(_text(decl.label), decl.pool, decl.op, decl.target, decl.span)

    # ------------------------------------------------------------------ tables

    def _table_shape(self, decl: n.TableDecl) -> None:
        """Key and column types, needed before any rule can look the table up."""
        key_types: list[t.Type] = []
        if isinstance(decl.key, n.RollKey):
            key_types.append(t.Numeric("int"))
        else:
            assert isinstance(decl.key, n.InputKey)
            for name in decl.key.inputs:
                var = self.book.vars.get(name.text)
                if var is None:
                    self.reporter.report(
                        "E101", f"unknown input `{name.text}`", name.span, did_you_mean(name.text, self.book.vars)
                    )
                    return
                key_types.append(var.type)
        columns = self._columns(decl)
        self.table_shapes[decl.name.text] = TableShape(tuple(key_types), {c: t.TEXT for c, _ in columns})

    def _columns(self, decl: n.TableDecl) -> tuple[tuple[str, str | None], ...]:
        declared = [c for item in decl.items if isinstance(item, n.Columns) for c in item.columns]
        if not declared:
            return (("value", None),)
        return tuple((c.name.text, _text(c.label)) for c in declared)

    def _table(self, decl: n.TableDecl) -> None:
        name = decl.name.text
        shape = self.table_shapes[name]
        columns = self._columns(decl)
        column_decls = [item for item in decl.items if isinstance(item, n.Columns)]
        for extra in column_decls[1:]:
            self.reporter.report("E102", "a table lists its columns once", extra.span)
        inputs: tuple[str, ...] = ()
        pool = None
        modifier = None
        sign = 1
        if isinstance(decl.key, n.RollKey):
            pool = decl.key.pool
            check_dice(pool.count, pool.sides, pool, self.reporter)
            if decl.key.modifier is not None:
                var = self.book.vars.get(decl.key.modifier.text)
                if var is None:
                    self.reporter.report(
                        "E101",
                        f"unknown input `{decl.key.modifier.text}`",
                        decl.key.modifier.span,
                        did_you_mean(decl.key.modifier.text, self.book.vars),
                    )
                elif not (isinstance(var.type, t.Numeric) and var.type.integral):
                    self.reporter.report(
                        "E201",
                        f"a roll is modified by a whole number, but `{var.name}` is {describe(var.type)}",
                        decl.key.modifier.span,
                    )
                else:
                    modifier = var.name
                sign = decl.key.modifier_sign
        else:
            assert isinstance(decl.key, n.InputKey)
            inputs = tuple(x.text for x in decl.key.inputs)
            if len(inputs) == 2:
                self._two_d_columns(decl, shape, column_decls)
        scope = Scope()
        rows: list[m.TableRow] = []
        column_types: dict[str, list[t.Type]] = {c: [] for c, _ in columns}
        value_columns = [c for c, _ in columns] if len(inputs) != 2 else ["value"] * len(columns)
        for item in decl.items:
            if not isinstance(item, n.Row):
                continue
            row = self._row(decl, item, shape, scope, columns, value_columns, column_types)
            if row is not None:
                rows.append(row)
        rows = _close_thresholds(rows)
        final_columns: dict[str, t.Type] = {}
        if len(inputs) == 2:
            final_columns["value"] = _hull(functools.reduce(operator.iadd, column_types.values(), []))
        else:
            for column, types in column_types.items():
                final_columns[column] = _hull(types)
        shape.columns = final_columns
        overflow = None
        notes: list[tuple[str, str | None]] = []
        category = None
        for item in decl.items:
            if isinstance(item, n.Overflow):
                if pool is None:
                    self.reporter.report("E203", "`above N: as M` belongs to tables rolled with dice", item.span)
                    continue
                overflow = m.Overflow(
                    item.above, item.becomes, self._step(item.step, decl) if item.step else None, item.span
                )
            elif isinstance(item, n.TableStmt):
                statement = item.statement
                if isinstance(statement, n.CategoryStmt):
                    category = self._category(statement)
                else:
                    notes.append(_note_pair(statement))
        self.book.tables[name] = m.Table(
            name=name,
            title=decl.title.value if decl.title else name.replace("_", " ").title(),
            cites=decl.cites.value if decl.cites else None,
            category=category,
            key="roll" if pool is not None else "input",
            pool=pool,
            modifier=modifier,
            modifier_sign=sign,
            inputs=inputs,
            columns=columns,
            rows=tuple(rows),
            overflow=overflow,
            notes=tuple(notes),
            span=decl.span,
        )

    def _two_d_columns(self, decl: n.TableDecl, shape: TableShape, column_decls: list[n.Columns]) -> None:
        column_type = shape.key_types[1]
        row_type = shape.key_types[0]
        assert isinstance(decl.key, n.InputKey)
        for key_type, key_name in zip((row_type, column_type), decl.key.inputs, strict=True):
            if not isinstance(key_type, t.Enum):
                self.reporter.report(
                    "E201",
                    f"a two-way table is keyed by choices, but `{key_name.text}` is {describe(key_type)}",
                    key_name.span,
                )
        if not isinstance(column_type, t.Enum):
            return
        if not column_decls:
            self.reporter.report(
                "E205",
                "a two-way table names its columns",
                decl.name.span,
                f"add `columns {', '.join(column_type.members)}`",
            )
            return
        listed = [c.name for c in column_decls[0].columns]
        for column in listed:
            if column.text not in column_type.members:
                self.reporter.report(
                    "E105",
                    not_a_member(column.text, column_type),
                    column.span,
                    did_you_mean(column.text, column_type.members),
                )
        missing = [x for x in column_type.members if x not in {c.text for c in listed}]
        if missing:
            self.reporter.report(
                "E404", f"the columns miss {', '.join(f'`{x}`' for x in missing)}", column_decls[0].span
            )

    def _row(
        self,
        decl: n.TableDecl,
        item: n.Row,
        shape: TableShape,
        scope: Scope,
        columns: tuple[tuple[str, str | None], ...],
        value_columns: list[str],
        column_types: dict[str, list[t.Type]],
    ) -> m.TableRow | None:
        key = item.key
        numeric_key = isinstance(decl.key, n.RollKey) or isinstance(shape.key_types[0], t.Numeric)
        low = high = None
        member = None
        if isinstance(key, n.KeyRange):
            if not numeric_key:
                row_type = shape.key_types[0]
                self.reporter.report(
                    "E405",
                    f"rows of this table are named by {row_type.describe()}, not numbers",
                    key.span,
                    f"name the row by one of {choices(row_type)}" if isinstance(row_type, t.Enum) else None,
                )
                return None
            low, high = key.low, key.high
            if high is not None and low > high:
                self.reporter.report(
                    "E302",
                    f"the range {low}..{high} is empty: it ends below where it starts",
                    key.span,
                    f"did you mean {low}..{_guess_high(Fraction(low), Fraction(high))}?",
                )
                return None
        elif isinstance(key, n.KeyName):
            row_type = shape.key_types[0]
            if numeric_key or not isinstance(row_type, t.Enum):
                keyed = "the roll" if isinstance(decl.key, n.RollKey) else "the value"
                self.reporter.report(
                    "E405",
                    "rows of this table are numbers or ranges, not names",
                    key.span,
                    f"key each row by {keyed}: a number (`20`), a range (`1..5`) or a threshold (`15+`)",
                )
                return None
            if key.name.text not in row_type.members:
                self.reporter.report(
                    "E105",
                    not_a_member(key.name.text, row_type),
                    key.name.span,
                    did_you_mean(key.name.text, row_type.members),
                )
                return None
            member = key.name.text
        if len(item.cells) != len(columns):
            self.reporter.report(
                "E205",
                f"this row has {len(item.cells)} value(s) but the table has {len(columns)} column(s)",
                item.span,
                "columns: " + ", ".join(c for c, _ in columns),
            )
            return None
        cells = []
        for cell, column in zip(item.cells, value_columns, strict=True):
            cells.append(self._cell(cell, decl, scope, column_types, column))
        threshold = isinstance(key, n.KeyRange) and key.open
        return m.TableRow(low, high, member, isinstance(key, n.KeyElse), tuple(cells), item.span, threshold)

    def _cell(
        self, cell: n.Cell, decl: n.TableDecl, scope: Scope, column_types: dict[str, list[t.Type]], column: str
    ) -> m.TableCell:
        bucket = column_types.setdefault(column, [])
        if isinstance(cell, n.ImpassableCell):
            bucket.append(t.Cell(t.Numeric("int")))
            return m.TableCell("impassable", None, None, cell.span)
        if isinstance(cell, n.NACell):
            bucket.append(t.Cell(t.Numeric("int")))
            return m.TableCell("na", None, None, cell.span)
        if isinstance(cell, n.StepCell):
            return m.TableCell("step", None, self._step(cell.step, decl), cell.span)
        assert isinstance(cell, n.ValueCell)
        found = self.typer.infer(cell.value, scope)
        if found is not None:
            bucket.append(found)
        step = self._step(cell.step, decl) if cell.step else None
        return m.TableCell("value", cell.value, step, cell.span)

    def _step(self, step: n.Step, decl: n.TableDecl) -> m.Step:
        if isinstance(step, n.RollOn):
            if step.table.text not in self.table_shapes and step.table.text != decl.name.text:
                self.reporter.report(
                    "E101",
                    f"unknown table `{step.table.text}`",
                    step.table.span,
                    did_you_mean(step.table.text, self.table_shapes),
                )
            return m.Step("roll_on", step.table.text, step.offset, step.span)
        if not isinstance(decl.key, n.RollKey):
            self.reporter.report("E203", "only a table rolled with dice can be rolled again", step.span)
        if isinstance(step, n.RollTwice):
            return m.Step("twice", decl.name.text, 0, step.span)
        assert isinstance(step, n.RollAgain)
        return m.Step("again", decl.name.text, step.offset, step.span)

    # ------------------------------------------------------------------ rules

    def _rule(self, decl: n.RuleDecl) -> m.Rule:
        name = decl.name.text
        if decl.cites is None:
            self.reporter.report(
                "W102",
                f"rule `{name}` cites no source",
                decl.name.span,
                'say where it comes from: rule NAME "Title" cites "section"',
            )
        self.expanding = [name]
        scope = Scope(later_derives=frozenset(_derived_names(decl.body)))
        effects = list(self._expand(decl, decl.body, (), (), {}, scope))
        categories = [s for s in decl.body if isinstance(s, n.CategoryStmt)]
        for extra in categories[1:]:
            self.reporter.report("E102", "a rule has one category", extra.span)
        category = self._category(categories[0]) if categories else None
        reads = _reads(effects, self.book)
        rule = m.Rule(
            name=name,
            kind=decl.kind,
            title=decl.title.value if decl.title else name.replace("_", " ").title(),
            cites=decl.cites.value if decl.cites else None,
            category=category,
            effects=tuple(effects),
            examples=(),
            reads=reads,
            span=decl.span,
        )
        examples = tuple(x for x in (self._example(e, rule) for e in decl.examples) if x is not None)
        return dataclasses.replace(rule, examples=examples)

    def _category(self, statement: n.CategoryStmt) -> str | None:
        if statement.name.text not in CATEGORIES:
            self.reporter.report(
                "E106",
                f"unknown category `{statement.name.text}`",
                statement.name.span,
                did_you_mean(statement.name.text, CATEGORIES) or "categories: " + ", ".join(CATEGORIES),
            )
            return None
        return statement.name.text

    def _expand(
        self,
        rule: n.RuleDecl,
        body: Iterable[n.Statement],
        guard: tuple[m.Condition, ...],
        via: tuple[str, ...],
        bindings: dict[str, n.Expr],
        scope: Scope,
        path: str = "",
        guard_names: frozenset[str] = frozenset(),
    ) -> Iterator[m.Effect]:
        """The effects of statements, each keyed by its place in its rule (`mud#3`, `mud#2.1`): a
        key that survives edits elsewhere in the file, and that is the same when the statement is
        reached through `as`, which is how a rule applied twice is recognised.  The key names the
        `with` bindings the statement reads (itself or in the conditions around it): reached with
        bindings it never reads, it is the same statement.  `guard_names` are the names read by
        those conditions."""
        origin = rule.name.text
        for index, statement in enumerate(body, start=1):
            place = f"{path}{index}"
            read = guard_names | _names_in(statement) if bindings else guard_names
            key = _effect_key(origin, place, {k: v for k, v in bindings.items() if k in read})
            base: dict[str, Any] = {
                "key": key,
                "origin": origin,
                "cites": rule.cites.value if rule.cites else None,
                "guard": guard,
                "via": via,
                "span": statement.span,
            }
            if isinstance(statement, n.WhenBlock):
                condition = substitute(statement.condition, bindings)
                self.typer.condition(condition, scope)
                inner_names = guard_names | _names_in(statement.condition) if bindings else guard_names
                yield from self._expand(
                    rule,
                    statement.body,
                    (*guard, m.Condition(condition, statement.negated)),
                    via,
                    bindings,
                    scope,
                    f"{place}.",
                    inner_names,
                )
                if statement.orelse:
                    yield from self._expand(
                        rule,
                        statement.orelse,
                        (*guard, m.Condition(condition, not statement.negated)),
                        via,
                        bindings,
                        scope,
                        f"{place}else.",
                        inner_names,
                    )
            elif isinstance(statement, n.Modifier):
                effect = self._modifier(statement, base, bindings, scope)
                if effect is not None:
                    yield effect
            elif isinstance(statement, n.RollDecl):
                roll = self._roll(statement, base, bindings, scope, guard)
                if roll is not None:
                    yield roll
            elif isinstance(statement, n.CannotStmt):
                yield m.CannotEffect(**base, text=statement.text.value)
            elif isinstance(statement, n.NoteStmt):
                yield m.NoteEffect(**base, text=statement.text.value, quote=None)
            elif isinstance(statement, n.ErratumStmt):
                yield m.NoteEffect(**base, text=statement.text.value, quote=statement.quote.value)
            elif isinstance(statement, n.DeriveStmt):
                derived = self._derive(statement, base, bindings, scope)
                if derived is not None:
                    yield derived
            elif isinstance(statement, n.AsStmt):
                yield from self._as(statement, guard, via, bindings, scope)
            elif isinstance(statement, n.CategoryStmt) and guard and not via:
                self.reporter.report("E203", "a category belongs to the whole rule, not to a condition", statement.span)

    def _as(
        self,
        statement: n.AsStmt,
        guard: tuple[m.Condition, ...],
        via: tuple[str, ...],
        bindings: dict[str, n.Expr],
        scope: Scope,
    ) -> Iterator[m.Effect]:
        for ref in statement.rules:
            target = self.rule_decls.get(ref.text)
            if target is None:
                hint = did_you_mean(ref.text, self.rule_decls)
                if ref.text in self.table_shapes:
                    self.reporter.report(
                        "E104",
                        f"`{ref.text}` is a table; `as` takes a rule, terrain, condition or trait",
                        ref.span,
                        f"use a table by looking it up, `{ref.text}[...]`, or from a roll: `then roll {ref.text}`",
                    )
                else:
                    self.reporter.report("E101", f"unknown rule `{ref.text}`", ref.span, hint)
                continue
            if ref.text in self.expanding:
                circle = self.expanding[self.expanding.index(ref.text) :]
                if frozenset(circle) not in self.circles:  # met again from each rule of the circle
                    self.circles.add(frozenset(circle))
                    self.reporter.report(
                        "E107",
                        f"rules compose in a circle: {' -> '.join([*circle, ref.text])}",
                        ref.span,
                        "one of them must not use `as`",
                    )
                continue
            inner: dict[str, n.Expr] = {}
            for binding in statement.bindings:
                var = self.book.vars.get(binding.name.text)
                if var is None:
                    self.reporter.report(
                        "E101",
                        f"unknown input `{binding.name.text}`",
                        binding.name.span,
                        did_you_mean(binding.name.text, self.book.vars),
                    )
                    continue
                value = substitute(binding.value, bindings)
                if self.typer.expect(value, scope, var.type, f"`{var.name}`") is not None:
                    inner[var.name] = value
            self.expanding.append(ref.text)
            inner_scope = Scope(
                derives=dict(scope.derives),
                specials=dict(scope.specials),
                later_derives=frozenset(_derived_names(target.body)),
            )
            yield from self._expand(target, target.body, guard, (*via, ref.text), {**bindings, **inner}, inner_scope)
            scope.derives.update(inner_scope.derives)
            self.expanding.pop()

    def _modifier(
        self, statement: n.Modifier, base: dict[str, Any], bindings: dict[str, n.Expr], scope: Scope
    ) -> m.ModEffect | None:
        target = statement.target.text
        var = self.book.vars.get(target)
        if var is None:
            self.reporter.report(
                "E101",
                f"unknown stat `{target}`",
                statement.target.span,
                did_you_mean(target, [v for v, x in self.book.vars.items() if x.is_stat]),
            )
            return None
        if not var.is_stat:
            self.reporter.report(
                "E206",
                f"`{target}` is an input of the situation; only stats can be modified",
                statement.target.span,
                f"declare it with `stat {target}: ...` if rules change it",
            )
            return None
        op = statement.op
        kind = _MOD_KINDS[type(op)]
        if not _allowed(var.type, kind):
            self.reporter.report(
                "E203",
                f"{_MOD_WORDS[kind]} cannot apply to `{target}`, which is {describe(var.type)}",
                statement.span,
                _allowed_hint(var.type),
            )
            return None
        fields: dict[str, Any] = {
            "target": target,
            "op": kind,
            "value": None,
            "rounding": None,
            "per": None,
            "percent": False,
            "delta": 0,
            "grade": None,
            "group": None,
            "label": _text(statement.label),
        }
        stat_type = var.type
        if isinstance(op, n.AddMod):
            value = substitute(op.value, bindings)
            if op.percent and not (isinstance(stat_type, t.Numeric) and stat_type.kind == "percent"):
                self.reporter.report(
                    "E203",
                    f"`%` changes a percentage, and `{target}` is {describe(stat_type)}",
                    op.span,
                    f"write `{target} {_signed(_literal(op.value))}` to change it by points"
                    if isinstance(op.value, n.Number)
                    else None,
                )
                return None
            if isinstance(stat_type, t.Dice):
                found = self.typer.infer(value, scope)
                if found is not None and not isinstance(found, (t.Numeric, t.Dice)):
                    self.reporter.report(
                        "E201", f"dice are changed by a number or dice, not {describe(found)}", value.span
                    )
            else:
                found_change = self.typer.expect(value, scope, _loose(stat_type), "the change")
                if op.per is None:
                    self._whole(found_change, stat_type, op.value, target, "+")
            fields["value"] = value
            fields["percent"] = op.percent
            if op.per is not None:
                per = substitute(op.per, bindings)
                found = self.typer.infer(per, scope)
                if found is not None and not (isinstance(found, t.Numeric) and found.integral):
                    self.reporter.report(
                        "E201",
                        f"`per` counts whole units, but this is {describe(found)}",
                        per.span,
                        "`per N` applies the change N times: N is a count, such as a number of hexes",
                    )
                fields["per"] = per
        elif isinstance(op, (n.MulMod, n.DivMod)):
            value = substitute(op.factor if isinstance(op, n.MulMod) else op.divisor, bindings)
            self.typer.expect(value, scope, t.Numeric("number"), "the factor")
            needs_rounding = not (isinstance(stat_type, t.Numeric) and stat_type.kind == "number")
            if op.rounding is None and needs_rounding:
                scaled = f"{target} {'*' if isinstance(op, n.MulMod) else '/'} {expr_text(value)}"
                self.reporter.report(
                    "E204",
                    f"`{target}` holds whole numbers: say how to round",
                    _through(statement.target.span, op.span),
                    f"write `{scaled} round up`, `round down` or `round nearest`",
                )
                return None
            fields["value"] = value
            fields["rounding"] = op.rounding
        elif isinstance(op, (n.SetMod, n.MinMod, n.MaxMod)):
            value = substitute(op.value, bindings)
            found_value = self.typer.expect(value, scope, _loose(stat_type), "the value")
            if found_value is None:
                return None
            self._whole(found_value, stat_type, value, target)
            if not self._within(target, kind, value, stat_type, statement):
                return None
            fields["value"] = value
        elif isinstance(op, n.GradeMod):
            names = [g.name for g in self.book.grades]
            if op.grade.text not in names:
                self.reporter.report(
                    "E101",
                    f"unknown grade `{op.grade.text}`",
                    op.grade.span,
                    did_you_mean(op.grade.text, names) or "declare the scale with `grades:`",
                )
                return None
            fields["grade"] = op.grade.text
        else:
            assert isinstance(op, (n.DiceMod, n.StepMod, n.ShiftMod))
            count = substitute(op.delta, bindings)
            found_count = self.typer.expect(count, scope, t.Numeric("int"), "the number of " + _COUNTED[kind])
            if found_count is None:
                return None
            if not (isinstance(found_count, t.Numeric) and found_count.integral):
                self.reporter.report(
                    "E204",
                    f"the number of {_COUNTED[kind]} may be a fraction: say how to round it",
                    count.span,
                    f"write `({expr_text(count)} round down)`",
                )
                return None
            constant = constant_value(count, self.book)
            if isinstance(constant, int) and not isinstance(constant, bool):
                fields["delta"] = constant
            else:
                fields["value"] = count
        if statement.group is not None:
            if statement.group.text not in self.book.groups:
                self.reporter.report(
                    "E101",
                    f"unknown group `{statement.group.text}`",
                    statement.group.span,
                    did_you_mean(statement.group.text, self.book.groups),
                )
                return None
            if kind != "add":
                self.reporter.report("E203", "stacking groups hold additive modifiers (+N / -N)", statement.group.span)
                return None
            fields["group"] = statement.group.text
        return m.ModEffect(**base, **fields)

    def _within(self, target: str, kind: str, value: n.Expr, stat_type: t.Type, statement: n.Modifier) -> bool:
        """A fixed `= N`, `min N` or `max N` must leave the stat a value its range allows."""
        constant = constant_value(value, self.book)
        if not isinstance(stat_type, t.Numeric) or not _is_number(constant):
            return True
        number = Fraction(constant)  # type: ignore[arg-type]
        low, high = stat_type.low, stat_type.high
        outside = (
            (kind == "set" and not stat_type.contains(number))
            or (kind == "min" and high is not None and number > high)
            or (kind == "max" and low is not None and number < low)
        )
        if outside:
            word = "=" if kind == "set" else kind
            self.reporter.report(
                "E301",
                f"`{target} {word} {_num(number)}` takes `{target}` outside its range, {stat_type.describe()}",
                _through(statement.target.span, statement.op.span),
                f"fix the value, or widen the range of `{target}`",
            )
        return not outside

    def _whole(self, found: t.Type | None, stat_type: t.Type, value: n.Expr, target: str, op: str = "=") -> None:
        """A stat of whole numbers takes whole-number values: a fraction must say how it rounds."""
        if (
            isinstance(found, t.Numeric)
            and isinstance(stat_type, t.Numeric)
            and stat_type.integral
            and not found.integral
        ):
            self.reporter.report(
                "E204",
                f"`{target}` holds whole numbers, but this value may be a fraction: say how to round it",
                value.span,
                f"write `{target} {op} ({expr_text(value)} round down)` (or `round up`, `round nearest`)",
            )

    def _derive(
        self, statement: n.DeriveStmt, base: dict[str, Any], bindings: dict[str, n.Expr], scope: Scope
    ) -> m.DeriveEffect | None:
        name = statement.name.text
        if not self._check_name(statement.name, "derived value"):
            return None
        if name in self.book.vars:
            self.reporter.report(
                "E102", f"`{name}` is already an input or stat", statement.name.span, f"call it `{name}_effective`"
            )
            return None
        owner = self.derive_owner.setdefault(name, str(base["origin"]))
        if owner != base["origin"]:
            self.reporter.report("E102", f"`{name}` is already derived by rule `{owner}`", statement.name.span)
            return None
        unit = None
        if statement.unit is not None:
            unit = statement.unit.text
            if unit not in self.book.units:
                self.reporter.report(
                    "E101", f"unknown unit `{unit}`", statement.unit.span, did_you_mean(unit, self.book.units)
                )
                return None
        value = substitute(statement.value, bindings)
        expected = t.Numeric("number", unit=unit) if unit else None
        found = self.typer.infer(value, scope, expected)
        if found is None:
            return None
        if unit is not None:
            if not isinstance(found, t.Numeric):
                self.reporter.report(
                    "E201", f"a value in {unit} must be a number, but this is {describe(found)}", value.span
                )
                return None
            if found.unit not in (None, unit):
                self.reporter.report(
                    "E202",
                    f"`{name}` is in {unit}, but this is in {found.unit}",
                    value.span,
                    f"convert the value to {unit}, or declare `{name}` in {found.unit}",
                )
                return None
            found = dataclasses.replace(found, unit=unit)
        scope.derives[name] = found
        return m.DeriveEffect(**base, name=name, label=_text(statement.label), unit=unit, value=value, type=found)

    def _roll(
        self,
        statement: n.RollDecl,
        base: dict[str, Any],
        bindings: dict[str, n.Expr],
        scope: Scope,
        guard: tuple[m.Condition, ...],
    ) -> m.RollEffect | None:
        spec = statement.spec
        fields: dict[str, Any] = {
            "name": statement.name.text,
            "label": _text(statement.label),
            "pool": None,
            "op": None,
            "target": None,
            "active": None,
            "passive": None,
            "against": None,
            "bonus": None,
            "against_bonus": None,
            "success": False,
        }
        number = t.Numeric("number")
        if isinstance(spec, n.CheckSpec):
            if not check_dice(spec.pool.count, spec.pool.sides, spec.pool, self.reporter):
                return None
            target = substitute(spec.target, bindings)
            self.typer.expect(target, scope, number, "the target of a roll")
            fields.update(kind="check", pool=spec.pool, op=spec.op, target=target)
        elif isinstance(spec, n.ResistSpec):
            if self.book.resistance is None:
                self.reporter.report(
                    "E101",
                    "a resistance roll needs the rulebook's `resistance` formula",
                    spec.span,
                    "declare e.g. `resistance: d100 <= 50 + (active - passive) * 5`",
                )
                return None
            active = substitute(spec.active, bindings)
            passive = substitute(spec.passive, bindings)
            self.typer.expect(active, scope, number, "the active side")
            self.typer.expect(passive, scope, number, "the passive side")
            fields.update(kind="resist", active=active, passive=passive)
        elif isinstance(spec, n.OpposedSpec):
            for pool in (spec.pool, spec.against):
                if not check_dice(pool.count, pool.sides, pool, self.reporter):
                    return None
            bonus = substitute(spec.bonus, bindings) if spec.bonus else None
            against_bonus = substitute(spec.against_bonus, bindings) if spec.against_bonus else None
            for value in (bonus, against_bonus):
                if value is not None:
                    self.typer.expect(value, scope, number, "a bonus")
            fields.update(
                kind="opposed", pool=spec.pool, against=spec.against, bonus=bonus, against_bonus=against_bonus
            )
        else:
            assert isinstance(spec, n.AutomaticSpec)
            fields.update(kind="automatic", success=spec.success)
        kind = fields["kind"]
        changes: list[m.RollChange] = []
        outcomes: list[m.Outcome] = []
        notes: list[tuple[str, str | None]] = []
        tiers = None
        ties = None
        for item in statement.items:
            if isinstance(item, n.TiersRef):
                if kind != "check":
                    self.reporter.report("E203", "outcome tiers apply to a roll against a target", item.span)
                elif item.name.text not in self.book.tiers:
                    self.reporter.report(
                        "E101",
                        f"unknown tiers `{item.name.text}`",
                        item.name.span,
                        did_you_mean(item.name.text, self.book.tiers),
                    )
                else:
                    tiers = item.name.text
        allowed = OPPOSED_OUTCOMES if kind == "opposed" else OUTCOMES
        if tiers is not None:
            allowed = (*allowed, *(x.name for x in self.book.tiers[tiers].tiers))
        for item in statement.items:
            if isinstance(item, n.GuardedChange):
                change = self._roll_change(item, kind, bindings, scope)
                if change is not None:
                    changes.append(change)
            elif isinstance(item, n.OutcomeItem):
                if item.outcome.text not in allowed:
                    self.reporter.report(
                        "E101",
                        f"`{item.outcome.text}` is not an outcome of this roll",
                        item.outcome.span,
                        did_you_mean(item.outcome.text, allowed) or "outcomes: " + ", ".join(allowed),
                    )
                    continue
                if item.by_margin and kind != "check":
                    self.reporter.report("E203", "`by margin` applies to a roll against a target", item.span)
                    continue
                step = None
                if item.step is not None:
                    if not isinstance(item.step, n.RollOn):
                        self.reporter.report(
                            "E203", "an outcome can roll on a table, not roll itself again", item.step.span
                        )
                    else:
                        if item.step.table.text not in self.table_shapes:
                            self.reporter.report(
                                "E101",
                                f"unknown table `{item.step.table.text}`",
                                item.step.table.span,
                                did_you_mean(item.step.table.text, self.table_shapes),
                            )
                        step = m.Step("roll_on", item.step.table.text, item.step.offset, item.step.span)
                outcomes.append(m.Outcome(item.outcome.text, item.by_margin, _text(item.text), step, item.span))
            elif isinstance(item, n.TiesItem):
                if kind != "opposed":
                    self.reporter.report("E203", "`ties` belongs to opposed rolls", item.span)
                elif item.winner.text not in TIE_RULES:
                    self.reporter.report(
                        "E101",
                        f"ties are `win`, `lose` or `tie`, not `{item.winner.text}`",
                        item.winner.span,
                        did_you_mean(item.winner.text, TIE_RULES),
                    )
                else:
                    ties = item.winner.text
            elif isinstance(item, n.RollNote):
                notes.append(_note_pair(item.note))
        pools = [c.pool for c in changes if c.pool is not None] + ([spec.pool] if isinstance(spec, n.CheckSpec) else [])
        if pools:
            most = max(p.count for p in pools) + sum(c.delta for c in changes if c.kind == "dice" and c.delta > 0)
            if most > MAX_POOL:
                self.reporter.report(
                    "E303",
                    f"with every change that adds dice, this roll reaches {most} dice: exact probabilities for "
                    "so many are out of reach",
                    statement.name.span,
                    f"keep pools to {MAX_POOL} dice or fewer",
                )
                return None
        return m.RollEffect(
            **base,
            **fields,
            changes=tuple(changes),
            outcomes=tuple(outcomes),
            tiers=tiers,
            ties=ties,
            notes=tuple(notes),
        )

    def _roll_change(
        self, item: n.GuardedChange, kind: object, bindings: dict[str, n.Expr], scope: Scope
    ) -> m.RollChange | None:
        guard: tuple[m.Condition, ...] = ()
        if item.condition is not None:
            condition = substitute(item.condition, bindings)
            self.typer.condition(condition, scope)
            guard = (m.Condition(condition, item.negated),)
        change = item.change
        if isinstance(change, n.AutomaticChange):
            return m.RollChange(guard, "automatic", None, 0, None, change.success, change.span)
        if kind != "check":
            self.reporter.report("E203", "dice and targets change on a roll against a target", change.span)
            return None
        if isinstance(change, n.PoolChange):
            if not check_dice(change.pool.count, change.pool.sides, change.pool, self.reporter):
                return None
            return m.RollChange(guard, "pool", change.pool, 0, None, False, change.span)
        if isinstance(change, n.DiceChange):
            return m.RollChange(guard, "dice", None, change.delta, None, False, change.span)
        assert isinstance(change, n.TargetChange)
        value = substitute(change.delta, bindings)
        self.typer.expect(value, scope, t.Numeric("number"), "the change of target")
        return m.RollChange(guard, "target", None, 0, value, False, change.span)

    # ------------------------------------------------------------------ examples

    def _example(self, decl: n.ExampleDecl, owner: m.Rule | None) -> m.Example | None:
        rules = [r.text for r in decl.rules]
        if owner is not None and not rules:
            rules = [owner.name]
        if not rules:
            self.reporter.report(
                "E101",
                "a worked example outside a rule names the rules it applies",
                decl.title.span,
                'write `example "..." for rule_a, rule_b:`',
            )
            return None
        ok = True
        for ref in decl.rules:
            if ref.text not in self.rule_decls and ref.text not in self.table_shapes:
                self.reporter.report(
                    "E101",
                    f"unknown rule `{ref.text}`",
                    ref.span,
                    did_you_mean(ref.text, [*self.rule_decls, *self.table_shapes]),
                )
                ok = False
        if not ok:
            return None
        givens: list[tuple[str, n.Expr]] = []
        table_inputs = {"roll": t.Numeric("int")} if any(r in self.table_shapes for r in rules) else {}
        for binding in decl.givens:
            name = binding.name.text
            var = self.book.vars.get(name)
            type_ = var.type if var is not None else table_inputs.get(name)
            if type_ is None:
                self.reporter.report(
                    "E101",
                    f"unknown input `{name}`",
                    binding.name.span,
                    did_you_mean(name, [*self.book.vars, *table_inputs]),
                )
                continue
            if self._constant(binding.value, type_, f"`{name}`") is not None:
                givens.append((name, binding.value))
        for expectation in decl.expectations:
            value = getattr(expectation, "value", None)
            if isinstance(expectation, n.ExpectValue):
                var = self.book.vars.get(expectation.name.text)
                if var is not None:
                    self._constant(expectation.value, var.type, f"`{var.name}`")
                elif value is not None:
                    self.typer.infer(value, Scope())
            elif isinstance(expectation, n.ExpectRoll):
                self._constant(expectation.value, t.Numeric("number", Fraction(0), Fraction(1)), "a probability")
            elif value is not None:
                self.typer.infer(value, Scope())
        return m.Example(decl.title.value, tuple(rules), tuple(givens), decl.expectations, decl.span)


# ---------------------------------------------------------------------- helpers

_MOD_KINDS: dict[type, str] = {
    n.AddMod: "add",
    n.MulMod: "mul",
    n.DivMod: "div",
    n.SetMod: "set",
    n.MinMod: "min",
    n.MaxMod: "max",
    n.GradeMod: "grade",
    n.DiceMod: "dice",
    n.StepMod: "step",
    n.ShiftMod: "shift",
}

MAX_EXPONENT = 1000
"""The largest exponent worked out when compiling (`10 ^ 10 ^ 10` would never finish)."""

MAX_POOL = 100
"""The most dice a roll's pool may reach through its changes (the checker bounds pools too)."""

_COUNTED = {"dice": "dice", "step": "die steps", "shift": "levels"}

_MOD_WORDS = {
    "add": "adding or subtracting",
    "mul": "multiplying",
    "div": "dividing",
    "set": "setting",
    "min": "a minimum",
    "max": "a maximum",
    "grade": "a difficulty grade",
    "dice": "adding or removing dice",
    "step": "stepping the die size",
    "shift": "shifting by levels",
}


def _allowed(type_: t.Type, kind: str) -> bool:
    if isinstance(type_, t.Numeric):
        return kind in ("add", "mul", "div", "set", "min", "max", "grade")
    if isinstance(type_, t.Dice):
        return kind in ("add", "mul", "div", "set", "dice", "step")
    if isinstance(type_, t.Enum):
        return kind in ("set", "shift", "min", "max") if type_.ordered else kind == "set"
    return kind == "set"


def _allowed_hint(type_: t.Type) -> str:
    if isinstance(type_, t.Numeric):
        return "numbers take +N, -N, * N, / N, = N, min N, max N and `is GRADE`"
    if isinstance(type_, t.Dice):
        return "dice take +N, -N, +N dice, -N dice, +N steps, * N, / N and = NdS"
    if isinstance(type_, t.Enum) and type_.ordered:
        return "levels take = LEVEL, +N levels, -N levels, min LEVEL and max LEVEL"
    return "this stat can only be set: `= VALUE`"


def _loose(type_: t.Type) -> t.Type:
    """The type a modifier's value must have: the stat's kind, without its range."""
    if isinstance(type_, t.Numeric):
        return t.Numeric("int" if type_.kind == "percent" else type_.kind, unit=type_.unit)
    return type_


def _literal(expr: n.Expr) -> Fraction:
    assert isinstance(expr, n.Number)
    return expr.value


def _implicit_default(type_: t.Type) -> m.Constant | None:
    if isinstance(type_, t.Numeric):
        low = type_.low if type_.low is not None else Fraction(0)
        if type_.high is not None and low > type_.high:
            low = type_.high
        return int(low) if type_.integral else low
    if isinstance(type_, t.Flag):
        return False
    if isinstance(type_, t.Enum):
        return type_.members[0]
    if isinstance(type_, t.Text):
        return ""
    return None


def constant_value(expr: n.Expr, book: m.Book) -> m.Constant | None:
    """The value of an expression made only of literals, or None."""
    if isinstance(expr, n.Number):
        return int(expr.value) if expr.value.denominator == 1 else expr.value
    if isinstance(expr, n.Boolean):
        return expr.value
    if isinstance(expr, n.TextLiteral):
        return expr.value
    if isinstance(expr, n.DiceLiteral):
        return m.DiceConst(((expr.count, expr.sides),))
    if isinstance(expr, n.NameRef):
        ref = book.refs.get(id(expr))
        return expr.name if ref is not None and ref.kind == "member" else None
    if isinstance(expr, n.Negate):
        inner = constant_value(expr.operand, book)
        return -inner if isinstance(inner, (int, Fraction)) and not isinstance(inner, bool) else None
    if isinstance(expr, n.Binary):
        left = constant_value(expr.left, book)
        right = constant_value(expr.right, book)
        if isinstance(left, m.DiceConst) or isinstance(right, m.DiceConst):
            return _dice_sum(left, right, expr.op)
        if not _is_number(left) or not _is_number(right):
            return None
        a, b = Fraction(left), Fraction(right)  # type: ignore[arg-type]
        if expr.op == "+":
            value = a + b
        elif expr.op == "-":
            value = a - b
        elif expr.op == "*":
            value = a * b
        elif expr.op == "/":
            if b == 0:
                return None
            value = a / b
        else:
            if b.denominator != 1 or abs(b) > MAX_EXPONENT:
                return None
            value = a ** int(b)
        return int(value) if value.denominator == 1 else value
    if isinstance(expr, n.Rounded):
        inner = constant_value(expr.operand, book)
        return t.round_value(Fraction(inner), expr.mode) if _is_number(inner) else None  # type: ignore[arg-type]
    return None


def _is_number(value: object) -> bool:
    return isinstance(value, (int, Fraction)) and not isinstance(value, bool)


def _dice_sum(left: object, right: object, op: str) -> m.DiceConst | None:
    if op != "+" and not (op == "-" and _is_number(right)):
        return None
    terms: list[tuple[int, int]] = []
    bonus = 0
    for side, sign in ((left, 1), (right, 1 if op == "+" else -1)):
        if isinstance(side, m.DiceConst):
            terms.extend(side.terms)
            bonus += side.bonus
        elif isinstance(side, int) and not isinstance(side, bool):
            bonus += sign * side
        else:
            return None
    return m.DiceConst(tuple(terms), bonus)


def substitute(expr: n.Expr, bindings: dict[str, n.Expr]) -> n.Expr:
    """`expr` with the names bound by `as RULE with name = value` replaced by their values."""
    if not bindings:
        return expr
    if isinstance(expr, n.NameRef) and expr.name in bindings:
        return bindings[expr.name]
    changes: dict[str, object] = {}
    for f in dataclasses.fields(expr):
        value = getattr(expr, f.name)
        if isinstance(value, n.Expr):
            new = substitute(value, bindings)
            if new is not value:
                changes[f.name] = new
        elif isinstance(value, tuple) and value and isinstance(value[0], n.Expr):
            items = tuple(substitute(v, bindings) for v in value)
            if any(a is not b for a, b in zip(items, value, strict=True)):
                changes[f.name] = items
    return dataclasses.replace(expr, **changes) if changes else expr  # type: ignore[arg-type]


def _names_in(node: object) -> frozenset[str]:
    """Every name a statement or expression reads, nested statements included."""
    names: set[str] = set()
    stack: list[object] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, (n.NameRef, n.BaseRef)):
            names.add(item.name)
        if isinstance(item, n.Node):
            stack.extend(getattr(item, f.name) for f in dataclasses.fields(item))
        elif isinstance(item, (tuple, list)):
            stack.extend(item)
    return frozenset(names)


def _effect_key(origin: str, place: str, bindings: dict[str, n.Expr]) -> str:
    where = f"{origin}#{place}"
    if not bindings:
        return where
    bound = ",".join(f"{k}={expr_text(v)}" for k, v in sorted(bindings.items()))
    return f"{where}[{bound}]"


def _close_thresholds(rows: list[m.TableRow]) -> list[m.TableRow]:
    """`N+` rows followed by a higher row cover up to just below it (a threshold table)."""
    closed = []
    for index, row in enumerate(rows):
        following = rows[index + 1] if index + 1 < len(rows) else None
        if (
            row.threshold
            and row.low is not None
            and following is not None
            and following.low is not None
            and following.low > row.low
        ):
            row = dataclasses.replace(row, high=following.low - 1)
        closed.append(row)
    return closed


def _derived_names(body: Iterable[n.Statement]) -> set[str]:
    names: set[str] = set()
    for statement in body:
        if isinstance(statement, n.DeriveStmt):
            names.add(statement.name.text)
        elif isinstance(statement, n.WhenBlock):
            names |= _derived_names(statement.body) | _derived_names(statement.orelse)
    return names


def _reads(effects: list[m.Effect], book: m.Book) -> tuple[str, ...]:
    """Every input and stat the rule's effects read or change, in declaration order."""
    names: set[str] = set()
    for effect in effects:
        for expr in effect_exprs(effect):
            names |= names_read(expr, book)
        if isinstance(effect, m.ModEffect):
            names.add(effect.target)
    # A value that starts from others (`stat stamina = CON * 5`) reads them too: the rule needs
    # them to resolve, and its typed function takes them.
    pending = list(names)
    while pending:
        var = book.vars.get(pending.pop())
        if var is not None and var.default_expr is not None:
            for more in names_read(var.default_expr, book) - names:
                names.add(more)
                pending.append(more)
    return tuple(v for v in book.vars if v in names)


def _stats_read(expr: n.Expr, book: m.Book) -> set[str]:
    return {r.name for node in walk(expr) if (r := book.refs.get(id(node))) is not None and r.kind == "stat"}


def effect_exprs(effect: m.Effect) -> Iterator[n.Expr]:
    """Every expression of an effect: its guard, its values, its roll's targets and changes."""
    for condition in effect.guard:
        yield condition.expr
    if isinstance(effect, m.ModEffect):
        yield from (x for x in (effect.value, effect.per) if x is not None)
    elif isinstance(effect, m.DeriveEffect):
        yield effect.value
    elif isinstance(effect, m.RollEffect):
        yield from (
            x
            for x in (effect.target, effect.active, effect.passive, effect.bonus, effect.against_bonus)
            if x is not None
        )
        for change in effect.changes:
            for condition in change.guard:
                yield condition.expr
            if change.value is not None:
                yield change.value


def names_read(expr: n.Expr, book: m.Book) -> set[str]:
    """The inputs and stats an expression reads, following table lookups into their keys."""
    found: set[str] = set()
    for node in walk(expr):
        ref = book.refs.get(id(node))
        if ref is None:
            continue
        if ref.kind in ("input", "stat", "base"):
            found.add(ref.name)
        elif ref.kind == "table":
            table = book.tables.get(ref.name)
            if table is not None:
                found.update(table.inputs)
                if table.modifier:
                    found.add(table.modifier)
                for row in table.rows:
                    for cell in row.cells:
                        if cell.value is not None:
                            found |= names_read(cell.value, book)
    return found


def walk(expr: n.Expr) -> Iterator[n.Expr]:
    """Every node of an expression, parents before children (an explicit stack, so a long sum
    costs time in proportion to its length, not to the square of its depth)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        children: list[n.Expr] = []
        for f in dataclasses.fields(node):
            value = getattr(node, f.name)
            if isinstance(value, n.Expr):
                children.append(value)
            elif isinstance(value, tuple):
                children.extend(item for item in value if isinstance(item, n.Expr))
        stack.extend(reversed(children))


def _hull(types: list[t.Type]) -> t.Type:
    """The type of a table column: the common type of its cells (numbers join their ranges)."""
    if not types:
        return t.TEXT
    cells = [x.number if isinstance(x, t.Cell) else x for x in types]
    if all(isinstance(x, t.Numeric) for x in cells):
        numerics = [x for x in cells if isinstance(x, t.Numeric)]
        lows = [x.low for x in numerics]
        highs = [x.high for x in numerics]
        low = None if None in lows else min(x for x in lows if x is not None)
        high = None if None in highs else max(x for x in highs if x is not None)
        kind = "number" if any(x.kind == "number" for x in numerics) else "int"
        joined = t.Numeric(kind, low, high, numerics[0].unit)
        return t.Cell(joined) if any(isinstance(x, t.Cell) for x in types) else joined
    first = types[0]
    if all(type(x) is type(first) for x in types):
        return first
    return t.TEXT


def _of(items: Iterable[object], kind: type[_T]) -> Iterator[_T]:
    return (i for i in items if isinstance(i, kind))


def _other_name(word: str) -> str:
    upper = word.upper()
    if upper not in reserved_words() and upper != word:
        return f"choose another name, e.g. `{upper}` or `{word}_value`"
    return f"choose another name, e.g. `{word}_value`"


def _article(what: str) -> str:
    return ("an " if what[:1] in "aeiou" else "a ") + what


def _through(first: Span, last: Span) -> Span:
    """The span from the start of `first` to the end of `last`."""
    return Span(first.path, first.line, first.column, last.end_line, last.end_column)


def _signed(value: Fraction) -> str:
    return ("+" if value >= 0 else "-") + _num(abs(value))


def _text(node: n.Text | None) -> str | None:
    return node.value if node is not None else None


def _note_pair(statement: n.NoteStmt | n.ErratumStmt) -> tuple[str, str | None]:
    if isinstance(statement, n.ErratumStmt):
        return (statement.text.value, statement.quote.value)
    return (statement.text.value, None)


def _num(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else str(value)


def _guess_high(low: Fraction, high: Fraction) -> Fraction:
    """For `501..99`, the likely intent 501..999: the upper bound's digits, padded to the lower's magnitude."""
    digits = str(int(high))
    width = len(str(int(low)))
    if len(digits) < width:
        return Fraction(int(digits + digits[-1] * (width - len(digits))))
    return low
