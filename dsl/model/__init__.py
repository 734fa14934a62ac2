"""The checked model of a rulebook: what the analyzer builds and every back end reads.

Rules are flattened: nested `when`/`unless`/`else` blocks become one guard per effect, so a back
end sees a list of effects per rule, each with the condition under which it applies.  `as OTHER`
is kept as a reference: a `PartEffect` naming a `Part` of `Book.parts`, the effects of OTHER with
the bindings of `as ... with` substituted, analysed once however many rules compose it (a chain
or a lattice of traits stays linear in size).  `flat_effects` (dsl/model/parts.py) expands
the references where a back end needs every effect in one list.  Expressions stay AST nodes;
what each name in them refers to is recorded in `Book.refs` (keyed by node identity) and each
node's type in `Book.types` (each a `NodeFacts`, by node identity).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Generic, Literal, TypeVar

from dsl import nodes as n
from dsl import types as t
from dsl.diagnostics import Span
from dsl.runtime.dice import Dice

Constant = int | Fraction | bool | str | Dice
"""A value known when compiling: number, flag, member of an enumeration or text, or dice."""


@dataclass(frozen=True, slots=True)
class Var:
    """An input of the situation; a stat is an input whose value rules change."""

    name: str
    label: str | None
    type: t.Type
    default: Constant | None
    is_stat: bool
    span: Span
    default_expr: n.Expr | None = None  # a default computed from other stats, e.g. `= DEX`
    phrase: str | None = None  # how cards say it: a number's or choice's words, a flag's "yes" clause
    negative: str | None = None  # a flag's "no" clause
    members: tuple[tuple[str, str], ...] = ()  # how cards say the choices that have a phrase


@dataclass(frozen=True, slots=True)
class Group:
    name: str
    label: str | None
    stacking: n.Stacking
    span: Span


@dataclass(frozen=True, slots=True)
class Grade:
    name: str
    step: int | None
    op: Literal["mul", "div", "set"]
    value: Fraction
    rounding: n.Rounding | None
    span: Span


@dataclass(frozen=True, slots=True)
class Tier:
    name: str
    op: str | None  # `roll <= BOUND` / `roll >= BOUND`: the total; None for natural and otherwise
    bound: n.Expr | None
    span: Span
    natural: tuple[int, int] | None = None  # the dice alone show low..high
    always: Literal["success", "failure"] | None = None  # decides the roll whatever the target
    die: str | None = None  # `natural 1 on wild`: the first face of the die named `wild`
    # `and natural 1 on wild`: the faces read after the first, joined by `joined`
    also: tuple[NaturalTest, ...] = ()
    joined: Literal["and", "or"] = "and"

    def tests(self) -> tuple[tuple[int, int, str | None], ...]:
        """Every (low, high, die) a natural tier reads; none for a tier on the total."""
        if self.natural is None:
            return ()
        return ((self.natural[0], self.natural[1], self.die), *((x.low, x.high, x.die) for x in self.also))


@dataclass(frozen=True, slots=True)
class NaturalTest:
    """`natural 1 on wild` after the first of a tier: the die (None: the dice alone) shows
    low..high first."""

    low: int
    high: int
    die: str | None = None


@dataclass(frozen=True, slots=True)
class TierSystem:
    name: str
    label: str | None
    tiers: tuple[Tier, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Resistance:
    label: str | None
    pool: n.Pool
    op: str
    target: n.Expr
    span: Span


@dataclass(frozen=True, slots=True)
class StatBlock:
    """How the rules of some kinds are laid out on a card: each row names the traits (rules) a
    rule may compose and the stats it may change, and shows what the rule does there."""

    name: str
    label: str | None
    kinds: tuple[str, ...]
    rows: tuple[tuple[str, tuple[str, ...]], ...]  # (label, names of rules and stats)
    span: Span


# ---------------------------------------------------------------- effects


@dataclass(frozen=True, slots=True)
class Condition:
    """One clause of a guard: `when expr` or `unless expr`."""

    expr: n.Expr
    negated: bool


@dataclass(frozen=True, slots=True)
class Effect:
    """Something a rule does under a guard (all of its conditions hold)."""

    key: str  # stable identity: origin rule, statement number, and the bindings of `as`
    origin: str  # the rule whose text this is
    cites: str | None
    guard: tuple[Condition, ...]
    via: tuple[str, ...]  # the `as` chain that brought it here, outermost first
    span: Span


@dataclass(frozen=True, slots=True)
class ModEffect(Effect):
    target: str
    op: Literal["add", "mul", "div", "set", "min", "max", "grade", "dice", "step", "shift"]
    value: n.Expr | None
    rounding: n.Rounding | None
    per: n.Expr | None
    percent: bool
    delta: int
    grade: str | None
    group: str | None
    label: str | None


@dataclass(frozen=True, slots=True)
class RollChange:
    guard: tuple[Condition, ...]
    kind: Literal["pool", "dice", "target", "automatic", "tiers"]
    pool: n.Pool | None
    delta: int
    value: n.Expr | None
    success: bool
    span: Span
    tiers: str | None = None  # `when advanced: tiers advanced_move`: the tier system the roll is read with


@dataclass(frozen=True, slots=True)
class Outcome:
    name: str
    by_margin: bool
    text: str | None
    step: Step | None
    span: Span
    changes: tuple[ModEffect, ...] = ()  # `on failure: exhaustion +1`: what the outcome changes
    applies: tuple[str, ...] = ()  # `on failure: as prone`: the rules it brings into play


@dataclass(frozen=True, slots=True)
class RollEffect(Effect):
    name: str
    label: str | None
    kind: Literal["check", "total", "count", "resist", "opposed", "automatic"]
    pool: n.Pool | None  # dice known when writing
    dice: n.Expr | None  # or dice worked out when resolving: `skill d10`, a dice stat
    adds: tuple[n.Expr, ...]  # added to the dice: `d20 + attack_bonus`
    needed: n.Expr | None  # a count: how many dice must meet the target
    op: str | None
    target: n.Expr | None
    active: n.Expr | None
    passive: n.Expr | None
    against: n.Pool | None
    bonus: n.Expr | None
    against_bonus: n.Expr | None
    success: bool
    changes: tuple[RollChange, ...]
    outcomes: tuple[Outcome, ...]
    tiers: str | None
    ties: str | None
    notes: tuple[tuple[str, str | None], ...]  # (text, quoted source for an erratum)
    separate: bool = False  # `separate`: never merged with the same roll of another rule
    against_dice: n.Expr | None = None  # an opposed roll's second side, as dice worked out when resolving
    target_dice: n.Expr | None = None
    """A check's target when it is dice, as written (`skill >= difficulty`): the roll is worked
    out as its `dice` (which end with these dice times -1) against `target` 0; printed as written."""

    def systems(self) -> tuple[str, ...]:
        """The tier systems the roll may be read with: its own (`tiers NAME`), then each one a
        change under a condition chooses (`when advanced: tiers advanced_move`), once each."""
        chosen = (self.tiers, *(change.tiers for change in self.changes))
        return tuple(dict.fromkeys(name for name in chosen if name is not None))


@dataclass(frozen=True, slots=True)
class CannotEffect(Effect):
    text: str


PLAIN_OUTCOMES = ("success", "failure")
OPPOSED_OUTCOMES = ("win", "tie", "lose")
"""The outcomes of a roll read without tiers, and of an opposed roll."""


def note_kind(quote: str | None, aside: bool = False) -> str:
    """What a note is, as resolvers, exports and describe name it: an `erratum` (it quotes the
    source), an `aside` (reading matter) or a `note`."""
    return "erratum" if quote is not None else "aside" if aside else "note"


@dataclass(frozen=True, slots=True)
class NoteEffect(Effect):
    text: str
    quote: str | None  # set for an erratum: the words of the source it explains
    aside: bool = False  # `aside`: reading matter, printed in the appendix rather than on the card


@dataclass(frozen=True, slots=True)
class PartEffect(Effect):
    """`as OTHER [with NAME = VALUE, ...]`: the effects of `Book.parts[part]` apply under this
    effect's guard (each of them under its own guard as well)."""

    part: str
    rule: str  # the rule composed (OTHER)


