"""The JSON Schema of `rulecraft export` (dsl/schema/rulebook.schema.json), written from the same
dataclasses the export writes out (dsl/export.py): a field added to the model is in the schema
when it is rebuilt (`python -m dsl.export_schema`; tests/cli/test_contract_ajv.py fails while the
shipped file differs), with its type read from the field's annotation, so no object is left open
and no array untyped.  The forms of numbers and dice are those of the resolution schema, copied
from it.  The schema passes ajv's strict mode (draft 2020-12): every keyword has the type it
applies to, no union of types but with null, every tuple closed.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import types
import typing
from fractions import Fraction
from pathlib import Path
from typing import Any

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.export import FORMAT, NOTES, PAIRS, exported_fields, is_pairs
from dsl.runtime.dice import Dice

DOCS = 'docs/language.md, "Export fields"'
"""Where each field of the export is explained."""

_COMPARISON = ["<", "<=", ">", ">=", "==", "!="]

_ENUMS: dict[tuple[type, str], list[str]] = {
    (m.RollEffect, "op"): _COMPARISON,
    (m.Tier, "op"): _COMPARISON,
    (m.Resistance, "op"): _COMPARISON,
    (n.ExpectChance, "op"): _COMPARISON,
    (t.Numeric, "kind"): ["int", "number", "percent"],
}
"""Fields the model types as `str` that hold one of a few words."""

_GROUPS: dict[type, str] = {n.Expr: "expr", t.Type: "type", m.Effect: "effect", n.Expectation: "expectation"}
"""Abstract classes: a field of one holds any of its subclasses, told apart by `node`."""

_FORMS = ("number", "fraction", "whole", "probability", "dice")
"""The forms of the resolution schema the export uses."""

_REF_KINDS = list(typing.get_args(m.RefKind))


def rulebook_schema(resolution: dict[str, Any]) -> dict[str, Any]:
    """The schema of the export; `resolution` is the resolution schema, whose forms it uses."""
    writer = _SchemaWriter()
    defs: dict[str, Any] = {name: resolution["$defs"][name] for name in _FORMS}
    top: dict[str, dict[str, Any]] = {
        "format": {"const": FORMAT},
        "rulebook": {
            "type": "object",
            "required": ["name", "title", "source", "version", "notes"],
            "additionalProperties": False,
            "properties": {
                "name": {"type": "string"},
                "title": {"type": "string"},
                "source": {"type": ["string", "null"]},
                "version": {"type": ["string", "null"]},
                "notes": {"type": "array", "items": {"$ref": "#/$defs/note"}},
            },
        },
        "units": {
            "type": "object",
            "description": "Each unit the rulebook declares, with its label (null: none).",
            "additionalProperties": {"type": ["string", "null"]},
        },
        "inputs": writer.schema(tuple[m.Var, ...]),
        "groups": writer.schema(tuple[m.Group, ...]),
        "grades": writer.schema(tuple[m.Grade, ...]),
        "tiers": writer.schema(tuple[m.TierSystem, ...]),
        "resistance": writer.schema(m.Resistance | None),
        "rules": writer.schema(tuple[m.Rule, ...]),
        "parts": writer.schema(tuple[m.Part, ...]),
        "tables": writer.schema(tuple[m.Table, ...]),
        "examples": writer.schema(tuple[m.Example, ...]),
        "orders": writer.schema(tuple[m.Order, ...]),
        "stat_orders": writer.schema(dict[str, m.StatOrder]),
        "settle": {
            "type": "array",
            "description": "The order in which a resolver works the values out, each after what it reads.",
            "items": {"type": "string", "pattern": "^(stat|base|derive|as) "},
        },
    }
    top["stat_orders"]["description"] = (
        "By stat: the order its modifiers apply in, as the `order` statements settle it."
    )
    defs.update(writer.defs)
    defs["note"] = {
        "type": "object",
        "description": "A note, or an erratum with the words of the source it reads (`quote`).",
        "required": ["kind", "text", "quote"],
        "additionalProperties": False,
        "properties": {
            "kind": {"enum": ["note", "erratum"]},
            "text": {"type": "string"},
            "quote": {"type": ["string", "null"]},
        },
    }
    defs["pool"] = _POOL
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://rulecraft.dev/schema/rulebook.json",
        "title": "rulecraft rulebook export",
        "description": (
            "What `rulecraft export BOOK` prints: the checked rulebook, field by field (each field: "
            f"{DOCS}). Numbers and dice take the forms of the resolution schema (docs/language.md, "
            '"JSON forms").'
        ),
        "type": "object",
        "additionalProperties": False,
        "required": list(top),
        "properties": top,
        "$defs": dict(sorted(defs.items())),
    }


_POOL: dict[str, Any] = {
    "type": "object",
    "description": (
        "Dice known when writing, with the exact chance of each total (an exploding pool's totals "
        "are listed up to `listed_up_to`, and its `max` is null)."
    ),
    "required": ["node", "count", "sides", "keep", "dice", "min", "max", "listed_up_to", "distribution"],
    "additionalProperties": False,
    "properties": {
        "node": {"const": "Pool"},
        "count": {"$ref": "#/$defs/whole"},
        "sides": {"$ref": "#/$defs/whole"},
        "keep": {"type": ["string", "null"]},
        "dice": {"type": "string"},
        "min": {"$ref": "#/$defs/whole"},
        "max": {"oneOf": [{"$ref": "#/$defs/whole"}, {"type": "null"}]},
        "listed_up_to": {"oneOf": [{"$ref": "#/$defs/whole"}, {"type": "null"}]},
        "distribution": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["total", "probability"],
                "additionalProperties": False,
                "properties": {"total": {"$ref": "#/$defs/whole"}, "probability": {"$ref": "#/$defs/probability"}},
            },
        },
    },
}


class _SchemaWriter:
    def __init__(self) -> None:
        self.defs: dict[str, Any] = {}
        self.classes: dict[str, type] = {}

    def schema(self, hint: Any, owner: type | None = None, name: str = "") -> dict[str, Any]:
        """The schema of a value of type `hint` (the field `name` of `owner`, when it is one)."""
        if owner is not None and (owner, name) in NOTES:
            return {"type": "array", "items": {"$ref": "#/$defs/note"}}
        if owner is not None and (owner, name) in PAIRS:
            return self.pairs(hint, owner, name)
        if owner is not None and (owner, name) in _ENUMS:
            words: list[object] = list(_ENUMS[owner, name])
            return {"enum": [*words, None]} if _optional(hint) else {"enum": words}
        origin = typing.get_origin(hint)
        if origin is typing.Literal:
            return {"enum": list(typing.get_args(hint))}
        if origin in (typing.Union, types.UnionType):
            return self.union(typing.get_args(hint))
        if origin is tuple:
            args = typing.get_args(hint)
            assert args[-1] is Ellipsis, f"a fixed tuple {hint} needs names in export.PAIRS"
            return {"type": "array", "items": self.schema(args[0])}
        if origin is dict:
            return {"type": "object", "additionalProperties": self.schema(typing.get_args(hint)[1])}
        simple = {str: "string", bool: "boolean", type(None): "null"}
        if hint in simple:
            return {"type": simple[hint]}
        if hint is int:
            return {"$ref": "#/$defs/whole"}
        if hint is Fraction:
            return {"$ref": "#/$defs/number"}
        if hint in (n.Name, n.Text):
            return {"type": "string"}
        if hint is n.Pool:
            return {"$ref": "#/$defs/pool"}
        if hint is Dice:
            return {"$ref": "#/$defs/dice"}
        if hint in _GROUPS:
            return self.group(hint)
        assert isinstance(hint, type) and dataclasses.is_dataclass(hint), f"no schema for {hint}"
        return {"$ref": f"#/$defs/{self.record(hint)}"}

    def union(self, members: tuple[Any, ...]) -> dict[str, Any]:
        if Fraction in members:  # a number: whole or not (one form covers both)
            members = tuple(x for x in members if x is not int)
        kinds = [self.schema(x) for x in members if x is not type(None)]
        nullable = type(None) in members
        if len(kinds) == 1 and nullable:
            (only,) = kinds
            if set(only) == {"type"} and isinstance(only["type"], str):
                return {"type": [only["type"], "null"]}
            if set(only) == {"enum"}:
                return {"enum": [*only["enum"], None]}
        if nullable:
            kinds.append({"type": "null"})
        return kinds[0] if len(kinds) == 1 else {"oneOf": kinds}

    def pairs(self, hint: Any, owner: type, name: str) -> dict[str, Any]:
        first, second = PAIRS[owner, name]
        many = is_pairs(hint)
        pair = typing.get_args(hint)[0] if many else next(x for x in typing.get_args(hint) if x is not type(None))
        a, b = typing.get_args(pair)
        shape = {
            "type": "object",
            "required": [first, second],
            "additionalProperties": False,
            "properties": {first: self.schema(a), second: self.schema(b)},
        }
        if many:
            return {"type": "array", "items": shape}
        return {"oneOf": [shape, {"type": "null"}]} if _optional(hint) else shape

    def group(self, base: type) -> dict[str, Any]:
        name = _GROUPS[base]
        if name not in self.defs:
            self.defs[name] = {}  # taken: a member may hold the group again (an expression)
            members = [self.record(cls) for cls in _concrete(base)]
            # told apart by `node` first, each member checked only when `node` names it: a
            # validator then walks a deep expression once (a `oneOf` of the members tries every
            # member at every depth, which took Python's jsonschema minutes on one rulebook)
            self.defs[name] = {
                "type": "object",
                "required": ["node"],
                "properties": {"node": {"enum": members}},
                "allOf": [
                    {
                        "if": {"properties": {"node": {"const": member}}},
                        "then": {"$ref": f"#/$defs/{member}"},
                    }
                    for member in members
                ],
            }
        return {"$ref": f"#/$defs/{name}"}

    def record(self, cls: type) -> str:
        name = cls.__name__
        known = self.classes.get(name)
        assert known is None or known is cls, f"two classes export as node {name}"
        if known is not None:
            return name
        self.classes[name] = cls
        self.defs[name] = {}
        properties: dict[str, Any] = {"node": {"const": name}}
        for field, hint in exported_fields(cls):
            properties[field] = self.schema(hint, cls, field)
        required = list(properties)
        if issubclass(cls, (m.Condition, t.Type)):
            properties["text"] = {"type": "string"}
            required.append("text")
        elif cls is m.TableRow:
            properties["key"] = {"type": "string"}
            required.append("key")
        elif cls is m.RollEffect:
            properties["pools"] = {"type": "array", "items": {"$ref": "#/$defs/pool"}}
            required.append("pools")
        elif issubclass(cls, n.Expr):
            properties["text"] = {"type": "string", "description": "The expression as the rulebook prints it (its root only)."}
            properties["ref"] = {"enum": _REF_KINDS, "description": "What the name stands for."}
        self.defs[name] = {
            "type": "object",
            "description": f"`{name}` ({DOCS}).",
            "required": required,
            "additionalProperties": False,
            "properties": properties,
        }
        return name


def _optional(hint: Any) -> bool:
    return typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) in typing.get_args(hint)


def _concrete(base: type) -> list[type]:
    """The classes of `base` a value can be, in the order they are defined (a dataclass with
    slots is a second class: the one its module names): every class below it, for the groups'
    bases are the only abstract classes (a `Rounded` is one value, a `PerSteps` below it another)."""
    found: list[type] = []
    cls: type
    for cls in base.__subclasses__():
        if getattr(sys.modules[cls.__module__], cls.__name__, None) is not cls:
            continue  # the class a dataclass with slots replaced
        found += [cls, *_concrete(cls)]
    return found


def schema_json(resolution_text: str) -> str:
    """The rulebook schema as the shipped file holds it."""
    return json.dumps(rulebook_schema(json.loads(resolution_text)), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # pragma: no cover - `python -m dsl.export_schema` rewrites the shipped file
    folder = Path(__file__).parent / "schema"
    text = schema_json((folder / "resolution.schema.json").read_text(encoding="utf-8"))
    (folder / "rulebook.schema.json").write_text(text, encoding="utf-8")
    sys.exit(0)
