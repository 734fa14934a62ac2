"""Chains: the whole procedure from a table or an outcome that sends on, against brute force.

Every chain of every bundled rulebook is worked out a second way, independently of the runtime:
from the checked model (not the generated module), every sequence of die faces is enumerated
(no simulation), each face tuple followed through the rows and steps it reaches.  A roll twice
enumerates its two rolls among the face tuples that do not give a roll-twice row (rolled again:
each remaining tuple is equally likely).  The outcome of a sequence is its tree of rows, the two
rolls of a roll twice unordered.  Complete chains must agree exactly; a chain that can repeat must
agree on every way of at most its depth (CHAIN_DEPTH, or the `chain depth` its table states)
rolls in a row and on the chance of the rest, and its closed-form expected number of rolls must lie between the enumerated sum and that sum plus a
geometric bound on the tail.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator
from fractions import Fraction
from types import ModuleType

import pytest

from dsl import model as m
from dsl.compiler import compile_text
from tests.conftest import RULEBOOKS, compiled, module_for, module_from_text, run_cli

BOOKS = sorted(RULEBOOKS.glob("*.rules"))

Tree = tuple[str, tuple["Tree", ...]]


def _faces(pool: object) -> Iterator[int]:
    assert isinstance(pool, object)
    count, sides, keep = pool.count, pool.sides, pool.keep  # type: ignore[attr-defined]
    assert keep is None, "a chained table rolled with kept dice: extend the enumeration"
    for faces in itertools.product(range(1, sides + 1), repeat=count):
        yield sum(faces)


def _row(table: m.Table, total: int) -> m.TableRow:
    for row in table.rows:
        if row.low is not None and row.low <= total and (row.high is None or total <= row.high):
            return row
    raise AssertionError(f"{table.name}: no row for {total}")


def _steps(table: m.Table, total: int) -> tuple[m.TableRow, str, list[m.Step]]:
    """The row a modified total reads, its key as the runtime names it, and its steps."""
    folded = table.overflow is not None and total > table.overflow.above
    if folded:
        assert table.overflow is not None
        row = _row(table, table.overflow.becomes)
        key = f"above {table.overflow.above} as {row.key_text()}"
        steps = [c.step for c in row.cells if c.step is not None]
        steps += [table.overflow.step] if table.overflow.step else []
        return row, key, steps
    row = _row(table, total)
    return row, row.key_text(), [c.step for c in row.cells if c.step is not None]


Ways = dict[Tree | None, Fraction]


def brute(
    book: m.Book,
    name: str,
    offset: int,
    depth: int,
    limit: int | None,
    twice: bool = False,
    known: dict[tuple[str, int, int, bool], Ways] | None = None,
) -> Ways:
    """Every way one roll on `name` goes, by enumerating faces; None: more than `limit` rolls.
    (`known`: the ways already enumerated in this walk, by table, offset, depth and twice.)"""
    if limit is not None and depth >= limit:
        return {None: Fraction(1)}
    if known is None:
        known = {}
    place = (name, offset, depth, twice)
    if place not in known:
        known[place] = _enumerated(book, name, offset, depth, limit, twice, known)
    return known[place]


def _enumerated(
    book: m.Book,
    name: str,
    offset: int,
    depth: int,
    limit: int | None,
    twice: bool,
    known: dict[tuple[str, int, int, bool], Ways],
) -> Ways:
    table = book.tables[name]
    faces = list(_faces(table.pool))
    kept = []
    for face in faces:
        _, _, steps = _steps(table, face + offset)
        if twice and any(s.kind == "twice" for s in steps):
            continue
        kept.append(face)
    found: dict[Tree | None, Fraction] = {}
    for face in kept:
        _, key, steps = _steps(table, face + offset)
        branches: list[dict[Tree | None, Fraction]] = []
        for step in steps:
            if step.kind == "twice":
                branches += [brute(book, name, offset, depth + 1, limit, True, known)] * 2
            else:
                target = step.table or name
                branches.append(brute(book, target, step.offset, depth + 1, limit, False, known))
        for combo in itertools.product(*[list(b.items()) for b in branches]):
            chance = Fraction(1, len(kept))
            children: list[Tree] = []
            cut = False
            for child, p in combo:
                chance *= p
                if child is None:
                    cut = True
                else:
                    children.append(child)
            if any(s.kind == "twice" for s in steps):
                children.sort(key=repr)
            tree: Tree | None = None if cut else (f"{name} {key}", tuple(children))
            found[tree] = found.get(tree, Fraction(0)) + chance
    return found


def tree_of(path: list[tuple[str, int]]) -> Tree:
    """The runtime's path (rows in visit order with their depth) as a tree."""

    def build(index: int) -> tuple[Tree, int]:
        row, depth = path[index]
        children: list[Tree] = []
        index += 1
        while index < len(path) and path[index][1] > depth:
            child, index = build(index)
            children.append(child)
        return (row, tuple(children)), index

    tree, end = build(0)
    assert end == len(path)
    return tree


