"""The reference resolver: what a situation resolves to, worked out from the checked model.

This is the language's meaning written as plainly as it can be (docs/language.md sections 8-11):
it reads the model (rules, parts, effects, tables) directly, evaluates expressions with
dsl/semantics/values.py, settles each stat by the documented order of modifiers, each value when
first needed, and works the trace, the chains and the sequences out on its own
(dsl/semantics/trace.py, chains.py, sequences.py).  It is not what apps run: they import the
generated module, whose code is written for speed.  The tests resolve random situations of every
rule of every bundled rulebook both ways and require the same Resolution, field for field
(tests/semantics/test_semantics.py).

Shared with the generated code are only the value and result types of the runtime
(dsl/runtime/), the notation of dice, and the dice distributions (checked against an exhaustive
enumeration of their own and against icepool).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from types import MappingProxyType
from typing import Any, cast, overload

from dsl import model as m
from dsl import nodes as n
from dsl import printer
from dsl import types as t
from dsl.runtime.base import Special, Status, round_value, show
from dsl.runtime.dice import Dice, Distribution, Value, distribution, pool_dice, pool_text
from dsl.runtime.pools import showing_within
from dsl.runtime.results import (
    Consequence,
    Modifier,
    Note,
    Resolution,
    Restriction,
    Roll,
    TableResult,
    TableRow,
    TraceEntry,
)
from dsl.runtime.rolls import merged_rolls
from dsl.runtime.specs import ModSpec, RollSpec, TraceSpec
from dsl.semantics.chains import chains_of
from dsl.semantics.sequences import over_rounds
from dsl.semantics.trace import Step, trace_of
from dsl.semantics.trace import counted as counted_steps
from dsl.semantics.values import NoValue, Specials, evaluate, number, row_for

Pool = tuple[int, int, str | None]


@dataclass
class _Registered:
    """An effect a situation reaches, with the conditions of every `as` on the way to it, and its
    place among the situation's steps."""

    effect: m.Effect
    outer: tuple[m.Condition, ...]
    place: int = 0


