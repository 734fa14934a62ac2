"""A grammar check over every face of every bundled deck: the phrase defects issue 28 found,
each a pattern that must not occur in any text a face prints (its title, its footer, every run,
cell and note of its card), fixed where the phrase is made (dsl/cards: notation.py, effects.py,
chain.py, text.py), not patched in the text.  Each text is checked whole, as the card sets it.

The appendix is left out (an erratum quotes the source as printed: "Sand +0 ... Mud +1"), and so
are notes, which are the rulebook's own prose."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import cast

import pytest

from dsl.cards.blocks import Card, Chances, Note
from dsl.cards.deck import APPENDIX_KIND
from dsl.cards.fonts import REGULAR
from dsl.cards.pdfcards import Face, short_title
from dsl.resources import bundled_rulebooks_dir
from tests.conftest import bundled_faces

BUNDLED = sorted(bundled_rulebooks_dir().glob("*.rules"))

DEFECTS = {
    "a letter dropped from a verb made singular (`already ha`)": re.compile(r"\b(ha|wa|doe)\b"),
    "a noun said twice (`stunt attempted is difficult stunt`, `Fly roll is fly failure`)": re.compile(
        r"\b(?!(?:the|and|that|this)\b)(\w{3,}) \w+ is (?:\w+ )?\1\b", re.IGNORECASE
    ),
    "a modifier of +0": re.compile(r"(?<![\w.])[+\u2212-]0(?![\d.,%/])"),
    "a phrase cut with an ellipsis (a footer, a title)": re.compile("\u2026"),
    "a sentence that starts in lower case (`happens. then roll`)": re.compile(r"\b(?<!etc)[a-z]{3,}\. [a-z]{3,}\b"),
    "a slash for `per` (`+2 / Other Bleeds`)": re.compile(r"[+\u2212-]\d+%?[ \u00a0]/[ \u00a0][A-Za-z]"),
    "a chance that reads as a mixed number (`1 1/6`)": re.compile(r"\b\d+ \d+/\d+\b"),
    "an average as a fraction (`169/90 rolls on average`)": re.compile(r"\d+/\d+ (rolls )?on average"),
    "a range as code (`1..19`)": re.compile(r"\b\d+\.\.\d+\b"),
    "nesting by a mark (a right angle quote)": re.compile("\u203a"),
    "a condition without its subject (`When makes a turn`)": re.compile(r"\b[Ww]hen (makes|has|does|takes|moves)\b"),
    "the higher of 0 and a difference": re.compile(r"the higher of 0 and"),
    "a value only named (`Total actions = Total actions from`)": re.compile(r"(\b\w+ \w+) = \1 from"),
    "a subject said again in alternatives (`Type: Jungle or terrain Type: Aquatic`)": re.compile(
        r"\b((?:\w+ ){0,3}\w+(?::| is)) [\w-]+ or \1 ", re.IGNORECASE
    ),
    "a predicate said again (`terrain hull down is N/A and forest hull down is N/A`)": re.compile(
        r"\bis ([\w/]+) and (?:[\w'-]+ ){1,4}is \1\b"
    ),
    "a step said twice (`Roll on the Chase Trouble Table. Roll on Chase Trouble Table.`)": re.compile(
        r"\broll on (?:the )?([\w ]+?)\. +roll on (?:the )?\1\b", re.IGNORECASE
    ),
    "a plural count with a singular verb (`extra bodies is 0`)": re.compile(r"\b[a-z]*[^\Wsu]s is (?:not )?\d"),
    "an exception that only narrows alternatives (`is 1 or 2, unless ... is 1`)": re.compile(
        r"(\b[\w ]+) is (\w+) or \w+, unless \1 is \2\b"
    ),
    "a condition led twice (`when unless`)": re.compile(r"\bwhen unless\b", re.IGNORECASE),
    "a number bounded in two clauses (`POT ≥ 25 and POT < 30`)": re.compile(
        "(\\w[\\w,' ]{2,40})\u00a0[<>≤≥]\u00a0(?:(?! or )[^\\n]){1,30}? and \\1\u00a0[<>≤≥]"
    ),
}


def _texts(value: object) -> Iterator[str]:
    """Every text of a card the cards make, each whole: a run, a cell, a chance row's label;
    not a note (the rulebook's prose) nor what the cards do not print (keys, styles)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, Note):
        yield value.condition
    elif isinstance(value, Chances):
        yield value.table.against
        yield from (row.dice for row in value.table.rows)
        yield from (row.note for row in value.table.rows)
    elif hasattr(value, "__dataclass_fields__"):
        for name in value.__dataclass_fields__:
            if name not in ("key", "style", "mark", "kind", "category", "footer"):
                yield from _texts(getattr(value, name))


def test_no_phrase_defect_on_any_face_of_any_deck() -> None:
    found: list[str] = []
    faces = 0
    for path in BUNDLED:
        _, laid = bundled_faces(path.stem)
        seen: set[Card] = set()
        for face in cast("list[Face]", laid):
            if face.card.kind == APPENDIX_KIND:
                continue
            faces += 1
            room = face.fmt.body_width - 18 * 72 / 25.4  # the footer's room beside "No. 24 \u00b7 2/3"
            texts = [face.header.title.getPlainText(), short_title(face.card.footer, REGULAR, 7.0, room)]
            if face.card not in seen:
                seen.add(face.card)
                texts += list(_texts(face.card))
            for text in texts:
                for defect, pattern in DEFECTS.items():
                    for hit in pattern.finditer(text):
                        found.append(
                            f"{path.stem} No. {face.card.number}: {defect}: {text[max(0, hit.start() - 50) : hit.end() + 30]!r}"
                        )
    assert faces > 300  # every face of the six decks was read (400 at this writing)
    assert found == []


@pytest.mark.parametrize(
    ("text", "defect"),
    [
        (
            "wound target +2 / Other Bleeds the target already ha",
            "a letter dropped from a verb made singular (`already ha`)",
        ),
        (
            "When stunt attempted is difficult stunt: fly",
            "a noun said twice (`stunt attempted is difficult stunt`, `Fly roll is fly failure`)",
        ),
        (
            "When the result of this round's Fly roll is fly failure",
            "a noun said twice (`stunt attempted is difficult stunt`, `Fly roll is fly failure`)",
        ),
        ("wound target +2\u00a0/\u00a0Other Bleeds the target", "a slash for `per` (`+2 / Other Bleeds`)"),
        ("skidding threshold +0 Wheeled Vehicle", "a modifier of +0"),
        ("Mecha and Vehicle Terrain and Co\u2026 No. 24", "a phrase cut with an ellipsis (a footer, a title)"),
        (
            "something nasty happens. then roll on Skidding fumble",
            "a sentence that starts in lower case (`happens. then roll`)",
        ),
        ("d6 on this table: 1 1/6 \u00b7 2 1/6", "a chance that reads as a mixed number (`1 1/6`)"),
        ("169/90 rolls on average", "an average as a fraction (`169/90 rolls on average`)"),
        ("1..19 17/100", "a range as code (`1..19`)"),
        ("When makes a turn this move", "a condition without its subject (`When makes a turn`)"),
        (
            "Total actions = Total actions from \u201cNumber of Actions\u201d",
            "a value only named (`Total actions = Total actions from`)",
        ),
        (
            "Unless terrain Type: Jungle or terrain Type: Aquatic or terrain Type: Desert",
            "a subject said again in alternatives (`Type: Jungle or terrain Type: Aquatic`)",
        ),
        (
            "When damage band is 1 or damage band is 2:",
            "a subject said again in alternatives (`Type: Jungle or terrain Type: Aquatic`)",
        ),
        (
            "Failure: Roll on the Chase Trouble Table. Roll on Chase Trouble Table.",
            "a step said twice (`Roll on the Chase Trouble Table. Roll on Chase Trouble Table.`)",
        ),
        (
            "When firing into a melee and extra bodies is 0:",
            "a plural count with a singular verb (`extra bodies is 0`)",
        ),
        (
            "when damage band is 1 or 2, unless damage band is 1",
            "an exception that only narrows alternatives (`is 1 or 2, unless ... is 1`)",
        ),
        (
            "Struck by the area attack when unless the response is a Dodge and it succeeded",
            "a condition led twice (`when unless`)",
        ),
        (
            "When terrain hull down is N/A and forest hull down is N/A and vegetation hull down is N/A",
            "a predicate said again (`terrain hull down is N/A and forest hull down is N/A`)",
        ),
        (
            "When POT of the radiation exposure\u00a0≥\u00a025 and POT of the radiation exposure\u00a0<\u00a030:",
            "a number bounded in two clauses (`POT ≥ 25 and POT < 30`)",
        ),
    ],
)
def test_each_defect_pattern_finds_what_the_review_found(text: str, defect: str) -> None:
    """The review's own quotations, as the old cards printed them: each pattern catches its defect."""
    assert DEFECTS[defect].search(text)


def _card_lines(source: str, title: str, *, conditions: bool = False) -> list[str]:
    """The lines the card `title` of a rulebook given as text prints: its entries, and with
    `conditions` the conditions heading them, in order."""
    from dsl.cards.blocks import Condition, Entry
    from dsl.cards.deck import build_deck
    from dsl.compiler import compile_text

    book = compile_text(source, "phrases.rules").book
    assert book is not None
    card = next(card for card in build_deck(book) if card.title == title)
    kinds = (Entry, Condition) if conditions else (Entry,)
    return [
        "".join(run.text for run in block.runs) if isinstance(block, Entry) else block.text
        for block in card.blocks
        if isinstance(block, kinds)
    ]


LABELLED = """\
rulebook labels "Labels":
    version "1"

stat DEX "Dexterity": int 0..30 = 10
input wet "The ground is wet": flag = no
input dark "It is dark": flag = no

rule footing "Footing" cites "1":
    when wet: DEX -1 "wet ground"
    when dark: DEX -2 "cannot see the footholds"
"""


def test_a_label_that_repeats_its_condition_is_printed_once() -> None:
    """A modifier's label after its condition says the line twice when it holds no word the line
    does not ("When the ground is wet: DEX -1 wet ground"): the card prints the line without it,
    and keeps a label that says more ("cannot see the footholds")."""
    lines = _card_lines(LABELLED, "Footing")
    wet = next(line for line in lines if "wet" in line)
    dark = next(line for line in lines if "dark" in line)
    assert "wet ground" not in wet and "DEX" in wet
    assert dark.endswith("cannot see the footholds")


STARTING = """\
rulebook starts "Starting values":
    version "1"

stat stealth_mod "Modifier to Stealth rolls": int -10..10 = 0
stat hearing "Hearing": int -10..10 = 0
stat skid "Skidding threshold": int 0..20 = 3
stat cards "Initiative cards": int 1..5 = 1
stat ranks "DEX ranks to ready the weapon": int 0..20 = 5
input rain "It rains": flag = no

rule weather "Weather" cites "1":
    when rain:
        stealth_mod +1 "rain hides footsteps"
        hearing = -2 "rain on the roof"
        skid +1 "wet road"
        cards +1 "slippery hands"
        ranks +2 "wet grip"
"""


def test_a_modifier_that_starts_at_0_and_is_only_added_to_goes_without_saying() -> None:
    """A card leaves out "Modifier to Stealth rolls starts at 0", which says nothing a player does
    not read in "+1"; a value that is set (0 when it is not) or starts elsewhere
    (the skid threshold, 3) keeps its line, its verb agreeing with it ("Initiative cards start at
    1")."""
    lines = _card_lines(STARTING, "Weather")
    starts = [line for line in lines if re.search(" starts? at ", line)]
    assert starts == [
        "Hearing starts at 0",
        "Skidding threshold starts at 3",
        "Initiative cards start at 1",  # the verb agrees with a plural
        "DEX ranks to ready the weapon start at 5",
    ]


OTHERWISE_BOOK = """\
rulebook otherwise "Otherwise":
    version "1"

stat DEX "Dexterity": int 0..30 = 10
stat STR "Strength": int 0..30 = 10
input tail "The wind is a tail wind": flag = no
input wet "The ground is wet": flag = no

rule wind "Wind" cites "1":
    when tail: DEX -1
    else: DEX -3
    when wet:
        DEX -1
        STR -1
    else:
        DEX +1
        STR +1
"""


def test_a_line_that_denies_the_line_before_it_says_otherwise() -> None:
    """A line "Unless the wind is a tail wind: DEX -3" right after "When the wind is a tail wind:
    DEX -1" says its condition twice: it reads "Otherwise: DEX -3".  A condition heading lines
    of its own keeps its words (a face that starts among them repeats it above them)."""
    lines = _card_lines(OTHERWISE_BOOK, "Wind", conditions=True)
    at = lines.index("When the wind is a tail wind: DEX\u00a0\u22121")
    assert lines[at + 1] == "Otherwise: DEX\u00a0\u22123"
    assert "Unless the ground is wet:" in lines


PHRASED = """\
rulebook phrased "Phrased":
    version "1"

stat MOV "Movement": int 0..20 = 6
stat range "Range band": one of {short, long} phrase "the range band" = short
input surface "Ice or snow on the ground": one of {bare, snow, deep_snow} phrase "ground cover" = bare

rule going "Going" cites "1":
    when surface == deep_snow: MOV -2
    when surface == snow: range = long
"""


def test_a_choice_is_said_against_its_phrase_and_a_phrase_goes_on_after_a_condition() -> None:
    """A choice leaves out only the words the condition already says: with the phrase "ground
    cover", `deep_snow` is "deep snow" (the label "Ice or snow on the ground" would have taken
    "snow" away, leaving "ground cover is deep"); a phrase that opens a line ("The range band")
    goes on in lower case after the condition that leads it."""
    lines = _card_lines(PHRASED, "Going")
    assert "When ground cover is deep snow: MOV\u00a0\u22122" in lines
    assert "When ground cover is snow: the range band: is long" in lines
