"""How a card writes rules: compact notation for numbers and effects, plain words for conditions.

dsl/printer.py gives the canonical *source* text of a rule (`MOV / 2 round up`); a card speaks to
players instead: `MOV x½ ↑` (with a true multiplication sign), `DEX -1 / smoke hex` (with a
true minus sign), "when moved > half MOV", "unless stance is
prone, kneeling or crawling".  One `Notation` per book, because names are shown by what they
refer to (a member of a choice, a table's title) and conditions by the types of what they compare.

An operator is joined to its operands by no-break spaces (text.NBSP), and a modifier to its stat:
`distance < 3` or `DEX -2` never breaks at the operator, on a card or on a screen.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction

from dsl import model as m
from dsl import nodes as n
from dsl import printer
from dsl import types as t
from dsl.cards.text import (
    DASH,
    MINUS,
    NBSP,
    TIMES,
    clean,
    display_name,
    names_many,
    number,
    plural,
    signed,
    singular,
    then_step,
    title_case_first,
    vulgar,
)

ROUNDING = {"up": "↑", "down": "↓", "nearest": "≈"}
"""Rounding marks after a scaled value: `MOV x½ ↑` halves MOV and rounds up."""

COMPARISON = {"<": "<", "<=": "≤", ">": ">", ">=": "≥", "==": "=", "!=": "≠"}

_NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}

_LEVEL = {"or": 1, "and": 2, "not": 3, "compare": 4, "round": 5, "+": 6, "-": 6, "*": 7, "/": 7, "neg": 8, "^": 9}
_ATOM = 10

_PARTS = {2: "half", 3: "a third of", 4: "a quarter of"}


def literal_fraction(expr: n.Expr) -> Fraction | None:
    """The value of a numeric literal such as `2`, `-1` or `3/4`, else None."""
    if isinstance(expr, n.Number):
        return expr.value
    if isinstance(expr, n.Negate):
        inner = literal_fraction(expr.operand)
        return None if inner is None else -inner
    if isinstance(expr, n.Binary) and expr.op == "/":
        top = literal_fraction(expr.left)
        bottom = literal_fraction(expr.right)
        if top is not None and bottom:
            return top / bottom
    return None


def pool_text(pool: n.Pool, delta: int = 0) -> str:
    """`3d6`, `d20`, `highest of 2d20`, `4dF`; `delta` adds or removes dice (never below one)."""
    count = max(pool.count + delta, 1)
    return printer.pool_text(n.Pool(pool.span, count, pool.sides, pool.keep))


LABEL_WORDS = 36
"""A label up to this long reads as a name in a sentence ("hexes moved this turn"); a longer
one is a description, and the name reads better (or the rulebook gives a `phrase`)."""


def var_label(book: m.Book, name: str) -> str:
    """How cards name an input or stat in a sentence or a formula: its `phrase`; a name in
    capitals as it is (`DEX`, `MOV`); else its label, when short enough to read as a name, from a
    small letter ("hexes moved this turn"); else the name in words."""
    var = book.vars.get(name)
    if var is None:
        return display_name(name)
    if var.phrase:
        return clean(var.phrase)
    if name.upper() == name and any(c.isalpha() for c in name):
        return display_name(name)
    if var.label and len(var.label) <= LABEL_WORDS and not isinstance(var.type, t.Flag):
        return _small(clean(var.label))
    return display_name(name)


def _small(text: str) -> str:
    """`Hexes moved` -> `hexes moved`; `LoF zone`, `MOV`, `Terrain Type: Jungle` stay."""
    if len(text) > 1 and text[0].isupper() and not any(c.isupper() for c in text[1:]):
        return text[0].lower() + text[1:]
    return text


def phrase_of_member(book: m.Book, var: str, member: str) -> str:
    """How cards say a choice of an input: its phrase, else its name in words, less the words it
    repeats of the input's phrase or label ("Stunt attempted" is "difficult", not "difficult stunt";
    "Result of this round's Fly roll" is "failure", not "fly failure"), so that a condition does
    not say its noun twice."""
    found = book.vars.get(var)
    if found is not None:
        for name, phrase in found.members:
            if name == member:
                return clean(phrase)
    said = display_name(member)
    # the words the condition says before the choice: the input's phrase, else its label
    subject = found.phrase or found.label if found is not None else ""
    if not subject:
        return said
    label = {_POSSESSIVE.sub("", w).casefold() for w in re.findall("[\\w'\u2019]+", clean(subject))}
    kept = [w for w in said.split() if w.casefold() not in label]
    if kept and len(kept) < len(said.split()) and kept[0].casefold() not in _NOT_ALONE:
        return " ".join(kept)
    return said


def _excess(call: n.Call) -> tuple[n.Expr, n.Expr] | None:
    """`max(0, a - b)` (either way round): what `a` has beyond `b`, nothing when it has none;
    cards say "the excess of a over b" rather than "the higher of 0 and a - b"."""
    if call.function.text != "max" or len(call.args) != 2:
        return None
    for zero, difference in (call.args, reversed(call.args)):
        if isinstance(zero, n.Number) and zero.value == 0 and isinstance(difference, n.Binary) and difference.op == "-":
            return difference.left, difference.right
    return None


_POSSESSIVE = re.compile("['\u2019]s?$")

_NOT_ALONE = frozenset({"no", "none", "not", "any", "all", "some", "other", "each", "every", "non"})
"""Words that cannot stand for a choice alone: "no wind" stays "no wind"."""


def flag_clause(book: m.Book, name: str, holds: bool) -> str:
    """A flag as a clause: its phrase ("you can see the target" / "you cannot see the target"),
    else made from its label: "Has the Acrobatics skill" / "does not have the Acrobatics skill"."""
    var = book.vars.get(name)
    if var is not None and var.phrase:
        if holds:
            return clean(var.phrase)
        return clean(var.negative) if var.negative else negate(clean(var.phrase))
    label = clean(var.label) if var is not None and var.label else display_name(name)
    if len(label) > 1 and label[0].isupper() and (label[1].islower() or label.startswith("A ")):
        label = label[0].lower() + label[1:]
    return with_subject(label if holds else negate(label))


_OF_NOUN = re.compile(r"^([A-Za-z]+) of ")
_NOT_NOUNS = frozenset({"one", "some", "any", "all", "each", "none", "most", "both", "out", "because", "instead"})


def as_subject(label: str) -> str:
    """A label that names a quantity or manner ("Depth of the water", "How the shield is used")
    as the subject of a sentence: "the depth of the water", "the way the shield is used"."""
    if label[:4] in ("How ", "how ") and len(label) > 4:
        return "the way " + label[4:]
    found = _OF_NOUN.match(label)
    if found is not None and found.group(1).lower() not in _NOT_NOUNS:
        head = found.group(1)
        return "the " + (head[0].lower() + head[1:] if head[1:].islower() else head) + label[len(head) :]
    return label


_SUBJECT = {
    "has": "you have",
    "is": "you are",
    "was": "you were",
    "does": "you do",
    "can": "you can",
    "cannot": "you cannot",
}
"""A label's verb, and the same verb after "you": a label written as a predicate ("Has the
Acrobatics skill", "Failed the roll") reads as a sentence once it has a subject."""


