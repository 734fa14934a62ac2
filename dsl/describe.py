"""What `rulecraft describe` and `rulecraft list` show: everything a rule or table does, from the
checked model, as JSON data and as the lines a designer reads.

A rule is shown as its rulebook writes it, statement by statement, each with the conditions under
which it applies: modifiers, rolls with every change, tier and outcome, derived values,
restrictions, notes and errata, and the rules it composes (`as OTHER`) with their own effects
nested.  A part composed twice (a trait reached directly and through another rule) is described
once, where it is first met, and referred to after that: a resolver counts it once, so a reader
must not see its roll twice.  The tables a rule reads are listed with their keys and columns; a
table described on its own also shows its rows.  Values take the forms of the data contract
(dsl/runtime/base.py, dsl/runtime/dice.py); texts come from dsl/printer.py, so `describe` reads as the trace
and the cards do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from fractions import Fraction
from types import ModuleType
from typing import Any

from dsl import model as m
from dsl import nodes as n
from dsl import printer
from dsl.model.exprs import effect_exprs, walk
from dsl.report import chain_lines
from dsl.runtime.base import number_json, show
from dsl.runtime.dice import value_json
from dsl.runtime.inputs import InputSpec
from dsl.semantics.values import constant_value

_BINDING = re.compile(r",(?=[A-Za-z_][A-Za-z0-9_]*=)")
"""Where one binding of a part key (`rule[a=1,b=x + 1]`) ends: values print `, ` inside them."""


# ---------------------------------------------------------------- describe: data


def describe_data(
    book: m.Book, name: str, inputs: Sequence[InputSpec], resolver: ModuleType | None = None
) -> dict[str, Any]:
    """Everything the rule or table `name` does, and the inputs it reads (as the resolver knows
    them: `inputs`).  With the book's `resolver` module, the chains too: where a table's rows or a
    roll's outcomes send on, the whole procedure with its chances (inputs at their defaults)."""
    table = book.tables.get(name)
    if table is not None:
        data = _table_head(table)
        data["rows"] = [_row(book, table, row) for row in table.rows]
        data["overflow"] = _overflow(table.overflow)
        data["notes"] = [_note(text, quote, (), kind) for text, quote, kind in table.all_notes]
        data["chains"] = _chains(resolver, [(name, None)])
        data["inputs"] = [_input(spec) for spec in inputs]
        roll = _roll_range(table)
        if roll is not None:
            data["inputs"].append(
                {
                    "name": "roll",
                    "label": "the die result (optional: without it, the chance of every row)",
                    "type": "int",
                    "range": [number_json(x) for x in roll],
                    "unit": None,
                    "choices": None,
                    "default": None,
                    "default_from": None,
                    "stat": False,
                }
            )
        return data
    rule = book.rules[name]
    describer = _Describer(book)
    effects = describer.effects(rule.effects)
    return {
        "name": rule.name,
        "kind": rule.kind,
        "title": rule.title,
        "source": rule.cites,
        "category": rule.category,
        "effects": effects,
        "tables": [_table_head(book.tables[t]) for t in describer.tables if t in book.tables],
        "inputs": [_input(spec) for spec in inputs],
        "chains": _chains(resolver, _outcome_chains(effects)),
        "sequence": _sequence(rule.sequence),
    }


_UNTIL_WORDS = {"success": "succeeds", "failure": "fails"}
"""An `until` outcome as the rulebook writes it (`until hold_breath fails`); a tier is its name."""


