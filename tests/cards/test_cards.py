"""Reference cards and sheets: determinism, page geometry, overflow, type size, escaping, chances."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from pypdf import PdfReader
from reportlab.platypus import Spacer

from dsl import model as m
from dsl import outdir
from dsl.cards import card_files, render_cards
from dsl.cards.blocks import Card, Chances, Condition, Detail, Entry, Grid, Heading, Note, RollHead
from dsl.cards.chances import roll_chances
from dsl.cards.deck import build_deck, deck_of
from dsl.cards.flow import MIN_SIZE, NOTE, Item, RollHeading, prose
from dsl.cards.notation import Notation
from dsl.cards.paginate import Placed, paginate
from dsl.cards.pdfcards import BODY_WIDTH as BODY
from dsl.cards.pdfcards import faces_of, fitted_faces
from dsl.cards.pdfsheet import sheet_columns
from dsl.cards.sheet import build_sheet
from dsl.compiler import compile_text
from dsl.resources import bundled_rulebooks_dir

MM = 72 / 25.4
NB = "\u00a0"  # the no-break space joining an operator to its operands

BOOK = """\
rulebook cardtest "Card Test Terrain":
    source "A test source, section 17"
    version "1.0"
    note "Agree on the terrain before play."

unit hex "hexes"

type posture = one of {standing, kneeling, prone, crawling}

stat DEX "Dexterity": int 0..30 = 10
stat MOV "Movement allowance": int 0..30 hex = 10
input moved "Hexes moved this turn": int 0..60 hex = 0
input acrobatics "Has the Acrobatics skill": flag = no
input smoke_hexes "Smoke hexes fired through": int 0..40 hex = 0
input stance "Posture": posture = standing
input lit "Lit by a flashlight": flag = no

group vis "Zone of Visibility MODs": strongest

rule rough "Rough Ground" cites "17.1":
    category movement
    DEX -2 "bad footing"
    when moved > MOV / 2:
        roll fall "Avoid falling": 3d6 <= DEX
            when acrobatics: 2d6
            on failure: "The figure falls."
    erratum "need only roll 2d6/eDEX": "Read as 2d6 against DEX."

terrain mire "Mire" cites "17.3":
    category movement
    as rough
    MOV / 2 round up "mud"
    MOV min 1

condition smoke "Smoke" cites "17.4":
    category visibility
    DEX -1 per smoke_hexes "for every hex fired through"
    DEX -3 in vis "low visibility"

rule darkness "Darkness" cites "17.5":
    category visibility
    unless lit:
        DEX = 5 "only lucky shots hit"

rule ice "Ice" cites "17.6":
    category movement
    unless stance in {prone, kneeling, crawling}:
        roll slip "Keep standing": 2d6 <= DEX
    note "One cannot fall if he is prone, kneeling, or crawling."

table weather "Weather" cites "T1" roll d20:
    columns sky "Sky", wind "Wind"
    1..10: "Clear", "Calm"
    11..18: "Overcast", "Breeze"
    19..20: "Storm", "Gale"
