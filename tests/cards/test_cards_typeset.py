"""Card paragraphs set by dsl/cards/typeset.py: every line of the bundled decks within its
width, every word whole and in order, each run in the font its markup asks for; what the
markup cards write is set there, anything else by reportlab's Paragraph."""

from __future__ import annotations

import re

import pytest
from reportlab.platypus import Paragraph

from dsl.cards.blocks import Card
from dsl.cards.deck import deck_of
from dsl.cards.flow import CHANCE_LABEL, DETAIL, ENTRY, HEADING, Para, SetLines
from dsl.cards.fonts import BOLD, ITALIC, REGULAR, register_fonts, text_width
from dsl.cards.pdfcards import BODY_WIDTH, fitted_faces
from dsl.compiler import compile_file
from dsl.resources import bundled_rulebooks_dir


def _paragraphs(books: list[str]) -> list[tuple[Para | SetLines, float]]:
    found: list[tuple[Para | SetLines, float]] = []
    for name in books:
        book = compile_file(bundled_rulebooks_dir() / f"{name}.rules").book
        assert book is not None
        for face in fitted_faces(deck_of(book)):
            for placed in face.items:
                if isinstance(placed.flowable, (Para, SetLines)):
                    found.append((placed.flowable, placed.flowable.width))
    return found


def test_every_line_of_two_decks_fits_its_width_and_keeps_every_word() -> None:
    set_here = 0
    for flowable, width in _paragraphs(["skirmish_terrain", "zone_combat"]):
        lines = flowable.lines
        if lines is None:
            continue
        style = flowable.style
        for index, line in enumerate(lines):
            room = width - style.leftIndent - style.rightIndent - (style.firstLineIndent if index == 0 else 0)
            assert line.width <= room + 1e-6, [p.text for p in line.runs]
            measured = sum(text_width(run.text, run.font, run.size) for run in line.runs)
            assert abs(measured - line.width) < 1e-6  # the runs drawn are the words measured
        if isinstance(flowable, Para):
            plain = Paragraph(flowable.text, style).getPlainText()
            drawn = " ".join("".join(run.text for run in line.runs) for line in lines)
            words = re.split(r"[ \u2002]+", plain.strip())
            assert drawn.split(" ") == [w.upper() if style.textTransform == "uppercase" else w for w in words]
            set_here += 1
    assert set_here > 500


@pytest.mark.parametrize(
    ("markup", "style", "fonts"),
    [
        ("plain words", DETAIL, {REGULAR}),
        ("<b>DEX\u00a0\u22122</b> <font color=\"#5c5c5c\" size=\"7.5\">bad footing</font>", ENTRY, {BOLD, REGULAR}),
        ("<i>When wet:</i> <b>MOV\u00a0\u00d7\u00bd</b>", DETAIL, {ITALIC, REGULAR, BOLD}),  # the space between: regular
        ('Errata\u2002<font name="RulecraftSans" color="#5c5c5c">No. 5 \u00b7 17.1</font>', HEADING, {BOLD, REGULAR}),
        ("<b>skill</b> <font size=\"7\" color=\"#5c5c5c\">chance %</font>", CHANCE_LABEL, {BOLD, REGULAR}),
        ("Trap &amp; <i>Snare</i> &lt;1&gt;", DETAIL, {REGULAR, ITALIC}),
    ],
)
def test_the_markup_cards_write_is_set_in_its_fonts(markup: str, style: object, fonts: set[str]) -> None:
    register_fonts()
    paragraph = Para(markup, style)  # type: ignore[arg-type]
    paragraph.wrap(BODY_WIDTH, 1000)
    assert paragraph.lines is not None
    assert {run.font for line in paragraph.lines for run in line.runs} == fonts
    text = "".join(run.text for line in paragraph.lines for run in line.runs)
    expected = Paragraph(markup, style).getPlainText().replace("\u2002", " ")  # type: ignore[arg-type]
    assert text == (expected.upper() if style is HEADING else expected)


@pytest.mark.parametrize("markup", ["a<br/>b", "<u>under</u>", '<font face="Times">x</font>', "x &#60; y"])
def test_markup_cards_do_not_write_is_left_to_reportlab(markup: str) -> None:
    register_fonts()
    paragraph = Para(markup, DETAIL)
    paragraph.wrap(BODY_WIDTH, 1000)
    assert paragraph.lines is None and paragraph.laid is not None


def test_a_word_wider_than_a_line_is_left_to_reportlab_which_cuts_it() -> None:
    register_fonts()
    paragraph = Para("x" * 400, DETAIL)
    _, height = paragraph.wrap(BODY_WIDTH, 1000)
    assert paragraph.lines is None and height > DETAIL.leading


def test_a_split_paragraph_keeps_its_lines_in_order_and_no_line_alone() -> None:
    register_fonts()
    text = " ".join(f"word{i:03}" for i in range(200))
    paragraph = Para(text, DETAIL)
    paragraph.wrap(BODY_WIDTH, 1000)
    assert paragraph.lines is not None
    count = len(paragraph.lines)
    first, rest = paragraph.split(BODY_WIDTH, DETAIL.leading * 4.5)
    assert isinstance(first, SetLines) and isinstance(rest, SetLines)
    assert len(first.lines) == 4 and first.lines + rest.lines == paragraph.lines
    assert paragraph.split(BODY_WIDTH, DETAIL.leading * 1.5) == []  # one line alone at the foot
    widow = paragraph.split(BODY_WIDTH, DETAIL.leading * (count - 1) + 0.5)
    assert [len(part.lines) for part in widow] == [count - 2, 2]  # the last line does not go alone


def test_a_card_s_faces_are_the_same_twice() -> None:
    book = compile_file(bundled_rulebooks_dir() / "terrain_cards.rules").book
    assert book is not None
    first: list[Card] = [face.card for face in fitted_faces(deck_of(book))]
    assert first == [face.card for face in fitted_faces(deck_of(book))]
