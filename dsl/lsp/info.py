"""What the language server says about a name (hover) and what it offers to type (completion).

Hover shows the declaration as written (its line of the rulebook: kind, label, type, range or
choices, default) and what the checked model knows on top: a stat's unit and default, a rule's
inputs and effects, a table's key and columns.  On a roll it adds the dice and the exact chance
at the defaults, from the generated resolver itself, so the number is the one an app would get.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from dsl import model as m
from dsl import nodes as n
from dsl import printer
from dsl import types as t
from dsl.compiler import Compiled
from dsl.lsp.index import Index, Symbol
from dsl.parser import keywords
from dsl.printer import effect_summary
from dsl.report import chance
from dsl.runtime.base import show

MAX_EFFECTS = 12
"""Effects listed in a rule's hover; a long rule is better read in its card."""


def hover_text(symbol: Symbol, compiled: Compiled, module: Callable[[], ModuleType | None]) -> str:
    """Markdown for a hover on `symbol`; `module` loads the resolver (only a roll needs it)."""
    book = compiled.book
    label = _label(symbol, book)
    head = f"**{symbol.kind}** `{symbol.name}`" + (f" — {label}" if label else "")
    parts = [head, "```rules\n" + _declaration_line(symbol, compiled.text) + "\n```"]
    details = _details(symbol, book) if book is not None else []
    if symbol.kind == "roll":
        details += _roll_details(symbol, compiled, module)
    if details:
        parts.append("\n".join(details))
    return "\n\n".join(parts)


def _declaration_line(symbol: Symbol, text: str) -> str:
    lines = text.split("\n")
    line = lines[symbol.span.line - 1] if 0 < symbol.span.line <= len(lines) else ""
    return line.strip()


def _label(symbol: Symbol, book: m.Book | None) -> str | None:
    node = symbol.node
    if symbol.kind in ("stat", "input", "group", "tiers", "unit") or symbol.is_rule:
        label = getattr(node, "label", None) or getattr(node, "title", None)
        return label.value if isinstance(label, n.Text) else None
    if symbol.kind in ("derive", "roll") and isinstance(node, (n.DeriveStmt, n.RollDecl)):
        return node.label.value if node.label else None
    if symbol.kind == "table" and isinstance(node, n.TableDecl):
        return node.title.value if node.title else None
    if symbol.kind == "column" and isinstance(node, n.TableDecl):
        for item in node.items:
            if isinstance(item, n.Columns):
                for column in item.columns:
                    if column.name.text == symbol.name and column.label is not None:
                        return column.label.value
    return None


def _details(symbol: Symbol, book: m.Book) -> list[str]:
    kind = symbol.kind
    if kind in ("stat", "input"):
        var = book.vars.get(symbol.name)
        return _var_details(var, book) if var is not None and var.span == symbol.node.span else []
    if symbol.is_rule:
        rule = book.rules.get(symbol.name)
        return _rule_details(rule) if rule is not None and rule.span == symbol.node.span else []
    if kind == "table":
        table = book.tables.get(symbol.name)
        return _table_details(table) if table is not None and table.span == symbol.node.span else []
    if kind == "group":
        group = book.groups.get(symbol.name)
        return (
            [
                f"stacking: {group.stacking} (only the strongest applies)"
                if group.stacking == "strongest"
                else f"stacking: {group.stacking}"
            ]
            if group is not None
            else []
        )
    if kind == "unit":
        return [f"unit of measure: {book.units.get(symbol.name) or symbol.name}"]
    if kind == "member":
        return _member_details(symbol)
    if kind == "tier" and symbol.container:
        return [f"an outcome of the tiers `{symbol.container}`"]
    if kind == "column" and symbol.container:
        return [f"a column of the table `{symbol.container}`"]
    if kind == "derive":
        return _derive_details(symbol, book)
    return []


def _var_details(var: m.Var, book: m.Book) -> list[str]:
    lines = [f"type: `{var.type.describe()}`"]
    if isinstance(var.type, t.Enum):
        word = "levels, lowest first" if var.type.ordered else "choices"
        lines.append(f"{word}: " + ", ".join(f"`{x}`" for x in var.type.members))
    elif isinstance(var.type, t.Numeric):
        if var.type.low is not None or var.type.high is not None:
            low = "" if var.type.low is None else show(var.type.low)
            high = "" if var.type.high is None else show(var.type.high)
            lines.append(f"range: {low}..{high}")
        if var.type.unit:
            lines.append(f"unit: {var.type.unit} ({book.units.get(var.type.unit) or var.type.unit})")
    if var.default_expr is not None:
        lines.append(f"default: the effective `{printer.expr_text(var.default_expr)}`")
    elif var.default is not None:
        lines.append(f"default: `{show(var.default)}`")
    lines.append("a stat: rules change it" if var.is_stat else "an input: it describes the situation")
    return ["- " + line for line in lines]


def _rule_details(rule: m.Rule) -> list[str]:
    lines = []
    facts = [f"cites {rule.cites}"] if rule.cites else []
    if rule.category:
        facts.append(f"category {rule.category}")
    if facts:
        lines.append(" · ".join(facts))
    lines.append("reads: " + (", ".join(f"`{x}`" for x in rule.reads) or "nothing"))
    effects = [line for line in (effect_summary(e) for e in rule.effects) if line]
    if effects:
        shown = effects[:MAX_EFFECTS]
        more = f"\n... and {len(effects) - MAX_EFFECTS} more" if len(effects) > MAX_EFFECTS else ""
        lines.append("```text\n" + "\n".join(shown) + more + "\n```")
    return lines


