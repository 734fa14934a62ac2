"""Straight-line resolvers: a rule's situation worked out by plain code.

A generated module describes each rule as data (dsl/emitter.py) that the runtime's `_Plan`
reads on every call.  For a rule whose plan has a simple shape, this writes the same work out
as one function, `_resolve_RULE(v, given)`, that a reviewer reads top to bottom:

- the values settle in the plan's order (`Book.nodes_of`); a stat's modifiers are decided
  first, all of them (a condition that looks a row up is traced where it is met), then traced,
  and those that hold apply: by plain addition when every modifier of the stat is one that
  counts, else through `settle_held` (stacking groups, grades, sets, orders);
- the decided clause of each step is a local (`d3`), -1 when every clause held;
- trace specs, notes, restrictions and the "had no effect" notes are module constants;
- rolls are made by `roll_of` (their chances looked up once worked out);
- modifiers that settle out of the order of their steps are put in it at the end.

The rule's own function calls it at once when every value is one `resolve_rule` takes as it is
(`told`), and `resolve_rule` and `resolve_with` call it for the rule alone.  What it returns is
what `_Plan.resolve` returns (tests/test_straight_line.py holds the two and the reference
`_Situation` equal on grids of every rule of every bundled book).  A rule outside that shape
keeps going through the plan: one that composes a part twice (steps of one key), whose roll
sends on to a table (a chain), that runs over rounds, or of more than MAX_STEPS steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from dsl import model as m
from dsl import printer
from dsl import types as t
from dsl.runtime.base import MAX_BITS
from dsl.writer import CodeWriter, literal

if TYPE_CHECKING:
    from dsl.emitter import Emitter

MAX_STEPS = 60
"""The most steps (composed parts in place) a rule may have to be written out straight: beyond
that a function would be long to read and slow to import, and the plan does as well."""


@dataclass(frozen=True)
class Flat:
    """One step of a rule, the parts it composes in place: its effect, the constant of its spec,
    the clauses of the `as` statements around it (outermost first), as written and the names
    each reads."""

    effect: m.Effect
    const: str
    outer: tuple[m.Condition, ...]
    texts: tuple[str, ...]
    names: tuple[tuple[str, ...], ...]


@dataclass
class Shape:
    """What the plan of a rule alone is made of, found when compiling."""

    steps: list[Flat]
    nodes: list[tuple[str, str, list[int]]]  # kind (base, stat, unmodified, derive), name, steps
    rolls: list[int]
    texts: list[int]
    ordered: bool
    """The modifiers apply in the order of their steps (else they are put in it at the end)."""
    gated: list[tuple[str, list[tuple[int, int]], str, str | None, str]] = field(default_factory=list)
    """Inputs a note may say had no effect: name, (step, clause from which it is read), and the
    note's rule, source and text."""


def flat_steps(emitter: Emitter, rule: str) -> list[Flat] | None:
    """The steps of a rule as `Book.steps_of` lists them; None past MAX_STEPS."""
    out: list[Flat] = []
    stack: list[tuple[str, int, tuple[m.Condition, ...], tuple[str, ...], tuple[tuple[str, ...], ...]]] = [
        (rule, 0, (), (), ())
    ]
    while stack:
        key, at, outer, texts, names = stack.pop()
        effects = emitter.book.parts[key].effects
        if at >= len(effects):
            continue
        stack.append((key, at + 1, outer, texts, names))
        effect = effects[at]
        if isinstance(effect, m.PartEffect):
            said = tuple(printer.condition_text(c) for c in effect.guard)
            read = tuple(tuple(emitter.names_read(c.expr)) for c in effect.guard)
            stack.append((effect.part, 0, outer + effect.guard, texts + said, names + read))
            continue
        const = emitter.consts[key][at]
        assert const is not None
        out.append(Flat(effect, const, outer, texts, names))
        if len(out) > MAX_STEPS:
            return None
    return out


