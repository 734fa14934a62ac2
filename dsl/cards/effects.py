"""A rule's effects as blocks: modifiers grouped under their conditions, rolls with their chances,
restrictions, derived values, what it inherits through `as`, notes and errata.

Used by both the cards (`full`: everything, chance tables, notes) and the quick-reference sheet
(compact: effects and rolls only; notes stay on the cards).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from fractions import Fraction

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.cards.blocks import (
    OTHERWISE,
    Block,
    Chances,
    ChanceTable,
    Condition,
    Detail,
    Entry,
    Grid,
    Heading,
    Inline,
    Note,
    RollHead,
    Run,
)
from dsl.cards.chances import ChanceTables, Variant, total_range
from dsl.cards.implication import implies
from dsl.cards.notation import COMPARISON, Notation, literal_fraction, negate, pool_text, row_key
from dsl.cards.text import DASH, NBSP, clean, display_name, names_many, signed, then_step, title_case_first
from dsl.cards.text import number as number_text
from dsl.model.parts import flat_effects

CANNOT = "✕"
LOOKUP_ROWS = 12
"""The most rows of a table a value read from it prints on the card of the rule that reads it."""

LOOKUP_TEXT = 200
"""The most characters of a table's rows the card of a rule reading from it repeats when the table
has a card of its own in the deck: longer rows (a table of effects in words) are read there."""

_STACKING = {
    "strongest": "only the strongest applies",
    "highest": "only the highest applies",
    "lowest": "only the lowest applies",
}

_GROUP_NOUNS = ("modifiers", "modifier", "mods", "mod", "bonuses", "penalties", "maluses")


class EffectWriter:
    def __init__(
        self,
        book: m.Book,
        notation: Notation,
        *,
        full: bool,
        errata: bool = True,
        numbers: dict[str, int] | None = None,
    ) -> None:
        self.book = book
        self.notation = notation
        self.full = full
        self.errata = errata  # whether errata print on the rule's card (else in an appendix, or nowhere)
        self.numbers = numbers or {}  # the card number of each rule and table, for cross-references
        self._stacking_said: set[str] = set()  # groups whose stacking this rule has explained
        self.chances = ChanceTables(notation)

    def card_of(self, name: str) -> str:
        """How a card names another rule's card: `card 12`, or `the Broken Ground card`."""
        number = self.numbers.get(name)
        if number:
            return f"card {number}"
        found = self.book.rules.get(name)
        return f"the {clean(found.title) if found else display_name(name)} card"

    def errata_of(self, rule: m.Rule) -> list[Note]:
        """A rule's own errata, its rolls' included, for the appendix."""
        own = [e for e in rule.effects if not isinstance(e, m.PartEffect)]
        notes = [
            Note(clean(e.text), clean(e.quote or ""), self.notation.guard(e.guard))
            for e in own
            if isinstance(e, m.NoteEffect) and e.quote is not None
        ]
        for effect in own:
            if isinstance(effect, m.RollEffect):
                label = clean(effect.label) if effect.label else title_case_first(display_name(effect.name))
                notes += [Note(clean(text), clean(quote), label) for text, quote in effect.notes if quote]
        return notes

    def asides_of(self, rule: m.Rule) -> list[Note]:
        """A rule's asides (reading matter: background, the source's remarks), for the appendix,
        each under its condition; and those of a rule it composes (`as OTHER`) whose card is not
        in the deck (`--only`), which would otherwise be in no card's appendix."""
        found: list[Note] = []
        for effect in rule.effects:
            if isinstance(effect, m.NoteEffect) and effect.aside:
                found.append(Note(clean(effect.text), None, self.notation.guard(effect.guard)))
            elif isinstance(effect, m.PartEffect) and self.numbers and effect.rule not in self.numbers:
                for inner in self.book.parts[effect.part].effects:
                    if isinstance(inner, m.NoteEffect) and inner.aside:
                        guard = self.notation.guard((*effect.guard, *inner.guard))
                        found.append(Note(clean(inner.text), None, guard))
        first: dict[str, Note] = {}
        for note in found:
            first.setdefault(note.text, note)  # an aside composed twice is printed once, where first said
        return list(first.values())

    # ------------------------------------------------------------------ a whole rule

    def rule(self, rule: m.Rule) -> list[Block]:
        self._stacking_said = set()
        own = [e for e in rule.effects if not isinstance(e, m.PartEffect)]
        blocks = self.bases(rule, own) if self.full else []
        grid, shown = self.statblock(rule, own)
        if grid is not None:
            blocks.append(grid)
        blocks += self.effects([e for e in own if e not in shown])
        blocks += self.inherited(rule, {name for name in shown.values() if name})
        if self.full:
            blocks += self.notes([e for e in own if isinstance(e, m.NoteEffect)])
        return blocks

    def statblock(self, rule: m.Rule, own: Sequence[m.Effect]) -> tuple[Grid | None, dict[m.Effect, str]]:
        """The rule's stat block (the book's `statblock` for its kind): a row for each line of the
        block, showing the trait the rule composes there, with that trait's effect, and the
        changes it makes to the row's stats; a row the rule leaves alone shows a dash.  Also what
        the grid shows, so that the card does not say it twice: modifiers (value "") and composed
        traits (the `as`, value the trait's name)."""
        block = next((b for b in self.book.statblocks if rule.kind in b.kinds), None)
        if block is None:
            return None, {}
        shown: dict[m.Effect, str] = {}
        rows = []
        for label, names in block.rows:
            cells = []
            for name in names:
                for effect in rule.effects:
                    if isinstance(effect, m.PartEffect) and effect.rule == name and not effect.via:
                        cells.append(self._trait_cell(label, name, effect))
                        shown[effect] = name
                    elif isinstance(effect, m.ModEffect) and effect.target == name and not effect.guard:
                        cells.append(self._stat_cell(label, effect))
                        shown[effect] = ""
            rows.append((label, title_case_first("; ".join(cells)) if cells else DASH))
        if not shown:
            return None, {}
        return Grid(("", clean(block.label) if block.label else title_case_first(display_name(block.name))), tuple(rows)), shown

    def _trait_cell(self, label: str, name: str, effect: m.PartEffect) -> str:
        """A composed trait in a stat block: its title without the row's label ("VIS: Low
        Visibility (-3)" in row VIS is "Low Visibility (-3)"), what it changes, its card number."""
        trait = self.book.rules[name]
        title = clean(trait.title)
        for prefix in (label + ":", label + " :", label.upper() + ":"):
            if title.startswith(prefix):
                title = title[len(prefix) :].strip()
        parts = [title]
        effects = [e for e in self.book.parts[effect.part].effects if isinstance(e, (m.ModEffect, m.RollEffect))]
        said = []
        for inner in effects:
            if inner.guard:
                continue
            if isinstance(inner, m.ModEffect) and inner.op in ("add", "min", "max") and inner.value is not None:
                if literal_fraction(inner.value) is not None:
                    said.append(self.notation.modifier(inner))
            elif isinstance(inner, m.RollEffect) and inner.kind == "check":
                chances = self.chances.of(inner)
                text = self.notation.roll(inner)
                if chances is not None and len(chances.columns) == 1:
                    text += f": {chances.rows[0].cells[0]}"
                said.append(text)
        if said:
            parts.append(", ".join(dict.fromkeys(said)))
        if effect.guard:
            parts.append(self.notation.guard(effect.guard))
        number = self.numbers.get(name)
        if number:
            parts.append(f"No.{NBSP}{number}")
        return " \u00b7 ".join(parts)

    def _stat_cell(self, label: str, effect: m.ModEffect) -> str:
        """A change in its row, without the row's label: "Jungle" in row Terrain Type, not
        "terrain Type: Jungle"; "at least Low" in row VIS, not "the card's VIS: at least Low"."""
        text = self.notation.modifier(effect)
        found = text.casefold().find(label.casefold() + ":")
        if found != -1 and found <= len("the card's "):
            return text[found + len(label) + 1 :].strip()
        return text

    def bases(self, rule: m.Rule, own: Sequence[m.Effect]) -> list[Block]:
        """The value a stat starts from where it is the rule's own number, not a player's: a
        stat only this rule uses (the skid threshold, 3) or one worked out by a formula (the aura
        total, (SIZ + POW + CHA) / 3 rounded up).  A player's DEX is on the character sheet, and a
        modifier that starts at 0 and is only added to goes without saying."""
        touched: list[str] = []
        for effect in own:
            name = None
            if isinstance(effect, m.ModEffect):
                name = effect.target
            elif isinstance(effect, m.RollEffect) and isinstance(effect.target, n.NameRef):
                name = effect.target.name
            if name is not None and name not in touched:
                touched.append(name)
        blocks: list[Block] = []
        for name in touched:
            var = self.book.vars.get(name)
            if var is None or not var.is_stat:
                continue
            users = sum(1 for other in self.book.rules.values() if name in other.reads)
            label = self.notation.name(name)
            if var.default_expr is not None and not isinstance(var.default_expr, n.NameRef):
                value = self.notation.expr(var.default_expr)
            elif users == 1 and var.default is not None and not isinstance(var.default, (bool, str)):
                value = str(var.default) if not isinstance(var.default, Fraction) else number_text(var.default)
            else:
                continue
            if value == "0" and all(
                isinstance(effect, m.ModEffect) and effect.op == "add"
                for effect in own
                if isinstance(effect, m.ModEffect) and effect.target == name
            ):
                continue  # a modifier only added to reads as its additions: "Stealth +1"
            verb = "start" if names_many(label) else "starts"
            blocks.append(Entry((Run(title_case_first(label), "strong"), Run(f" {verb} at {value}"))))
        return blocks

    def effects(self, effects: Sequence[m.Effect], elsewhere: str | None = None) -> list[Block]:
        """Modifiers, values and restrictions grouped by condition, in source order; then rolls.
        `elsewhere` names the card of the rule they come from, which shows the rolls' chances."""
        plain = [
            e for e in effects if isinstance(e, (m.ModEffect, m.DeriveEffect, m.CannotEffect)) and not _no_change(e)
        ]
        clamps = _attachable_clamps(plain)
        groups = _by_guard([e for e in plain if e not in clamps.values()])
        blocks = _otherwise(self._tree(groups, clamps, 0, 0))
        for effect in effects:
            if isinstance(effect, m.RollEffect):
                blocks += self.roll(
                    effect,
                    self._fixed_target(effect, effects),
                    elsewhere=elsewhere,
                    shift=self._shift(effect, effects),
                    variants=self._variants(effect, effects),
                )
        return blocks

    def _group(
        self, group: list[m.Effect], clamps: dict[str, m.ModEffect], *, indent: int, condition: str = ""
    ) -> list[Block]:
        """The effects of one guard; `condition`: the guard as the card says it, which a
        modifier's label is not printed again after (see `modifier`)."""
        made: list[Block] = []
        for index, effect in enumerate(group):
            following = group[index + 1] if index + 1 < len(group) else None
            made += self._effect(effect, clamps, following, indent=indent, condition=condition)
        return made

    def _tree(self, groups: list[Guarded], clamps: dict[str, m.ModEffect], depth: int, level: int) -> list[Block]:
        """Groups of effects under their conditions as the rule nests them, each condition said
        once: groups whose guards share the condition after the first `depth` (said above them)
        are set under one heading at `level` ("When taking part in a chase:"), saying every
        condition they all share, and each then says only what it adds, one level in; a group
        that shares nothing with its neighbours leads its line with its condition (see `_under`).
        A run of such groups whose conditions begin with the same subject and verb says it once
        (see `_shared_subject`)."""
        blocks: list[Block] = []
        start = 0
        while start < len(groups):
            guard = groups[start][0]
            stop = start + 1
            while stop < len(groups) and _next_shared(guard, groups[stop][0], depth):
                stop += 1
            if stop - start > 1:
                common = guard
                for other, _ in groups[start + 1 : stop]:
                    common = _common(common, other)
                blocks.append(Condition(title_case_first(self.notation.guard(common[depth:])) + ":", level))
                blocks += self._tree(groups[start:stop], clamps, len(common), level + 1)
            else:
                made_run = self._subject_run(groups[start:], clamps, depth, level)
                blocks += _shared_subject(made_run, level)
                stop = start + len(made_run)
            start = stop
        return blocks

    def _subject_run(
        self, groups: list[Guarded], clamps: dict[str, m.ModEffect], depth: int, level: int
    ) -> list[tuple[str, list[Block]]]:
        """The first of `groups` and those after it whose conditions (after the first `depth`,
        said above them) begin with the same subject and verb as its ("when the task is Easy",
        "when the task is Difficult"), each with its condition in words and its effects, made once
        (a card says how modifiers stack once)."""
        run: list[tuple[str, list[Block]]] = []
        subject: list[str] = []
        for index, (guard, group) in enumerate(groups):
            if run and index + 1 < len(groups) and _next_shared(guard, groups[index + 1][0], depth):
                break  # it starts a run of groups under a shared condition
            said = self.notation.guard(guard[depth:])
            if run:
                found = _subject(said.split(" "), subject)
                if found is None:
                    break
                subject = found
            else:
                subject = _subject(said.split(" "), []) or []
            inner = level + 1 if said else level
            run.append((said, self._group(group, clamps, indent=inner, condition=self.notation.guard(guard))))
            if not subject:
                break
        return run

    @staticmethod
    def _under(condition: str, made: list[Block], level: int) -> list[Block]:
        """Effects under their condition, at `level`: one effect on one line, the condition
        leading ("When wet: DEX -1"); several one level in, below it."""
        if not condition:
            return made
        entries = [b for b in made if isinstance(b, Entry)]
        if len(entries) == 1 and made[0] is entries[0] and not entries[0].mark:
            lead = Run(title_case_first(condition) + ": ", "em")
            return [
                Entry((lead, *_after_lead(entries[0].runs)), level),
                *(replace(b, indent=level) if isinstance(b, Detail) else b for b in made[1:]),
            ]
        return [Condition(title_case_first(condition) + ":", level), *made]

    def _shift(self, roll: m.RollEffect, effects: Sequence[m.Effect]) -> tuple[Fraction, str] | None:
        """What this card's modifiers add to the stat a check is made against, whenever the roll is
        made (`DEX -2` on Broken Ground), so that its chances are keyed by the value the player
        knows, the stat before them.  None when another kind of modifier changes it too."""
        if roll.kind != "check" or not isinstance(roll.target, n.NameRef):
            return None
        stat = roll.target.name
        total = Fraction(0)
        for effect in effects:
            if not isinstance(effect, m.ModEffect) or effect.target != stat:
                continue
            if effect.op in ("min", "max"):
                continue
            if effect.op != "add" or effect.per is not None or effect.value is None:
                return None
            value = literal_fraction(effect.value)
            if value is None:
                return None
            if self._within(effect.guard, roll.guard) or implies(self.book, effect.guard, roll.guard):
                total += value
        return (total, signed(total)) if total else None

    def _variants(self, roll: m.RollEffect, effects: Sequence[m.Effect]) -> tuple[Variant, ...]:
        """The card's modifiers of the stat a check is made against that hold under conditions of
        their own (`when the task is Difficult: skill is difficult`), for the chance table to show
        a row each, keyed by the stat on the player's sheet."""
        if roll.kind != "check" or not isinstance(roll.target, n.NameRef):
            return ()
        stat = roll.target.name
        grades = {grade.name: grade for grade in self.book.grades}
        found: list[Variant] = []
        for effect in effects:
            if not isinstance(effect, m.ModEffect) or effect.target != stat or not effect.guard:
                continue
            if self._within(effect.guard, roll.guard):
                continue  # made whenever the roll is: the shift, not a variant
            # what the roll's own conditions (said under it) leave to say
            said = self.notation.guard(effect.guard[len(_common(effect.guard, roll.guard)) :])
            label = "if " + said.removeprefix("when ") if said.startswith("when ") else said
            if effect.op == "grade" and effect.grade in grades:
                grade = grades[effect.grade]
                found.append((label, grade.op, grade.value, grade.rounding))
            elif effect.op == "add" and effect.per is None and effect.value is not None:
                value = literal_fraction(effect.value)
                if value is not None:
                    found.append((label, "add", value, None))
        return tuple(found[:MAX_VARIANTS])

    def _effect(
        self,
        effect: m.Effect,
        clamps: dict[str, m.ModEffect],
        following: m.Effect | None,
        *,
        indent: int,
        condition: str = "",
    ) -> list[Block]:
        if isinstance(effect, m.ModEffect):
            # Modifiers of one stacking group in a row share one line saying how they stack.
            same_group = isinstance(following, m.ModEffect) and following.group == effect.group
            return self.modifier(
                effect, clamps.get(effect.target), indent=indent, stacking=not same_group, condition=condition
            )
        if isinstance(effect, m.DeriveEffect):
            return self.derive(effect, indent=indent)
        assert isinstance(effect, m.CannotEffect)
        return [Entry((Run("Cannot", "strong"), Run(" " + clean(effect.text))), indent, CANNOT)]

    # ------------------------------------------------------------------ one effect

    def modifier(
        self,
        effect: m.ModEffect,
        clamp: m.ModEffect | None,
        *,
        indent: int,
        stacking: bool = True,
        condition: str = "",
    ) -> list[Block]:
        """A modifier's line: its notation, a clamp of the same stat, and its label, unless the
        label only repeats the line's own words (`condition`: the guard it is printed under,
        "when armor worn is light": "light armor" says nothing more there)."""
        said = self.notation.modifier(effect)
        # A phrase opens a sentence ("The Hostility Level: at least Lethal"); a stat's name is
        # printed as the book writes it ("skill -20%").
        runs: list[Run] = [Run(title_case_first(said) if said.startswith("the ") else said, "strong")]
        if clamp is not None and effect.op not in ("min", "max"):
            runs.append(Run(" " + self.notation.clamp(clamp), "strong"))
        if effect.label and not restates(clean(effect.label), f"{condition} {runs[0].text}"):
            runs.append(Run("\u2002" + clean(effect.label), "muted"))
        blocks: list[Block] = [Entry(tuple(runs), indent)]
        group = self.book.groups.get(effect.group) if effect.group else None
        if stacking and group is not None and group.stacking in _STACKING and group.name not in self._stacking_said:
            # said once a card, after the first modifiers of the group
            self._stacking_said.add(group.name)
            blocks.append(Detail((Run(self.stacking(group), "em"),), indent))
        return blocks

    def stacking(self, group: m.Group) -> str:
        label = clean(group.label) if group.label else display_name(group.name)
        noun = label if label.lower().rsplit(" ", 1)[-1] in _GROUP_NOUNS else f"{label} modifiers"
        return f"Does not stack with other {noun}: {_STACKING[group.stacking]}."

    def derive(self, effect: m.DeriveEffect, *, indent: int) -> list[Block]:
        name = clean(effect.label) if effect.label else display_name(effect.name)
        if isinstance(effect.type, t.Flag):
            if isinstance(effect.value, n.Boolean):
                return [Entry((Run(name if effect.value.value else negate(name), "strong"),), indent)]
            alternatives = self.notation.alternatives(effect.value)
            lead = " when any of:"
            if len(alternatives) == 1:
                # `a and (b or c or d)`: a in words, then the alternatives one a line
                terms = _and_terms(effect.value)
                ors = [x for x in terms if isinstance(x, n.BoolOp) and x.op == "or"]
                if len(ors) != 1:
                    said = alternatives[0]
                    # "Struck unless the response is a Dodge", not "when unless"
                    return [Entry((Run(name, "strong"), Run((" " if said.startswith("unless ") else " when ") + said)), indent)]
                rest = [x for x in terms if x is not ors[0]]
                lead = " when " + " and ".join(self.notation.condition(x) for x in rest) + ", and any of:"
                alternatives = self.notation.alternatives(ors[0])
            blocks: list[Block] = [Entry((Run(name, "strong"), Run(lead)), indent)]
            blocks += [Detail((Run("• " + text),), True) for text in alternatives]
            return blocks
        looked_up = self._looked_up(name, effect.value, indent=indent)
        if looked_up is not None:
            return looked_up
        unit = self.notation.unit(effect.unit)
        value = self.notation.expr(effect.value) + (f" {unit}" if unit else "")
        return [Entry((Run(name, "strong"), Run(f" ={NBSP}" + value)), indent)]

    def _looked_up(self, name: str, value: n.Expr, *, indent: int) -> list[Block] | None:
        """A value read straight from a short one-key table, with the table's rows on the card
        ("Total actions by crew: 1+ 2 · 2+ 3 · 4+ 4 ..."), not only the table's name: the card
        then answers alone.  None for anything else."""
        if not isinstance(value, n.Lookup) or len(value.keys) != 1:
            return None
        table = self.book.tables.get(value.table.text)
        if table is None or len(table.inputs) != 1 or len(table.rows) > LOOKUP_ROWS:
            return None
        names = [column for column, _ in table.columns]
        column = value.column.text if value.column is not None else (names[0] if len(names) == 1 else None)
        if column not in names:
            return None
        at = names.index(column)
        rows = " \u00b7 ".join(f"{row_key(row)}{NBSP}\u2192{NBSP}{self.notation.cell(row.cells[at])}" for row in table.rows)
        key = self.notation.words(value.keys[0])
        if table.name in self.numbers and len(rows) > LOOKUP_TEXT:
            where = f"\u201c{clean(table.title)}\u201d, {self.card_of(table.name)}"
            return [Entry((Run(name, "strong"), Run(f" by {key}: see {where}")), indent)]
        source = f"\u201c{clean(table.title)}\u201d" + (f", {self.card_of(table.name)}" if table.name in self.numbers else "")
        return [
            Entry((Run(name, "strong"), Run(f" by {key} ({source}):")), indent),
            Detail((Run(rows),), indent + 1),
        ]

    def roll(
        self,
        effect: m.RollEffect,
        fixed: Fraction | None = None,
        *,
        elsewhere: str | None = None,
        shift: tuple[Fraction, str] | None = None,
        variants: tuple[Variant, ...] = (),
    ) -> list[Block]:
        """A roll's heading, conditions, changes and outcomes; on a card its chances (against the
        single value `fixed` when the rule sets the target to it) and notes, or for a roll of
        another rule a pointer to that rule's card (`elsewhere`), which shows them."""
        notation = self.notation
        title = clean(effect.label) if effect.label else title_case_first(display_name(effect.name))
        blocks: list[Block] = [RollHead(title, notation.roll(effect))]
        if effect.guard:
            blocks.append(Detail((Run(title_case_first(notation.guard(effect.guard)), "em"),)))
        if effect.kind == "resist" and self.book.resistance is not None:
            blocks.append(Detail(self._resistance(effect)))
        if effect.tiers is not None and any(change.kind == "tiers" for change in effect.changes):
            # read with other tiers under a condition: which apply otherwise
            blocks.append(Detail((Run("Read with " + notation.tier_system(effect.tiers)),)))
        for change in effect.changes:
            condition = notation.guard(change.guard)
            what = notation.change_of_roll(change, effect.pool)
            runs: Inline = (Run(title_case_first(condition) + ": ", "em"), Run(what)) if condition else (Run(what),)
            blocks.append(Detail(runs))
        if effect.ties:
            blocks.append(Detail((Run("Ties: ", "strong"), Run(display_name(effect.ties)))))
        for outcome in effect.outcomes:
            blocks.append(Detail(self._outcome(outcome)))
        if self.full and elsewhere is not None:
            if effect.notes or self.chances.of(effect, fixed) is not None:
                blocks.append(Detail((Run(f"Chances and notes: see {elsewhere}.", "muted"),)))
        elif self.full:
            chances = self.chances.of(effect, fixed, shift, variants)
            if chances is not None:
                blocks.append(Chances(chances) if len(chances.columns) > 1 else _chance_line(chances))
            spread = total_range(effect)
            if spread is not None:
                blocks.append(Detail((Run("Total: ", "strong"), Run(spread))))
            blocks += [
                Note(clean(text), clean(quote) if quote else None)
                for text, quote in effect.notes
                if quote is None or self.errata
            ]
        return blocks

    def _resistance(self, effect: m.RollEffect) -> Inline:
        resistance = self.book.resistance
        assert resistance is not None and effect.active is not None and effect.passive is not None
        named = self.notation.with_specials(
            {"active": self.notation.expr(effect.active), "passive": self.notation.expr(effect.passive)}
        )
        label = clean(resistance.label) if resistance.label else "Resistance"
        roll = f"{pool_text(resistance.pool)}{NBSP}{COMPARISON[resistance.op]}{NBSP}{named.expr(resistance.target)}"
        return (Run(label + ": ", "em"), Run(roll))

    def _outcome(self, outcome: m.Outcome) -> Inline:
        head = title_case_first(display_name(outcome.name))
        if outcome.by_margin:
            head += ", by margin"
        said = clean(outcome.text) if outcome.text else ""
        if outcome.step is not None:
            said = then_step(said, self.notation.step(outcome.step))
        return (Run(head + ": ", "strong"), Run(said))

    def _fixed_target(self, roll: m.RollEffect, effects: Sequence[m.Effect]) -> Fraction | None:
        """The constant the same rule sets a roll's target to whenever the roll is made: in
        `when thrown: to_hit = 5; roll hit: 3d6 <= to_hit`, to_hit is 5, whatever it was.  A set
        wins over every other modifier, so the chance against 5 is the only one to show.  Only a
        set under the roll's own conditions or fewer (its guard a prefix of the roll's) counts."""
        if roll.kind != "check" or not isinstance(roll.target, n.NameRef):
            return None
        fixed = None
        for effect in effects:
            if (
                isinstance(effect, m.ModEffect)
                and effect.op == "set"
                and effect.target == roll.target.name
                and effect.value is not None
                and self._within(effect.guard, roll.guard)
            ):
                value = literal_fraction(effect.value)
                if value is not None:
                    fixed = value  # the last set wins, as when the rules are resolved
        return fixed

    def _within(self, outer: tuple[m.Condition, ...], inner: tuple[m.Condition, ...]) -> bool:
        """Whether every condition of `outer` is, in order, the start of `inner`."""
        if len(outer) > len(inner):
            return False
        return all(
            a.negated == b.negated and (a.expr is b.expr or self.notation.words(a.expr) == self.notation.words(b.expr))
            for a, b in zip(outer, inner, strict=False)
        )

    # ------------------------------------------------------------------ composition

    def inherited(self, rule: m.Rule, shown: set[str] | None = None) -> list[Block]:
        """Effects brought in by `as OTHER`: under a heading naming OTHER and the condition of the
        `as`, each once even when several `as` statements bring the same effects.  A trait the
        card's stat block shows (`shown`) is not repeated."""
        sections: list[tuple[str, list[tuple[m.Condition, ...]], list[Block], bool]] = []
        for (source, outer), inner in _by_source(self.book, rule).items():
            if shown and source in shown:
                continue
            has_notes = any(isinstance(e, m.NoteEffect) for e in inner)
            blocks = self.effects(inner, elsewhere=self.card_of(source))
            for section in sections:
                if section[0] == source and section[2] == blocks:
                    section[1].append(outer)
                    break
            else:
                sections.append((source, [outer], blocks, has_notes))
        out: list[Block] = []
        for source, outers, blocks, has_notes in sections:
            other = self.book.rules[source]
            condition = self._either(outers)
            if not self.full:
                # The sheet lists the other rule itself: name it, do not repeat it.
                cites = f" ({clean(other.cites)})" if other.cites else ""
                runs: Inline = (Run("As ", "strong"), Run(clean(other.title) + cites, "strong"))
                out.append(Entry((*runs, Run(", " + condition, "em")) if condition else runs))
                continue
            title, cites = clean(other.title), clean(other.cites or "")
            # "As Wind", not "As Wind Wind": a citation that is the title says nothing more
            out.append(Heading("As " + title, "" if cites.casefold() == title.casefold() else cites))
            if condition:
                out.append(Condition(title_case_first(condition) + ":"))
            if other.kind == "trait":
                # A trait is a shared definition with a card of its own, as a published game's
                # terrain card names "Low Visibility Zone": name it and its rolls, do not copy it.
                # Its rolls are named on a line each, not in a roll's band: their chances and
                # outcomes are on that card, and a band would title a face by them here.
                pointer = f"In full on {self.card_of(source)}."
                rolls = [block for block in blocks if isinstance(block, RollHead)]
                for index, roll in enumerate(rolls):
                    named = (Run("Roll", "strong"), Run(f" \u00b7 {roll.title}: "), Run(roll.notation, "strong"))
                    tail = (Run(" \u00b7 " + pointer[:1].lower() + pointer[1:], "muted"),) if index == len(rolls) - 1 else ()
                    out.append(Detail((*named, *tail)))
                if not rolls:
                    out.append(Detail((Run(pointer, "muted"),)))
                continue
            out += blocks
            pointed = any(isinstance(b, Detail) and b.runs[0].text.startswith("Chances and notes:") for b in blocks)
            if has_notes and self.full and not pointed:
                out.append(Detail((Run(f"Notes: see {self.card_of(source)}.", "muted"),)))
        return out

    def _either(self, guards: list[tuple[m.Condition, ...]]) -> str:
        """`when depth is ankle or knee` for guards that differ only in one choice."""
        if any(not g for g in guards):
            return ""
        if len(guards) > 1 and all(len(g) == 1 and not g[0].negated for g in guards):
            subjects = {_choice_subject(g[0].expr) for g in guards}
            if len(subjects) == 1 and None not in subjects:
                first = guards[0][0].expr
                assert isinstance(first, n.Compare)
                members = [self.notation.expr(g[0].expr.right) for g in guards if isinstance(g[0].expr, n.Compare)]
                return f"when {self.notation.words(first.left)} is {' or '.join(members)}"
        return " or ".join(self.notation.guard(g) for g in guards)

    # ------------------------------------------------------------------ notes

    def notes(self, notes: Iterable[m.NoteEffect]) -> list[Block]:
        """The notes a card carries (its asides go to the appendix: `asides_of`)."""
        plain = [e for e in notes if e.quote is None and not e.aside]
        errata = [e for e in notes if e.quote is not None and self.errata]
        blocks: list[Block] = []
        if plain:
            blocks.append(Heading("Notes"))
            blocks += [Note(clean(e.text), None, self.notation.guard(e.guard)) for e in plain]
        if errata:
            blocks.append(Heading("Errata"))
            blocks += [Note(clean(e.text), clean(e.quote or ""), self.notation.guard(e.guard)) for e in errata]
        return blocks