def canonical(tree: Tree, book: m.Book) -> Tree:
    """Sort the two rolls of each roll twice (the runtime and the enumeration agree on nothing else)."""
    row, children = tree
    kids = [canonical(c, book) for c in children]
    if len(kids) == 2 and kids[0][0].split()[0] == kids[1][0].split()[0] == row.split()[0]:
        kids.sort(key=repr)
    return (row, tuple(kids))


def _chained_tables(book: m.Book) -> list[m.Table]:
    return [
        t
        for t in book.tables.values()
        if t.pool is not None
        and (any(c.step is not None for r in t.rows for c in r.cells) or (t.overflow is not None and t.overflow.step))
    ]


def _cases() -> Iterator[tuple[str, str, int]]:
    for path in BOOKS:
        book = compiled(path).book
        assert book is not None
        for table in _chained_tables(book):
            offsets = [0]
            if table.modifier is not None:
                var = book.vars[table.modifier].type
                offsets = list(range(int(var.low), int(var.high) + 1))  # type: ignore[attr-defined]
            for offset in offsets:
                yield path.name, table.name, offset


CASES = list(_cases())


def test_every_bundled_chain_is_found() -> None:
    # mecha: light and heavy damage, Sub-table A at +0/+1, skidding fumbles; spot rules: Chase
    # Trouble at +0..+4; and so on.  The list must not silently shrink.
    tables = {(book, table) for book, table, _ in CASES}
    assert ("mecha_tables.rules", "heavy_damage") in tables
    assert ("mecha_tables.rules", "fire_control") in tables
    assert ("spot_rules_a_to_e.rules", "chase_trouble") in tables
    assert len([c for c in CASES if c[1] == "chase_trouble"]) == 5


def _module(book_name: str) -> ModuleType:
    return module_for(RULEBOOKS / book_name)


@pytest.mark.parametrize(("book_name", "table", "offset"), CASES)
def test_chain_against_enumeration(book_name: str, table: str, offset: int) -> None:
    book = compiled(RULEBOOKS / book_name).book
    assert book is not None
    spec = book.tables[table]
    given = {spec.modifier: offset * spec.modifier_sign} if spec.modifier else {}
    resolution = _module(book_name).resolve(table, **given)
    (chain,) = resolution.chains
    limit = chain.depth
    expected = brute(book, table, offset, 0, limit)
    got: dict[Tree | None, Fraction] = {}
    for outcome in chain.outcomes:
        tree = canonical(tree_of([(s.row, s.depth) for s in outcome.path]), book)
        got[tree] = got.get(tree, Fraction(0)) + outcome.probability
    if chain.beyond:
        got[None] = chain.beyond
    want = {canonical(k, book) if k is not None else None: v for k, v in expected.items()}
    assert got == want
    assert sum(got.values()) == 1
    assert chain.complete == (None not in want)


