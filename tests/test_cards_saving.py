"""Saving a document set: the Flate encoding of a stream is remembered by the stream's bytes
(dsl/cards/canvas.py `_remembered_compress`), and every file stays what reportlab writes alone."""

from __future__ import annotations

import zlib
from typing import Any

import pytest
from reportlab.pdfbase import pdfdoc

from dsl.cards import canvas, card_files
from dsl.compiler import compile_file
from dsl.resources import bundled_rulebooks_dir


def test_remembered_encoding_is_zlibs_for_text_and_bytes() -> None:
    canvas._COMPRESSED.clear()
    data = b"BT /F1 8 Tf 1 0 0 1 8.5 700 Tm (hello) Tj ET\n" * 20
    assert canvas._remembered_compress(data) == zlib.compress(data)
    assert canvas._remembered_compress(data) is canvas._COMPRESSED[data]  # asked again: remembered
    text = "q 1 0 0 1 0 0 cm Q é"  # reportlab encodes text as UTF-8 before compressing it
    assert canvas._remembered_compress(text) == zlib.compress(text.encode("utf8"))


def test_what_is_remembered_is_bounded_in_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A budget of 100 bytes holds a stream of 60 and not a second one of 60 (120 > 100): the
    second empties what is remembered first, and both encodings are still zlib's."""
    monkeypatch.setattr(canvas, "_COMPRESSED_BYTES", 100)
    monkeypatch.setattr(canvas, "_compressed_bytes", 0)
    canvas._COMPRESSED.clear()
    first, second = b"a" * 60, b"b" * 60
    assert canvas._remembered_compress(first) == zlib.compress(first)
    assert list(canvas._COMPRESSED) == [first]
    assert canvas._remembered_compress(second) == zlib.compress(second)
    assert list(canvas._COMPRESSED) == [second]
    assert canvas._compressed_bytes == 60
    canvas._COMPRESSED.clear()


def test_reportlabs_filter_is_its_own_after_saving() -> None:
    """The filter is changed only while `save` runs: reportlab's own `encode` is back afterwards."""
    document = canvas.new_canvas()
    document.drawString(10, 10, "x")
    canvas.save(document)
    assert "encode" not in vars(pdfdoc.PDFZCompress)
    assert pdfdoc.PDFZCompress.encode.__func__ is pdfdoc.PDFStreamFilterZCompress.encode


@pytest.mark.parametrize("name", ["skirmish_terrain"])
def test_every_file_is_the_same_as_without_remembering(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The book's PDFs saved through the remembered encoding are byte for byte the ones saved
    through reportlab's own, and the set did compress some streams once for several documents
    (the font subsets the cards' three documents share)."""
    compiled = compile_file(bundled_rulebooks_dir() / f"{name}.rules")
    assert compiled.book is not None
    canvas._COMPRESSED.clear()
    asked: list[bytes] = []
    remembered = canvas._remembered_compress

    def counting(content: Any) -> bytes:
        asked.append(content)
        return remembered(content)

    monkeypatch.setattr(canvas, "_remembered_compress", counting)
    fast = card_files(compiled.book)
    assert len(asked) > len(canvas._COMPRESSED)  # some streams were met again
    monkeypatch.setattr(canvas, "_remembered_compress", pdfdoc.PDFStreamFilterZCompress().encode)
    plain = card_files(compiled.book)
    assert fast.keys() == plain.keys()
    for file in fast:
        assert fast[file] == plain[file], file
