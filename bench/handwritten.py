"""Broken ground (17.1) resolved by hand, the way a careful developer would write it in Python.

It builds the very same `Resolution` the generated resolver returns (the benchmark checks the two
agree), so the comparison measures the cost of the generated code, not of a thinner result.
"""

from __future__ import annotations

from fractions import Fraction
from types import MappingProxyType, ModuleType
from typing import Any

# totals of 2d6 and 3d6 at most N, by N
_AT_MOST_2D6 = (1, 3, 6, 10, 15, 21, 26, 30, 33, 35, 36)
_AT_MOST_3D6 = (1, 4, 10, 20, 35, 56, 81, 108, 135, 160, 181, 196, 206, 212, 215, 216)
_WEAPONS = ("none", "melee", "thrown", "missile", "laser")
_UNREAD = "`acrobatics` had no effect: it is read only when moved > MOV / 2"


def _at_most(table: tuple[int, ...], low: int, total: int) -> Fraction:
    index = total - low
    if index < 0:
        return Fraction(0)
    if index >= len(table):
        return Fraction(1)
    return Fraction(table[index], table[-1])


def make(m: ModuleType) -> Any:
    """A hand-written broken_ground for module `m`: it uses the module's result classes and the
    rule's own descriptions (the specs every resolution shares), and decides everything itself."""
    errata = m.resolve("broken_ground").notes
    steps = m._BOOK.parts["broken_ground"]
    mod, roll, change = steps[0].spec, steps[1].spec, steps[1].payload[1][0]
    mod_trace, roll_trace, change_trace = steps[0].trace, steps[1].trace, change[3]

    def broken_ground(
        DEX: int = 10, MOV: int = 10, moved: int = 0, weapon: str = "none", acrobatics: bool = False
    ) -> Any:
        for name, value, low, high in (("DEX", DEX, 0, 30), ("MOV", MOV, 0, 30), ("moved", moved, 0, 60)):
            if type(value) is not int or not low <= value <= high:
                raise m.RuleInputError(f"input `{name}` must be a whole number in {low}..{high}")
        if weapon not in _WEAPONS:
            raise m.RuleInputError("input `weapon` must be one of " + ", ".join(_WEAPONS))
        if not isinstance(acrobatics, bool):
            raise m.RuleInputError("input `acrobatics` must be True or False")
        values = {"DEX": DEX, "MOV": MOV, "moved": moved, "weapon": weapon, "acrobatics": acrobatics}
        effective: dict[str, int] = {}
        trace = []
        modifiers = []
        if not (moved > 0 or weapon != "none"):
            decided = 0
        elif moved == 0 and weapon in ("thrown", "missile", "laser"):
            decided = 1
        else:
            decided = -1
        trace.append(m.TraceEntry(mod_trace, decided, values, effective))
        dex = DEX
        if decided < 0:
            dex = DEX - 2
            modifiers.append(m.Modifier(mod, -2, "applied", None))
        effective["DEX"] = dex
        effective["MOV"] = MOV
        falls = moved * 2 > MOV
        trace.append(m.TraceEntry(roll_trace, -1 if falls else 0, values, effective))
        rolls = []
        if falls:
            trace.append(m.TraceEntry(change_trace, -1 if acrobatics else 0, values, effective))
            chance = _at_most(_AT_MOST_2D6, 2, dex) if acrobatics else _at_most(_AT_MOST_3D6, 3, dex)
            rolls.append(
                m.Roll(
                    spec=roll,
                    dice="2d6" if acrobatics else "3d6",
                    bonus=0,
                    comparison="<=",
                    target=dex,
                    probability=chance,
                    automatic=None,
                    outcomes=MappingProxyType({"success": chance, "failure": 1 - chance}),
                    margins=MappingProxyType({}),
                    totals=MappingProxyType({}),
                    successes=MappingProxyType({}),
                    needed=None,
                )
            )
        notes = errata
        if acrobatics and not falls:
            notes += (m.Note("broken_ground", "17.1", _UNREAD, None, "input"),)
        return m.Resolution(
            rulebook="skirmish_terrain",
            rules=("broken_ground",),
            inputs=values,
            stats={"DEX": dex, "MOV": MOV},
            derived={},
            modifiers=tuple(modifiers),
            rolls=tuple(rolls),
            restrictions=(),
            notes=notes,
            tables=(),
            trace=tuple(trace),
        )

    return broken_ground