def shape_of(emitter: Emitter, rule: m.Rule, settle: list[str]) -> Shape | None:
    """The shape of a rule's plan, or None when the rule keeps going through the plan."""
    if rule.sequence is not None or rule.name not in emitter.book.parts:
        return None
    steps = flat_steps(emitter, rule.name)
    if steps is None:
        return None
    book = emitter.book
    by_node: dict[str, list[int]] = {}
    rolls: list[int] = []
    texts: list[int] = []
    for index, flat in enumerate(steps):
        effect = flat.effect
        if isinstance(effect, m.ModEffect):
            by_node.setdefault("stat " + effect.target, []).append(index)
        elif isinstance(effect, m.DeriveEffect):
            by_node.setdefault("derive " + effect.name, []).append(index)
        elif isinstance(effect, m.RollEffect):
            if any(o.step is not None for o in effect.outcomes):
                return None  # a chain: its procedure is worked out by `chains_of`
            rolls.append(index)
        else:
            texts.append(index)
    for group in [*by_node.values(), rolls, texts]:
        if len({steps[i].effect.key for i in group}) != len(group):
            return None  # a part composed twice: of the steps of one key, the first that holds counts
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
    if len(nodes) != len(wanted):
        return None
    if any(node not in wanted for node in by_node):
        return None  # a step settles a value the plan does not (never met in a checked book)
    applied = [i for kind, _, group in nodes if kind == "stat" for i in group]
    shape = Shape(steps, nodes, rolls, texts, ordered=applied == sorted(applied))
    shape.gated = _gated(emitter, steps)
    return shape


def _gated(emitter: Emitter, steps: list[Flat]) -> list[tuple[str, list[tuple[int, int]], str, str | None, str]]:
    """The runtime's `_gated`, when compiling."""
    places = [emitter.read_places(flat.effect) for flat in steps]
    readers: dict[str, list[int]] = {}
    for index, found in enumerate(places):
        for name in found:
            readers.setdefault(name, []).append(index)
    out = []
    for name, indexes in readers.items():
        reads = [(index, len(steps[index].outer) + places[index][name]) for index in indexes]
        first = steps[indexes[0]]
        conditions = first.texts + tuple(printer.condition_text(c) for c in first.effect.guard)
        needed = "; ".join(conditions[: reads[0][1]] or conditions)
        text = f"`{name}` had no effect: it is read only {needed}"
        if all(at > 0 for _, at in reads):
            out.append((name, reads, first.effect.origin, first.effect.cites, text))
    return out


