"""Cards lay out whatever `rulecraft check` accepts: a label too long for a card is cut short
where it cannot break (with the whole of it printed below), and anything else that fits on no
card is broken or drawn smaller, never refused.  And the same rulebook gives the same bytes,
whatever the environment.

The soak script tests/soak/hostile_cards.py puts every long or hostile word in every text
position; two of its rulebooks (all positions at once) run here."""

from __future__ import annotations

import io
import os
import random
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from pypdf import PdfReader

from dsl.cards import card_files
from dsl.cards.deck import build_deck
from dsl.cards.fonts import register_fonts
from dsl.cards.pdfcards import layout
from dsl.cli import main
from dsl.compiler import compile_text
from tests.conftest import ROOT
from tests.soak.hostile_cards import NAME, NAMES, TEXT, WORDS, cards_of, rulebook

LONG_COLUMN = ROOT / "tests" / "fixtures" / "cards_fit" / "long_column_name.rules"
SWAMP = ROOT / "tests" / "soak" / "swamp.rules"


def _run(*args: str) -> Result:
    try:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        runner = CliRunner()
    result = runner.invoke(main, list(args))
    assert "Traceback" not in result.stdout + result.stderr
    return result


def _text(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


def test_a_column_name_too_long_for_a_card_is_cut_short_and_printed_whole(tmp_path: Path) -> None:
    """long_column_name_card_does_not_fit.rules: check was clean, then cards failed with
    "a part of card `T` does not fit on a card", with no location."""
    assert _run("check", str(LONG_COLUMN)).exit_code == 0
    result = _run("cards", str(LONG_COLUMN), "-o", str(tmp_path), "--layout", "cards")
    assert result.exit_code == 0, result.stderr
    text = _text((tmp_path / "cardfit-cards-press.pdf").read_bytes())
    assert "N…" in text  # the header cell, cut short
    assert text.replace("\n", "").count("N" * 400) == 1  # the whole name (400 letters), once, below the table
    assert _run("build", str(LONG_COLUMN), "-o", str(tmp_path / "out")).exit_code == 0


def test_cards_of_several_books_with_a_long_column_name(tmp_path: Path) -> None:
    """cards_partial_output.sh: `cards A B` failed on B (a column name too long), having
    written A's PDFs."""
    a, b = tmp_path / "a_swamp.rules", tmp_path / "b_cardfit.rules"
    shutil.copy(SWAMP, a)
    shutil.copy(LONG_COLUMN, b)
    result = _run("cards", str(a), str(b), "-o", str(tmp_path / "cards"))
    assert result.exit_code == 0, result.stderr
    assert sorted(p.name for p in (tmp_path / "cards").glob("*.pdf")) == [
        "cardfit-cards-a4.pdf",
        "cardfit-cards-press.pdf",
        "swamp-cards-a4.pdf",
        "swamp-cards-press.pdf",
    ]


def test_a_roll_label_too_long_for_its_band_is_cut_short_and_printed_whole() -> None:
    label = "Roll " + "R" * 400
    text = (
        'rulebook long "Long":\n    source "s"\nstat DEX: int 0..20 = 10\n'
        f'rule r "R" cites "1":\n    roll fall "{label}": 3d6 <= DEX\n'
    )
    compiled = compile_text(text, "long.rules")
    assert compiled.ok and compiled.book is not None
    register_fonts()
    card = next(c for c in build_deck(compiled.book) if c.key == "r")
    faces = layout(card)
    drawn = _text(card_files(compiled.book)["long-cards-press.pdf"])
    assert "R…" in drawn  # in the band, cut short
    runs = sum(len(run) for run in re.findall("R{10,}", drawn))
    assert runs >= 400 + 100  # and whole below it, the band's part besides
    assert len(faces) == 2


def test_a_citation_as_long_as_a_paragraph_leaves_room_for_the_card() -> None:
    cites = "section " * 300
    text = f'rulebook long "Long":\n    source "s"\nstat DEX: int 0..20 = 10\nrule r "R" cites "{cites}":\n    DEX -1\n'
    compiled = compile_text(text, "long.rules")
    assert compiled.ok and compiled.book is not None
    drawn = _text(card_files(compiled.book)["long-cards-press.pdf"])
    assert "DEX" in drawn and "Cites:" in drawn


@pytest.mark.parametrize("round_", range(2))
def test_hostile_words_in_every_text_position(round_: int) -> None:
    """Every text position of the template holds a long or hostile word (a word of 600 letters,
    a paragraph, markup, right-to-left text, emoji, combining marks, zero-width spaces, CJK...),
    all at once; two rotations a run, chosen at random (the soak runs every one)."""
    seed = random.randrange(len(WORDS))
    texts = {slot: WORDS[(index + seed) % len(WORDS)] for index, slot in enumerate(TEXT)}
    names = {slot: NAMES[(index + seed) % len(NAMES)] for index, slot in enumerate(NAME)}
    try:
        outcome = cards_of(rulebook(texts, names))
    except Exception as error:
        raise AssertionError(f"rotation {seed}: {type(error).__name__}: {error}") from error
    assert outcome.accepted, f"rotation {seed}: check refused the template"


@pytest.mark.parametrize("epoch", ["1700000000", "0", "not a number", ""])
def test_pdfs_do_not_depend_on_source_date_epoch(monkeypatch: pytest.MonkeyPatch, epoch: str) -> None:
    """source_date_epoch_check.sh: reportlab dated PDFs (and seeded their /ID) from
    SOURCE_DATE_EPOCH, so `build --check` called generated/ stale wherever it was set (and
    failed where it was not a number).  The whole `build --check` runs with it set in
    tests/backends/test_build.py."""
    book = compile_text(SWAMP.read_text(encoding="utf-8"), "swamp.rules").book
    assert book is not None
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    plain = card_files(book)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    assert card_files(book) == plain
    assert os.environ["SOURCE_DATE_EPOCH"] == epoch  # left as it was found