def with_subject(clause: str) -> str:
    """A clause that starts with its verb given the player as its subject: `has the Acrobatics
    skill` -> `you have the Acrobatics skill`, `does not have ...` -> `you do not have ...`,
    `failed the roll` -> `you failed the roll`, `exposed to vacuum` -> `you are exposed to
    vacuum`; any other clause as it is (`prone`, `the
    target is hidden`, `running this turn`)."""
    first, _, rest = clause.partition(" ")
    if not rest:
        return clause
    if first in _SUBJECT:
        return f"{_SUBJECT[first]} {rest}"
    if _present_tense(first) and rest.partition(" ")[0] in _DETERMINERS:
        # `makes a turn this move` -> `you make a turn this move`
        return f"you {_base_form(first)} {rest}"
    if len(first) > 4 and first.endswith("ed") and first.isalpha() and first.islower() and first not in _NOT_VERBS:
        # `exposed to vacuum` is a state (you are exposed); `failed the roll`, a deed.
        following = rest.partition(" ")[0]
        # `exposed to vacuum`, `clothed but unarmored`: a state, said with "are"
        passive = (following in _PREPOSITIONS or following in ("but", "and", "or")) and first not in _DEEDS
        return f"you are {clause}" if passive else f"you {clause}"
    return clause


_DETERMINERS = frozenset({"a", "an", "the", "this", "that", "his", "her", "its", "their", "no", "any", "some", "one", "two"})


def _present_tense(word: str) -> bool:
    """A verb in the third person (`makes`, `carries`, `uses`), by its form, before a determiner."""
    return len(word) > 3 and word.isalpha() and word.islower() and word.endswith("s") and not word.endswith("ss")


def _base_form(verb: str) -> str:
    """`makes` -> `make`, `carries` -> `carry`, `pushes` -> `push`, `passes` -> `pass`."""
    if verb.endswith("ies"):
        return verb[:-3] + "y"
    if verb.endswith(("shes", "ches", "sses", "xes", "zzes", "oes")):
        return verb[:-2]
    return verb[:-1]


_PREPOSITIONS = frozenset({"in", "to", "by", "with", "on", "at", "from", "into", "under", "onto", "inside"})
_DEEDS = frozenset(
    {"succeeded", "exhaled", "inhaled", "moved", "waited", "jumped", "climbed", "fired", "aimed", "attacked"}
    | {"charged", "failed", "missed", "retreated", "advanced", "rolled", "turned", "landed", "crashed"}
)
"""Verbs in -ed that are something done, not a state, though a preposition follows them."""


_NOT_VERBS = frozenset({"armed", "mounted", "wounded", "unarmed", "blinded", "stunned", "enclosed", "needed", "speed"})
"""Words ending in -ed that open a label as an adjective ("Mounted", "Armed with a pistol"):
`mounted` reads as a condition already."""


_IRREGULAR = {"has": "does not have", "is": "is not", "are": "are not", "was": "was not", "can": "cannot"}


def negate(clause: str) -> str:
    """A clause that starts with a verb, negated: `wears a gas mask` -> `does not wear a gas
    mask`, `is prone` -> `is not prone`; anything else, `not ...` (`not prone`)."""
    first, _, rest = clause.partition(" ")
    lower = first.lower()
    tail = f" {rest}" if rest else ""
    if lower in _IRREGULAR:
        return _IRREGULAR[lower] + tail
    found = clause.split(" ")
    for index, word in enumerate(found[1:5], start=1):
        # A clause with its subject first: `the vehicle is enclosed` -> `the vehicle is not enclosed`.
        if word in ("is", "are", "was", "can", "has") and not any(w in _IRREGULAR for w in found[1:index]):
            negated = "does not have" if word == "has" else _IRREGULAR[word]
            if word == "has" and found[0].lower() in ("they", "you", "we", "i"):
                negated = "do not have"
            return " ".join([*found[:index], negated, *found[index + 1 :]])
    if lower.endswith("s") and not lower.endswith("ss") and len(lower) > 3 and first.islower():
        stem = lower[:-2] if lower.endswith(("ches", "shes", "sses", "xes")) else lower[:-1]
        return f"does not {stem}{tail}"
    return f"not {clause}"


_NOT_IN_A_NOUN = frozenset(
    {"the", "a", "an", "has", "have", "had", "is", "are", "was", "were", "be", "been", "of", "to", "in", "on", "at"}
    | {"by", "with", "which", "that", "who"}
)
"""Words that make a label a clause or a phrase rather than a noun to count by."""


