"""What a resolution returns: the `Resolution`, its modifiers, rolls, restrictions, notes, tables,
trace, chains and sequence, each with `to_dict()` (what `rulecraft resolve --json` prints).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, cast

from .base import RuleInputError, Status, clip, number_json, probability_json, show
from .dice import Chances, Dice, Value, value_json
from .specs import ModSpec, RollSpec, TierSpec, TraceSpec

ModOperation = Literal["add", "mul", "div", "set", "min", "max", "grade", "dice", "step", "shift"]
"""What a modifier does to its stat."""

RollKind = Literal["check", "total", "count", "resist", "opposed", "automatic"]
"""The kinds of roll."""


@dataclass(frozen=True, slots=True)
class RulebookInfo:
    name: str
    title: str
    source: str | None
    version: str | None
    notes: tuple[Note, ...] = ()


def chances_json(chances: Mapping[int, Fraction], key: str) -> list[dict[str, object]]:
    return [{key: number_json(k), "probability": probability_json(p)} for k, p in chances.items()]




@dataclass(frozen=True, slots=True)
class Modifier:
    """A modifier whose condition held: applied, or suppressed by stacking, or overridden."""

    spec: ModSpec
    amount: Value
    status: Status
    reason: str | None

    @property
    def rule(self) -> str:
        """The rule whose modifier it is."""
        return self.spec.rule

    @property
    def source(self) -> str | None:
        """That rule's citation."""
        return self.spec.source

    @property
    def target(self) -> str:
        """The stat it changes."""
        return self.spec.target

    @property
    def operation(self) -> ModOperation:
        """add, mul, div, set, min, max, grade, dice, step or shift."""
        return cast(ModOperation, self.spec.op)

    @property
    def text(self) -> str:
        """The modifier as the rulebook writes it."""
        return self.spec.text

    @property
    def group(self) -> str | None:
        """Its stacking group."""
        return self.spec.group

    @property
    def label(self) -> str | None:
        """Its label, as the rulebook gives it."""
        return self.spec.label

    @property
    def applied(self) -> bool:
        return self.status == "applied"

    def __repr__(self) -> str:
        return f"<Modifier {self.spec.text} ({self.spec.rule}): {self.status}>"

    def to_dict(self) -> dict[str, object]:
        spec = self.spec
        return {
            "target": spec.target,
            "operation": spec.op,
            "amount": value_json(self.amount),
            "text": spec.text,
            "label": spec.label,
            "rule": spec.rule,
            "source": spec.source,
            "group": spec.group,
            "status": self.status,
            "applied": self.status == "applied",
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class Consequence:
    """What an outcome does, with the chance of that outcome: "exhaustion +1: 9/20"."""

    outcome: str
    text: str
    probability: Fraction
    stat: str | None
    value: Value | None  # the stat's value if the outcome comes

    def to_dict(self) -> dict[str, object]:
        return {
            "outcome": self.outcome,
            "text": self.text,
            "probability": probability_json(self.probability),
            "stat": self.stat,
            "value": value_json(self.value),
        }


@dataclass(frozen=True, slots=True)
class Roll:
    """A roll the situation calls for, with its exact chance of success and of each outcome."""

    spec: RollSpec
    dice: str  # what is rolled, in the notation of dice: `1d20`, `highest 3 of 5d10`, `2d6 vs 2d6`
    bonus: int | Fraction  # added to the dice: `d20 + 5`
    comparison: str | None  # <=, >=, ... (`vs` for an opposed roll; None for a roll without a target)
    target: int | Fraction | None
    probability: Fraction | None  # of success (of winning); None for a roll without a target
    automatic: str | None  # "success" | "failure" when no dice need rolling
    outcomes: Mapping[str, Fraction]
    margins: Mapping[int, Fraction]  # `by margin` outcomes: the chance of each margin
    totals: Mapping[int, Fraction]  # a roll without a target: the chance of each total
    successes: Mapping[int, Fraction]  # a count: the chance of each number of dice meeting the target
    needed: int | None  # a count: how many dice must meet it
    consequences: tuple[Consequence, ...] = ()
    merged: tuple[Roll, ...] = ()  # the same roll asked for by other rules, rolled once with this one
    plan: tuple[tuple[Dice, int | Fraction], ...] = ()  # what is rolled: each side's dice and what is added to them
    rolled: RollMade | None = None  # the roll made (`rng=`) or told (`rolled=`): its dice and outcome
    tiers: tuple[TierSpec, ...] = ()
    """The tiers the roll is read with: its own (`spec.tiers`), or those the last change
    `when C: tiers NAME` that holds chooses."""

    @property
    def rule(self) -> str:
        """The rule that asks for the roll."""
        return self.spec.rule

    @property
    def source(self) -> str | None:
        """That rule's citation."""
        return self.spec.source

    @property
    def name(self) -> str:
        """The roll's name."""
        return self.spec.name

    @property
    def label(self) -> str | None:
        """Its label, as the rulebook gives it."""
        return self.spec.label

    @property
    def kind(self) -> RollKind:
        """check, total, count, resist, opposed or automatic."""
        return cast(RollKind, self.spec.kind)

    @property
    def effects(self) -> Mapping[str, str]:
        """What each outcome does, by outcome."""
        return self.spec.outcomes

    @property
    def notes(self) -> tuple[str, ...]:
        """The roll's notes."""
        return self.spec.notes

    def __repr__(self) -> str:
        target = f" {self.comparison} {show(self.target)}" if self.target is not None else ""
        chance = f": {show(self.probability)}" if self.probability is not None else ""
        return f"<Roll {self.spec.name} {self.dice}{target}{chance}>"

    def to_dict(self) -> dict[str, object]:
        spec = self.spec
        return {
            "name": spec.name,
            "label": spec.label,
            "rule": spec.rule,
            "source": spec.source,
            "kind": spec.kind,
            "dice": self.dice,
            "bonus": number_json(self.bonus),
            "comparison": self.comparison,
            "target": None if self.target is None else number_json(self.target),
            "needed": None if self.needed is None else number_json(self.needed),
            "probability": None if self.probability is None else probability_json(self.probability),
            "automatic": self.automatic,
            "outcomes": {k: probability_json(v) for k, v in self.outcomes.items()},
            "effects": dict(spec.outcomes),
            "margins": chances_json(self.margins, "margin"),
            "totals": chances_json(self.totals, "total"),
            "successes": chances_json(self.successes, "successes"),
            "consequences": [x.to_dict() for x in self.consequences],
            "notes": list(spec.notes),
            "asked_by": list(self.asked_by),
            "merged": [
                {
                    "rule": x.spec.rule,
                    "source": x.spec.source,
                    "effects": dict(x.spec.outcomes),
                    "consequences": [c.to_dict() for c in x.consequences],
                    "notes": list(x.spec.notes),
                }
                for x in self.merged
            ],
            **({"rolled": self.rolled.to_dict()} if self.rolled is not None else {}),
        }

    @property
    def asked_by(self) -> tuple[str, ...]:
        """The rules that asked for this roll: its own, then those of the rolls merged into it."""
        return (self.spec.rule, *(x.spec.rule for x in self.merged))


@dataclass(frozen=True, slots=True)
class DieRoll:
    """One die as it was rolled: every face it showed in order (the first; the face it was
    re-rolled to, when its first was among those re-rolled; then each explosion's), and the value
    it counts for.  `kept`: whether the pool's reading counts it (kept among the highest or lowest,
    showing a face counted, among the most that match, winning its pair; always, in a sum)."""

    die: str  # the die as the language writes it: `d6`, `exploding d6 as wild`, `dF`
    faces: tuple[int, ...]
    rerolled: bool
    explosions: int
    value: int
    kept: bool = True
    name: str | None = None

    @property
    def natural(self) -> int:
        """The face it showed first, before it was re-rolled or exploded."""
        return self.faces[0]

    def to_dict(self) -> dict[str, object]:
        return {
            "die": self.die,
            "faces": [number_json(f) for f in self.faces],
            "natural": number_json(self.faces[0]),
            "rerolled": self.rerolled,
            "explosions": self.explosions,
            "value": number_json(self.value),
            "kept": self.kept,
            "name": self.name,
        }


@dataclass(frozen=True, slots=True)
class DiceRoll:
    """A dice value rolled: each die, what the dice come to (`dice_total`: the dice value's total,
    numbers inside it included; a count: the dice that met the target), and the total with what the
    roll adds to them (`bonus`).  Told as a total (`rolled={"fall": 9}`), it has no dice."""

    dice: str
    bonus: int | Fraction
    rolled: tuple[DieRoll, ...]
    dice_total: int
    total: int | Fraction

    def to_dict(self) -> dict[str, object]:
        return {
            "dice": self.dice,
            "bonus": number_json(self.bonus),
            "rolled": [d.to_dict() for d in self.rolled],
            "dice_total": number_json(self.dice_total),
            "total": number_json(self.total),
        }


@dataclass(frozen=True, slots=True)
class RollMade:
    """What a roll came to: its dice (one side; two for an opposed roll; none when automatic or
    told as a total of successes), the total, the outcome and every outcome it counts as (a
    critical is also a success), the margin, and the consequences that come."""

    source: str  # "rng" (rolled here), "faces" or "total" (told), "automatic" (no dice), "table"
    sides: tuple[DiceRoll, ...]
    total: int | Fraction | None  # the total compared (a count: the dice that met the target)
    margin: int | None  # how far the total lands from the target
    outcome: str  # the tier, else success / failure (win / tie / lose); a table's row
    outcomes: tuple[str, ...]  # every outcome it counts as, the one the effects and consequences name
    success: bool | None  # None for a roll without a target
    consequences: tuple[Consequence, ...]  # of this roll and of the rolls merged into it, that come
    effects: tuple[str, ...] = ()  # what the outcomes do, as the rules say it
    chained: tuple[ChainRoll, ...] = ()  # the rolls its outcome sent on to, in the order they were rolled

    def to_dict(self) -> dict[str, object]:
        return {
            "source": self.source,
            "sides": [side.to_dict() for side in self.sides],
            "total": None if self.total is None else number_json(self.total),
            "margin": None if self.margin is None else number_json(self.margin),
            "outcome": self.outcome,
            "outcomes": list(self.outcomes),
            "success": self.success,
            "consequences": [c.to_dict() for c in self.consequences],
            "effects": list(self.effects),
            "chained": [c.to_dict() for c in self.chained],
        }


@dataclass(frozen=True, slots=True)
class Restriction:
    """What the situation forbids: `text` is the whole sentence, "cannot fight in deep water"."""

    rule: str
    source: str | None
    what: str  # what is forbidden: "fight in deep water"

    @property
    def text(self) -> str:
        return f"cannot {self.what}"

    def to_dict(self) -> dict[str, object]:
        return {"what": self.what, "text": self.text, "rule": self.rule, "source": self.source}


@dataclass(frozen=True, slots=True)
class Note:
    """A note for the gamemaster; an aside (kind `aside`: reading matter, such as background or
    the source's remarks, which a deck prints in its appendix); an erratum (with the words of the
    source it reads, `quote`); or a word about an input given to no effect (kind `input`)."""

    rule: str
    source: str | None
    text: str
    quote: str | None = None
    kind: str = "note"  # note | aside | erratum | input

    @property
    def erratum(self) -> str | None:
        return self.quote

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "text": self.text, "quote": self.quote, "rule": self.rule, "source": self.source}