@dataclass(frozen=True, slots=True)
class Part:
    """A rule's effects as one rule composes them: the rule itself (key: its name), or the rule
    with the bindings of `as ... with` substituted (key: the name and the bindings).  Guards are
    those written in the rule; the guard of the `as` that brings it in stays on the PartEffect."""

    key: str
    rule: str
    effects: tuple[Effect, ...]
    derives: tuple[tuple[str, t.Type], ...]  # values it derives, visible after the `as`


@dataclass(frozen=True, slots=True)
class DeriveEffect(Effect):
    name: str
    label: str | None
    unit: str | None
    value: n.Expr
    type: t.Type


# ---------------------------------------------------------------- rules, tables, examples


@dataclass(frozen=True, slots=True)
class Example:
    title: str
    rules: tuple[str, ...]
    givens: tuple[tuple[str, n.Expr], ...]
    expectations: tuple[n.Expectation, ...]
    span: Span
    given_at: tuple[Span, ...] = ()  # where each given value is named
    rounds: int | None = None  # `over 3 rounds`: resolved as a sequence of so many rounds


@dataclass(frozen=True, slots=True)
class SpaceAxis:
    """One input of a balance space and every value it takes there, in order: a `range` for
    whole numbers (a space of a million values costs no more than one of ten), else the values."""

    name: str
    values: range | tuple[Constant, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Balance:
    """`balance "..." for RULES:` what the designer wants of the rules in every situation of a
    space (the product of its axes, the givens held fixed): claims checked exactly, never printed."""

    title: str
    rules: tuple[str, ...]
    space: tuple[SpaceAxis, ...]
    givens: tuple[tuple[str, Constant], ...]
    claims: tuple[n.Claim, ...]
    span: Span
    given_at: tuple[Span, ...] = ()  # where each given value is named

    @property
    def size(self) -> int:
        """The situations of the space."""
        return math.prod(len(axis.values) for axis in self.space)

    def variants(self) -> tuple[tuple[str, ...], ...]:
        """The sets of rules the claims resolve: the block's own first, then each `in ...` named."""
        found = [self.rules]
        for claim in self.claims:
            for measure in claim_measures(claim):
                rules = rules_of(measure, self.rules)
                if rules not in found:
                    found.append(rules)
        return tuple(found)


def claim_measures(claim: n.Claim) -> tuple[n.Measure, ...]:
    """What a claim measures: one measure, or two compared."""
    if isinstance(claim, n.ClaimVersus):
        return (claim.measure, claim.other)
    return (claim.measure,)


def rules_of(measure: n.Measure, rules: tuple[str, ...]) -> tuple[str, ...]:
    """The rules a measure is taken under: its `in ...` variant, else the block's RULES."""
    return tuple(name.text for name in measure.variant) if measure.variant else rules


@dataclass(frozen=True, slots=True)
class SequenceCount:
    """`count stamina fails as failures`: the int input set, in each round, to the number of
    rounds before it in which the roll had the outcome (as a resolution names it)."""

    roll: str
    outcome: str
    input: str


@dataclass(frozen=True, slots=True)
class Sequence:
    """`each round [COUNTER]: ...`: what changes from round to round when the rule is resolved
    over rounds (`rounds=N`).  `counter` is None when no input counts the rounds (each round is
    resolved alike).  `until` is (roll, outcome) with the outcome as a resolution names it
    (`success`, `failure`, a tier), ending the sequence the `times`th round it comes; `then` the
    input set from the round after it, with its value; `counts` the inputs that count how often
    an outcome has come (one roll and outcome throughout the sequence: analysis/sequences.py)."""

    unit: str
    counter: str | None
    start: int
    until: tuple[str, str] | None
    then: tuple[str, n.Expr] | None
    totals: tuple[str, ...]
    span: Span
    times: int = 1
    counts: tuple[SequenceCount, ...] = ()


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    kind: n.RuleKind
    title: str
    cites: str | None
    category: str | None
    effects: tuple[Effect, ...]  # its own, and a PartEffect for each `as` (= Book.parts[name].effects)
    examples: tuple[Example, ...]
    reads: tuple[str, ...]  # the inputs and stats it reads or changes, composed parts included
    span: Span
    sequence: Sequence | None = None  # `each round ...`: how it is resolved over rounds


@dataclass(frozen=True, slots=True)
class Step:
    kind: Literal["roll_on", "twice", "again"]
    table: str | None
    offset: int
    span: Span


@dataclass(frozen=True, slots=True)
class TableCell:
    kind: Literal["value", "impassable", "na", "step"]
    value: n.Expr | None
    step: Step | None
    span: Span


@dataclass(frozen=True, slots=True)
class TableRow:
    low: int | None  # numeric rows: the first value covered
    high: int | None  # the last value covered; None when open upward
    member: str | None  # enumeration rows
    is_else: bool
    cells: tuple[TableCell, ...]
    span: Span
    threshold: bool = False  # written `N+`: from N up to the next row

    def key_text(self) -> str:
        if self.is_else:
            return "else"
        if self.member is not None:
            return self.member
        if self.high is None or self.threshold:
            return f"{self.low}+"
        if self.low == self.high:
            return str(self.low)
        return f"{self.low}..{self.high}"


@dataclass(frozen=True, slots=True)
class Overflow:
    above: int
    becomes: int
    step: Step | None
    span: Span


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    title: str
    cites: str | None
    category: str | None
    key: Literal["roll", "input"]
    pool: n.Pool | None
    modifier: str | None  # input added to (or subtracted from) the roll
    modifier_sign: int
    inputs: tuple[str, ...]  # keys of an input table: one, or row and column of a 2-D table
    columns: tuple[tuple[str, str | None], ...]  # (name, label)
    rows: tuple[TableRow, ...]
    overflow: Overflow | None
    notes: tuple[tuple[str, str | None], ...]
    span: Span
    reads: tuple[str, ...] = ()  # its keys and modifier, and what their values start from
    asides: tuple[str, ...] = ()  # `aside`: reading matter, printed in the appendix, not on its card
    chain_depth: int | None = None  # `chain depth N`: rolls in a row a repeating chain lists
    chain_depth_span: Span | None = None

    @property
    def two_dimensional(self) -> bool:
        return len(self.inputs) == 2

    @property
    def all_notes(self) -> tuple[tuple[str, str | None, str], ...]:
        """Its notes, errata and asides, each as (text, quoted source or None, `note_kind`)."""
        notes = tuple((text, quote, note_kind(quote)) for text, quote in self.notes)
        return notes + tuple((text, None, note_kind(None, aside=True)) for text in self.asides)


@dataclass(frozen=True, slots=True)
class Order:
    """`order STAT: A before B ...`: kinds of modifier of a stat (`additions before scaling`), or
    rules whose modifiers of it apply one at a time, in the order they apply, with the notes and
    errata that quote the source."""

    stat: str
    items: tuple[str, ...]
    notes: tuple[tuple[str, str | None], ...]
    span: Span


@dataclass(frozen=True, slots=True)
class StatOrder:
    """How a stat's modifiers apply where the book states an order (dsl/analysis/precedence.py):
    its kinds of modifier, first to last, and the rules whose modifiers of a kind applied one at
    a time (scalings; for dice also dice and steps) take their places in this order, whatever
    order a situation names them in."""

    kinds: tuple[str, ...]
    rules: tuple[str, ...]


# ---------------------------------------------------------------- the book


@dataclass
class Book:
    name: str
    title: str
    source: str | None
    version: str | None
    notes: tuple[tuple[str, str | None], ...]
    path: str
    units: dict[str, str | None] = field(default_factory=dict)
    vars: dict[str, Var] = field(default_factory=dict)
    groups: dict[str, Group] = field(default_factory=dict)
    grades: tuple[Grade, ...] = ()
    tiers: dict[str, TierSystem] = field(default_factory=dict)
    resistance: Resistance | None = None
    statblocks: tuple[StatBlock, ...] = ()
    rules: dict[str, Rule] = field(default_factory=dict)
    parts: dict[str, Part] = field(default_factory=dict)
    tables: dict[str, Table] = field(default_factory=dict)
    examples: list[Example] = field(default_factory=list)
    balances: list[Balance] = field(default_factory=list)
    orders: list[Order] = field(default_factory=list)
    stat_orders: dict[str, StatOrder] = field(default_factory=dict)
    refs: NodeFacts[Ref] = field(default_factory=lambda: NodeFacts[Ref]())
    """What each name in an expression stands for, by the name's node."""
    types: NodeFacts[t.Type] = field(default_factory=lambda: NodeFacts[t.Type]())
    """The type of each expression node."""
    table_reads: dict[str, frozenset[str]] = field(default_factory=dict)
    """What a lookup of each table reads: worked out by the analysis for every table."""
    settle: tuple[str, ...] = ()
    """The order in which the values settle, each after what it reads (dsl.model.order): worked
    out once, by the analysis, for the backends, the reference and the export."""

    def ref(self, expr: n.Expr) -> Ref:
        return self.refs[expr]

    def type_of(self, expr: n.Expr) -> t.Type:
        return self.types[expr]

    def tier_names(self, roll: RollEffect) -> tuple[str, ...]:
        """The tiers of every system a roll may be read with, once each, its own system's first."""
        systems = [self.tiers[name] for name in roll.systems() if name in self.tiers]
        return tuple(dict.fromkeys(tier.name for system in systems for tier in system.tiers))

    def outcome_names(self, roll: RollEffect) -> tuple[str, ...]:
        """The outcomes a roll may come to, as examples and balance claims name them (`roll
        read.strong_hit`): win, tie and lose for an opposed roll; else the tiers of every system
        it may be read with, or success and failure."""
        if roll.kind == "opposed":
            return OPPOSED_OUTCOMES
        return self.tier_names(roll) or PLAIN_OUTCOMES


V = TypeVar("V")


class NodeFacts(Generic[V]):
    """Facts about the nodes of a syntax tree, by node identity: the same text at two places is two
    nodes, with facts of its own (the nodes compare equal, so a dict would mix them).  It holds
    each node it has a fact about, so no node's identity is reused while the facts live."""

    __slots__ = ("_facts",)

    def __init__(self) -> None:
        self._facts: dict[int, tuple[n.Node, V]] = {}

    def __setitem__(self, node: n.Node, fact: V) -> None:
        self._facts[id(node)] = (node, fact)

    def __getitem__(self, node: n.Node) -> V:
        return self._facts[id(node)][1]

    def __contains__(self, node: object) -> bool:
        found = self._facts.get(id(node))
        return found is not None and found[0] is node

    def __len__(self) -> int:
        return len(self._facts)

    def get(self, node: n.Node, default: V | None = None) -> V | None:
        found = self._facts.get(id(node))
        return default if found is None else found[1]

    def items(self) -> Iterator[tuple[n.Node, V]]:
        return iter(self._facts.values())


RefKind = Literal["input", "stat", "base", "derive", "member", "special", "function", "table"]


@dataclass(frozen=True, slots=True)
class Ref:
    """What a name in an expression stands for."""

    kind: RefKind
    name: str
