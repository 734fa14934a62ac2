"""The abstract syntax tree.

One frozen dataclass per construct, named after its grammar rule or alias in
grammars/rulecraft.lark (`when_block` -> WhenBlock, `-> add_mod` -> AddMod).  Every node carries
the span of the text it came from, so any later stage can point at it.

Positions are kept compactly: a node the parser builds holds the parse's shared `Source` (path and
line starts) where its span goes, and one int, the character offsets of its start and end
(`dsl.diagnostics.at`), in a slot of its own; `node.span` works its line and columns out from
them when asked (few are: diagnostics, the editor).  A node made with a `Span` keeps that Span.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal, cast

from dsl.diagnostics import Source, Span, slots_init


class _Placed:
    __slots__ = ("_at",)


@dataclass(frozen=True, slots=True)
class Node(_Placed):
    span: Span = field(compare=False, repr=False)


_SPAN_SLOT = Node.__dict__["span"]
place = _Placed._at.__set__  # type: ignore[attr-defined]
"""`place(node, at)`: give a node the parser made with its `Source` as `span` its compact position."""
_placed_at = _Placed._at.__get__  # type: ignore[attr-defined]


def _span(node: Node) -> Span:
    held = _SPAN_SLOT.__get__(node, Node)
    if held.__class__ is Source:
        return held.span(_placed_at(node))
    return held  # type: ignore[no-any-return]


# `span` reads through a property (the dataclass field stays, so `Node(span=...)`, `replace` and
# pickling work as before); stored values go straight to the slot
setattr(Node, "span", property(_span, _SPAN_SLOT.__set__))  # noqa: B010 - hidden from type checkers: a field to them


@dataclass(frozen=True, slots=True)
class Name(Node):
    text: str


@dataclass(frozen=True, slots=True)
class Text(Node):
    value: str


# ------------------------------------------------------------------ expressions


@dataclass(frozen=True, slots=True)
class Expr(Node):
    pass


@dataclass(frozen=True, slots=True)
class Number(Expr):
    value: Fraction
    literal: str
    unit: Name | None = None  # `10 ft`: a quantity in a declared unit


@dataclass(frozen=True, slots=True)
class DiceLiteral(Expr):
    count: int
    sides: int


@dataclass(frozen=True, slots=True)
class TextLiteral(Expr):
    value: str


@dataclass(frozen=True, slots=True)
class Boolean(Expr):
    value: bool


@dataclass(frozen=True, slots=True)
class SpecialLiteral(Expr):
    """`X` (impassable) or `N/A` (not applicable), compared with a table cell."""

    text: Literal["X", "N/A"]


@dataclass(frozen=True, slots=True)
class NameRef(Expr):
    name: str


@dataclass(frozen=True, slots=True)
class BaseRef(Expr):
    """`base DEX`: a stat's value before any modifier."""

    name: str


@dataclass(frozen=True, slots=True)
class Call(Expr):
    function: Name
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Lookup(Expr):
    table: Name
    keys: tuple[Expr, ...]
    column: Name | None


@dataclass(frozen=True, slots=True)
class Negate(Expr):
    operand: Expr


@dataclass(frozen=True, slots=True)
class Binary(Expr):
    op: Literal["+", "-", "*", "/", "^"]
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Rounded(Expr):
    operand: Expr
    mode: Rounding


@dataclass(frozen=True, slots=True)
class PerSteps(Rounded):
    """`hour of exposure`, `10 ft of fall` after `per`: how many whole steps of a quantity of the
    unit the quantity holds, which is `exposure / 1 hour round down`, and is written so: the
    parser lowers `per` to the nodes every evaluator has.  `AMOUNT per STEPS` is
    `AMOUNT * STEPS`, and `N d6 per STEPS` is `(N * STEPS) d6` (docs/language.md, "Counting
    per unit").  `counted`: the step's number was written (`10 ft`), not read as 1 (`hour`)."""

    counted: bool

    @property
    def quantity(self) -> Expr:
        return cast(Binary, self.operand).left

    @property
    def step(self) -> Number:
        return cast(Number, cast(Binary, self.operand).right)