@dataclass(frozen=True, slots=True)
class TraceEntry:
    """Why one part of a rule did or did not apply: the clause that decided (the first that did not
    hold, or every clause when all held) and the values it read."""

    spec: TraceSpec
    decided: int  # the clause that did not hold; -1 when every clause held
    values: Mapping[str, Any]  # the situation's inputs and base values
    effective: Mapping[str, Any]  # its stats (after their modifiers) and derived values

    @property
    def rule(self) -> str:
        """The rule the part belongs to."""
        return self.spec.rule

    @property
    def source(self) -> str | None:
        """That rule's citation."""
        return self.spec.source

    @property
    def item(self) -> str:
        """The part, as the rulebook writes it."""
        return self.spec.item

    @property
    def applied(self) -> bool:
        return self.decided < 0

    @property
    def clause(self) -> str | None:
        clauses = self.spec.clauses
        if not clauses:
            return None
        return clauses[self.decided] if self.decided >= 0 else "; ".join(clauses)

    @property
    def reads(self) -> dict[str, Any]:
        names = self.spec.names
        chosen = names[self.decided : self.decided + 1] if self.decided >= 0 else names
        found: dict[str, Any] = {}
        for group in chosen:
            for name in group:
                if name.startswith("base "):
                    found[name] = self.values.get(name[5:])
                else:
                    found[name] = self.effective[name] if name in self.effective else self.values.get(name)
        return found

    @property
    def because(self) -> str:
        """Each clause that decided with what its condition came to (an `unless` decides when its
        condition holds), and the values read: "unless moved == 0: holds, because moved = 0"."""
        clauses = self.spec.clauses
        if not clauses:
            return "always applies"
        if self.spec.verdict is not None:
            said = f"{clauses[0]}: {self.spec.verdict}"
        elif self.decided >= 0:
            clause = clauses[self.decided]
            said = f"{clause}: {'holds' if clause.startswith('unless ') else 'does not hold'}"
        else:
            said = "; ".join(f"{c}: {'does not hold' if c.startswith('unless ') else 'holds'}" for c in clauses)
        reads = self.reads
        if not reads:
            return said
        values = " and ".join(f"{name} = {show(value)}" for name, value in reads.items())
        return f"{said}, because {values}"

    def __repr__(self) -> str:
        return f"<TraceEntry {self.spec.item} ({self.spec.rule}): {self.because}>"

    def to_dict(self) -> dict[str, object]:
        return {
            "rule": self.spec.rule,
            "source": self.spec.source,
            "item": self.spec.item,
            "applied": self.decided < 0,
            "clause": self.clause,
            "reads": {name: value_json(value) for name, value in self.reads.items()},
            "because": self.because,
        }


