"""Paragraphs broken into lines by dsl/cards/breaking.py: exactly reportlab's lines, or reportlab's."""

from __future__ import annotations

from typing import Any

import pytest
from reportlab.lib.abag import ABag
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import Paragraph

from dsl.cards import card_files, pdfcards
from dsl.cards.breaking import break_lines
from dsl.cards.flow import CHANCE_LABEL, CONDITION, DETAIL, ENTRY, HEADING, NOTE, Para, derived
from dsl.cards.fonts import register_fonts
from dsl.compiler import compile_file
from dsl.resources import bundled_rulebooks_dir

register_fonts()


def _clones(frags: list[Any]) -> list[Any]:
    return [frag.clone() for frag in frags]


def _compare(frags: list[Any], style: ParagraphStyle, widths: list[float], bullet: str | None = None) -> bool:
    """Break copies of `frags` here and by reportlab, and assert the results are the same in
    every part reportlab reads afterwards: the lines (their measures and their runs, attribute
    by attribute), the paragraph's fragment words (widths, kinds, which fragment each piece is
    of, its text), the widest line, the widths (a bullet narrows the first).  Whether this
    module broke it (False: it left it to reportlab)."""
    ours = Paragraph(None, style, bulletText=bullet, frags=_clones(frags))
    theirs = Paragraph(None, style, bulletText=bullet, frags=_clones(frags))
    our_frags, their_frags = list(ours.frags), list(theirs.frags)
    our_widths, their_widths = list(widths), list(widths)
    found = break_lines(ours, our_widths)
    expected = Paragraph.breakLines(theirs, their_widths)
    if found is None:
        # only for no fragments at all, a part of a paragraph that reportlab split (its fragment
        # holds the words of its lines, not text), or a word wider than its line (reportlab cuts it)
        assert not frags or not hasattr(frags[0], "text") or theirs._splitLongWordCount > 0
        assert our_widths == widths, "widths changed although the paragraph was left to reportlab"
        assert all(type(a) is type(b) for a, b in zip(ours.frags, frags, strict=True))
        return False
    assert found.kind == expected.kind
    assert type(found) is type(expected)
    assert our_widths == their_widths
    assert ours._width_max == theirs._width_max
    assert ours.height == theirs.height
    if expected.kind == 0:  # one fragment: each line its unused width and its words
        assert vars(found) == vars(expected)
        assert ours.frags == our_frags and [vars(f) for f in our_frags] == [vars(f) for f in their_frags]
        return True
    assert len(found.lines) == len(expected.lines)
    for mine, reportlabs in zip(found.lines, expected.lines, strict=True):
        measures, expected_measures = dict(vars(mine)), dict(vars(reportlabs))
        runs, expected_runs = measures.pop("words"), expected_measures.pop("words")
        assert measures == expected_measures
        assert [(type(r), vars(r)) for r in runs] == [(type(r), vars(r)) for r in expected_runs]
    assert len(ours.frags) == len(theirs.frags)
    for word, expected_word in zip(ours.frags, theirs.frags, strict=True):
        assert type(word) is type(expected_word)
        assert word[0] == expected_word[0]
        pieces = [(our_frags.index(frag), text) for frag, text in word[1:]]
        assert pieces == [(their_frags.index(frag), text) for frag, text in expected_word[1:]]
    assert [vars(f) for f in our_frags] == [vars(f) for f in their_frags]  # `_fkind` set alike
    return True


def _frags(text: str, style: ParagraphStyle) -> list[Any]:
    frags: list[Any] = Paragraph(text, style).frags
    return frags


EDGES = [
    "plain words of one style, enough of them to fill several lines at the narrower widths",
    "",
    "   ",
    "  leading and trailing spaces  ",
    "Antidisestablishmentarianism",
    "x\u00a0y\u00a0z joined\u00a0by\u00a0no-break\u00a0spaces end",
    "Trap &amp; Snare &lt;1&gt; · Überschreitung — «Élan» → ½",
    "<b>Hit</b> on 4+",
    "<b>Roll</b> · Keep footing: <b>3d6\u00a0\u2264\u00a0DEX</b>, else fall prone and lose the rest of the move",
    "<b>Antidisestablishmentarianism</b>s",  # one word of two fragments
    "  <b>leading</b> spaces and trailing ones  ",
    "<b>  </b>  <i>x</i>",  # only spaces before the first word
    "<b>bold <i>and italic</i></b> and <i>italic <b>and bold</b></i> words",
    "Trap &amp; <i>Snare</i> &lt;1&gt; and more",
    "<b></b><i></i>",  # empty text
    "<b></b>",
    "<b>Überschreitung</b> — «Élan» · naïve café → ½ \u00d7 3 ≤ 5",
    '<b>skill</b> <font size="7" color="#5c5c5c">chance %</font> of the <font size="9">larger</font> kind',
    "<b>a</b> <b>b</b> c<b> d </b>e <i>f</i>g h",
    "x\u00a0y\u00a0z <b>joined\u00a0by\u00a0no-break\u00a0spaces</b> end",
    "tab\tand\nnewline <b>inside</b>\u2003em\u2003space",
    "<b>" + " ".join(["word"] * 60) + "</b> " + " ".join(["more"] * 40),
]


