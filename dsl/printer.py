"""Canonical text of expressions and effects, as a designer would write them.

Used wherever the compiler shows a rule back to people: the trace of a resolution ("when moved >
MOV / 2: holds"), docstrings of generated functions, `describe`, and reference cards.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from dsl import model as m
from dsl import nodes as n
from dsl.runtime import dice
from dsl.runtime.pools import ANY_DICE, showing_within
from dsl.runtime.pools import faces_text as faces_text  # one spelling of faces, the runtime's

_PRECEDENCE = {
    "or": 1,
    "and": 2,
    "not": 3,
    "compare": 4,
    "round": 5,
    "+": 6,
    "-": 6,
    "*": 7,
    "/": 7,
    "neg": 8,
    "^": 9,
    "atom": 10,
}


def number_text(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value.numerator}/{value.denominator}"


def expr_text(expr: n.Expr) -> str:
    return _text(expr)[0]


def _wrap(text: str, inner: int, outer: int) -> str:
    return f"({text})" if inner < outer else text


def _text(expr: n.Expr) -> tuple[str, int]:
    if isinstance(expr, n.Number):
        text = expr.literal if expr.unit is None else f"{expr.literal} {expr.unit.text}"
        return text, _PRECEDENCE["atom"] if expr.value >= 0 else _PRECEDENCE["neg"]
    if isinstance(expr, n.DiceLiteral):
        return (f"{expr.count}d{expr.sides}" if expr.count != 1 else f"d{expr.sides}"), _PRECEDENCE["atom"]
    if isinstance(expr, n.TextLiteral):
        return _quote(expr.value), _PRECEDENCE["atom"]
    if isinstance(expr, n.Boolean):
        return ("yes" if expr.value else "no"), _PRECEDENCE["atom"]
    if isinstance(expr, n.SpecialLiteral):
        return expr.text, _PRECEDENCE["atom"]
    if isinstance(expr, n.NameRef):
        return expr.name, _PRECEDENCE["atom"]
    if isinstance(expr, n.BaseRef):
        return f"base {expr.name}", _PRECEDENCE["atom"]
    if isinstance(expr, n.Call):
        return f"{expr.function.text}({', '.join(expr_text(a) for a in expr.args)})", _PRECEDENCE["atom"]
    if isinstance(expr, n.Lookup):
        text = f"{expr.table.text}[{', '.join(expr_text(k) for k in expr.keys)}]"
        if expr.column is not None:
            text += f".{expr.column.text}"
        return text, _PRECEDENCE["atom"]
    if isinstance(expr, n.Negate):
        inner, level = _text(expr.operand)
        return "-" + _wrap(inner, level, _PRECEDENCE["neg"]), _PRECEDENCE["neg"]
    written = per_written(expr)
    if written is not None:
        amount, steps = written
        inner, level = _text(amount)
        return f"{_wrap(inner, level, _PRECEDENCE['*'])} per {_text(steps)[0]}", _PRECEDENCE["*"]
    if isinstance(expr, n.PerSteps):
        quantity, level = _text(expr.quantity)
        step = expr_text(expr.step) if expr.counted else expr.step.unit.text if expr.step.unit else ""
        return f"{step} of {_wrap(quantity, level, _PRECEDENCE['atom'])}", _PRECEDENCE["*"]
    if isinstance(expr, n.Binary):
        level = _PRECEDENCE[expr.op]
        left, left_level = _text(expr.left)
        right, right_level = _text(expr.right)
        right_min = level + 1 if expr.op in "-/" else level
        if expr.op == "^":
            left = _wrap(left, left_level, level + 1)
            right = _wrap(right, right_level, level)
        else:
            left = _wrap(left, left_level, level)
            right = _wrap(right, right_level, right_min)
        return f"{left} {expr.op} {right}", level
    if isinstance(expr, n.Rounded):
        inner, level = _text(expr.operand)
        return f"{_wrap(inner, level, _PRECEDENCE['+'])} round {expr.mode}", _PRECEDENCE["round"]
    if isinstance(expr, n.DiceCount):
        inner, level = _text(expr.count)
        return f"{_wrap(inner, level, _PRECEDENCE['atom'])} d{expr.sides}", _PRECEDENCE["atom"] - 1
    if isinstance(expr, n.PoolDice):
        return pool_dice_text(expr, expr_text), _PRECEDENCE["atom"] - 1
    if isinstance(expr, n.LeftDie):
        return left_die_text(expr, expr_text), _PRECEDENCE["atom"] - 1
    if isinstance(expr, n.PairedDice):
        return paired_dice_text(expr, expr_text), _PRECEDENCE["atom"] - 1
    if isinstance(expr, n.FacedDice):
        return faced_dice_text(expr, expr_text), _PRECEDENCE["atom"] - 1
    if isinstance(expr, n.CancellingDice):
        return cancelling_dice_text(expr, expr_text), _PRECEDENCE["atom"] - 1
    if isinstance(expr, n.NamedDie):
        inner, level = _text(expr.operand)
        return f"{_wrap(inner, level, _PRECEDENCE['atom'] - 1)} as {expr.name.text}", _PRECEDENCE["atom"] - 1
    if isinstance(expr, n.Compare):
        level = _PRECEDENCE["compare"]
        left, left_level = _text(expr.left)
        right, right_level = _text(expr.right)
        return f"{_wrap(left, left_level, level + 1)} {expr.op} {_wrap(right, right_level, level + 1)}", level
    if isinstance(expr, n.Member):
        level = _PRECEDENCE["compare"]
        inner, inner_level = _text(expr.operand)
        word = "not in" if expr.negated else "in"
        members = ", ".join(m_.text for m_ in expr.members)
        return f"{_wrap(inner, inner_level, level + 1)} {word} {{{members}}}", level
    if isinstance(expr, n.Not):
        inner, level = _text(expr.operand)
        return "not " + _wrap(inner, level, _PRECEDENCE["not"]), _PRECEDENCE["not"]
    if isinstance(expr, n.BoolOp):
        level = _PRECEDENCE[expr.op]
        left, left_level = _text(expr.left)
        right, right_level = _text(expr.right)
        return f"{_wrap(left, left_level, level)} {expr.op} {_wrap(right, right_level, level + 1)}", level
    raise TypeError(f"no text for {type(expr).__name__}")


def per_written(expr: n.Expr) -> tuple[n.Expr, n.PerSteps] | None:
    """`AMOUNT per STEPS` as written, from what the parser lowered it to (`AMOUNT * STEPS`;
    `(N * STEPS) d6` for dice), or None for anything else."""
    if isinstance(expr, n.Binary) and expr.op == "*" and isinstance(expr.right, n.PerSteps):
        return expr.left, expr.right
    if isinstance(expr, n.DiceCount):
        count = expr.count
        if isinstance(count, n.PerSteps):
            return n.DiceLiteral(span=expr.span, count=1, sides=expr.sides), count
        if isinstance(count, n.Binary) and count.op == "*" and isinstance(count.right, n.PerSteps):
            times = count.left
            if isinstance(times, n.Number) and times.unit is None and times.value.denominator == 1 and times.value > 0:
                return n.DiceLiteral(span=expr.span, count=int(times.value), sides=expr.sides), count.right
            return n.DiceCount(span=expr.span, count=times, sides=expr.sides), count.right
    return None


def faced_dice_text(expr: n.FacedDice, text: Callable[[n.Expr], str]) -> str:
    """`5d6 showing 6`, `(2d6 + d8) showing at least 5`, `5d6 rerolling 2..5 showing 6`."""
    operand = text(expr.operand)
    if not isinstance(expr.operand, (n.DiceLiteral, n.DiceCount, n.FacedDice)):
        operand = f"({operand})"
    return f"{operand} {expr.op} {faces_text(expr.low, expr.high)}"


def cancelling_dice_text(expr: n.CancellingDice, text: Callable[[n.Expr], str]) -> str:
    """`(2d6 + exploding d6 as wild) cancelling highest when natural 1 on wild`."""
    operand = text(expr.operand)
    if not isinstance(expr.operand, (n.DiceLiteral, n.DiceCount, n.FacedDice, n.CancellingDice)):
        operand = f"({operand})"
    faces = str(expr.low) if expr.low == expr.high else f"{expr.low}..{expr.high}"
    return f"{operand} cancelling highest when natural {faces} on {expr.die.text}"


def paired_dice_text(expr: n.PairedDice, text: Callable[[n.Expr], str]) -> str:
    """`opposed 3d6 vs 2d6 by pairs`, `opposed (2d6 + d8) vs 3d6 by pairs`."""
    sides = [text(side) for side in (expr.first, expr.second)]
    sides = [
        shown if isinstance(side, (n.DiceLiteral, n.DiceCount)) else f"({shown})"
        for side, shown in zip((expr.first, expr.second), sides, strict=True)
    ]
    return f"opposed {sides[0]} vs {sides[1]} by pairs"


def pool_dice_text(expr: n.PoolDice, text: Callable[[n.Expr], str]) -> str:
    """`exploding d6`, `exploding (skill) d10 at most 4 times`, `highest 3 of (2d6 + d8)`: the
    operand in brackets unless it is dice written alone."""
    operand = text(expr.operand)
    if not isinstance(expr.operand, (n.DiceLiteral, n.DiceCount)) and not (
        isinstance(expr.operand, n.PoolDice) and expr.op != "exploding"
    ):
        operand = f"({operand})"
    amount = None if expr.amount is None else text(expr.amount)
    if expr.amount is not None and not isinstance(expr.amount, (n.Number, n.NameRef)):
        amount = f"({amount})"
    if expr.op == "exploding":
        times = "" if amount is None else f" at most {amount} time" + ("" if amount == "1" else "s")
        return f"exploding {operand}{times}"
    ignoring = "" if expr.ignoring is None else f" ignoring {faces_text(*expr.ignoring)}"
    return f"{expr.op}{'' if amount is None else ' ' + amount} of {operand}{ignoring}"


def left_die_text(expr: n.LeftDie, text: Callable[[n.Expr], str]) -> str:
    """`largest die left by highest 2 of (d6 + d8 + d8) ignoring 1 else 4`."""
    return f"largest die left by {pool_dice_text(expr.keep, text)} else {expr.otherwise}"


def _quote(text: str) -> str:
    """A string as rulebook source: quotes, backslashes and unprintable characters escaped."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif not ch.isprintable():
            out.append("".join(f"\\u{unit:04x}" for unit in _utf16_units(ch)))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _utf16_units(ch: str) -> tuple[int, ...]:
    """A character's code as a string escape writes it: a character beyond U+FFFF as its pair."""
    code = ord(ch)
    if code < 0x10000:
        return (code,)
    code -= 0x10000
    return (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF))