@dataclass(frozen=True, slots=True)
class TableRow:
    key: str
    values: Mapping[str, Value]
    steps: tuple[str, ...]
    probability: Fraction | None

    def to_dict(self) -> dict[str, object]:
        return {
            "key": self.key,
            "values": {k: value_json(v) for k, v in self.values.items()},
            "then": list(self.steps),
            "probability": None if self.probability is None else probability_json(self.probability),
        }


@dataclass(frozen=True, slots=True)
class TableResult:
    """A table consulted: the row the situation selects (if known) and every row's chance."""

    name: str
    title: str
    source: str | None
    dice: str | None
    keys: Mapping[str, Value]  # the inputs it is looked up by, with their values
    result: int | None  # the modified roll, when a roll was given
    selected: TableRow | None
    rows: tuple[TableRow, ...]
    rolled: DiceRoll | None = None  # the dice rolled for it (`rng=`, `rolled=`), each die's faces
    chained: tuple[ChainRoll, ...] = ()  # the rolls its row sent on to, in the order they were rolled

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "title": self.title,
            "source": self.source,
            "dice": self.dice,
            "keys": {k: value_json(v) for k, v in self.keys.items()},
            "result": None if self.result is None else number_json(self.result),
            "selected": None if self.selected is None else self.selected.to_dict(),
            "rows": [row.to_dict() for row in self.rows],
            **({"rolled": self.rolled.to_dict()} if self.rolled is not None else {}),
            **({"chained": [c.to_dict() for c in self.chained]} if self.rolled is not None else {}),
        }