@dataclass(frozen=True, slots=True)
class DiceCount(Expr):
    """`leak_turns d6`: as many dice as the count evaluates to."""

    count: Expr
    sides: int


@dataclass(frozen=True, slots=True)
class PoolDice(Expr):
    """Dice of one pool with a reading, written where a value is: `exploding d6`, `highest 3 of
    5d10`, `exploding (skill) d10 at most 4 times`, `highest 2 of (2d6 + exploding d6)`.  `op` is
    `exploding` (`amount`: how many times at most; None: without end), `highest` or `lowest`
    (`amount`: how many are kept; None: one)."""

    op: Literal["exploding", "highest", "lowest"]
    operand: Expr
    amount: Expr | None
    ignoring: tuple[int | None, int | None] | None = None
    """The faces of dice a keep passes over, neither kept nor left (`highest 2 of (d6 + d8 + d8)
    ignoring 1`: Cortex's hitches); None for none."""


@dataclass(frozen=True, slots=True)
class LeftDie(Expr):
    """`largest die left by highest 2 of (d6 + d8 + d8) ignoring 1 else 4`: the size (sides) of
    the largest die a keep leaves, the dice it passes over not left, `otherwise` when none is
    (Cortex's effect die).  Among equal faces the smaller die is kept and the larger left."""

    keep: PoolDice
    otherwise: int


@dataclass(frozen=True, slots=True)
class FacedDice(Expr):
    """Dice read or changed on some faces: `5d6 showing 6` (how many show 6), `5d6 showing at
    least 5` (successes), `5d6 rerolling 2..5` (each die showing 2 to 5 rolled once more, the
    second roll standing: a push).  `low`/`high`: the faces, None where open."""

    op: Literal["showing", "rerolling"]
    operand: Expr
    low: int | None
    high: int | None


@dataclass(frozen=True, slots=True)
class CancellingDice(Expr):
    """`(2d6 + exploding d6 as wild) cancelling highest when natural 1 on wild`: the dice added
    together, except that when the named die first shows a face from `low` to `high`, it and the
    highest of the other dice are taken away (OpenD6's Wild Die on a 1)."""

    operand: Expr
    low: int
    high: int
    die: Name


@dataclass(frozen=True, slots=True)
class PairedDice(Expr):
    """`opposed 3d6 vs 2d6 by pairs`: each side's dice sorted and paired highest against highest
    (RISK); the value is how many pairs the first side wins, a tie going to the second."""

    first: Expr
    second: Expr


@dataclass(frozen=True, slots=True)
class NamedDie(Expr):
    """`exploding d6 as wild`: a die given a name, whose natural face tiers read (`natural 1 on
    wild`)."""

    operand: Expr
    name: Name


@dataclass(frozen=True, slots=True)
class Compare(Expr):
    op: Literal["<", "<=", ">", ">=", "==", "!="]
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Member(Expr):
    operand: Expr
    members: tuple[Name, ...]
    negated: bool


@dataclass(frozen=True, slots=True)
class Not(Expr):
    operand: Expr


@dataclass(frozen=True, slots=True)
class BoolOp(Expr):
    op: Literal["and", "or"]
    left: Expr
    right: Expr


Rounding = Literal["up", "down", "nearest"]

# ------------------------------------------------------------------ types


@dataclass(frozen=True, slots=True)
class TypeExpr(Node):
    pass


@dataclass(frozen=True, slots=True)
class Bounds(Node):
    low: Fraction
    high: Fraction | None


@dataclass(frozen=True, slots=True)
class IntType(TypeExpr):
    bounds: Bounds | None
    unit: Name | None


@dataclass(frozen=True, slots=True)
class NumberType(TypeExpr):
    bounds: Bounds | None
    unit: Name | None


@dataclass(frozen=True, slots=True)
class PercentType(TypeExpr):
    bounds: Bounds | None


@dataclass(frozen=True, slots=True)
class FlagType(TypeExpr):
    pass


@dataclass(frozen=True, slots=True)
class DiceType(TypeExpr):
    pass


@dataclass(frozen=True, slots=True)
class TextType(TypeExpr):
    pass


@dataclass(frozen=True, slots=True)
class EnumType(TypeExpr):
    members: tuple[Name, ...]
    phrases: tuple[Text | None, ...] = ()  # how cards say each member, where the rulebook says


