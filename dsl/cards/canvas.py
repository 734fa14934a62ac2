"""Every reportlab canvas of the package, for drawing or only measuring, is made here.

reportlab dates a document from SOURCE_DATE_EPOCH when that is set (and fails when it is not a
number), and seeds the file's /ID with that date: the same rulebook would give other bytes
wherever a build tool sets the variable, and `build --check` would call generated/ stale.  The
variable is read once, when a canvas is made, so it is hidden for that moment only: every
document is dated as reportlab dates an invariant one, 2000-01-01.
"""

from __future__ import annotations

import copy
import io
import os
import threading
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import reportlab.lib.colors
import reportlab.pdfbase.pdfdoc
import reportlab.pdfgen.canvas
import reportlab.pdfgen.pathobject
import reportlab.pdfgen.textobject
import reportlab.platypus.flowables
import reportlab.platypus.tables
from reportlab import rl_config
from reportlab.lib import rl_accel
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen.canvas import Canvas

from dsl.cards.memo import keep

_ENVIRONMENT = threading.Lock()

_FP_STR: Callable[..., str] = rl_accel.fp_str
_NUMBERS: dict[tuple[object, ...], str] = {}
_NUMBERS_KEPT = 1 << 16


def _remembered_fp_str(*numbers: object) -> str:
    """reportlab's `fp_str` (the numbers of PDF operators as text), remembered per arguments.
    Without its C accelerator reportlab formats every coordinate, font size and colour in Python,
    a tenth of a deck's build, and a deck writes the same few thousand numbers over and over
    (138,000 calls, 12,600 different, for the six bundled books).  Arguments equal as keys are
    equal numbers, which fp_str writes alike: the text is the same, byte for byte."""
    try:
        text = _NUMBERS.get(numbers)
    except TypeError:  # a list: reportlab's own reading
        return _FP_STR(*numbers)
    if text is None:
        if len(numbers) > 1 and all(type(number) in (int, float) for number in numbers):
            # fp_str writes each argument alone, joined by spaces: a new (x, y) is numbers met before
            text = " ".join([_number(number) for number in numbers])  # type: ignore[arg-type]
        else:
            text = _FP_STR(*numbers)
        keep(_NUMBERS, numbers, text, _NUMBERS_KEPT)
    return text


def _number(number: float) -> str:
    """reportlab's `fp_str` of one number, remembered."""
    text = _ONE.get(number)
    if text is None:
        text = keep(_ONE, number, _FP_STR(number), _NUMBERS_KEPT)
    return text


_ONE: dict[float, str] = {}


if getattr(_FP_STR, "__module__", "") == rl_accel.__name__:  # the pure-Python one, not the C accelerator's
    for _module in (
        reportlab.pdfgen.canvas,
        reportlab.pdfgen.textobject,
        reportlab.pdfgen.pathobject,
        reportlab.pdfbase.pdfdoc,
        reportlab.lib.colors,
        reportlab.platypus.tables,
        reportlab.platypus.flowables,
    ):
        if getattr(_module, "fp_str", None) is _FP_STR:
            _module.fp_str = _remembered_fp_str


_ESCAPE_PDF: Callable[[Any], str] = rl_accel.escapePDF
_ESCAPES: dict[int, str] | None = getattr(rl_accel, "_ESCAPEDICT", None)
_ESCAPED = None if _ESCAPES is None else str.maketrans({chr(code): text for code, text in _ESCAPES.items()})


def _translated_escape(text: Any) -> str:
    """reportlab's `escapePDF` of the bytes of a text operator, through one `str.translate`:
    without its C accelerator reportlab escapes byte by byte in Python (27,000 strings for the six
    bundled books).  Every byte is a character of Latin-1 mapped to the text reportlab's own
    table gives it, so the text is the same; anything but bytes is left to reportlab."""
    if type(text) is bytes and _ESCAPED is not None:
        return text.decode("latin-1").translate(_ESCAPED)
    return _ESCAPE_PDF(text)


_FAST_ESCAPE = getattr(_ESCAPE_PDF, "__module__", "") == rl_accel.__name__ and _ESCAPED is not None
"""Whether reportlab escapes in Python (no C accelerator): then canvases escape through `_translated_escape`."""


def new_canvas(buffer: io.BytesIO | None = None, **options: Any) -> Canvas:
    """An invariant canvas writing into `buffer` (a throwaway one for measuring)."""
    with _ENVIRONMENT:
        hidden = os.environ.pop("SOURCE_DATE_EPOCH", None)
        try:
            canvas = Canvas(io.BytesIO() if buffer is None else buffer, invariant=1, **options)
        finally:
            if hidden is not None:
                os.environ["SOURCE_DATE_EPOCH"] = hidden
    if _FAST_ESCAPE:
        canvas._escape = _translated_escape
    return canvas