def _rolls(tree: Tree) -> int:
    return 1 + sum(_rolls(c) for c in tree[1])


@pytest.mark.parametrize("offset", range(5))
def test_chase_trouble_expected_rolls_bounded_by_enumeration(offset: int) -> None:
    # The closed form against a deeper enumeration (8 rolls in a row): the listed ways give at
    # least sum(rolls x chance); the rest, chance r, continues at most 6/10 per roll (from +4: a
    # 4 or 5 on the d10, or 7..10 folded), so it adds at most r x (8 + 1/(1 - 6/10)) rolls.
    book = compiled(RULEBOOKS / "spot_rules_a_to_e.rules").book
    assert book is not None
    (chain,) = _module("spot_rules_a_to_e.rules").resolve("chase_trouble", trouble_modifier=offset).chains
    ways = brute(book, "chase_trouble", offset, 0, 8)
    listed = sum((_rolls(t) * p for t, p in ways.items() if t is not None), Fraction(0))
    rest = ways.get(None, Fraction(0))
    assert chain.rolls is not None
    assert listed <= chain.rolls <= listed + rest * (8 + Fraction(5, 2))
    assert rest < Fraction(1, 1000)


def test_chase_trouble_closed_form_by_hand() -> None:
    # Three rolls: plain (A, +0), after a moderate fishtail (B, +2), after a severe one (C, +4);
    # a total folded above 10 rolls again plain.  Expected rolls:
    #   A = 1 + B/10 + C/10             (8 -> B, 9 -> C)
    #   B = 1 + B/10 + C/10 + 2A/10     (d10 6 -> 8, 7 -> 9, 9..10 -> 11..12 folded)
    #   C = 1 + B/10 + C/10 + 4A/10     (d10 4 -> 8, 5 -> 9, 7..10 -> 11..14 folded)
    # B - C = -A/5 from the last two; then C = 5/4 + 19A/40, B = 5/4 + 11A/40 and
    # 10A = 10 + 5/2 + 30A/40: 37A/4 = 25/2, A = 50/37.
    (chain,) = _module("spot_rules_a_to_e.rules").resolve("chase_trouble").chains
    assert chain.rolls == Fraction(50, 37)
    # A second roll: a plain 8 or 9 (2/10); a third: then 8, 9 or a fold again, 4/10 after +2 and
    # 6/10 after +4: 1/10 x 4/10 + 1/10 x 6/10 = 1/10.
    second = sum((o.probability for o in chain.outcomes if len(o.path) >= 2), Fraction(0)) + chain.beyond
    third = sum((o.probability for o in chain.outcomes if len(o.path) >= 3), Fraction(0)) + chain.beyond
    assert second == Fraction(1, 5)
    assert third == Fraction(1, 10)
    # The skill penalty next round, summed over the re-rolls.  Each roll's own: A and B
    # 3/10 x -20 - 10/10 - 15/10 - 30/10 = -23/2, C 2/10 x -20 - 1 - 3/2 - 3 = -19/2; the system
    # above with these for the 1s: 10A = -115 + B + C, B = C - 2 - A/5, C = -97/8 + 19A/40,
    # so 37A/4 = -565/4: A = -565/37.
    assert chain.means["penalty"] == Fraction(-565, 37)
    # A moderate fishtail, then a skid at +2 (a d10 of 2..4): -15 - 20 = -35, 1/10 x 3/10.
    (skid,) = [o for o in chain.outcomes if [s.key for s in o.path] == ["8", "4..6"]]
    assert skid.totals == {"penalty": -35}
    assert skid.probability == Fraction(3, 100)
    # No penalty at all: 1, 2, 3 or 10 on the first roll (4/10); or a moderate fishtail is
    # never free (-15): the chance of a total 0 is exactly 4/10.
    assert chain.distribution("penalty")[0] == Fraction(2, 5)


