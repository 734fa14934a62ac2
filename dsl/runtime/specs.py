"""What a generated module says of each rule, the same in every resolution: its modifiers, rolls,
texts and derived values (`ModSpec`, `RollSpec`, ...), each as a `Step` with the clauses of its
condition; its tables; its sequence over rounds; the trace spec of each step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from .dice import Value
from .pools import showing_within

if TYPE_CHECKING:
    from .book import Scope
    from .results import Note, Resolution


@dataclass(frozen=True, slots=True)
class TraceSpec:
    """What a trace entry is about, the same in every resolution: the clauses of its condition,
    as written, and the names each reads."""

    rule: str
    source: str | None
    item: str
    clauses: tuple[str, ...]
    names: tuple[tuple[str, ...], ...]
    verdict: str | None = None  # what a lookup found ("row 4..6"), said in place of "holds"


Clause = Callable[["Scope"], bool]
"""One condition of a guard (`when` or `unless` already applied): holds in a scope or not."""

Amount = Any
"""A value known when compiling, or a function of the Scope computing it."""


@dataclass(frozen=True, slots=True)
class ModSpec:
    key: str
    rule: str
    source: str | None
    target: str
    op: str  # add | mul | div | set | min | max | grade | dice | step | shift
    text: str
    group: str | None
    stacking: str
    rounding: str | None
    condition: str
    label: str | None = None


@dataclass(frozen=True, slots=True)
class ChangeSpec:
    kind: str  # pool | dice | target | automatic | tiers
    pool: tuple[int, int, str | None] | None
    delta: int
    success: bool
    condition: str
    tiers: tuple[TierSpec, ...] = ()  # `when advanced: tiers advanced_move`: the tiers the roll is read with


@dataclass(frozen=True, slots=True)
class TierSpec:
    name: str
    op: str | None  # <= | >= on the total; None for natural and "otherwise"
    bound: Callable[[int | Fraction], Fraction | int] | None
    natural: tuple[int, int] | None = None  # the dice alone show low..high
    always: str | None = None  # "success" | "failure": decides the roll whatever the target
    die: str | None = None  # `natural 1 on wild`: the first face of the die named `wild`
    # `and natural 1 on wild`: the (low, high, die) read after the first, joined by `joined`
    # ("and": every one holds, "or": any holds)
    also: tuple[tuple[int, int, str | None], ...] = ()
    joined: str = "and"

    def tests(self) -> tuple[tuple[int, int, str | None], ...]:
        """Every (low, high, die) a natural tier reads; none for a tier on the total."""
        if self.natural is None:
            return ()
        return ((self.natural[0], self.natural[1], self.die), *self.also)

    def shows(self, names: Sequence[str | None], naturals: Sequence[int]) -> bool:
        """Whether the naturals (the first face of each die of `names`, None the dice alone)
        hold this natural tier."""
        shown = (low <= naturals[names.index(die)] <= high for low, high, die in self.tests())
        return all(shown) if self.joined == "and" else any(shown)


def counts_dice(tiers: tuple[TierSpec, ...]) -> bool:
    """Whether the tiers count the dice showing a face (`roll showing 6 >= 2`), which only the
    faces rolled tell, never a total."""
    return any(showing_within(name) is not None for name in natural_names(tiers))


def natural_names(tiers: tuple[TierSpec, ...]) -> tuple[str | None, ...]:
    """The naturals the tiers read, once each in order: None for the dice alone, a die's name."""
    return tuple(dict.fromkeys(die for tier in tiers for _, _, die in tier.tests()))


@dataclass(frozen=True, slots=True)
class ConsequenceSpec:
    """What an outcome of a roll changes (`on failure: exhaustion +1`) or brings into play."""

    outcome: str
    text: str
    target: str | None = None  # the stat it changes
    op: str | None = None
    value: Amount = None
    rounding: str | None = None


@dataclass(frozen=True, slots=True)
class RollSpec:
    key: str
    rule: str
    source: str | None
    name: str
    label: str | None
    kind: str  # check | total | count | resist | opposed | automatic
    pool: tuple[int, int, str | None] | None
    op: str | None
    against: tuple[int, int, str | None] | None
    success: bool
    outcomes: Mapping[str, str]
    margin_outcomes: tuple[str, ...]
    tiers: tuple[TierSpec, ...]
    ties: str | None
    notes: tuple[str, ...]
    condition: str
    consequences: tuple[ConsequenceSpec, ...] = ()
    steps: tuple[tuple[str, str], ...] = ()  # (outcome, step): the outcomes that send on to a table
    separate: bool = False  # never one roll with the same roll of another rule (`separate`)


@dataclass(frozen=True, slots=True)
class TextSpec:
    key: str
    rule: str
    source: str | None
    kind: str  # cannot | note | aside | erratum
    text: str
    quote: str | None
    condition: str


@dataclass(frozen=True, slots=True)
class DeriveSpec:
    key: str
    rule: str
    source: str | None
    name: str
    condition: str


MODIFIER_KINDS: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {"number": ("scaling", "additions", "grade"), "dice": ("dice", "steps", "additions", "scaling")}
)
"""The kinds of modifier of a number (`int`, `number`, `percent`) and of a dice stat, in the order
a resolution applies them unless the book states another (`order MOV: additions before
scaling`).  `=`, `max` and `min` always come after them: they state the final value or its
bounds."""

ONE_AT_A_TIME: Final[Mapping[str, frozenset[str]]] = MappingProxyType(
    {"number": frozenset({"scaling"}), "dice": frozenset({"dice", "steps", "scaling"})}
)
"""The kinds whose modifiers apply one after the other, in the order the rules are named (or the
book's `order STAT: RULE before RULE`); additions add up and grades net out, in any order."""