_MEASURING = threading.local()


def measuring_canvas() -> Canvas:
    """The throwaway canvas flowables are measured on, one per thread: measuring draws nothing,
    and making a canvas costs more than measuring a paragraph."""
    canvas: Canvas | None = getattr(_MEASURING, "canvas", None)
    if canvas is None:
        canvas = _MEASURING.canvas = new_canvas()
    return canvas


_SAVING = threading.Lock()

_COMPRESS: Any = reportlab.pdfbase.pdfdoc.PDFZCompress
"""reportlab's one Flate filter: every compressed stream (pages, font files, their maps) is encoded by it."""
_COMPRESSED: dict[bytes, bytes] = {}
_COMPRESSED_BYTES = 8 << 20
"""The most stream bytes remembered: the streams of a book's five PDFs are 0.9 to 2.4 MB for the
bundled books, and a font subset is met again only in the same set of documents."""


def _remembered_compress(content: str | bytes) -> bytes:
    """reportlab's Flate encoding of a stream, remembered by the stream's bytes.  The documents of a
    set embed the same font subsets (the imposed cards take over the press file's fonts, the
    Letter sheet the A4 one's), and zlib gives the same bytes for the same bytes."""
    global _compressed_bytes
    data = content.encode("utf8") if isinstance(content, str) else content
    known = _COMPRESSED.get(data)
    if known is None:
        known = zlib.compress(data)
        if _compressed_bytes + len(data) > _COMPRESSED_BYTES:
            _COMPRESSED.clear()
            _compressed_bytes = 0
        _COMPRESSED[data] = known
        _compressed_bytes += len(data)
    return known


_compressed_bytes = 0


def save(canvas: Canvas) -> None:
    """Finish a canvas's document with its streams compressed, not also ASCII85-encoded:
    reportlab encodes them by default (for 7-bit channels no print file goes through), which
    makes files a quarter larger and takes a tenth of a deck's build.  The setting is read while
    saving, so it is changed for that moment only; so is the Flate filter, which remembers what it
    compressed (`_remembered_compress`)."""
    with _SAVING:
        kept = rl_config.useA85
        rl_config.useA85 = 0
        _COMPRESS.encode = _remembered_compress
        try:
            canvas.save()
        finally:
            rl_config.useA85 = kept
            del _COMPRESS.encode


class Recording:
    """The PDF operators each piece of a document drew (a card's face, a sheet's column), for other
    documents of the same pieces to copy: a deck's faces are drawn once, not once per paper.

    Text in an embedded font is written as codes of the font's subsets, which a document assigns
    to characters in the order it first meets them; a document that copies the operators first
    takes over the recording document's assignments (its later text, the slug, gets codes after
    them), so every copied code means the same character.  The faces' operators do not depend on
    where they are drawn: every piece is drawn in its own graphics state, from its own origin."""

    def __init__(self) -> None:
        self.codes: list[list[str]] = []
        self.pieces: list[object] = []
        self.fonts: list[tuple[Any, Any]] = []  # (font, its state in the recording document), in order
        self.mapping: dict[str, str] = {}

    def draw(self, canvas: Canvas, piece: object, draw: Callable[[Canvas], None]) -> None:
        """Draw `piece` with `draw`, keeping what it wrote."""
        code = canvas._code
        start = len(code)
        draw(canvas)
        self.codes.append(code[start:])
        self.pieces.append(piece)

    def finish(self, canvas: Canvas) -> None:
        """Keep the recording document's fonts (before it is saved: saving freezes them)."""
        doc = canvas._doc
        self.mapping = dict(doc.fontMapping)
        self.fonts = [(font, copy.deepcopy(font.state[doc])) for font in doc.delayedFonts]

    def adopt(self, canvas: Canvas, pieces: Sequence[object]) -> bool:
        """Take over the recording document's fonts in a new, empty document, if the recording
        holds these pieces and only embedded fonts (which it takes over whole); whether it did."""
        if len(pieces) != len(self.pieces) or any(a is not b for a, b in zip(pieces, self.pieces, strict=True)):
            return False
        if len(self.mapping) != len(self.fonts) or not all(pdfmetrics.getFont(n)._dynamicFont for n in self.mapping):
            return False
        doc = canvas._doc
        if doc.fontMapping or doc.delayedFonts:
            return False
        doc.fontMapping.update(self.mapping)
        for font, state in self.fonts:
            font.state[doc] = copy.deepcopy(state)
            doc.delayedFonts.append(font)
        return True

    def replay(self, canvas: Canvas, index: int) -> None:
        canvas._code.extend(self.codes[index])