class StraightLine:
    """Writes the straight-line resolvers of a book's rules, through the emitter's writer."""

    def __init__(self, emitter: Emitter) -> None:
        self.emitter = emitter
        self.w = emitter.w
        self.written: dict[str, str] = {}
        """Each rule written out, with its function."""
        self.ordered = True
        """The rule being written applies its modifiers in the order of their steps."""
        self.gated: dict[str, list[tuple[str, list[tuple[int, int]], str, str | None, str]]] = {}
        """The inputs of each rule written out a note may say had no effect (`Shape.gated`)."""
        self.uses: set[str] = set()
        """The locals the rule being written reads: `s`, `e`, `trace` (made only when read)."""

    def emit(self, settle: list[str]) -> None:
        book = self.emitter.book
        for rule in book.rules.values():
            shape = shape_of(self.emitter, rule, settle)
            if shape is not None:
                self._rule(rule, shape)
                self.gated[rule.name] = shape.gated

    # ------------------------------------------------------------------ one rule

    def _rule(self, rule: m.Rule, shape: Shape) -> None:
        e = self.emitter
        w = self.w
        private = e.private
        function = private.written(rule.name, "resolve", 0)
        self.written[rule.name] = function
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
            w.line(
                f"{name}: Final = {'restriction_of' if isinstance(effect, m.CannotEffect) else 'note_of'}({steps[index].const})"
            )
        unread: list[str] = []
        for number, (_, _, origin, cites, text) in enumerate(shape.gated, start=1):
            name = private.written(rule.name, "unread", number)
            unread.append(name)
            w.call(f"{name}: Final = Note", [literal(origin), literal(cites), literal(text), "kind='input'"])
        if any(flat.texts for flat in steps) or shape.texts or shape.gated:  # constants written above
            w.blank(2)
        else:
            w.line("")  # after the header's blank line
        w.line(f"def {function}(v: dict[str, Any], given: frozenset[str]) -> Resolution:")
        w.indent()
        w.docstring(
            f"{rule.title}: the plan of the rule alone (`_Plan.resolve`), written out.\n\n"
            "`v`: every input's value, defaults filled in; `given`: the inputs told, of those a note\n"
            "may say had no effect.  `dN`: the clause of step N that did not hold, -1 when all held."
        )
        old_scope, old_writer = e.scope, self.w
        e.scope = ""
        e.read = self.uses = set()
        self.w = body = CodeWriter()
        body.indent()
        try:
            self._body(rule, shape, traces, said, unread)
        finally:
            e.scope, self.w = old_scope, old_writer
        if "s" in self.uses or "e" in self.uses:
            w.line("e = Settled()")
        if "s" in self.uses or "trace" in self.uses:
            w.line("trace: list[TraceEntry] = []")
        if "s" in self.uses:  # a lookup or a roll reads the scope
            w.line("s = CachedScope(_BOOK, v, e, trace)")
        w.raw(body.source())
        w.dedent()

    def _body(self, rule: m.Rule, shape: Shape, traces: list[str], said: dict[int, str], unread: list[str]) -> None:
        e = self.emitter
        w = self.w
        book = e.book
        steps = shape.steps
        mods = any(isinstance(f.effect, m.ModEffect) for f in steps)
        if mods:
            w.line(f"modifiers: list[{'Modifier' if shape.ordered else 'tuple[int, Modifier]'}] = []")
        self.ordered = shape.ordered
        if any(kind != "base" for kind, _, _ in shape.nodes):
            self.uses.add("e")  # a stat or a derived value settles in it
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
                w.line(f"v[{key}] = whole({e.expression(formula)})")
                w.dedent()
            elif kind == "stat":
                self._decide(group, steps)
                if self._additive(name, [steps[i].effect for i in group]):
                    self._added(name, group, steps, traces)
                else:
                    self._settled(name, group, steps, traces, declare=not held_declared)
                    held_declared = True
            else:
                self._decide(group, steps)
                for index in group:
                    self._traced(index, steps, traces)
                self._derive(key, group, steps)
        if shape.rolls:
            w.line("rolls: list[Roll] = []")
            self._decide(shape.rolls, steps)
            for index in shape.rolls:
                self._traced(index, steps, traces)
                part = self._step_of(steps[index])
                self._when(index, steps, f"rolls.append(roll_of(s, {part}))")
                self.uses.add("s")
        conditional_texts = [i for i in shape.texts if steps[i].outer or steps[i].effect.guard]
        self._decide(conditional_texts, steps)
        for index in conditional_texts:
            self._traced(index, steps, traces)
        cannots = [i for i in shape.texts if isinstance(steps[i].effect, m.CannotEffect)]
        notes = [i for i in shape.texts if i not in cannots]
        restrictions_code = self._texts("restrictions", cannots, steps, said, listed=False)
        notes_code = self._texts("notes", notes, steps, said, listed=bool(shape.gated))
        for (name, places, _, _, _), note in zip(shape.gated, unread, strict=True):
            unread_when = " and ".join(self._unread(index, at, steps) for index, at in places)
            w.line(f"if {literal(name)} in given and {unread_when}:")
            w.indent()
            w.line(f"notes.append({note})")
            w.dedent()
        order = {name: i for i, name in enumerate(book.vars)}
        reads = sorted(set(rule.reads), key=lambda k: order[k])
        if mods and not shape.ordered:
            w.line("modifiers.sort(key=FIRST)  # in the order of their steps")
        traced = "trace" in self.uses or "s" in self.uses
        w.line("return Resolution(")
        w.indent()
        w.line(f"rulebook={literal(book.name)},")
        w.line(f"rules=({literal(rule.name)},),")
        self._mapping("inputs", [(x, f"v[{literal(x)}]") for x in reads])
        self._mapping("stats", [(x, f"e[{literal(x)}]") for x in reads if book.vars[x].is_stat])
        w.line(f"derived={'derived' if derives else '{}'},")
        if not mods:
            w.line("modifiers=(),")
        elif shape.ordered:
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
        w.dedent()
        w.line(")")

    # ------------------------------------------------------------------ its public function

    def told(self, rule: str, reads: tuple[str, ...], params: list[str]) -> None:
        """The start of a written-out rule's own function: when every value is one `resolve_rule`
        takes as it is (`_accepted`: a whole number in range, a flag, a member; None for a value
        worked out from others), the written-out function is called with them at once; else
        `resolve_rule` checks them (and raises for the first it refuses)."""
        e = self.emitter
        w = self.w
        tests = []
        for key, param in zip(reads, params, strict=True):
            var = e.book.vars[key]
            test = _plainly(var, param)
            if test is None:
                return  # a number, dice or text: always checked
            if var.default_expr is not None and var.default is not None:
                return  # None asks for the formula, which `resolve_rule` leaves to the default
            tests.append(f"({param} is None or ({test}))" if var.default_expr is not None else test)
        given = [
            f"({literal(name)}, {params[reads.index(name)]}, {_default(e.book.vars[name])})"
            for name, _, _, _, _ in self.gated[rule]
        ]
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
        w.line(f"return {self.written[rule]}(values, {'changed(' + ', '.join(given) + ')' if given else 'NOTHING'})")
        w.dedent()

    # ------------------------------------------------------------------ pieces

    def _derive(self, key: str, group: list[int], steps: list[Flat]) -> None:
        """A derived value: that of the first step whose clauses hold; when none holds, worked out
        (by the first) only if something reads it."""
        e = self.emitter
        w = self.w
        for position, index in enumerate(group):
            effect = steps[index].effect
            assert isinstance(effect, m.DeriveEffect)
            condition = self._holds(index, steps)
            if condition != "True":
                w.line(f"{'if' if position == 0 else 'elif'} {condition}:")
            elif position > 0:
                w.line("else:")
            if condition != "True" or position > 0:
                w.indent()
            w.line(f"e[{key}] = derived[{key}] = whole({e.expression(effect.value)})")
            if condition != "True" or position > 0:
                w.dedent()
            if condition == "True":
                return
        first = steps[group[0]].effect
        assert isinstance(first, m.DeriveEffect)
        w.line("else:")
        w.indent()
        w.line(f"e.wait({key}, lambda: whole({e.expression(first.value)}))")
        w.dedent()

    def _step_of(self, flat: Flat) -> str:
        """The runtime Step of a flat step: `_rule_PART[k]`, found by its spec constant."""
        e = self.emitter
        for key, consts in e.consts.items():
            if flat.const in consts:
                return f"{e.private.function(key)}[{consts.index(flat.const)}]"
        raise AssertionError(flat.const)

    def _clauses(self, flat: Flat) -> list[m.Condition]:
        return [*flat.outer, *flat.effect.guard]

    def _decide(self, group: list[int], steps: list[Flat]) -> None:
        """`dN = ...` for each step of a group with clauses: which clause did not hold."""
        e = self.emitter
        w = self.w
        for index in group:
            clauses = self._clauses(steps[index])
            if not clauses:
                continue
            d = f"d{index + 1}"
            if len(clauses) == 1:
                w.line(f"{d} = -1 if {e.holds(clauses[0])} else 0")
                continue
            for position, clause in enumerate(clauses):
                fails = e.code(clause.expr)[0] if clause.negated else e.negation(clause.expr)[0]
                w.line(f"{'if' if position == 0 else 'elif'} {fails}:")
                w.indent()
                w.line(f"{d} = {position}")
                w.dedent()
            w.line("else:")
            w.indent()
            w.line(f"{d} = -1")
            w.dedent()

    def _decided(self, index: int, steps: list[Flat]) -> str:
        return f"d{index + 1}" if self._clauses(steps[index]) else "-1"

    def _holds(self, index: int, steps: list[Flat]) -> str:
        return f"d{index + 1} < 0" if self._clauses(steps[index]) else "True"

    def _traced(self, index: int, steps: list[Flat], traces: list[str]) -> None:
        self.uses |= {"trace", "e"}
        self.w.line(f"trace.append(TraceEntry({traces[index]}, {self._decided(index, steps)}, v, e))")

    def _when(self, index: int, steps: list[Flat], *lines: str) -> None:
        """Lines run when a step's clauses hold."""
        condition = self._holds(index, steps)
        if condition == "True":
            self.w.lines(list(lines))
            return
        self.w.line(f"if {condition}:")
        self.w.indent()
        self.w.lines(list(lines))
        self.w.dedent()

    def _settled(self, stat: str, group: list[int], steps: list[Flat], traces: list[str], *, declare: bool) -> None:
        """A stat whose modifiers do more than add: those that hold, settled by `settle_held`
        (`declare`: the first such stat of the rule, whose lists are annotated)."""
        e = self.emitter
        w = self.w
        key = literal(stat)
        w.line("held: list[tuple[ModSpec, Any]] = []" if declare else "held = []")
        if not self.ordered:
            w.line("where: list[int] = []" if declare else "where = []")
        for index in group:
            effect = steps[index].effect
            assert isinstance(effect, m.ModEffect)
            code, _ = e.amount(effect)
            self._traced(index, steps, traces)
            lines = [f"held.append(({steps[index].const}, {code}))"]
            if not self.ordered:
                lines.append(f"where.append({index})")
            self._when(index, steps, *lines)
        where = "" if self.ordered else ", where"
        w.line(f"e[{key}] = settle_held(_BOOK, {key}, v[{key}], held, modifiers{where})")

    def _additive(self, stat: str, effects: list[m.Effect]) -> bool:
        """Every modifier of the stat adds and counts (`_added` holds whichever hold)."""
        book = self.emitter.book
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

    def _added(self, stat: str, group: list[int], steps: list[Flat], traces: list[str]) -> None:
        """A stat whose modifiers add: the base, plus each amount that holds."""
        e = self.emitter
        w = self.w
        key = literal(stat)
        type_ = e.book.vars[stat].type
        assert isinstance(type_, t.Numeric)
        kind = type_.kind
        w.line(f"value = v[{key}]")
        for index in group:
            effect = steps[index].effect
            assert isinstance(effect, m.ModEffect)
            code, constant = e.amount(effect)
            self._traced(index, steps, traces)
            condition = self._holds(index, steps)
            if condition != "True":
                w.line(f"if {condition}:")
                w.indent()
            made = f"Modifier({steps[index].const}, {code if constant else 'whole(amount)'}, 'applied', None)"
            if not self.ordered:
                made = f"({index}, {made})"
            if constant:
                w.line(f"value -= {code[1:]}" if code[:1] == "-" and code[1:].isdigit() else f"value += {code}")
            else:
                w.line(f"amount = {code}")
                w.line("value += amount")
            w.line(f"modifiers.append({made})")
            if condition != "True":
                w.dedent()
        conditions = [self._holds(i, steps) for i in group]
        held = "True" if "True" in conditions else " or ".join(conditions)
        w.line(f"e[{key}] = value if type(value) is int else added_total(value, {literal(kind)}, {held})")

    def _texts(self, name: str, indexes: list[int], steps: list[Flat], said: dict[int, str], *, listed: bool) -> str:
        """The restrictions or notes: a constant tuple when none has a condition (and nothing is
        added after), else a list built here; returns the expression the Resolution takes."""
        conditional = [i for i in indexes if self._clauses(steps[i])]
        if not conditional and not listed:
            return tuple_code([said[i] for i in indexes])
        w = self.w
        fixed = [said[i] for i in indexes if i not in conditional]
        annotation = "Restriction" if name == "restrictions" else "Note"
        if fixed and not conditional:
            w.line(f"{name}: list[{annotation}] = [{', '.join(fixed)}]")
        else:
            w.line(f"{name}: list[{annotation}] = []")
            for index in indexes:
                self._when(index, steps, f"{name}.append({said[index]})")
        return f"tuple({name})"

    def _unread(self, index: int, at: int, steps: list[Flat]) -> str:
        """The step did not read the input: a clause before clause `at` did not hold."""
        d = self._decided(index, steps)
        if d == "-1":
            return "False"
        return f"{d} == 0" if at == 1 else f"0 <= {d} < {at}"

    def _mapping(self, name: str, items: list[tuple[str, str]]) -> None:
        w = self.w
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
    """The test that a value is one `_accepted` takes as it is, or None for a kind it never does."""
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


def text_kind(effect: m.CannotEffect | m.NoteEffect) -> str:
    if isinstance(effect, m.CannotEffect):
        return "cannot"
    return "erratum" if effect.quote else "note"


def trace_item(effect: m.Effect) -> str:
    """What the trace calls an effect (and the specs of its step)."""
    if isinstance(effect, m.ModEffect):
        return printer.modifier_text(effect)
    if isinstance(effect, m.RollEffect):
        return f"roll {effect.name}"
    if isinstance(effect, m.DeriveEffect):
        return f"derive {effect.name}"
    if isinstance(effect, m.PartEffect):
        return f"as {effect.rule}"
    assert isinstance(effect, (m.CannotEffect, m.NoteEffect))
    kind = text_kind(effect)
    return f"cannot {effect.text}" if kind == "cannot" else f"{kind}: {effect.text}"


def tuple_code(items: list[str]) -> str:
    """A tuple of the items (code) as Python writes it: `()`, `(a,)`, `(a, b)`."""
    if not items:
        return "()"
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