"""


def compile_book(text: str) -> m.Book:
    compiled = compile_text(text, "test.rules")
    assert compiled.ok, compiled.render()
    assert compiled.book is not None
    return compiled.book


@pytest.fixture(scope="module")
def book() -> m.Book:
    return compile_book(BOOK)


@pytest.fixture(scope="module")
def files(book: m.Book) -> dict[str, bytes]:
    return card_files(book)


def pdf(data: bytes) -> PdfReader:
    return PdfReader(io.BytesIO(data))


def text_of(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in pdf(data).pages)


def card(book: m.Book, key: str) -> Card:
    return next(c for c in build_deck(book) if c.key == key)


def entries(found: Card) -> list[str]:
    return ["".join(r.text for r in b.runs) for b in found.blocks if isinstance(b, (Entry, Detail))]


# ---------------------------------------------------------------- files and determinism


def test_card_files_names_every_output(files: dict[str, bytes]) -> None:
    assert set(files) == {
        "cardtest-cards-a4.pdf",
        "cardtest-cards-letter.pdf",
        "cardtest-cards-press.pdf",
        "cardtest-sheet-a4.pdf",
        "cardtest-sheet-letter.pdf",
        "cardtest.html",
        "cardtest-sheet.html",
    }
    assert all(data for data in files.values())


def test_card_files_are_byte_identical_on_rebuild(book: m.Book, files: dict[str, bytes]) -> None:
    assert card_files(book) == files
    assert card_files(compile_book(BOOK)) == files


@pytest.mark.parametrize(("fmt", "layout"), [("pdf", "cards"), ("pdf", "sheet"), ("html", "cards"), ("html", "sheet")])
def test_render_cards_is_deterministic(book: m.Book, tmp_path: Path, fmt: str, layout: str) -> None:
    first = render_cards(book, tmp_path / "one", fmt=fmt, layout=layout, paper="a4")
    second = render_cards(book, tmp_path / "two", fmt=fmt, layout=layout, paper="a4")
    assert [p.name for p in first] == [p.name for p in second]
    assert first and all(a.read_bytes() == b.read_bytes() for a, b in zip(first, second, strict=True))
    # no temporary file left; the manifest records what rulecraft wrote (see test_outdir.py)
    assert sorted(p.name for p in (tmp_path / "one").iterdir()) == sorted([outdir.MANIFEST, *(p.name for p in first)])


def test_render_cards_writes_the_requested_files(book: m.Book, tmp_path: Path) -> None:
    written = render_cards(book, tmp_path / "out", fmt="pdf", layout="cards", paper="letter")
    assert [p.name for p in written] == ["cardtest-cards-letter.pdf", "cardtest-cards-press.pdf"]
    written = render_cards(book, tmp_path / "out", fmt="pdf", layout="sheet", paper="a4")
    assert [p.name for p in written] == ["cardtest-sheet-a4.pdf"]
    written = render_cards(book, tmp_path / "out", fmt="html", layout="sheet", paper="a4")
    assert [p.name for p in written] == ["cardtest-sheet.html"]


def test_bad_request_writes_nothing(book: m.Book, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown format"):
        render_cards(book, tmp_path / "out", fmt="png", layout="cards", paper="a4")
    with pytest.raises(ValueError, match="unknown paper"):
        render_cards(book, tmp_path / "out", fmt="pdf", layout="cards", paper="a3")
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------- page geometry


def close(a: float, b: float) -> bool:
    return abs(a - b) < 0.01


def test_press_file_has_bleed_and_trim_boxes(files: dict[str, bytes]) -> None:
    """Poker size (2.5 x 3.5 in) with 1/8 in of bleed: every face and its back, a page each."""
    reader = pdf(files["cardtest-cards-press.pdf"])
    faces = faces_of(build_deck(compile_book(BOOK)))
    one_card = sum(1 for face in faces if face.parts == 1)
    assert len(reader.pages) == 2 * (one_card + (len(faces) - one_card + 1) // 2)
    inch, eighth = 72.0, 9.0
    for page in reader.pages:
        for box in (page.mediabox, page.bleedbox):
            assert close(float(box.left), 0) and close(float(box.bottom), 0)
            assert close(float(box.width), 2.5 * inch + 2 * eighth) and close(float(box.height), 3.5 * inch + 2 * eighth)
        trim = page.trimbox
        assert close(float(trim.left), eighth) and close(float(trim.bottom), eighth)
        assert close(float(trim.width), 2.5 * inch) and close(float(trim.height), 3.5 * inch)


@pytest.mark.parametrize(("paper", "size"), [("a4", (210 * MM, 297 * MM)), ("letter", (612.0, 792.0))])
def test_imposed_sheets_are_the_paper(files: dict[str, bytes], paper: str, size: tuple[float, float]) -> None:
    """The paper, portrait or landscape: poker cards go nine to A4 upright, eight to Letter turned."""
    for page in pdf(files[f"cardtest-cards-{paper}.pdf"]).pages:
        drawn = sorted((float(page.mediabox.width), float(page.mediabox.height)))
        assert close(drawn[0], min(size)) and close(drawn[1], max(size))


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_sheet_is_landscape_paper(files: dict[str, bytes], paper: str) -> None:
    for page in pdf(files[f"cardtest-sheet-{paper}.pdf"]).pages:
        assert float(page.mediabox.width) > float(page.mediabox.height)


def test_nine_cards_to_a_page(tmp_path: Path) -> None:
    rules = "".join(f'\nrule r{i:02} "Terrain Q{i:02}" cites "{i}":\n    DEX -1\n' for i in range(1, 17))
    book = compile_book('rulebook nine "Nine Up":\n    version "1"\n\nstat DEX: int 0..30 = 10\n' + rules)
    faces = faces_of(build_deck(book))
    # the rulebook's own card, the legend, the index and 16 rules, one face each
    assert [f.card.number for f in faces] == list(range(1, 20))
    written = render_cards(book, tmp_path, fmt="pdf", layout="cards", paper="a4")
    reader = PdfReader(written[0])
    assert len(reader.pages) == 3
    first = reader.pages[0].extract_text()
    assert "Nine Up" in first and "Reading these cards" in first and "Index A" in first
    assert "No.\u00a019" in reader.pages[2].extract_text().replace(" 19", "\u00a019")


# ---------------------------------------------------------------- overflow and type size

LONG_NOTE = " ".join(f"gravel{i:03}" for i in range(1, 111))


def test_a_note_stays_on_its_card_front_and_back_and_a_longer_one_goes_to_the_appendix(tmp_path: Path) -> None:
    """A note a player needs is printed on the rule's card while the two fit on one physical
    card (two faces, front and back, printed duplex); a note that would take another card goes
    to the appendix, a pointer to it on the card."""
    text = BOOK + f'\nrule quarry "Quarry" cites "17.12":\n    DEX -1\n    note "{LONG_NOTE}"\n'
    faces = fitted_faces(deck_of(compile_book(text)))
    quarry = [f for f in faces if f.card.key == "quarry"]
    assert len(quarry) == 2 and any(isinstance(b, Note) and b.text == LONG_NOTE for b in quarry[0].card.blocks)
    longer = " ".join([LONG_NOTE] * 3)
    text = BOOK + f'\nrule quarry "Quarry" cites "17.12":\n    DEX -1\n    note "{longer}"\n'
    book = compile_book(text)
    faces = fitted_faces(deck_of(book))
    deck = list(dict.fromkeys(face.card for face in faces))
    quarry_card = next(c for c in deck if c.key == "quarry")
    assert len([f for f in faces if f.card == quarry_card]) == 1
    assert f"Notes: in the appendix, under No.{NB}{quarry_card.number}." in entries(quarry_card)
    appendix = deck[-1]
    assert appendix.kind == "Appendix" and appendix.number == len(deck)
    assert any(isinstance(b, Note) and b.text == longer for b in appendix.blocks)
    # Where faces are not counted (a screen), the note stays: printed, it would take more faces.
    kept = [f for f in faces_of(build_deck(book)) if f.card.key == "quarry"]
    assert len(kept) >= 3


def test_a_long_rule_continues_on_further_cards(tmp_path: Path) -> None:
    text = BOOK + f'\nrule quarry "Quarry" cites "17.12":\n    DEX -1 "{LONG_NOTE}"\n'
    book = compile_book(text)
    faces = [f for f in faces_of(build_deck(book)) if f.card.key == "quarry"]
    assert len(faces) == 2
    written = render_cards(book, tmp_path, fmt="pdf", layout="cards", paper="a4")
    press = next(p for p in written if p.name.endswith("-press.pdf"))
    reader = PdfReader(press)
    pages = [p.extract_text() for p in reader.pages if "Quarry" in p.extract_text() and "Index" not in p.extract_text()]
    assert len(pages) == 2
    assert "1/2" in pages[0] and "2/2" in pages[1]
    assert "Quarry (cont.)" in pages[1]
    words = re.findall(r"gravel\d{3}", "\n".join(pages))
    assert words == LONG_NOTE.split()  # every word, once, in order: nothing clipped or lost


def font_sizes(data: bytes) -> list[float]:
    sizes = []
    for page in pdf(data).pages:
        content = page.get_contents()
        assert content is not None
        stream = content.get_data().decode("latin-1")
        sizes += [float(size) for size in re.findall(r"/\S+ ([\d.]+) Tf", stream)]
    return sizes


@pytest.mark.parametrize("name", ["cardtest-cards-a4.pdf", "cardtest-cards-press.pdf", "cardtest-sheet-a4.pdf"])
def test_no_text_smaller_than_seven_points(files: dict[str, bytes], name: str) -> None:
    sizes = font_sizes(files[name])
    assert sizes and min(sizes) >= MIN_SIZE == 7


@pytest.mark.parametrize("name", ["cardtest-cards-a4.pdf", "cardtest-cards-press.pdf", "cardtest-sheet-letter.pdf"])
def test_only_embedded_dejavu_fonts(files: dict[str, bytes], name: str) -> None:
    for page in pdf(files[name]).pages:
        for ref in page["/Resources"]["/Font"].values():
            font = ref.get_object()
            assert "DejaVuSansCondensed" in str(font["/BaseFont"])
            assert "/FontFile2" in font["/FontDescriptor"].get_object()


# ---------------------------------------------------------------- html


@pytest.mark.parametrize("name", ["cardtest.html", "cardtest-sheet.html"])
def test_html_is_self_contained(files: dict[str, bytes], name: str) -> None:
    page = files[name].decode("utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "http" not in page
    assert "<link" not in page
    assert "<script" not in page
    assert "url(" not in page and "@import" not in page


# ---------------------------------------------------------------- hostile text

HOSTILE = """\
rulebook hostile "Hostile <b>Book</b>":
    version "1"