@pytest.mark.parametrize("text", EDGES)
@pytest.mark.parametrize("width", [12.0, 40.0, 95.5, 180.0, 1000.0])
def test_crafted_paragraphs_break_as_reportlab_breaks_them(text: str, width: float) -> None:
    for style in (ENTRY, DETAIL, CONDITION, HEADING, CHANCE_LABEL):
        _compare(_frags(text, style), style, [width, width])
    # a first line narrower than the rest, as an indent makes it
    _compare(_frags(text, NOTE), NOTE, [width - 6.0, width])


@pytest.mark.parametrize("bullet, first", [("\u2022", 60.0 - 4.3076171875), ("1.", 60.0 - 7.5791015625)])
def test_a_bullet_narrows_the_first_line_as_reportlab_narrows_it(bullet: str, first: float) -> None:
    """A bullet set at 10 pt (reportlab's default size) 1 pt in, with 0.6 x 10 = 6 pt after it,
    overruns the 8 pt indent by its width less 1 (1 + width + 6 - 8): "\u2022" measures
    5.3076171875 pt at 10 pt in the card font, so the first line loses 4.3076171875 pt; "1."
    measures 8.5791015625 pt and takes 7.5791015625 pt."""
    style = derived(DETAIL, "_bulleted", leftIndent=8.0, bulletIndent=1.0)
    text = "<b>Move</b> up to your speed, then roll <i>3d6</i> against the table below"
    assert _compare(_frags(text, style), style, [60.0, 60.0], bullet)
    widths = [60.0, 60.0]
    assert break_lines(Paragraph(text, style, bulletText=bullet), widths) is not None
    assert widths == [first, 60.0]


def test_a_word_wider_than_its_line_is_left_to_reportlab_which_cuts_it() -> None:
    frags = _frags("<b>Roll</b> Antidisestablishmentarianism", DETAIL)
    assert not _compare(frags, DETAIL, [40.0, 40.0])
    paragraph = Para("<b>Roll</b> Antidisestablishmentarianism", DETAIL)
    paragraph.wrap(40.0, 1e6)
    reportlabs = Paragraph("<b>Roll</b> Antidisestablishmentarianism", DETAIL)
    reportlabs.wrap(40.0, 1e6)
    assert [[w.text for w in line.words] for line in paragraph.blPara.lines] == [
        [w.text for w in line.words] for line in reportlabs.blPara.lines
    ]
    assert len(paragraph.blPara.lines) > 2  # cut inside the word


@pytest.mark.parametrize(
    "text, style",
    [
        ("one fragment with a soft\xadhyphen", DETAIL),
        ("a soft\xadhyphen <b>here</b>", DETAIL),
        ("<b>hyphenated</b> words", derived(DETAIL, "_hyphenated", hyphenationLang="en_GB")),
        ("<b>right</b> to left", derived(DETAIL, "_rtl", wordWrap="RTL")),
        ("<b>a</b> line<br/>break", DETAIL),
        ("<b>an</b> image", DETAIL),  # its second fragment made an image below
    ],
)
def test_what_cards_do_not_write_is_left_to_reportlab(text: str, style: ParagraphStyle) -> None:
    paragraph = Paragraph(text, style)
    if text.endswith("image"):
        paragraph.frags[1].cbDefn = ABag(kind="img", width=4, height=4)
    widths = [80.0, 80.0]
    assert break_lines(paragraph, widths) is None
    assert widths == [80.0, 80.0]


def test_a_paragraph_broken_before_is_left_to_reportlab() -> None:
    paragraph = Paragraph("<b>Hit</b> on 4+ and more words to break", DETAIL)
    paragraph.wrap(30.0, 1e6)  # its fragments are now fragment words
    assert break_lines(paragraph, [50.0, 50.0]) is None


def test_every_paragraph_of_the_bundled_books_breaks_as_reportlab_breaks_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every paragraph the cards and sheets of the six bundled books break (of one fragment and of
    several), broken again from the same fragments here and by reportlab: the same lines.  The
    only ones left to reportlab are parts of paragraphs it split and those with a word wider than
    its line."""
    cases: list[tuple[list[Any], ParagraphStyle, list[float], Any]] = []
    breaking = Para.breakLines

    def recorded(paragraph: Para, width: Any) -> Any:
        if isinstance(width, list) and paragraph.frags and not isinstance(paragraph.frags[0], list):
            cases.append((_clones(paragraph.frags), paragraph.style, list(width), paragraph.bulletText))
        return breaking(paragraph, width)

    monkeypatch.setattr(Para, "breakLines", recorded)
    monkeypatch.setattr("dsl.cards.flow._PARSED", {})
    monkeypatch.setattr("dsl.cards.flow._BROKEN", {})
    monkeypatch.setattr(pdfcards, "_LAYOUTS", {})
    monkeypatch.setattr("dsl.cards.pdfsheet._COLUMNS", {})
    books = sorted(bundled_rulebooks_dir().glob("*.rules"))
    assert len(books) == 6
    for path in books:
        compiled = compile_file(path)
        assert compiled.book is not None
        card_files(compiled.book)
    broken = [_compare(*case) for case in cases]
    assert len(broken) > 5000  # 7,420 when this was written
    assert any(len(frags) == 1 for frags, *_ in cases) and any(len(frags) > 1 for frags, *_ in cases)
    assert sum(broken) >= len(broken) - 100  # 27 left to reportlab (`_compare` checks why)
    assert any(bullet for *_, bullet in cases)
