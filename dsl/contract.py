"""What apps and changelogs read: the JSON Schemas of the data contract (`rulecraft schema`), and
the differences between two editions of a rulebook (`rulecraft diff`).

A diff compares what a player meets: the vocabulary (inputs and stats with their types and
defaults), each rule's lines as the rulebook writes them (modifiers, rolls, derived values,
restrictions, notes, composed rules, each with its condition), each table's rows, and, for every
rule both editions have, what it resolves to at its defaults: each stat's final value and the
exact chance of each roll, before and after.  An erratum that changes a number shows as the line
it changed and as the chance it moved.

Rules apply together, so a change reaches further than its rule: `situations` resolves, before
and after, every rule whose effects changed (its own, or those of a rule it composes) on its own
and together with each rule that shares a stat with it, in situations that move one input at a
time away from the defaults (each choice, both values of a flag, a number's ends and a few points
between), and lists the situations whose stats, derived values, chances or restrictions moved.
Broken ground's `DEX -2` made `-3` shows in mud (which composes it) with `moved = 15`: DEX 8 -> 7,
the chance of keeping one's footing with it.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from importlib import resources
from typing import Any

from dsl import model as m
from dsl import printer
from dsl.model.parts import flat_effects
from dsl.printer import effect_summary
from dsl.runtime.base import number_json, show, whole

SCHEMAS = ("resolution", "rulebook", "list", "describe", "diff", "error")
"""The schemas of the data contract: what `resolve --json`, `export`, `list --json`, `describe --json`
and `diff --json` print, and what any command run with `--json` prints when it fails."""


def schema_text(name: str) -> str:
    """The JSON Schema (2020-12) called `name`, as shipped in the package."""
    if name not in SCHEMAS:
        raise ValueError(f"no schema `{name}`: the schemas are {', '.join(SCHEMAS)}")
    return (resources.files("dsl") / "schema" / f"{name}.schema.json").read_text(encoding="utf-8")


def diff_books(old: m.Book, new: m.Book, old_module: Any, new_module: Any) -> dict[str, Any]:
    """What changed from `old` to `new`, as JSON data (the modules are their resolvers)."""
    return {
        "old": {"name": old.name, "version": old.version},
        "new": {"name": new.name, "version": new.version},
        "inputs": _changed(_vocabulary(old), _vocabulary(new)),
        "rules": _rules(old, new, old_module, new_module),
        "tables": _tables(old, new),
        "situations": _situations(old, new, old_module, new_module),
    }


SITUATION_BUDGET = 4000
"""The most situations `diff` resolves (in each edition) to follow a change into the rules that
share its stats: a few seconds; past it, the sets not tried are counted in `not_tried`."""

SHOWN = 3
"""The changed situations listed for each set of rules (all are counted)."""


def _situations(old: m.Book, new: m.Book, old_module: Any, new_module: Any) -> dict[str, Any]:
    """Each set of rules a change reaches, resolved before and after in situations one input away
    from the defaults; the sets where something moved, with their changed situations."""
    changed = [
        name for name, rule in new.rules.items() if name in old.rules and _flat_lines(old, old.rules[name]) != _flat_lines(new, rule)
    ]
    sets: list[tuple[str, ...]] = []
    for name in changed:
        sets.append((name,))
        stats = {x for x in new.rules[name].reads if new.vars[x].is_stat}
        for other, rule in new.rules.items():
            shares = other != name and other in old.rules and stats & set(rule.reads)
            if shares and (other, name) not in sets:
                sets.append((name, other))
    found: list[dict[str, Any]] = []
    budget = SITUATION_BUDGET
    not_tried = 0
    for names in sets:
        inputs = list(dict.fromkeys(x for name in names for x in new.rules[name].reads))
        situations: list[dict[str, object]] = [{}] + [
            {var: value} for var in inputs if var in old.vars for value in _samples(new_module.INPUTS[var])
        ]
        if len(situations) > budget:
            not_tried += 1
            continue
        budget -= len(situations)
        moved = []
        for given in situations:
            try:
                before = old_module.resolve(list(names), **given).to_dict()
                after = new_module.resolve(list(names), **given).to_dict()
            except (old_module.RuleInputError, new_module.RuleInputError):
                continue
            differences = _compared(before, after)
            if differences:
                moved.append({"inputs": {k: _input_json(v) for k, v in given.items()}, "changes": differences})
        if moved:
            found.append({"rules": list(names), "tried": len(situations), "changed": len(moved), "shown": moved[:SHOWN]})
    return {"sets": found, "not_tried": not_tried}


def _flat_lines(book: m.Book, rule: m.Rule) -> list[str]:
    """A rule's lines with those of every rule it composes: what it does, wherever written."""
    return [line for effect in flat_effects(book, rule.effects) for line in _lines_of(effect)]