stat DEX: int 0..30 = 10

rule trap "Trap & <i>Snare</i>" cites "<1>":
    DEX -1 "label </font><b>"
    note "<script>alert(1)</script> {{ 7*7 }} {% raw %} say \\"hi\\" & 'bye' <font size=2>tiny</font> \u200fRTL\u202eevil\x00end"
"""


@pytest.fixture(scope="module")
def hostile() -> dict[str, bytes]:
    return card_files(compile_book(HOSTILE))


def test_hostile_text_is_escaped_in_html(hostile: dict[str, bytes]) -> None:
    for name in ("hostile.html", "hostile-sheet.html"):
        page = hostile[name].decode("utf-8")
        assert "<script" not in page
        assert "<b>" not in page and "<i>" not in page and "</font>" not in page
        assert "Hostile &lt;b&gt;Book&lt;/b&gt;" in page
    cards = hostile["hostile.html"].decode("utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in cards
    assert "{{ 7*7 }}" in cards and "{% raw %}" in cards and "49" not in cards
    assert "say &#34;hi&#34; &amp; &#39;bye&#39;" in cards
    assert "&lt;font size=2&gt;tiny&lt;/font&gt;" in cards
    assert "\u200fRTL\u202eevil\ufffdend" in cards  # marks kept literally, NUL shown as U+FFFD
    assert "\x00" not in cards


def test_hostile_text_prints_literally_in_pdf(hostile: dict[str, bytes]) -> None:
    text = text_of(hostile["hostile-cards-press.pdf"])
    assert "<script>alert(1)</script>" in text
    assert "{{ 7*7 }}" in text
    assert "<font size=2>tiny</font>" in text
    assert "Trap & <i>Snare</i>" in text
    assert min(font_sizes(hostile["hostile-cards-a4.pdf"])) >= 7  # the markup did not shrink anything


# ---------------------------------------------------------------- content


def test_chance_of_3d6_at_most_10_is_one_half(book: m.Book) -> None:
    rough = card(book, "rough")
    table = next(b.table for b in rough.blocks if isinstance(b, Chances))
    # Keyed by the DEX on the character sheet, before the card's own -2, and labelled so.
    assert table.against == "DEX before \u22122"
    assert table.chance("12") == "50%"  # 3d6 <= 10: 108 of 216 totals
    assert table.rows[0].chances[table.columns.index("12")] == Fraction(1, 2)
    assert table.chance("10") == "26%" and table.chance("14") == "74%"
    assert table.rows[1].dice == "2d6" and table.rows[1].note == "if you have the Acrobatics skill"
    assert table.chance("12", row=1) == "92%"  # 2d6 <= 10: 33 of 36


def test_roll_reads_with_its_condition_and_outcome(book: m.Book) -> None:
    rough = card(book, "rough")
    head = next(b for b in rough.blocks if isinstance(b, RollHead))
    assert (head.title, head.notation) == ("Avoid falling", f"3d6{NB}≤{NB}DEX")
    lines = entries(rough)
    assert f"When hexes moved this turn{NB}>{NB}half{NB}MOV" in lines
    assert "When you have the Acrobatics skill: roll 2d6" in lines
    assert "Failure: The figure falls." in lines


def test_modifier_notation(book: m.Book) -> None:
    assert f"DEX{NB}\u22122\u2002bad footing" in entries(card(book, "rough"))
    mire = entries(card(book, "mire"))
    assert f"MOV{NB}\u00d7½{NB}↑ (min{NB}1)\u2002mud" in mire
    smoke = entries(card(book, "smoke"))
    assert f"DEX{NB}\u22121 per smoke hex fired through\u2002for every hex fired through" in smoke
    assert "Does not stack with other Zone of Visibility MODs: only the strongest applies." in smoke
    darkness = card(book, "darkness")
    assert f"Unless lit by a flashlight: DEX{NB}={NB}5\u2002only lucky shots hit" in entries(darkness)


def test_conditions_in_words(book: m.Book) -> None:
    ice = entries(card(book, "ice"))
    # The input's label, and the choices in the order the type declares them.
    assert "Unless posture is kneeling, prone or crawling" in ice


def test_composition_names_its_source(book: m.Book) -> None:
    mire = card(book, "mire")
    headings = [getattr(b, "text", "") for b in mire.blocks]
    assert "As Rough Ground" in headings
    assert f"DEX{NB}\u22122\u2002bad footing" in entries(mire)


COMPOSED = """
rulebook composed "Composed":
    source "test"