@dataclass(frozen=True, slots=True)
class LevelsType(TypeExpr):
    members: tuple[Name, ...]
    phrases: tuple[Text | None, ...] = ()


@dataclass(frozen=True, slots=True)
class StatBlockRow(Node):
    label: Text
    names: tuple[Name, ...]


@dataclass(frozen=True, slots=True)
class Phrase(Node):
    """How cards say a value to a player: the words of a number or a choice (`the range`), or of
    a flag, the clause when it holds and, after `/`, the clause when it does not."""

    text: Text
    negative: Text | None = None


@dataclass(frozen=True, slots=True)
class NamedType(TypeExpr):
    name: Name


# ------------------------------------------------------------------ declarations


@dataclass(frozen=True, slots=True)
class Declaration(Node):
    pass


@dataclass(frozen=True, slots=True)
class UnitDecl(Declaration):
    name: Name
    label: Text | None


@dataclass(frozen=True, slots=True)
class TypeDecl(Declaration):
    name: Name
    type: TypeExpr


@dataclass(frozen=True, slots=True)
class InputDecl(Declaration):
    name: Name
    label: Text | None
    type: TypeExpr
    default: Expr | None
    phrase: Phrase | None = None


@dataclass(frozen=True, slots=True)
class StatDecl(Declaration):
    name: Name
    label: Text | None
    type: TypeExpr
    default: Expr | None
    phrase: Phrase | None = None


@dataclass(frozen=True, slots=True)
class StatBlockDecl(Declaration):
    """`statblock terrain "Terrain card" for terrain:` and its rows."""

    name: Name
    label: Text | None
    kinds: tuple[str, ...]
    rows: tuple[StatBlockRow, ...]


Stacking = Literal["strongest", "highest", "lowest", "cumulative"]


@dataclass(frozen=True, slots=True)
class GroupDecl(Declaration):
    name: Name
    label: Text | None
    stacking: Stacking


@dataclass(frozen=True, slots=True)
class GradeItem(Node):
    name: Name
    step: int | None
    effect: ModOp


@dataclass(frozen=True, slots=True)
class GradesDecl(Declaration):
    label: Text | None
    grades: tuple[GradeItem, ...]


@dataclass(frozen=True, slots=True)
class TierItem(Node):
    """`NAME: roll <= BOUND`, `NAME: natural 20` (the dice alone, `natural 19..20`; several
    joined by `and` or `or`) or `NAME: otherwise`; `always succeeds` / `always fails` decide the roll whatever its target."""

    name: Name
    op: Literal["<", "<=", ">", ">=", "==", "!="] | None
    bound: Expr | None
    natural: tuple[int, int] | None = None
    always: Literal["success", "failure"] | None = None
    die: Name | None = None  # `natural 1 on wild`: the face the die named `wild` shows first
    # `roll showing 6 >= 2`: the faces counted (`natural` is then how many dice, low..high)
    showing: tuple[int | None, int | None] | None = None
    # `natural 1 on trait_die and natural 1 on wild`: the faces read after the first, and how
    # they join: "and" (every one holds) or "or" (any holds)
    also: tuple[NaturalTest, ...] = ()
    joined: Literal["and", "or"] = "and"


@dataclass(frozen=True, slots=True)
class NaturalTest(Node):
    """`natural 1 on wild`: a die (the dice alone when `die` is None) shows low..high first; or
    `roll showing 6 >= 2`: low..high of the roll's dice show `showing` (a count's high is
    ANY_DICE when it has no upper bound)."""

    low: int
    high: int
    die: Name | None = None
    showing: tuple[int | None, int | None] | None = None


@dataclass(frozen=True, slots=True)
class TiersDecl(Declaration):
    name: Name
    label: Text | None
    tiers: tuple[TierItem, ...]


@dataclass(frozen=True, slots=True)
class ResistanceDecl(Declaration):
    label: Text | None
    pool: Pool
    op: Literal["<", "<=", ">", ">=", "==", "!="]
    target: Expr