def test_heavy_hit_chain_reaction_by_hand() -> None:
    # Heavy damage 1 (1/6), Sub-table A at d6 + 1: 6 + 1 = 7 (1/6), ammunition hit 4..6 (1/2):
    # 1/6 x 1/6 x 1/2 = 1/72 without any roll twice.
    (chain,) = _module("mecha_tables.rules").resolve("heavy_damage").chains
    direct = [o for o in chain.outcomes if [s.row for s in o.path] == ["heavy_damage 1", "fire_control 7", "ammunition_hit 4..6"]]
    assert [o.probability for o in direct] == [Fraction(1, 72)]
    # With roll twice (a roll-twice row met by one of the two rolls is rolled again):
    #   Sub-table A rolled for a roll twice (rows 2, 3, 4, 5, 7 alike): 1/5 x 1/2 = 1/10;
    #   Sub-table A at +1: 1/6 x 1/2 + 1/6 x (1 - (9/10)^2) = 1/12 + 19/600 = 23/200;
    #   Heavy Damage rolled for a roll twice (rows 1..5 alike): 1/5 x 23/200 = 23/1000;
    #   Heavy Damage: 1/6 x 23/200 + 1/6 x (1 - (977/1000)^2) = 23/1200 + 45471/6000000
    #   = 160471/6000000, about 2.67% (against 1/72, about 1.39%).
    assert chain.chance("ammunition_hit 4..6") == Fraction(160471, 6000000)


def test_random_hostility_level_then_game_conditions_then_damage_value() -> None:
    # Each level's Game Conditions "on N or more" is a d20 + (20 - N) reaching 20:
    # 5/20 x 1/20 + 5/20 x 2/20 + 4/20 x 3/20 + 3/20 x 4/20 + 2/20 x 5/20 + 1/20 x 7/20
    # = (5 + 10 + 12 + 12 + 10 + 7)/400 = 56/400 = 7/50; a Damage Value of 15 (1/20): 7/1000.
    (chain,) = _module("terrain_cards.rules").resolve("hostility_level").chains
    assert chain.chance("game_conditions 20+") == Fraction(7, 50)
    assert chain.chance("damage_value 15") == Fraction(7, 1000)
    # Rolls: the level, its Game Conditions, and a Damage Value in 7/50: 2 + 7/50 = 107/50.
    assert chain.rolls == Fraction(107, 50)
    # The trait's own roll sends on the same way: Savage strikes on 14..20 (7/20).
    module = _module("terrain_cards.rules")
    (strike,) = module.resolve("savage").chains
    assert strike.probability == Fraction(7, 20)
    assert strike.chance("damage_value 15") == Fraction(7, 400)


def test_roll_outcome_chain_is_scaled_by_its_chance() -> None:
    # A ram with Drive 40: the maneuver roll fails on 41..100 of the d100 (60/100 = 3/5), then
    # the Chase Trouble chain: each way's chance is 3/5 of the table's own.
    module = _module("spot_rules_a_to_e.rules")
    resolution = module.resolve("maneuvers", maneuver="ram", skill=40)
    roll = resolution.roll("maneuver_roll")
    (chain,) = [c for c in resolution.chains if c.start == "roll maneuver_roll: failure"]
    (alone,) = module.resolve("chase_trouble").chains
    assert chain.probability == roll.outcomes["failure"]
    assert [o.probability for o in chain.outcomes] == [o.probability * chain.probability for o in alone.outcomes]
    assert chain.beyond == alone.beyond * chain.probability


def test_a_row_given_starts_the_chain_there() -> None:
    # A 6 on Heavy Damage: roll twice, two rolls among rows 1..5 (each 1/5): a pair of 3s is
    # 1/5 x 1/5 = 1/25; a 3 and a 4 in either order 2/25.
    (chain,) = _module("mecha_tables.rules").resolve("heavy_damage", roll=6).chains
    by_rows = {tuple(s.row for s in o.path): o.probability for o in chain.outcomes}
    assert by_rows[("heavy_damage 6", "heavy_damage 3", "heavy_damage 3")] == Fraction(1, 25)
    assert by_rows[("heavy_damage 6", "heavy_damage 3", "heavy_damage 4")] == Fraction(2, 25)
    assert sum(by_rows.values()) == 1