stat skill "Skill": percent 0..100 = 50
input dark "Dark": flag
input foggy "Foggy": flag
group sight "Sight modifiers": strongest

trait attack "Attack" cites "A":
    roll hit "Hit": d100 <= skill
        note "A roll of 100 always misses."

rule aimed "Aimed shot" cites "B":
    as attack
    when dark:
        skill -20% in sight "dark"
    when foggy:
        skill -10% in sight "fog"
"""


def test_a_composed_roll_points_to_its_own_card_for_chances_and_notes() -> None:
    composed = compile_book(COMPOSED)
    # The attack card shows the roll's note; d100 <= skill needs no chance table: the chance is the skill.
    attack = card(composed, "attack")
    assert not any(isinstance(b, Chances) for b in attack.blocks)
    assert any(isinstance(b, Note) and "always misses" in b.text for b in attack.blocks)
    # ... the aimed card names the trait and its roll, and points there instead of copying it.
    aimed = card(composed, "aimed")
    assert not any(isinstance(b, (Chances, Note)) for b in aimed.blocks)
    assert not any(isinstance(b, RollHead) for b in aimed.blocks)  # a line, not a roll's band
    assert f"Roll \u00b7 Hit: d100{NB}\u2264{NB}skill \u00b7 in full on card 4." in entries(aimed)
    # A composed rule that is not a trait is copied, its rolls pointing to its card for chances.
    copied = card(compile_book(COMPOSED.replace("trait attack", "rule attack")), "aimed")
    assert "Chances and notes: see card 4." in entries(copied)
    assert not any(isinstance(b, (Chances, Note)) for b in copied.blocks)


def test_a_clamp_of_several_modifiers_keeps_its_own_line() -> None:
    book = compile_book(
        COMPOSED.replace('        skill -10% in sight "fog"\n', '        skill -10% in sight "fog"\n    skill min 5\n')
    )
    lines = entries(card(book, "aimed"))
    # Two modifiers of skill: the bound is on the total, so it is a line of its own, not on each.
    assert not any("(min" in line for line in lines)
    assert any(line.startswith("skill") and "min" in line and "5" in line for line in lines)


def test_the_legend_reads_in_the_books_own_stats_and_dice() -> None:
    legend = next(b for b in build_deck(compile_book(COMPOSED))[1].blocks if isinstance(b, Grid))
    # The book rolls d100 under skill and takes 20% off it: the legend says so, not `3d6 <= DEX`.
    assert (f"d100{NB}≤{NB}skill", "roll; success on skill or less") in legend.rows
    assert (f"skill{NB}\u221220%", "subtract 20% from skill") in legend.rows
    # What the book does not use, it does not explain: no `DEX = 5`, no 3d6.
    assert not any("DEX" in row[0] or "3d6" in row[0] for row in legend.rows)


def test_a_stacking_group_is_explained_once_a_card() -> None:
    aimed = card(compile_book(COMPOSED), "aimed")
    said = [e for e in entries(aimed) if e.startswith("Does not stack")]
    # Two modifiers of the group under two conditions: one sentence, after the first.
    assert said == ["Does not stack with other Sight modifiers: only the strongest applies."]
    assert entries(aimed).index(said[0]) < next(i for i, e in enumerate(entries(aimed)) if "fog" in e)


ERRATUM = [("need only roll 2d6/eDEX", "Read as 2d6 against DEX.")]


def test_errata_quote_the_source_in_the_appendix_by_default(book: m.Book) -> None:
    deck = build_deck(book)
    rough = next(c for c in deck if c.key == "rough")
    assert not any(isinstance(b, Note) for b in rough.blocks)
    assert rough.cites == "17.1"  # the citation stays on the card
    appendix = deck[-1]
    assert (appendix.kind, appendix.title) == ("Appendix", "Errata")
    assert [(b.text, b.detail) for b in appendix.blocks if isinstance(b, Heading)] == [("Rough Ground", f"No.{NB}4 · 17.1")]
    assert [(n.quote, n.text) for n in appendix.blocks if isinstance(n, Note)] == ERRATUM


@pytest.mark.parametrize("errata", ["card", "none"])
def test_errata_on_the_card_or_nowhere(book: m.Book, errata: str) -> None:
    deck = build_deck(book, errata=errata)
    notes = [b for b in next(c for c in deck if c.key == "rough").blocks if isinstance(b, Note)]
    assert [(n.quote, n.text) for n in notes] == (ERRATUM if errata == "card" else [])
    assert all(c.kind != "Appendix" for c in deck)


def test_table_card_rows(book: m.Book) -> None:
    grid = next(b for b in card(book, "weather").blocks if isinstance(b, Grid))
    assert grid.header == ("d20", "Sky", "Wind", "Chance")
    assert grid.rows == (
        ("1\u201310", "Clear", "Calm", "50%"),
        ("11\u201318", "Overcast", "Breeze", "40%"),
        ("19\u201320", "Storm", "Gale", "10%"),
    )


def test_the_bundled_rulebook_prints() -> None:
    from dsl.compiler import compile_file

    compiled = compile_file(bundled_rulebooks_dir() / "skirmish_terrain.rules")
    assert compiled.book is not None
    produced = card_files(compiled.book)
    assert len(pdf(produced["skirmish_terrain-cards-a4.pdf"]).pages) >= 2
    assert "Broken Ground" in produced["skirmish_terrain.html"].decode("utf-8")


# ---------------------------------------------------------------- long tables, in linear time


def table_book(rows: int, *, dice: int = 0, width: int = 1) -> str:
    """A rulebook with a table of `rows` rows looked up by level, and one rolled on d`dice`."""
    text = f'rulebook big "Big Tables":\n    version "1"\n\ninput level "Level": int 1..{rows} = 1\n\n'
    text += 'table loot "Loot" by level:\n    columns item "Item", worth "Worth"\n'
    text += "".join(f'    {i}: "row{i:04} {"word " * (width - 1)}end", {i % 17}\n' for i in range(1, rows + 1))
    if dice:
        text += '\ntable draws "Draws" roll d' + str(dice) + ':\n    columns item "Item"\n'
        text += "".join(f'    {i}: "draw {i}"\n' for i in range(1, dice + 1))
    return text


def test_three_thousand_table_rows_render_quickly() -> None:
    """Rendering was quadratic in a table's rows (10,000 rows took minutes): every part of a
    table split over cards or columns measured all the rows left again.  Only a guard against
    that coming back: linear rendering takes a few seconds here."""
    import time

    book = compile_book(table_book(2000, dice=1000))
    started = time.perf_counter()
    produced = card_files(book)
    assert time.perf_counter() - started < 15
    assert len(pdf(produced["big-cards-press.pdf"]).pages) > 100


def test_a_long_table_keeps_every_row_once_and_its_header_on_every_card(tmp_path: Path) -> None:
    book = compile_book(table_book(150))
    written = render_cards(book, tmp_path, fmt="pdf", layout="cards", paper="a4")
    press = next(p for p in written if p.name.endswith("-press.pdf"))
    pages = [p.extract_text() for p in PdfReader(press).pages if "Loot" in p.extract_text()]
    pages = [page for page in pages if "Index A" not in page]
    assert len(pages) > 5
    assert all("Item" in page and "Worth" in page for page in pages)  # the header row, repeated
    rows = re.findall(r"row\d{4}", "\n".join(pages))
    assert rows == [f"row{i:04}" for i in range(1, 151)]
    sheet = text_of(render_cards(book, tmp_path, fmt="pdf", layout="sheet", paper="a4")[0].read_bytes())
    assert re.findall(r"row\d{4}", sheet) == rows


def test_a_table_never_leaves_one_row_alone_on_the_next_card() -> None:
    from reportlab.lib import colors

    from dsl.cards.flow import grid_tables
    from dsl.cards.fonts import register_fonts

    register_fonts()
    grid = Grid(("d6", "Result"), tuple((str(i), f"result {i}") for i in range(1, 7)))
    (table,) = grid_tables(grid, BODY, colors.black)
    _, height = table.wrap(BODY, 1e6)
    # Room for five of the six rows: the split leaves two on the next card, not the sixth alone.
    first, rest = table.split(BODY, height - 1.0)
    assert (first._nrows - 1, rest.stop - rest.start) == (4, 2)
    # Room for two rows only: they stay here, the other four go on.
    two = table.data.head_height + table.data.height(0, 2) + 0.5
    first, rest = table.split(BODY, two)
    assert (first._nrows - 1, rest.stop - rest.start) == (2, 4)


def test_a_table_row_taller_than_a_card_is_split_inside() -> None:
    book = compile_book(table_book(3, width=400))
    faces = [f for f in faces_of(build_deck(book)) if f.card.key == "loot"]
    assert len(faces) > 2
    text = text_of(card_files(book)["big-cards-press.pdf"])
    assert re.findall(r"row\d{4}", text) == ["row0001", "row0002", "row0003"]
    assert text.count("word") == 3 * 399


def test_numeric_columns_and_distributions_are_computed_once() -> None:
    from dsl.cards.chances import distribution

    grid = Grid(("d6", "Result", "Chance"), (("1\u20133", "Calm", "50%"), ("4\u20136", "Storm", "50%")))
    assert [grid.numeric(i) for i in range(4)] == [False, False, True, False]
    assert distribution(3, 6) is distribution(3, 6)


# ---------------------------------------------------------------- operators and line breaks

WALLS = """\
rulebook walls "Walls":
    version "1"

