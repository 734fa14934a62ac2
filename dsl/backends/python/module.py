"""Checked model -> one Python module per rulebook, importing the runtime (dsl/runtime/).

Layout of a generated module: a header docstring naming its source; the imports, with the check
that the runtime offers the API the module was built for (`require`); the rulebook's inputs; one
private `_rule_NAME(run)` per rule registering what the rule does under which condition; the
tables; the rules of a simple shape written out as straight-line functions `_resolve_NAME`
(dsl/backends/python/rules.py); and the public API: `RULEBOOK`, `INPUTS`, `RULES`, `resolve(names,
**inputs)`, one typed function per rule and table, and the runtime's names an app uses
(`Dice`, `RuleInputError`, ...), the same objects in every module.

Safety by construction: rulebook text is only ever written through `literal()` / `docstring()`
(dsl/writer.py); names are identifiers the grammar and checker validated; a name that would
shadow a keyword, a builtin or a name the module imports gets a trailing underscore.
"""

from __future__ import annotations

import ast
import builtins
import functools
import keyword
import re
from collections.abc import Container
from fractions import Fraction
from pathlib import Path

from dsl import model as m
from dsl import nodes as n
from dsl import printer
from dsl import runtime as _runtime_package
from dsl import types as t
from dsl.backends.python.expressions import ADD, Expressions, Frame, fraction_literal, is_constant, tuple_code, wrap
from dsl.backends.python.rules import RuleWriter
from dsl.backends.roll_reads import RollRead, roll_reads
from dsl.model.exprs import trace_names
from dsl.model.parts import flat_effects
from dsl.printer import text_kind, trace_item
from dsl.runtime import API as RUNTIME_API
from dsl.runtime.dice import Dice
from dsl.semantics import constant_value
from dsl.writer import CodeWriter, literal

PUBLIC_NAMES = ("RULEBOOK", "INPUTS", "RULES", "resolve")

RUNTIME_PACKAGE = "dsl.runtime"
"""What a generated module imports its runtime as; `rulecraft build --standalone` writes the
runtime beside the modules as STANDALONE_RUNTIME and has them import that."""

STANDALONE_RUNTIME = "rulecraft_runtime"

REEXPORTED = (
    "IMPASSABLE",
    "NOT_APPLICABLE",
    "Chain",
    "Chances",
    "Consequence",
    "Dice",
    "InputSpec",
    "Modifier",
    "Note",
    "Resolution",
    "Restriction",
    "Roll",
    "RuleInfo",
    "RuleInputError",
    "RulebookInfo",
    "SequenceResult",
    "Special",
    "TableResult",
    "TraceEntry",
    "Value",
)
"""The runtime's names a module offers its apps (in its `__all__`): the same objects in every
module, so a `Dice` of one book passes into another's rule and one `except RuleInputError`
catches every book's."""