@dataclass(frozen=True, slots=True)
class ChainRoll:
    """One roll a chain made when its table was rolled: the table, the dice (with the step's `+N`
    as their bonus), the total that selected the row (after `above N: as M`), the row with its
    steps, its depth (one deeper than the roll that sent on to it), whether it applies (a row that
    only sends on does not) and whether it was rolled again (a roll-twice row met by one of the two
    rolls of a roll twice gives nothing)."""

    table: str
    depth: int
    rolled: DiceRoll
    result: int
    row: TableRow
    applies: bool
    again: bool = False

    def to_dict(self) -> dict[str, object]:
        return {
            "table": self.table,
            "depth": self.depth,
            "rolled": self.rolled.to_dict(),
            "result": number_json(self.result),
            "row": self.row.to_dict(),
            "applies": self.applies,
            "again": self.again,
        }


@dataclass(frozen=True, slots=True)
class Resolution:
    """Everything a situation resolves to.  `to_dict()` is what `rulecraft resolve --json` prints."""

    rulebook: str
    rules: tuple[str, ...]
    inputs: Mapping[str, Value]  # every input and stat the rules read: the value given, or its default
    stats: Mapping[str, Value]  # every stat the rules read or change: its value after the rules
    derived: Mapping[str, Value]  # the values the rules derive
    modifiers: tuple[Modifier, ...]
    rolls: tuple[Roll, ...]
    restrictions: tuple[Restriction, ...]
    notes: tuple[Note, ...]
    tables: tuple[TableResult, ...]
    trace: tuple[TraceEntry, ...]
    sequence: SequenceResult | None = None  # resolved over rounds (`rounds=N`): each round, the totals
    chains: tuple[Chain, ...] = ()  # the whole procedures started by tables and outcomes that send on

    def roll(self, name: str, rule: str | None = None) -> Roll:
        """The roll called `name` (of `rule`, when several rules call for a roll of that name).

        RuleInputError if the situation calls for none, or for several and `rule` is not given.
        """
        found = [r for r in self.rolls if r.spec.name == name and (rule is None or rule in r.asked_by)]
        if len(found) == 1:
            return found[0]
        if found:
            rules = ", ".join(r.spec.rule for r in found)
            raise RuleInputError(f"several rules call for a roll `{clip(name)}` ({rules}): say which with rule=")
        called = ", ".join(f"{r.spec.name} ({r.spec.rule})" for r in self.rolls) or "none"
        raise RuleInputError(f"no roll `{clip(name)}` in this situation (rolls: {called})")

    def rolled(self, name: str, rule: str | None = None) -> RollMade:
        """What the roll called `name` (of `rule`; a table's name for a table rolled on) came to,
        when the situation was rolled (`rng=`) or its results told (`rolled=`).

        RuleInputError if there is no such roll, or it was not rolled."""
        table = next((t for t in self.tables if t.name == name and rule is None), None)
        if table is not None and table.rolled is not None and table.result is not None:
            key = table.selected.key if table.selected is not None else None
            outcome = f"row {key}" if key is not None else "no row"
            return RollMade("table", (table.rolled,), table.result, None, outcome, (outcome,), None, ())
        roll = self.roll(name, rule)
        if roll.rolled is None:
            raise RuleInputError(f"roll `{clip(name)}` was not rolled: resolve with rng= (or its result in rolled=)")
        return roll.rolled

    def __repr__(self) -> str:
        parts = [f"{name} {show(value)}" for name, value in self.stats.items() if self.inputs.get(name) != value]
        parts += [f"{name} = {show(value)}" for name, value in self.derived.items()]
        parts += [repr(roll)[1:-1] for roll in self.rolls]
        parts += [item.text for item in self.restrictions]
        return f"<Resolution {', '.join(self.rules)}: {'; '.join(parts) or 'no effect'}>"

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "rulebook": self.rulebook,
            "rules": list(self.rules),
            "inputs": {k: value_json(v) for k, v in self.inputs.items()},
            "stats": {
                k: {"start": value_json(self.inputs.get(k)), "final": value_json(v)} for k, v in self.stats.items()
            },
            "derived": {k: value_json(v) for k, v in self.derived.items()},
            "modifiers": [x.to_dict() for x in self.modifiers],
            "rolls": [x.to_dict() for x in self.rolls],
            "restrictions": [x.to_dict() for x in self.restrictions],
            "notes": [x.to_dict() for x in self.notes],
            "tables": [x.to_dict() for x in self.tables],
            "trace": [x.to_dict() for x in self.trace],
            "chains": [x.to_dict() for x in self.chains],
        }
        if self.sequence is not None:
            data["sequence"] = self.sequence.to_dict()
        return data


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """A rule, terrain, condition, trait or table, with the inputs it reads and what it produces:
    the stats it changes (its modifiers', its outcomes' and those of the rules it composes), the
    values it derives, the rolls it may ask for, and, for a table, its columns."""

    name: str
    kind: str
    title: str
    source: str | None
    reads: tuple[str, ...]
    stats: tuple[str, ...] = ()
    derived: tuple[str, ...] = ()
    rolls: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ChainStep:
    """One row a chain visits: the table, what was rolled, the row and the step it leads to."""

    table: str
    roll: str  # "d6 + 1"
    key: str  # the row's key; "above 10 as 10" for a folded total
    text: str  # the row's values
    then: tuple[str, ...]  # the steps it leads to ("roll on fire_control +1")
    applies: bool  # False for a row that only sends on
    depth: int  # 0 for the first roll; the two rolls of a roll twice one deeper

    @property
    def row(self) -> str:
        return f"{self.table} {self.key}"

    def to_dict(self) -> dict[str, object]:
        """The row itself (once per chain, in its `rows`)."""
        return {"table": self.table, "key": self.key, "text": self.text, "then": list(self.then), "applies": self.applies}


