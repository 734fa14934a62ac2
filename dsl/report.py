"""A resolution as text for people (what `rulecraft resolve` prints without --json)."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from typing import Any


def chance(p: Fraction) -> str:
    """An exact probability with its percentage: `7/27 (25.9%)`."""
    exact = f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator)
    return f"{exact} ({percent(p)})"


def percent(p: Fraction) -> str:
    value = float(p) * 100
    if 0 < value < 0.1:
        return "<0.1%"
    if 99.9 < value < 100:
        return ">99.9%"
    return f"{value:.1f}%"


_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""What must not reach a terminal as it is: the C0 controls but tab and line feed (NUL, BEL,
backspace, carriage return, ESC...), DEL, the C1 controls (one of which starts an escape
sequence), the marks that reorder text or break lines (bidi embeddings, overrides, isolates,
line and paragraph separators), and lone halves of UTF-16 surrogate pairs (no UTF-8 output can
hold one: a user's text quoted in a message may, when it is refused for holding one)."""


def visible(text: str, indent: str = "") -> str:
    """Text for a terminal, with every control character shown as its escape (`\\x1b`,
    `\\u202e`): a rulebook's text or a user's input can neither ring, recolour, clear nor reorder
    the terminal.  A line break in the text starts a new line indented by `indent`."""
    shown = _CONTROL.sub(lambda found: _escape(found.group()), text)
    return shown.replace("\n", "\n" + indent) if indent else shown.replace("\n", "\\n")


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def json_text(data: object) -> str:
    """JSON as rulecraft prints it: exact (it parses back to the same data) and readable (not
    ASCII-escaped), but with the characters `visible` escapes written as `\\uXXXX`, which JSON
    allows in any string and which cannot reach a terminal as controls."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    return _CONTROL.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def chain_lines(chains: list[dict[str, Any]]) -> list[str]:
    """Each chain (as JSON data) as an indented flow: every roll once per route, its rows with their
    chance on that roll and, where it differs, the chance of reaching them; then the exact
    expectations.  `describe` and `resolve` print it; every text passes through `visible`."""
    from dsl.runtime.base import show


    lines: list[str] = []
    for chain in chains:
        lines += ["", f"chain from {visible(chain['start'])}:"]
        heading = None
        for step in chain["flow"]:
            pad = "  " * (step["depth"] + 1)
            table = step["row"][: -len(step["row"].split(" ", 1)[1]) - 1] if " " in step["row"] else step["row"]
            head = (step["depth"], table, step["roll"], step["twice"])
            if head != heading:
                each = " (each of two rolls; a roll twice rolled again)" if step["twice"] else ""
                lines.append(f"{pad}{visible(step['roll'])} on {visible(table)}{each}:")
                heading = head
            key = step["row"][len(table) + 1 :]
            chance, reach = step["chance"]["fraction"], step["reach"]["fraction"]
            said = f"{chance}" + (f", reached {reach}" if reach != chance else "")
            then = "".join(f" -> {t}" for t in step["then"]) + (" (as above)" if step["repeats"] else "")
            then += " (deeper rolls not shown)" if step.get("cut") else ""
            lines.append(f"{pad}  {visible(key)}  {visible(_clip(step['text']))}  {said}{visible(then)}")
        facts = []
        if chain["rolls"] is not None:
            facts.append(f"expected rolls {show(_number(chain['rolls']))}")
        facts += [f"expected {visible(name)} {show(_number(value))}" for name, value in chain["means"].items()]
        if not chain["complete"]:
            rolls = "roll" if chain["depth"] == 1 else "rolls"
            facts.append(f"more than {chain['depth']} {rolls} in a row: {chain['beyond']['fraction']}")
        if facts:
            lines.append("  " + "; ".join(facts))
    return lines


def _number(value: object) -> int | Fraction:
    if isinstance(value, dict):
        return Fraction(value["fraction"])
    assert isinstance(value, int)
    return value


def _clip(text: str, limit: int = 48) -> str:
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def resolution_text(resolution: Any) -> str:
    """A resolution for people; every text in it passes through `visible`."""
    from dsl.runtime.base import show  # here: `resolve --json` prints without importing the runtime twice

    v = visible
    lines = [v(", ".join(resolution.rules))]
    if resolution.stats:
        lines.append("")
        lines.append("stats:")
        width = max(len(k) for k in resolution.stats)
        for name, value in resolution.stats.items():
            base = resolution.inputs.get(name)
            was = f"   (from {v(show(base))})" if base is not None and show(base) != show(value) else ""
            lines.append(f"  {v(name):<{width}}  {v(show(value))}{was}")
    if resolution.derived:
        lines.append("")
        lines.append("derived:")
        width = max(len(k) for k in resolution.derived)
        for name, value in resolution.derived.items():
            lines.append(f"  {v(name):<{width}}  {v(show(value))}{dice_summary(value)}")
    if resolution.modifiers:
        lines.append("")
        lines.append("modifiers:")
        for mod in resolution.modifiers:
            source = f" [{v(mod.source)}]" if mod.source else ""
            label = f"  {v(mod.label)}" if mod.label else ""
            shown = show(mod.amount)
            amount = f" (= {v(shown)})" if mod.operation == "add" and shown not in mod.text else ""
            line = f"  {mod.status:<10}  {v(mod.text) + amount:<24} {v(mod.rule)}{source}{label}"
            if mod.reason:
                line += f"\n              ({v(mod.reason)})"
            lines.append(line)
    if resolution.rolls:
        lines.append("")
        lines.append("rolls:")
        for roll in resolution.rolls:
            label = f" ({v(roll.label)})" if roll.label else ""
            dice = v(roll.dice) + (f" {'-' if roll.bonus < 0 else '+'} {show(abs(roll.bonus))}" if roll.bonus else "")
            if roll.needed is not None:
                dice = f"at least {roll.needed} of {dice}"
            if roll.automatic:
                lines.append(f"  {v(roll.name)}{label}: automatic {roll.automatic}")
            elif roll.totals:
                mean = sum((total * p for total, p in roll.totals.items()), Fraction(0))
                low, high = min(roll.totals), max(roll.totals)
                lines.append(f"  {v(roll.name)}{label}: {dice}: {low} to {high}, {show(mean)} on average")
            else:
                target = f" {roll.comparison} {v(show(roll.target))}" if roll.target is not None else ""
                lines.append(f"  {v(roll.name)}{label}: {dice}{target}: {chance(roll.probability)}")
            for outcome, p in roll.outcomes.items():
                if outcome not in ("success", "failure"):
                    lines.append(f"      {v(outcome)}: {chance(p)}")
            if roll.successes:
                counts = ", ".join(f"{v(str(k))}: {percent(p)}" for k, p in roll.successes.items())
                lines.append(f"      dice meeting the target: {counts}")
            for outcome, effect in roll.effects.items():
                if effect and _may_come(roll, outcome):
                    lines.append(f"      on {v(outcome)}: {v(effect, '        ')}")
            for consequence in roll.consequences:
                if not _may_come(roll, consequence.outcome):
                    continue
                then = f" ({v(consequence.stat)} {v(show(consequence.value))})" if consequence.stat is not None else ""
                lines.append(
                    f"      on {v(consequence.outcome)}: {v(consequence.text, '        ')}{then}: "
                    f"{chance(consequence.probability)}"
                )
            if roll.rolled is not None:
                lines += rolled_lines(roll.rolled)
            if roll.merged:
                lines.append(f"      asked for by {v(', '.join(roll.asked_by))}: one roll")
                for other in roll.merged:
                    for outcome, effect in other.effects.items():
                        if effect and _may_come(roll, outcome):
                            lines.append(f"      on {v(outcome)} ({v(other.rule)}): {v(effect, '        ')}")
    if resolution.tables:
        for table in resolution.tables:
            lines.append("")
            dice = f" ({v(table.dice)})" if table.dice else ""
            lines.append(f"table {v(table.name)}: {v(table.title)}{dice}")
            for row in table.rows:
                mark = "->" if table.selected is not None and row.key == table.selected.key else "  "
                values = ", ".join(f"{v(k)}: {v(show(value))}" for k, value in row.values.items())
                odds = f"  {chance(row.probability)}" if row.probability is not None else ""
                then = f"; then {v(', '.join(row.steps))}" if row.steps else ""
                lines.append(f"  {mark} {v(row.key):<8} {values}{then}{odds}")
            if table.selected is not None and table.selected.steps:
                lines.append(f"  then: {v(', '.join(table.selected.steps))}")
            if table.rolled is not None:
                lines.append(f"  rolled: {dice_roll_text(table.rolled)}")
            lines += chained_lines(getattr(table, "chained", ()), "  ")
    lines += chain_lines([chain.to_dict() for chain in getattr(resolution, "chains", ())])
    if resolution.restrictions:
        lines.append("")
        lines.append("restrictions:")
        for item in resolution.restrictions:
            source = f" [{v(item.source)}]" if item.source else ""
            lines.append(f"  - {v(item.text, '    ')}  ({v(item.rule)}{source})")
    if getattr(resolution, "sequence", None) is not None:
        lines += sequence_lines(resolution.sequence)
    if resolution.notes:
        lines.append("")
        lines.append("notes:")
        for note in resolution.notes:
            if note.erratum:
                lines.append(f'  - erratum: "{v(note.erratum, "    ")}" {v(note.text, "    ")}')
            elif note.kind == "aside":
                lines.append(f"  - aside: {v(note.text, '    ')}")
            else:
                lines.append(f"  - {v(note.text, '    ')}")
    return "\n".join(lines)


def _may_come(roll: Any, outcome: str) -> bool:
    """Whether a roll may come to an outcome as the situation reads it: a roll read with one of
    several tier systems (`when advanced: tiers advanced_move`) says what the outcomes of that
    system do, not those of the others (a roll that lists no outcomes, automatic, says all)."""
    return not roll.outcomes or outcome in roll.outcomes


def rolled_lines(made: Any) -> list[str]:
    """A roll made or told: its dice, total and outcome, and the consequences that come."""
    from dsl.runtime.base import show  # here, as in resolution_text

    v = visible
    told = {"faces": " (faces told)", "total": " (total told)"}.get(made.source, "")
    if made.source == "automatic":
        return [f"      rolled: no dice, {v(made.outcome)}"]
    sides = " vs ".join(dice_roll_text(side) for side in made.sides)
    total = f"{show(made.total)}" if made.total is not None else ""
    shown = ", ".join(x for x in (sides, f"total {total}" if total and not sides else "") if x)
    margin = f" by {show(made.margin)}" if made.margin is not None else ""
    outcome = f" -> {v(', '.join(made.outcomes))}{margin}" if made.outcomes else ""
    lines = [f"      rolled{told}: {shown}{outcome}"]
    for consequence in made.consequences:
        then = f" ({v(consequence.stat)} {v(show(consequence.value))})" if consequence.stat is not None else ""
        lines.append(f"        {v(consequence.text, '          ')}{then}")
    return lines + chained_lines(getattr(made, "chained", ()), "      ")


def chained_lines(chained: Any, indent: str) -> list[str]:
    """The rolls a chain made (a rolled table's row or a roll's outcome sent on), one a line,
    indented by depth."""
    from dsl.runtime.base import show  # here, as in resolution_text

    v = visible
    lines = []
    for step in chained:
        values = ", ".join(v(show(value)) for value in step.row.values.values() if value != "")
        told = " (rolled again: a roll twice gives two other rows)" if step.again else ""
        then = f"; then {v(', '.join(step.row.steps))}" if step.row.steps and not step.again else ""
        lines.append(
            f"{indent}{'  ' * step.depth}then rolled on {v(step.table)}: {dice_roll_text(step.rolled)}"
            f" -> row {v(step.row.key)}: {values}{then}{told}"
        )
    return lines


def dice_roll_text(side: Any) -> str:
    """`3d6 [3, 4, 2] = 9`; a die that exploded or was re-rolled shows each face
    (`6+6+2`, `1>4`), a die not kept is in parentheses."""
    from dsl.runtime.base import show  # here, as in resolution_text

    dice = []
    for die in side.rolled:
        first = f"{die.faces[0]}>{die.faces[1]}" if die.rerolled else str(die.faces[0])
        rest = die.faces[2:] if die.rerolled else die.faces[1:]
        text = "+".join([first, *map(str, rest)])
        dice.append(text if die.kept else f"({text})")
    faces = f" [{', '.join(dice)}]" if dice else ""
    bonus = f" {'-' if side.bonus < 0 else '+'} {show(abs(side.bonus))}" if side.bonus else ""
    return f"{visible(side.dice)}{faces}{bonus} = {show(side.total)}"


def dice_summary(value: Any) -> str:
    """After a dice value: its range and mean (`: 0 to 9, 145/36 on average`)."""
    from dsl.runtime.base import show  # here, as in resolution_text

    if type(value).__name__ != "Dice" or value.constant:
        return ""
    try:
        chances = value.chances()
    except ValueError:
        return ""
    return f": {show(chances.low)} to {show(chances.high)}, {show(chances.mean)} on average"


def sequence_lines(sequence: Any) -> list[str]:
    """A sequence over rounds: each round's chances, lasting them all, and each total."""
    from dsl.runtime.base import show  # here, as in resolution_text

    v = visible
    unit = v(sequence.unit)
    until = f" until {v(sequence.until)}" if sequence.until else ""
    counter = f" ({v(sequence.counter)})" if sequence.counter is not None else ""
    lines = ["", f"over {len(sequence.rounds)} {unit}s{counter}{until}:"]
    for item in sequence.rounds:
        rolls = "; ".join(
            f"{v(name)} " + ", ".join(f"{v(o)} {chance(p)}" for o, p in outcomes.items())
            for name, outcomes in item.rolls.items()
        )
        ends = f", ends {chance(item.ends)}" if sequence.until else ""
        line = f"  {unit} {item.number}: going {chance(item.going)}{ends}"
        lines.append(line + (f"; {rolls}" if rolls else ""))
        if getattr(item, "rolled", None) is not None:
            lines += _rolled_round_lines(item.rolled, sequence.until)
    if sequence.until:
        lines.append(f"  lasting all {len(sequence.rounds)}: {chance(sequence.lasting)}")
    summary = getattr(sequence, "rolled", None)
    if summary is not None:
        how = (
            f", ended in {unit} {summary.ended}"
            if summary.ended is not None
            else f", {v(sequence.until)} in {unit} {summary.changed}"
            if summary.changed is not None
            else ""
        )
        totals = "".join(f"; {v(name)} {show(total)}" for name, total in summary.totals.items())
        lines.append(f"  rolled: {summary.rounds} {unit}{'s' if summary.rounds != 1 else ''}{how}{totals}")
    for name, total in sequence.totals.items():
        lines.append(f"  total {v(name)}: {show(total.low)} to {show(total.high)}, {show(total.mean)} on average")
        if len(total.table) <= _LISTED:
            lines.append("    at least: " + ", ".join(f"{show(k)}: {chance(p)}" for k, p in _at_least(total.table)))
    return lines