@dataclass
class Situation:
    """One situation: the rules applied, the values given, and what has been worked out."""

    book: m.Book
    rules: tuple[str, ...]
    values: dict[str, Any]
    effects: list[_Registered] = field(default_factory=list)
    effective: dict[str, Value] = field(default_factory=dict)
    modifiers: dict[str, list[tuple[int, Modifier]]] = field(default_factory=dict)
    derived: dict[str, Value] = field(default_factory=dict)
    settling: set[str] = field(default_factory=set)
    formulas: frozenset[str] = frozenset()
    """The values given none, whose formula works them out (`stat to_hit = DEX`)."""

    def __post_init__(self) -> None:
        self.formulas = frozenset(
            name for name, var in self.book.vars.items() if var.default_expr is not None and self.values.get(name) is None
        )

    def given_base(self, name: str) -> bool:
        """The value of `name` was given (else its formula works it out)."""
        return name not in self.formulas

    def modifier_list(self, steps: Sequence[Step]) -> list[Modifier]:
        """The modifiers of every stat settled, in the order of the steps they come from."""
        return [modifier for _, modifier in sorted(x for found in self.modifiers.values() for x in found)]

    # -- the environment of expressions (values.Env)

    def value(self, ref: m.Ref) -> Value:
        if ref.kind == "stat":
            return self.stat(ref.name)
        if ref.kind == "derive":
            return self.derive(ref.name)
        if ref.kind in ("input", "base"):
            return self.base(ref.name)
        raise NoValue(f"`{ref.name}` has no value here")

    def lookup(self, table: str, keys: tuple[Value, ...], column: str) -> Value:
        spec = self.book.tables[table]
        row = row_for(spec, keys[0])
        if row is None:
            raise NoValue(f"table `{table}` has no row for {show(keys[0])}")
        index = [c for c, _ in spec.columns].index(str(keys[1]) if spec.two_dimensional else column)
        return self.cell(row.cells[index])

    def cell(self, cell: m.TableCell) -> Value:
        if cell.kind == "impassable":
            return Special("X")
        if cell.kind == "na":
            return Special("N/A")
        if cell.kind == "step":
            return ""
        assert cell.value is not None
        return self.eval(cell.value)

    def eval(self, expr: n.Expr) -> Value:
        return evaluate(expr, self.book, self)

    def holds(self, guard: tuple[m.Condition, ...]) -> bool:
        return all(bool(self.eval(c.expr)) != c.negated for c in guard)

    # -- values

    def base(self, name: str) -> Value:
        """An input's value, or a stat's before its modifiers: given, or its default (which may be
        a formula of other values, worked out when first read)."""
        if self.values.get(name) is None:
            var = self.book.vars[name]
            assert var.default_expr is not None
            self.values[name] = self.eval(var.default_expr)
        value: Value = self.values[name]
        return value

    def derive(self, name: str) -> Value:
        """A derived value: of the first `derive` of the name whose conditions hold (the first
        written, when none holds)."""
        if name not in self.derived:
            options = [r for r in self.effects if isinstance(r.effect, m.DeriveEffect) and r.effect.name == name]
            chosen = next((r for r in options if self._holds(r)), options[0])
            assert isinstance(chosen.effect, m.DeriveEffect)
            self.derived[name] = self.eval(chosen.effect.value)
        return self.derived[name]

    def stat(self, name: str) -> Value:
        if name not in self.effective:
            if name in self.settling:  # the checker rules cycles out (E601)
                raise NoValue(f"`{name}` depends on itself")
            self.settling.add(name)
            self.effective[name] = self._settle(name)
        return self.effective[name]

    def _holds(self, registered: _Registered) -> bool:
        return self.holds(registered.outer) and self.holds(registered.effect.guard)

    def counted(
        self, kind: type[m.Effect] | tuple[type[m.Effect], ...], target: str | None = None
    ) -> list[tuple[_Registered, bool]]:
        """The effects of a kind (modifiers: of one stat), each key once, in the order they
        count: the first registration whose conditions hold counts, where it is met; a key none
        of whose registrations holds appears once, as not applied, where it is first met."""
        where: dict[str, int] = {}
        out: list[tuple[_Registered, bool] | None] = []
        for registered in self.effects:
            effect = registered.effect
            if not isinstance(effect, kind) or (target is not None and getattr(effect, "target", None) != target):
                continue
            index = where.get(effect.key)
            earlier = out[index] if index is not None else None
            if earlier is not None and earlier[1]:
                continue
            holds = self._holds(registered)
            if earlier is not None:
                if not holds:
                    continue
                out[where[effect.key]] = None
            where[effect.key] = len(out)
            out.append((registered, holds))
        return [x for x in out if x is not None]

    # -- settling a stat: docs/language.md, "The order in which modifiers apply"

    def _settle(self, name: str) -> Value:
        var = self.book.vars[name]
        held = [(r, holds) for r, holds in self.counted(m.ModEffect, name) if holds and isinstance(r.effect, m.ModEffect)]
        mods = [(cast(m.ModEffect, r.effect), self._amount(cast(m.ModEffect, r.effect))) for r, _ in held]
        places = [r.place for r, _ in held]
        base = self.base(name)
        if not mods:
            return base
        statuses = self._stacking(var, base, mods)
        counted = [(i, mod) for i, mod in enumerate(mods) if statuses[i][0] == "applied"]
        inner: list[tuple[Status, str | None]] = [("applied", None)] * len(counted)
        value = self._apply(var, base, [mod for _, mod in counted], inner)
        for (i, _), status in zip(counted, inner, strict=True):
            statuses[i] = status
        self.modifiers[name] = [
            (place, Modifier(_mod_spec(self.book, e), a, s, why))
            for place, (e, a), (s, why) in zip(places, mods, statuses, strict=True)
        ]
        return value

    def _apply(
        self, var: m.Var, base: Value, mods: list[tuple[m.ModEffect, Value]], statuses: list[tuple[Status, str | None]]
    ) -> Value:
        """A stat's value from its base and the modifiers that count, in the order of its kind."""
        if not mods:
            return base
        order = self.book.stat_orders.get(var.name)
        if isinstance(var.type, t.Numeric):
            return self._numeric(var.type, base, mods, statuses, order)
        if isinstance(var.type, t.Dice):
            return self._dice(base, mods, statuses, order)
        if isinstance(var.type, t.Enum) and var.type.ordered:
            return self._levels(var.type, base, mods, statuses)
        for i in range(len(mods) - 1):
            statuses[i] = ("overridden", _by(mods[-1][0]))
        return mods[-1][1]

    def _stacking(
        self, var: m.Var, base: Value, mods: list[tuple[m.ModEffect, Value]]
    ) -> list[tuple[Status, str | None]]:
        """Docs, "Stacking groups": of the modifiers of one group that apply to a stat, one counts,
        judged by its effect alone on the stat (its size for `strongest`, the value it leaves for
        `highest` and `lowest`); on a tie, the first."""
        statuses: list[tuple[Status, str | None]] = [("applied", None)] * len(mods)
        members: dict[str, list[int]] = {}
        for i, (effect, _) in enumerate(mods):
            group = self.book.groups.get(effect.group) if effect.group else None
            if group is not None and group.stacking != "cumulative":
                members.setdefault(group.name, []).append(i)
        start = _worth(var, base)
        for name, indexes in members.items():
            stacking = self.book.groups[name].stacking
            best = indexes[0]
            for i in indexes[1:]:
                mine = _worth(var, self._apply(var, base, [mods[i]], [("applied", None)]))
                theirs = _worth(var, self._apply(var, base, [mods[best]], [("applied", None)]))
                better = {
                    "highest": mine > theirs,
                    "lowest": mine < theirs,
                }.get(stacking, abs(mine - start) > abs(theirs - start))
                if better:
                    best = i
            winner = mods[best][0]
            for i in indexes:
                if i != best:
                    why = f"only the {stacking} of group `{name}` applies: {winner.origin}: {printer.modifier_text(winner)}"
                    statuses[i] = ("suppressed", why)
        return statuses

    def _amount(self, effect: m.ModEffect) -> Value:
        if effect.op == "grade":
            return effect.grade or ""
        if effect.value is None:
            return effect.delta
        amount = self.eval(effect.value)
        if effect.per is not None:
            return number(_fraction(amount) * _fraction(self.eval(effect.per)))
        return amount

    def _numeric(
        self,
        kind: t.Numeric,
        base: Value,
        mods: list[tuple[m.ModEffect, Value]],
        statuses: list[tuple[Status, str | None]],
        order: m.StatOrder | None = None,
    ) -> Value:
        value = _fraction(base)
        grade = self._grade(mods, statuses)
        # 1.-3. scalings (one at a time), the sum of additions, the grade: in this order, or the book's
        for step in order.kinds if order is not None else _NUMBER_KINDS:
            if step == "scaling":
                for i in _ranked(mods, order):
                    effect, amount = mods[i]
                    if effect.op in ("mul", "div"):
                        factor = _fraction(amount)
                        value = value * factor if effect.op == "mul" else value / factor
                        if effect.rounding:
                            value = Fraction(round_value(value, effect.rounding))
            elif step == "additions":
                value += sum((_fraction(a) for e, a in mods if e.op == "add"), Fraction(0))
            elif grade is not None and grade.op != "set":
                value = value * grade.value if grade.op == "mul" else value / grade.value
                if grade.rounding:
                    value = Fraction(round_value(value, grade.rounding))
        if grade is not None and grade.op == "set":
            value = grade.value
        # 4. `= VALUE`: the last wins, and overrides what came before
        sets = [i for i, (e, _) in enumerate(mods) if e.op == "set"]
        if sets:
            last = sets[-1]
            value = _fraction(mods[last][1])
            for i, (effect, _) in enumerate(mods):
                if i != last and effect.op in ("add", "mul", "div", "grade", "set") and statuses[i][0] == "applied":
                    statuses[i] = ("overridden", _by(mods[last][0]))
        # 5. caps, the lowest counts; 6. floors, the highest counts
        caps = [_fraction(a) for e, a in mods if e.op == "max"]
        if caps:
            value = min(value, min(caps))
        floors = [_fraction(a) for e, a in mods if e.op == "min"]
        if floors:
            value = max(value, max(floors))
        if value.denominator != 1 and kind.kind != "number":
            value = Fraction(math.floor(value))
        return number(value)

    def _grade(
        self, mods: list[tuple[m.ModEffect, Value]], statuses: list[tuple[Status, str | None]]
    ) -> m.Grade | None:
        grades = {g.name: g for g in self.book.grades}
        chosen = [(i, grades[str(a)]) for i, (e, a) in enumerate(mods) if e.op == "grade"]
        if not chosen:
            return None
        absolute = [(i, g) for i, g in chosen if g.step is None]
        if absolute:
            first, grade = absolute[0]
            for i, _ in chosen:
                if i != first:
                    statuses[i] = ("overridden", f"{mods[first][0].origin}: {grade.name}")
            return grade
        net = sum(g.step or 0 for _, g in chosen)
        if net == 0:
            for i, _ in chosen:
                statuses[i] = ("suppressed", "grades cancel one another")
            return None
        same_side = [g for g in self.book.grades if g.step and g.step * net > 0]
        return min(sorted(same_side, key=lambda g: g.step or 0), key=lambda g: abs((g.step or 0) - net))

    def _dice(
        self,
        base: Value,
        mods: list[tuple[m.ModEffect, Value]],
        statuses: list[tuple[Status, str | None]],
        order: m.StatOrder | None = None,
    ) -> Value:
        sets = [i for i, (e, _) in enumerate(mods) if e.op == "set"]
        value = mods[sets[-1]][1] if sets else base
        for i in sets[:-1]:
            statuses[i] = ("overridden", _by(mods[sets[-1]][0]))
        assert isinstance(value, Dice)
        ranked = _ranked(mods, order)
        for step in order.kinds if order is not None else _DICE_KINDS:
            for i in ranked:
                effect, amount = mods[i]
                if effect.op == "dice" and step == "dice" and not value.constant:
                    wanted = value.first_count() + _whole(amount)
                    value = value.with_dice(_whole(amount))
                    if wanted < 1:
                        statuses[i] = ("capped", "a pool keeps at least one die")
                elif effect.op == "step" and step == "steps":
                    value = value.stepped(_whole(amount))
                elif effect.op == "add" and step == "additions":
                    value = value.plus(amount if isinstance(amount, Dice) else _whole(amount))
                elif effect.op in ("mul", "div") and step == "scaling":
                    factor = _fraction(amount) if effect.op == "mul" else 1 / _fraction(amount)
                    value = value.scaled(factor, effect.rounding)
        return value

    def _levels(
        self,
        kind: t.Enum,
        base: Value,
        mods: list[tuple[m.ModEffect, Value]],
        statuses: list[tuple[Status, str | None]],
    ) -> Value:
        sets = [i for i, (e, _) in enumerate(mods) if e.op == "set"]
        value = str(mods[sets[-1]][1]) if sets else str(base)
        for i in sets[:-1]:
            statuses[i] = ("overridden", _by(mods[sets[-1]][0]))
        index = kind.members.index(value) + sum(_whole(a) for e, a in mods if e.op == "shift")
        index = min(max(index, 0), len(kind.members) - 1)
        caps = [kind.members.index(str(a)) for e, a in mods if e.op == "max"]
        floors = [kind.members.index(str(a)) for e, a in mods if e.op == "min"]
        if caps:
            index = min(index, min(caps))
        if floors:
            index = max(index, max(floors))
        return kind.members[index]

    # -- rolls: docs/language.md section 10

    def roll(self, effect: m.RollEffect) -> Roll:
        pool: Pool | None = _pool(effect.pool)
        op = effect.op
        delta = 0
        shift: Fraction = Fraction(0)
        automatic = None if effect.kind != "automatic" else ("success" if effect.success else "failure")
        replaced = False  # a pool change that holds replaces the dice, worked out or written
        read_with = effect.tiers  # the tier system: the last `when C: tiers NAME` that holds chooses
        for change in effect.changes:
            if not self.holds(change.guard):
                continue
            if change.kind == "pool":
                pool = _pool(change.pool)
                replaced = True
            elif change.kind == "dice":
                delta += change.delta
            elif change.kind == "target":
                assert change.value is not None
                shift += _fraction(self.eval(change.value))
            elif change.kind == "tiers":
                read_with = change.tiers
            elif automatic != "failure":  # a failure wins over a success
                automatic = "success" if change.success else "failure"
        goal: Fraction | None = None
        bonus = sum((_fraction(self.eval(x)) for x in effect.adds), Fraction(0))
        value: Dice | None = None
        if effect.kind == "resist":
            resistance = self.book.resistance
            assert resistance is not None and effect.active is not None and effect.passive is not None
            active, passive = self.eval(effect.active), self.eval(effect.passive)
            goal = _fraction(_special(resistance.target, self.book, {"active": active, "passive": passive}))
            pool, op = _pool(resistance.pool), resistance.op
        elif effect.target is not None:
            goal = _fraction(self.eval(effect.target)) + shift
        if effect.dice is not None:
            found = self.eval(effect.dice)
            assert isinstance(found, Dice)
            if not replaced:
                value = found.with_dice(delta) if delta else found
                dice = str(value)
        if value is None and pool is not None:
            pool = (max(pool[0] + delta, 1), pool[1], pool[2])
            dice = pool_text(pool)
        elif value is None:
            dice = ""
        outcomes: dict[str, Fraction] = {}
        margins: dict[int, Fraction] = {}
        totals: dict[int, Fraction] = {}
        successes: dict[int, Fraction] = {}
        needed = _whole(self.eval(effect.needed)) if effect.needed is not None else None
        if automatic is not None:
            probability = Fraction(1 if automatic == "success" else 0)
            dice = dice or "none"
        elif effect.kind == "opposed":
            first = _fraction(self.eval(effect.bonus)) if effect.bonus is not None else Fraction(0)
            second = _fraction(self.eval(effect.against_bonus)) if effect.against_bonus is not None else Fraction(0)
            if effect.pool is not None and effect.against is not None:
                win, tie = _opposed(_dist(_pool(effect.pool)), _dist(_pool(effect.against)), first, second)
                dice = f"{pool_text(_pool(effect.pool))} vs {pool_text(_pool(effect.against))}"
            else:
                assert effect.dice is not None and effect.against_dice is not None
                one, other = self.eval(effect.dice), self.eval(effect.against_dice)
                assert isinstance(one, Dice) and isinstance(other, Dice)
                win, tie = _opposed_dice(one, other, first, second)
                dice = f"{one} vs {other}"
            outcomes = {"win": win, "tie": tie, "lose": 1 - win - tie}
            probability = win + (tie if effect.ties == "win" else 0)
            op = "vs"
        elif effect.kind == "count":
            assert goal is not None and op is not None and needed is not None
            if value is not None:
                count, sides = value.first_count(), value.terms[0][1] if value.terms else 2
            else:
                assert pool is not None
                count, sides = pool[0], pool[1]
            successes = _binomial(count, sides, op, goal)
            probability = sum((p for k, p in successes.items() if k >= needed), Fraction(0))
            outcomes = {"success": probability, "failure": 1 - probability}
        else:
            system = self.book.tiers.get(read_with) if read_with else None
            rows = _rows(pool, value, goal, bonus, system, self.book)
            chances: dict[int, Fraction] = {}
            for (_, total), chance in rows.items():
                chances[total] = chances.get(total, Fraction(0)) + chance
            if effect.kind == "total":
                totals = {natural + _whole(bonus): chance for natural, chance in chances.items()}
                probability = Fraction(1)
                outcomes = _tiers(self.book, system, rows, Fraction(0), bonus, None)[0] if system else {}
            else:
                assert goal is not None and op is not None
                tiers, probability = _tiers(self.book, system, rows, goal, bonus, op)
                named = {t.name for t in system.tiers} if system else set()
                outcomes = {
                    **tiers,
                    **{k: v for k, v in (("success", probability), ("failure", 1 - probability)) if k not in named},
                }
                margin_outcomes = {o.name for o in effect.outcomes if o.by_margin}
                if margin_outcomes:
                    endless = (value is not None and not value.bounded) or (
                        value is None and pool is not None and pool[2] == "exploding"
                    )
                    if endless:  # the totals above the horizon are gathered at one: not a margin
                        reach = _horizon(goal, bonus, system, self.book)
                        chances = {total: p for total, p in chances.items() if total <= reach}
                    margins = _margins(chances, op, goal - bonus, "success" in margin_outcomes)
        consequences = tuple(
            Consequence(outcome.name, text, outcomes.get(outcome.name, Fraction(0)), stat, after)
            for outcome in effect.outcomes
            for text, stat, after in self._consequences(outcome)
        )
        return Roll(
            spec=_roll_spec(effect),
            dice=dice,
            comparison=op,
            target=None if goal is None else number(goal),
            probability=None if effect.kind == "total" else probability,
            automatic=automatic,
            outcomes=outcomes,
            margins=margins,
            bonus=number(bonus),
            totals=totals,
            successes=successes,
            needed=needed if effect.kind == "count" else None,
            consequences=consequences,
        )

    def _consequences(self, outcome: m.Outcome) -> list[tuple[str, str | None, Value | None]]:
        """What an outcome changes, and the stat's value if it comes: one modifier more."""
        found: list[tuple[str, str | None, Value | None]] = []
        for change in outcome.changes:
            stat = change.target
            mods = [(change, self._amount(change))]
            statuses: list[tuple[Status, str | None]] = [("applied", None)]
            var = self.book.vars[stat]
            current = self.stat(stat)
            if isinstance(var.type, t.Numeric):
                after = self._numeric(var.type, current, mods, statuses)
            elif isinstance(var.type, t.Dice):
                after = self._dice(current, mods, statuses)
            elif isinstance(var.type, t.Enum) and var.type.ordered:
                after = self._levels(var.type, current, mods, statuses)
            else:
                after = mods[0][1]
            found.append((printer.modifier_text(change), stat, after))
        found += [(f"as {rule}", None, None) for rule in outcome.applies]
        return found

    # -- tables: docs/language.md section 11

    def table(self, table: m.Table) -> TableResult:
        columns = [c for c, _ in table.columns]

        def row_result(row: m.TableRow, probability: Fraction | None, steps: tuple[str, ...] = ()) -> TableRow:
            values = {c: self.cell(cell) for c, cell in zip(columns, row.cells, strict=True)}
            own = tuple(printer.step_text(c.step) for c in row.cells if c.step is not None)
            return TableRow(row.key_text(), values, own + steps, probability)

        if table.pool is None:
            row = row_for(table, self.values[table.inputs[0]])
            rows = tuple(row_result(r, None) for r in table.rows)
            selected = row_result(row, None) if row is not None else None
            return TableResult(table.name, table.title, table.cites, None, self._keys(table), None, selected, rows)
        dist = _dist(_pool(table.pool))
        offset = table.modifier_sign * int(self.values[table.modifier]) if table.modifier else 0
        chances = [Fraction(0)] * len(table.rows)
        for total in range(dist.low, dist.high + 1):
            row_index = self._row_index(table, self._result(table, total + offset))
            if row_index is not None:
                chances[row_index] += dist.between_p(total, total)
        rows_out = [row_result(r, c) for r, c in zip(table.rows, chances, strict=True)]
        selected = None
        result = None
        if self.values.get("roll") is not None:
            result = self._result(table, int(self.values["roll"]) + offset)
            overflow = table.overflow
            extra: tuple[str, ...] = ()
            if overflow is not None and int(self.values["roll"]) + offset > overflow.above and overflow.step:
                extra = (printer.step_text(overflow.step),)
            row = row_for(table, result)
            if row is not None:
                selected = row_result(row, None, extra)
        dice = pool_text(_pool(table.pool))
        if table.modifier:
            dice += f" {'+' if table.modifier_sign > 0 else '-'} {table.modifier}"
        return TableResult(
            table.name, table.title, table.cites, dice, self._keys(table), result, selected, tuple(rows_out)
        )

    def _keys(self, table: m.Table) -> dict[str, Value]:
        names = (*table.inputs, *((table.modifier,) if table.modifier else ()))
        return {name: self.values[name] for name in names}

    @staticmethod
    def _result(table: m.Table, value: int) -> int:
        overflow = table.overflow
        return overflow.becomes if overflow is not None and value > overflow.above else value

    @staticmethod
    def _row_index(table: m.Table, value: int) -> int | None:
        row = row_for(table, value)
        return None if row is None else table.rows.index(row)


