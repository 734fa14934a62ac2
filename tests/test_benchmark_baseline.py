"""The benchmark's hand-written baseline must stay equivalent to the generated resolver.

bench/benchmark.py compares their speed; the comparison means something only while both build
the same Resolution, so any change to the rulebook that the baseline misses fails here.
"""

from __future__ import annotations

import sys
from itertools import product
from types import ModuleType

from tests.conftest import ROOT


def test_hand_written_broken_ground_matches_the_generated_one(skirmish: ModuleType) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from handwritten import make
    finally:
        sys.path.remove(str(ROOT / "bench"))
    by_hand = make(skirmish)
    weapons = ("none", "melee", "thrown", "missile", "laser")
    for dex, mov, moved, weapon, acrobatics in product((8, 12), (6, 10), (0, 3, 6), weapons, (False, True)):
        situation = {"DEX": dex, "MOV": mov, "moved": moved, "weapon": weapon, "acrobatics": acrobatics}
        assert by_hand(**situation).to_dict() == skirmish.broken_ground(**situation).to_dict(), situation