def _rolled_round_lines(rolled: Any, until: str | None) -> list[str]:
    """A round as rolled: each roll made and each table rolled, what each total took, and where
    the `until` outcome came up."""
    from dsl.runtime.base import show  # here, as in resolution_text

    v = visible
    lines = []
    for roll in rolled.rolls:
        lines += [f"    {v(roll.name)}" + line.removeprefix("     ") for line in rolled_lines(roll.rolled)]
    for table in rolled.tables:
        found = f" -> row {v(table.selected.key)}" if table.selected is not None else ""
        lines.append(f"    {v(table.name)} rolled: {dice_roll_text(table.rolled)}{found}")
        lines += chained_lines(table.chained, "    ")
    for name, value in rolled.values.items():
        took = dice_roll_text(value.rolled) if value.rolled is not None else show(value.value)
        lines.append(f"    {v(name)}: {took}, {show(rolled.totals[name])} so far")
    if rolled.ends:
        lines.append(f"    {v(str(until))}: came up")
    return lines


_LISTED = 40
"""The most totals whose chances `resolve` lists as text (`--json` lists them all)."""


def _at_least(table: Any) -> list[tuple[Any, Fraction]]:
    found = []
    left = Fraction(1)
    for total, p in table:
        found.append((total, left))
        left -= p
    return found