def resolve(
    book: m.Book, names: str | Sequence[str], given: Mapping[str, object], told: frozenset[str] | None = None
) -> Resolution:
    """The reference resolution of a situation: the named rules and tables applied together, with
    the given values (already valid for their inputs; others take their defaults).  `told`: the
    inputs a "had no effect" note may name (those given, unless said)."""
    chosen = tuple(dict.fromkeys([names] if isinstance(names, str) else names))
    values: dict[str, Any] = {name: var.default for name, var in book.vars.items()}
    values.update(given)
    situation = Situation(book, chosen, values)
    steps: list[Step] = []
    for name in chosen:
        if name in book.rules:
            steps += _register(book, book.rules[name].effects, (), len(steps))
    situation.effects = [_Registered(step.effect, step.outer, step.place) for step in steps]
    relevant = {key for name in chosen for key in _reads(book, name)} | set(given)
    order = list(book.vars)
    shown = sorted(relevant, key=lambda k: order.index(k) if k in order else len(order))
    for name in shown:
        if name in book.vars and book.vars[name].default_expr is not None:
            situation.base(name)
    stats: dict[str, Value] = {
        name: situation.stat(name) for name in shown if name in book.vars and book.vars[name].is_stat
    }
    if told is None:
        told = frozenset(key for key, value in given.items() if value is not None)
    trace, decided, effective, unread = trace_of(situation, steps, chosen, told)
    derived: dict[str, Value] = {}
    for registered, holds in situation.counted(m.DeriveEffect):
        if holds:
            assert isinstance(registered.effect, m.DeriveEffect)
            derived[registered.effect.name] = situation.derive(registered.effect.name)
    rolls = [situation.roll(cast(m.RollEffect, step.effect)) for step, holds in counted_steps(_kind(steps, m.RollEffect), decided) if holds]
    texts = [step.effect for step, holds in counted_steps(_kind(steps, (m.CannotEffect, m.NoteEffect)), decided) if holds]
    restrictions = [Restriction(e.origin, e.cites, e.text) for e in texts if isinstance(e, m.CannotEffect)]
    notes = [
        Note(e.origin, e.cites, e.text, e.quote, printer.text_kind(e))
        for e in texts
        if isinstance(e, m.NoteEffect)
    ]
    notes += unread
    for name in chosen:
        table = book.tables.get(name)
        if table is not None:
            notes += [Note(table.name, table.cites, text, quote, kind) for text, quote, kind in table.all_notes]
    tables = tuple(situation.table(book.tables[name]) for name in chosen if name in book.tables)
    merged = merged_rolls(rolls)
    for roll in merged:
        if roll.merged:
            said = f"asked for by {', '.join(roll.asked_by)}: one roll"
            spec = TraceSpec(roll.spec.rule, roll.spec.source, f"roll {roll.spec.name}: {said}", ("same roll",), ((),), said)
            trace.append(TraceEntry(spec, -1, values, effective))
    return Resolution(
        rulebook=book.name,
        rules=chosen,
        inputs={k: values[k] for k in shown},
        stats=stats,
        derived=derived,
        modifiers=tuple(situation.modifier_list(steps)),
        rolls=merged,
        restrictions=tuple(restrictions),
        notes=tuple(notes),
        tables=tables,
        trace=tuple(trace),
        chains=chains_of(book, values, situation.cell, rolls, tables, _roll_effects(steps)),
    )


