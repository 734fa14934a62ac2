"""Broken ground (17.1) resolved by hand, the way a careful developer would write it in Python.

It builds the very same `Resolution` the generated resolver returns (the benchmark checks the two
agree), so the comparison measures the cost of the generated code, not of a thinner result.
"""

from __future__ import annotations

from fractions import Fraction
from types import ModuleType
from typing import Any

# totals of 2d6 and 3d6 at most N, by N
_AT_MOST_2D6 = (1, 3, 6, 10, 15, 21, 26, 30, 33, 35, 36)
_AT_MOST_3D6 = (1, 4, 10, 20, 35, 56, 81, 108, 135, 160, 180, 195, 205, 211, 214, 216)
_WEAPONS = ("none", "melee", "thrown", "missile", "laser")
_CONDITION = "when moved > 0 or weapon != none; unless moved == 0 and weapon in {thrown, missile, laser}"
_FAILURE = "The figure falls down somewhere in this path; roll randomly to find where."


def _at_most(table: tuple[int, ...], low: int, total: int) -> Fraction:
    index = total - low
    if index < 0:
        return Fraction(0)
    if index >= len(table):
        return Fraction(1)
    return Fraction(table[index], table[-1])


def make(m: ModuleType) -> Any:
    """A hand-written broken_ground for module `m` (whose result classes it uses)."""
    errata = m.resolve("broken_ground").notes

    def broken_ground(
        DEX: int = 10, MOV: int = 10, moved: int = 0, weapon: str = "none", acrobatics: bool = False
    ) -> Any:
        for name, value, low, high in (("DEX", DEX, 0, 30), ("MOV", MOV, 0, 30), ("moved", moved, 0, 60)):
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                raise m.RuleInputError(f"input `{name}` must be a whole number in {low}..{high}")
        if weapon not in _WEAPONS:
            raise m.RuleInputError("input `weapon` must be one of " + ", ".join(_WEAPONS))
        if not isinstance(acrobatics, bool):
            raise m.RuleInputError("input `acrobatics` must be True or False")
        trace = []
        modifiers = []
        penalty = (moved > 0 or weapon != "none") and not (moved == 0 and weapon in ("thrown", "missile", "laser"))
        trace.append(
            m.TraceEntry(
                "broken_ground", "17.1", "DEX -2", penalty, f"{_CONDITION}: {'holds' if penalty else 'does not hold'}"
            )
        )
        dex = DEX - 2 if penalty else DEX
        if penalty:
            modifiers.append(
                m.Modifier("broken_ground", "17.1", "DEX", "add", "-2", "DEX -2", None, "applied", None, "bad footing")
            )
        falls = moved > Fraction(MOV, 2)
        trace.append(
            m.TraceEntry(
                "broken_ground",
                "17.1",
                "roll fall",
                falls,
                f"when moved > MOV / 2: {'holds' if falls else 'does not hold'}",
            )
        )
        rolls = []
        if falls:
            trace.append(
                m.TraceEntry(
                    "broken_ground",
                    "17.1",
                    "roll fall: roll 2d6",
                    acrobatics,
                    f"when acrobatics: {'holds' if acrobatics else 'does not hold'}",
                )
            )
            chance = _at_most(_AT_MOST_2D6, 2, dex) if acrobatics else _at_most(_AT_MOST_3D6, 3, dex)
            rolls.append(
                m.Roll(
                    rule="broken_ground",
                    source="17.1",
                    name="fall",
                    label="Avoid falling",
                    dice="2d6" if acrobatics else "3d6",
                    comparison="<=",
                    target=Fraction(dex),
                    probability=chance,
                    automatic=None,
                    outcomes={"success": chance, "failure": 1 - chance},
                    effects={"failure": _FAILURE},
                    margins={},
                    notes=(),
                )
            )
        values = {"DEX": DEX, "MOV": MOV, "moved": moved, "weapon": weapon, "acrobatics": acrobatics}
        return m.Resolution(
            rules=("broken_ground",),
            inputs=values,
            stats={"DEX": dex},
            modifiers=tuple(modifiers),
            rolls=tuple(rolls),
            restrictions=(),
            notes=errata,
            tables=(),
            trace=tuple(trace),
        )

    return broken_ground