input attacker_distance "Hexes from the attacker": int 1..99 = 10
input target_distance "Hexes to the target": int 1..99 = 10
input wall_height "Height of the wall": int 0..9 = 0
input attacker_standing "The attacker stands": flag = no

rule cover "Walls: cover":
    derive protected "Completely protected by the wall" = (
        (wall_height >= 1 and not (attacker_standing and attacker_distance < 3))
        or (wall_height >= 2 and attacker_distance > 1 and target_distance <= 4)
        or (wall_height > 3 and attacker_distance > 1) or (target_distance < 2 and wall_height >= 1))
    when attacker_distance < 3 and wall_height <= 1 and target_distance > 1:
        cannot "hide behind the wall from an attacker this close"
"""


def test_an_operator_is_joined_to_its_operands() -> None:
    cover = card(compile_book(WALLS), "cover")
    text = " ".join(entries(cover) + [b.text for b in cover.blocks if isinstance(b, Condition)])
    assert f"hexes from the attacker{NB}<{NB}3" in text
    assert f"height of the wall{NB}≥{NB}2" in text


@pytest.mark.parametrize("name", ["walls-cards-press.pdf", "walls-sheet-a4.pdf"])
def test_no_line_ends_with_an_operator(name: str) -> None:
    lines = text_of(card_files(compile_book(WALLS))[name]).splitlines()
    assert any("hexes from the attacker" in line for line in lines)
    assert [line for line in lines if re.search("[<>≤≥=+\u2212\u00d7/]$", line.strip(" \u00a0"))] == []


def test_html_keeps_operators_with_their_operands() -> None:
    files = card_files(compile_book(WALLS))
    for name in ("walls.html", "walls-sheet.html"):
        assert f"hexes from the attacker{NB}&lt;{NB}3" in files[name].decode("utf-8")


def test_an_expression_too_long_for_a_line_breaks_before_an_operator() -> None:
    from dsl.cards.flow import loosen

    times, minus = "\u00d7", "\u2212"
    long = NB.join(["carried", times, "gravity", "+", "(gravity", minus, "1)", times, "70"])
    assert loosen(long, 1000, 8) == long
    assert loosen(long, 40, 8) == f"carried {times}{NB}gravity +{NB}(gravity {minus}{NB}1) {times}{NB}70"
    assert loosen(f"moved{NB}>{NB}3 and more", 1000, 8) == f"moved{NB}>{NB}3 and more"


def test_the_legend_says_how_its_format_shows_long_cards(book: m.Book, files: dict[str, bytes]) -> None:
    page = files["cardtest.html"].decode("utf-8")
    assert "Every card is shown whole" in page
    assert "1/2, 2/2" not in page
    assert "Long cards go on: 1/2, 2/2." in " ".join(text_of(files["cardtest-cards-press.pdf"]).split())


# ---------------------------------------------------------------- a target the rule sets

DARK = """\
rulebook dark "Dark":
    version "1"