def _roll_effects(steps: Sequence[Step]) -> dict[str, m.RollEffect]:
    return {step.effect.key: step.effect for step in steps if isinstance(step.effect, m.RollEffect)}


def _kind(steps: Sequence[Step], kind: type[m.Effect] | tuple[type[m.Effect], ...]) -> list[Step]:
    return [step for step in steps if isinstance(step.effect, kind)]


def modified(
    book: m.Book, stat: str, value: Value, effects: Sequence[m.ModEffect], given: Mapping[str, Value]
) -> Value:
    """What these modifiers alone make of a stat's `value`, applied as a resolution applies them
    (docs/language.md, "The order in which modifiers apply"; no stacking groups), where the
    values their amounts read are `given` (`base STAT` among them; others take their defaults).
    The order check (dsl/checks/order.py) applies one modifier, then the other to what the first
    made, to find where the order of two decides the result.  NoValue when an amount has no value
    there."""
    situation = _given(book, given)
    mods = [(effect, situation._amount(effect)) for effect in effects]
    return situation._apply(book.vars[stat], value, mods, [("applied", None)] * len(mods))


def amount(book: m.Book, effect: m.ModEffect, given: Mapping[str, Value]) -> Value:
    """A modifier's amount (what it adds, the factor or divisor it scales by, the dice or steps
    it moves, the grade it names) where the values it reads are `given`."""
    return _given(book, given)._amount(effect)