def test_looked_up_row_that_sends_on() -> None:
    # Damage band 2 is heavy damage: the chain is Heavy Damage's, after the row looked up.
    module = _module("mecha_tables.rules")
    (chain,) = module.resolve("damage_effects", damage_band=2).chains
    (heavy,) = module.resolve("heavy_damage").chains
    assert [o.probability for o in chain.outcomes] == [o.probability for o in heavy.outcomes]
    assert all(o.path[0].row == "damage_effects 2" for o in chain.outcomes)


def test_describe_shows_the_flow() -> None:
    # Heavy Damage 1 (1/6), Sub-table A at d6 + 1: its 7 is reached in 1/6 x 1/6 = 1/36, and the
    # chain reaction in 1/72.  Expected rolls: Sub-table A for a roll twice 1 + 1/5 (a 7: the
    # ammunition d6) = 6/5; Sub-table A at +1: 1 + 2/6 x 6/5 + 1/6 = 47/30; Sub-table B 1; Heavy
    # Damage for a roll twice 1 + 47/150 + 1/5 = 227/150; Heavy Damage
    # 1 + 47/180 + 1/6 + 2/6 x 227/150 = (900 + 235 + 150 + 454)/900 = 1739/900.
    result = run_cli("describe", "mecha_tables", "heavy_damage")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    start = lines.index("chain from table heavy_damage (1d6):")
    assert lines[start + 1] == "  d6 on heavy_damage:"
    assert lines[start + 2].startswith("    1  Fire Control, Roll on Sub-table A, +1  1/6 -> roll on fire_control +1")
    assert "        4..6  Chain Reaction! Ammo and fuel explode! (Vehic...  1/2, reached 1/72" in lines
    (chain,) = _module("mecha_tables.rules").resolve("heavy_damage").chains
    assert chain.rolls == Fraction(1739, 900)
    chase = run_cli("describe", "spot_rules_a_to_e", "chase_trouble").output
    # `chain depth 6`: the chance of a 7th roll, 203/125000 (worked out below).
    assert "  expected rolls 50/37; expected penalty -565/37; more than 6 rolls in a row: 203/125000" in chase
    # A rule whose roll's outcome sends on: the chain after the outcome.
    maneuvers = run_cli("describe", "spot_rules_a_to_e", "maneuvers", "--json")
    data = __import__("json").loads(maneuvers.output)
    assert [c["start"] for c in data["chains"]] == [
        "roll maneuver_roll: failure, then table chase_trouble (1d10 + trouble_modifier)"
    ]


CHAINED = """
rulebook chained "Chained":
    source "test"

table first "First" cites "1" roll d6:
    1..5: "calm"
    6: "trouble" then roll second +1

table second "Second" cites "2" roll d6:
    1..6: "minor"
    7: "major"

# A 6 (1/6), then d6 + 1 = 7 on a 6 (1/6): 1/36.
example "Major trouble" for first:
    expect chain "second 7" = WANTED
"""


@pytest.mark.parametrize(("wanted", "passes"), [("1/36", True), ("1/6", False)])
def test_expect_chain_in_a_worked_example(tmp_path: object, wanted: str, passes: bool) -> None:
    import pathlib

    assert isinstance(tmp_path, pathlib.Path)
    book = tmp_path / "chained.rules"
    book.write_text(CHAINED.replace("WANTED", wanted), encoding="utf-8")
    result = run_cli("test", str(book))
    assert (result.exit_code == 0) == passes, result.output
    if not passes:
        assert "expected P(chain reaches second 7) = 1/6, got 1/36" in result.output


# ------------------------------------------------------------------ merging