def _sequence(sequence: m.Sequence | None) -> dict[str, Any] | None:
    """`each UNIT [COUNTER from N]: until ROLL OUTCOME [N times] then INPUT = VALUE; count ...;
    total ...`: how the rule is resolved over rounds.  `until.outcome` and `counts[].outcome` as
    a resolution names them (`failure`), each `text` as the rulebook writes the line."""
    if sequence is None:
        return None
    until = None
    if sequence.until is not None:
        roll, outcome = sequence.until
        times = f" {sequence.times} times" if sequence.times > 1 else ""
        until = {
            "roll": roll,
            "outcome": outcome,
            "times": sequence.times,
            "text": f"{roll} {_UNTIL_WORDS.get(outcome, outcome)}{times}",
        }
    then = None
    if sequence.then is not None:
        name, value = sequence.then
        then = {"input": name, "value": printer.expr_text(value)}
    counts = [
        {
            "roll": count.roll,
            "outcome": count.outcome,
            "input": count.input,
            "text": f"{count.roll} {_UNTIL_WORDS.get(count.outcome, count.outcome)} as {count.input}",
        }
        for count in sequence.counts
    ]
    head = f"each {sequence.unit}"
    if sequence.counter is not None:
        head += f" {sequence.counter} from {sequence.start}"
    return {
        "unit": sequence.unit,
        "counter": sequence.counter,
        "start": number_json(sequence.start),
        "until": until,
        "then": then,
        "counts": counts,
        "totals": list(sequence.totals),
        "text": head,
    }