def start(book: m.Book, name: str) -> Value:
    """The value an input or stat starts from when a situation gives none: its default, worked
    out when it is a formula of other values."""
    return _given(book, {}).base(name)


def _given(book: m.Book, given: Mapping[str, Value]) -> Situation:
    values: dict[str, Any] = {name: var.default for name, var in book.vars.items()}
    values.update(given)
    return Situation(book, (), values)


_NUMBER_KINDS = ("scaling", "additions", "grade")
_DICE_KINDS = ("dice", "steps", "additions", "scaling")
"""Docs, "The order in which modifiers apply": the kinds of modifier of a number and of dice."""


def _ranked(mods: list[tuple[m.ModEffect, Value]], order: m.StatOrder | None) -> list[int]:
    """The indexes of the modifiers in the order those applied one at a time apply: as the rules
    are named, but the modifiers of the rules an `order` ranks go, in its order, to the places
    theirs held."""
    if order is None or not order.rules:
        return list(range(len(mods)))
    rank = {rule: i for i, rule in enumerate(order.rules)}
    ranked = iter(
        sorted((i for i, (e, _) in enumerate(mods) if e.origin in rank), key=lambda i: rank[mods[i][0].origin])
    )
    return [next(ranked) if e.origin in rank else i for i, (e, _) in enumerate(mods)]