def guard_text(guard: tuple[m.Condition, ...]) -> str:
    """`when a; unless b`: the conditions under which an effect applies."""
    return "; ".join(condition_text(c) for c in guard)


def condition_text(condition: m.Condition) -> str:
    """`when a` or `unless b`: one clause of a guard."""
    return f"{'unless' if condition.negated else 'when'} {expr_text(condition.expr)}"


def pool_text(pool: n.Pool) -> str:
    """`3d6`, `d20`, `highest of 2d20`, `highest 3 of 5d10`, `4dF`, `exploding d6`."""
    return dice.pool_text((pool.count, pool.sides, pool.keep), short=True)


def dice_text(effect: m.RollEffect) -> str:
    """What a roll rolls and adds to it: `d20 + attack_bonus`, `skill d10`, `2d6 - 1`."""
    text = pool_text(effect.pool) if effect.pool is not None else expr_text(effect.dice) if effect.dice else ""
    return text + "".join(_added(added) for added in effect.adds)


def _added(added: n.Expr) -> str:
    """A term added to dice, as written: ` + bonus`, ` - penalty` (a subtraction is a negation)."""
    if isinstance(added, n.Negate):
        return f" - {_wrap(*_text(added.operand), _PRECEDENCE['*'])}"
    return f" + {_wrap(*_text(added), _PRECEDENCE['*'])}"