stat to_hit "DEX to hit": int 0..30 = 10
input lit "Lit": flag = no
input thrown "Throwing": flag = no

rule dark "Complete Darkness":
    unless lit:
        when thrown:
            to_hit = 5 "DEX is considered 5"
            roll hit "Hit in the dark": 3d6 <= to_hit

rule fog "Fog":
    when thrown:
        to_hit = 7
        when lit:
            roll hit "Hit in the fog": 3d6 <= to_hit

rule dusk "Dusk":
    when lit:
        to_hit = 5
    roll hit "Hit at dusk": 3d6 <= to_hit
"""


def test_a_target_the_rule_sets_shows_its_one_value() -> None:
    book = compile_book(DARK)
    # One value: a line, not a table of one cell.
    assert not any(isinstance(b, Chances) for b in card(book, "dark").blocks)
    assert "Chance at DEX to hit 5: 5%" in entries(card(book, "dark"))  # 1 + 3 + 6 = 10 of 216 rolls
    assert "Chance at DEX to hit 7: 16%" in entries(card(book, "fog"))  # set outside, rolled inside: 35 of 216
    roll = next(e for e in book.parts["dark"].effects if isinstance(e, m.RollEffect))
    dark = roll_chances(roll, Notation(book), Fraction(5))
    assert dark is not None and (dark.against, dark.columns) == ("DEX to hit", ("5",))
    assert dark.rows[0].chances == (Fraction(10, 216),)


def test_a_target_set_under_other_conditions_keeps_its_range() -> None:
    dusk = next(b.table for b in card(compile_book(DARK), "dusk").blocks if isinstance(b, Chances))
    assert len(dusk.columns) > 3


# ---------------------------------------------------------------- breaking cards and columns


def box(height: float, **how: bool) -> Item:
    return Item(Spacer(10, height), split=False, **how)


def heights(frames: list[list[Placed]]) -> list[list[float]]:
    return [[round(p.height) for p in frame] for frame in frames]


SENTENCES = [f"Sentence {word} of the note is long enough to take most of a line." for word in "abcdef"]


def note_item() -> tuple[Item, float]:
    """A note of six sentences, and the height of a card it just fits on."""
    item = Item(prose(SENTENCES, NOTE), whole=True)
    return item, item.flowable.wrap(BODY, 1000)[1] + 10


def plain(placed: Placed) -> str:
    text: str = placed.flowable.getPlainText()
    return text


def test_a_note_moves_whole_rather_than_split() -> None:
    note, room = note_item()
    frames = paginate([box(room * 0.6), note], (room,), BODY)
    assert len(frames) == 2 and frames[1][0].flowable is note.flowable


def test_a_note_splits_after_a_sentence_rather_than_leave_a_card_mostly_empty() -> None:
    note, room = note_item()
    frames = paginate([box(room * 0.3), note], (room,), BODY)
    assert len(frames) == 2 and len(frames[0]) == 2
    first, rest = plain(frames[0][1]), plain(frames[1][0])
    assert first.endswith("line.") and rest.startswith("Sentence")
    assert f"{first} {rest}" == " ".join(SENTENCES)


def test_a_sentence_taller_than_a_card_is_split_between_lines_where_it_stands() -> None:
    long = Item(prose([" ".join(["gravel"] * 200) + "."], NOTE), whole=True)
    frames = paginate([box(20), long], (100,), BODY)
    assert len(frames[0]) == 2  # not moved to an empty card first
    assert drawn(frames).split() == ["gravel"] * 199 + ["gravel."]


def drawn(frames: list[list[Placed]]) -> str:
    """The text of frames drawn one to a page (a part of a split paragraph has no plain text)."""
    from reportlab.pdfgen.canvas import Canvas

    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(BODY + 20, 1000))
    for frame in frames:
        y = 990.0
        for placed in frame:
            y -= placed.space + placed.height
            placed.flowable.drawOn(canvas, 10, y)
        canvas.showPage()
    canvas.save()
    return text_of(buffer.getvalue())


def test_a_nearly_empty_last_card_is_balanced_with_the_one_before() -> None:
    items = [box(50), box(45), box(10)]
    assert heights(paginate(items, (100,), BODY)) == [[50, 45], [10]]
    assert heights(paginate(items, (100,), BODY, balance=True)) == [[50], [45, 10]]


def test_a_trial_stops_once_the_items_take_more_frames_than_asked() -> None:
    """Five boxes of 40 in frames of 100: [40, 40], [40, 40], [40] in full; a trial asking
    whether they fit on one frame stops when the second starts (it holds no box yet)."""
    items = [box(40) for _ in range(5)]
    whole = paginate(items, (100,), BODY)
    assert heights(whole) == [[40, 40], [40, 40], [40]]
    trial = paginate(items, (100,), BODY, most=1)
    assert heights(trial) == [[40, 40], []]
    assert heights(paginate(items[:2], (100,), BODY, most=1)) == [[40, 40]]


def test_a_trial_takes_only_the_items_it_places() -> None:
    """Ten boxes of 40 in frames of 100, made as they are asked for: the trial places two, tries
    the third on the first frame, and stops as the second frame starts."""
    taken: list[int] = []

    def boxes() -> Iterator[Item]:
        for index in range(10):
            taken.append(index)
            yield box(40)

    assert heights(paginate(boxes(), (100,), BODY, most=1)) == [[40, 40], []]
    assert taken == [0, 1, 2]


def test_a_continued_card_repeats_its_heading() -> None:
    notes = "".join(f'    note "Note {i}: {LONG_NOTE[:150]}"\n' for i in range(8))
    book = compile_book(BOOK + f'\nrule quarry "Quarry":\n    DEX -1\n{notes}')
    faces = [f for f in faces_of(build_deck(book)) if f.card.key == "quarry"]
    assert len(faces) > 1
    for face in faces[1:]:
        assert plain(face.items[0]) == "NOTES (CONT.)"  # headings are set in capitals


def test_no_card_ends_with_a_heading() -> None:
    from dsl.compiler import compile_file

    compiled = compile_file(bundled_rulebooks_dir() / "skirmish_terrain.rules")
    assert compiled.book is not None
    faces = faces_of(build_deck(compiled.book))
    for face in faces:
        last = face.items[-1].flowable
        assert getattr(last, "style", None) is None or last.style.name not in ("heading_accent", "condition")
        assert not isinstance(last, RollHeading)


def many_rules(count: int) -> str:
    rules = "".join(
        f'\nrule r{i:02} "Terrain Q{i:02}" cites "{i}":\n    category movement\n'
        f"    when moved > {i}:\n        DEX -1\n        MOV -1\n    DEX -{i % 3 + 1}\n"
        for i in range(count)
    )
    effects = "".join(f"    when moved > {i}:\n        DEX -{i}\n" for i in range(1, 40))
    return BOOK + rules + f'\nrule long "Long Rule":\n    category movement\n{effects}'


def test_sheet_odds_mix_totals_and_kept_dice_of_one_pool() -> None:
    # `d20 <= BS` and `lowest of 2d20 <= BS` less a die both roll one d20: the odds list both.
    text = (
        'rulebook odds "Odds":\n    source "test"\n\nstat BS: int 0..20 = 12\ninput burst: int 1..2 = 2\n\n'
        'rule fire "Fire" cites "1":\n    roll one "One die": d20 <= BS\n'
        '    roll any "At least one": lowest of 2d20 <= BS\n        when burst == 1: -1 die\n'
    )
    sheet = build_sheet(compile_book(text))
    (odds,) = [s for s in sheet.sections if s.title == "Dice odds"]
    (grid,) = odds.entries[0].blocks
    assert isinstance(grid, Grid)
    assert grid.header == ("Target", "d20", "lowest of d20", "lowest of 2d20")
    # Target 12: d20 <= 12 is 12/20 = 60%; at least one of 2d20 is 1 - (8/20)^2 = 84%.
    assert ("12", "60%", "60%", "84%") in grid.rows


def test_sheet_columns_repeat_the_category_and_entry_they_continue() -> None:
    sheet = build_sheet(compile_book(many_rules(30)))
    columns = sheet_columns(sheet)
    firsts = [plain(column[0]) for column in columns[1:]]
    assert "MOV · MOVEMENT (CONT.)" in firsts  # bands are set in capitals
    continued = [c for c in columns[1:] if plain(c[0]) == "MOV · MOVEMENT (CONT.)" and len(c) > 1]
    assert any(plain(c[1]) == "Long Rule (cont.)" for c in continued)
    for column in columns:
        last = column[-1].flowable
        name = getattr(getattr(last, "style", None), "name", "")
        assert name not in ("sheet_section_c", "sheet_entry", "heading_accent", "condition")
        assert not isinstance(last, RollHeading)


def test_odds_list_a_plain_pool_and_the_highest_die_of_the_same_dice() -> None:
    # `highest of 2d6` with `-1 die` also rolls the highest of one d6: the odds table lists it,
    # 2d6 and highest of 2d6 without comparing a plain pool's missing keep with a keep's name.
    sheet = build_sheet(
        compile_book(
            'rulebook odds "Odds":\n    source "test"\n\n'
            "input skill: int 1..2 = 2\ninput threshold: int 1..6 = 3\n\n"
            'rule pilot "Pilot" cites "1":\n'
            '    roll steer "Steer": highest of 2d6 >= threshold\n'
            "        when skill == 1: -1 die\n"
            '    roll crash "Crash": 2d6 >= threshold\n'
        )
    )
    odds = [entry for section in sheet.sections for entry in section.entries if entry.kind == "Odds"]
    assert [entry.title for entry in odds] == ["Roll over: total ≥ target"]
    grid = odds[0].blocks[0]
    assert isinstance(grid, Grid)
    assert grid.header == ("Target", "highest of d6", "2d6", "highest of 2d6")


def test_the_odds_grid_reaches_exploding_dice_beside_plain_ones(tmp_path: Path) -> None:
    """A sheet's odds grid with plain 2d6 and exploding 2d6 (a change makes the dice explode)
    runs to the plain pool's highest and past it, where only the exploding dice reach.  It used
    to stop the sheet with an error: the exploding dice were worked out to a total of 2 only.

    Exploding 2d6 >= 9, by hand: a die shows 1-5 (1/6 each) or 6 + another roll.  Totals of 9 or
    more out of 108ths: the resolver's 41/108 (38.0%); plain 2d6 >= 9: 10/36 (28%)."""
    from dsl.cards.sheet import build_sheet
    from dsl.cards.text import DASH
    from dsl.compiler import compile_file

    fixture = Path(__file__).parent.parent / "fixtures" / "valid" / "E203_exploding_change_on_a_roll_without_target.rules"
    compiled = compile_file(fixture)
    assert compiled.book is not None
    sheet = build_sheet(compiled.book)
    (odds,) = [entry for section in sheet.sections for entry in section.entries if entry.kind == "Odds"]
    (grid,) = odds.blocks
    assert isinstance(grid, Grid)
    assert grid.header == ("Target", "2d6", "exploding 2d6")
    rows = {row[0]: row[1:] for row in grid.rows}
    assert rows["9"] == ("28%", "38%")
    assert rows["13"] == (DASH, "17%")  # past the plain dice: only the exploding ones get there