def _otherwise(blocks: list[Block]) -> list[Block]:
    """A line whose condition denies the one said just before it at its level ("When the wind
    is a tail wind: fly skill -10%" then "Unless the wind is a tail wind: fly skill -25%") led by
    "Otherwise:" instead.  Only right after it (a line at that level between them, or a roll,
    ends the pair), and only a line: a condition heading lines of its own keeps its words, which
    a face that starts among those lines repeats above them.  The line is kept on the face of the
    one before it (flow.py)."""
    out: list[Block] = []
    said: dict[int, str] = {}  # by level: what the last condition there holds when it says "When ..."
    for block in blocks:
        if isinstance(block, Detail):
            out.append(block)  # belongs to the line above it
            continue
        if not isinstance(block, (Entry, Condition)):
            said.clear()
            out.append(block)
            continue
        level = block.indent
        for deeper in [x for x in said if x > level]:
            del said[deeper]
        lead = _lead(block)
        before = said.pop(level, None)
        if lead is None:
            out.append(block)
            continue
        if before is not None and lead == f"Unless {before}" and isinstance(block, Entry):
            out.append(replace(block, runs=(replace(block.runs[0], text=OTHERWISE + ": "), *block.runs[1:])))
            continue
        if lead.startswith("When "):
            said[level] = lead.removeprefix("When ")
        out.append(block)
    return out