class Notation:
    def __init__(self, book: m.Book, specials: Mapping[str, str] | None = None) -> None:
        self.book = book
        self.specials = dict(specials or {})
        self._names: dict[str, str] = {}  # a card names the same few stats and inputs again and again
        # A derived flag's label, as its condition says it: `slick` is "on a slick surface".
        self._derived = {
            effect.name: clean(effect.label)
            for part in book.parts.values()
            for effect in part.effects
            if isinstance(effect, m.DeriveEffect) and effect.label and isinstance(effect.type, t.Flag)
        }

    def with_specials(self, specials: Mapping[str, str]) -> Notation:
        """A notation that writes `target`, `active`, `passive` as the given text."""
        return Notation(self.book, {**self.specials, **specials})

    # ------------------------------------------------------------------ names

    def name(self, name: str) -> str:
        found = self._names.get(name)
        if found is None:
            found = self._names[name] = self._name(name)
        return found

    def _name(self, name: str) -> str:
        if name in self.specials:
            return self.specials[name]
        if name in self.book.vars:
            return var_label(self.book, name)
        return display_name(name)

    def table_title(self, name: str) -> str:
        table = self.book.tables.get(name)
        return clean(table.title) if table is not None else display_name(name)

    def unit(self, unit: str | None) -> str:
        if not unit:
            return ""
        label = self.book.units.get(unit)
        return clean(label) if label else display_name(unit)

    def _type(self, expr: n.Expr) -> t.Type | None:
        return self.book.types.get(expr)

    def _ref(self, expr: n.Expr) -> m.Ref | None:
        return self.book.refs.get(expr)

    # ------------------------------------------------------------------ notation

    def expr(self, expr: n.Expr) -> str:
        """An expression in compact notation: `(STR + DEX) / 2`, `carried x gravity`."""
        return self._note(expr, words=False)[0]

    def words(self, expr: n.Expr) -> str:
        """A condition in plain words: `moved > half MOV`, `weapon is thrown or missile`."""
        return self._note(expr, words=True)[0]

    def _note(self, expr: n.Expr, words: bool) -> tuple[str, int]:
        if isinstance(expr, n.Number):
            literal = clean(expr.literal)
            if expr.value == 0 and expr.unit is None:
                return "0", _ATOM  # `-0` in a source's table is no change: printed 0
            if literal.startswith("-"):
                return MINUS + literal[1:], _LEVEL["neg"]
            return literal, _ATOM
        if isinstance(expr, n.DiceLiteral):
            return f"{expr.count if expr.count != 1 else ''}d{expr.sides}", _ATOM
        if isinstance(expr, n.TextLiteral):
            return (f"“{clean(expr.value)}”" if words else clean(expr.value)), _ATOM
        if isinstance(expr, n.Boolean):
            return ("yes" if expr.value else "no"), _ATOM
        if isinstance(expr, n.SpecialLiteral):
            return expr.text, _ATOM
        if isinstance(expr, n.NameRef):
            ref = self._ref(expr)
            if ref is not None and ref.kind == "member":
                return self._member_name(expr), _ATOM
            if words and ref is not None and ref.kind in ("input", "stat") and isinstance(self._type(expr), t.Flag):
                return flag_clause(self.book, expr.name, True), _ATOM
            if words and ref is not None and ref.kind == "derive" and expr.name in self._derived:
                label = self._derived[expr.name]
                return with_subject(label[:1].lower() + label[1:] if label[1:2].islower() else label), _ATOM
            return self.name(expr.name), _ATOM
        if isinstance(expr, n.BaseRef):
            return f"base {self.name(expr.name)}", _ATOM
        if isinstance(expr, n.Call):
            args = [self._note(a, words)[0] for a in expr.args]
            function = expr.function.text
            excess = _excess(expr)
            if excess is not None:
                over, under = (self._note(side, words)[0] for side in excess)
                return f"the excess of {over} over {under}", _LEVEL["+"]
            if function in ("min", "max"):
                which = "lower" if function == "min" else "higher"
                listed = _listed(args, "and")
                return f"the {which} of {listed}", _LEVEL["+"]
            if function == "abs" and len(args) == 1:
                return f"{args[0]} without its sign", _LEVEL["+"]
            return f"{display_name(function)} of {', '.join(args)}", _LEVEL["+"]
        if isinstance(expr, n.Lookup):
            title = self.table_title(expr.table.text)
            if expr.column is not None:
                column = self._column_label(expr.table.text, expr.column.text)
                if column.casefold() != title.casefold():
                    return f"{column} from \u201c{title}\u201d", _LEVEL["+"]
            return f"\u201c{title}\u201d", _ATOM
        if isinstance(expr, n.Negate):
            if literal_fraction(expr.operand) == 0:
                return "0", _ATOM  # `-0` in a source's table is no change: printed 0
            inner, level = self._note(expr.operand, words)
            return MINUS + _wrap(inner, level, _LEVEL["neg"]), _LEVEL["neg"]
        written = printer.per_written(expr)
        if written is not None:
            amount, steps = written
            inner, level = self._note(amount, words)
            return f"{_wrap(inner, level, _LEVEL['*'])} per {self._note(steps, words)[0]}", _LEVEL["*"]
        if isinstance(expr, n.PerSteps):
            return self._per_steps(expr, words), _LEVEL["*"]
        if isinstance(expr, n.Binary):
            return self._binary(expr, words)
        if isinstance(expr, n.Rounded):
            inner, level = self._note(expr.operand, words)
            return f"{_wrap(inner, level, _LEVEL['+'])}{NBSP}{ROUNDING[expr.mode]}", _LEVEL["round"]
        if isinstance(expr, n.DiceCount):
            count = literal_fraction(expr.count)
            if count is not None and count.denominator == 1:
                return f"{count.numerator}d{expr.sides}", _ATOM
            inner, _ = self._note(expr.count, words)
            return f"({inner})d{expr.sides}", _ATOM
        if isinstance(expr, n.PoolDice):
            return printer.pool_dice_text(expr, lambda inner: self._note(inner, words)[0]), _ATOM
        if isinstance(expr, n.LeftDie):
            keep = printer.pool_dice_text(expr.keep, lambda inner: self._note(inner, words)[0])
            return f"(the size of the largest die left by {keep}; {expr.otherwise} if none)", _ATOM
        if isinstance(expr, n.FacedDice):
            return printer.faced_dice_text(expr, lambda inner: self._note(inner, words)[0]), _ATOM
        if isinstance(expr, n.PairedDice):
            return printer.paired_dice_text(expr, lambda inner: self._note(inner, words)[0]), _ATOM
        if isinstance(expr, n.CancellingDice):
            inner, _ = self._note(expr.operand, words)
            faces = str(expr.low) if expr.low == expr.high else f"{expr.low}\u2013{expr.high}"
            die = f"the {display_name(expr.die.text)} die"
            return f"({inner}; a natural {faces} on {die} takes it and the highest other die away)", _ATOM
        if isinstance(expr, n.NamedDie):
            inner, _ = self._note(expr.operand, words)
            return f"{inner} ({display_name(expr.name.text)})", _ATOM
        if isinstance(expr, n.Compare):
            return self._compare(expr, words)
        if isinstance(expr, n.Member):
            return self._member(expr, words)
        if isinstance(expr, n.Not):
            return self._not(expr, words)
        if isinstance(expr, n.BoolOp) and words and expr.op == "or":
            level = _LEVEL["or"]
            said = [_wrap(text, inner, level + 1) for text, inner in (self._note(x, words) for x in _chain(expr, "or"))]
            return " or ".join(_subject_once(said)), level
        if isinstance(expr, n.BoolOp):
            level = _LEVEL[expr.op]
            left, left_level = self._note(expr.left, words)
            right, right_level = self._note(expr.right, words)
            return f"{_wrap(left, left_level, level)} {expr.op} {_wrap(right, right_level, level + 1)}", level
        raise TypeError(f"no notation for {type(expr).__name__}")

    def _per_steps(self, expr: n.PerSteps, words: bool) -> str:
        """`hour of exposure` -> "hour of exposure", `10 ft of fall` -> "10 feet of fall": the
        unit in the words the rulebook gives it, one step in the singular."""
        unit = expr.step.unit.text if expr.step.unit is not None else ""
        step = f"{clean(expr.step.literal)}{NBSP}{self.unit(unit)}" if expr.counted else singular(self.unit(unit))
        quantity, level = self._note(expr.quantity, words)
        return f"{step} of {_wrap(quantity, level, _ATOM)}"

    def _column_label(self, table: str, column: str) -> str:
        found = self.book.tables.get(table)
        if found is not None:
            for name, label in found.columns:
                if name == column and label:
                    return clean(label)
        return display_name(column)

    def _binary(self, expr: n.Binary, words: bool) -> tuple[str, int]:
        fraction = literal_fraction(expr) if expr.op == "/" else None
        if fraction is not None and isinstance(expr.left, n.Number) and isinstance(expr.right, n.Number):
            glyph = vulgar(fraction)
            if glyph is not None:
                return glyph, _ATOM
        level = _LEVEL[expr.op]
        left, left_level = self._note(expr.left, words)
        right, right_level = self._note(expr.right, words)
        if words and expr.op == "/" and isinstance(expr.right, n.Number) and left_level == _ATOM:
            part = _PARTS.get(int(expr.right.value)) if expr.right.value.denominator == 1 else None
            if part is not None:
                return f"{part}{NBSP}{left}", _LEVEL["*"]
        if expr.op == "^":
            return f"{_wrap(left, left_level, level + 1)}^{_wrap(right, right_level, level)}", level
        right_min = level + 1 if expr.op in "-/" else level
        symbol = {"+": "+", "-": MINUS, "*": TIMES, "/": "/"}[expr.op]
        return f"{_wrap(left, left_level, level)}{NBSP}{symbol}{NBSP}{_wrap(right, right_level, right_min)}", level

    def _is_choice(self, expr: n.Expr) -> bool:
        """Whether an expression is a choice (`stance`) or one of its members (`prone`)."""
        ref = self._ref(expr)
        return isinstance(self._type(expr), t.Enum) or (ref is not None and ref.kind == "member")

    def _compare(self, expr: n.Compare, words: bool) -> tuple[str, int]:
        level = _LEVEL["compare"]
        left, left_level = self._note(expr.left, words)
        right, right_level = self._note(expr.right, words)
        left = _wrap(left, left_level, level + 1)
        right = _wrap(right, right_level, level + 1)
        if words:
            if self._is_choice(expr.left) or self._is_choice(expr.right):
                chosen = self._choices(expr)
                if chosen is not None:
                    return chosen, level
                if isinstance(expr.left, n.NameRef) and expr.left.name in self.book.vars and left_level == _ATOM:
                    left = self.subject(expr.left.name)
                phrase = {
                    "==": f"{left} is {right}",
                    "!=": f"{left} is not {right}",
                    ">=": f"{left} is {right} or higher",
                    ">": f"{left} is higher than {right}",
                    "<=": f"{left} is {right} or lower",
                    "<": f"{left} is lower than {right}",
                }[expr.op]
                return phrase, level
            if isinstance(self._type(expr.left), t.Flag) and isinstance(expr.right, n.Boolean):
                positive = expr.right.value == (expr.op == "==")
                if isinstance(expr.left, n.NameRef) and expr.left.name in self.book.vars:
                    return flag_clause(self.book, expr.left.name, positive), _ATOM
                return (left if positive else f"not {left}"), (_ATOM if positive else _LEVEL["not"])
            if expr.op in ("==", "!="):
                verb = "are" if isinstance(expr.left, n.NameRef) and names_many(left) else "is"
                return f"{left} {verb} {'not ' if expr.op == '!=' else ''}{right}", level
        return f"{left}{NBSP}{COMPARISON[expr.op]}{NBSP}{right}", level

    def _member_name(self, expr: n.NameRef) -> str:
        """A choice as cards say it, by the input it belongs to where that is known."""
        for var in self.book.vars.values():
            if (
                isinstance(var.type, t.Enum)
                and expr.name in var.type.members
                and any(name == expr.name for name, _ in var.members)
            ):
                    return phrase_of_member(self.book, var.name, expr.name)
        return display_name(expr.name)

    def _choices(self, expr: n.Compare) -> str | None:
        """`ambush != none`, `vis >= poor` as the choices that hold: "the ambush is missile or
        melee", "visibility is poor or zero", when there are few enough to list."""
        subject, other, op = expr.left, expr.right, expr.op
        if not isinstance(subject, n.NameRef) or subject.name not in self.book.vars:
            return None
        var = self.book.vars[subject.name]
        ref = self._ref(other)
        if not isinstance(var.type, t.Enum) or not isinstance(other, n.NameRef) or ref is None or ref.kind != "member":
            return None
        members = list(var.type.members)
        if other.name not in members:
            return None
        at = members.index(other.name)
        picked = {
            "==": [other.name],
            "!=": [x for x in members if x != other.name],
            ">=": members[at:],
            ">": members[at + 1 :],
            "<=": members[: at + 1],
            "<": members[:at],
        }[op]
        if not picked:
            return None
        if len(picked) > 3 and op != "==":
            if not var.type.ordered or picked != members[members.index(picked[0]) : members.index(picked[-1]) + 1]:
                return None
            first = phrase_of_member(self.book, subject.name, picked[0])
            last = phrase_of_member(self.book, subject.name, picked[-1])
            if picked[-1] == members[-1]:
                return f"{self.subject(subject.name)} is {first} or higher"
            if picked[0] == members[0]:
                return f"{self.subject(subject.name)} is {last} or lower"
            return None
        return self._is(subject.name, picked)

    def _is(self, var: str, members: list[str]) -> str:
        said = [phrase_of_member(self.book, var, x) for x in members]
        return f"{self.subject(var)} is {_alternatives(said)}"

    def subject(self, name: str) -> str:
        """A choice named as the subject of a sentence: its phrase, or its label made one ("Depth
        of the water" -> "the depth of the water", "How the shooter moves" -> "the way the
        shooter moves"), so that "When the depth of the water is knee" reads as English."""
        var = self.book.vars.get(name)
        said = self.name(name)
        if var is None or var.phrase or name in self.specials:
            return said
        return as_subject(said)

    def _member(self, expr: n.Member, words: bool) -> tuple[str, int]:
        level = _LEVEL["compare"]
        inner, inner_level = self._note(expr.operand, words)
        inner = _wrap(inner, inner_level, level + 1)
        subject = expr.operand.name if isinstance(expr.operand, n.NameRef) else None
        var = self.book.vars.get(subject) if subject else None
        if var is not None and subject is not None:
            members = [phrase_of_member(self.book, subject, x.text) for x in expr.members]
        else:
            members = [display_name(x.text) for x in expr.members]
        if var is not None and subject is not None and isinstance(var.type, t.Enum) and words:
            named = {x.text for x in expr.members}
            picked = [x for x in var.type.members if (x in named) != expr.negated]
            if picked and (len(picked) <= 3 or not expr.negated):
                return self._is(subject, picked), level
        if not words:
            word = "is not" if expr.negated else "is"
            return f"{inner} {word} {_alternatives(members)}", level
        if not expr.negated:
            return f"{inner} is {_alternatives(members)}", level
        if len(members) == 1:
            return f"{inner} is not {members[0]}", level
        if len(members) == 2:
            return f"{inner} is neither {members[0]} nor {members[1]}", level
        return f"{inner} is none of {', '.join(members)}", level

    def _not(self, expr: n.Not, words: bool) -> tuple[str, int]:
        operand = expr.operand
        if words:
            if isinstance(operand, n.Compare):
                op = _NEGATED[operand.op]
                return self._compare(n.Compare(operand.span, op, operand.left, operand.right), words)  # type: ignore[arg-type]
            if isinstance(operand, n.Member):
                return self._member(
                    n.Member(operand.span, operand.operand, operand.members, not operand.negated), words
                )
            if isinstance(operand, n.NameRef) and isinstance(self._type(operand), t.Flag) and operand.name in self.book.vars:
                return flag_clause(self.book, operand.name, False), _ATOM
        inner, level = self._note(operand, words)
        return "not " + _wrap(inner, level, _LEVEL["not"]), _LEVEL["not"]

    # ------------------------------------------------------------------ conditions

    def condition(self, expr: n.Expr) -> str:
        """A whole condition in words; `a and b and not (c and d)` reads `a and b, unless c and d`."""
        return self._clauses([expr], [], lead="")

    def guard(self, guard: tuple[m.Condition, ...]) -> str:
        """`when moved > 0 and weapon is laser, unless lit`: the conditions of an effect, in words."""
        if not guard:
            return ""
        said = self._clauses([c.expr for c in guard if not c.negated], [c.expr for c in guard if c.negated], "when ")
        # "when with an MSV" says its condition twice: "with an MSV".
        return said.removeprefix("when ") if said.startswith(("when with ", "when without ")) else said

    def _clauses(self, holds: list[n.Expr], fails: list[n.Expr], lead: str) -> str:
        """All of `holds` and none of `fails`: `when a and b, unless c or d`."""
        terms = [x for expr in holds for x in _chain(expr, "and")]
        kept = [x for x in terms if not (isinstance(x, n.Not) and isinstance(x.operand, n.BoolOp))]
        exceptions = [*fails, *(x.operand for x in terms if isinstance(x, n.Not) and isinstance(x.operand, n.BoolOp))]
        kept, exceptions = self._narrowed(kept, exceptions)
        parts = []
        if kept:
            said = [
                self._between(*x) if isinstance(x, tuple) else self._term(x, _LEVEL["and"] if len(kept) > 1 else 0)
                for x in self._bounds(kept)
            ]
            parts.append(lead + " and ".join(_predicate_once(said)))
        if exceptions:
            boolean = len(exceptions) > 1
            said = [self._term(x, _LEVEL["not"] if boolean else 0) for x in exceptions]
            parts.append("unless " + " or ".join(_subject_once(said)))
        # A label that ends with its verb ("The target is") meets the verb of its comparison.
        return _DOUBLED_VERB.sub(r"\1", ", ".join(parts))

    def _narrowed(self, kept: list[n.Expr], exceptions: list[n.Expr]) -> tuple[list[n.Expr], list[n.Expr]]:
        """An exception that only takes one choice out of the alternatives a condition lists,
        taken out of them: "when the band is 1 or 2, unless the band is 1" is "when the band is
        2" (an `else` under a `when` of alternatives)."""
        kept = list(kept)
        left: list[n.Expr] = []
        for exception in exceptions:
            if not (isinstance(exception, n.Compare) and exception.op == "==" and _name(exception.left) is not None):
                left.append(exception)
                continue
            for at, term in enumerate(kept):
                narrowed = self._without(term, _name(exception.left), exception.right)
                if narrowed is not None:
                    kept[at] = narrowed
                    break
            else:
                left.append(exception)
        return kept, left

    def _without(self, term: n.Expr, name: str | None, value: n.Expr) -> n.Expr | None:
        """`term`, alternatives of `name`'s value, without `value`; None when it is not such
        alternatives, does not list it, or lists nothing else."""
        if isinstance(term, n.Member) and not term.negated and _name(term.operand) == name:
            members = tuple(x for x in term.members if x.text != _name(value))
            if 0 < len(members) < len(term.members):
                return n.Member(term.span, term.operand, members, False)
            return None
        alternatives = _chain(term, "or")
        if len(alternatives) < 2 or not all(
            isinstance(x, n.Compare) and x.op == "==" and _name(x.left) == name for x in alternatives
        ):
            return None
        others = [x for x in alternatives if isinstance(x, n.Compare) and x.right != value]
        if not 0 < len(others) < len(alternatives):
            return None
        narrowed: n.Expr = others[0]
        for other in others[1:]:
            narrowed = n.BoolOp(term.span, "or", narrowed, other)
        return narrowed

    def _bounds(self, terms: list[n.Expr]) -> list[n.Expr | tuple[n.Compare, n.Compare]]:
        """Terms, with a number's lower and upper bound (`x > a and x <= b`, in either order) paired
        as one range, at the place of the first."""
        said: list[n.Expr | tuple[n.Compare, n.Compare]] = []
        paired: set[int] = set()
        for at, term in enumerate(terms):
            if at in paired:
                continue
            partner = self._partner(terms, at, paired)
            if partner is None:
                said.append(term)
                continue
            paired.add(partner)
            other = terms[partner]
            assert isinstance(term, n.Compare) and isinstance(other, n.Compare)
            said.append((term, other) if term.op in (">", ">=") else (other, term))
        return said

    def _partner(self, terms: list[n.Expr], at: int, paired: set[int]) -> int | None:
        """The place of the first later term that bounds the same number as `terms[at]` from the
        other side, if `terms[at]` is a bound."""
        term = terms[at]
        if not (isinstance(term, n.Compare) and self._bound(term)):
            return None
        lower = term.op in (">", ">=")
        return next(
            (
                later
                for later in range(at + 1, len(terms))
                if later not in paired
                and isinstance(other := terms[later], n.Compare)
                and self._bound(other)
                and _name(other.left) == _name(term.left)
                and (other.op in (">", ">=")) != lower
            ),
            None,
        )

    def _bound(self, term: n.Expr) -> bool:
        """`x > a`, `x <= b`: a bound on a number the card prints with a sign."""
        return (
            isinstance(term, n.Compare)
            and term.op in ("<", "<=", ">", ">=")
            and isinstance(term.left, n.NameRef)
            and not self._is_choice(term.left)
            and not self._is_choice(term.right)
            and isinstance(self._type(term.left), t.Numeric)
        )

    def _between(self, lower: n.Compare, upper: n.Compare) -> str:
        """`25 ≤ POT < 30`: a number between two bounds, said once."""
        level = _LEVEL["compare"]
        subject = _wrap(*self._note(lower.left, True), level + 1)
        low = _wrap(*self._note(lower.right, True), level + 1)
        high = _wrap(*self._note(upper.right, True), level + 1)
        flipped = {">": "<", ">=": "<="}[lower.op]
        return f"{low}{NBSP}{COMPARISON[flipped]}{NBSP}{subject}{NBSP}{COMPARISON[upper.op]}{NBSP}{high}"

    def _term(self, expr: n.Expr, level: int) -> str:
        text, inner = self._note(expr, True)
        return _wrap(text, inner, level)

    def alternatives(self, expr: n.Expr) -> list[str]:
        """The alternatives of a flag defined by `a or b or c`, each in words."""
        return [self.condition(x) for x in _chain(expr, "or")]

    # ------------------------------------------------------------------ effects

    def target(self, name: str) -> str:
        return self.name(name)

    def modifier(self, effect: m.ModEffect) -> str:
        """`DEX -2`, `MOV x½ ↑`, `DEX -1 / smoke hex`, `DEX = 5`, `skill is difficult (x½ ↑)`, printed
        with true minus and multiplication signs; a flag set as its clause ("Terrain Type:
        Jungle"), a choice or level in words ("VIS: at least Low")."""
        var = self.book.vars.get(effect.target)
        if var is not None and isinstance(var.type, t.Flag) and effect.op == "set" and isinstance(effect.value, n.Boolean):
            return flag_clause(self.book, effect.target, effect.value.value)
        if var is not None and isinstance(var.type, t.Enum) and effect.value is not None:
            value = self.expr(effect.value)
            said = {"set": f"is {value}", "min": f"at least {value}", "max": f"at most {value}"}.get(effect.op)
            if said is not None:
                return f"{self.target(effect.target)}: {said}"
        return f"{self.target(effect.target)}{NBSP}{self.change(effect)}"

    def per(self, per: n.Expr) -> str:
        """The unit a per-unit modifier counts, after its amount: ` per smoke hex` for a name
        that is a noun (made singular), else ` x (Other Bleeds the target already has)` with a times sign: a
        label that is a clause has no singular, and cutting its last word's `s` is no plural
        made singular (`has` is not `ha`)."""
        if isinstance(per, n.PerSteps):
            return f" per {self._per_steps(per, True)}"  # `per 2 hex of smoke`: "per 2 hexes of smoke"
        unit = self.unit_noun(per)
        return f" per {unit}" if unit is not None else f" {TIMES} ({self.expr(per)})"

    def unit_noun(self, per: n.Expr) -> str | None:
        """The singular noun a per-unit modifier counts (`smoke hex`, `extra body`), or None when
        what it counts is not a plain noun of a few words."""
        if not isinstance(per, n.NameRef):
            return None
        said = self.name(per.name)
        words = said.split()
        if not words or len(words) > 5 or any(w.lower() in _NOT_IN_A_NOUN for w in words):
            return None
        # the noun is the last plural word: `smoke hexes fired through` counts a smoke hex
        plural_at = [i for i, w in enumerate(words) if w.lower().endswith("s") and not w.lower().endswith("ss")]
        if not plural_at:
            return said
        at = plural_at[-1]
        return " ".join([*words[:at], singular(words[at]), *words[at + 1 :]])

    def change(self, effect: m.ModEffect) -> str:
        """What a modifier does, without the stat it changes."""
        op = effect.op
        if op == "add":
            assert effect.value is not None
            text = self._signed(effect.value) + ("%" if effect.percent else "")
            if effect.per is not None:
                text += self.per(effect.per)
            return text
        if op in ("mul", "div"):
            assert effect.value is not None
            return self._scale(op, effect.value) + _rounding(effect.rounding)
        if op == "set":
            assert effect.value is not None
            return f"={NBSP}" + self.expr(effect.value)
        if op in ("min", "max"):
            assert effect.value is not None
            return f"{op}{NBSP}{self.expr(effect.value)}"
        if op == "grade":
            grade = next((g for g in self.book.grades if g.name == effect.grade), None)
            name = display_name(effect.grade or "")
            return f"is {name}" + (f" ({self.grade_effect(grade)})" if grade is not None else "")
        delta = effect.delta
        unit = {"dice": ("die", "dice"), "step": ("die step", "die steps"), "shift": ("level", "levels")}[op]
        if effect.value is not None:
            count = self.expr(effect.value)
            return f"{count if count.startswith(MINUS) else '+' + count} {unit[1]}"
        return f"{signed(delta)} {plural(delta, *unit)}"

    def clamp(self, effect: m.ModEffect) -> str:
        """A clamp written after the modifier it bounds: `(min 1)`."""
        assert effect.value is not None
        return f"({effect.op}{NBSP}{self.expr(effect.value)})"

    def grade_effect(self, grade: m.Grade) -> str:
        if grade.op == "set":
            return f"={NBSP}" + number(grade.value)
        factor = grade.value if grade.op == "mul" else 1 / grade.value
        return TIMES + (vulgar(factor) or number(factor)) + _rounding(grade.rounding)

    def _signed(self, value: n.Expr) -> str:
        constant = literal_fraction(value)
        if constant is not None:
            return signed(constant)
        if isinstance(value, n.Negate):
            return f"{MINUS}{NBSP}{self._wrapped(value.operand)}"
        return f"+{NBSP}{self._wrapped(value)}"

    def _wrapped(self, value: n.Expr) -> str:
        text, level = self._note(value, False)
        return _wrap(text, level, _ATOM)

    def _scale(self, op: str, value: n.Expr) -> str:
        constant = literal_fraction(value)
        if constant is None or constant == 0:
            return (TIMES if op == "mul" else "÷") + NBSP + self._wrapped(value)
        factor = constant if op == "mul" else 1 / constant
        glyph = vulgar(factor)
        if glyph is not None:
            return TIMES + glyph
        if op == "div":
            return "÷" + number(constant)
        return TIMES + number(factor)

    def roll(self, effect: m.RollEffect) -> str:
        """`3d6 ≤ DEX`, `2d6 + attack vs 2d6 + defense`, `POW vs aura`, `automatic success`."""
        if effect.kind == "check" and effect.target_dice is not None and effect.op is not None:
            dice = self.expr(printer.written_dice(effect)) + "".join(NBSP + self._signed(x) for x in effect.adds)
            return f"{dice}{NBSP}{COMPARISON[effect.op]}{NBSP}{self.expr(effect.target_dice)}"
        if effect.kind in ("check", "total", "count"):
            dice = pool_text(effect.pool) if effect.pool is not None else self.expr(effect.dice) if effect.dice else ""
            dice += "".join(NBSP + self._signed(added) for added in effect.adds)
            if effect.kind == "total" or effect.target is None or effect.op is None:
                return dice
            text = f"{dice}{NBSP}{COMPARISON[effect.op]}{NBSP}{self.expr(effect.target)}"
            if effect.kind == "count" and effect.needed is not None:
                return f"at least {self.expr(effect.needed)} of {text}"
            return text
        if effect.kind == "resist":
            assert effect.active is not None and effect.passive is not None
            return f"{self.expr(effect.active)} vs {self.expr(effect.passive)}"
        if effect.kind == "opposed":
            first = self._side(effect.pool, effect.dice) + self._bonus(effect.bonus)
            second = self._side(effect.against, effect.against_dice) + self._bonus(effect.against_bonus)
            return f"{first} vs {second}"
        return f"automatic {'success' if effect.success else 'failure'}"

    def _side(self, pool: n.Pool | None, dice: n.Expr | None) -> str:
        """One side of an opposed roll: a pool known when writing, or dice worked out when resolving."""
        if pool is not None:
            return pool_text(pool)
        assert dice is not None
        return self.expr(dice)

    def _bonus(self, bonus: n.Expr | None) -> str:
        if bonus is None:
            return ""
        constant = literal_fraction(bonus)
        if constant is not None:
            return f"{NBSP}{MINUS if constant < 0 else '+'}{NBSP}{number(abs(constant))}"
        return NBSP + self._signed(bonus)

    def change_of_roll(self, change: m.RollChange, pool: n.Pool | None) -> str:
        if change.kind == "pool":
            assert change.pool is not None
            return f"roll {pool_text(change.pool)}"
        if change.kind == "dice":
            text = f"{signed(change.delta)} {plural(change.delta, 'die', 'dice')}"
            if pool is not None:
                text += f" ({pool_text(pool, change.delta)})"
            return text
        if change.kind == "target":
            assert change.value is not None
            return f"target{NBSP}" + self._signed(change.value)
        if change.kind == "tiers":
            assert change.tiers is not None
            return "read with " + self.tier_system(change.tiers)
        return f"automatic {'success' if change.success else 'failure'}"

    def tier_system(self, name: str) -> str:
        """A tier system as the reference card heads it: its label, or its name."""
        system = self.book.tiers.get(name)
        return clean(system.label) if system is not None and system.label else display_name(name)

    def step(self, step: m.Step) -> str:
        offset = f" {signed(step.offset)}" if step.offset else ""
        if step.kind == "roll_on":
            return f"roll on {self.table_title(step.table or '')}{offset}"
        if step.kind == "twice":
            return "roll twice on this table"
        return f"roll again{offset}"

    def cell(self, cell: m.TableCell) -> str:
        if cell.kind == "impassable":
            return "X"
        if cell.kind == "na":
            return "N/A"
        text = self.expr(cell.value) if cell.value is not None else ""
        if cell.step is not None:
            text = then_step(text, self.step(cell.step)).removesuffix(".") if text else title_case_first(self.step(cell.step))
        return text