def test_darkness_and_broken_ground_ask_for_one_fall_roll() -> None:
    # DEX 14 - 8 - 2 = 4; both rules ask for 3d6 <= 4: 4 ways of 216 = 1/54, one roll.
    module = _module("skirmish_terrain.rules")
    resolution = module.resolve(["darkness", "broken_ground"], DEX=14, MOV=10, moved=6)
    (fall,) = [r for r in resolution.rolls if r.name == "fall"]
    assert fall.probability == Fraction(1, 54)
    assert fall.asked_by == ("darkness", "broken_ground")
    assert resolution.roll("fall", rule="broken_ground") is fall
    assert resolution.roll("fall") is fall
    data = fall.to_dict()
    assert data["asked_by"] == ["darkness", "broken_ground"]
    assert data["merged"][0]["effects"]["failure"].startswith("The figure falls down somewhere")
    (entry,) = [e for e in resolution.trace if e.item.startswith("roll fall: asked for by")]
    assert entry.because == "same roll: asked for by darkness, broken_ground: one roll"
    # With Acrobatics broken ground rolls 2d6: not the same roll, so two (1/54 and 6/36 = 1/6).
    both = module.resolve(["darkness", "broken_ground"], DEX=14, MOV=10, moved=6, acrobatics=True)
    assert [r.probability for r in both.rolls if r.name == "fall"] == [Fraction(1, 54), Fraction(1, 6)]


MERGING = """
rulebook merging "Merging":
    source "test"

stat DEX "Dexterity": int 0..20 = 10
input moved "Hexes moved": int 0..12 = 0

rule ice "Ice" cites "1":
    when moved > 2:
        roll fall "Avoid falling": 3d6 <= DEX
            on failure: "Slips."

rule scree "Scree" cites "2":
    DEX -1
    when moved > 2:
        roll fall "Avoid falling": 3d6 <= DEX
            on failure: "Slides."

rule quake "Quake" cites "3":
    roll fall "Avoid falling": 3d6 <= DEX
        separate
        on failure: "Knocked down."
"""


def test_separate_keeps_a_roll_apart() -> None:
    module = module_from_text(MERGING)
    # Ice and scree: DEX 10 - 1 = 9 for both, 3d6 <= 9 = 81/216 = 3/8: one roll.
    (one,) = module.resolve(["ice", "scree"], moved=3).rolls
    assert (one.probability, one.asked_by) == (Fraction(3, 8), ("ice", "scree"))
    # A quake's roll is separate: two rolls, the same chance.
    rolls = module.resolve(["ice", "quake"], moved=3).rolls
    assert [(r.rule, r.probability) for r in rolls] == [("ice", Fraction(1, 2)), ("quake", Fraction(1, 2))]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))


def test_chase_trouble_is_listed_to_the_depth_the_book_states() -> None:
    # `chain depth 6`: ways of up to 6 rolls in a row are listed, the rest is one chance.  With
    # s_k the chance of a k-th roll: a re-roll at +2 (B) or +4 (C) comes from an 8 or a 9 on any
    # roll, b_k = c_k = s_(k-1)/10, and a plain re-roll from a fold, 2/10 after B and 4/10 after
    # C: a_k = 6 s_(k-2)/100.  So s_k = 2 s_(k-1)/10 + 6 s_(k-2)/100, s_1 = 1, s_2 = 1/5:
    # s_3 = 1/25 + 6/100 = 1/10, s_4 = 1/50 + 6/500 = 4/125, s_5 = 8/1250 + 6/1000 = 31/2500,
    # s_6 = 62/25000 + 24/12500 = 11/2500, s_7 = 22/25000 + 186/250000 = 203/125000 (beyond).
    (chain,) = _module("spot_rules_a_to_e.rules").resolve("chase_trouble").chains
    assert chain.depth == 6
    assert max(len(o.path) for o in chain.outcomes) == 6
    assert chain.beyond == Fraction(203, 125000)
    # The closed form does not depend on the depth listed.
    assert chain.rolls == Fraction(50, 37)