@dataclass(frozen=True, slots=True)
class ChainOutcome:
    """One way a chain can go: the rows visited, the results that apply and its chance."""

    path: tuple[ChainStep, ...]
    probability: Fraction  # of the whole path, the start's chance included
    totals: Mapping[str, int | Fraction]  # each value column summed over the rows that apply

    @property
    def results(self) -> tuple[str, ...]:
        return tuple(f"{s.table} {s.key}: {s.text}" for s in self.path if s.applies)

    def to_dict(self) -> dict[str, object]:
        return {
            "path": [{"row": s.row, "roll": s.roll, "depth": s.depth} for s in self.path],
            "totals": {k: number_json(v) for k, v in self.totals.items()},
            "probability": probability_json(self.probability),
        }


@dataclass(frozen=True, slots=True)
class FlowStep:
    """A line of a chain's flow: a row of one roll, the chance of it on that roll, and the chance
    of reaching it by this route (a roll twice's rows: on each of its two rolls)."""

    depth: int
    table: str
    roll: str
    key: str
    text: str
    chance: Fraction
    reach: Fraction
    then: tuple[str, ...]
    repeats: bool  # it leads back to a roll shown above on this route (not shown again)
    twice: bool = False  # a row of one of the two rolls of a roll twice
    cut: bool = False  # the rolls it leads to are past the deepest the flow shows (CHAIN_FLOW)

    def to_dict(self) -> dict[str, object]:
        return {
            "depth": self.depth,
            "row": f"{self.table} {self.key}",
            "roll": self.roll,
            "text": self.text,
            "chance": probability_json(self.chance),
            "reach": probability_json(self.reach),
            "then": list(self.then),
            "repeats": self.repeats,
            "twice": self.twice,
            "cut": self.cut,
        }