@dataclass(frozen=True, slots=True)
class OrderDecl(Declaration):
    """`order MOV: additions before scaling`, `order MP: weather before night`: the order in
    which kinds of modifier of a stat, or the modifiers of rules, apply, first to last, with the
    notes and errata that quote the source."""

    stat: Name
    items: tuple[Name, ...]
    notes: tuple[NoteStmt | ErratumStmt, ...]


# ------------------------------------------------------------------ modifiers


@dataclass(frozen=True, slots=True)
class ModOp(Node):
    pass


@dataclass(frozen=True, slots=True)
class AddMod(ModOp):
    value: Expr
    percent: bool
    per: Expr | None


@dataclass(frozen=True, slots=True)
class MulMod(ModOp):
    factor: Expr
    rounding: Rounding | None


@dataclass(frozen=True, slots=True)
class DivMod(ModOp):
    divisor: Expr
    rounding: Rounding | None


@dataclass(frozen=True, slots=True)
class SetMod(ModOp):
    value: Expr


@dataclass(frozen=True, slots=True)
class MinMod(ModOp):
    value: Expr


@dataclass(frozen=True, slots=True)
class MaxMod(ModOp):
    value: Expr


@dataclass(frozen=True, slots=True)
class GradeMod(ModOp):
    grade: Name


@dataclass(frozen=True, slots=True)
class DiceMod(ModOp):
    delta: Expr  # how many: a whole number, or a formula (`forest_shift[size] levels`)


@dataclass(frozen=True, slots=True)
class StepMod(ModOp):
    delta: Expr  # how many: a whole number, or a formula (`forest_shift[size] levels`)


@dataclass(frozen=True, slots=True)
class ShiftMod(ModOp):
    delta: Expr  # how many: a whole number, or a formula (`forest_shift[size] levels`)


# ------------------------------------------------------------------ statements


@dataclass(frozen=True, slots=True)
class Statement(Node):
    pass


@dataclass(frozen=True, slots=True)
class Modifier(Statement):
    target: Name
    op: ModOp
    group: Name | None
    label: Text | None


@dataclass(frozen=True, slots=True)
class WhenBlock(Statement):
    negated: bool
    condition: Expr
    body: tuple[Statement, ...]
    orelse: tuple[Statement, ...]


@dataclass(frozen=True, slots=True)
class CannotStmt(Statement):
    text: Text


@dataclass(frozen=True, slots=True)
class NoteStmt(Statement):
    text: Text


@dataclass(frozen=True, slots=True)
class AsideStmt(Statement):
    """`aside TEXT`: a note that is reading matter (background, the source's remarks), not
    something a player needs at the table: resolved like a note, printed in the appendix."""

    text: Text


@dataclass(frozen=True, slots=True)
class ErratumStmt(Statement):
    quote: Text
    text: Text


@dataclass(frozen=True, slots=True)
class CategoryStmt(Statement):
    name: Name


@dataclass(frozen=True, slots=True)
class DeriveStmt(Statement):
    name: Name
    label: Text | None
    unit: Name | None
    value: Expr


@dataclass(frozen=True, slots=True)
class Binding(Node):
    name: Name
    value: Expr


@dataclass(frozen=True, slots=True)
class AsStmt(Statement):
    rules: tuple[Name, ...]
    bindings: tuple[Binding, ...]


@dataclass(frozen=True, slots=True)
class SequenceBlock(Statement):
    """`each round asphyxiation_round: ...`: the rule resolved round after round, the input
    `counter` counting the rounds from `start` (1 when not stated), or no counter when every
    round is resolved alike (`each round:`); the roll outcome that ends the sequence the
    `until_times`th time it comes (`until hold_breath fails`, `until stamina fails 3 times`),
    or with `then` sets an input from the next round on; the inputs set to how often an outcome
    has come in the rounds before (`count stamina fails as failures`); and the derived values
    that add up over the rounds (`total leak_damage`)."""

    unit: Name
    counter: Name | None
    start: int | None
    until_roll: Name | None
    until_outcome: Name | None
    then: Binding | None
    totals: tuple[Name, ...]
    until_times: int | None = None
    counts: tuple[SequenceCount, ...] = ()


@dataclass(frozen=True, slots=True)
class SequenceCount(Node):
    """`count stamina fails as failures`: in each round the input `into` is the number of the
    rounds before in which roll `roll` had outcome `outcome`."""

    roll: Name
    outcome: Name
    into: Name