def modifier_text(effect: m.ModEffect) -> str:
    """A modifier as written in a rulebook: `DEX -2`, `MOV / 2 round up`, `skill is difficult`."""
    target = effect.target
    op = effect.op
    rounding = f" round {effect.rounding}" if effect.rounding else ""
    if op == "add":
        assert effect.value is not None
        value = expr_text(effect.value)
        if not value.startswith("-"):
            value = "+" + value
        text = f"{target} {value}{'%' if effect.percent else ''}"
        if effect.per is not None:
            text += f" per {expr_text(effect.per)}"
        return text
    if op in ("mul", "div"):
        assert effect.value is not None
        return f"{target} {'*' if op == 'mul' else '/'} {expr_text(effect.value)}{rounding}"
    if op == "set":
        assert effect.value is not None
        return f"{target} = {expr_text(effect.value)}"
    if op in ("min", "max"):
        assert effect.value is not None
        return f"{target} {op} {expr_text(effect.value)}"
    if op == "grade":
        return f"{target} is {effect.grade}"
    word = {"dice": ("die", "dice"), "step": ("step", "steps"), "shift": ("level", "levels")}[op]
    if effect.value is not None:
        count = expr_text(effect.value)
        sign = "" if count.startswith("-") else "+"
        return f"{target} {sign}{count} {word[1]}"
    return f"{target} {effect.delta:+d} {word[0] if abs(effect.delta) == 1 else word[1]}"


