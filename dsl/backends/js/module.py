"""Checked model -> one ES module (and its `.d.ts`) per rulebook, importing the JavaScript runtime.

The module has the shape of the Python one (dsl/backends/python/module.py): its rulebook's inputs,
the specs of every effect (`ModSpec`, `RollSpec`, ... as module constants), its tables, and each
rule written out as code: one function per value the rule settles (`_RULE__stat_DEX0(s, at,
out)`, its derived values, its rolls, its texts), deciding the rule's steps of that value and
handing them to the runtime as candidates.  The runtime (dsl/backends/js/runtime/, mirroring
dsl/runtime/) settles them for a situation of one rule or several.  Python writes each rule a
second time, as one straight-line function for the rule alone, for speed; the JavaScript module
leaves the rule alone to the same functions, which give the same Resolution.

The public API: `RULEBOOK`, `INPUTS`, `RULES`, `resolve(names, inputs, {rounds})`, one function
per rule and table taking its inputs by name, and the runtime's names an app uses (`Dice`,
`RuleInputError`, ...), the same objects in every module of the package.

Safety by construction: rulebook text is only ever written as a JSON string literal
(`js_string`, ASCII only); names in code are made up here (`PrivateNames`) or are identifiers the
checker validated, and a public name that is not a JavaScript identifier, or is a reserved word,
is changed (`js_name`).
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path
from typing import Final

from dsl import model as m
from dsl import nodes as n
from dsl import printer
from dsl import types as t
from dsl.backends.js.expressions import JsExpressions, Unsupported, array, js_literal, js_string, number_literal
from dsl.backends.python.expressions import Frame, is_constant
from dsl.backends.python.module import PrivateNames
from dsl.backends.python.rules import Flat, Shape, shape_of
from dsl.backends.roll_reads import RollRead, roll_reads
from dsl.model.exprs import trace_names
from dsl.printer import text_kind, trace_item
from dsl.runtime.dice import Dice
from dsl.semantics import constant_value
from dsl.writer import CodeWriter

RUNTIME_DIR: Final = Path(__file__).parent / "runtime"
"""The runtime's ES modules, written once into an output folder as `runtime/`."""

RESERVED: Final = frozenset(
    [
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "debugger",
        "default",
        "delete",
        "do",
        "else",
        "enum",
        "export",
        "extends",
        "false",
        "finally",
        "for",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "new",
        "null",
        "return",
        "super",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "typeof",
        "var",
        "void",
        "while",
        "with",
        "yield",
        "let",
        "static",
        "implements",
        "interface",
        "package",
        "private",
        "protected",
        "public",
        "await",
        "arguments",
        "eval",
        "undefined",
        "NaN",
        "Infinity",
    ]
)

REEXPORTED = (
    "IMPASSABLE",
    "NOT_APPLICABLE",
    "Chances",
    "Dice",
    "Fraction",
    "Resolution",
    "RuleInputError",
    "Special",
    "frac",
    "jsonText",
    "show",
)
"""The runtime's names a module offers its apps: the same objects in every module."""

RUNTIME_API = 3
"""The API of the JavaScript runtime these modules import (`API` in runtime/index.js; the two
change together, apart from the Python runtime's)."""


def runtime_exports() -> dict[str, str]:
    """Every name the runtime's modules export, with the module defining it."""
    found: dict[str, str] = {}
    pattern = re.compile(r"^export (?:async )?(?:function|class|const|let) ([A-Za-z_$][\w$]*)", re.M)
    for path in sorted(RUNTIME_DIR.glob("*.js")):
        if path.stem == "index":
            continue
        for name in pattern.findall(path.read_text(encoding="utf-8")):
            found.setdefault(name, path.name)
    return found


HELPERS: Final = runtime_exports()

IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def js_name(name: str, taken: set[str]) -> str:
    """The JavaScript name of a rule or table: itself, unless that is no ASCII identifier, a
    reserved word or taken (then changed until it is free)."""
    candidate = (
        name if IDENTIFIER.fullmatch(name) else re.sub(r"[^A-Za-z0-9_$]", lambda c: f"_u{ord(c.group()):04x}", name)
    )
    if not IDENTIFIER.fullmatch(candidate):
        candidate = "_" + candidate
    while candidate in RESERVED or candidate in taken:
        candidate += "_"
    return candidate


