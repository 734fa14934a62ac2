"""Paragraphs drawn by dsl/cards/drawing.py: exactly reportlab's operators, or reportlab's drawing."""

from __future__ import annotations

from typing import Any

import pytest
from reportlab.lib.abag import ABag
from reportlab.lib.colors import Color
from reportlab.lib.enums import TA_CENTER, TA_JUSTIFY, TA_LEFT, TA_RIGHT
from reportlab.platypus import Paragraph

from dsl.cards import card_files, flow
from dsl.cards.canvas import new_canvas
from dsl.cards.drawing import draw_lines
from dsl.cards.flow import CHANCE, CONDITION, DETAIL, ENTRY, HEADING, Para, derived
from dsl.cards.fonts import register_fonts
from dsl.compiler import compile_file
from dsl.resources import bundled_rulebooks_dir

register_fonts()


def _drawn_both_ways(paragraph: Any) -> tuple[list[str], list[str]] | None:
    """The operators `draw_lines` writes for the paragraph and those reportlab writes after it on
    the same canvas (whose document then knows every character's code), reportlab's taken back
    out; None when `draw_lines` leaves it to reportlab."""
    canvas = paragraph.canv
    code = canvas._code
    depth = len(canvas.state_stack)
    start = len(code)
    if not draw_lines(paragraph):
        assert len(code) == start  # nothing written
        return None
    ours = code[start:]
    assert len(canvas.state_stack) == depth
    middle = len(code)
    Paragraph.drawPara(paragraph)
    theirs = code[middle:]
    del code[middle:]
    return ours, theirs


@pytest.mark.parametrize(
    "text, style",
    [
        ("plain words of one style across more than one line of a narrow card", DETAIL),
        ("<b>Hit</b> on 4+, <i>or</i> 5+ against a <b>shielded</b> target in cover", ENTRY),
        ("<b>bold <i>and italic</i></b> runs, then plain", CONDITION),
        ('a <font color="#5c5c5c" size="7">muted smaller</font> run and <b>bold</b>', DETAIL),
        ("Überschreitung — «Élan» · naïve café → ½ ≤ 5 (brackets) \\ back", HEADING),
        ("<b>\u4e2d\u6587</b> with no glyph, \U0001f3b2", DETAIL),
        ("<b></b> empty run first", DETAIL),
        ("50", CHANCE),
    ],
)
@pytest.mark.parametrize("alignment", [TA_LEFT, TA_CENTER, TA_RIGHT])
def test_crafted_paragraphs_are_drawn_as_reportlab_draws_them(text: str, style: Any, alignment: int) -> None:
    """Left-aligned, every paragraph; centred or right-aligned, those of one style."""
    drawn = 0
    for width in (30.0, 60.0, 90.0, 400.0):
        paragraph = Para(text, derived(style, f"_aligned{alignment}", alignment=alignment))
        paragraph.wrap(width, 1e6)
        paragraph.canv = new_canvas()
        found = _drawn_both_ways(paragraph)
        if found is None and alignment != TA_LEFT and paragraph.blPara.kind == 1:
            continue  # mixed styles centred or right-aligned: reportlab's
        if found is None:  # only where reportlab squeezes a line's spaces to fit it
            lines = paragraph.blPara.lines
            extras = [line[0] for line in lines] if paragraph.blPara.kind == 0 else [line.extraSpace for line in lines]
            assert min(extras) <= -1e-8
            continue
        ours, theirs = found
        assert ours == theirs
        drawn += 1
    assert drawn >= 2 or (alignment != TA_LEFT and "<" in text)


def _wrapped(text: str, style: Any, width: float = 90.0, **attributes: Any) -> Any:
    paragraph = Para(text, style)
    paragraph.wrap(width, 1e6)
    paragraph.canv = new_canvas()
    for name, value in attributes.items():
        setattr(paragraph, name, value)
    return paragraph


def test_what_cards_do_not_draw_this_way_is_left_to_reportlab() -> None:
    assert _drawn_both_ways(_wrapped("<b>centred</b> runs", CHANCE)) is None
    assert _drawn_both_ways(_wrapped("justified", derived(DETAIL, "_justified", alignment=TA_JUSTIFY))) is None
    assert _drawn_both_ways(_wrapped("<b>a</b> bullet", DETAIL, bulletText="\u2022")) is None
    assert _drawn_both_ways(_wrapped("indented first line", derived(DETAIL, "_first", firstLineIndent=4))) is None
    assert _drawn_both_ways(_wrapped("shaded", derived(DETAIL, "_shaded", backColor=Color(0.9, 0.9, 0.9)))) is None
    assert _drawn_both_ways(_wrapped("offsets", DETAIL, _offsets=[2.0])) is None
    assert _drawn_both_ways(_wrapped("a <u>line</u> under", DETAIL)) is None
    linked = _wrapped('<b>a</b> <a href="https://example.org">link</a>', DETAIL)
    assert _drawn_both_ways(linked) is None
    raised = _wrapped("<b>a</b> <super>2</super>", DETAIL)
    assert _drawn_both_ways(raised) is None
    # a line squeezed into its width (reportlab narrows its spaces: `Tw`)
    squeezed = _wrapped("<b>a</b> line", DETAIL)
    squeezed.blPara.lines[0].extraSpace = -0.5
    assert _drawn_both_ways(squeezed) is None
    simple = _wrapped("a line", DETAIL)
    simple.blPara.lines[0] = (-0.5, simple.blPara.lines[0][1])
    assert _drawn_both_ways(simple) is None
    image = _wrapped("<b>an</b> image", DETAIL)
    image.blPara.lines[0].words[0].cbDefn = ABag(kind="img", width=4, height=4)
    assert _drawn_both_ways(image) is None


def test_every_paragraph_of_the_bundled_books_is_drawn_as_reportlab_draws_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every paragraph the cards and sheets of the six bundled books draw (none replayed from a
    twin), drawn here and then by reportlab on the same canvas: the same operators."""
    compared: list[bool] = []

    def both(paragraph: Any) -> bool:
        found = _drawn_both_ways(paragraph)
        if found is None:
            return False
        ours, theirs = found
        assert ours == theirs
        compared.append(paragraph.blPara.kind == 1)
        return True

    class Forgetting(dict[Any, Any]):
        def get(self, key: Any, default: Any = None) -> Any:
            return None

        def __setitem__(self, key: Any, value: Any) -> None:
            pass

    monkeypatch.setattr(flow, "draw_lines", both)
    monkeypatch.setattr(flow, "_DRAWN", Forgetting())
    for path in sorted(bundled_rulebooks_dir().glob("*.rules")):
        compiled = compile_file(path)
        assert compiled.book is not None
        card_files(compiled.book)
    assert 1000 < sum(compared) < len(compared) - 1000  # both kinds: one style, mixed styles
    assert len(compared) > 6000  # 7,218 of 7,808 when this was written (4,377 of one style, 2,841 mixed)