def _after_lead(runs: Inline) -> Inline:
    """A line's runs after a condition leads it: a phrase that opened the line ("The range band
    +1 level") goes on in lower case ("When ...: the range band +1 level")."""
    if runs and runs[0].text.startswith("The "):
        return (replace(runs[0], text="the " + runs[0].text[4:]), *runs[1:])
    return runs


def _lead(block: Entry | Condition) -> str | None:
    """The condition a line starts with, as the card says it ("When wet"), if it starts with one."""
    if isinstance(block, Condition):
        return block.text.removesuffix(":")
    first = block.runs[0] if block.runs else None
    if first is not None and first.style == "em" and first.text.endswith(": "):
        return first.text.removesuffix(": ")
    return None


SHARED_LEAST = 3
"""The fewest lines whose conditions share a subject that say it once, above them: for two the
line it takes costs more than it saves."""

_VERBS = frozenset({"is", "are", "has", "have"})
_CLAUSES = re.compile(r",| and | or | unless ")


def _shared_subject(run: list[tuple[str, list[Block]]], level: int) -> list[Block]:
    """Effects under their conditions (see `_subject_run`): when at least `SHARED_LEAST` one-line
    effects in a row begin their conditions with the same subject and verb, the subject said
    once ("When the task is:") and each line led by what differs ("Easy: skill rating is easy
    (x2)"), one level in under it, so that the lines read as the rows of a table; the others each
    under its own condition; all at `level`."""
    lines = 0
    subject: list[str] = []
    for said, made in run:
        one_line = bool(made) and isinstance(made[0], Entry) and not made[0].mark
        if not one_line or any(not isinstance(b, Detail) for b in made[1:]):
            break
        found = _subject(said.split(" "), subject)
        if found is None or _CLAUSES.search(" ".join(said.split(" ")[len(found) :])):
            break
        subject = found
        lines += 1
    blocks: list[Block] = []
    if lines >= SHARED_LEAST:
        blocks.append(Condition(title_case_first(" ".join(subject)) + ":", level))
        for said, made in run[:lines]:
            entry = made[0]
            assert isinstance(entry, Entry)
            lead = Run(title_case_first(" ".join(said.split(" ")[len(subject) :])) + ": ", "em")
            blocks += [replace(entry, runs=(lead, *_after_lead(entry.runs))), *made[1:]]
    else:
        lines = 0
    for said, made in run[lines:]:
        blocks += EffectWriter._under(said, made, level)
    return blocks