KIND_OPS: Final[Mapping[str, frozenset[str]]] = MappingProxyType(
    {
        "scaling": frozenset({"mul", "div"}),
        "additions": frozenset({"add"}),
        "grade": frozenset({"grade"}),
        "dice": frozenset({"dice"}),
        "steps": frozenset({"step"}),
    }
)
"""The operations of each kind of modifier."""


@dataclass(frozen=True, slots=True)
class StatOrder:
    """The order a book states for a stat's modifiers: its kinds, first to last, and the rules
    whose modifiers of a kind applied one at a time take their places in this order."""

    kinds: tuple[str, ...]
    rules: tuple[str, ...] = ()


def in_rule_order(rules: Sequence[str], origins: Sequence[str]) -> list[int]:
    """The indexes of modifiers (by the rule each comes from) in the order they apply: those of
    the ranked `rules` in that order, in the places they take among the others, which keep
    theirs (a stable sort of the ranked ones alone, so every other order stays as named)."""
    rank = {rule: i for i, rule in enumerate(rules)}
    places = [i for i, origin in enumerate(origins) if origin in rank]
    moved = sorted(places, key=lambda i: rank[origins[i]])
    found = list(range(len(origins)))
    for place, index in zip(places, moved, strict=True):
        found[place] = index
    return found


@dataclass(frozen=True, slots=True)
class Grade:
    name: str
    step: int | None
    op: str
    value: Fraction
    rounding: str | None


@dataclass(frozen=True, slots=True)
class RollStep:
    """A roll of a rule as its code makes it (`roll_of`): its spec, its values (a function of the
    scope: target, what is added, dice worked out, dice needed; or the active and passive values
    of a resistance roll, or an opposed roll's bonuses), and its changes, each with the clauses of
    its condition, its amount and its trace spec."""

    spec: RollSpec
    values: Amount
    changes: tuple[tuple[ChangeSpec, tuple[Clause, ...], Amount, TraceSpec], ...] = ()


Candidate = tuple[Any, str, int, "TraceSpec | None", Any, Any]
"""A step of a rule as its code decided it (dsl/runtime/resolve.py): its place (an index in its
rule, or the rule's place and that index), its key, the clause that did not hold (-1: all held),
its trace spec (None for a text without conditions), its spec, and what it gives: a modifier's
amount (or the function working it out, once it is traced), a function giving a derived value, a
roll's `RollStep`, a text's note or restriction."""

NodeFunction = Callable[["Scope", int, list[Candidate]], None]
"""A rule's code for one value it settles (or for its rolls, or its texts): decides the rule's
steps of it in the scope and adds them as candidates, placed at the rule's place (`int`)."""


@dataclass(frozen=True, slots=True)
class RuleCode:
    """A rule as its module writes it out: the function that resolves it alone, and the functions
    that decide its steps of each value (`stat X`, `derive X`), of its rolls and of its texts for
    a situation of several rules; the inputs its steps read (each with the steps reading it and
    the clause from which on they do, and the note saying it had no effect); whether its rolls
    send on to a table (a chain)."""

    resolve: Callable[[dict[str, Any], frozenset[str]], Resolution]
    nodes: Mapping[str, NodeFunction]
    rolls: NodeFunction | None = None
    texts: NodeFunction | None = None
    watches: tuple[tuple[str, tuple[tuple[int, int], ...], Note], ...] = ()
    chains: bool = False


@dataclass(frozen=True, slots=True)
class RowSpec:
    low: int | None
    high: int | None
    member: str | None
    is_else: bool
    key: str
    cells: tuple[Amount, ...]  # values, or functions of the scope for cells that read inputs
    steps: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TableSpec:
    name: str
    title: str
    source: str | None
    pool: tuple[int, int, str | None] | None
    modifier: str | None
    sign: int
    inputs: tuple[str, ...]
    columns: tuple[str, ...]
    rows: tuple[RowSpec, ...]
    above: int | None
    becomes: int | None
    overflow_step: str | None
    notes: tuple[Note, ...] = ()
    depth: int | None = None  # `chain depth N`: rolls in a row a repeating chain is listed to

    def row_for(self, keys: tuple[Value, ...]) -> RowSpec | None:
        """The row a key selects (a number, a member, or a member pair for a two-way table)."""
        key = keys[0]
        numeric = isinstance(key, (int, Fraction)) and not isinstance(key, bool)
        for row in self.rows:
            if row.member is not None and row.member == key:
                return row
            if row.low is not None and numeric and row.low <= key and (row.high is None or key <= row.high):  # type: ignore[operator]
                return row
        for row in self.rows:
            if row.is_else:
                return row
        return None


@dataclass(frozen=True, slots=True)
class SequenceSpec:
    """`each round [COUNTER]: ...` of a rule: the input counting the rounds (None: every round
    resolved alike), where it starts unless the caller gives it, the (roll, outcome) that ends
    the sequence the `times`th round it comes, the input it sets from the next round on instead
    (`then`), the derived values that add up, and the inputs that count the rounds an outcome
    came in (`counted`, all following one (roll, outcome): `follows`)."""

    rule: str
    unit: str
    counter: str | None
    start: int
    until: tuple[str, str] | None = None
    then: tuple[str, Value] | None = None
    totals: tuple[str, ...] = ()
    times: int = 1
    counted: tuple[str, ...] = ()
    follows: tuple[str, str] | None = None
