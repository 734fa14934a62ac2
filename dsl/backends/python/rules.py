"""Each rule of a book written out as plain code: the one evaluator of the Python backend.

A rule is written twice over the same pieces of code (each piece written by one method here):

- `_resolve_RULE(v, given)`, the rule alone, read top to bottom: its values settle in the book's
  order (`Book.settle`); a value's steps are decided first, all of them (a condition that looks
  a row up is traced where it is met), then traced, and those that hold apply: additions summed
  in place when every modifier of the stat adds and counts, else through `settle_held`
  (stacking groups, grades, sets, orders); the decided clause of each step is a local (`d3`),
  -1 when every clause held; rolls go through `roll_of`; the chains its rolls start through
  `chains_of`.  The steps of a part the rule composes twice are counted by key
  (`settle_counted` and its kin): the first that holds counts.
- one function per value the rule settles (`_RULE__stat_DEX(s, at, out)`, `_RULE__derive_X`,
  `_RULE__rolls`, `_RULE__texts`), deciding the same steps and handing them to the runtime as
  candidates, for a situation of several rules (dsl/runtime/resolve.py `resolve_together`).

Both are held to the reference resolver (dsl/semantics) on whole Resolutions, trace, chains and
sequences included (tests/differential.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Protocol

from dsl import model as m
from dsl import printer
from dsl import types as t
from dsl.backends.python.expressions import Expressions, Frame, tuple_code
from dsl.model.exprs import input_places, trace_names
from dsl.runtime.base import MAX_BITS
from dsl.writer import CodeWriter, literal

if TYPE_CHECKING:
    from dsl.backends.python.module import ModuleWriter as Module


class StepNames(Protocol):
    """What the shape of a rule is read from: the book, and the names a module writer gave each
    part's effects (`consts`) and each roll's step (`roll_steps`).  The JavaScript backend
    (dsl/backends/js/) reads rules in the same shape."""

    book: m.Book
    consts: dict[str, list[str | None]]
    roll_steps: dict[str, str]


@dataclass(frozen=True)
class Flat:
    """One step of a rule, the parts it composes in place: its effect, the constant of its spec,
    the clauses of the `as` statements around it (outermost first), as written and the names
    each reads, and for a roll the constant of its `RollStep`."""

    effect: m.Effect
    const: str
    outer: tuple[m.Condition, ...]
    texts: tuple[str, ...]
    names: tuple[tuple[str, ...], ...]
    roll: str | None = None

    @property
    def clauses(self) -> tuple[m.Condition, ...]:
        return (*self.outer, *self.effect.guard)


@dataclass(frozen=True)
class Watch:
    """An input a rule's steps read: the steps that read it, each with the clause from which on it
    reads it (it does once that clause is reached, or when all hold), and the note saying it had
    no effect (about the first step reading it)."""

    name: str
    reads: tuple[tuple[int, int], ...]
    origin: str
    cites: str | None
    text: str

    @property
    def gated(self) -> bool:
        """Read only past a first clause: a situation may leave it unread."""
        return all(clause > 0 for _, clause in self.reads)


@dataclass
class Shape:
    """What a rule does, as its code is written: its steps, the values they settle in the book's
    order (kind: base, unmodified, stat, derive), its rolls, its texts, the inputs they read."""

    steps: list[Flat]
    nodes: list[tuple[str, str, list[int]]]
    rolls: list[int]
    texts: list[int]
    watches: list[Watch] = field(default_factory=list)
    chains: bool = False


def flat_steps(module: StepNames, rule: str) -> list[Flat]:
    """The steps of a rule, composed parts in place, in the order a resolution meets them."""
    book = module.book
    out: list[Flat] = []
    # an explicit stack: composition may nest thousands deep
    stack: list[tuple[str, int, tuple[m.Condition, ...], tuple[str, ...], tuple[tuple[str, ...], ...]]] = [
        (rule, 0, (), (), ())
    ]
    while stack:
        key, at, outer, texts, names = stack.pop()
        effects = book.parts[key].effects
        if at >= len(effects):
            continue
        stack.append((key, at + 1, outer, texts, names))
        effect = effects[at]
        if isinstance(effect, m.PartEffect):
            said = tuple(printer.condition_text(c) for c in effect.guard)
            read = tuple(tuple(trace_names(book, c.expr)) for c in effect.guard)
            stack.append((effect.part, 0, outer + effect.guard, texts + said, names + read))
            continue
        const = module.consts[key][at]
        assert const is not None
        roll = module.roll_steps.get(const)
        out.append(Flat(effect, const, outer, texts, names, roll))
    return out


def shape_of(module: StepNames, rule: m.Rule, settle: list[str]) -> Shape:
    book = module.book
    steps = flat_steps(module, rule.name)
    by_node: dict[str, list[int]] = {}
    rolls: list[int] = []
    texts: list[int] = []
    chains = False
    for index, flat in enumerate(steps):
        effect = flat.effect
        if isinstance(effect, m.ModEffect):
            by_node.setdefault("stat " + effect.target, []).append(index)
        elif isinstance(effect, m.DeriveEffect):
            by_node.setdefault("derive " + effect.name, []).append(index)
        elif isinstance(effect, m.RollEffect):
            rolls.append(index)
            chains = chains or any(o.step is not None for o in effect.outcomes)
        else:
            texts.append(index)
    wanted = {f"stat {x}" for x in rule.reads if book.vars[x].is_stat}
    wanted |= {f"base {x}" for x in rule.reads if book.vars[x].default_expr is not None}
    wanted |= {node for node in by_node if node.startswith("derive ")}
    nodes: list[tuple[str, str, list[int]]] = []
    for node in settle:
        if node in wanted:
            kind, _, name = node.partition(" ")
            if kind == "stat" and node not in by_node:
                kind = "unmodified"
            nodes.append((kind, name, by_node.get(node, [])))
    assert len(nodes) == len(wanted) and set(by_node) <= wanted, (rule.name, sorted(wanted - set(settle)))
    return Shape(steps, nodes, rolls, texts, _watches(module, steps), chains)


def _watches(module: StepNames, steps: list[Flat]) -> list[Watch]:
    """The inputs the steps read, each with every step reading it and the clause from which on it
    does; the note names the conditions of the first step that reads it, up to that clause."""
    places = [input_places(module.book, flat.effect) for flat in steps]
    readers: dict[str, list[int]] = {}
    for index, found in enumerate(places):
        for name in found:
            readers.setdefault(name, []).append(index)
    out = []
    for name, indexes in readers.items():
        reads = tuple((index, len(steps[index].outer) + places[index][name]) for index in indexes)
        first = steps[indexes[0]]
        conditions = first.texts + tuple(printer.condition_text(c) for c in first.effect.guard)
        needed = "; ".join(conditions[: reads[0][1]] or conditions)
        text = f"`{name}` had no effect: it is read only {needed}"
        out.append(Watch(name, reads, first.effect.origin, first.effect.cites, text))
    return out


class RuleWriter:
    """Writes the code of every rule of a book (the functions of each, and its `RuleCode`),
    through the module's writer; `functions` then names each rule's `_resolve_RULE` and
    `codes` its RuleCode constant."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self.book = module.book
        self.exprs: Expressions = module.exprs
        self.w = module.w
        self.functions: dict[str, str] = {}
        self.codes: dict[str, str] = {}
        self.watched: dict[str, list[Watch]] = {}
        """The inputs of each rule a note may say had no effect (gated watches)."""

    def emit(self, settle: list[str]) -> None:
        for rule in self.book.rules.values():
            self._rule(rule, shape_of(self.module, rule, settle))

    # ------------------------------------------------------------------ one rule

    def _rule(self, rule: m.Rule, shape: Shape) -> None:
        w = self.w
        private = self.module.private
        steps = shape.steps
        w.blank(2)
        w.line(f"# rule {rule.name}, written out")
        w.blank()
        traces = []  # each step's trace spec: its own, or with the clauses of the `as` around it
        for index, flat in enumerate(steps):
            if not flat.texts:
                traces.append(private.trace(flat.const))
                continue
            traces.append(private.written(rule.name, "trace", index + 1))
            texts = tuple_code([literal(x) for x in flat.texts])
            names = tuple_code([tuple_code([literal(x) for x in group]) for group in flat.names])
            w.call(f"{traces[-1]}: Final = within", [private.trace(flat.const), texts, names])
        said: dict[int, str] = {}
        for index in shape.texts:
            effect = steps[index].effect
            assert isinstance(effect, (m.CannotEffect, m.NoteEffect))
            said[index] = name = private.written(rule.name, "said", index + 1)
            maker = "restriction_of" if isinstance(effect, m.CannotEffect) else "note_of"
            w.line(f"{name}: Final = {maker}({steps[index].const})")
        notes: list[str] = []
        for number, watch in enumerate(shape.watches, start=1):
            name = private.written(rule.name, "unread", number)
            notes.append(name)
            w.call(f"{name}: Final = Note", [literal(watch.origin), literal(watch.cites), literal(watch.text), "kind='input'"])
        self.watched[rule.name] = [watch for watch in shape.watches if watch.gated]
        unread = {watch.name: note for watch, note in zip(shape.watches, notes, strict=True)}
        writing = _Writing(rule, shape, traces, said, unread)
        self._straight(writing)
        nodes = [(f"{kind} {name}", group) for kind, name, group in shape.nodes if kind in ("stat", "derive")]
        functions: dict[str, str] = {}
        for node, group in nodes:
            kind, _, name = node.partition(" ")
            functions[node] = private.written(rule.name, f"{kind}_{name}", 0)
            self._node(writing, functions[node], node, group)
        rolls = texts = "None"
        if shape.rolls:
            rolls = private.written(rule.name, "rolls", 0)
            self._node(writing, rolls, "rolls", shape.rolls)
        if shape.texts:
            texts = private.written(rule.name, "texts", 0)
            self._node(writing, texts, "texts", shape.texts)
        watches = [
            f"({literal(watch.name)}, {tuple_code([f'({step}, {clause})' for step, clause in watch.reads])}, {note})"
            for watch, note in zip(shape.watches, notes, strict=True)
        ]
        code = self.codes[rule.name] = private.written(rule.name, "code", 0)
        w.blank(2)
        w.line(f"{code}: Final = RuleCode(")
        w.indent()
        w.line(f"resolve={self.functions[rule.name]},")
        if functions:
            w.line("nodes=MappingProxyType({")
            w.indent()
            for node, function in functions.items():
                w.line(f"{literal(node)}: {function},")
            w.dedent()
            w.line("}),")
        else:
            w.line("nodes=MappingProxyType({}),")
        w.line(f"rolls={rolls},")
        w.line(f"texts={texts},")
        if watches:
            w.line("watches=(")
            w.indent()
            w.lines([x + "," for x in watches])
            w.dedent()
            w.line("),")
        w.line(f"chains={shape.chains},")
        w.dedent()
        w.line(")")

    # ------------------------------------------------------------------ the rule alone

    def _straight(self, writing: _Writing) -> None:
        rule = writing.rule
        w = self.w
        function = self.functions[rule.name] = self.module.private.written(rule.name, "resolve", 0)
        w.blank(2)
        w.line(f"def {function}(v: dict[str, Any], given: frozenset[str]) -> Resolution:")
        w.indent()
        w.docstring(
            f"{rule.title}: the rule alone, written out.\n\n"
            "`v`: every input's value, defaults filled in; `given`: the inputs told, of those a note\n"
            "may say had no effect.  `dN`: the clause of step N that did not hold, -1 when all held."
        )
        frame = Frame("")
        body = CodeWriter()
        body.indent()
        self._body(writing, frame, body)
        if "s" in frame.read or "e" in frame.read:
            w.line("e = Settled()")
        if "s" in frame.read or "trace" in frame.read:
            w.line("trace: list[TraceEntry] = []")
        if "s" in frame.read:  # a lookup or a roll reads the scope
            w.line("s = CachedScope(_BOOK, v, e, trace)")
        w.raw(body.source())
        w.dedent()

    def _body(self, writing: _Writing, frame: Frame, w: CodeWriter) -> None:
        rule, shape = writing.rule, writing.shape
        book = self.book
        steps = shape.steps
        mods = any(isinstance(f.effect, m.ModEffect) for f in steps)
        counting = {i for group in _groups(shape) if not _unique(steps, group) for i in group}
        applied = [i for kind, _, group in shape.nodes if kind == "stat" for i in group]
        ordered = applied == sorted(applied) and not (counting & set(applied))
        if mods:
            w.line(f"modifiers: list[{'Modifier' if ordered else 'tuple[int, Modifier]'}] = []")
        if any(kind != "base" for kind, _, _ in shape.nodes):
            frame.read.add("e")  # a stat or a derived value settles in it
        derives = any(kind == "derive" for kind, _, _ in shape.nodes)
        if derives:
            w.line("derived: dict[str, Value] = {}")
        held_declared = False
        for kind, name, group in shape.nodes:
            key = literal(name)
            if kind == "unmodified":
                w.line(f"e[{key}] = v[{key}]")
            elif kind == "base":
                formula = book.vars[name].default_expr
                assert formula is not None
                w.line(f"if v[{key}] is None:")
                w.indent()
                w.line(f"v[{key}] = whole({self.exprs.expression(formula, frame)})")
                w.dedent()
            elif set(group) & counting:
                self._counted(writing, frame, w, kind, name, group)
            elif kind == "stat":
                self._decide(steps, group, frame, w)
                if self._additive(name, [steps[i].effect for i in group]):
                    self._added(writing, frame, w, name, group, ordered)
                else:
                    self._settled(writing, frame, w, name, group, ordered, declare=not held_declared)
                    held_declared = True
            else:
                self._decide(steps, group, frame, w)
                for index in group:
                    self._traced(writing, frame, w, index)
                self._derive(writing, frame, w, key, group)
        if shape.rolls:
            if set(shape.rolls) & counting:
                w.line(f"rolls = rolls_counted(s, {self._candidates(writing, frame, w, 'rolls', shape.rolls)})")
            else:
                w.line("rolls: list[Roll] = []")
                self._decide(steps, shape.rolls, frame, w)
                for index in shape.rolls:
                    self._traced(writing, frame, w, index)
                    self._when(steps, index, w, f"rolls.append(roll_of(s, {steps[index].roll}))")
            frame.read.add("s")
        watched = [watch for watch in shape.watches if watch.gated]
        if set(shape.texts) & counting:
            candidates = self._candidates(writing, frame, w, "texts", shape.texts)
            w.line("restrictions: list[Restriction] = []")
            w.line("notes: list[Note] = []")
            w.line(f"texts_counted(s, {candidates}, restrictions, notes)")
            frame.read.add("s")
            restrictions_code, notes_code = "tuple(restrictions)", "tuple(notes)"
        else:
            conditional = [i for i in shape.texts if steps[i].clauses]
            self._decide(steps, conditional, frame, w)
            for index in conditional:
                self._traced(writing, frame, w, index)
            cannots = [i for i in shape.texts if isinstance(steps[i].effect, m.CannotEffect)]
            notes = [i for i in shape.texts if i not in cannots]
            restrictions_code = self._texts(writing, w, "restrictions", cannots, listed=False)
            notes_code = self._texts(writing, w, "notes", notes, listed=bool(watched))
        for watch in watched:
            unread_when = " and ".join(_unread(steps, index, at) for index, at in watch.reads)
            w.line(f"if {literal(watch.name)} in given and {unread_when}:")
            w.indent()
            w.line(f"notes.append({writing.unread[watch.name]})")
            w.dedent()
        order = {name: i for i, name in enumerate(book.vars)}
        reads = sorted(set(rule.reads), key=lambda k: order[k])
        if mods and not ordered:
            w.line("modifiers.sort(key=FIRST)  # in the order of their steps")
        traced = "trace" in frame.read or "s" in frame.read
        w.line("return Resolution(")
        w.indent()
        w.line(f"rulebook={literal(book.name)},")
        w.line(f"rules=({literal(rule.name)},),")
        _mapping(w, "inputs", [(x, f"v[{literal(x)}]") for x in reads])
        _mapping(w, "stats", [(x, f"e[{literal(x)}]") for x in reads if book.vars[x].is_stat])
        w.line(f"derived={'derived' if derives else '{}'},")
        if not mods:
            w.line("modifiers=(),")
        elif ordered:
            w.line("modifiers=tuple(modifiers),")
        else:
            w.line("modifiers=tuple(map(SECOND, modifiers)),")
        if not shape.rolls:
            w.line("rolls=(),")
        elif len(shape.rolls) == 1:
            w.line("rolls=tuple(rolls),")
        else:
            w.line("rolls=merge_rolls(s, rolls) if len(rolls) > 1 else tuple(rolls),")
        w.line(f"restrictions={restrictions_code},")
        w.line(f"notes={notes_code},")
        w.line("tables=(),")
        w.line(f"trace={'tuple(trace)' if traced else '()'},")
        if shape.chains:
            w.line("chains=chains_of(s, rolls, ()),")
        w.dedent()
        w.line(")")

    def _counted(self, writing: _Writing, frame: Frame, w: CodeWriter, kind: str, name: str, group: list[int]) -> None:
        """A value some of whose steps share a key (a part composed twice): its steps as
        candidates, counted by the runtime as for rules resolved together."""
        candidates = self._candidates(writing, frame, w, f"{kind} {name}", group)
        frame.read.add("s")
        if kind == "stat":
            w.line(f"e[{literal(name)}] = settle_counted(s, {literal(name)}, {candidates}, modifiers)")
        else:
            w.line(f"derive_counted(s, {literal(name)}, {candidates}, derived)")

    def _candidates(self, writing: _Writing, frame: Frame, w: CodeWriter, what: str, group: list[int]) -> str:
        """The steps of a group decided, as a list of candidates (the code of the list)."""
        self._decide(writing.shape.steps, group, frame, w)
        items = [self._candidate(writing, frame, what, index, str(index)) for index in group]
        name = f"steps{group[0] + 1}"
        w.line(f"{name}: list[Candidate] = [")
        w.indent()
        w.lines([item + "," for item in items])
        w.dedent()
        w.line("]")
        return name

    # ------------------------------------------------------------------ the rule among others

    def _node(self, writing: _Writing, function: str, what: str, group: list[int]) -> None:
        """The function deciding the rule's steps of one value (or its rolls, or its texts) as
        candidates, placed at the rule's place `at`."""
        w = self.w
        frame = Frame("")
        body = CodeWriter()
        body.indent()
        self._decide(writing.shape.steps, group, frame, body)
        for index in group:
            body.line(f"out.append({self._candidate(writing, frame, what, index, f'(at, {index})')})")
        w.blank(2)
        w.line(f"def {function}(s: Scope, at: int, out: list[Candidate]) -> None:")
        w.indent()
        if "v" in frame.read:
            w.line("v = s.v")
        if "e" in frame.read:
            w.line("e = s.e")
        w.raw(body.source())
        w.dedent()

    def _candidate(self, writing: _Writing, frame: Frame, what: str, index: int, place: str) -> str:
        """A step as a candidate: (place, key, decided, trace, spec, what it gives)."""
        flat = writing.shape.steps[index]
        effect = flat.effect
        decided = _decided(writing.shape.steps, index)
        trace = writing.traces[index]
        given = "None"
        if isinstance(effect, m.ModEffect):
            code, constant = self.exprs.amount(effect, frame)
            given = code if constant else f"lambda: {code}"  # worked out once traced, as a rule alone does
        elif isinstance(effect, m.DeriveEffect):
            given = f"lambda: {self.exprs.expression(effect.value, frame)}"
        elif isinstance(effect, m.RollEffect):
            assert flat.roll is not None
            given = flat.roll
        else:
            given = writing.said[index]
            if not flat.clauses:
                trace = "None"
        return f"({place}, {literal(effect.key)}, {decided}, {trace}, {flat.const}, {given})"

    # ------------------------------------------------------------------ its public function

    def told(self, rule: str, reads: tuple[str, ...], params: list[str]) -> None:
        """The start of a rule's own function: when every value is one `resolve_rule` takes as it
        is (`accepted`: a whole number in range, a flag, a member; None for a value worked out
        from others), the rule's function is called with them at once; else `resolve_rule`
        checks them (and raises for the first it refuses)."""
        w = self.w
        tests = []
        for key, param in zip(reads, params, strict=True):
            var = self.book.vars[key]
            test = _plainly(var, param)
            if test is None:
                return  # a number, dice or text: always checked
            if var.default_expr is not None and var.default is not None:
                return  # None asks for the formula, which `resolve_rule` leaves to the default
            tests.append(f"({param} is None or ({test}))" if var.default_expr is not None else test)
        given = [
            f"({literal(watch.name)}, {params[reads.index(watch.name)]}, {_default(self.book.vars[watch.name])})"
            for watch in self.watched[rule]
        ]
        if tests:
            w.line("if (")
            w.indent()
            for number, test in enumerate(tests):
                w.line(("and " if number else "") + test)
            w.dedent()
            w.line("):  # every value as it is told: the rule written out, at once")
            w.indent()
        values = [f"{literal(key)}: {param}" for key, param in zip(reads, params, strict=True)]
        one = "values = {" + ", ".join(["**_BOOK.defaults", *values]) + "}"
        if len(one) + 8 <= 99:
            w.line(one)
        else:
            w.line("values = {")
            w.indent()
            w.lines([item + "," for item in ["**_BOOK.defaults", *values]])
            w.dedent()
            w.line("}")
        changed = "changed(" + ", ".join(given) + ")" if given else "NOTHING"
        w.line(f"return {self.functions[rule]}(values, {changed})")
        if tests:
            w.dedent()

    # ------------------------------------------------------------------ pieces

    def _derive(self, writing: _Writing, frame: Frame, w: CodeWriter, key: str, group: list[int]) -> None:
        """A derived value: that of the first step whose clauses hold; when none holds, worked out
        (by the first) only if something reads it."""
        steps = writing.shape.steps
        for position, index in enumerate(group):
            effect = steps[index].effect
            assert isinstance(effect, m.DeriveEffect)
            condition = _holds(steps, index)
            if condition != "True":
                w.line(f"{'if' if position == 0 else 'elif'} {condition}:")
            elif position > 0:
                w.line("else:")
            if condition != "True" or position > 0:
                w.indent()
            w.line(f"e[{key}] = derived[{key}] = whole({self.exprs.expression(effect.value, frame)})")
            if condition != "True" or position > 0:
                w.dedent()
            if condition == "True":
                return
        first = steps[group[0]].effect
        assert isinstance(first, m.DeriveEffect)
        w.line("else:")
        w.indent()
        w.line(f"e.wait({key}, lambda: whole({self.exprs.expression(first.value, frame)}))")
        w.dedent()

    def _decide(self, steps: list[Flat], group: list[int], frame: Frame, w: CodeWriter) -> None:
        """`dN = ...` for each step of a group with clauses: which clause did not hold."""
        exprs = self.exprs
        for index in group:
            clauses = steps[index].clauses
            if not clauses:
                continue
            d = f"d{index + 1}"
            if len(clauses) == 1:
                w.line(f"{d} = -1 if {exprs.holds(clauses[0], frame)} else 0")
                continue
            for position, clause in enumerate(clauses):
                w.line(f"{'if' if position == 0 else 'elif'} {exprs.fails(clause, frame)}:")
                w.indent()
                w.line(f"{d} = {position}")
                w.dedent()
            w.line("else:")
            w.indent()
            w.line(f"{d} = -1")
            w.dedent()

    def _traced(self, writing: _Writing, frame: Frame, w: CodeWriter, index: int) -> None:
        frame.read |= {"trace", "e"}
        w.line(f"trace.append(TraceEntry({writing.traces[index]}, {_decided(writing.shape.steps, index)}, v, e))")

    def _when(self, steps: list[Flat], index: int, w: CodeWriter, *lines: str) -> None:
        """Lines run when a step's clauses hold."""
        condition = _holds(steps, index)
        if condition == "True":
            w.lines(list(lines))
            return
        w.line(f"if {condition}:")
        w.indent()
        w.lines(list(lines))
        w.dedent()

    def _settled(
        self,
        writing: _Writing,
        frame: Frame,
        w: CodeWriter,
        stat: str,
        group: list[int],
        ordered: bool,
        *,
        declare: bool,
    ) -> None:
        """A stat whose modifiers do more than add: those that hold, settled by `settle_held`
        (`declare`: the first such stat of the rule, whose lists are annotated)."""
        steps = writing.shape.steps
        key = literal(stat)
        w.line("held: list[tuple[ModSpec, Any]] = []" if declare else "held = []")
        if not ordered:
            w.line("where: list[int] = []" if declare else "where = []")
        for index in group:
            effect = steps[index].effect
            assert isinstance(effect, m.ModEffect)
            code, _ = self.exprs.amount(effect, frame)
            self._traced(writing, frame, w, index)
            lines = [f"held.append(({steps[index].const}, {code}))"]
            if not ordered:
                lines.append(f"where.append({index})")
            self._when(steps, index, w, *lines)
        where = "" if ordered else ", where"
        w.line(f"e[{key}] = settle_held(_BOOK, {key}, v[{key}], held, modifiers{where})")

    def _additive(self, stat: str, effects: list[m.Effect]) -> bool:
        """Every modifier of the stat adds and counts (`_added` holds whichever hold)."""
        book = self.book
        var = book.vars[stat]
        if not isinstance(var.type, t.Numeric) or var.type.kind not in ("int", "number", "percent"):
            return False
        order = book.stat_orders.get(stat)
        if order is not None and "additions" not in order.kinds:
            return False
        for effect in effects:
            assert isinstance(effect, m.ModEffect)
            if effect.op != "add":
                return False
            group = book.groups.get(effect.group) if effect.group else None
            if group is not None and group.stacking != "cumulative":
                return False
        return True

    def _added(self, writing: _Writing, frame: Frame, w: CodeWriter, stat: str, group: list[int], ordered: bool) -> None:
        """A stat whose modifiers add: the base, plus each amount that holds."""
        steps = writing.shape.steps
        key = literal(stat)
        type_ = self.book.vars[stat].type
        assert isinstance(type_, t.Numeric)
        w.line(f"value = v[{key}]")
        for index in group:
            effect = steps[index].effect
            assert isinstance(effect, m.ModEffect)
            code, constant = self.exprs.amount(effect, frame)
            self._traced(writing, frame, w, index)
            condition = _holds(steps, index)
            if condition != "True":
                w.line(f"if {condition}:")
                w.indent()
            made = f"Modifier({steps[index].const}, {code if constant else 'whole(amount)'}, 'applied', None)"
            if not ordered:
                made = f"({index}, {made})"
            if constant:
                w.line(f"value -= {code[1:]}" if code[:1] == "-" and code[1:].isdigit() else f"value += {code}")
            else:
                w.line(f"amount = {code}")
                w.line("value += amount")
            w.line(f"modifiers.append({made})")
            if condition != "True":
                w.dedent()
        conditions = [_holds(steps, i) for i in group]
        held = "True" if "True" in conditions else " or ".join(conditions)
        w.line(f"e[{key}] = value if type(value) is int else added_total(value, {literal(type_.kind)}, {held})")

    def _texts(self, writing: _Writing, w: CodeWriter, name: str, indexes: list[int], *, listed: bool) -> str:
        """The restrictions or notes: a constant tuple when none has a condition (and nothing is
        added after), else a list built here; returns the expression the Resolution takes."""
        steps = writing.shape.steps
        conditional = [i for i in indexes if steps[i].clauses]
        if not conditional and not listed:
            return tuple_code([writing.said[i] for i in indexes])
        fixed = [writing.said[i] for i in indexes if i not in conditional]
        annotation = "Restriction" if name == "restrictions" else "Note"
        if fixed and not conditional:
            w.line(f"{name}: list[{annotation}] = [{', '.join(fixed)}]")
        else:
            w.line(f"{name}: list[{annotation}] = []")
            for index in indexes:
                self._when(steps, index, w, f"{name}.append({writing.said[index]})")
        return f"tuple({name})"


