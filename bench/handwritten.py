"""Rules of the bundled books resolved by hand, the way a careful developer would write them in
Python: the conditions as plain `if`s, whole-number arithmetic, the dice tables worked out once.

Each builds the very same `Resolution` the generated resolver returns (tests/
test_benchmark_baseline.py checks they agree on thousands of situations per rule), so the
benchmark measures the cost of the generated code, not of a thinner result.  They use the
module's result classes and the rules' own descriptions (the specs every resolution shares,
read from the module's constants: `steps`), and decide everything themselves.

The dice tables are derived by enumerating the faces, never typed in: a typed-in 3d6 table was
once wrong for totals 13 to 17 unnoticed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from fractions import Fraction
from itertools import product
from math import ceil
from types import MappingProxyType, ModuleType
from typing import Any

HandWritten = Callable[..., Any]

NONE: MappingProxyType[Any, Any] = MappingProxyType({})


# ------------------------------------------------------------------ dice, by enumeration


def at_most_table(faces: Iterable[tuple[int, ...]], combine: Callable[[tuple[int, ...]], int]) -> dict[int, Fraction]:
    """P(result <= t) for every t from the lowest result to the highest, counting every way the
    dice can fall (`combine`: what the dice make, their sum or their lowest)."""
    ways: dict[int, int] = {}
    total = 0
    for roll in faces:
        result = combine(roll)
        ways[result] = ways.get(result, 0) + 1
        total += 1
    table = {}
    running = 0
    for result in range(min(ways), max(ways) + 1):
        running += ways.get(result, 0)
        table[result] = Fraction(running, total)
    return table


def dice(count: int, sides: int) -> Iterable[tuple[int, ...]]:
    return product(range(1, sides + 1), repeat=count)


def chance(table: dict[int, Fraction], target: int) -> Fraction:
    """P(result <= target) from an at-most table: 0 below its lowest result, 1 above its highest."""
    if target in table:
        return table[target]
    return Fraction(0) if target < min(table) else Fraction(1)


class Step:
    """One effect of a rule as its module describes it: its spec, its trace spec, and for a roll
    its changes (each a ChangeSpec, clauses, amount and trace spec), for a modifier its amount."""

    def __init__(self, spec: Any, trace: Any, changes: tuple[Any, ...], payload: Any) -> None:
        self.spec, self.trace, self.changes, self.payload = spec, trace, changes, payload


_SPECS = ("ModSpec", "RollSpec", "TextSpec", "DeriveSpec")


def steps(m: ModuleType, rule: str) -> list[Step]:
    """The effects of a rule, in its order, from the constants its module defines for them
    (`_RULE__mod1`, its `_trace`, a roll's `_step`); a grade modifier's payload is its grade."""
    found = []
    own = re.compile(rf"_{re.escape(rule)}__(mod|roll|text|derive)[0-9]+")
    for name, value in vars(m).items():
        if own.fullmatch(name) and type(value).__name__ in _SPECS:
            roll = vars(m).get(f"{name}_step")
            payload = value.text.rsplit(" ", 1)[-1] if getattr(value, "op", None) == "grade" else None
            found.append(Step(value, vars(m)[f"{name}_trace"], roll.changes if roll else (), payload))
    return found


def check(m: ModuleType, spec: Any, rolled: str, target: int, p: Fraction, **extra: Any) -> Any:
    """A roll of `rolled` at most `target`, succeeding with chance `p`."""
    return m.Roll(
        spec=spec,
        dice=rolled,
        bonus=0,
        comparison="<=",
        target=target,
        probability=p,
        automatic=None,
        outcomes=extra.pop("outcomes", None) or MappingProxyType({"success": p, "failure": 1 - p}),
        margins=NONE,
        totals=NONE,
        successes=NONE,
        needed=None,
        **extra,
    )


def whole_number(m: ModuleType, name: str, value: object, low: int, high: int) -> None:
    if type(value) is not int or not low <= value <= high:
        raise m.RuleInputError(f"input `{name}` must be a whole number in {low}..{high}")


def choice(m: ModuleType, name: str, value: object, members: tuple[str, ...]) -> None:
    if value not in members:
        raise m.RuleInputError(f"input `{name}` must be one of " + ", ".join(members))


def flag(m: ModuleType, name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise m.RuleInputError(f"input `{name}` must be True or False")


def unread(m: ModuleType, rule: str, source: str, name: str, where: str) -> Any:
    return m.Note(rule, source, f"`{name}` had no effect: it is read only {where}", None, "input")


_2D6 = at_most_table(dice(2, 6), sum)
_3D6 = at_most_table(dice(3, 6), sum)
_D6 = at_most_table(dice(1, 6), sum)
_LOWEST_2D6 = at_most_table(dice(2, 6), min)
_D20 = at_most_table(dice(1, 20), sum)
# one d20 above a target: the lowest of n d20 is above it only if every die is
_D20_ABOVE = {target: 1 - p for target, p in _D20.items()}


def lowest_d20(count: int, target: int) -> Fraction:
    """P(the lowest of `count` d20 <= target) = 1 - P(one die > target) ** count."""
    if target < 1:
        return Fraction(0)
    return 1 - _D20_ABOVE[min(target, 20)] ** count


def brp_table(low: int, high: int) -> dict[int, tuple[Fraction, MappingProxyType[str, Fraction]]]:
    """For each target: the chance of d100 <= target, and of each degree of success, face by
    face: critical <= target/20 and special <= target/5 (rounded to nearest), fumble on 100,
    success <= target, failure otherwise; the first that fits."""
    table = {}
    for target in range(low, high + 1):
        critical = (Fraction(target, 20) + Fraction(1, 2)).__floor__()
        special = (Fraction(target, 5) + Fraction(1, 2)).__floor__()
        counts = {"critical": 0, "special": 0, "fumble": 0, "success": 0, "failure": 0}
        succeeds = 0
        for face in range(1, 101):
            if face <= critical:
                counts["critical"] += 1
            elif face <= special:
                counts["special"] += 1
            elif face >= 100:
                counts["fumble"] += 1
            elif face <= target:
                counts["success"] += 1
            else:
                counts["failure"] += 1
            succeeds += face <= target
        outcomes = MappingProxyType({k: Fraction(v, 100) for k, v in counts.items()})
        table[target] = (Fraction(succeeds, 100), outcomes)
    return table


def merged(trace: Any, outer: Any) -> Any:
    """The trace spec of a step of a composed rule, with the clauses of the `as` around it first."""
    if not outer.clauses:
        return trace
    return type(trace)(trace.rule, trace.source, trace.item, outer.clauses + trace.clauses, outer.names + trace.names)


# ------------------------------------------------------------------ skirmish_terrain


def make_broken_ground(m: ModuleType) -> HandWritten:
    """Broken ground (17.1): DEX -2 unless still with a thrown or missile weapon; a fall roll,
    3d6 (2d6 with Acrobatics) at most DEX, for moving more than half the MOV."""
    errata = m.resolve("broken_ground").notes
    found = steps(m, "broken_ground")
    mod, roll, change = found[0].spec, found[1].spec, found[1].changes[0]
    mod_trace, roll_trace, change_trace = found[0].trace, found[1].trace, change[3]
    weapons = ("none", "melee", "thrown", "missile", "laser")
    no_effect = unread(m, "broken_ground", "17.1", "acrobatics", "when moved > MOV / 2")

    def broken_ground(
        DEX: int = 10, MOV: int = 10, moved: int = 0, weapon: str = "none", acrobatics: bool = False
    ) -> Any:
        whole_number(m, "DEX", DEX, 0, 30)
        whole_number(m, "MOV", MOV, 0, 30)
        whole_number(m, "moved", moved, 0, 60)
        choice(m, "weapon", weapon, weapons)
        flag(m, "acrobatics", acrobatics)
        values: dict[str, Any] = {"DEX": DEX, "MOV": MOV, "moved": moved, "weapon": weapon, "acrobatics": acrobatics}
        effective: dict[str, int] = {}
        if not (moved > 0 or weapon != "none"):
            decided = 0
        elif moved == 0 and weapon in ("thrown", "missile", "laser"):
            decided = 1
        else:
            decided = -1
        trace = [m.TraceEntry(mod_trace, decided, values, effective)]
        modifiers: tuple[Any, ...] = ()
        dex = DEX
        if decided < 0:
            dex = DEX - 2
            modifiers = (m.Modifier(mod, -2, "applied", None),)
        effective["DEX"] = dex
        effective["MOV"] = MOV
        falls = moved * 2 > MOV
        trace.append(m.TraceEntry(roll_trace, -1 if falls else 0, values, effective))
        rolls: tuple[Any, ...] = ()
        if falls:
            trace.append(m.TraceEntry(change_trace, -1 if acrobatics else 0, values, effective))
            if acrobatics:
                rolls = (check(m, roll, "2d6", dex, chance(_2D6, dex)),)
            else:
                rolls = (check(m, roll, "3d6", dex, chance(_3D6, dex)),)
        notes = (*errata, no_effect) if acrobatics and not falls else errata
        return m.Resolution(
            rulebook="skirmish_terrain",
            rules=("broken_ground",),
            inputs=values,
            stats={"DEX": dex, "MOV": MOV},
            derived={},
            modifiers=modifiers,
            rolls=rolls,
            restrictions=(),
            notes=notes,
            tables=(),
            trace=tuple(trace),
        )

    return broken_ground


# ------------------------------------------------------------------ terrain_cards


def make_lof_roll(m: ModuleType) -> HandWritten:
    """The roll that requires LoF: the attribute with the Range and other MODs, a d20 at most it,
    and for a BS Attack the Burst dice (the lowest of B d20 at most it); no roll into a Zero
    Visibility Zone, but for a BS Attack in response, facing the attacker."""
    range_step, other_step, stack_note = steps(m, "other_mods_stack")
    zero_step, lof_step, hit_step, lof_note = steps(m, "lof_roll")
    changes = [change[3] for change in hit_step.changes]  # when burst == 1 .. 5: -5 .. -1 dice
    notes_of = {
        True: (stack_note.spec, zero_step.spec, lof_note.spec),
        False: (stack_note.spec, lof_note.spec),
    }
    notes = {
        zero: tuple(m.Note(s.rule, s.source, s.text, s.quote, s.kind) for s in specs)
        for zero, specs in notes_of.items()
    }
    where = "when lof_skill != none"
    gated = [
        ("range_mod", unread(m, "other_mods_stack", "VIS", "range_mod", where)),
        ("other_mods", unread(m, "other_mods_stack", "VIS", "other_mods", where)),
        ("lof_zone", unread(m, "lof_roll", "VIS", "lof_zone", where)),
        ("responding", unread(m, "lof_roll", "VIS", "responding", where)),
        ("facing", unread(m, "lof_roll", "VIS", "facing", where)),
    ]
    defaults = {"range_mod": 0, "other_mods": 0, "lof_zone": "through", "responding": False, "facing": True}
    levels = ("none", "low", "poor", "zero")

    def lof_roll(
        attribute: int = 12,
        burst: int = 3,
        vis: str = "none",
        lof_skill: str = "bs_attack",
        lof_zone: str = "through",
        range_mod: int = 0,
        other_mods: int = 0,
        responding: bool = False,
        facing: bool = True,
    ) -> Any:
        whole_number(m, "attribute", attribute, 0, 30)
        whole_number(m, "burst", burst, 1, 6)
        choice(m, "vis", vis, levels)
        choice(m, "lof_skill", lof_skill, ("none", "bs_attack", "other"))
        choice(m, "lof_zone", lof_zone, ("clear_of", "from", "into", "through"))
        whole_number(m, "range_mod", range_mod, -6, 6)
        whole_number(m, "other_mods", other_mods, -12, 12)
        flag(m, "responding", responding)
        flag(m, "facing", facing)
        values: dict[str, Any] = {
            "attribute": attribute,
            "burst": burst,
            "vis": vis,
            "lof_skill": lof_skill,
            "lof_zone": lof_zone,
            "range_mod": range_mod,
            "other_mods": other_mods,
            "responding": responding,
            "facing": facing,
        }
        effective: dict[str, Any] = {}
        declared = lof_skill != "none"
        modifiers = []
        if not declared:
            by_range = by_other = 0
        else:
            by_range = 1 if range_mod == 0 else -1
            by_other = 1 if other_mods == 0 else -1
        trace = [
            m.TraceEntry(range_step.trace, by_range, values, effective),
            m.TraceEntry(other_step.trace, by_other, values, effective),
        ]
        if by_range < 0:
            attribute += range_mod
            modifiers.append(m.Modifier(range_step.spec, range_mod, "applied", None))
        if by_other < 0:
            attribute += other_mods
            modifiers.append(m.Modifier(other_step.spec, other_mods, "applied", None))
        effective["attribute"] = attribute
        effective["burst"] = burst
        effective["vis"] = vis
        zero = vis == "zero" and lof_zone != "clear_of" and not (responding and facing and lof_skill == "bs_attack")
        rolls = []
        if not declared:
            trace.append(m.TraceEntry(lof_step.trace, 0, values, effective))
            trace.append(m.TraceEntry(hit_step.trace, 0, values, effective))
        elif zero:
            trace.append(m.TraceEntry(lof_step.trace, 1, values, effective))
            trace.append(m.TraceEntry(hit_step.trace, 1, values, effective))
        else:
            trace.append(m.TraceEntry(lof_step.trace, -1, values, effective))
            rolls.append(check(m, lof_step.spec, "1d20", attribute, chance(_D20, attribute)))
            if lof_skill == "bs_attack":
                trace.append(m.TraceEntry(hit_step.trace, -1, values, effective))
                for at, change in enumerate(changes, start=1):
                    trace.append(m.TraceEntry(change, -1 if burst == at else 0, values, effective))
                p = lowest_d20(burst, attribute)
                rolls.append(check(m, hit_step.spec, f"lowest of {burst}d20", attribute, p))
            else:
                trace.append(m.TraceEntry(hit_step.trace, 2, values, effective))
        trace.append(m.TraceEntry(zero_step.trace, 0 if not declared else -1 if zero else 1, values, effective))
        found = notes[declared and zero]
        if not declared:
            found += tuple(note for name, note in gated if values[name] != defaults[name])
        return m.Resolution(
            rulebook="terrain_cards",
            rules=("lof_roll",),
            inputs=values,
            stats={"attribute": attribute, "burst": burst, "vis": vis},
            derived={},
            modifiers=tuple(modifiers),
            rolls=tuple(rolls),
            restrictions=(),
            notes=found,
            tables=(),
            trace=tuple(trace),
        )

    return lof_roll


# ------------------------------------------------------------------ the BRP spot rules


def grade_of(easy: int, harder: int, impossible: bool, ladder: tuple[int, ...]) -> str | None:
    """The grade that stands for several: impossible over all; else the net of the steps (easy
    +1, difficult -1, one fifth -2, ...) read on the ladder, the nearest grade on its side; None
    when they cancel out."""
    if impossible:
        return "impossible"
    net = easy - harder
    if net == 0:
        return None
    if net > 0:
        return "easy"
    return ("difficult", "one_fifth", "one_tenth")[min(-net, len(ladder)) - 1]


def graded(value: int, grade: str | None) -> int:
    if grade is None:
        return value
    if grade == "easy":
        return value * 2
    if grade == "impossible":
        return 0
    return ceil(Fraction(value, {"difficult": 2, "one_fifth": 5, "one_tenth": 10}[grade]))


def make_skill_roll(m: ModuleType) -> HandWritten:
    """Skill rolls: Easy doubles, Difficult halves (round up), 1/5 (round up), Impossible is 0;
    Easy and Difficult cancel; d100 at most the skill, with degrees of success."""
    easy_step, difficult_step, fifth_step, impossible_step, roll_step, note, erratum = steps(m, "skill_roll")
    grade_steps = (easy_step, difficult_step, fifth_step, impossible_step)
    notes = tuple(m.Note(s.spec.rule, s.spec.source, s.spec.text, s.spec.quote, s.spec.kind) for s in (note, erratum))
    chances = brp_table(0, 400)  # skill 0..200, doubled when Easy

    def skill_roll(
        skill: int = 50,
        easy: bool = False,
        difficult: bool = False,
        at_one_fifth: bool = False,
        impossible: bool = False,
    ) -> Any:
        whole_number(m, "skill", skill, 0, 200)
        flag(m, "easy", easy)
        flag(m, "difficult", difficult)
        flag(m, "at_one_fifth", at_one_fifth)
        flag(m, "impossible", impossible)
        values: dict[str, Any] = {
            "skill": skill,
            "easy": easy,
            "difficult": difficult,
            "at_one_fifth": at_one_fifth,
            "impossible": impossible,
        }
        effective: dict[str, int] = {}
        held = (easy, difficult, at_one_fifth, impossible)
        trace = [
            m.TraceEntry(step.trace, -1 if on else 0, values, effective)
            for step, on in zip(grade_steps, held, strict=True)
        ]
        grade = grade_of(int(easy), int(difficult) + 2 * int(at_one_fifth), impossible, (1, 2))
        if impossible:
            reason = "skill_roll: impossible"
            modifiers = tuple(
                m.Modifier(
                    step.spec,
                    step.payload,
                    "applied" if step is impossible_step else "overridden",
                    None if step is impossible_step else reason,
                )
                for step, on in zip(grade_steps, held, strict=True)
                if on
            )
        elif grade is None:
            modifiers = tuple(
                m.Modifier(step.spec, step.payload, "suppressed", "grades cancel one another")
                for step, on in zip(grade_steps, held, strict=True)
                if on
            )
        else:
            modifiers = tuple(
                m.Modifier(step.spec, step.payload, "applied", None)
                for step, on in zip(grade_steps, held, strict=True)
                if on
            )
        value = graded(skill, grade)
        effective["skill"] = value
        trace.append(m.TraceEntry(roll_step.trace, -1, values, effective))
        p, outcomes = chances[value]
        return m.Resolution(
            rulebook="spot_rules_a_to_e",
            rules=("skill_roll",),
            inputs=values,
            stats={"skill": value},
            derived={},
            modifiers=modifiers,
            rolls=(check(m, roll_step.spec, "1d100", value, p, outcomes=outcomes),),
            restrictions=(),
            notes=notes,
            tables=(),
            trace=tuple(trace),
        )

    return skill_roll


def make_shooting_up_or_down(m: ModuleType) -> HandWritten:
    """Shooting up or down: Difficult past 45 degrees, -10% up, +10% down, never below 0; the
    range halved straight overhead; the attack roll, d100 at most the skill."""
    (roll_step,) = steps(m, "attack")
    difficult, up, overhead, down, floor, *texts = steps(m, "shooting_up_or_down")
    notes = tuple(m.Note(s.spec.rule, s.spec.source, s.spec.text, s.spec.quote, s.spec.kind) for s in texts)
    no_effect = (
        unread(
            m,
            "shooting_up_or_down",
            "Shooting Up or Down",
            "base_range",
            "when shot_direction == upward; when shot_angle == 90",
        ),
    )
    chances = brp_table(0, 210)  # skill 0..200, +10% down
    directions = ("level", "upward", "downward")

    def shooting_up_or_down(
        skill: int = 50, base_range: int = 50, shot_angle: int = 0, shot_direction: str = "level"
    ) -> Any:
        whole_number(m, "skill", skill, 0, 200)
        whole_number(m, "base_range", base_range, 1, 5000)
        whole_number(m, "shot_angle", shot_angle, 0, 90)
        choice(m, "shot_direction", shot_direction, directions)
        values: dict[str, Any] = {
            "skill": skill,
            "base_range": base_range,
            "shot_angle": shot_angle,
            "shot_direction": shot_direction,
        }
        effective: dict[str, Any] = {}
        steep = shot_angle > 45
        upward = shot_direction == "upward"
        downward = shot_direction == "downward"
        trace = [
            m.TraceEntry(difficult.trace, -1 if steep else 0, values, effective),
            m.TraceEntry(up.trace, -1 if upward else 0, values, effective),
            m.TraceEntry(down.trace, -1 if downward else 0, values, effective),
            m.TraceEntry(floor.trace, -1, values, effective),
        ]
        modifiers = []
        value = skill
        if steep:
            modifiers.append(m.Modifier(difficult.spec, "difficult", "applied", None))
        if upward:
            value -= 10
            modifiers.append(m.Modifier(up.spec, -10, "applied", None))
        elif downward:
            value += 10
            modifiers.append(m.Modifier(down.spec, 10, "applied", None))
        modifiers.append(m.Modifier(floor.spec, 0, "applied", None))
        if steep:
            value = -(-value // 2)
        value = max(value, 0)
        effective["skill"] = value
        derived = {}
        if not upward:
            trace.append(m.TraceEntry(overhead.trace, 0, values, effective))
        elif shot_angle != 90:
            trace.append(m.TraceEntry(overhead.trace, 1, values, effective))
        else:
            trace.append(m.TraceEntry(overhead.trace, -1, values, effective))
            half = Fraction(base_range, 2)
            effective["overhead_range"] = derived["overhead_range"] = half.numerator if half.denominator == 1 else half
        trace.append(m.TraceEntry(roll_step.trace, -1, values, effective))
        p, outcomes = chances[value]
        read = upward and shot_angle == 90
        return m.Resolution(
            rulebook="spot_rules_e_to_z",
            rules=("shooting_up_or_down",),
            inputs=values,
            stats={"skill": value},
            derived=derived,
            modifiers=tuple(modifiers),
            rolls=(check(m, roll_step.spec, "1d100", value, p, outcomes=outcomes),),
            restrictions=(),
            notes=notes if read or base_range == 50 else notes + no_effect,
            tables=(),
            trace=tuple(trace),
        )

    return shooting_up_or_down


# ------------------------------------------------------------------ mecha_tables


IMPACT_DM = (  # impact speed from .. to: ground, air/space DM modifier
    (1, 2, "1..2", -2, 0),
    (3, 4, "3..4", -1, 1),
    (5, 6, "5..6", 0, 2),
    (7, 9, "7..9", 1, 3),
    (10, 19, "10..19", 2, 4),
    (20, 99, "20..99", 3, 5),
    (100, None, "100+", 4, 6),
)


def make_ramming(m: ModuleType) -> HandWritten:
    """Ramming: the impact speed (the sum head on, the difference from the rear, the rammer's
    speed from the side), and the DM: the vehicle's size plus the Impact Speed table's modifier;
    no ram from the rear at equal speeds."""
    head_on, rear, no_ram, air, ground, *texts = steps(m, "ramming")
    notes = tuple(m.Note(s.spec.rule, s.spec.source, s.spec.text, s.spec.quote, s.spec.kind) for s in texts)
    restriction = m.Restriction(no_ram.spec.rule, no_ram.spec.source, no_ram.spec.text)
    source = m.RULES["impact_dm"].source
    no_effect = unread(
        m, "ramming", "RAMMING", "air_space", "unless ram_direction == rear and own_speed == other_speed"
    )

    def impact_dm(speed: int, column: int) -> tuple[int, Any]:
        for low, high, key, *columns in IMPACT_DM:
            if low <= speed and (high is None or speed <= high):
                looked = m.TraceSpec(
                    "impact_dm",
                    source,
                    f"look up impact_dm: row {key}",
                    (f"impact_dm[{speed}]",),
                    (("impact_speed",),),
                    f"row {key}",
                )
                return columns[column], looked
        raise m.RuleInputError(f"table `impact_dm` has no row for {speed}")

    def ramming(
        vehicle_size: int = 8,
        ram_direction: str = "head_on",
        own_speed: int = 1,
        other_speed: int = 0,
        air_space: bool = False,
        impact_speed: int | None = None,
        ram_dm: int | None = None,
    ) -> Any:
        whole_number(m, "vehicle_size", vehicle_size, 1, 100)
        choice(m, "ram_direction", ram_direction, ("head_on", "side", "rear"))
        whole_number(m, "own_speed", own_speed, 1, 1000)
        whole_number(m, "other_speed", other_speed, 0, 1000)
        flag(m, "air_space", air_space)
        if impact_speed is not None:
            whole_number(m, "impact_speed", impact_speed, 1, 2000)
        if ram_dm is not None:
            whole_number(m, "ram_dm", ram_dm, 0, 200)
        values: dict[str, Any] = {
            "vehicle_size": vehicle_size,
            "ram_direction": ram_direction,
            "own_speed": own_speed,
            "other_speed": other_speed,
            "air_space": air_space,
            "impact_speed": own_speed if impact_speed is None else impact_speed,
            "ram_dm": vehicle_size if ram_dm is None else ram_dm,
        }
        effective: dict[str, int] = {}
        speed = values["impact_speed"]
        is_head_on = ram_direction == "head_on"
        is_rear = ram_direction == "rear"
        trace = [
            m.TraceEntry(head_on.trace, -1 if is_head_on else 0, values, effective),
            m.TraceEntry(rear.trace, -1 if is_rear else 0, values, effective),
        ]
        modifiers = []
        if is_head_on:
            speed += other_speed
            modifiers.append(m.Modifier(head_on.spec, other_speed, "applied", None))
        elif is_rear:
            speed = abs(own_speed - other_speed)
            modifiers.append(m.Modifier(rear.spec, speed, "applied", None))
        effective["impact_speed"] = speed
        dm = values["ram_dm"]
        stopped = is_rear and own_speed == other_speed
        if stopped:
            trace.append(m.TraceEntry(air.trace, 0, values, effective))
            trace.append(m.TraceEntry(ground.trace, 0, values, effective))
        else:
            step = air if air_space else ground
            trace.append(m.TraceEntry(air.trace, -1 if air_space else 1, values, effective))
            if not air_space:
                trace.append(m.TraceEntry(ground.trace, -1, values, effective))
            amount, looked = impact_dm(speed, 1 if air_space else 0)
            trace.append(m.TraceEntry(looked, -1, values, effective))
            if air_space:
                trace.append(m.TraceEntry(ground.trace, 1, values, effective))
            dm += amount
            modifiers.append(m.Modifier(step.spec, amount, "applied", None))
        effective["ram_dm"] = dm
        trace.append(m.TraceEntry(no_ram.trace, -1 if stopped else 0, values, effective))
        return m.Resolution(
            rulebook="mecha_tables",
            rules=("ramming",),
            inputs=values,
            stats={"impact_speed": speed, "ram_dm": dm},
            derived={},
            modifiers=tuple(modifiers),
            rolls=(),
            restrictions=(restriction,) if stopped else (),
            notes=(*notes, no_effect) if stopped and air_space else notes,
            tables=(),
            trace=tuple(trace),
        )

    return ramming


# ------------------------------------------------------------------ zone_combat


def make_zone_move(m: ModuleType) -> HandWritten:
    """A zone move: d6 at most the Pace (the lower of 2d6 when running, -3 for a second move);
    running costs -2 to all actions and counts as Dodging missile fire; a second move stays
    among the Medium, Short and Close zones."""
    roll_step, all_step, missile_step, no_second, *texts = steps(m, "zone_move")
    spec = roll_step.spec
    run_trace, second_trace = (change[3] for change in roll_step.changes)
    notes = tuple(m.Note(s.spec.rule, s.spec.source, s.spec.text, s.spec.quote, s.spec.kind) for s in texts)
    restriction = (m.Restriction(no_second.spec.rule, no_second.spec.source, no_second.spec.text),)
    zones = ("close", "short", "medium", "long", "flank")
    far = ("long", "flank")

    def zone_move(
        pace: int = 6,
        move_target: int | None = None,
        all_actions: int = 0,
        missile_against: int = 0,
        zone: str = "medium",
        destination: str = "short",
        running: bool = False,
        second_move: bool = False,
    ) -> Any:
        whole_number(m, "pace", pace, -10, 12)
        if move_target is not None:
            whole_number(m, "move_target", move_target, -10, 12)
        whole_number(m, "all_actions", all_actions, -20, 20)
        whole_number(m, "missile_against", missile_against, -20, 20)
        choice(m, "zone", zone, zones)
        choice(m, "destination", destination, zones)
        flag(m, "running", running)
        flag(m, "second_move", second_move)
        target = pace if move_target is None else move_target
        values: dict[str, Any] = {
            "pace": pace,
            "move_target": target,
            "all_actions": all_actions,
            "missile_against": missile_against,
            "zone": zone,
            "destination": destination,
            "running": running,
            "second_move": second_move,
        }
        effective = {"pace": pace, "move_target": target}
        decided = -1 if running else 0
        trace = [
            m.TraceEntry(all_step.trace, decided, values, effective),
            m.TraceEntry(missile_step.trace, decided, values, effective),
            m.TraceEntry(roll_step.trace, -1, values, effective),
            m.TraceEntry(run_trace, decided, values, effective),
            m.TraceEntry(second_trace, -1 if second_move else 0, values, effective),
        ]
        if running:
            all_actions -= 2
            missile_against -= 1
            modifiers: tuple[Any, ...] = (
                m.Modifier(all_step.spec, -2, "applied", None),
                m.Modifier(missile_step.spec, -1, "applied", None),
            )
        else:
            modifiers = ()
        effective["all_actions"] = all_actions
        effective["missile_against"] = missile_against
        goal = target - 3 if second_move else target
        p = chance(_LOWEST_2D6 if running else _D6, goal)
        roll = check(m, spec, "lowest of 2d6" if running else "1d6", goal, p)
        stopped = second_move and (zone in far or destination in far)
        trace.append(m.TraceEntry(no_second.trace, -1 if stopped else 0, values, effective))
        return m.Resolution(
            rulebook="zone_combat",
            rules=("zone_move",),
            inputs=values,
            stats={"pace": pace, "move_target": target, "all_actions": all_actions, "missile_against": missile_against},
            derived={},
            modifiers=modifiers,
            rolls=(roll,),
            restrictions=restriction if stopped else (),
            notes=notes,
            tables=(),
            trace=tuple(trace),
        )

    return zone_move


HAND_WRITTEN: dict[str, tuple[str, Callable[[ModuleType], HandWritten]]] = {
    "broken_ground": ("skirmish_terrain", make_broken_ground),
    "lof_roll": ("terrain_cards", make_lof_roll),
    "skill_roll": ("spot_rules_a_to_e", make_skill_roll),
    "shooting_up_or_down": ("spot_rules_e_to_z", make_shooting_up_or_down),
    "ramming": ("mecha_tables", make_ramming),
    "zone_move": ("zone_combat", make_zone_move),
}
"""Each rule written by hand: the bundled book it is in, and the function that writes it for
that book's module."""