SHARED_SUBJECT = """\
rulebook shared "Shared":
    source "S"
    version "1"

stat DEX "Dexterity": int 3..18 = 10
input dim "The light is dim": flag = no
input dark "The light is dark": flag = no
input blinding "The light is blinding": flag = no
input wet "The ground is wet": flag = no
input icy "The ground is icy": flag = no
rule light "Light" cites "1":
    when dim: DEX -1
    when dark: DEX -3
    when blinding: DEX -2
rule ground "Ground" cites "2":
    when wet: DEX -1
    when icy: DEX -2
"""


def test_lines_whose_conditions_share_a_subject_say_it_once() -> None:
    """Three lines or more whose conditions begin with the same words ("when the light is ...")
    say them once, as the condition of the lines, and each line only what differs; two lines
    keep their own conditions (a line more would cost more than it saves)."""
    book = compile_book(SHARED_SUBJECT)
    light = card(book, "light")
    conditions = [b.text for b in light.blocks if isinstance(b, Condition)]
    assert conditions == ["When the light is:"]
    assert entries(light) == [f"Dim: DEX{NB}\u22121", f"Dark: DEX{NB}\u22123", f"Blinding: DEX{NB}\u22122"]
    ground = card(book, "ground")
    assert not [b for b in ground.blocks if isinstance(b, Condition)]
    assert entries(ground) == [f"When the ground is wet: DEX{NB}\u22121", f"When the ground is icy: DEX{NB}\u22122"]