def _subject(words: list[str], subject: list[str]) -> list[str] | None:
    """The words of a condition (`words`) it shares with `subject` (the words the conditions
    before it share; empty for the first), up to and including the last verb among them ("when
    the task is"); None when they share no subject and verb or nothing follows them."""
    shared = words[:-1]
    if subject:
        count = 0
        while count < min(len(words), len(subject)) and words[count] == subject[count]:
            count += 1
        shared = words[:count]
    while shared and shared[-1] not in _VERBS:
        shared = shared[:-1]
    if len(shared) < 3 or len(shared) >= len(words):
        return None
    return shared


def _by_guard(effects: Sequence[m.Effect]) -> list[tuple[tuple[m.Condition, ...], list[m.Effect]]]:
    """Consecutive effects under the same conditions, together."""
    groups: list[tuple[tuple[m.Condition, ...], list[m.Effect]]] = []
    for effect in effects:
        if groups and _same_guard(groups[-1][0], effect.guard):
            groups[-1][1].append(effect)
        else:
            groups.append((effect.guard, [effect]))
    return groups


def _and_terms(expr: n.Expr) -> list[n.Expr]:
    if isinstance(expr, n.BoolOp) and expr.op == "and":
        return [*_and_terms(expr.left), *_and_terms(expr.right)]
    return [expr]


