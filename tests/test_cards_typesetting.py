"""The shortcuts of card typesetting give reportlab's own results: widths, codes, escapes, spacing."""

from __future__ import annotations

import sys

import pytest
from reportlab.lib import rl_accel
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus.paragraph import cleanBlockQuotedText

from dsl.cards import canvas
from dsl.cards.canvas import new_canvas
from dsl.cards.fonts import BOLD, REGULAR, register_fonts
from dsl.cards.fragments import _ODD_SPACE

register_fonts()

SAMPLES = [
    "",
    "a",
    "Keep footing: 3d6\u00a0\u2264\u00a0DEX",
    "Überschreitung — «Élan» · naïve café → ½ \u00d7 3 ≤ 5 \u2212 2",
    "(brackets) and \\backslashes\\ and \u201cquotes\u201d",
    "\u4e2d\u6587 and \U0001f3b2 (no glyph in the card font)",
]


@pytest.mark.parametrize("text", SAMPLES)
@pytest.mark.parametrize("size", [7.0, 7.5, 8.5, 10])
def test_a_width_measured_first_is_reportlabs_own(text: str, size: float) -> None:
    for name in (REGULAR, BOLD):
        font = pdfmetrics.getFont(name)
        font._widths.clear()  # measured afresh, not remembered
        assert font.stringWidth(text, size) == TTFont.stringWidth(font, text, size)


def test_text_split_into_subsets_is_what_reportlab_splits_it_into() -> None:
    """A document that has met more than 256 characters puts them in a second subset (codes
    from 256 on); text with characters of both, or with a no-break space (set as a space), must
    split into reportlab's runs.  Two documents meet the same text in the same order, one split
    by reportlab only, one through the card font's shortcut."""
    font = pdfmetrics.getFont(REGULAR)
    ours, theirs = canvas.new_canvas()._doc, canvas.new_canvas()._doc
    many = "".join(chr(c) for c in range(0x20, 0x2FF) if ord(" ") <= c and c in font.face.charToGlyph)
    texts = [*SAMPLES, many, "x" + many[::-1] + "\u00a0y", "a\u00a0b", *SAMPLES]
    for text in texts:
        assert font.splitString(text, ours) == TTFont.splitString(font, text, theirs), text
    assert font.state[ours].assignments == font.state[theirs].assignments
    assert max(font.state[ours].assignments.values()) > 256  # the second subset was reached


def test_the_shortcut_needs_every_code_known() -> None:
    from dsl.cards.fonts import _Codes

    font = pdfmetrics.getFont(REGULAR)
    doc = canvas.new_canvas()._doc
    codes = _Codes()
    assert font._coded("abc", doc, codes) is None  # the document has no codes for the font yet
    font.splitString("ab\u00e9", doc)  # ASCII has its own codes from the start, "\u00e9" gets one now
    assert font._coded("\u00e9b\u00a0a", doc, codes) == TTFont.splitString(font, "\u00e9b\u00a0a", doc)
    assert font._coded("ab\u00e8", doc, codes) is None  # "\u00e8" has no code yet
    assert font._coded("", doc, codes) is None
    font.splitString("\u00e8", doc)  # met since the tables were made: made again
    assert font._coded("\u00e8\u00e9", doc, codes) == TTFont.splitString(font, "\u00e8\u00e9", doc)


@pytest.mark.skipif(not canvas._FAST_ESCAPE, reason="reportlab's C accelerator escapes: nothing to replace")
def test_text_operators_are_escaped_as_reportlab_escapes_them() -> None:
    every_byte = bytes(range(256))
    assert canvas._translated_escape(every_byte) == rl_accel.escapePDF(every_byte)
    assert canvas._translated_escape(b"(a\\b)") == "\\(a\\\\b\\)"  # ( \ ) escaped by a backslash
    assert canvas._translated_escape(b"\x00\xff") == "\\000\\377"  # the rest as octal
    assert canvas._translated_escape("text") == rl_accel.escapePDF("text")  # not bytes: reportlab's own
    assert canvas.new_canvas()._escape is canvas._translated_escape


