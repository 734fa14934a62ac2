"""W101: declarations nothing uses (usually a typo elsewhere, or a rule not written yet)."""

from __future__ import annotations

from dsl import model as m
from dsl.diagnostics import Reporter
from dsl.model.exprs import names_read


def check_usage(book: m.Book, reporter: Reporter) -> None:
    used: set[str] = set()
    for rule in book.rules.values():
        used.update(rule.reads)
    for table in book.tables.values():
        used.update(table.inputs)
        if table.modifier:
            used.add(table.modifier)
        for row in table.rows:
            for cell in row.cells:
                if cell.value is not None:
                    used |= names_read(cell.value, book)
    for example in book.examples:
        used.update(name for name, _ in example.givens)
    for var in book.vars.values():
        if var.name not in used:
            kind = "stat" if var.is_stat else "input"
            reporter.report("W101", f"{kind} `{var.name}` is never used", var.span, "use it in a rule, or remove it")
    used_groups = {
        effect.group
        for part in book.parts.values()
        for effect in part.effects
        if isinstance(effect, m.ModEffect) and effect.group
    }
    for group in book.groups.values():
        if group.name not in used_groups:
            reporter.report(
                "W101", f"group `{group.name}` is never used", group.span, "add `in GROUP` to the modifiers it holds"
            )