# ------------------------------------------------------------------ rolls


@dataclass(frozen=True, slots=True)
class Pool(Node):
    """Dice known when writing: `3d6`, `highest of 2d20`, `highest 3 of 5d10`, `4dF`, `exploding d6`.

    `keep` says what of the dice counts (dsl/runtime/dice.py `distribution`): None (the sum),
    `highest` / `lowest` (one die), `highest N` / `lowest N` (the sum of N), `fate`, `exploding`."""

    count: int
    sides: int
    keep: str | None


@dataclass(frozen=True, slots=True)
class DicePool(Node):
    """Dice worked out when resolving: a number of dice (`(height / 10 ft round down) d6`) or a
    dice value (`damage`, a dice stat)."""

    value: Expr


@dataclass(frozen=True, slots=True)
class RollSpec(Node):
    pass


@dataclass(frozen=True, slots=True)
class CheckSpec(RollSpec):
    """`d20 + attack_bonus >= AC`: the dice, what is added to them, the target."""

    pool: Pool | DicePool
    bonus: tuple[Expr, ...]  # each added (a subtraction is a negated term)
    op: Literal["<", "<=", ">", ">=", "==", "!="]
    target: Expr


@dataclass(frozen=True, slots=True)
class TotalSpec(RollSpec):
    """`3d6 + 2` alone: a roll whose total matters (damage), with no target."""

    pool: Pool | DicePool
    bonus: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class CountSpec(RollSpec):
    """`at least 2 of 6d6 >= 5`: how many dice meet the target counts."""

    needed: Expr
    pool: Pool | DicePool
    op: Literal["<", "<=", ">", ">=", "==", "!="]
    target: Expr


@dataclass(frozen=True, slots=True)
class ResistSpec(RollSpec):
    active: Expr
    passive: Expr


@dataclass(frozen=True, slots=True)
class OpposedSpec(RollSpec):
    pool: Pool | DicePool
    bonus: Expr | None
    against: Pool | DicePool
    against_bonus: Expr | None


@dataclass(frozen=True, slots=True)
class AutomaticSpec(RollSpec):
    success: bool


@dataclass(frozen=True, slots=True)
class RollChange(Node):
    pass


@dataclass(frozen=True, slots=True)
class PoolChange(RollChange):
    pool: Pool | DicePool  # DicePool: dice worked out when resolving (refused by the analysis, E203)


@dataclass(frozen=True, slots=True)
class DiceChange(RollChange):
    delta: int


@dataclass(frozen=True, slots=True)
class TargetChange(RollChange):
    delta: Expr


@dataclass(frozen=True, slots=True)
class AutomaticChange(RollChange):
    success: bool


@dataclass(frozen=True, slots=True)
class TiersChange(RollChange):
    """`when advanced: tiers advanced_move`: the roll read with that tier system instead of its own."""

    name: Name


@dataclass(frozen=True, slots=True)
class RollItem(Node):
    pass


@dataclass(frozen=True, slots=True)
class GuardedChange(RollItem):
    negated: bool
    condition: Expr | None
    change: RollChange


@dataclass(frozen=True, slots=True)
class OutcomeItem(RollItem):
    outcome: Name
    by_margin: bool
    text: Text | None
    step: Step | None
    consequences: tuple[Modifier | AsStmt, ...] = ()  # `on failure: exhaustion +1`, `as prone`


@dataclass(frozen=True, slots=True)
class TiersRef(RollItem):
    name: Name


@dataclass(frozen=True, slots=True)
class TiesItem(RollItem):
    winner: Name


@dataclass(frozen=True, slots=True)
class SeparateItem(RollItem):
    """`separate`: the roll is never one roll with the same roll asked for by another rule."""


@dataclass(frozen=True, slots=True)
class RollNote(RollItem):
    note: NoteStmt | ErratumStmt | AsideStmt


@dataclass(frozen=True, slots=True)
class RollDecl(Statement):
    name: Name
    label: Text | None
    spec: RollSpec
    items: tuple[RollItem, ...]


# ------------------------------------------------------------------ tables