def _samples(spec: Any) -> list[object]:
    """Values of an input other than its default, to move a situation by: each choice, both flags,
    a number's ends and three points between (whole numbers for a whole kind)."""
    if spec.kind == "flag":
        values: list[object] = [False, True]
    elif spec.members:
        values = list(spec.members)
    elif spec.kind in ("int", "percent", "number") and spec.low is not None and spec.high is not None:
        low, high = Fraction(spec.low), Fraction(spec.high)
        points = [low + (high - low) * k / 4 for k in range(5)]
        values = [whole(round(x) if spec.kind != "number" else x) for x in points]
    else:
        values = []
    return [v for v in dict.fromkeys(values) if v != spec.default]


def _input_json(value: object) -> object:
    return number_json(value) if isinstance(value, (int, Fraction)) and not isinstance(value, bool) else value


def _compared(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """What moved between two resolutions of one situation: stats, derived values, the chance of
    each roll, restrictions."""
    found: list[dict[str, Any]] = []
    for key in dict.fromkeys([*before["stats"], *after["stats"]]):
        old_value = before["stats"].get(key, {}).get("final")
        new_value = after["stats"].get(key, {}).get("final")
        if old_value != new_value:
            found.append({"what": f"stat {key}", "old": old_value, "new": new_value})
    for key in dict.fromkeys([*before["derived"], *after["derived"]]):
        if before["derived"].get(key) != after["derived"].get(key):
            found.append({"what": f"derived {key}", "old": before["derived"].get(key), "new": after["derived"].get(key)})
    old_rolls = {(roll["rule"], roll["name"]): roll for roll in before["rolls"]}
    new_rolls = {(roll["rule"], roll["name"]): roll for roll in after["rolls"]}
    for key in dict.fromkeys([*old_rolls, *new_rolls]):
        was, now = old_rolls.get(key), new_rolls.get(key)
        old_chance = None if was is None else was["probability"]
        new_chance = None if now is None else now["probability"]
        if old_chance != new_chance or (was and now and was["outcomes"] != now["outcomes"]):
            found.append({"what": f"roll {key[1]}", "old": old_chance, "new": new_chance})
    old_texts = [r["text"] for r in before["restrictions"]]
    new_texts = [r["text"] for r in after["restrictions"]]
    for text in old_texts:
        if text not in new_texts:
            found.append({"what": "restriction", "old": text, "new": None})
    for text in new_texts:
        if text not in old_texts:
            found.append({"what": "restriction", "old": None, "new": text})
    return found


def _vocabulary(book: m.Book) -> dict[str, str]:
    lines = {}
    for var in book.vars.values():
        if var.default_expr is not None:
            default = f" = {printer.expr_text(var.default_expr)}"
        elif var.default is not None:
            default = f" = {show(var.default)}"
        else:
            default = ""
        label = f' "{var.label}"' if var.label else ""
        lines[var.name] = f"{'stat' if var.is_stat else 'input'} {var.name}{label}: {var.type.describe()}{default}"
    return lines


def _changed(old: dict[str, str], new: dict[str, str]) -> dict[str, Any]:
    return {
        "added": [new[k] for k in new if k not in old],
        "removed": [old[k] for k in old if k not in new],
        "changed": [{"name": k, "old": old[k], "new": new[k]} for k in new if k in old and old[k] != new[k]],
    }


def _lines(rule: m.Rule) -> list[str]:
    """A rule as the lines a reader compares: what each statement does, under which condition."""
    return [line for effect in rule.effects for line in _lines_of(effect)]


def _lines_of(effect: m.Effect) -> list[str]:
    if isinstance(effect, m.NoteEffect):
        kind = printer.text_kind(effect)
        condition = printer.guard_text(effect.guard)
        return [f"{kind}: {effect.text}" + (f" ({condition})" if condition else "")]
    line = effect_summary(effect)
    return [line] if line else []


def _rules(old: m.Book, new: m.Book, old_module: Any, new_module: Any) -> dict[str, Any]:
    added = [_head(new.rules[k]) for k in new.rules if k not in old.rules]
    removed = [_head(old.rules[k]) for k in old.rules if k not in new.rules]
    changed = []
    for name, rule in new.rules.items():
        before = old.rules.get(name)
        if before is None:
            continue
        entry: dict[str, Any] = {"name": name}
        if _head(before) != _head(rule):
            entry["heading"] = {"old": _head(before), "new": _head(rule)}
        lines_before, lines_after = Counter(_lines(before)), Counter(_lines(rule))
        gone = [line for line in _lines(before) if (lines_before - lines_after)[line]]
        came = [line for line in _lines(rule) if (lines_after - lines_before)[line]]
        if gone or came:
            entry["removed"] = list(dict.fromkeys(gone))
            entry["added"] = list(dict.fromkeys(came))
        at_defaults = _at_defaults(name, old_module, new_module)
        if at_defaults:
            entry["at_defaults"] = at_defaults
        if len(entry) > 1:
            changed.append(entry)
    return {"added": added, "removed": removed, "changed": changed}


def _head(rule: m.Rule) -> str:
    cites = f" [{rule.cites}]" if rule.cites else ""
    return f'{rule.kind} {rule.name} "{rule.title}"{cites}'


def _at_defaults(name: str, old_module: Any, new_module: Any) -> list[dict[str, Any]]:
    """What the rule resolves to at its defaults, where the editions differ: stats and chances."""
    before = old_module.resolve(name).to_dict()
    after = new_module.resolve(name).to_dict()
    found: list[dict[str, Any]] = []
    for key in dict.fromkeys([*before["stats"], *after["stats"]]):
        old_value = before["stats"].get(key, {}).get("final")
        new_value = after["stats"].get(key, {}).get("final")
        if old_value != new_value:
            found.append({"what": f"stat {key}", "old": old_value, "new": new_value})
    for key in dict.fromkeys([*before["derived"], *after["derived"]]):
        if before["derived"].get(key) != after["derived"].get(key):
            found.append({"what": f"derived {key}", "old": before["derived"].get(key), "new": after["derived"].get(key)})
    old_rolls = {roll["name"]: roll for roll in before["rolls"]}
    new_rolls = {roll["name"]: roll for roll in after["rolls"]}
    for key in dict.fromkeys([*old_rolls, *new_rolls]):
        was, now = old_rolls.get(key), new_rolls.get(key)
        old_chance = None if was is None else was["probability"]
        new_chance = None if now is None else now["probability"]
        if old_chance != new_chance or (was and now and was["outcomes"] != now["outcomes"]):
            found.append({"what": f"roll {key}", "old": old_chance, "new": new_chance})
    return found


def _tables(old: m.Book, new: m.Book) -> dict[str, Any]:
    added = [f'table {k} "{new.tables[k].title}"' for k in new.tables if k not in old.tables]
    removed = [f'table {k} "{old.tables[k].title}"' for k in old.tables if k not in new.tables]
    changed = []
    for name, table in new.tables.items():
        before = old.tables.get(name)
        if before is None:
            continue
        entry: dict[str, Any] = {"name": name}
        if _table_head(before) != _table_head(table):
            entry["heading"] = {"old": _table_head(before), "new": _table_head(table)}
        rows = _changed(_rows(before), _rows(table))
        if any(rows.values()):
            entry["rows"] = rows
        if len(entry) > 1:
            changed.append(entry)
    return {"added": added, "removed": removed, "changed": changed}


def _table_head(table: m.Table) -> str:
    how = printer.pool_text(table.pool) if table.pool is not None else "by " + ", ".join(table.inputs)
    columns = ", ".join(name for name, _ in table.columns)
    return f'table {table.name} "{table.title}" {how}: {columns}'


def _rows(table: m.Table) -> dict[str, str]:
    return {row.key_text(): f"{row.key_text()}: {', '.join(_cell(c) for c in row.cells)}" for row in table.rows}


def _cell(cell: m.TableCell) -> str:
    if cell.kind == "impassable":
        return "X"
    if cell.kind == "na":
        return "N/A"
    if cell.kind == "step":
        assert cell.step is not None
        return printer.step_text(cell.step)
    assert cell.value is not None
    return printer.expr_text(cell.value)


def diff_lines(diff: dict[str, Any]) -> list[str]:
    """A diff as text, for a changelog: `+` added, `-` removed, `~` changed (old -> new)."""
    old, new = diff["old"], diff["new"]
    out = [f"{old['name']} {old['version'] or ''} -> {new['name']} {new['version'] or ''}".replace("  ", " ")]
    sections = [("inputs", diff["inputs"]), ("rules", diff["rules"]), ("tables", diff["tables"])]
    changes = 0
    for title, section in sections:
        body: list[str] = [f"  + {x}" for x in section["added"]] + [f"  - {x}" for x in section["removed"]]
        for entry in section["changed"]:
            if title == "inputs":
                body.append(f"  ~ {entry['old']}")
                body.append(f"      -> {entry['new']}")
                continue
            body.append(f"  ~ {entry['name']}")
            if "heading" in entry:
                body += [f"      - {entry['heading']['old']}", f"      + {entry['heading']['new']}"]
            body += [f"      - {line}" for line in entry.get("removed", [])]
            body += [f"      + {line}" for line in entry.get("added", [])]
            rows = entry.get("rows")
            if rows:
                body += [f"      + row {x}" for x in rows["added"]] + [f"      - row {x}" for x in rows["removed"]]
                body += [f"      ~ row {x['old']}  ->  {x['new']}" for x in rows["changed"]]
            for item in entry.get("at_defaults", []):
                chance = item["what"].startswith("roll ")
                old_text, new_text = _shown(item["old"], chance), _shown(item["new"], chance)
                body.append(f"      at defaults, {item['what']}: {old_text} -> {new_text}")
        if body:
            changes += 1
            out += ["", f"{title}:", *body]
    situations = diff.get("situations", {"sets": [], "not_tried": 0})
    if situations["sets"]:
        changes += 1
        out += ["", "situations (rules applied together, one input away from the defaults):"]
        for found in situations["sets"]:
            out.append(f"  ~ {' + '.join(found['rules'])}: {found['changed']} of {found['tried']} situations changed")
            for item in found["shown"]:
                given = ", ".join(f"{k} = {_shown(v, False)}" for k, v in item["inputs"].items()) or "at the defaults"
                moved = "; ".join(
                    f"{x['what']}: {_shown(x['old'], x['what'].startswith('roll '))} -> "
                    f"{_shown(x['new'], x['what'].startswith('roll '))}"
                    for x in item["changes"]
                )
                out.append(f"      {given}: {moved}")
    if situations["not_tried"]:
        out += ["", f"  ({situations['not_tried']} sets of rules not tried: past the budget of situations)"]
    if not changes:
        out += ["", "no changes"]
    return out


def _shown(value: object, chance: bool) -> str:
    """A value of the data contract as text; a chance with its percentage."""
    if value is None:
        return "none"
    if isinstance(value, dict):
        if "fraction" in value:
            return f"{value['fraction']} ({value['float'] * 100:.1f}%)" if chance else str(value["fraction"])
        if "dice" in value:
            return str(value["dice"])
        if "special" in value:
            return str(value["special"])
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
