"""A resolution as text for people (what `rulecraft resolve` prints without --json)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from dsl.runtime import show


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


def resolution_text(resolution: Any) -> str:
    lines = [", ".join(resolution.rules)]
    if resolution.stats:
        lines.append("")
        lines.append("stats:")
        width = max(len(k) for k in resolution.stats)
        for name, value in resolution.stats.items():
            base = resolution.inputs.get(name)
            was = f"   (from {show(base)})" if base is not None and show(base) != show(value) else ""
            lines.append(f"  {name:<{width}}  {show(value)}{was}")
    if resolution.derived:
        lines.append("")
        lines.append("derived:")
        width = max(len(k) for k in resolution.derived)
        for name, value in resolution.derived.items():
            lines.append(f"  {name:<{width}}  {show(value)}")
    if resolution.modifiers:
        lines.append("")
        lines.append("modifiers:")
        for mod in resolution.modifiers:
            source = f" [{mod.source}]" if mod.source else ""
            label = f"  {mod.label}" if mod.label else ""
            shown = show(mod.amount)
            amount = f" (= {shown})" if mod.operation == "add" and shown not in mod.text else ""
            line = f"  {mod.status:<10}  {mod.text + amount:<24} {mod.rule}{source}{label}"
            if mod.reason:
                line += f"\n              ({mod.reason})"
            lines.append(line)
    if resolution.rolls:
        lines.append("")
        lines.append("rolls:")
        for roll in resolution.rolls:
            label = f" ({roll.label})" if roll.label else ""
            dice = roll.dice + (f" {'-' if roll.bonus < 0 else '+'} {show(abs(roll.bonus))}" if roll.bonus else "")
            if roll.needed is not None:
                dice = f"at least {roll.needed} of {dice}"
            if roll.automatic:
                lines.append(f"  {roll.name}{label}: automatic {roll.automatic}")
            elif roll.totals:
                mean = sum((total * p for total, p in roll.totals.items()), Fraction(0))
                low, high = min(roll.totals), max(roll.totals)
                lines.append(f"  {roll.name}{label}: {dice}: {low} to {high}, {show(mean)} on average")
            else:
                target = f" {roll.comparison} {show(roll.target)}" if roll.target is not None else ""
                lines.append(f"  {roll.name}{label}: {dice}{target}: {chance(roll.probability)}")
            for outcome, p in roll.outcomes.items():
                if outcome not in ("success", "failure"):
                    lines.append(f"      {outcome}: {chance(p)}")
            if roll.successes:
                counts = ", ".join(f"{k}: {percent(p)}" for k, p in roll.successes.items())
                lines.append(f"      dice meeting the target: {counts}")
            for outcome, effect in roll.effects.items():
                if effect:
                    lines.append(f"      on {outcome}: {effect}")
            for consequence in roll.consequences:
                then = f" ({consequence.stat} {show(consequence.value)})" if consequence.stat is not None else ""
                lines.append(
                    f"      on {consequence.outcome}: {consequence.text}{then}: {chance(consequence.probability)}"
                )
    if resolution.tables:
        for table in resolution.tables:
            lines.append("")
            dice = f" ({table.dice})" if table.dice else ""
            lines.append(f"table {table.name}: {table.title}{dice}")
            for row in table.rows:
                mark = "->" if table.selected is not None and row.key == table.selected.key else "  "
                values = ", ".join(f"{k}: {show(v)}" for k, v in row.values.items())
                odds = f"  {chance(row.probability)}" if row.probability is not None else ""
                then = f"; then {', '.join(row.steps)}" if row.steps else ""
                lines.append(f"  {mark} {row.key:<8} {values}{then}{odds}")
            if table.selected is not None and table.selected.steps:
                lines.append(f"  then: {', '.join(table.selected.steps)}")
    if resolution.restrictions:
        lines.append("")
        lines.append("restrictions:")
        for item in resolution.restrictions:
            source = f" [{item.source}]" if item.source else ""
            lines.append(f"  - {item.text}  ({item.rule}{source})")
    if resolution.notes:
        lines.append("")
        lines.append("notes:")
        for note in resolution.notes:
            if note.erratum:
                lines.append(f'  - erratum: "{note.erratum}" {note.text}')
            else:
                lines.append(f"  - {note.text}")
    return "\n".join(lines)