@dataclass(frozen=True, slots=True)
class Chain:
    """The whole procedure from a table or a roll's outcome: every way it goes, exactly."""

    rule: str  # the rule or table the chain starts from
    start: str  # "table heavy_damage (d6)", "roll maneuver_roll: failure"
    probability: Fraction  # the chance the chain starts
    outcomes: tuple[ChainOutcome, ...]
    complete: bool  # every way is listed; else those of more than `depth` rolls in a row are not
    depth: int | None
    beyond: Fraction  # the chance of the ways not listed
    rolls: Fraction | None  # expected number of rolls (None: the procedure need not end)
    visits: Mapping[str, Fraction]  # expected times each row is visited ("table key")
    means: Mapping[str, Fraction]  # expected total of each value column
    flow: tuple[FlowStep, ...] = ()  # each roll once per route, its rows with their chances

    def chance(self, row: str) -> Fraction:
        """The chance that a row ("table key") is visited at least once, over the ways listed."""
        return sum((o.probability for o in self.outcomes if any(s.row == row for s in o.path)), Fraction(0))

    def distribution(self, column: str) -> dict[int | Fraction, Fraction]:
        """The chance of each total of a value column, over the ways listed."""
        found: dict[int | Fraction, Fraction] = {}
        for outcome in self.outcomes:
            total = outcome.totals.get(column, 0)
            found[total] = found.get(total, Fraction(0)) + outcome.probability
        return dict(sorted(found.items()))

    def to_dict(self) -> dict[str, object]:
        columns = sorted({c for o in self.outcomes for c in o.totals})
        return {
            "rule": self.rule,
            "start": self.start,
            "probability": probability_json(self.probability),
            "complete": self.complete,
            "depth": self.depth,
            "beyond": probability_json(self.beyond),
            "rolls": None if self.rolls is None else number_json(self.rolls),
            "visits": {k: number_json(v) for k, v in self.visits.items()},
            "means": {k: number_json(v) for k, v in self.means.items()},
            "totals": {
                c: [{"total": number_json(t), "probability": probability_json(p)} for t, p in self.distribution(c).items()]
                for c in columns
            },
            "flow": [s.to_dict() for s in self.flow],
            "rows": {s.row: s.to_dict() for o in self.outcomes for s in o.path},
            "outcomes": [o.to_dict() for o in self.outcomes],
        }


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One round of a sequence: its number (the counter's value; from 1 without a counter); the chance the sequence is still going when
    the round begins and that it ends in it; the chance of each outcome of each roll made in it
    (a roll not made while the sequence goes on counts for nothing); and the mean of each total
    after it."""

    number: int
    going: Fraction
    ends: Fraction
    rolls: Mapping[str, Mapping[str, Fraction]]
    means: Mapping[str, Fraction]
    rolled: RolledRound | None = None  # the round as rolled (`rng=`, `rolled=`), when it was

    def to_dict(self) -> dict[str, object]:
        return {
            "number": self.number,
            "going": probability_json(self.going),
            "ends": probability_json(self.ends),
            "rolls": {
                name: {outcome: probability_json(p) for outcome, p in outcomes.items()}
                for name, outcomes in self.rolls.items()
            },
            "means": {name: number_json(mean) for name, mean in self.means.items()},
            **({"rolled": self.rolled.to_dict()} if self.rolled is not None else {}),
        }


@dataclass(frozen=True, slots=True)
class RolledRound:
    """One round of a sequence as rolled: whether `then` had set its input before it (`changed`),
    whether the `until` outcome came up in it (`ends`), its rolls and tables rolled, what each
    total took from it (a number, or dice rolled) and each total so far."""

    changed: bool
    ends: bool
    rolls: tuple[Roll, ...]
    tables: tuple[TableResult, ...]
    values: Mapping[str, RolledValue]
    totals: Mapping[str, int | Fraction]

    def to_dict(self) -> dict[str, object]:
        return {
            "changed": self.changed,
            "ends": self.ends,
            "rolls": [
                {"name": roll.name, "rule": roll.rule, "rolled": roll.rolled.to_dict()}
                for roll in self.rolls
                if roll.rolled is not None
            ],
            "tables": [table.to_dict() for table in self.tables],
            "values": {name: value.to_dict() for name, value in self.values.items()},
            "totals": {name: number_json(total) for name, total in self.totals.items()},
        }


@dataclass(frozen=True, slots=True)
class RolledValue:
    """What a total took from one rolled round: the derived value, its dice rolled when it is
    dice (None for a number, or a round that derives none: 0)."""

    value: int | Fraction
    rolled: DiceRoll | None

    def to_dict(self) -> dict[str, object]:
        return {"value": number_json(self.value), "rolled": None if self.rolled is None else self.rolled.to_dict()}


@dataclass(frozen=True, slots=True)
class RolledSequence:
    """A sequence as rolled, round after round: how many rounds were rolled (to the one it ended
    in, or as far as results were told), the round it ended in and the round whose `until`
    outcome set the input of `then` (None when none did), and each total rolled."""

    rounds: int
    ended: int | None
    changed: int | None
    totals: Mapping[str, int | Fraction]

    def to_dict(self) -> dict[str, object]:
        return {
            "rounds": self.rounds,
            "ended": self.ended,
            "changed": self.changed,
            "totals": {name: number_json(total) for name, total in self.totals.items()},
        }


@dataclass(frozen=True, slots=True)
class SequenceResult:
    """A rule resolved over rounds: each round, the chance of lasting them all (never the `until`
    outcome; 1 without one), and the exact distribution of each total after the last round."""

    rule: str
    unit: str
    counter: str | None
    until: str | None
    rounds: tuple[RoundResult, ...]
    lasting: Fraction
    totals: Mapping[str, Chances]
    rolled: RolledSequence | None = None  # the rounds as rolled (`rng=`, `rolled=`), when they were

    def to_dict(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "unit": self.unit,
            "counter": self.counter,
            "until": self.until,
            "rounds": [r.to_dict() for r in self.rounds],
            "lasting": probability_json(self.lasting),
            "totals": {name: chances.to_dict() for name, chances in self.totals.items()},
            **({"rolled": self.rolled.to_dict()} if self.rolled is not None else {}),
        }