def roll_text(effect: m.RollEffect) -> str:
    """`3d6 <= DEX`, `resist POW vs aura`, `opposed 2d6 + a vs 2d6 + b`, `automatic success`."""
    if effect.kind == "check" and effect.target_dice is not None:
        rolled = written_dice(effect)
        return f"{_side_text(None, rolled)}{''.join(_added(x) for x in effect.adds)} {effect.op} {expr_text(effect.target_dice)}"
    if effect.kind == "check":
        assert effect.target is not None
        return f"{dice_text(effect)} {effect.op} {expr_text(effect.target)}"
    if effect.kind == "total":
        return dice_text(effect)
    if effect.kind == "count":
        assert effect.needed is not None and effect.target is not None
        return f"at least {expr_text(effect.needed)} of {dice_text(effect)} {effect.op} {expr_text(effect.target)}"
    if effect.kind == "resist":
        assert effect.active is not None and effect.passive is not None
        return f"resist {expr_text(effect.active)} vs {expr_text(effect.passive)}"
    if effect.kind == "opposed":
        first = _side_text(effect.pool, effect.dice) + (_added(effect.bonus) if effect.bonus else "")
        second = _side_text(effect.against, effect.against_dice) + (_added(effect.against_bonus) if effect.against_bonus else "")
        return f"opposed {first} vs {second}"
    return f"automatic {'success' if effect.success else 'failure'}"


def written_dice(effect: m.RollEffect) -> n.Expr:
    """The dice of a check against dice as written: its `dice` less the target's dice that
    analysis added last (`3d6 + difficulty * -1` is `3d6`)."""
    assert isinstance(effect.dice, n.Binary) and effect.dice.op == "+"
    return effect.dice.left


def _side_text(pool: n.Pool | None, dice: n.Expr | None) -> str:
    """One side of an opposed roll: a pool known when writing, or dice worked out when resolving."""
    if pool is not None:
        return pool_text(pool)
    assert dice is not None
    text, level = _text(dice)
    return _wrap(text, level, _PRECEDENCE["+"])


def change_text(change: m.RollChange) -> str:
    if change.kind == "pool":
        assert change.pool is not None
        return f"roll {pool_text(change.pool)}"
    if change.kind == "dice":
        return f"{change.delta:+d} {'die' if abs(change.delta) == 1 else 'dice'}"
    if change.kind == "target":
        assert change.value is not None
        value = expr_text(change.value)
        return f"target {value if value.startswith('-') else '+' + value}"
    if change.kind == "tiers":
        return f"tiers {change.tiers}"
    return f"automatic {'success' if change.success else 'failure'}"


def step_text(step: m.Step) -> str:
    offset = f" {step.offset:+d}" if step.offset else ""
    if step.kind == "roll_on":
        return f"roll on {step.table}{offset}"
    if step.kind == "twice":
        return "roll twice on this table"
    return f"roll again{offset}"


def cell_text(cell: m.TableCell) -> str:
    """A table cell as the rulebook writes it."""
    if cell.value is not None:
        return expr_text(cell.value)
    return {"impassable": "X", "na": "N/A"}.get(cell.kind, "")


def text_kind(effect: m.CannotEffect | m.NoteEffect) -> str:
    """`cannot`, `note`, `aside` (a note that is reading matter) or `erratum` (a note that
    quotes its source)."""
    if isinstance(effect, m.CannotEffect):
        return "cannot"
    return m.note_kind(effect.quote, effect.aside)


