"""The categories a rule, terrain or table can belong to.

A fixed list, so that every rulebook prints in one visual system: each category has a label, a
colour for its band on cards (dark enough to carry white text, distinct in grey too) and a
short glyph that identifies it without colour.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Category:
    name: str
    label: str
    colour: str
    glyph: str


CATEGORIES: dict[str, Category] = {
    c.name: c
    for c in (
        Category("movement", "Movement", "#1f5f99", "MOV"),
        Category("visibility", "Visibility", "#5b3f8c", "VIS"),
        Category("saturation", "Saturation", "#8c3f6e", "SAT"),
        Category("cover", "Cover", "#4d5c2e", "COV"),
        Category("hazard", "Hazard", "#a3341f", "HAZ"),
        Category("environment", "Environment", "#226b66", "ENV"),
        Category("weather", "Weather", "#2f6f8f", "WEA"),
        Category("combat", "Combat", "#7a4a12", "CBT"),
        Category("vehicle", "Vehicle", "#55565a", "VEH"),
        Category("equipment", "Equipment", "#3d6b3a", "EQP"),
        Category("terrain", "Terrain", "#6b5a2a", "TER"),
        Category("general", "General", "#3a3a3a", "GEN"),
    )
}

DEFAULT_CATEGORY = "general"
