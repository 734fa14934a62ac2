"""Rulebooks that `rulecraft check` accepts, with long and hostile words in every text position,
and whether their cards (PDF and HTML, cards and sheets) are made without an exception.

A template rulebook names every place text reaches a card: the rulebook's title, source,
version, notes and errata; labels of units, groups, tiers, stats and inputs; a rule's title and
citation, the labels of its modifiers, restrictions, notes, rolls and outcomes; tables' titles,
citations, column labels, cells and notes; and names (of choices, columns, stats, rolls, derived
values) where a name is printed.  Each position takes each word in turn (`matrix`), and random
rulebooks take several at once (`mixed`).

    python tests/soak/hostile_cards.py --mixed 500 --seed 3
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass

from dsl.cards import card_files
from dsl.compiler import compile_text

WORDS = (
    "N" * 600,  # one word wider than any card
    "W" * 120,
    "Wörd" * 60,
    ("lorem ipsum " * 150).strip(),  # a paragraph where a label goes
    "<b>&amp;</b>&lt;" * 20,  # markup, which must print as text
    "שלום" * 80,  # right to left
    "😀" * 100,  # no glyph in the card font
    "e\u0301" * 200,  # combining accents
    "a\u200b" * 200,  # zero-width spaces
    "漢" * 300,  # no spaces between words
    "x\u00a0" * 200,  # no-break spaces
    "a-b/c" * 100,
    "—" * 200,
    "\\n" * 30 + "end",  # line breaks, written as the language's escape
    "A\\tB" * 50,
    "'" * 100,
    "(" * 150,
    "1" * 300,
    "big " * 2500,  # ten thousand characters
    "T" * 3000,
)
NAMES = ("n" * 300, "Q" * 80, "abc_" * 50)

TEXT = [
    "title",
    "source",
    "version",
    "note",
    "quote",
    "erratum",
    "unit_label",
    "group_label",
    "tiers_label",
    "stat_label",
    "stat2_label",
    "input_label",
    "choice_label",
    "flag_label",
    "rule_title",
    "cites",
    "modifier_label",
    "group_label2",
    "cannot",
    "note2",
    "roll_label",
    "outcome",
    "roll_note",
    "roll_label2",
    "outcome2",
    "roll_label3",
    "derive_label",
    "quote2",
    "erratum2",
    "table_title",
    "table_cites",
    "column_label",
    "cell1",
    "cell2",
    "cell3",
    "table_note",
    "table_title2",
    "cell4",
    "cell5",
]
NAME = ["group", "member1", "member2", "stat2", "roll_name", "derived", "column1", "column2", "tier"]
DEFAULT_NAMES = {
    "group": "g1",
    "member1": "aa",
    "member2": "bb",
    "stat2": "STR",
    "roll_name": "fall",
    "derived": "pace",
    "column1": "c1",
    "column2": "c2",
    "tier": "special",
}

TEMPLATE = """rulebook hostile "{title}":
    source "{source}"
    version "{version}"
    note "{note}"
    erratum "{quote}": "{erratum}"

unit hx "{unit_label}"
group {group} "{group_label}": strongest
type kind = one of {{{member1}, {member2}, other}}
tiers brp "{tiers_label}":
    critical: roll <= target / 20 round up
    {tier}: roll <= target
    failure: otherwise

stat DEX "{stat_label}": int 0..30 = 10
stat {stat2} "{stat2_label}": int 0..30 = 10
stat skill "Skill": percent 0..100 = 50
input moved "{input_label}": int 0..20 hx
input choice "{choice_label}": kind
input flagged "{flag_label}": flag

rule r1 "{rule_title}" cites "{cites}":
    category movement
    when moved > 3: DEX -2 "{modifier_label}"
    when flagged: {stat2} -1 in {group} "{group_label2}"
    when choice == {member1}:
        cannot "{cannot}"
        note "{note2}"
    roll {roll_name} "{roll_label}": 3d6 <= DEX
        when flagged: 2d6
        on failure: "{outcome}"
        note "{roll_note}"
    roll climb "{roll_label2}": d100 <= skill
        tiers brp
        on critical: "{outcome2}"
    roll r3 "{roll_label3}": 3d6 <= ({stat2} + DEX) / 2 round down
        when moved > 1: -1 die
        when moved > 2: +1 die
        when moved > 3: target +1
        when moved > 4: target -2
        when moved > 5: 4d6
        when moved > 6: 5d6
        when moved > 7: 2d6
    derive {derived} "{derive_label}" = moved * 2
    erratum "{quote2}": "{erratum2}"

table t1 "{table_title}" cites "{table_cites}" by choice:
    columns {column1} "{column_label}", {column2}
    {member1}: "{cell1}", 1
    {member2}: "{cell2}", 2
    other: "{cell3}", 3
    note "{table_note}"

table t2 "{table_title2}" roll d6:
    1..3: "{cell4}"
    4..6: "{cell5}" then roll again
    above 6: as 6
"""


def rulebook(texts: dict[str, str], names: dict[str, str]) -> str:
    """The template with `texts` in the text positions they name (the rest plain) and `names`
    (a suffix keeps each name distinct) in name positions."""
    values = {slot: texts.get(slot, "plain") for slot in TEXT}
    values.update({slot: names[slot] + slot if slot in names else DEFAULT_NAMES[slot] for slot in NAME})
    return TEMPLATE.format(**values)


def matrix() -> Iterator[tuple[str, str]]:
    """Every word in every text position, every long name in every name position."""
    for slot in TEXT:
        for word in WORDS:
            yield f"{slot}={word[:12]!r}", rulebook({slot: word}, {})
    for slot in NAME:
        for name in NAMES:
            yield f"{slot}={name[:12]!r}", rulebook({}, {slot: name})


def mixed(rng: random.Random) -> str:
    """Several words in random positions at once, and a few long names."""
    texts = {slot: rng.choice(WORDS) for slot in rng.sample(TEXT, rng.randint(1, 10))}
    names = {slot: rng.choice(NAMES) for slot in rng.sample(NAME, rng.randint(0, 3))}
    return rulebook(texts, names)


@dataclass
class Outcome:
    accepted: bool
    seconds: float


def cards_of(text: str) -> Outcome:
    """Check a rulebook, and if check accepts it, make every card file a build makes; an
    exception propagates (that is the failure this looks for)."""
    compiled = compile_text(text, "hostile.rules")
    if not compiled.ok:
        return Outcome(False, 0.0)
    assert compiled.book is not None
    begin = time.perf_counter()
    files = card_files(compiled.book)
    assert all(data for data in files.values())
    return Outcome(True, time.perf_counter() - begin)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mixed", type=int, default=200)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--no-matrix", action="store_true")
    arguments = parser.parse_args()
    rng = random.Random(arguments.seed)
    cases = [] if arguments.no_matrix else list(matrix())
    cases += [(f"mixed #{i}", mixed(rng)) for i in range(arguments.mixed)]
    accepted = refused = 0
    slowest = (0.0, "")
    begin = time.perf_counter()
    for label, text in cases:
        outcome = cards_of(text)
        accepted += outcome.accepted
        refused += not outcome.accepted
        slowest = max(slowest, (outcome.seconds, label))
    print(f"seed {arguments.seed}")
    print(
        f"{accepted} rulebooks accepted by check made their cards without an exception ({refused} refused by "
        f"check) in {time.perf_counter() - begin:.0f} s; slowest {slowest[0]:.1f} s ({slowest[1]})"
    )


if __name__ == "__main__":
    main()
