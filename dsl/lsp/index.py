"""Where each name of a rulebook is declared and used: the map behind hover, go to definition,
find references, completion and the outline.

The analyzer records what the names in expressions stand for (`Book.refs`, by node); every other
name (a modifier's target, a group, a table in a lookup, a rule in `as`, a roll in an example)
sits in a known place of the syntax tree, whose node says what it names.  One walk over the tree
turns both into `Occurrence`s, each pointing at the `Symbol` it declares or refers to.  The walk
needs only the tree: when the analyzer could not run (or skipped a broken declaration), names are
looked up among the declarations by namespace instead, so a rulebook with errors still navigates.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.diagnostics import Span

VARIABLES = ("stat", "input")


@dataclass(eq=False)
class Symbol:
    """Something a rulebook declares, with the span of its name where it is declared."""

    kind: str
    """stat, input, unit, type, group, grade, tiers, tier, rule, terrain, condition, trait,
    table, column, member, derive, roll"""
    name: str
    span: Span
    node: n.Node
    """The declaration (for a member, a tier or a column: the declaration it belongs to)."""
    container: str | None = None
    """The rule of a derive or roll, the table of a column, the tiers of a tier, the input or
    type of a member."""
    members: tuple[str, ...] = ()
    """For a member: every member of its enumeration, which tells same-named members apart."""

    @property
    def is_rule(self) -> bool:
        return self.kind in ("rule", "terrain", "condition", "trait")


@dataclass(frozen=True)
class Occurrence:
    span: Span
    symbol: Symbol
    declaration: bool = False


@dataclass
class Index:
    symbols: list[Symbol] = field(default_factory=list)
    occurrences: list[Occurrence] = field(default_factory=list)
    _starts: list[tuple[int, int]] = field(default_factory=list)

    def finish(self) -> None:
        self.occurrences.sort(key=lambda o: (o.span.line, o.span.column))
        self._starts = [(o.span.line, o.span.column) for o in self.occurrences]

    def at(self, line: int, column: int) -> Occurrence | None:
        """The name at 1-based `line`:`column`; a cursor just after a name is on it too, as
        editors place the cursor after the word typed."""
        end = bisect.bisect_right(self._starts, (line, column))
        best = None
        for occurrence in reversed(self.occurrences[max(0, end - 8) : end]):
            span = occurrence.span
            if span.line == line and span.column <= column < span.end_column:
                return occurrence
            if span.line == line and column == span.end_column and best is None:
                best = occurrence
        return best

    def references(self, symbol: Symbol, *, declaration: bool = True) -> list[Occurrence]:
        return [o for o in self.occurrences if o.symbol is symbol and (declaration or not o.declaration)]

    def declared(self, kind: str | tuple[str, ...], name: str) -> list[Symbol]:
        kinds = (kind,) if isinstance(kind, str) else kind
        return [s for s in self.symbols if s.kind in kinds and s.name == name]


_RULE_KINDS = ("rule", "terrain", "condition", "trait")
_RULES_AND_TABLES = (*_RULE_KINDS, "table")


def build_index(tree: n.Rulebook | None, book: m.Book | None) -> Index:
    """The index of a parsed rulebook (empty when it did not parse)."""
    index = Index()
    if tree is not None:
        _Walker(index, book).run(tree)
    index.finish()
    return index


def _roll_systems(roll: n.RollDecl) -> tuple[str, ...]:
    """The tier systems a roll names: its own (`tiers move`), then those chosen under a condition
    (`when advanced: tiers advanced_move`)."""
    own = [item.name.text for item in roll.items if isinstance(item, n.TiersRef)]
    chosen = [
        item.change.name.text
        for item in roll.items
        if isinstance(item, n.GuardedChange) and isinstance(item.change, n.TiersChange)
    ]
    return tuple(dict.fromkeys(own + chosen))


def name_span(node: n.BaseRef) -> Span:
    """`base DEX` spans both words; the name is its last."""
    span = node.span
    return Span(span.path, span.end_line, span.end_column - len(node.name), span.end_line, span.end_column)


@dataclass
class _Context:
    rule: str | None = None
    table: n.TableDecl | None = None
    roll_tiers: tuple[str, ...] = ()  # the tier systems the roll may be read with, its own first
    example_rules: tuple[str, ...] = ()


class _Walker:
    def __init__(self, index: Index, book: m.Book | None) -> None:
        self.index = index
        self.book = book
        self.by_kind: dict[tuple[str, str], list[Symbol]] = {}
        self.var_types: dict[str, n.TypeExpr] = {}
        self.type_decls: dict[str, n.TypeExpr] = {}
        self.tables: dict[str, n.TableDecl] = {}
        self.handled: set[int] = set()
        """Names in expressions already resolved from where they stand (`water == knee`)."""

    # ------------------------------------------------------------------ declarations

    def declare(
        self,
        kind: str,
        name: n.Name,
        node: n.Node,
        container: str | None = None,
        members: tuple[str, ...] = (),
    ) -> Symbol:
        symbol = Symbol(kind, name.text, name.span, node, container, members)
        self.index.symbols.append(symbol)
        self.by_kind.setdefault((kind, name.text), []).append(symbol)
        self.index.occurrences.append(Occurrence(name.span, symbol, declaration=True))
        return symbol

    def run(self, tree: n.Rulebook) -> None:
        for decl in tree.declarations:
            self.declarations(decl)
        for decl in tree.declarations:
            self.visit(decl, _Context())

    def declarations(self, decl: n.Declaration) -> None:
        if isinstance(decl, n.UnitDecl):
            self.declare("unit", decl.name, decl)
        elif isinstance(decl, n.TypeDecl):
            self.declare("type", decl.name, decl)
            self.type_decls[decl.name.text] = decl.type
            self.members(decl.type, decl, decl.name.text)
        elif isinstance(decl, (n.InputDecl, n.StatDecl)):
            self.declare("stat" if isinstance(decl, n.StatDecl) else "input", decl.name, decl)
            self.var_types[decl.name.text] = decl.type
            self.members(decl.type, decl, decl.name.text)
        elif isinstance(decl, n.GroupDecl):
            self.declare("group", decl.name, decl)
        elif isinstance(decl, n.GradesDecl):
            for grade in decl.grades:
                self.declare("grade", grade.name, decl)
        elif isinstance(decl, n.TiersDecl):
            self.declare("tiers", decl.name, decl)
            for tier in decl.tiers:
                self.declare("tier", tier.name, decl, decl.name.text)
        elif isinstance(decl, n.RuleDecl):
            self.declare(decl.kind, decl.name, decl)
            for statement in _statements(decl.body):
                if isinstance(statement, n.DeriveStmt):
                    self.declare("derive", statement.name, statement, decl.name.text)
                elif isinstance(statement, n.RollDecl):
                    self.declare("roll", statement.name, statement, decl.name.text)
        elif isinstance(decl, n.TableDecl):
            self.declare("table", decl.name, decl)
            self.tables.setdefault(decl.name.text, decl)
            if _two_way(decl) is None:
                for item in decl.items:
                    if isinstance(item, n.Columns):
                        for column in item.columns:
                            self.declare("column", column.name, decl, decl.name.text)

    def members(self, type_: n.TypeExpr, decl: n.Node, owner: str) -> None:
        if isinstance(type_, (n.EnumType, n.LevelsType)):
            names = tuple(x.text for x in type_.members)
            for member in type_.members:
                self.declare("member", member, decl, owner, names)

    # ------------------------------------------------------------------ lookups

    def find(self, kinds: tuple[str, ...], name: str, prefer: str | None = None) -> Symbol | None:
        found = [s for kind in kinds for s in self.by_kind.get((kind, name), ())]
        if not found:
            return None
        if prefer is not None:
            for symbol in found:
                if symbol.container == prefer:
                    return symbol
        return found[0]

    def refer(self, span: Span, symbol: Symbol | None) -> None:
        if symbol is not None:
            self.index.occurrences.append(Occurrence(span, symbol))

    def refer_name(self, name: n.Name, kinds: tuple[str, ...], prefer: str | None = None) -> None:
        self.refer(name.span, self.find(kinds, name.text, prefer))

    def enum_owner(self, var: str) -> str | None:
        """The input or type whose `one of` / `levels` lists the members of input `var`."""
        type_ = self.var_types.get(var)
        while isinstance(type_, n.NamedType):
            alias = type_.name.text
            type_ = self.type_decls.get(alias)
            if isinstance(type_, (n.EnumType, n.LevelsType)):
                return alias
        return var if isinstance(type_, (n.EnumType, n.LevelsType)) else None

    def member(self, span: Span, name: str, owner: str | None, members: tuple[str, ...] | None = None) -> None:
        found = self.by_kind.get(("member", name), [])
        chosen = next((s for s in found if owner is not None and s.container == owner), None)
        if chosen is None and members is not None:
            chosen = next((s for s in found if s.members == members), None)
        self.refer(span, chosen or (found[0] if found else None))

    def expr_owner(self, expr: n.Expr) -> str | None:
        if isinstance(expr, n.NameRef):
            return self.enum_owner(expr.name)
        return None

    # ------------------------------------------------------------------ the walk

    def visit(self, node: n.Node, ctx: _Context) -> None:
        handler = getattr(self, "_" + type(node).__name__, None)
        if handler is not None:
            ctx = handler(node, ctx) or ctx
        for child in _children(node):
            self.visit(child, ctx)

    def _RuleDecl(self, node: n.RuleDecl, ctx: _Context) -> _Context:
        return dataclasses.replace(ctx, rule=node.name.text, example_rules=(node.name.text,))

    def _TableDecl(self, node: n.TableDecl, ctx: _Context) -> _Context:
        across = _two_way(node)
        if across is not None:
            owner = self.enum_owner(across)
            for item in node.items:
                if isinstance(item, n.Columns):
                    for column in item.columns:
                        self.member(column.name.span, column.name.text, owner)
        return dataclasses.replace(ctx, table=node, example_rules=(node.name.text,))

    def _NameRef(self, node: n.NameRef, ctx: _Context) -> None:
        if id(node) in self.handled:
            return
        ref = self.book.refs.get(node) if self.book is not None else None
        kind = ref.kind if ref is not None else None
        if kind in ("special", "function"):
            return
        if kind in ("input", "stat", "base"):
            self.refer(node.span, self.find(VARIABLES, node.name))
        elif kind == "derive":
            self.refer(node.span, self.find(("derive",), node.name, ctx.rule))
        elif kind == "member":
            found = self.book.types.get(node) if self.book is not None else None
            members = found.members if isinstance(found, t.Enum) else None
            self.member(node.span, node.name, None, members)
        else:
            symbol = self.find(VARIABLES, node.name) or self.find(("derive",), node.name, ctx.rule)
            if symbol is not None:
                self.refer(node.span, symbol)
            else:
                self.member(node.span, node.name, None)

    def _BaseRef(self, node: n.BaseRef, ctx: _Context) -> None:
        self.refer(name_span(node), self.find(VARIABLES, node.name))

    def _Member(self, node: n.Member, ctx: _Context) -> None:
        owner = self.expr_owner(node.operand)
        for name in node.members:
            self.member(name.span, name.text, owner)

    def _Compare(self, node: n.Compare, ctx: _Context) -> None:
        """`water == knee`: the member is that of the input compared, whatever the analyzer did."""
        for side, other in ((node.left, node.right), (node.right, node.left)):
            owner = self.expr_owner(other)
            if isinstance(side, n.NameRef) and owner is not None and side.name not in self.var_types:
                self.member(side.span, side.name, owner)
                self.handled.add(id(side))

    def _Number(self, node: n.Number, ctx: _Context) -> None:
        if node.unit is not None:  # `10 ft`
            self.refer_name(node.unit, ("unit",))

    def _IntType(self, node: n.IntType | n.NumberType, ctx: _Context) -> None:
        if node.unit is not None:
            self.refer_name(node.unit, ("unit",))

    _NumberType = _IntType

    def _NamedType(self, node: n.NamedType, ctx: _Context) -> None:
        self.refer_name(node.name, ("type",))

    def _Modifier(self, node: n.Modifier, ctx: _Context) -> None:
        self.refer(
            node.target.span,
            self.find(VARIABLES, node.target.text) or self.find(("derive",), node.target.text, ctx.rule),
        )
        if node.group is not None:
            self.refer_name(node.group, ("group",))

    def _OrderDecl(self, node: n.OrderDecl, ctx: _Context) -> None:
        self.refer_name(node.stat, VARIABLES)
        for item in node.items:  # a kind of modifier (`scaling`) is no name and finds nothing
            if self.find(_RULE_KINDS, item.text, None) is not None:
                self.refer_name(item, _RULE_KINDS)

    def _GradeMod(self, node: n.GradeMod, ctx: _Context) -> None:
        self.refer_name(node.grade, ("grade",))

    def _DeriveStmt(self, node: n.DeriveStmt, ctx: _Context) -> None:
        if node.unit is not None:
            self.refer_name(node.unit, ("unit",))

    def _SequenceBlock(self, node: n.SequenceBlock, ctx: _Context) -> None:
        if node.counter is not None:
            self.refer_name(node.counter, VARIABLES)
        if node.until_roll is not None:
            self.refer(node.until_roll.span, self.find(("roll",), node.until_roll.text, ctx.rule))
        for name in node.totals:
            self.refer(name.span, self.find(("derive",), name.text, ctx.rule))

    def _SequenceCount(self, node: n.SequenceCount, ctx: _Context) -> None:
        self.refer(node.roll.span, self.find(("roll",), node.roll.text, ctx.rule))
        self.refer_name(node.into, VARIABLES)

    def _AsStmt(self, node: n.AsStmt, ctx: _Context) -> None:
        for name in node.rules:
            self.refer_name(name, _RULES_AND_TABLES)

    def _Binding(self, node: n.Binding, ctx: _Context) -> None:
        self.refer_name(node.name, VARIABLES)

    def _RollDecl(self, node: n.RollDecl, ctx: _Context) -> _Context:
        return dataclasses.replace(ctx, roll_tiers=_roll_systems(node))

    def _TiersRef(self, node: n.TiersRef, ctx: _Context) -> None:
        self.refer_name(node.name, ("tiers",))

    def _TiersChange(self, node: n.TiersChange, ctx: _Context) -> None:
        self.refer_name(node.name, ("tiers",))

    def _OutcomeItem(self, node: n.OutcomeItem, ctx: _Context) -> None:
        self.refer_tier(node.outcome, ctx.roll_tiers)

    def refer_tier(self, name: n.Name, systems: tuple[str, ...]) -> None:
        """An outcome a roll names: the tier of the first of its systems that has it."""
        found = self.by_kind.get(("tier", name.text), [])
        chosen = next((s for system in systems for s in found if s.container == system), None)
        self.refer(name.span, chosen or (found[0] if found else None))

    def _RollOn(self, node: n.RollOn, ctx: _Context) -> None:
        self.refer_name(node.table, ("table",))

    def _RollKey(self, node: n.RollKey, ctx: _Context) -> None:
        if node.modifier is not None:
            self.refer_name(node.modifier, VARIABLES)

    def _InputKey(self, node: n.InputKey, ctx: _Context) -> None:
        for name in node.inputs:
            self.refer_name(name, VARIABLES)

    def _KeyName(self, node: n.KeyName, ctx: _Context) -> None:
        table = ctx.table
        owner = None
        if table is not None and isinstance(table.key, n.InputKey) and table.key.inputs:
            owner = self.enum_owner(table.key.inputs[0].text)
        self.member(node.name.span, node.name.text, owner)

    def _Lookup(self, node: n.Lookup, ctx: _Context) -> None:
        self.refer_name(node.table, ("table",))
        if node.column is not None:
            self.refer_name(node.column, ("column",), node.table.text)

    def _ExampleDecl(self, node: n.ExampleDecl, ctx: _Context) -> _Context:
        for name in node.rules:
            self.refer_name(name, _RULES_AND_TABLES)
        rules = tuple(name.text for name in node.rules) or ctx.example_rules
        return dataclasses.replace(ctx, example_rules=rules)

    def _ExpectValue(self, node: n.ExpectValue, ctx: _Context) -> None:
        prefer = ctx.example_rules[0] if ctx.example_rules else None
        self.refer(
            node.name.span, self.find(VARIABLES, node.name.text) or self.find(("derive",), node.name.text, prefer)
        )

    def _ExpectColumn(self, node: n.ExpectColumn, ctx: _Context) -> None:
        self.refer_name(node.table, ("table",))
        table = self.tables.get(node.table.text)
        across = _two_way(table) if table is not None else None
        if across is not None:  # the columns of a two-way table are the choices of its second key
            self.member(node.column.span, node.column.text, self.enum_owner(across))
        else:
            self.refer_name(node.column, ("column",), node.table.text)

    def _ExpectRoll(self, node: n.ExpectRoll | n.ExpectNoRoll, ctx: _Context) -> None:
        prefer = ctx.example_rules[0] if ctx.example_rules else None
        roll = self.find(("roll",), node.roll.text, prefer)
        self.refer(node.roll.span, roll)
        tier = getattr(node, "tier", None)
        if isinstance(tier, n.Name):
            systems = _roll_systems(roll.node) if roll is not None and isinstance(roll.node, n.RollDecl) else ()
            self.refer_tier(tier, systems)

    _ExpectNoRoll = _ExpectRoll

    def _ExpectSuppressed(self, node: n.ExpectSuppressed, ctx: _Context) -> None:
        self.refer_name(node.rule, _RULES_AND_TABLES)

    def _BalanceDecl(self, node: n.BalanceDecl, ctx: _Context) -> _Context:
        for name in node.rules:
            self.refer_name(name, _RULES_AND_TABLES)
        return dataclasses.replace(ctx, example_rules=tuple(name.text for name in node.rules))

    def _OverAxis(self, node: n.OverAxis, ctx: _Context) -> None:
        self.refer(node.name.span, self.find(VARIABLES, node.name.text))
        if isinstance(node, n.OverMembers):
            owner = self.enum_owner(node.name.text)
            for member in node.members:
                self.member(member.span, member.text, owner)

    _OverRange = _OverMembers = _OverEvery = _OverAxis

    def _Measure(self, node: n.Measure, ctx: _Context) -> None:
        for name in node.variant:
            self.refer_name(name, _RULES_AND_TABLES)
        rules = tuple(name.text for name in node.variant) or ctx.example_rules
        prefer = rules[0] if rules else None
        if isinstance(node, n.ChanceMeasure):
            self.refer(node.name.span, self.find(("roll",), node.name.text, prefer))
            return
        self.refer(node.name.span, self.find(VARIABLES, node.name.text) or self.find(("derive",), node.name.text, prefer))

    _ChanceMeasure = _AverageMeasure = _ValueMeasure = _Measure


def _two_way(table: n.TableDecl) -> str | None:
    """The input across the top of a two-way table (its columns are that input's choices)."""
    if isinstance(table.key, n.InputKey) and len(table.key.inputs) == 2:
        return table.key.inputs[1].text
    return None


def _statements(body: tuple[n.Statement, ...]) -> Iterator[n.Statement]:
    """Every statement of a rule's body, in nested blocks too."""
    for statement in body:
        yield statement
        if isinstance(statement, n.WhenBlock):
            yield from _statements(statement.body)
            yield from _statements(statement.orelse)


_FIELDS: dict[type, tuple[str, ...]] = {}


def _children(node: n.Node) -> Iterator[n.Node]:
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(f.name for f in dataclasses.fields(node) if f.name != "span")
    for name in names:
        value = getattr(node, name)
        if isinstance(value, n.Node):
            yield value
        elif isinstance(value, tuple):
            yield from (item for item in value if isinstance(item, n.Node))