def _pool(pool: n.Pool | None) -> str:
    if pool is None:
        return "null"
    return f"[{pool.count}n, {pool.sides}n, {js_literal(pool.keep)}]"


def _constant(value: m.Constant | None) -> str:
    if isinstance(value, Dice):
        return f"Dice.parse({js_string(str(value))})"  # both runtimes read what `str` writes
    return js_literal(value)


class JsModuleWriter:
    """Writes the ES module of one book (see the module docstring for its layout)."""

    def __init__(self, book: m.Book, source_name: str, version: str) -> None:
        self.book = book
        self.source_name = source_name
        self.version = version
        self.w = CodeWriter("  ")
        self.exprs = JsExpressions(book)
        reserved = (
            set(RESERVED)
            | set(HELPERS)
            | {"RULEBOOK", "INPUTS", "RULES", "resolve", "requireApi", "_BOOK", "_SEQUENCES"}
        )
        self.public: dict[str, str] = {}
        taken = set(reserved) | set(REEXPORTED)
        for name in [*book.rules, *book.tables]:
            self.public[name] = js_name(name, taken)
            taken.add(self.public[name])
        self.private = PrivateNames(reserved | set(self.public.values()) | {"_resistance"})
        for index, key in enumerate(book.parts, start=1):
            self.private.part(key, book.parts[key].rule, index)
        self.consts: dict[str, list[str | None]] = {}
        self.roll_steps: dict[str, str] = {}
        self.codes: dict[str, str] = {}
        self.where = f"rulebook `{book.name}`"

    def emit(self) -> str:
        """The module's source; `Unsupported` (with `where` set) for a construct the target
        cannot write yet."""
        try:
            return self._emit()
        except Unsupported as error:
            if error.where is None:
                error.where = self.where
            raise

    def _emit(self) -> str:
        w = self.w
        self._rulebook_info()
        self._inputs()
        for part in self.book.parts.values():
            self._part(part)
        self._tables()
        settle = [node for node in self.book.settle if not node.startswith("as ")]
        for rule in self.book.rules.values():
            self._rule(rule, shape_of(self, rule, settle))
        self._book(settle)
        self._api()
        body = w.source()
        head = CodeWriter("  ")
        head.line(
            f"// Resolvers for the rulebook {self.book.name}: generated by rulecraft {self.version}; do not edit."
        )
        head.line(
            f"// Compiled from {js_string(self.source_name)}: change the rulebook and rebuild instead of editing."
        )
        head.line(f"// Use it: resolve(names, inputs).toDict(); {self.book.name}.d.ts types it.")
        head.blank()
        head.line('import { requireApi } from "./runtime/index.js";')
        used = set(re.findall(r"\b[A-Za-z_$][\w$]*\b", body))
        modules: dict[str, list[str]] = {}
        for name in sorted(used & set(HELPERS)):
            modules.setdefault(HELPERS[name], []).append(name)
        for module in sorted(modules):
            head.line(f"import {{ {', '.join(modules[module])} }} from {js_string('./runtime/' + module)};")
        head.blank()
        head.line(f"requireApi({RUNTIME_API}, {js_string(self.book.name + '.js')}, {js_string(self.version)});")
        head.blank()
        head.line(f'export {{ {", ".join(REEXPORTED)} }} from "./runtime/index.js";')
        head.blank()
        return head.source() + body

    # ------------------------------------------------------------------ constants

    def _rulebook_info(self) -> None:
        book = self.book
        w = self.w
        notes = array(
            [
                f"new Note({js_string(book.name)}, null, {js_string(text)}, {js_literal(quote)}, {js_string(m.note_kind(quote))})"
                for text, quote in book.notes
            ]
        )
        w.line(
            f"export const RULEBOOK = new RulebookInfo({js_string(book.name)}, {js_string(book.title)}, "
            f"{js_literal(book.source)}, {js_literal(book.version)}, {notes});"
        )
        w.blank()

    def _inputs(self) -> None:
        w = self.w
        w.line("export const INPUTS = new Map([")
        w.indent()
        for var in self.book.vars.values():
            self.where = f"{'stat' if var.is_stat else 'input'} `{var.name}`"
            kind, low, high, unit, members = _kind_of(var.type)
            args = [
                js_string(var.name),
                js_literal(var.label),
                js_string(kind),
                number_literal(low),
                number_literal(high),
                js_literal(unit),
                array([js_string(x) for x in members]),
                _constant(var.default),
                js_literal(var.is_stat),
            ]
            if var.default_expr is not None:
                args.append(f"(s) => {self._spec_code(var.default_expr)}")
                args.append(js_string(printer.expr_text(var.default_expr)))
            w.line(f"[{js_string(var.name)}, new InputSpec({', '.join(args)})],")
        w.dedent()
        w.line("]);")
        w.blank()

    def _spec_code(self, expr: n.Expr) -> str:
        return self.exprs.code(expr, Frame())

    def _part(self, part: m.Part) -> None:
        w = self.w
        self.where = f"rule `{part.rule}`"
        w.line(f"// {'rule' if part.key == part.rule else 'part'} {js_string(part.key)}")
        counters = {"mod": 0, "roll": 0, "text": 0, "derive": 0}
        consts = self.consts.setdefault(part.key, [])
        for effect in part.effects:
            if isinstance(effect, m.PartEffect):
                consts.append(None)
                continue
            kind = _effect_kind(effect)
            counters[kind] += 1
            const = self.private.effect(part.key, kind, counters[kind])
            consts.append(const)
            self._effect(effect, const)
        w.blank()

    def _effect(self, effect: m.Effect, const: str) -> None:
        w = self.w
        condition = printer.guard_text(effect.guard)
        base = [
            ("key", js_string(effect.key)),
            ("rule", js_string(effect.origin)),
            ("source", js_literal(effect.cites)),
        ]
        if isinstance(effect, m.ModEffect):
            group = self.book.groups.get(effect.group) if effect.group else None
            fields = [
                *base,
                ("target", js_string(effect.target)),
                ("op", js_string(effect.op)),
                ("text", js_string(printer.modifier_text(effect))),
                ("group", js_literal(effect.group)),
                ("stacking", js_string(group.stacking if group else "cumulative")),
                ("rounding", js_literal(effect.rounding)),
                ("condition", js_string(condition)),
                ("label", js_literal(effect.label)),
            ]
            _object(w, f"const {const} = ModSpec", fields)
        elif isinstance(effect, m.RollEffect):
            self._roll(effect, const, base, condition)
        elif isinstance(effect, m.DeriveEffect):
            _object(
                w,
                f"const {const} = DeriveSpec",
                [*base, ("name", js_string(effect.name)), ("condition", js_string(condition))],
            )
        else:
            assert isinstance(effect, (m.CannotEffect, m.NoteEffect))
            fields = [
                *base,
                ("kind", js_string(text_kind(effect))),
                ("text", js_string(effect.text)),
                ("quote", js_literal(effect.quote if isinstance(effect, m.NoteEffect) else None)),
                ("condition", js_string(condition)),
            ]
            _object(w, f"const {const} = TextSpec", fields)
        w.line(f"const {self.private.trace(const)} = {self._trace(effect, trace_item(effect), effect.guard)};")

    def _trace(self, effect: m.Effect, item: str, guard: tuple[m.Condition, ...]) -> str:
        clauses = array([js_string(printer.condition_text(c)) for c in guard])
        names = array([array([js_string(x) for x in trace_names(self.book, c.expr)]) for c in guard])
        return (
            f"TraceSpec({js_string(effect.origin)}, {js_literal(effect.cites)}, {js_string(item)}, {clauses}, {names})"
        )

    def _roll(self, effect: m.RollEffect, const: str, base: list[tuple[str, str]], condition: str) -> None:
        w = self.w
        outcomes = (
            "Object.freeze({"
            + ", ".join(f"{js_string(o.name)}: {js_string(_outcome_text(o))}" for o in effect.outcomes)
            + "})"
        )
        fields = [
            *base,
            ("name", js_string(effect.name)),
            ("label", js_literal(effect.label)),
            ("kind", js_string(effect.kind)),
            ("pool", _pool(effect.pool)),
            ("op", js_literal(effect.op)),
            ("against", _pool(effect.against)),
            ("success", js_literal(effect.success)),
            ("outcomes", outcomes),
            ("margin_outcomes", array([js_string(o.name) for o in effect.outcomes if o.by_margin])),
            ("tiers", self._tiers(effect.tiers)),
            ("ties", js_literal(effect.ties)),
            ("notes", array([js_string(_note_line(text, quote)) for text, quote in effect.notes])),
            ("condition", js_string(condition)),
            ("consequences", array(self._consequences(effect))),
            (
                "steps",
                array(
                    [
                        f"[{js_string(o.name)}, {js_string(printer.step_text(o.step))}]"
                        for o in effect.outcomes
                        if o.step
                    ]
                ),
            ),
            ("separate", js_literal(effect.separate)),
        ]
        _object(w, f"const {const} = RollSpec", fields)
        reads = roll_reads(effect)
        values = "null" if reads is None else f"(s) => {array([self._read_code(r) for r in reads])}"
        changes = []
        for index, change in enumerate(effect.changes, start=1):
            name = self.private.change(const, index)
            change_fields = [
                ("kind", js_string(change.kind)),
                ("pool", _pool(change.pool)),
                ("delta", f"{change.delta}n"),
                ("success", js_literal(change.success)),
                ("condition", js_string(printer.guard_text(change.guard))),
            ]
            if change.tiers is not None:
                change_fields.append(("tiers", self._tiers(change.tiers)))
            _object(w, f"const {name} = ChangeSpec", change_fields)
            amount = "null" if change.value is None else f"(s) => {self._spec_code(change.value)}"
            trace = self._trace(effect, f"roll {effect.name}: {printer.change_text(change)}", change.guard)
            clauses = array([f"(s) => {self.exprs.holds(c, Frame())}" for c in change.guard])
            changes.append(f"[{name}, {clauses}, {amount}, {trace}]")
        step = self.roll_steps[const] = self.private.roll_step(const)
        w.line(f"const {step} = RollStep({const}, {values}, {array(changes)});")

    def _tiers(self, system: str | None) -> str:
        """A tier system as an array of TierSpec calls (`[]`: none), first match first."""
        tiers: list[str] = []
        for tier in self.book.tiers[system].tiers if system is not None else ():
            bound = "null" if tier.bound is None else f"(target) => {self._spec_code(tier.bound)}"
            natural = "null" if tier.natural is None else f"[{tier.natural[0]}n, {tier.natural[1]}n]"
            also = ""
            if tier.also:
                tests = ", ".join(f"[{low}n, {high}n, {js_literal(die)}]" for low, high, die in tier.tests()[1:])
                also = f", [{tests}], {js_string(tier.joined)}"
            tiers.append(
                f"TierSpec({js_string(tier.name)}, {js_literal(tier.op)}, {bound}, {natural}, "
                f"{js_literal(tier.always)}, {js_literal(tier.die)}{also})"
            )
        return array(tiers)

    def _read_code(self, read: RollRead) -> str:
        """A value a roll reads, as code in its `(s) => [...]`: its terms added with the runtime's
        `add`; a whole number made a BigInt (`integer`), as the runtime counts dice in BigInts."""
        if not read.terms:
            return "null" if read.absent == "none" else "0n"
        code = self._spec_code(read.terms[0])
        for extra in read.terms[1:]:
            code = f"add({code}, {self._spec_code(extra)})"
        return f"integer({code})" if read.whole else code

    def _consequences(self, effect: m.RollEffect) -> list[str]:
        found = []
        for outcome in effect.outcomes:
            for change in outcome.changes:
                if change.op == "grade":
                    value = js_literal(change.grade)
                elif change.value is not None:
                    value = f"(s) => {self._spec_code(change.value)}"
                else:
                    value = f"{change.delta}n"
                found.append(
                    f"ConsequenceSpec({js_string(outcome.name)}, {js_string(printer.modifier_text(change))}, "
                    f"{js_string(change.target)}, {js_string(change.op)}, {value}, {js_literal(change.rounding)})"
                )
            for rule in outcome.applies:
                found.append(f"ConsequenceSpec({js_string(outcome.name)}, {js_string('as ' + rule)})")
        return found

    def _tables(self) -> None:
        w = self.w
        for table in self.book.tables.values():
            self.where = f"table `{table.name}`"
            w.line(f"// table {js_string(table.name)}")
            overflow = table.overflow
            step = printer.step_text(overflow.step) if overflow and overflow.step else None
            notes = array(
                [
                    f"new Note({js_string(table.name)}, {js_literal(table.cites)}, {js_string(text)}, {js_literal(quote)}, "
                    f"{js_string(kind)})"
                    for text, quote, kind in table.all_notes
                ]
            )
            rows = array([self._row(row) for row in table.rows])
            fields = [
                ("name", js_string(table.name)),
                ("title", js_string(table.title)),
                ("source", js_literal(table.cites)),
                ("pool", _pool(table.pool)),
                ("modifier", js_literal(table.modifier)),
                ("sign", str(table.modifier_sign)),
                ("inputs", array([js_string(x) for x in table.inputs])),
                ("columns", array([js_string(c) for c, _ in table.columns])),
                ("rows", rows),
                ("above", number_literal(overflow.above) if overflow else "null"),
                ("becomes", number_literal(overflow.becomes) if overflow else "null"),
                ("overflow_step", js_literal(step)),
                ("notes", notes),
                ("depth", "null" if table.chain_depth is None else str(table.chain_depth)),
            ]
            _object(w, f"const {self.private.table(table.name)} = TableSpec", fields)
            w.blank()

    def _row(self, row: m.TableRow) -> str:
        cells = []
        steps = []
        for cell in row.cells:
            if cell.kind == "impassable":
                cells.append("IMPASSABLE")
            elif cell.kind == "na":
                cells.append("NOT_APPLICABLE")
            elif cell.kind == "step":
                cells.append('""')
            else:
                assert cell.value is not None
                code = self._spec_code(cell.value)
                cells.append(code if is_constant(cell.value, self.book) else f"(s) => {code}")
            if cell.step is not None:
                steps.append(js_string(printer.step_text(cell.step)))
        return (
            f"RowSpec({number_literal(row.low)}, {number_literal(row.high)}, {js_literal(row.member)}, "
            f"{js_literal(row.is_else)}, {js_string(row.key_text())}, {array(cells)}, {array(steps)})"
        )

    # ------------------------------------------------------------------ rules

    def _rule(self, rule: m.Rule, shape: Shape) -> None:
        """A rule's functions, one per value it settles (and for its rolls and texts), and its RuleCode."""
        w = self.w
        self.where = f"rule `{rule.name}`"
        private = self.private
        steps = shape.steps
        w.line(f"// rule {js_string(rule.name)}, written out")
        traces = []
        for index, flat in enumerate(steps):
            if not flat.texts:
                traces.append(private.trace(flat.const))
                continue
            traces.append(private.written(rule.name, "trace", index + 1))
            texts = array([js_string(x) for x in flat.texts])
            names = array([array([js_string(x) for x in group]) for group in flat.names])
            w.line(f"const {traces[-1]} = within({private.trace(flat.const)}, {texts}, {names});")
        said: dict[int, str] = {}
        for index in shape.texts:
            effect = steps[index].effect
            said[index] = name = private.written(rule.name, "said", index + 1)
            maker = "restrictionOf" if isinstance(effect, m.CannotEffect) else "noteOf"
            w.line(f"const {name} = {maker}({steps[index].const});")
        notes = []
        for number, watch in enumerate(shape.watches, start=1):
            name = private.written(rule.name, "unread", number)
            notes.append(name)
            w.line(
                f'const {name} = new Note({js_string(watch.origin)}, {js_literal(watch.cites)}, {js_string(watch.text)}, null, "input");'
            )
        functions: dict[str, str] = {}
        for kind, name, group in shape.nodes:
            if kind in ("stat", "derive"):
                node = f"{kind} {name}"
                functions[node] = private.written(rule.name, f"{kind}_{name}", 0)
                self._node(steps, traces, said, functions[node], group)
        rolls = texts = "null"
        if shape.rolls:
            rolls = private.written(rule.name, "rolls", 0)
            self._node(steps, traces, said, rolls, shape.rolls)
        if shape.texts:
            texts = private.written(rule.name, "texts", 0)
            self._node(steps, traces, said, texts, shape.texts)
        watches = [
            f"[{js_string(watch.name)}, {array([f'[{step}, {clause}]' for step, clause in watch.reads])}, {note}]"
            for watch, note in zip(shape.watches, notes, strict=True)
        ]
        code = self.codes[rule.name] = private.written(rule.name, "code", 0)
        nodes = (
            "new Map([" + ", ".join(f"[{js_string(node)}, {function}]" for node, function in functions.items()) + "])"
        )
        fields = [
            ("nodes", nodes),
            ("rolls", rolls),
            ("texts", texts),
            ("watches", array(watches)),
            ("chains", js_literal(shape.chains)),
        ]
        _object(w, f"const {code} = RuleCode", fields)
        w.blank()

    def _node(
        self, steps: list[Flat], traces: list[str], said: dict[int, str], function: str, group: list[int]
    ) -> None:
        """The function deciding a rule's steps of one value (or its rolls, or its texts) as
        candidates, placed at the rule's place `at`: each step's clauses decided first, in
        order (`dN`: the clause that did not hold, -1 when all held), then each handed on."""
        w = self.w
        frame = Frame("")
        body = CodeWriter("  ")
        body.indent()
        for index in group:
            clauses = steps[index].clauses
            if not clauses:
                continue
            if len(clauses) == 1:
                body.line(f"const d{index + 1} = {self.exprs.holds(clauses[0], frame)} ? -1 : 0;")
                continue
            tests = " : ".join(f"{self.exprs.fails(c, frame)} ? {position}" for position, c in enumerate(clauses))
            body.line(f"const d{index + 1} = {tests} : -1;")
        for index in group:
            body.line(f"out.push({self._candidate(steps, traces, said, frame, index)});")
        w.line(f"function {function}(s, at, out) {{")
        w.indent()
        if "v" in frame.read:
            w.line("const v = s.v;")
        if "e" in frame.read:
            w.line("const e = s.e;")
        w.dedent()
        w.raw(body.source())
        w.line("}")

    def _candidate(self, steps: list[Flat], traces: list[str], said: dict[int, str], frame: Frame, index: int) -> str:
        """A step as a candidate: [place, key, decided, trace, spec, what it gives]."""
        flat = steps[index]
        effect = flat.effect
        decided = f"d{index + 1}" if flat.clauses else "-1"
        trace = traces[index]
        if isinstance(effect, m.ModEffect):
            code, constant = self.exprs.amount(effect, frame)
            given = code if constant else f"() => {code}"
        elif isinstance(effect, m.DeriveEffect):
            given = f"() => {self.exprs.code(effect.value, frame)}"
        elif isinstance(effect, m.RollEffect):
            assert flat.roll is not None
            given = flat.roll
        else:
            given = said[index]
            if not flat.clauses:
                trace = "null"
        return f"[[at, {index}], {js_string(effect.key)}, {decided}, {trace}, {flat.const}, {given}]"

    # ------------------------------------------------------------------ the book and the API

    def _book(self, settle: list[str]) -> None:
        w = self.w
        book = self.book
        self.where = f"rulebook `{book.name}`"
        w.line("export const RULES = new Map([")
        w.indent()
        for rule in book.rules.values():
            reads = array([js_string(x) for x in rule.reads])
            w.line(
                f"[{js_string(rule.name)}, new RuleInfo({js_string(rule.name)}, {js_string(rule.kind)}, "
                f"{js_string(rule.title)}, {js_literal(rule.cites)}, {reads})],"
            )
        for table in book.tables.values():
            reads = array([js_string(x) for x in table.reads])
            w.line(
                f'[{js_string(table.name)}, new RuleInfo({js_string(table.name)}, "table", '
                f"{js_string(table.title)}, {js_literal(table.cites)}, {reads})],"
            )
        w.dedent()
        w.line("]);")
        w.blank()
        resistance = "null"
        if book.resistance is not None:
            w.line(f"function _resistance(active, passive) {{ return {self._spec_code(book.resistance.target)}; }}")
            w.blank()
            resistance = "_resistance"
        grades = array(
            [
                f"Grade({js_string(g.name)}, {'null' if g.step is None else f'{g.step}n'}, {js_string(g.op)}, "
                f"{number_literal(Fraction(g.value))}, {js_literal(g.rounding)})"
                for g in book.grades
            ]
        )
        orders = (
            "new Map(["
            + ", ".join(
                f"[{js_string(stat)}, StatOrder({array([js_string(x) for x in order.kinds])}, {array([js_string(x) for x in order.rules])})]"
                for stat, order in book.stat_orders.items()
            )
            + "])"
        )
        fields = [
            ("info", "RULEBOOK"),
            ("inputs", "INPUTS"),
            ("rules", "RULES"),
            (
                "code",
                "new Map([" + ", ".join(f"[{js_string(name)}, {code}]" for name, code in self.codes.items()) + "])",
            ),
            (
                "tables",
                "new Map([" + ", ".join(f"[{js_string(x)}, {self.private.table(x)}]" for x in book.tables) + "])",
            ),
            ("grades", grades),
            ("settle", array([js_string(node) for node in settle])),
            ("orders", orders),
            ("resistance", resistance),
            ("resistancePool", _pool(book.resistance.pool) if book.resistance else "null"),
            ("resistanceOp", js_literal(book.resistance.op) if book.resistance else "null"),
        ]
        _object(w, "const _BOOK = new Book", fields)
        w.blank()
        sequences = []
        for rule in book.rules.values():
            seq = rule.sequence
            if seq is None:
                continue
            until = array([js_string(x) for x in seq.until]) if seq.until is not None else "null"
            then = "null"
            if seq.then is not None:
                then = f"[{js_string(seq.then[0])}, {_constant(constant_value(seq.then[1], book))}]"
            totals = array([js_string(x) for x in seq.totals])
            counter = js_string(seq.counter) if seq.counter is not None else "null"
            counting = ""
            if seq.times != 1 or seq.counts:
                counted = array([js_string(c.input) for c in seq.counts])
                follows = array([js_string(seq.counts[0].roll), js_string(seq.counts[0].outcome)]) if seq.counts else "null"
                counting = f", {seq.times}, {counted}, {follows}"
            sequences.append(
                f"[{js_string(rule.name)}, SequenceSpec({js_string(rule.name)}, {js_string(seq.unit)}, "
                f"{counter}, {seq.start}n, {until}, {then}, {totals}{counting})]"
            )
        w.line("const _SEQUENCES = new Map([")
        w.indent()
        w.lines([x + "," for x in sequences])
        w.dedent()
        w.line("]);")
        w.blank()

    def _api(self) -> None:
        w = self.w
        w.line("/** Resolve a situation in which the named rules and tables apply together (inputs not given")
        w.line(" * take their defaults; `rounds`: a rule with a sequence over so many rounds; `rng`: roll it from")
        w.line(" * a seed or a Xoshiro128; `rolled`: results rolled elsewhere, faces or a total by roll name). */")
        w.line("export function resolve(names, inputs = {}, { rounds = null, rng = null, rolled = null } = {}) {")
        w.indent()
        w.line("return resolveRounds(_BOOK, _SEQUENCES, names, inputs, rounds, false, rng, rolled);")
        w.dedent()
        w.line("}")
        for name in [*self.book.rules, *self.book.tables]:
            w.blank()
            w.line(f"export function {self.public[name]}(inputs = {{}}, {{ rounds = null, rng = null, rolled = null }} = {{}}) {{")
            w.indent()
            w.line(f"return resolveRule(_BOOK, _SEQUENCES, {js_string(name)}, inputs, rounds, rng, rolled);")
            w.dedent()
            w.line("}")


def _object(w: CodeWriter, head: str, fields: list[tuple[str, str]]) -> None:
    """`head({field: value, ...});`, a field a line."""
    w.line(f"{head}({{")
    w.indent()
    for key, value in fields:
        w.line(f"{key}: {value},")
    w.dedent()
    w.line("});")




def _note_line(text: str, quote: str | None) -> str:
    return f'Erratum: "{quote}" {text}' if quote else text


def _outcome_text(outcome: m.Outcome) -> str:
    text = outcome.text or ""
    if outcome.step is not None:
        text = (text + "; " if text else "") + printer.step_text(outcome.step)
    return text


def _effect_kind(effect: m.Effect) -> str:
    if isinstance(effect, m.ModEffect):
        return "mod"
    if isinstance(effect, m.RollEffect):
        return "roll"
    if isinstance(effect, m.DeriveEffect):
        return "derive"
    return "text"


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


def emit(book: m.Book, source_name: str, version: str) -> str:
    return JsModuleWriter(book, source_name, version).emit()