def _table_details(table: m.Table) -> list[str]:
    if table.pool is not None:
        modifier = f" {'+' if table.modifier_sign > 0 else '-'} {table.modifier}" if table.modifier else ""
        key = f"rolled on {printer.pool_text(table.pool)}{modifier}"
    else:
        key = "looked up by " + ", ".join(f"`{x}`" for x in table.inputs)
    lines = [key + f"; {len(table.rows)} row{'s' if len(table.rows) != 1 else ''}"]
    if not table.two_dimensional:
        lines.append(
            "columns: " + ", ".join(f"`{name}`" + (f" ({label})" if label else "") for name, label in table.columns)
        )
    if table.cites:
        lines.append(f"cites {table.cites}")
    return lines


def _member_details(symbol: Symbol) -> list[str]:
    ordered = isinstance(symbol.node, (n.InputDecl, n.StatDecl, n.TypeDecl)) and isinstance(
        symbol.node.type, n.LevelsType
    )
    position = symbol.members.index(symbol.name) + 1 if symbol.name in symbol.members else 0
    where = f"level {position} of {len(symbol.members)}" if ordered else "one of"
    return [f"{where} `{symbol.container}`: " + (" < " if ordered else ", ").join(symbol.members)]


def _derive_details(symbol: Symbol, book: m.Book) -> list[str]:
    rule = book.rules.get(symbol.container or "")
    if rule is None:
        return []
    for effect in rule.effects:
        if isinstance(effect, m.DeriveEffect) and effect.name == symbol.name and effect.span == symbol.node.span:
            lines = [
                f"`{symbol.name} = {printer.expr_text(effect.value)}` in `{rule.name}`",
                f"type: `{effect.type.describe()}`",
            ]
            if effect.guard:
                lines.append(printer.guard_text(effect.guard))
            return lines
    return [f"derived in `{rule.name}`"]


def _roll_details(symbol: Symbol, compiled: Compiled, module: Callable[[], ModuleType | None]) -> list[str]:
    book = compiled.book
    rule_name = symbol.container
    if book is None or rule_name is None or rule_name not in book.rules:
        return []
    effect = next(
        (
            e
            for e in book.rules[rule_name].effects
            if isinstance(e, m.RollEffect) and e.name == symbol.name and e.origin == rule_name
        ),
        None,
    )
    lines = []
    if effect is not None:
        guard = printer.guard_text(effect.guard)
        lines.append(f"roll `{printer.roll_text(effect)}`" + (f" ({guard})" if guard else ""))
    loaded = module() if compiled.ok else None
    if loaded is None:
        lines.append("the chance is worked out once the rulebook has no errors")
        return lines
    resolution = loaded.resolve([rule_name])
    rolls = [r for r in resolution.rolls if r.name == symbol.name]
    given = ", ".join(f"{name} {show(value)}" for name, value in resolution.inputs.items())
    at = f"at the defaults ({given})" if given else "at the defaults"
    if not rolls:
        lines.append(f"{at}: not called for")
        return lines
    for roll in rolls:
        lines.append(f"{at}: {_roll_line(roll)}")
        for outcome, p in roll.outcomes.items():
            if outcome not in ("success", "failure"):
                lines.append(f"- {outcome}: {chance(p)}")
    return lines


def _roll_line(roll: Any) -> str:
    if roll.automatic:
        return f"automatic {roll.automatic}"
    target = f" {roll.comparison} {show(roll.target)}" if roll.target is not None else ""
    return f"`{roll.dice}{target}`: **{chance(roll.probability)}**"


# ---------------------------------------------------------------------------- completion


@dataclass(frozen=True)
class Completion:
    label: str
    kind: str
    """keyword, or the kind of symbol: stat, input, member, rule, table, ..."""
    detail: str | None = None


_AFTER_COMPARISON = re.compile(r"\b([A-Za-z_]\w*)\s*(?:==|!=|<=|>=|<|>)\s*\w*$")
_IN_SET = re.compile(r"\b([A-Za-z_]\w*)\s+(?:not\s+)?in\s*\{[^{}]*$")
_AFTER_GIVEN = re.compile(r"\b(?:given|with)\b.*?\b([A-Za-z_]\w*)\s*=\s*\w*$")


def completions(index: Index, before: str) -> list[Completion]:
    """What may be typed at a cursor with `before` on its line: the choices of an input right
    after it is compared (`weapon == `, `weapon in {`, `given weapon = `); else every keyword,
    declared name and choice."""
    for pattern in (_AFTER_COMPARISON, _IN_SET, _AFTER_GIVEN):
        match = pattern.search(before)
        if match is None:
            continue
        choices = _choices(index, match.group(1))
        if choices:
            return choices
    found: dict[tuple[str, str], Completion] = {}
    for word in sorted(keywords()):
        found[(word, "keyword")] = Completion(word, "keyword")
    for symbol in index.symbols:
        key = (symbol.name, symbol.kind)
        if key not in found:
            found[key] = Completion(symbol.name, symbol.kind, _detail(symbol))
    return list(found.values())


def _choices(index: Index, name: str) -> list[Completion]:
    var = next((s for s in index.symbols if s.kind in ("stat", "input") and s.name == name), None)
    if var is None:
        return []
    owner = name
    type_ = getattr(var.node, "type", None)
    if isinstance(type_, n.NamedType):
        owner = type_.name.text
    members = [s for s in index.symbols if s.kind == "member" and s.container == owner]
    return [Completion(s.name, "member", f"choice of {name}") for s in members]


def _detail(symbol: Symbol) -> str:
    if symbol.kind == "member":
        return f"choice of {symbol.container}"
    if symbol.container:
        return f"{symbol.kind} in {symbol.container}"
    return symbol.kind