@dataclass(frozen=True)
class _Writing:
    """What the code of a rule refers to: its shape and the constants written for it (each step's
    trace spec, each text's note or restriction, each watched input's note)."""

    rule: m.Rule
    shape: Shape
    traces: list[str]
    said: dict[int, str]
    unread: dict[str, str]


def _groups(shape: Shape) -> list[list[int]]:
    return [group for kind, _, group in shape.nodes if group] + [shape.rolls, shape.texts]


def _unique(steps: list[Flat], group: list[int]) -> bool:
    return len({steps[i].effect.key for i in group}) == len(group)


def _decided(steps: list[Flat], index: int) -> str:
    return f"d{index + 1}" if steps[index].clauses else "-1"


def _holds(steps: list[Flat], index: int) -> str:
    return f"d{index + 1} < 0" if steps[index].clauses else "True"


def _unread(steps: list[Flat], index: int, at: int) -> str:
    """The step did not read the input: a clause before clause `at` did not hold."""
    d = _decided(steps, index)
    if d == "-1":
        return "False"
    return f"{d} == 0" if at == 1 else f"0 <= {d} < {at}"


def _mapping(w: CodeWriter, name: str, items: list[tuple[str, str]]) -> None:
    if not items:
        w.line(f"{name}={{}},")
        return
    one = f"{name}={{" + ", ".join(f"{literal(k)}: {code}" for k, code in items) + "},"
    if len(one) + 8 <= 99:  # inside `return Resolution(` of a function
        w.line(one)
        return
    w.line(f"{name}={{")
    w.indent()
    for k, code in items:
        w.line(f"{literal(k)}: {code},")
    w.dedent()
    w.line("},")


def _plainly(var: m.Var, param: str) -> str | None:
    """The test that a value is one `accepted` takes as it is, or None for a kind it never does."""
    kind = var.type
    if isinstance(kind, t.Flag):
        return f"type({param}) is bool"
    if isinstance(kind, t.Enum):
        return f"type({param}) is str and {param} in {tuple_code([literal(x) for x in kind.members])}"
    if isinstance(kind, t.Numeric) and kind.kind in ("int", "percent"):
        low, high = kind.low, kind.high
        if low is None or high is None or low.denominator != 1 or high.denominator != 1:
            return None
        if max(abs(low), abs(high)).numerator.bit_length() > MAX_BITS:
            return None
        return f"type({param}) is int and {low.numerator} <= {param} <= {high.numerator}"
    return None


def _default(var: m.Var) -> str:
    """An input's default, as the runtime holds it (a flag's, a member's, a whole number's)."""
    value = var.default
    if value is None or isinstance(value, (bool, str)):
        return literal(value)
    assert isinstance(value, (int, Fraction)) and Fraction(value).denominator == 1, value
    return str(int(value))