NESTED = """\
rulebook chase "Chase":
    source "S"

grades "Difficulty":
    difficult -1: / 2 round up

stat skill "Skill": int 0..100 = 50
input in_chase "Taking part in a chase": flag = no
input missile "The attack is a missile attack": flag = no
input range "Range": one of {near, close, far, gone} = near
rule chase_attacks "Chase attacks" cites "1":
    when in_chase:
        when missile:
            when range == close: skill is difficult "at Close range"
            when range == far: skill -20 "at Far range"
            when range == gone: skill = 0 "out of sight"
        unless missile:
            cannot "attack hand to hand beyond Near range"
        roll shot "Attack during the chase": d100 <= skill
"""


def test_nested_conditions_are_said_once_each_one_level_in() -> None:
    """A rule's `when` blocks print as they nest: the condition the effects share once at its
    level, what each inner block adds one level in, and no line repeats a condition said above
    it; a chance table's rows say only what the roll's own conditions leave out."""
    book = compile_book(NESTED)
    chase = card(book, "chase_attacks")
    said = [
        (type(b).__name__, b.indent, b.text if isinstance(b, Condition) else "".join(r.text for r in b.runs))
        for b in chase.blocks
        if isinstance(b, (Condition, Entry))
    ]
    assert said == [
        ("Entry", 0, "Skill starts at 50"),
        ("Condition", 0, "When taking part in a chase:"),
        ("Condition", 1, "When the attack is a missile attack:"),
        ("Condition", 2, "When range is:"),
        ("Entry", 3, f"Close: skill{NB}is difficult (\u00d7\u00bd{NB}\u2191)\u2002at Close range"),
        ("Entry", 3, f"Far: skill{NB}\u221220\u2002at Far range"),
        ("Entry", 3, f"Gone: skill{NB}={NB}0\u2002out of sight"),
        ("Condition", 1, "Unless the attack is a missile attack:"),
        ("Entry", 2, "Cannot attack hand to hand beyond Near range"),
    ]
    table = next(b.table for b in chase.blocks if isinstance(b, Chances))
    assert [row.note for row in table.rows] == [
        "if the attack is a missile attack and range is close",
        "if the attack is a missile attack and range is far",
    ]


def test_a_table_of_long_text_is_read_on_its_own_card_not_copied() -> None:
    """Radiation reads its effects from the Radiation Effects Table, whose rows are paragraphs:
    the Radiation card names the table's card rather than copying them (they took a face), while
    short rows (the intensity's names) are printed where they are read.  A deck without the
    table's card (`only`) prints them all: the card then answers alone."""
    book = compile_book((bundled_rulebooks_dir() / "spot_rules_e_to_z.rules").read_text(encoding="utf-8"))
    number = next(c.number for c in deck_of(book).cards if c.title == "Radiation Effects Table")

    def said(cards: tuple[Card, ...]) -> str:
        radiation = next(c for c in cards if c.title == "Radiation")
        return " ".join("".join(r.text for r in b.runs) for b in radiation.blocks if isinstance(b, (Entry, Detail)))

    whole = said(deck_of(book).cards)
    assert f"Effects of a failure by POT of the radiation exposure: see \u201cRadiation Effects Table\u201d, card {number}" in whole
    assert "Irritations" not in whole
    assert f"0\u20139{NB}\u2192{NB}Low" in whole  # the intensity's names: short, on the card
    alone = said(deck_of(book, only=["radiation"]).cards)
    assert "Irritations" in alone