def _register(book: m.Book, effects: tuple[m.Effect, ...], outer: tuple[m.Condition, ...], place: int) -> list[Step]:
    """The effects of a rule in the order a resolver meets them: composed parts in place, each
    numbered from `place` on."""
    out: list[Step] = []
    for effect in effects:
        if isinstance(effect, m.PartEffect):
            out += _register(book, book.parts[effect.part].effects, (*outer, *effect.guard), place + len(out))
        else:
            out.append(Step(effect, outer, place + len(out)))
    return out


def _reads(book: m.Book, name: str) -> tuple[str, ...]:
    if name in book.rules:
        return book.rules[name].reads
    return book.tables[name].reads


def _by(effect: m.ModEffect) -> str:
    return f"{effect.origin}: {printer.modifier_text(effect)}"


@overload
def _pool(pool: n.Pool) -> Pool: ...
@overload
def _pool(pool: None) -> None: ...
def _pool(pool: n.Pool | None) -> Pool | None:
    return None if pool is None else (pool.count, pool.sides, pool.keep)


@functools.cache
def _dist(pool: Pool) -> Distribution:
    return distribution(*pool)


def _compare(total: int | Fraction, op: str, goal: Fraction) -> bool:
    return {
        "<=": total <= goal,
        "<": total < goal,
        ">=": total >= goal,
        ">": total > goal,
        "==": total == goal,
        "!=": total != goal,
    }[op]


@functools.cache
def _opposed(
    first: Distribution, second: Distribution, bonus: Fraction, against: Fraction
) -> tuple[Fraction, Fraction]:
    """P(first + bonus > second + against) and P(equal), pair of totals by pair of totals."""
    win = tie = Fraction(0)
    for a in range(first.low, first.high + 1):
        pa = first.between_p(a, a)
        if not pa:
            continue
        for b in range(second.low, second.high + 1):
            pb = second.between_p(b, b)
            if a + bonus > b + against:
                win += pa * pb
            elif a + bonus == b + against:
                tie += pa * pb
    return win, tie