def _rounding(mode: str | None) -> str:
    return f"{NBSP}{ROUNDING[mode]}" if mode else ""


def _wrap(text: str, inner: int, outer: int) -> str:
    return f"({text})" if inner < outer else text


_DOUBLED_VERB = re.compile(r"\b(is|are) \1\b")


def _name(expr: n.Expr) -> str | None:
    return expr.name if isinstance(expr, n.NameRef) else None


def _chain(expr: n.Expr, op: str) -> list[n.Expr]:
    if isinstance(expr, n.BoolOp) and expr.op == op:
        return [*_chain(expr.left, op), *_chain(expr.right, op)]
    return [expr]


_JOINED = re.compile(r"\b(or|and|nor|unless|not)\b")
"""Words that make a phrase more than one choice or subject: such a phrase is left whole."""

_SUBJECT_END = re.compile(r"^(.+(?::| is) )([^,():]+)$")
"""A clause that names its subject and then one choice: "terrain Type: Jungle", "the damage band is 2"."""


def _subject_once(clauses: list[str]) -> list[str]:
    """Alternatives that say the same subject one after another, said once: "terrain Type:
    Jungle or terrain Type: Aquatic or terrain Type: Desert" -> "terrain Type: Jungle, Aquatic or
    Desert".  A choice that is itself a phrase of alternatives ("poor or higher") is left whole."""
    merged: list[tuple[str, list[str]]] = []  # (subject, its choices), or (a whole clause, [])
    for clause in clauses:
        found = _SUBJECT_END.match(clause)
        if found is None or _JOINED.search(found.group(2)):
            merged.append((clause, []))
        elif merged and merged[-1][0] == found.group(1) and merged[-1][1]:
            merged[-1][1].append(found.group(2))
        else:
            merged.append((found.group(1), [found.group(2)]))
    return [subject + _alternatives(choices) if choices else subject for subject, choices in merged]