@dataclass(frozen=True, slots=True)
class Step(Node):
    pass


@dataclass(frozen=True, slots=True)
class RollOn(Step):
    table: Name
    offset: int


@dataclass(frozen=True, slots=True)
class RollTwice(Step):
    pass


@dataclass(frozen=True, slots=True)
class RollAgain(Step):
    offset: int


@dataclass(frozen=True, slots=True)
class TableKey(Node):
    pass


@dataclass(frozen=True, slots=True)
class RollKey(TableKey):
    pool: Pool
    modifier: Name | None
    modifier_sign: int


@dataclass(frozen=True, slots=True)
class InputKey(TableKey):
    inputs: tuple[Name, ...]


@dataclass(frozen=True, slots=True)
class RowKey(Node):
    pass


@dataclass(frozen=True, slots=True)
class KeyRange(RowKey):
    """`5`, `-3`, `1..5` and `6+` (high is None: open upward)."""

    low: int
    high: int | None
    open: bool


@dataclass(frozen=True, slots=True)
class KeyName(RowKey):
    name: Name


@dataclass(frozen=True, slots=True)
class KeyElse(RowKey):
    pass


@dataclass(frozen=True, slots=True)
class Cell(Node):
    pass


@dataclass(frozen=True, slots=True)
class ValueCell(Cell):
    value: Expr
    step: Step | None


@dataclass(frozen=True, slots=True)
class ImpassableCell(Cell):
    pass


@dataclass(frozen=True, slots=True)
class NACell(Cell):
    pass


@dataclass(frozen=True, slots=True)
class StepCell(Cell):
    step: Step


@dataclass(frozen=True, slots=True)
class Column(Node):
    name: Name
    label: Text | None


@dataclass(frozen=True, slots=True)
class TableItem(Node):
    pass


@dataclass(frozen=True, slots=True)
class Columns(TableItem):
    columns: tuple[Column, ...]


@dataclass(frozen=True, slots=True)
class Row(TableItem):
    key: RowKey
    cells: tuple[Cell, ...]


@dataclass(frozen=True, slots=True)
class Overflow(TableItem):
    above: int
    becomes: int
    step: Step | None


@dataclass(frozen=True, slots=True)
class ChainDepth(TableItem):
    """`chain depth N`: how many rolls in a row a chain that can repeat is listed to."""

    depth: int


@dataclass(frozen=True, slots=True)
class TableStmt(TableItem):
    statement: NoteStmt | ErratumStmt | AsideStmt | CategoryStmt


@dataclass(frozen=True, slots=True)
class TableDecl(Declaration):
    name: Name
    title: Text | None
    cites: Text | None
    key: TableKey
    items: tuple[TableItem, ...]


# ------------------------------------------------------------------ examples


@dataclass(frozen=True, slots=True)
class Expectation(Node):
    pass


@dataclass(frozen=True, slots=True)
class ExpectValue(Expectation):
    name: Name
    value: Expr


@dataclass(frozen=True, slots=True)
class ExpectColumn(Expectation):
    table: Name
    column: Name
    value: Expr


@dataclass(frozen=True, slots=True)
class ExpectRoll(Expectation):
    roll: Name
    tier: Name | None
    value: Expr


@dataclass(frozen=True, slots=True)
class ExpectNoRoll(Expectation):
    roll: Name


@dataclass(frozen=True, slots=True)
class ExpectCannot(Expectation):
    text: Text


@dataclass(frozen=True, slots=True)
class ExpectChain(Expectation):
    """`expect chain "TABLE KEY" = P`: the chance a chain of the situation visits that row."""

    row: Text
    value: Expr


@dataclass(frozen=True, slots=True)
class ExpectSuppressed(Expectation):
    rule: Name


@dataclass(frozen=True, slots=True)
class ExpectChance(Expectation):
    """`chance NAME >= 6 = 1/3`: the chance that a dice value (or, over rounds, a total) meets a
    bound."""

    name: Name
    op: str
    bound: Expr
    value: Expr


@dataclass(frozen=True, slots=True)
class ExpectLasting(Expectation):
    """`lasting = 12/25`: over rounds, the chance the sequence lasts them all."""

    value: Expr