def _outcome_chains(effects: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    """The tables the outcomes of a rule's rolls send on to, with the outcome ("roll fall: failure")."""
    found: list[tuple[str, str | None]] = []
    for effect in effects:
        if effect["effect"] == "part":
            found += _outcome_chains(effect["effects"])
        elif effect["effect"] == "roll":
            for outcome in effect["outcomes"]:
                target = re.fullmatch(r"roll on (\w+)(?: [+-]\d+)?", outcome["then"] or "")
                if target:
                    found.append((target[1], f"roll {effect['name']}: {outcome['name']}"))
    return found


def _chains(resolver: ModuleType | None, starts: list[tuple[str, str | None]]) -> list[dict[str, Any]]:
    """The chain of each table (resolved alone, at its inputs' defaults) that sends on: its flow
    and exact expectations; the ways themselves are for `resolve`."""
    if resolver is None:
        return []
    found = []
    for table, outcome in starts:
        for chain in resolver.resolve(table).chains:
            data = chain.to_dict()
            del data["outcomes"], data["rows"], data["totals"]
            if outcome is not None:
                data["start"] = f"{outcome}, then {data['start']}"
            found.append(data)
    return found


def _input(spec: InputSpec) -> dict[str, Any]:
    return {
        "name": spec.name,
        "label": spec.label,
        "type": spec.kind,
        "range": None if spec.low is None and spec.high is None else [value_json(spec.low), value_json(spec.high)],
        "unit": spec.unit,
        "choices": list(spec.members) or None,
        "default": value_json(spec.default),
        "default_from": spec.default_text,
        "stat": spec.is_stat,
    }


def _conditions(guard: Iterable[m.Condition]) -> list[str]:
    return [printer.condition_text(c) for c in guard]


def _note(text: str, quote: str | None, guard: Iterable[m.Condition], kind: str) -> dict[str, Any]:
    """A note as describe writes it, of its kind (`m.note_kind`)."""
    return {
        "effect": "note",
        "kind": kind,
        "text": text,
        "quote": quote,
        "conditions": _conditions(guard),
    }


class _Describer:
    """Walks a rule's effects into JSON data, remembering the parts and statements already
    described and the tables read on the way."""

    def __init__(self, book: m.Book) -> None:
        self.book = book
        self.parts: set[str] = set()
        self.statements: set[str] = set()
        self.tables: dict[str, None] = {}  # in the order first read

    def effects(self, effects: Iterable[m.Effect]) -> list[dict[str, Any]]:
        found = []
        for effect in effects:
            item = self.effect(effect)
            if item is not None:
                found.append(item)
        return found

    def effect(self, effect: m.Effect) -> dict[str, Any] | None:
        conditions = _conditions(effect.guard)
        if isinstance(effect, m.PartEffect):
            return self.part(effect, conditions)
        if effect.key in self.statements:  # reached again through another part: counted once
            return None
        self.statements.add(effect.key)
        self.read_tables(effect)
        if isinstance(effect, m.ModEffect):
            return _modifier(self.book, effect, conditions)
        if isinstance(effect, m.RollEffect):
            return self.roll(effect, conditions)
        if isinstance(effect, m.DeriveEffect):
            return {
                "effect": "derive",
                "name": effect.name,
                "label": effect.label,
                "unit": effect.unit,
                "type": effect.type.describe(),
                "value": printer.expr_text(effect.value),
                "amount": _amount(self.book, effect.value),
                "text": _derive_text(effect),
                "conditions": conditions,
            }
        if isinstance(effect, m.CannotEffect):
            return {"effect": "cannot", "what": effect.text, "text": f"cannot {effect.text}", "conditions": conditions}
        if isinstance(effect, m.NoteEffect):
            return _note(effect.text, effect.quote, effect.guard, printer.text_kind(effect))
        raise TypeError(f"no description of {type(effect).__name__}")  # a model class this file does not know

    def part(self, effect: m.PartEffect, conditions: list[str]) -> dict[str, Any]:
        rule = self.book.rules.get(effect.rule)
        part = self.book.parts.get(effect.part)
        repeated = effect.part in self.parts
        self.parts.add(effect.part)
        bindings = effect.part.split("[", 1)[1][:-1] if "[" in effect.part else ""
        with_ = [b.replace("=", " = ", 1) for b in _BINDING.split(bindings)] if bindings else []
        return {
            "effect": "part",
            "rule": effect.rule,
            "title": rule.title if rule is not None else effect.rule,
            "source": rule.cites if rule is not None else None,
            "with": with_,
            "text": f"as {effect.rule}" + (f" with {', '.join(with_)}" if with_ else ""),
            "conditions": conditions,
            "repeated": repeated,
            "effects": [] if repeated or part is None else self.effects(part.effects),
        }

    def _change(self, change: m.RollChange) -> dict[str, Any]:
        """A change of a roll under its conditions; one that reads the roll with other tiers
        (`when advanced: tiers advanced_move`) lists them, as the roll lists its own."""
        found: dict[str, Any] = {"kind": change.kind, "text": _change_text(change), "conditions": _conditions(change.guard)}
        system = self.book.tiers.get(change.tiers) if change.tiers else None
        if system is not None:
            found["tier_levels"] = [{"name": t.name, "text": _tier_text(t)} for t in system.tiers]
        return found

    def roll(self, effect: m.RollEffect, conditions: list[str]) -> dict[str, Any]:
        tiers = self.book.tiers.get(effect.tiers) if effect.tiers else None
        for outcome in effect.outcomes:
            if outcome.step is not None and outcome.step.table is not None:
                self.tables.setdefault(outcome.step.table)
        return {
            "effect": "roll",
            "name": effect.name,
            "label": effect.label,
            "kind": effect.kind,
            "dice": printer.dice_text(effect),
            "text": f"roll {effect.name}{_label(effect.label)}: {printer.roll_text(effect)}",
            "conditions": conditions,
            "changes": [self._change(change) for change in effect.changes],
            "tiers": None if tiers is None else tiers.name,
            "tier_levels": [] if tiers is None else [{"name": t.name, "text": _tier_text(t)} for t in tiers.tiers],
            "ties": effect.ties,
            "outcomes": [
                {
                    "name": outcome.name,
                    "by_margin": outcome.by_margin,
                    "text": outcome.text,
                    "then": None if outcome.step is None else printer.step_text(outcome.step),
                    "changes": [_modifier(self.book, change, _conditions(change.guard)) for change in outcome.changes],
                    "applies": list(outcome.applies),
                }
                for outcome in effect.outcomes
            ],
            "notes": [_note(text, quote, (), m.note_kind(quote)) for text, quote in effect.notes],
        }

    def read_tables(self, effect: m.Effect) -> None:
        for expr in effect_exprs(effect):
            for node in walk(expr):
                if isinstance(node, n.Lookup):
                    self.tables.setdefault(node.table.text)


def _label(label: str | None) -> str:
    return f' "{label}"' if label else ""


def _amount(book: m.Book, expr: n.Expr | None) -> object:
    """A value known when writing, in the forms of the data contract; None for one worked out
    from the situation (its text says how)."""
    return None if expr is None else value_json(constant_value(expr, book))


def _modifier(book: m.Book, effect: m.ModEffect, conditions: list[str]) -> dict[str, Any]:
    text = printer.modifier_text(effect)
    if effect.group:
        text += f" in {effect.group}"
    amount = _amount(book, effect.value)
    if effect.op in ("dice", "step", "shift") and effect.value is None:
        amount = number_json(effect.delta)
    return {
        "effect": "modifier",
        "target": effect.target,
        "operation": effect.op,
        "amount": amount,
        "percent": effect.percent,
        "per": None if effect.per is None else printer.expr_text(effect.per),
        "rounding": effect.rounding,
        "grade": effect.grade,
        "group": effect.group,
        "label": effect.label,
        "text": text + _label(effect.label),
        "conditions": conditions,
    }


def _derive_text(effect: m.DeriveEffect) -> str:
    unit = f" {effect.unit}" if effect.unit else ""
    return f"derive {effect.name}{_label(effect.label)}{unit} = {printer.expr_text(effect.value)}"


def _change_text(change: m.RollChange) -> str:
    """A change as the rulebook writes it under its roll: `3d6`, `-1 die`, `target -3`."""
    if change.kind == "pool":
        assert change.pool is not None
        return printer.pool_text(change.pool)
    return printer.change_text(change)


def _tier_text(tier: m.Tier) -> str:
    if tier.also:
        text = printer.natural_words(tier)
    elif tier.natural is not None:
        text = printer.tier_test_text(*tier.natural, tier.die)
    elif tier.op is not None and tier.bound is not None:
        text = f"roll {tier.op} {printer.expr_text(tier.bound)}"
    else:
        text = "otherwise"
    if tier.always is not None:
        text += " always " + ("succeeds" if tier.always == "success" else "fails")
    return text


# ---------------------------------------------------------------- tables


def _table_head(table: m.Table) -> dict[str, Any]:
    """How a table is read: by a roll or by inputs, and its columns."""
    modifier = None
    if table.modifier is not None:
        modifier = {"input": table.modifier, "sign": table.modifier_sign}
    return {
        "name": table.name,
        "kind": "table",
        "title": table.title,
        "source": table.cites,
        "category": table.category,
        "key": table.key,
        "dice": None if table.pool is None else printer.pool_text(table.pool),
        "modifier": modifier,
        "keys": list(table.inputs),
        "columns": [{"name": name, "label": label} for name, label in table.columns],
        "text": _table_key_text(table),
    }


def _table_key_text(table: m.Table) -> str:
    if table.pool is not None:
        text = f"rolled on {printer.pool_text(table.pool)}"
        if table.modifier is not None:
            text += f" {'+' if table.modifier_sign > 0 else '-'} {table.modifier}"
        return text
    return "looked up by " + ", ".join(table.inputs)


def _row(book: m.Book, table: m.Table, row: m.TableRow) -> dict[str, Any]:
    cells = []
    steps = []
    for (column, _), cell in zip(table.columns, row.cells, strict=False):
        cells.append({"column": column, "text": _cell_text(book, cell), "value": _cell_value(book, cell)})
        if cell.step is not None:
            steps.append(printer.step_text(cell.step))
    return {
        "key": row.key_text(),
        "low": None if row.low is None else number_json(row.low),
        "high": None if row.high is None else number_json(row.high),
        "member": row.member,
        "cells": cells,
        "then": steps,
    }


def _cell_text(book: m.Book, cell: m.TableCell) -> str:
    if cell.kind == "impassable":
        return "X"
    if cell.kind == "na":
        return "N/A"
    if cell.kind == "step":
        assert cell.step is not None
        return printer.step_text(cell.step)
    assert cell.value is not None
    value = constant_value(cell.value, book)
    if value is None or isinstance(value, str):  # worked out from inputs; text keeps its quotes
        return printer.expr_text(cell.value)
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        return printer.number_text(Fraction(value))  # as the rulebook writes it: 1/2, not 0.5
    return show(value)


def _cell_value(book: m.Book, cell: m.TableCell) -> object:
    """The cell's value in the forms of the data contract; None for a cell worked out from inputs
    when the table is read, and for a step to another table."""
    if cell.kind == "impassable":
        return {"special": "X"}
    if cell.kind == "na":
        return {"special": "N/A"}
    if cell.value is None:
        return None
    return value_json(constant_value(cell.value, book))


def _overflow(overflow: m.Overflow | None) -> dict[str, Any] | None:
    if overflow is None:
        return None
    return {
        "above": number_json(overflow.above),
        "becomes": number_json(overflow.becomes),
        "then": None if overflow.step is None else printer.step_text(overflow.step),
    }


def _roll_range(table: m.Table) -> tuple[int, int] | None:
    """What the dice of a rolled table show, before any modifier (the table adds that itself)."""
    pool = table.pool
    if pool is None:
        return None
    return (1, pool.sides) if pool.keep else (pool.count, pool.count * pool.sides)


# ---------------------------------------------------------------- describe: text


def describe_lines(data: dict[str, Any], inputs: Sequence[InputSpec]) -> list[str]:
    """The text of `describe`: the same content as `describe_data`, as a designer reads it."""
    source = f" [{data['source']}]" if data["source"] else ""
    lines = [f"{data['title']} ({data['name']}, {data['kind']}){source}"]
    if data["category"]:
        lines.append(f"category: {data['category']}")
    if data["kind"] == "table":
        lines += _table_lines(data)
        lines += chain_lines(data["chains"])
    else:
        if data.get("sequence"):
            lines += _sequence_lines(data["sequence"])
        if data["effects"]:
            lines += ["", "effects:"]
            lines += _effect_lines(data["effects"], 1)
        if data["tables"]:
            lines += ["", "tables read:"]
            for table in data["tables"]:
                source = f" [{table['source']}]" if table["source"] else ""
                lines.append(f"  {table['name']}: {table['title']}{source}")
                lines.append(f"    {table['text']}; columns {_columns(table)}")
        lines += chain_lines(data["chains"])
    lines.append("")
    lines.append("inputs:" if data["inputs"] else "inputs: none")
    for spec in inputs:
        label = f"  {spec.label}" if spec.label else ""
        kind = "stat" if spec.is_stat else "input"
        default = f"the effective {spec.default_text}" if spec.derived else show(spec.default)
        lines.append(f"  {spec.name} ({kind}): {spec.describe()}, default {default}{label}")
    roll = next((i for i in data["inputs"] if i["name"] == "roll"), None)
    if roll is not None:
        low, high = roll["range"]
        lines.append(
            f"  roll (input): int {low}..{high}, optional  The die result; without it, the chance of every row"
        )
    return lines


def _sequence_lines(sequence: dict[str, Any]) -> list[str]:
    """`sequence: each round asphyxiation_round from 1`, then what ends or changes it and its totals."""
    lines = ["", f"sequence: {sequence['text']} (resolved over rounds: --rounds N)"]
    until, then = sequence["until"], sequence["then"]
    if until is not None:
        after = ""
        if then is not None:
            after = f", then {then['input']} = {then['value']} from the next {sequence['unit']} on"
        end = "" if then is not None else f" (the {sequence['unit']} it ends in counts)"
        lines.append(f"  until {until['text']}{after}{end}")
    unit = sequence["unit"]
    for count in sequence["counts"]:
        came = {"failure": "failed", "success": "succeeded"}.get(count["outcome"], f"came up {count['outcome']}")
        lines.append(
            f"  count {count['text']}: each {unit}, `{count['input']}` is the number of {unit}s before it"
            f" in which {count['roll']} {came}"
        )
    if sequence["counter"] is None and not sequence["counts"]:
        lines.append(f"  every {unit} resolved alike: no input counts the {unit}s")
    if sequence["totals"]:
        lines.append(f"  total over the {sequence['unit']}s: {', '.join(sequence['totals'])}")
    return lines


def _columns(table: dict[str, Any]) -> str:
    return ", ".join(c["name"] + (f" ({c['label']})" if c["label"] else "") for c in table["columns"])


def _when(conditions: list[str]) -> str:
    return f" ({'; '.join(conditions)})" if conditions else ""


def _note_text(note: dict[str, Any]) -> str:
    if note["kind"] == "erratum":
        return f'erratum "{note["quote"]}": {note["text"]}'
    return f"{note['kind']}: {note['text']}"


def _effect_lines(effects: list[dict[str, Any]], depth: int) -> list[str]:
    pad = "  " * depth
    lines = []
    for effect in effects:
        kind = effect["effect"]
        when = _when(effect["conditions"])
        if kind == "part":
            source = f" [{effect['source']}]" if effect["source"] else ""
            if effect["repeated"]:
                lines.append(f"{pad}{effect['text']}{when}: as above")
                continue
            lines.append(f"{pad}{effect['text']}{when}: {effect['title']}{source}")
            lines += _effect_lines(effect["effects"], depth + 1)
        elif kind == "note":
            lines.append(f"{pad}{_note_text(effect)}{when}")
        elif kind == "roll":
            lines.append(f"{pad}{effect['text']}{when}")
            inner = pad + "  "
            if effect["tiers"]:
                levels = ", ".join(f"{t['name']} {t['text']}" for t in effect["tier_levels"])
                lines.append(f"{inner}tiers {effect['tiers']}: {levels}")
            for change in effect["changes"]:
                levels = ", ".join(f"{t['name']} {t['text']}" for t in change.get("tier_levels", ()))
                lines.append(f"{inner}{change['text']}{_when(change['conditions'])}{': ' + levels if levels else ''}")
            if effect["ties"]:
                lines.append(f"{inner}ties {effect['ties']}")
            for outcome in effect["outcomes"]:
                said = [f'"{outcome["text"]}"'] if outcome["text"] else []
                said += [c["text"] + _when(c["conditions"]) for c in outcome["changes"]]
                said += [f"as {name}" for name in outcome["applies"]]
                if outcome["then"]:
                    said.append(f"then {outcome['then']}")
                margin = " by margin" if outcome["by_margin"] else ""
                lines.append(f"{inner}on {outcome['name']}{margin}: {'; '.join(said)}")
            for note in effect["notes"]:
                lines.append(f"{inner}{_note_text(note)}")
        else:
            lines.append(f"{pad}{effect['text']}{when}")
    return lines


def _table_lines(data: dict[str, Any]) -> list[str]:
    lines = ["", f"{data['text']}; columns {_columns(data)}", "", "rows:"]
    width = max((len(row["key"]) for row in data["rows"]), default=0)
    for row in data["rows"]:
        cells = ", ".join(c["text"] for c in row["cells"])
        then = "".join(f"; then {step}" for step in row["then"] if step not in cells)
        lines.append(f"  {row['key']:<{width}}  {cells}{then}")
    overflow = data["overflow"]
    if overflow is not None:
        then = f", then {overflow['then']}" if overflow["then"] else ""
        lines.append(f"  above {overflow['above']}: read as {overflow['becomes']}{then}")
    if data["notes"]:
        lines.append("")
        lines += [f"  {_note_text(note)}" for note in data["notes"]]
    return lines


# ---------------------------------------------------------------- list


def list_data(book: m.Book) -> dict[str, Any]:
    """The rules and tables of a book; every one of them resolves by name."""
    entries: list[dict[str, Any]] = []
    for rule in book.rules.values():
        entries.append(
            {
                "name": rule.name,
                "kind": rule.kind,
                "title": rule.title,
                "source": rule.cites,
                "category": rule.category,
                "resolvable": True,
                "lookup": "",
            }
        )
    for table in book.tables.values():
        entries.append(
            {
                "name": table.name,
                "kind": "table",
                "title": table.title,
                "source": table.cites,
                "category": table.category,
                "resolvable": True,
                "lookup": _table_key_text(table),
            }
        )
    return {"rulebook": book.name, "title": book.title, "entries": entries}


def list_lines(data: dict[str, Any], book: str) -> list[str]:
    """The text of `list`; `book` is the BOOK argument as given, for the command it suggests."""
    entries = data["entries"]
    lines = [f"{data['title']} ({data['rulebook']})"]
    width = max((len(e["name"]) for e in entries), default=0)
    for entry in entries:
        source = f"  [{entry['source']}]" if entry["source"] else ""
        read = f"  ({entry['lookup']})" if entry["lookup"] else ""
        lines.append(f"  {entry['name']:<{width}}  {entry['kind']:<9}  {entry['title']}{source}{read}")
    if any(e["kind"] == "table" for e in entries):
        lines += [
            "",
            f"Tables resolve by name, as rules do: rulecraft resolve {book} TABLE "
            "[--set NAME=VALUE ...]; a rolled table takes --set roll=N for one row.",
        ]
    return lines