_IS_END = re.compile(r"^([^,()]+) is ([^,():]+)$")


def _predicate_once(clauses: list[str]) -> list[str]:
    """Conditions that say the same of subjects one after another, said once: "terrain hull down
    is N/A and forest hull down is N/A" -> "terrain hull down and forest hull down are N/A"."""
    merged: list[tuple[list[str], str]] = []  # (subjects, what is said of them), or ([a whole clause], "")
    for clause in clauses:
        found = _IS_END.match(clause)
        if found is None or _JOINED.search(found.group(0)) or re.search(r"\bis\b", found.group(1)):
            merged.append(([clause], ""))
        elif merged and merged[-1][1] == found.group(2):
            merged[-1][0].append(found.group(1))
        else:
            merged.append(([found.group(1)], found.group(2)))
    said = []
    for subjects, predicate in merged:
        if not predicate:
            said.append(subjects[0])
        elif len(subjects) == 1:
            said.append(f"{subjects[0]} is {predicate}")
        else:
            said.append(f"{_listed(subjects, 'and')} are {predicate}")
    return said


def _listed(items: list[str], conjunction: str) -> str:
    """`a, b and c` / `a or b`: items in a sentence."""
    if len(items) <= 2:
        return f" {conjunction} ".join(items)
    return ", ".join(items[:-1]) + f" {conjunction} " + items[-1]


def _alternatives(items: list[str]) -> str:
    return _listed(items, "or")


def row_key(row: m.TableRow) -> str:
    """A table row's key as cards print it: `4+`, `1\u20135`, `12`, a choice in words, `other`."""
    if row.is_else:
        return "other"
    if row.member is not None:
        return display_name(row.member)
    if row.high is None or row.threshold:
        return f"{_key_number(row.low)}+"
    if row.low == row.high:
        return _key_number(row.low)
    return f"{_key_number(row.low)}{DASH}{_key_number(row.high)}"


def _key_number(value: int | None) -> str:
    if value is None:
        return ""
    return f"{MINUS}{-value}" if value < 0 else str(value)