@functools.cache
def runtime_helpers() -> dict[str, str]:
    """Every name the code of a module may call, with the runtime module defining it: the public
    names defined at the top of each (each imported only where a module uses it).  Read from the
    runtime's source when a module is first written (about 0.15 s), not when the compiler is
    imported: checking or resolving never needs it."""
    found: dict[str, str] = {}
    for path in sorted(Path(_runtime_package.__file__).parent.glob("*.py")):
        if path.stem == "__init__":
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [target.id for target in node.targets if isinstance(target, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names = [node.target.id]
            else:
                continue
            found.update((name, path.stem) for name in names if not name.startswith("_"))
    return found


STANDARD: dict[str, tuple[str, ...]] = {
    "collections.abc": ("Mapping", "Sequence"),
    "fractions": ("Fraction",),
    "random": ("Random",),
    "types": ("MappingProxyType",),
    "typing": ("Any", "Final", "Literal", "TypedDict"),
}
"""The standard library's names generated code uses."""

PoolKey = tuple[int, int, str | None]
Spec = tuple[str, str, list[tuple[str, str]]]
"""A module-level constant: its name, its runtime class, and its keyword arguments."""
Call = tuple[str, list[str]]
"""A statement of a rule function: what it calls, with which arguments."""


def imported_names() -> set[str]:
    """Every name a generated module may import (kept from rules, tables and inputs)."""
    found = {"_runtime", *REEXPORTED, *runtime_helpers()}
    for names in STANDARD.values():
        found.update(names)
    return found


def python_name(name: str, taken: Container[str]) -> str:
    """The Python name for a rule, table or input: itself unless that would shadow something."""
    candidate = name
    while (
        keyword.iskeyword(candidate)
        or keyword.issoftkeyword(candidate)
        or candidate in taken
        or hasattr(builtins, candidate)
    ):
        candidate += "_"
    return candidate


class PrivateNames:
    """The module-level names the emitter makes up (`_rule_NAME`, `_rule_NAME__part2`,
    `_NAME__mod1`, `_table_NAME`), each unique by construction.

    They are built from rulebook names, which may hold `__` themselves: rules `rule_x` and
    `x__mod1` would both give `_rule_x__mod1`.  So every made-up name is handed out here, once per
    thing it names, and a name already given (or one of the runtime's) gets a trailing `_` until
    it is free.  Names that collide nowhere, all of them in practice, read as before.
    """

    def __init__(self, taken: set[str]) -> None:
        self.taken = set(taken)
        self.given: dict[tuple[str, ...], str] = {}

    def part(self, key: str, rule: str, number: int) -> str:
        """The function of a rule (`key` is its name) or of a rule composed with bindings."""
        return self._name(("part", key), f"_rule_{rule}" if key == rule else f"_rule_{rule}__part{number}")

    def table(self, name: str) -> str:
        return self._name(("table", name), f"_table_{name}")

    def function(self, part: str) -> str:
        """The function of a part named already."""
        return self.given[("part", part)]

    def effect(self, part: str, kind: str, number: int) -> str:
        """The constant of a part's effect, named after the part's function."""
        prefix = self.function(part).removeprefix("_rule")
        return self._name(("effect", part, kind, str(number)), f"{prefix}__{kind}{number}")

    def trace(self, effect: str) -> str:
        """The constant of the trace spec of an effect's step."""
        return self._name(("trace", effect), f"{effect}_trace")

    def written(self, rule: str, what: str, number: int) -> str:
        """A name of a rule written out (dsl/backends/python/rules.py): its function `_resolve_RULE` (`what`
        "resolve"), or one of its constants `_RULE__WHATn`."""
        wanted = f"_resolve_{rule}" if what == "resolve" else f"_{rule}__{what}{number}"
        return self._name(("written", rule, what, str(number)), wanted)

    def roll_step(self, effect: str) -> str:
        """The constant of a roll's `RollStep`."""
        return self._name(("roll step", effect), f"{effect}_step")

    def change(self, effect: str, number: int) -> str:
        return self._name(("change", effect, str(number)), f"{effect}_change{number}")

    def _name(self, key: tuple[str, ...], wanted: str) -> str:
        found = self.given.get(key)
        if found is None:
            found = wanted
            while found in self.taken:
                found += "_"
            self.taken.add(found)
            self.given[key] = found
        return found


class ModuleWriter:
    """Writes the Python module of one book (see the module docstring for its layout)."""

    def __init__(self, book: m.Book, source_name: str, version: str, runtime: str = RUNTIME_PACKAGE) -> None:
        self.book = book
        self.source_name = source_name
        self.version = version
        self.w = CodeWriter()
        self.runtime = runtime
        self.reserved = imported_names() | set(PUBLIC_NAMES)
        self.public: dict[str, str] = {}
        taken = set(self.reserved)
        for name in [*book.rules, *book.tables]:
            self.public[name] = python_name(name, taken)
            taken.add(self.public[name])
        self.aliases = _choice_aliases(book, taken)
        """The `Literal` alias of each input that is a choice, by input (`Weapon` for `weapon`)."""
        taken.update(self.aliases.values())
        self.forms: dict[str, str] = {}
        """The TypedDict of the inputs of each rule and table (`BrokenGroundInputs`)."""
        for name in [*book.rules, *book.tables]:
            self.forms[name] = python_name(_camel(name) + "Inputs", taken)
            taken.add(self.forms[name])
        self.private = PrivateNames(self.reserved | {"_BOOK", "_resistance"})
        for index, key in enumerate(book.parts, start=1):
            self.private.part(key, book.parts[key].rule, index)
        self.lazy_tables: dict[str, bool] = {}
        self.exprs = Expressions(book)
        """Writes every expression of the module's code (dsl/backends/python/expressions.py)."""
        self.rules = RuleWriter(self)
        """Writes each rule's code (`_book` has it write them)."""
        self.roll_steps: dict[str, str] = {}
        """The constant of each roll's `RollStep`, by the constant of its spec."""
        self.consts: dict[str, list[str | None]] = {}
        """Each part's effects by the name of their spec constant (None for an `as`)."""
        # the parameter that asks for a sequence over rounds; `rounds_` in a book with an input `rounds`
        self.rounds = "rounds"
        while self.rounds in book.vars:
            self.rounds += "_"
        # the parameters that roll (a seed or a Random) and tell results rolled elsewhere
        self.rng = "rng"
        while self.rng in book.vars:
            self.rng += "_"
        self.rolled = "rolled"
        while self.rolled in book.vars:
            self.rolled += "_"

    # ------------------------------------------------------------------ module

    def emit(self) -> str:
        book = self.book
        w = self.w
        w.line("# " + "-" * 76)
        w.line(f"# rulebook {book.name}")
        w.line("# " + "-" * 76)
        w.blank()
        self._rulebook_info()
        self._choices()
        self._inputs()
        for part in book.parts.values():
            self._part(part)
        self._tables()
        self._book()
        self._api()
        body = w.source()
        head = CodeWriter()
        head.docstring(self._module_docstring())
        head.blank()
        self._imports(head, body)
        head.blank()
        return head.source() + "\n" + body

    def _imports(self, w: CodeWriter, body: str) -> None:
        """The imports of the names the body uses (and of those the module re-exports), the
        runtime's after the check that it offers the module's API."""
        used = _names_used(body)
        w.line("from __future__ import annotations")
        w.blank()
        for module, names in STANDARD.items():
            wanted = [name for name in names if name in used]
            if wanted:
                w.line(f"from {module} import {', '.join(wanted)}")
        w.blank()
        w.line(f"import {self.runtime} as _runtime")
        w.blank()
        w.line(f"_runtime.require({RUNTIME_API}, {literal(book_module(self.book))}, {literal(self.version)})")
        w.blank()
        _import(w, self.runtime, list(REEXPORTED))
        helpers: dict[str, list[str]] = {}
        for name in sorted(used - set(REEXPORTED)):
            if name in runtime_helpers():
                helpers.setdefault(runtime_helpers()[name], []).append(name)
        for module in sorted(helpers):
            _import(w, f"{self.runtime}.{module}", helpers[module])

    def _module_docstring(self) -> str:
        book = self.book
        example = "resolve(...)"
        rule = next(iter(book.rules.values()), None)
        if rule is not None:
            shown = [
                f"{name}={_constant_literal(book.vars[name].default, annotation=True)}"
                for name in rule.reads[:2]
                if book.vars[name].default is not None and name.isidentifier() and not keyword.iskeyword(name)
            ]
            example = f"resolve({rule.name!r}{''.join(', ' + s for s in shown)})"
        lines = [
            f"Resolvers for the rulebook {book.name}: generated by rulecraft {self.version}; do not edit.",
            "",
            f"Compiled from {self.source_name}: change the rulebook and rebuild instead of editing.",
            f"Rulebook: {book.title}",
        ]
        if book.source:
            lines.append(f"Source: {book.source}")
        lines += [
            "",
            "Use it:",
            "",
            f"    resolution = {example}",
            "    resolution.stats, resolution.rolls, resolution.to_dict()",
            "",
            "RuleInputError reports a bad rule name or input.  The module imports the rulecraft runtime",
            "(`pip install rulecraft`, or `rulecraft build --standalone` to write it beside the module).",
        ]
        return "\n".join(lines)

    def _rulebook_info(self) -> None:
        book = self.book
        w = self.w
        w.line("RULEBOOK: Final = RulebookInfo(")
        w.indent()
        w.line(f"name={literal(book.name)},")
        w.line(f"title={literal(book.title)},")
        w.line(f"source={literal(book.source)},")
        w.line(f"version={literal(book.version)},")
        if book.notes:
            w.line("notes=(")
            w.indent()
            for text, quote in book.notes:
                w.call(
                    "Note", [literal(book.name), "None", literal(text), literal(quote), literal(m.note_kind(quote))], ","
                )
            w.dedent()
            w.line("),")
        w.dedent()
        w.line(")")
        w.line('"""The rulebook these resolvers were compiled from, with its general notes."""')
        w.blank()

    def _choices(self) -> None:
        """A `Literal` alias per input that is a choice: an app holds a terrain as `Terrain`, not
        as `str`, and passes it to a rule under `mypy --strict`."""
        w = self.w
        written: set[str] = set()
        for var_name, alias in self.aliases.items():
            if alias in written:
                continue
            written.add(alias)
            type_ = self.book.vars[var_name].type
            assert isinstance(type_, t.Enum)
            users = [name for name, other in self.aliases.items() if other == alias]
            w.line(f"{alias} = Literal[" + ", ".join(literal(x) for x in type_.members) + "]")
            w.docstring("The choices of " + ", ".join(users) + ".")
        if written:
            w.blank()

    def _inputs(self) -> None:
        w = self.w
        w.line("INPUTS: Final[Mapping[str, InputSpec]] = MappingProxyType({")
        w.indent()
        for var in self.book.vars.values():
            w.line(f"{literal(var.name)}: {self._input_spec(var)},")
        w.dedent()
        w.line("})")
        w.line('"""Every input a resolver accepts, with its type, range or choices, and default."""')
        w.blank()

    def _input_spec(self, var: m.Var) -> str:
        type_ = var.type
        kind, low, high, unit, members = _kind_of(type_)
        args = [
            literal(var.name),
            literal(var.label),
            literal(kind),
            fraction_literal(low),
            fraction_literal(high),
            literal(unit),
            tuple_code([literal(x) for x in members]),
            _constant_literal(var.default),
            literal(var.is_stat),
        ]
        if var.default_expr is not None:
            args.append(f"lambda s: {self._spec_code(var.default_expr)}")
            args.append(literal(printer.expr_text(var.default_expr)))
        return f"InputSpec({', '.join(args)})"

    # ------------------------------------------------------------------ rules

    def _part(self, part: m.Part) -> None:
        """A rule (or a rule with the bindings of an `as ... with`): the specs of its effects,
        what every resolution says of them (the code that decides them is each rule's)."""
        w = self.w
        rule = self.book.rules.get(part.rule)
        w.blank()
        w.line(f"# {rule.kind if rule else 'rule'} {part.key}")
        w.blank()
        specs: list[Spec] = []
        counters = {"mod": 0, "roll": 0, "text": 0, "derive": 0}
        consts: list[str | None] = self.consts.setdefault(part.key, [])
        for effect in part.effects:
            if isinstance(effect, m.PartEffect):
                consts.append(None)
                continue
            kind = _effect_kind(effect)
            counters[kind] += 1
            const = self.private.effect(part.key, kind, counters[kind])
            consts.append(const)
            self._effect(effect, const, specs)
        for const, cls, fields in specs:
            w.call(f"{const}: Final = {cls}", [f"{k}={v}" if k else v for k, v in fields])
        if not specs:
            w.line("# it only composes other rules")

    def _effect(self, effect: m.Effect, const: str, specs: list[Spec]) -> None:
        """The spec of an effect and of its trace (module constants); a roll's `RollStep` too."""
        condition = printer.guard_text(effect.guard)
        base = [("key", literal(effect.key)), ("rule", literal(effect.origin)), ("source", literal(effect.cites))]
        if isinstance(effect, m.ModEffect):
            self._modifier(effect, const, base, condition, specs)
        elif isinstance(effect, m.RollEffect):
            values, changes = self._roll(effect, const, base, condition, specs)
            step = self.roll_steps[const] = self.private.roll_step(const)
            specs.append((step, "RollStep", [("", const), ("", values), ("", changes)]))
        elif isinstance(effect, m.DeriveEffect):
            specs.append(
                (const, "DeriveSpec", [*base, ("name", literal(effect.name)), ("condition", literal(condition))])
            )
        else:
            assert isinstance(effect, (m.CannotEffect, m.NoteEffect))
            fields = [
                *base,
                ("kind", literal(text_kind(effect))),
                ("text", literal(effect.text)),
                ("quote", literal(effect.quote if isinstance(effect, m.NoteEffect) else None)),
                ("condition", literal(condition)),
            ]
            specs.append((const, "TextSpec", fields))
        trace = self.private.trace(const)
        fields = [("", code) for _, code in self._trace_fields(effect, trace_item(effect), effect.guard)]
        specs.append((trace, "TraceSpec", fields))  # positional: it is said in the spec above

    def _spec_code(self, expr: n.Expr) -> str:
        """An expression in a small function of a constant (`lambda s: ...`): read through the scope."""
        return self.exprs.expression(expr, Frame())

    def _trace(self, effect: m.Effect, item: str) -> str:
        return self._trace_of(effect, item, effect.guard)

    def _trace_of(self, effect: m.Effect, item: str, guard: tuple[m.Condition, ...]) -> str:
        """What the trace says of an effect (or a change of its roll): the clauses as written and
        the names each reads."""
        return f"TraceSpec({', '.join(code for _, code in self._trace_fields(effect, item, guard))})"

    def _trace_fields(self, effect: m.Effect, item: str, guard: tuple[m.Condition, ...]) -> list[tuple[str, str]]:
        """The fields of a TraceSpec, by name, as code."""
        clauses = [printer.condition_text(c) for c in guard]
        names = [tuple_code([literal(x) for x in trace_names(self.book, c.expr)]) for c in guard]
        return [
            ("rule", literal(effect.origin)),
            ("source", literal(effect.cites)),
            ("item", literal(item)),
            ("clauses", tuple_code([literal(x) for x in clauses])),
            ("names", tuple_code(names)),
        ]

    def _modifier(
        self,
        effect: m.ModEffect,
        const: str,
        base: list[tuple[str, str]],
        condition: str,
        specs: list[Spec],
    ) -> str:
        """The spec of a modifier; returns its amount: a literal, or a function of the scope."""
        group = self.book.groups.get(effect.group) if effect.group else None
        code, constant = self.exprs.amount(effect, Frame())
        amount_code = code if constant else f"lambda s: {code}"
        fields = [
            *base,
            ("target", literal(effect.target)),
            ("op", literal(effect.op)),
            ("text", literal(printer.modifier_text(effect))),
            ("group", literal(effect.group)),
            ("stacking", literal(group.stacking if group else "cumulative")),
            ("rounding", literal(effect.rounding)),
            ("condition", literal(condition)),
            ("label", literal(effect.label)),
        ]
        specs.append((const, "ModSpec", fields))
        return amount_code

    def _roll(
        self,
        effect: m.RollEffect,
        const: str,
        base: list[tuple[str, str]],
        condition: str,
        specs: list[Spec],
    ) -> tuple[str, str]:
        """The spec of a roll; returns its values (a function of the scope) and its changes."""
        outcomes = "{" + ", ".join(f"{literal(o.name)}: {literal(_outcome_text(o))}" for o in effect.outcomes) + "}"
        margin_outcomes = tuple(o.name for o in effect.outcomes if o.by_margin)
        fields = [
            *base,
            ("name", literal(effect.name)),
            ("label", literal(effect.label)),
            ("kind", literal(effect.kind)),
            ("pool", _pool_literal(_pool_key(effect.pool))),
            ("op", literal(effect.op)),
            ("against", _pool_literal(_pool_key(effect.against))),
            ("success", literal(effect.success)),
            ("outcomes", f"MappingProxyType({outcomes})"),  # read-only: every resolution shares it
            ("margin_outcomes", tuple_code([literal(x) for x in margin_outcomes])),
            ("tiers", self._tiers_code(effect.tiers)),
            ("ties", literal(effect.ties)),
            ("notes", tuple_code([literal(_note_line(text, quote)) for text, quote in effect.notes])),
            ("condition", literal(condition)),
        ]
        consequences = self._consequences(effect)
        if consequences:
            fields.append(("consequences", tuple_code(consequences)))
        steps = [f"({literal(o.name)}, {literal(printer.step_text(o.step))})" for o in effect.outcomes if o.step]
        if steps:
            fields.append(("steps", tuple_code(steps)))
        if effect.separate:
            fields.append(("separate", "True"))
        specs.append((const, "RollSpec", fields))
        reads = roll_reads(effect)
        values = "None" if reads is None else f"lambda s: {tuple_code([self._read_code(r) for r in reads])}"
        changes = []
        for index, change in enumerate(effect.changes, start=1):
            name = self.private.change(const, index)
            change_fields = [
                ("kind", literal(change.kind)),
                ("pool", _pool_literal(_pool_key(change.pool))),
                ("delta", str(change.delta)),
                ("success", literal(change.success)),
                ("condition", literal(printer.guard_text(change.guard))),
            ]
            if change.tiers is not None:
                change_fields.append(("tiers", self._tiers_code(change.tiers)))
            specs.append((name, "ChangeSpec", change_fields))
            amount = "None"
            if change.value is not None:
                amount = f"lambda s: {self._spec_code(change.value)}"
            trace = self._trace_of(effect, f"roll {effect.name}: {printer.change_text(change)}", change.guard)
            clauses = tuple_code([f"lambda s: {self.exprs.holds(c, Frame())}" for c in change.guard])
            changes.append(f"({name}, {clauses}, {amount}, {trace})")
        return values, tuple_code(changes)

    def _tiers_code(self, system: str | None) -> str:
        """A tier system as a tuple of TierSpec literals (`()`: none), first match first."""
        if system is None:
            return "()"
        parts = []
        for tier in self.book.tiers[system].tiers:
            bound = "None" if tier.bound is None else f"lambda target: {self._spec_code(tier.bound)}"
            extra = ""
            if tier.natural is not None or tier.always is not None:
                extra = f", {tier.natural!r}, {literal(tier.always)}"
            if tier.die is not None or tier.also:
                extra += f", {literal(tier.die)}"
            if tier.also:
                extra += f", also={tier.tests()[1:]!r}, joined={literal(tier.joined)}"
            parts.append(f"TierSpec({literal(tier.name)}, {literal(tier.op)}, {bound}{extra})")
        return tuple_code(parts)

    def _read_code(self, read: RollRead) -> str:
        """A value a roll reads, as code in its `lambda s: ...`: its terms added (Python compares
        a count with a whole Fraction as with an int, so `whole` asks nothing more)."""
        if not read.terms:
            return "None" if read.absent == "none" else "0"
        if len(read.terms) == 1:
            return self._spec_code(read.terms[0])
        return " + ".join(wrap(self.exprs.code(x, Frame()), ADD) for x in read.terms)

    def _consequences(self, effect: m.RollEffect) -> list[str]:
        """What each outcome changes or brings into play, as ConsequenceSpec literals."""
        found = []
        for outcome in effect.outcomes:
            for change in outcome.changes:
                value = "None"
                if change.op == "grade":
                    value = literal(change.grade)
                elif change.value is not None:
                    value = f"lambda s: {self._spec_code(change.value)}"
                else:
                    value = str(change.delta)
                found.append(
                    f"ConsequenceSpec({literal(outcome.name)}, {literal(printer.modifier_text(change))}, "
                    f"{literal(change.target)}, {literal(change.op)}, {value}, {literal(change.rounding)})"
                )
            for rule in outcome.applies:
                found.append(f"ConsequenceSpec({literal(outcome.name)}, {literal('as ' + rule)})")
        return found

    # ------------------------------------------------------------------ tables

    def _tables(self) -> None:
        w = self.w
        for table in self.book.tables.values():
            w.blank()
            w.line(f"# table {table.name}")
            w.blank()
            columns = [c for c, _ in table.columns]
            if table.two_dimensional:
                columns = [c for c, _ in table.columns]
            w.line(f"{self.private.table(table.name)}: Final = TableSpec(")
            w.indent()
            w.line(f"name={literal(table.name)},")
            w.line(f"title={literal(table.title)},")
            w.line(f"source={literal(table.cites)},")
            w.line(f"pool={_pool_literal(_pool_key(table.pool))},")
            w.line(f"modifier={literal(table.modifier)},")
            w.line(f"sign={table.modifier_sign},")
            w.line("inputs=(" + "".join(literal(x) + ", " for x in table.inputs) + "),")
            w.line("columns=(" + "".join(literal(x) + ", " for x in columns) + "),")
            w.line("rows=(")
            w.indent()
            for row in table.rows:
                self._row(row)
            w.dedent()
            w.line("),")
            overflow = table.overflow
            w.line(f"above={overflow.above if overflow else None},")
            w.line(f"becomes={overflow.becomes if overflow else None},")
            step = printer.step_text(overflow.step) if overflow and overflow.step else None
            w.line(f"overflow_step={literal(step)},")
            if table.all_notes:
                w.line("notes=(")
                w.indent()
                for text, quote, kind in table.all_notes:
                    w.call(
                        "Note",
                        [
                            literal(table.name),
                            literal(table.cites),
                            literal(text),
                            literal(quote),
                            literal(kind),
                        ],
                        ",",
                    )
                w.dedent()
                w.line("),")
            if table.chain_depth is not None:
                w.line(f"depth={table.chain_depth},")
            w.dedent()
            w.line(")")

    def _row(self, row: m.TableRow) -> None:
        cells = []
        steps = []
        for cell in row.cells:
            if cell.kind == "impassable":
                cells.append("IMPASSABLE")
            elif cell.kind == "na":
                cells.append("NOT_APPLICABLE")
            elif cell.kind == "step":
                cells.append(literal(""))
            else:
                assert cell.value is not None
                code = self._spec_code(cell.value)
                cells.append(code if is_constant(cell.value, self.book) else f"lambda s: {code}")
            if cell.step is not None:
                steps.append(printer.step_text(cell.step))
        cell_code = "(" + "".join(c + ", " for c in cells) + ")"
        step_code = "(" + "".join(literal(s) + ", " for s in steps) + ")"
        self.w.line(
            f"RowSpec({row.low}, {row.high}, {literal(row.member)}, {row.is_else}, "
            f"{literal(row.key_text())}, {cell_code}, {step_code}),"
        )

    # ------------------------------------------------------------------ the book and the API

    def _book(self) -> None:
        w = self.w
        book = self.book
        w.blank()
        w.line("# " + "-" * 76)
        w.line("# public interface")
        w.line("# " + "-" * 76)
        w.blank()
        w.line("RULES: Final[Mapping[str, RuleInfo]] = MappingProxyType({")
        w.indent()
        for rule in book.rules.values():
            reads = "(" + "".join(literal(x) + ", " for x in rule.reads) + ")"
            produced = _produced(book, rule)
            w.call(
                f"{literal(rule.name)}: RuleInfo",
                [
                    literal(rule.name),
                    literal(rule.kind),
                    literal(rule.title),
                    literal(rule.cites),
                    reads,
                    *(f"{key}={tuple_code([literal(x) for x in names])}" for key, names in produced.items() if names),
                ],
                ",",
            )
        for table in book.tables.values():
            table_reads = table.reads
            reads_code = "(" + "".join(literal(x) + ", " for x in table_reads) + ")"
            columns = tuple_code([literal(name) for name, _ in table.columns])
            w.line(
                f"{literal(table.name)}: RuleInfo({literal(table.name)}, 'table', "
                f"{literal(table.title)}, {literal(table.cites)}, {reads_code}, columns={columns}),"
            )
        w.dedent()
        w.line("})")
        w.line(
            '"""Every rule, terrain, condition, trait and table, with the inputs each reads and what it'
            ' produces: the stats it changes, the values it derives, the rolls it may ask for, a table\'s columns."""'
        )
        w.blank()
        if book.resistance is not None:
            resistance = book.resistance
            w.blank()
            w.line("def _resistance(active: Fraction | int, passive: Fraction | int) -> Fraction | int:")
            w.indent()
            w.line(f"return {self._spec_code(resistance.target)}")
            w.dedent()
            w.blank()
        settle = [node for node in book.settle if not node.startswith("as ")]  # values only
        self.rules.emit(settle)
        w.blank(2)
        w.line("_BOOK: Final = Book(")
        w.indent()
        w.line("info=RULEBOOK,")
        w.line("inputs=INPUTS,")
        w.line("rules=RULES,")
        w.line("code={")
        w.indent()
        for name, code in self.rules.codes.items():
            w.line(f"{literal(name)}: {code},")
        w.dedent()
        w.line("},")
        w.line("tables={" + "".join(f"{literal(x)}: {self.private.table(x)}, " for x in book.tables) + "},")
        grades = "".join(
            f"Grade({literal(g.name)}, {g.step}, {literal(g.op)}, {_grade_value_literal(g.value)}, {literal(g.rounding)}), "
            for g in book.grades
        )
        w.line(f"grades=({grades}),")
        if settle:
            w.line("settle=(")
            w.indent()
            for node in settle:
                w.line(f"{literal(node)},")
            w.dedent()
            w.line("),")
        self._orders()
        if book.resistance is not None:
            w.line("resistance=_resistance,")
            w.line(f"resistance_pool={_pool_literal(_pool_key(book.resistance.pool))},")
            w.line(f"resistance_op={literal(book.resistance.op)},")
        else:
            w.line("resistance=None,")
            w.line("resistance_pool=None,")
            w.line("resistance_op=None,")
        w.dedent()
        w.line(")")
        w.blank()
        self._sequences()

    def _sequences(self) -> None:
        """`each round ...`: how the rules with a sequence are resolved over rounds."""
        w = self.w
        w.line("_SEQUENCES: Final[Mapping[str, SequenceSpec]] = MappingProxyType({")
        w.indent()
        for rule in self.book.rules.values():
            seq = rule.sequence
            if seq is None:
                continue
            until = tuple_code([literal(x) for x in seq.until]) if seq.until is not None else "None"
            then = "None"
            if seq.then is not None:
                then = f"({literal(seq.then[0])}, {_constant_literal(constant_value(seq.then[1], self.book))})"
            totals = tuple_code([literal(x) for x in seq.totals])
            counting = ""
            if seq.times != 1:
                counting += f", times={seq.times}"
            if seq.counts:
                counted = tuple_code([literal(c.input) for c in seq.counts])
                follows = tuple_code([literal(seq.counts[0].roll), literal(seq.counts[0].outcome)])
                counting += f", counted={counted}, follows={follows}"
            w.line(
                f"{literal(rule.name)}: SequenceSpec({literal(rule.name)}, {literal(seq.unit)}, "
                f"{literal(seq.counter)}, {seq.start}, {until}, {then}, {totals}{counting}),"
            )
        w.dedent()
        w.line("})")
        w.blank()

    def _orders(self) -> None:
        """`order STAT: ...`: the stats whose modifiers apply in the order the book states."""
        if not self.book.stat_orders:
            return
        w = self.w
        w.line("orders=MappingProxyType({")
        w.indent()
        for stat, order in self.book.stat_orders.items():
            kinds = tuple_code([literal(x) for x in order.kinds])
            rules = tuple_code([literal(x) for x in order.rules])
            w.line(f"{literal(stat)}: StatOrder({kinds}, {rules}),")
        w.dedent()
        w.line("}),")

    def _api(self) -> None:
        w = self.w
        book = self.book
        w.blank()
        w.call(
            "def resolve",
            [
                "names: str | Sequence[str]",
                "/",
                "*",
                f"{self.rounds}: int | None = None",
                f"{self.rng}: int | Xoshiro128 | Random | None = None",
                f"{self.rolled}: Mapping[str, int | Sequence[int]] | None = None",
                "**inputs: object",
            ],
            " -> Resolution:",
        )
        w.indent()
        w.docstring(
            "Resolve a situation in which the named rules and tables apply together.\n\n"
            "Inputs not given take their defaults (see INPUTS).  Modifiers stack across the\n"
            f"rules; a bad rule name or input raises RuleInputError.  `{self.rounds}`: resolve a rule\n"
            "with a sequence (`each round ...`) over so many rounds (`Resolution.sequence`).\n"
            f"`{self.rng}`: roll the situation's rolls and tables (a seed, or a random.Random);\n"
            f"`{self.rolled}`: results rolled elsewhere, faces or a total by roll name\n"
            "(`Roll.rolled`, `Resolution.rolled(name)`)."
        )
        w.line(
            f"return resolve_rounds(_BOOK, _SEQUENCES, names, inputs, {self.rounds}, rng={self.rng}, rolled={self.rolled})"
        )
        w.dedent()
        exported = list(PUBLIC_NAMES) + sorted(set(self.aliases.values())) + list(self.forms.values())
        for rule in book.rules.values():
            self._function(rule.name, rule.reads, _rule_doc(rule), table=False)
            exported.append(self.public[rule.name])
        for table in book.tables.values():
            reads = table.reads
            self._function(table.name, reads, _table_doc(table), table=table.pool is not None)
            exported.append(self.public[table.name])
        w.blank()
        w.blank()
        w.line("__all__ = [")
        w.indent()
        for name in sorted({*exported, *REEXPORTED}, key=_export_order):
            w.line(f"{literal(name)},")
        w.dedent()
        w.line("]")

    def _parameters(self, name: str, reads: tuple[str, ...], *, table: bool) -> list[tuple[str, str, str]]:
        """The keyword parameters of the function of a rule or table: name, annotation, default."""
        found = []
        sequence = name in self.book.rules and self.book.rules[name].sequence is not None
        taken = set(self.reserved) | ({self.rounds} if sequence else set()) | {self.rng, self.rolled}
        for var_name in reads:
            var = self.book.vars[var_name]
            param = python_name(var_name, taken)
            taken.add(param)
            annotation = self.aliases.get(var_name) or _annotation(var.type)
            if var.default_expr is not None:
                found.append((param, f"{annotation} | None", "None"))
            else:
                found.append((param, annotation, _constant_literal(var.default, annotation=True)))
        if table:
            found.append((python_name("roll", taken), "int | None", "None"))
        if sequence:
            found.append((self.rounds, "int | None", "None"))
        found.append((self.rng, "int | Xoshiro128 | Random | None", "None"))
        found.append((self.rolled, "Mapping[str, int | Sequence[int]] | None", "None"))
        return found

    def _form(self, name: str, parameters: list[tuple[str, str, str]]) -> None:
        """The TypedDict of a rule's inputs, keyed by its function's parameters: an app builds a
        situation as typed data and passes it on, `broken_ground(**situation)`."""
        w = self.w
        w.blank()
        w.blank()
        form = self.forms[name]
        w.line(f"class {form}(TypedDict, total=False):")
        w.indent()
        w.docstring(f"The inputs of {self.public[name]}(), each optional: `{self.public[name]}(**inputs)`.")
        if parameters:
            w.blank()
            w.lines([f"{param}: {annotation}" for param, annotation, _ in parameters])
        w.dedent()

    def _function(self, name: str, reads: tuple[str, ...], doc: str, *, table: bool) -> None:
        w = self.w
        parameters = self._parameters(name, reads, table=table)
        self._form(name, parameters[:-2])  # the situation's inputs: not how to roll it
        sequence = name in self.book.rules and self.book.rules[name].sequence is not None
        params = [f"{param}: {annotation} = {default}" for param, annotation, default in parameters]
        told = [param for param, _, _ in parameters[: len(reads)]]
        if table:
            param = parameters[len(reads)][0]
        w.blank()
        w.blank()
        w.line("@inputs_by_name")
        w.call(f"def {self.public[name]}", ["*", *params] if params else [], " -> Resolution:")
        w.indent()
        w.docstring(doc)
        if name in self.book.rules and not sequence:  # the values in the order of the rule's reads
            w.line(f"if {self.rng} is not None or {self.rolled} is not None:")
            w.indent()
            self._roll_rule(name, told)
            w.dedent()
            self.rules.told(name, reads, told)
            self._resolve_rule(name, told)
            w.dedent()
            return
        self._given(reads, told)
        if table:
            w.line(f"if {param} is not None:")
            w.indent()
            w.line(f"given['roll'] = {param}")
            w.dedent()
        self._rolling_call(name, self.rounds if sequence else "None")
        w.dedent()

    def _given(self, reads: tuple[str, ...], told: list[str]) -> None:
        """`given = {...}`: the values told, by input name (a line each if long)."""
        w = self.w
        arguments = [f"{literal(var_name)}: {param}" for var_name, param in zip(reads, told, strict=True)]
        one_line = "given: dict[str, object] = {" + ", ".join(arguments) + "}"
        if len(one_line) + 12 <= 99:
            w.line(one_line)
        else:
            w.line("given: dict[str, object] = {")
            w.indent()
            for argument in arguments:
                w.line(argument + ",")
            w.dedent()
            w.line("}")

    def _rolling_call(self, name: str, rounds: str) -> None:
        """`return resolve_rounds(...)` of a rule or table alone, on `given`, rolling when asked to."""
        self.w.call(
            "return resolve_rounds",
            ["_BOOK", "_SEQUENCES", f"({literal(name)},)", "given", rounds, "signature=True", f"rng={self.rng}", f"rolled={self.rolled}"],
            "",
        )

    def _roll_rule(self, name: str, told: list[str]) -> None:
        """`return roll_rule(_BOOK, 'name', (a, b, ...), rng, rolled)` (indented twice), the values a
        line each if long."""
        w = self.w
        one = f"return roll_rule(_BOOK, {literal(name)}, {tuple_code(told)}, {self.rng}, {self.rolled})"
        if len(one) + 8 <= 99:
            w.line(one)
            return
        w.line("return roll_rule(")
        w.indent()
        w.line("_BOOK,")
        w.line(f"{literal(name)},")
        w.call("", told, ",")
        w.lines([f"{self.rng},", f"{self.rolled},"])
        w.dedent()
        w.line(")")

    def _resolve_rule(self, name: str, told: list[str]) -> None:
        """`return resolve_rule(_BOOK, 'name', (a, b, ...))` in a function's body (indented once),
        the values a line each if long."""
        w = self.w
        one = f"return resolve_rule(_BOOK, {literal(name)}, {tuple_code(told)})"
        if len(one) + 4 <= 99:
            w.line(one)
            return
        w.line("return resolve_rule(")
        w.indent()
        w.line("_BOOK,")
        w.line(f"{literal(name)},")
        w.call("", told, ",")
        w.dedent()
        w.line(")")


# ---------------------------------------------------------------------- helpers


def _effect_kind(effect: m.Effect) -> str:
    if isinstance(effect, m.ModEffect):
        return "mod"
    if isinstance(effect, m.RollEffect):
        return "roll"
    if isinstance(effect, m.DeriveEffect):
        return "derive"
    return "text"


def _rule_doc(rule: m.Rule) -> str:
    head = rule.title + (f" ({rule.cites})" if rule.cites else "") + "."
    lines = [head, ""]
    for effect in rule.effects:
        line = printer.effect_summary(effect)
        if line:
            lines.append("- " + line)
    return "\n".join(lines)


def _part_doc(part: m.Part) -> str:
    bindings = part.key.split("[", 1)[1].rstrip("]") if "[" in part.key else ""
    return f"{part.rule} as composed with {bindings}." if bindings else f"{part.rule}."


def _table_doc(table: m.Table) -> str:
    head = table.title + (f" ({table.cites})" if table.cites else "") + "."
    if table.pool is not None:
        return head + f"\n\nRolled on {printer.pool_text(table.pool)}; pass `roll` to select a row."
    return head + "\n\nLooked up by " + ", ".join(table.inputs) + "."


def _outcome_text(outcome: m.Outcome) -> str:
    text = outcome.text or ""
    if outcome.step is not None:
        text = (text + "; " if text else "") + printer.step_text(outcome.step)
    return text


def _note_line(text: str, quote: str | None) -> str:
    return f'Erratum: "{quote}" {text}' if quote else text


def _kind_of(type_: t.Type) -> tuple[str, Fraction | None, Fraction | None, str | None, tuple[str, ...]]:
    if isinstance(type_, t.Numeric):
        return type_.kind, type_.low, type_.high, type_.unit, ()
    if isinstance(type_, t.Enum):
        return ("levels" if type_.ordered else "one of"), None, None, None, type_.members
    if isinstance(type_, t.Flag):
        return "flag", None, None, None, ()
    if isinstance(type_, t.Dice):
        return "dice", None, None, None, ()
    return "text", None, None, None, ()


def _camel(name: str) -> str:
    """`water_depth` -> `WaterDepth`, `DEX` -> `DEX`: the name of a type made from a rulebook's."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_") if part) or "Choice"


def _choice_aliases(book: m.Book, taken: Container[str]) -> dict[str, str]:
    """A `Literal` alias for each input that is a choice: the name of its named type, else its
    own name, in CamelCase; inputs of one named type share it.  A name that is taken gets a `_`."""
    aliases: dict[str, str] = {}
    members: dict[str, tuple[str, ...]] = {}
    for var in book.vars.values():
        if not isinstance(var.type, t.Enum):
            continue
        alias = _camel(var.type.name or var.name)
        while alias in taken or (alias in members and members[alias] != var.type.members) or keyword.iskeyword(alias):
            alias += "_"
        members[alias] = var.type.members
        aliases[var.name] = alias
    return aliases


def _produced(book: m.Book, rule: m.Rule) -> dict[str, tuple[str, ...]]:
    """What a rule produces, its composed parts included: the stats its modifiers and outcomes
    change, the values it derives, the rolls it may ask for, each once in the order written."""
    stats: dict[str, None] = {}
    derived: dict[str, None] = {}
    rolls: dict[str, None] = {}
    for effect in flat_effects(book, rule.effects):
        if isinstance(effect, m.ModEffect):
            stats.setdefault(effect.target)
        elif isinstance(effect, m.DeriveEffect):
            derived.setdefault(effect.name)
        elif isinstance(effect, m.RollEffect):
            rolls.setdefault(effect.name)
            for outcome in effect.outcomes:
                for change in outcome.changes:
                    stats.setdefault(change.target)
    return {"stats": tuple(stats), "derived": tuple(derived), "rolls": tuple(rolls)}


def _annotation(type_: t.Type) -> str:
    if isinstance(type_, t.Numeric):
        return "Fraction | int | float | str" if type_.kind == "number" else "int"
    if isinstance(type_, t.Enum):
        return "Literal[" + ", ".join(literal(x) for x in type_.members) + "]"
    if isinstance(type_, t.Flag):
        return "bool"
    if isinstance(type_, t.Dice):
        return "Dice | str"
    return "str"


def _grade_value_literal(value: Fraction | int) -> str:
    """A grade's value is typed `Fraction` in the runtime, even when it is whole."""
    value = Fraction(value)
    return f"Fraction({value.numerator}, {value.denominator})"


def _constant_literal(value: m.Constant | None, annotation: bool = False) -> str:
    if value is None:
        return "None"
    if isinstance(value, Dice):
        return literal(str(value)) if annotation else f"Dice.parse({literal(str(value))})"
    if isinstance(value, (bool, str)):
        return literal(value)
    return fraction_literal(value)


def _pool_key(pool: n.Pool | None) -> PoolKey | None:
    if pool is None:
        return None
    return (pool.count, pool.sides, pool.keep)


def _pool_literal(key: PoolKey | None) -> str:
    if key is None:
        return "None"
    return f"({key[0]}, {key[1]}, {literal(key[2])})"


def _import(w: CodeWriter, module: str, names: list[str]) -> None:
    """`from MODULE import (...)`, a name a line (sorted as linters sort them), after the runtime's
    version check (hence `noqa: E402`, module level import not at top of file)."""
    w.line(f"from {module} import (  # noqa: E402")
    w.indent()
    w.lines([f"{name}," for name in sorted(names, key=_import_order)])
    w.dedent()
    w.line(")")


def _export_order(name: str) -> tuple[int, str]:
    """Constants, then classes, then functions: the order linters expect of `__all__`."""
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


def _names_used(body: str) -> set[str]:
    """The names the code reads.  Code Python cannot read (nested too deeply: the compiler's trial
    build reports it) imports every identifier it spells."""
    try:
        return {node.id for node in ast.walk(ast.parse(body)) if isinstance(node, ast.Name)}
    except (SyntaxError, RecursionError, MemoryError):
        return set(re.findall(r"\b[A-Za-z_][A-Za-z_0-9]*\b", body))


def _import_order(name: str) -> tuple[int, str]:
    """Constants, then classes, then functions, each without regard to case: as isort (and
    ruff's `I001`) sort the names of an import."""
    return (_export_order(name)[0], name.lower())


def book_module(book: m.Book) -> str:
    """The module a book is built into, as a check of the runtime names it."""
    return f"{book.name}.py"


def emit(book: m.Book, source_name: str, version: str, runtime: str = RUNTIME_PACKAGE) -> str:
    return ModuleWriter(book, source_name, version, runtime).emit()