def trace_item(effect: m.Effect) -> str:
    """What a trace calls an effect: `DEX -2`, `roll fall`, `derive load`, `note: ...`."""
    if isinstance(effect, m.ModEffect):
        return modifier_text(effect)
    if isinstance(effect, m.RollEffect):
        return f"roll {effect.name}"
    if isinstance(effect, m.DeriveEffect):
        return f"derive {effect.name}"
    if isinstance(effect, m.PartEffect):
        return f"as {effect.rule}"
    assert isinstance(effect, (m.CannotEffect, m.NoteEffect))
    kind = text_kind(effect)
    return f"cannot {effect.text}" if kind == "cannot" else f"{kind}: {effect.text}"


def effect_summary(effect: m.Effect) -> str:
    """One line describing an effect and its condition, as a rulebook would write it."""
    if isinstance(effect, m.ModEffect):
        what = modifier_text(effect)
    elif isinstance(effect, m.RollEffect):
        what = f"roll {effect.name}: {roll_text(effect)}"
    elif isinstance(effect, m.DeriveEffect):
        what = f"derive {effect.name} = {expr_text(effect.value)}"
    elif isinstance(effect, m.CannotEffect):
        what = f"cannot {effect.text}"
    elif isinstance(effect, m.PartEffect):
        what = f"as {effect.rule}" + (f" with {effect.part.split('[', 1)[1][:-1]}" if "[" in effect.part else "")
    else:
        return ""
    condition = guard_text(effect.guard)
    return f"{what} ({condition})" if condition else what


def natural_words(
    tier: m.Tier, name: Callable[[str], str] = lambda die: die.replace("_", " "), dash: str = ".."
) -> str:
    """A natural tier of several faces said in words, for people rather than the parser:
    `natural 1 on trait_die and natural 1 on wild` is "a 1 on both the trait die and the wild
    die"; `name` shows a die's name, `dash` joins the ends of a range of faces."""
    tests = tier.tests()
    word = " and " if tier.joined == "and" else " or "

    def faces(low: int, high: int) -> str:
        return f"{low}" if low == high else f"{low}{dash}{high}"

    def die(named: str) -> str:
        shown = name(named)
        return f"the {shown}" if shown.endswith("die") else f"the {shown} die"

    if any(showing_within(d) is not None for _, _, d in tests):
        return word.join(
            counted_words(low, high, within, dash) if (within := showing_within(d)) is not None
            else f"a natural {faces(low, high)}" if d is None else f"a {faces(low, high)} on {die(d)}"
            for low, high, d in tests
        )
    if len({(low, high) for low, high, _ in tests}) == 1 and all(d is not None for _, _, d in tests):
        low, high, _ = tests[0]
        dice = [die(d) for _, _, d in tests if d is not None]
        if len(dice) == 2:
            both = "both " if tier.joined == "and" else "either "
            return f"a {faces(low, high)} on {both}{dice[0]}{word}{dice[1]}"
        every = "each of " if tier.joined == "and" else "any of "
        return f"a {faces(low, high)} on {every}{', '.join(dice[:-1])}{word}{dice[-1]}"
    parts = [
        f"a natural {faces(low, high)}" if d is None else f"a {faces(low, high)} on {die(d)}" for low, high, d in tests
    ]
    return ", ".join(parts[:-1]) + word + parts[-1]


def counted_words(low: int, high: int, within: tuple[int | None, int | None], dash: str = "..") -> str:
    """`roll showing 6 >= 2` in words: "2 or more dice show 6"."""
    faces = faces_text(*within).replace("..", dash)
    if high >= ANY_DICE:
        many = f"{low} or more dice show" if low != 1 else "a die shows"
        return f"{many} {faces}" if low else f"any number of dice show {faces}"
    if low == high:
        return f"no die shows {faces}" if low == 0 else f"exactly {low} {'die shows' if low == 1 else 'dice show'} {faces}"
    if low == 0:
        return f"at most {high} {'die shows' if high == 1 else 'dice show'} {faces}"
    return f"{low}{dash}{high} dice show {faces}"


def tier_test_text(low: int, high: int, die: str | None) -> str:
    """One test of a tier as the rulebook writes it: `natural 20`, `natural 1 on wild`,
    `roll showing 6 >= 2`."""
    within = showing_within(die)
    if within is not None:
        # the parser writes every count as low..ANY_DICE, n..n or 0..high
        count = f">= {low}" if high >= ANY_DICE else f"== {low}" if low == high else f"<= {high}"
        return f"roll showing {faces_text(*within)} {count}"
    text = f"natural {low}" if low == high else f"natural {low}..{high}"
    return text if die is None else f"{text} on {die}"