MISHAPS = """\
rulebook mishaps "Mishaps":
    source "docs"

table mishap "Mishap" cites "4.1" roll d6:
    1..5: "Stumble"
    6: "Fall" then roll again
{depth}
"""


@pytest.mark.parametrize(("statement", "depth"), [("", 4), ("    chain depth 1", 1), ("    chain depth 3", 3), ("    chain depth 12", 12)])
def test_stated_chain_depth_against_enumeration(statement: str, depth: int) -> None:
    # A 6 rolls again: a way of k rolls is k - 1 sixes then 1..5, (1/6)^(k-1) x 5/6; beyond the
    # depth d, d sixes in a row: (1/6)^d (no statement: the default, 4, 1/1296).
    text = MISHAPS.format(depth=statement)
    (chain,) = module_from_text(text).resolve("mishap").chains
    assert chain.depth == depth
    assert chain.beyond == Fraction(1, 6**depth)
    assert sorted((len(o.path), o.probability) for o in chain.outcomes) == [
        (k, Fraction(1, 6 ** (k - 1)) * Fraction(5, 6)) for k in range(1, depth + 1)
    ]
    # Expected rolls, whatever the depth: R = 1 + R/6, R = 6/5.
    assert chain.rolls == Fraction(6, 5)
    book = compile_text(text, "inline.rules").book
    assert book is not None
    expected = brute(book, "mishap", 0, 0, depth)
    assert expected[None] == chain.beyond
    assert sum(p for t, p in expected.items() if t is not None) == 1 - chain.beyond


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("    chain depth 0", "a chain is listed to 1 to 12 rolls in a row, not 0"),
        ("    chain depth 13", "a chain is listed to 1 to 12 rolls in a row, not 13"),
        ("    chain depth 3\n    chain depth 4", "a table states its chain depth once"),
    ],
)
def test_chain_depth_out_of_bounds_is_refused(statement: str, message: str) -> None:
    result = compile_text(MISHAPS.format(depth=statement), "inline.rules")
    assert not result.ok
    assert message in result.render()


# ---------------------------------------------------------------------- what a chain may cost
#
# Listing ways costs their number, rows ** rolls: every chain is held to CHAIN_PATHS paths
# (../shared/repro: chain_again_d100.rules, chain_again_depth12.rules, chain_hang.sh).

REPRO = RULEBOOKS.parent.parent / "shared" / "repro"


def _again_table(sides: int, again: int, extra: str = "") -> str:
    """A table of `sides` faces whose first `again` faces each roll again (a row of its own)."""
    rows = "".join(f'    {face}: "r{face}" then roll again\n' for face in range(1, again + 1))
    rows += "".join(f'    {face}: "end{face}"\n' for face in range(again + 1, sides + 1))
    return f'rulebook ch "C":\n    source "s"\n\ntable big "Big" cites "1" roll d{sides}:\n{rows}{extra}'


def _timed(*args: str) -> tuple[float, object]:
    import time

    started = time.perf_counter()
    result = run_cli(*args)
    return time.perf_counter() - started, result


def test_a_d100_of_99_rows_that_roll_again_is_listed_to_what_fits(tmp_path: object) -> None:
    """chain_again_d100.rules: 99 rows `then roll again` on a d100 would list 99 ** 3 ways of four
    rolls and more.  Listed to two rolls in a row (100 ways: 99 rows then the end row, and the end
    row at once), the chance of a third roll in `beyond`: (99/100) ** 2 = 9801/10000; the expected
    rolls stay exact: a geometric count with 1/100 to stop, 100."""
    from pathlib import Path

    path = Path(str(tmp_path)) / "chain.rules"
    path.write_text(_again_table(100, 99), encoding="utf-8")
    checked = run_cli("check", str(path))
    assert "warning[W508]" in checked.output and "listed to 2 rolls in a row" in checked.output
    module = module_from_text(path.read_text(encoding="utf-8"))
    chain = module.resolve("big").chains[0]
    assert (chain.complete, chain.depth, len(chain.outcomes)) == (False, 2, 100)
    assert chain.beyond == Fraction(9801, 10000)
    assert chain.rolls == 100
    assert sum(o.probability for o in chain.outcomes) + chain.beyond == 1
    for command in (("resolve", str(path), "big"), ("describe", str(path), "big"), ("list", str(path))):
        seconds, result = _timed(*command)
        assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
        assert seconds < 20, (command, seconds)