def _same_condition(x: m.Condition, y: m.Condition) -> bool:
    """Whether two conditions are those of one `when` block (the same expression, not only an
    equal one)."""
    return x.negated == y.negated and x.expr is y.expr


def _common(a: tuple[m.Condition, ...], b: tuple[m.Condition, ...]) -> tuple[m.Condition, ...]:
    """The outer conditions two guards share (the same `when` blocks)."""
    count = 0
    for x, y in zip(a, b, strict=False):
        if not _same_condition(x, y):
            break
        count += 1
    return a[:count]


def _next_shared(a: tuple[m.Condition, ...], b: tuple[m.Condition, ...], depth: int) -> bool:
    """Whether two guards, alike in their first `depth` conditions, share the next one too (the
    same `when` block)."""
    return len(a) > depth and len(b) > depth and _same_condition(a[depth], b[depth])


Guarded = tuple[tuple[m.Condition, ...], list[m.Effect]]
"""Effects under one guard, in source order."""


def _same_guard(a: tuple[m.Condition, ...], b: tuple[m.Condition, ...]) -> bool:
    return len(a) == len(b) and all(_same_condition(x, y) for x, y in zip(a, b, strict=True))


def _attachable_clamps(effects: Sequence[m.Effect]) -> dict[str, m.ModEffect]:
    """Unconditional `STAT min N` / `max N` written after the one modifier of the same stat, as
    in `MOV -2 (min 0)`; after none or several, a clamp keeps its own line (it bounds the total,
    and printed on each modifier it would read as a bound of each)."""
    clamps: dict[str, m.ModEffect] = {}
    for effect in effects:
        if isinstance(effect, m.ModEffect) and effect.op in ("min", "max") and not effect.guard and not effect.label:
            others = [
                e
                for e in effects
                if isinstance(e, m.ModEffect) and e.target == effect.target and e.op not in ("min", "max")
            ]
            if len(others) == 1 and effect.target not in clamps:
                clamps[effect.target] = effect
    return clamps