def _rows(
    pool: Pool | None,
    value: Dice | None,
    goal: Fraction | None,
    bonus: Fraction,
    system: m.TierSystem | None,
    book: m.Book,
) -> dict[tuple[tuple[int, ...], int], Fraction]:
    """The chance of each (naturals, total of the dice): the naturals are what the tiers of
    `system` read (`_natural_names`: the dice alone, or the first face of a named die), the
    total what the dice show with the numbers inside a dice value.  Exploding dice show totals
    without end: they are listed up to a total past the target and every tier's bound, and every
    higher total is gathered at the one above (they meet the same tests)."""
    names = _natural_names(system)
    counts = any(showing_within(name) is not None for name in names)
    if value is None:
        assert pool is not None
        if pool[2] != "exploding" and not counts:
            dist = _dist(pool)
            return {((x,) * len(names), x): dist.between_p(x, x) for x in range(dist.low, dist.high + 1) if dist.between_p(x, x)}
        if not names:
            horizon = _horizon(goal, bonus, system, book)
            chances = _exploding(pool[0], pool[1], horizon)
            chances[horizon + 1] = 1 - sum(chances.values(), Fraction(0))
            return {((), total): chance for total, chance in chances.items()}
        value = pool_dice(*pool)
    reach = None if value.bounded else _horizon(goal, bonus, system, book)
    try:
        if names:
            return value.naturals(names, reach)
        return {((), total): chance for total, chance in value.totals(horizon=reach).items()}
    except ValueError as error:
        raise NoValue(str(error)) from None


def _natural_names(system: m.TierSystem | None) -> tuple[str | None, ...]:
    """The naturals a tier system reads: None for the dice alone, a name for a named die."""
    return tuple(dict.fromkeys(die for tier in system.tiers for _, _, die in tier.tests())) if system else ()


def _horizon(goal: Fraction | None, bonus: Fraction, system: m.TierSystem | None, book: m.Book) -> int:
    """The highest total of the dice a roll needs: past the target and every tier's bound."""
    edges = [goal - bonus] if goal is not None else []
    for tier in system.tiers if system else ():
        if tier.bound is not None:
            edges.append(_fraction(_special(tier.bound, book, {"target": number(goal or Fraction(0))})) - bonus)
        edges += [Fraction(last) for _, last, die in tier.tests() if die is None]
    return max((math.ceil(edge) for edge in edges), default=0) + 1


def _opposed_dice(first: Dice, second: Dice, bonus: Fraction, against: Fraction) -> tuple[Fraction, Fraction]:
    """P(first + bonus > second + against) and P(equal), for dice values of any form: the two
    sides' totals (an exploding side up to what the other side can reach), pair by pair."""
    try:
        if second.bounded:
            other = second.totals()
            one = first.totals(horizon=max(other) + math.ceil(against - bonus) + 1)
        else:
            one = first.totals()
            other = second.totals(horizon=max(one) + math.ceil(bonus - against) + 1)
    except ValueError as error:
        raise NoValue(str(error)) from None
    win = tie = Fraction(0)
    for a, pa in one.items():
        for b, pb in other.items():
            if a + bonus > b + against:
                win += pa * pb
            elif a + bonus == b + against:
                tie += pa * pb
    return win, tie