@dataclass(frozen=True, slots=True)
class ExampleDecl(Declaration):
    title: Text
    rules: tuple[Name, ...]
    givens: tuple[Binding, ...]
    expectations: tuple[Expectation, ...]
    rounds: int | None = None  # `over 3 rounds`: the rules resolved as a sequence of 3 rounds


# ------------------------------------------------------------------ balance


@dataclass(frozen=True, slots=True)
class Amount(Node):
    """A fixed number in a balance claim or space: `5`, `-2`, `1.5`, `1/20`, `5%` (`percent`:
    written as a percentage, and read as a chance)."""

    value: Fraction
    percent: bool = False


@dataclass(frozen=True, slots=True)
class OverAxis(Node):
    """One input of a balance space: `NAME = LOW..HIGH [by STEP]`, `NAME in {a, b}`, or `NAME`
    alone (every value it can take)."""

    name: Name


@dataclass(frozen=True, slots=True)
class OverRange(OverAxis):
    low: Amount
    high: Amount
    step: Amount | None


@dataclass(frozen=True, slots=True)
class OverMembers(OverAxis):
    members: tuple[Name, ...]


@dataclass(frozen=True, slots=True)
class OverEvery(OverAxis):
    pass


@dataclass(frozen=True, slots=True)
class Measure(Node):
    """What a claim measures in each situation; `variant`: the rules applied instead of the
    block's own (`chance fall in deep_mud`), to compare variants."""

    name: Name
    variant: tuple[Name, ...]


@dataclass(frozen=True, slots=True)
class ChanceMeasure(Measure):
    """`chance ROLL` (of success, of winning) or `chance ROLL.TIER` (of one outcome)."""

    tier: Name | None


@dataclass(frozen=True, slots=True)
class AverageMeasure(Measure):
    """`average NAME`: the expected value of a dice (or number) value the rules give."""


@dataclass(frozen=True, slots=True)
class ValueMeasure(Measure):
    """`NAME`: a number the rules give (a stat, a derived value)."""


@dataclass(frozen=True, slots=True)
class Claim(Node):
    measure: Measure


@dataclass(frozen=True, slots=True)
class ClaimBetween(Claim):
    """`MEASURE between LOW and HIGH`, both included."""

    low: Amount
    high: Amount


@dataclass(frozen=True, slots=True)
class ClaimBound(Claim):
    """`MEASURE <= AMOUNT` (any comparison)."""

    op: str
    bound: Amount


@dataclass(frozen=True, slots=True)
class ClaimVersus(Claim):
    """`MEASURE <= OTHER + AMOUNT` (any comparison): one measure against another, in the same
    situation; `offset` is added to OTHER (None: nothing)."""

    op: str
    other: Measure
    offset: Amount | None


@dataclass(frozen=True, slots=True)
class BalanceDecl(Declaration):
    title: Text
    rules: tuple[Name, ...]
    space: tuple[OverAxis, ...]
    givens: tuple[Binding, ...]
    claims: tuple[Claim, ...]


# ------------------------------------------------------------------ rules and the book


RuleKind = Literal["rule", "terrain", "condition", "trait"]


@dataclass(frozen=True, slots=True)
class RuleDecl(Declaration):
    kind: RuleKind
    name: Name
    title: Text | None
    cites: Text | None
    body: tuple[Statement, ...]
    examples: tuple[ExampleDecl, ...]


@dataclass(frozen=True, slots=True)
class Header(Node):
    name: Name
    title: Text
    source: Text | None
    version: Text | None
    notes: tuple[NoteStmt | ErratumStmt, ...]
    release: Text | None = None
    """`for rulecraft 0.2`: the release the book is written for (dsl/codes.py, NEW_CHECKS)."""


@dataclass(frozen=True, slots=True)
class Rulebook(Node):
    header: Header
    declarations: tuple[Declaration, ...]
    unparsed: frozenset[str] = frozenset()
    """Names declared in blocks skipped for a syntax error; their uses are not reported as unknown."""


# ------------------------------------------------------------------ construction

for _class in [v for v in tuple(globals().values()) if isinstance(v, type) and issubclass(v, Node)]:
    slots_init(_class, {"span": _SPAN_SLOT.__set__})