def _by_source(book: m.Book, rule: m.Rule) -> dict[tuple[str, tuple[m.Condition, ...]], list[m.Effect]]:
    """Inherited effects by the rule they come from and the conditions of the `as`; each effect
    keeps the conditions written in the rule it comes from."""
    found: dict[tuple[str, tuple[m.Condition, ...]], list[m.Effect]] = {}
    for effect in rule.effects:
        if not isinstance(effect, m.PartEffect) or effect.part not in book.parts:
            continue
        key = next((k for k in found if k[0] == effect.rule and _same_guard(k[1], effect.guard)), None)
        if key is None:
            key = (effect.rule, effect.guard)
            found[key] = []
        found[key] += flat_effects(book, book.parts[effect.part].effects)
    return found


def _choice_subject(expr: n.Expr) -> str | None:
    """The choice a guard like `depth == knee` is about, if it is one."""
    if not isinstance(expr, n.Compare) or expr.op != "==":
        return None
    left, right = expr.left, expr.right
    return left.name if isinstance(left, n.NameRef) and isinstance(right, n.NameRef) else None


MAX_VARIANTS = 6
"""The most conditional modifiers a chance table shows a row for: a card's table stays short."""


def _chance_line(table: ChanceTable) -> Detail:
    """The chances against a single value (a target the rule sets) as a line, not a table of one
    column: "Chance at DEX to hit 5: 5%", or per row, "3d6 5% · 2d6 if you have Acrobatics 28%"."""
    value = table.columns[0]
    head = "Chance: " if table.against == "target" else f"Chance at {table.against} {value}: "
    if len(table.rows) == 1 and not table.rows[0].note:
        said = table.rows[0].cells[0]
    else:
        said = " \u00b7 ".join(" ".join(x for x in (row.dice, row.note, row.cells[0]) if x) for row in table.rows)
    return Detail((Run(head, "strong"), Run(said)))


def _no_change(effect: m.Effect) -> bool:
    """A modifier that adds 0 ("Wheeled Vehicle: +0"): it changes nothing a player computes, so
    its card leaves it out (a note says what it stands for, where it matters)."""
    return (
        isinstance(effect, m.ModEffect)
        and effect.op == "add"
        and effect.per is None
        and effect.value is not None
        and literal_fraction(effect.value) == 0
    )


_MINOR_WORDS = frozenset(("a", "an", "the", "of", "or", "and", "in", "on", "to", "is", "are", "by", "for", "with"))


def restates(label: str, said: str) -> bool:
    """Whether every word of a modifier's `label` (but the small ones) is already among the words
    `said` on its line: a label printed after its condition then says the line twice."""
    wanted = {w for w in _LABEL_WORD.findall(label.casefold()) if w not in _MINOR_WORDS}
    return wanted <= set(_LABEL_WORD.findall(said.casefold()))


_LABEL_WORD = re.compile(r"[^\W_]+")