def _exploding(count: int, sides: int, horizon: int) -> dict[int, Fraction]:
    """Totals up to `horizon` of `count` dice that are rolled again and added on their highest
    face, worked out die by die: one die shows s*k + r (r < s) with chance (1/s)^(k+1)."""
    one = {}
    for explosions in range(horizon // sides + 1):
        for rest in range(1, sides):
            if sides * explosions + rest <= horizon:
                one[sides * explosions + rest] = Fraction(1, sides ** (explosions + 1))
    found = {0: Fraction(1)}
    for _ in range(count):
        following: dict[int, Fraction] = {}
        for a, pa in found.items():
            for b, pb in one.items():
                if a + b <= horizon:
                    following[a + b] = following.get(a + b, Fraction(0)) + pa * pb
        found = following
    return found


def _binomial(count: int, sides: int, op: str, goal: Fraction) -> dict[int, Fraction]:
    """How many of `count` dice meet the target, counted over every way the dice can fall."""
    meeting = Fraction(sum(1 for face in range(1, sides + 1) if _compare(face, op, goal)), sides)
    chances = {k: Fraction(math.comb(count, k)) * meeting**k * (1 - meeting) ** (count - k) for k in range(count + 1)}
    return {k: p for k, p in chances.items() if p}


def _tiers(
    book: m.Book,
    system: m.TierSystem | None,
    chances: Mapping[tuple[tuple[int, ...], int], Fraction],
    goal: Fraction,
    bonus: Fraction,
    op: str | None,
) -> tuple[dict[str, Fraction], Fraction]:
    """Each total goes to the first tier it meets (`roll` tests the total with what is added,
    `natural` the dice alone; `otherwise` takes the rest); the roll succeeds where its total meets
    the target, unless the tier says it always succeeds or fails."""
    found = {tier.name: Fraction(0) for tier in system.tiers} if system else {}
    bounds = {
        tier.name: _fraction(_special(tier.bound, book, {"target": number(goal)}))
        for tier in (system.tiers if system else ())
        if tier.bound is not None
    }
    success = Fraction(0)
    names = _natural_names(system)
    for (naturals, dice_total), chance in chances.items():
        total = dice_total + bonus
        chosen = None
        for tier in system.tiers if system else ():
            if tier.natural is not None:
                shown = [low <= naturals[names.index(die)] <= high for low, high, die in tier.tests()]
                meets = all(shown) if tier.joined == "and" else any(shown)
            elif tier.op is not None:
                meets = total <= bounds[tier.name] if tier.op == "<=" else total >= bounds[tier.name]
            else:
                meets = True
            if meets:
                chosen = tier
                break
        if chosen is not None:
            found[chosen.name] += chance
        if op is not None:
            won = (chosen.always == "success") if chosen is not None and chosen.always else _compare(total, op, goal)
            if won:
                success += chance
    return found, success


def _margins(chances: Mapping[int, Fraction], op: str, goal: Fraction, successes: bool) -> dict[int, Fraction]:
    """The chance of each margin (how far the dice land from the target they need)."""
    margins: dict[int, Fraction] = {}
    for total, p in chances.items():
        if _compare(total, op, goal) == successes:
            margin = math.floor(total - goal) if total >= goal else math.ceil(goal - total)
            margins[margin] = margins.get(margin, Fraction(0)) + p
    return dict(sorted(margins.items()))


def _special(expr: n.Expr, book: m.Book, values: Mapping[str, Value]) -> Value:
    return evaluate(expr, book, Specials(values))


def _outcome_text(outcome: m.Outcome) -> str:
    text = outcome.text or ""
    if outcome.step is not None:
        text = (text + "; " if text else "") + printer.step_text(outcome.step)
    return text


def _worth(var: m.Var, value: Value) -> Fraction:
    """How much a value is, to weigh modifiers: a number itself, dice their average total, a level
    its place in the order."""
    if isinstance(value, Dice):
        return sum((total * p for total, p in value.totals().items()), Fraction(0))
    if isinstance(var.type, t.Enum):
        return Fraction(var.type.members.index(str(value))) if var.type.ordered else Fraction(0)
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        return Fraction(value)
    return Fraction(0)


def _fraction(value: Value) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise NoValue(f"a number was expected, not {value!r}")
    return Fraction(value)


def _whole(value: Value) -> int:
    return int(_fraction(value))


def _mod_spec(book: m.Book, effect: m.ModEffect) -> ModSpec:
    group = book.groups.get(effect.group) if effect.group else None
    return ModSpec(
        key=effect.key,
        rule=effect.origin,
        source=effect.cites,
        target=effect.target,
        op=effect.op,
        text=printer.modifier_text(effect),
        group=effect.group,
        stacking=group.stacking if group else "cumulative",
        rounding=effect.rounding,
        condition=printer.guard_text(effect.guard),
        label=effect.label,
    )


def _roll_spec(effect: m.RollEffect) -> RollSpec:
    return RollSpec(
        key=effect.key,
        rule=effect.origin,
        source=effect.cites,
        name=effect.name,
        label=effect.label,
        kind=effect.kind,
        pool=_pool(effect.pool),
        op=effect.op,
        against=_pool(effect.against),
        success=effect.success,
        outcomes=MappingProxyType({o.name: _outcome_text(o) for o in effect.outcomes}),
        margin_outcomes=tuple(o.name for o in effect.outcomes if o.by_margin),
        tiers=(),
        ties=effect.ties,
        notes=tuple(f'Erratum: "{quote}" {text}' if quote else text for text, quote in effect.notes),
        condition=printer.guard_text(effect.guard),
        separate=effect.separate,
        steps=tuple((o.name, printer.step_text(o.step)) for o in effect.outcomes if o.step is not None),
    )


def resolve_over_rounds(
    book: m.Book, names: str | Sequence[str], given: Mapping[str, object], rounds: int
) -> Resolution:
    """A rule's sequence over `rounds` rounds (dsl/semantics/sequences.py), each round the
    reference resolution of the rule."""
    chosen = tuple(dict.fromkeys([names] if isinstance(names, str) else names))
    rule = next(book.rules[x] for x in chosen if x in book.rules and book.rules[x].sequence is not None)
    sequence = rule.sequence
    assert sequence is not None
    then = None if sequence.then is None else (sequence.then[0], evaluate(sequence.then[1], book, Specials({})))
    values = dict(given)
    start = sequence.start
    if sequence.counter is not None:
        start = int(cast(int, given.get(sequence.counter, sequence.start)))
        counter = book.vars[sequence.counter].type
        if isinstance(counter, t.Numeric) and counter.high is not None and start + rounds - 1 > counter.high:
            raise NoValue(f"{rounds} {sequence.unit}s from {start} run past {sequence.counter}'s highest, {show(counter.high)}")
        values[sequence.counter] = start
    counted = {c.input: int(cast(int, given.get(c.input, 0))) for c in sequence.counts}

    def one_round(number: int, changed: bool, come: int) -> Resolution:
        inputs = dict(values)
        if sequence.counter is not None:
            inputs[sequence.counter] = number
        if changed and then is not None:
            inputs[then[0]] = then[1]
        for name, begun in counted.items():
            kind = book.vars[name].type
            if isinstance(kind, t.Numeric) and kind.high is not None and begun + come > kind.high:
                raise NoValue(f"`{name}` reaches {begun + come} in {sequence.unit} {number}, past its highest, {show(kind.high)}")
            inputs[name] = begun + come
        return resolve(book, chosen, inputs)

    return replace(resolve(book, chosen, values), sequence=over_rounds(rule, rounds, start, one_round))