def test_text_left_alone_by_the_spacing_check_is_text_reportlab_leaves_alone() -> None:
    """Every character of Unicode between two letters and at either end: wherever the check
    finds nothing to clean, reportlab's cleaning returns the text unchanged."""
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        for text in (f"a{char}b", f"{char}b", f"a{char}", f"a{char}{char}b"):
            if not _ODD_SPACE.search(text):
                assert cleanBlockQuotedText(text) == text, hex(code)
    # and what it finds is what reportlab changes
    for text in ("a  b", " a", "a ", "a\nb", "a\tb", "a\u2003b", "\u200ba"):
        assert _ODD_SPACE.search(text)
        assert cleanBlockQuotedText(text) != text or text == "a\u200bb"


def _asked(asked: list[object], paragraph: object) -> bool:
    """A stand-in for `draw_lines` that notes the paragraph and leaves it to reportlab."""
    asked.append(paragraph)
    return False


@pytest.mark.parametrize(
    "text, style, bullet",
    [
        ("plain words of one style across more than one line of the card", "DETAIL", None),
        ("<b>Hit</b> on 4+, <i>or</i> 5+ against a <b>shielded</b> target in cover", "ENTRY", None),
        ("<b>Move</b> up to your speed", "DETAIL", "\u2022"),
        ("50", "CHANCE", None),
    ],
)
def test_a_paragraph_drawn_again_in_a_document_writes_what_reportlab_writes(
    text: str, style: str, bullet: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first of three twins is drawn by reportlab and remembered, the second is replayed
    from what the first drew (reportlab is not asked), the third drawn by reportlab itself: the
    second and third write the same operators."""
    from reportlab.platypus import Paragraph

    from dsl.cards import flow

    paragraph_style = getattr(flow, style)
    drawing = new_canvas()
    first, second, third = (flow.Para(text, paragraph_style, bulletText=bullet) for _ in range(3))
    for paragraph in (first, second, third):
        paragraph.wrap(90.0, 1e6)
        paragraph.canv = drawing
    assert second.blPara is first.blPara  # lines broken once, shared
    first.drawPara()
    asked: list[object] = []
    reportlabs = Paragraph.drawPara
    monkeypatch.setattr(Paragraph, "drawPara", lambda self, debug=0: asked.append(self))
    monkeypatch.setattr(flow, "draw_lines", lambda paragraph: _asked(asked, paragraph))
    code = drawing._code
    start = len(code)
    second.drawPara()
    replayed = code[start:]
    assert not asked and replayed
    start = len(code)
    reportlabs(third)
    assert code[start:] == replayed


def test_a_paragraph_is_replayed_only_in_the_document_that_drew_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another document gives the characters other codes (in the order it meets them): there the
    twin is drawn afresh; so is a twin at another width (other lines)."""
    from reportlab.platypus import Paragraph

    from dsl.cards import flow
    from dsl.cards.flow import DETAIL, Para

    text = "\u00bd \u00d7 \u00e9 then <b>bold</b> words"
    first, elsewhere, wider = Para(text, DETAIL), Para(text, DETAIL), Para(text, DETAIL)
    first.wrap(60.0, 1e6)
    elsewhere.wrap(60.0, 1e6)
    wider.wrap(120.0, 1e6)
    first.canv = wider.canv = new_canvas()
    elsewhere.canv = new_canvas()
    first.drawPara()
    asked: list[object] = []  # drawn afresh: by drawing.py or by reportlab
    monkeypatch.setattr(flow, "draw_lines", lambda paragraph: _asked(asked, paragraph))
    monkeypatch.setattr(Paragraph, "drawPara", lambda self, debug=0: asked.append(self))
    elsewhere.drawPara()
    wider.drawPara()
    assert asked == [elsewhere, elsewhere, wider, wider]


@pytest.mark.skipif(not canvas._FAST_ESCAPE, reason="reportlab's C accelerator formats numbers: nothing is remembered")
def test_numbers_met_alone_and_together_are_written_as_reportlab_writes_them() -> None:
    """Several arguments are written number by number from memory: the same text as reportlab
    writing them together, whichever was met first (-0.0 and 0 both "0", True left to reportlab)."""
    cases: list[tuple[object, ...]] = [
        (0.1,),
        (0.1, 0.2, 0.30000000000000004),
        (-0.0, 0, 1e-7, 1.0000001e-7),
        (True, 2.5),
        (841.8897637795277, 1e12, -1e-3, 5),
        (7, 7.0),
    ]
    for numbers in cases + cases[::-1]:
        assert canvas._remembered_fp_str(*numbers) == rl_accel._py_fp_str(*numbers), numbers