def test_a_stated_depth_past_what_a_resolver_lists_is_refused_with_the_depth_that_fits() -> None:
    """chain_again_depth12.rules: five rows of a d6 roll again; 12 rolls in a row follow
    1,083,374,024 paths.  5 rolls in a row fit: 1 + 5 + ... + 5 ** 4 = 781 ways end in the
    sixth row within five rolls."""
    text = _again_table(6, 5, "    chain depth 12\n")
    result = compile_text(text, "chain.rules")
    assert [d.code for d in result.diagnostics] == ["E507"]
    assert "1,083,374,024 paths" in result.diagnostics[0].message
    assert "state `chain depth 5`" in (result.diagnostics[0].hint or "")
    module = module_from_text(text.replace("chain depth 12", "chain depth 5"))
    chain = module.resolve("big").chains[0]
    assert (chain.depth, len(chain.outcomes)) == (5, 781)
    assert chain.beyond == Fraction(5, 6) ** 5
    if (REPRO / "chain_again_depth12.rules").exists():
        assert "error[E507]" in run_cli("check", str(REPRO / "chain_again_depth12.rules")).output


def test_a_cycle_of_twelve_d20_tables_resolves_in_bounded_time() -> None:
    """chain_hang.sh: twelve d20 tables, each row of each sending on to the next, the last to the
    first: 20 ** 4 ways of four rolls.  Listed to three rolls (8,000 ways), every way has the
    chance 1/8000, and a roll never ends: no expected number of rolls."""
    import time

    tables = "".join(
        f'table t{i} "T{i}" cites "1" roll d20:\n'
        + "".join(f'    {face}: "t{i} {face}" then roll t{(i + 1) % 12}\n' for face in range(1, 21))
        + "\n"
        for i in range(12)
    )
    text = f'rulebook ring "Ring":\n    source "s"\n\n{tables}'
    result = compile_text(text, "ring.rules")
    assert all(d.code == "W508" for d in result.diagnostics) and result.diagnostics
    module = module_from_text(text)
    started = time.perf_counter()
    chains = module.resolve("t0").chains
    assert time.perf_counter() - started < 10
    chain = chains[0]
    assert chain.depth == 3 and len(chain.outcomes) == 0  # no way ends: every row sends on
    assert chain.beyond == 1 and chain.rolls is None
    assert len(chain.flow) <= 2_000


def test_a_d20_mixing_roll_twice_and_roll_again_resolves_in_bounded_time() -> None:
    """chain_hang.sh: a roll twice squares the ways of each roll below it.  The listing stops where
    it fits; the ways listed and `beyond` still add up to 1, and the expectation is exact: each
    roll is made once and leads to 2 more with chance 1/20 (roll twice) and 1 more with chance
    6/20 (roll again): 1 / (1 - 2/20 - 6/20) = 5/3 rolls."""
    import time

    rows = '    1: "Twice" then roll twice\n'
    rows += "".join(f'    {face}: "Again {face}" then roll again\n' for face in range(2, 8))
    rows += "".join(f'    {face}: "Stop {face}"\n' for face in range(8, 21))
    text = f'rulebook mix "Mix":\n    source "s"\n\ntable mix "Mix" cites "1" roll d20:\n{rows}'
    module = module_from_text(text)
    started = time.perf_counter()
    chain = module.resolve("mix").chains[0]
    assert time.perf_counter() - started < 10
    assert sum(o.probability for o in chain.outcomes) + chain.beyond == 1
    assert chain.rolls is not None and chain.rolls > 1
