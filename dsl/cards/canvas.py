"""Every reportlab canvas of the package, for drawing or only measuring, is made here.

reportlab dates a document from SOURCE_DATE_EPOCH when that is set (and fails when it is not a
number), and seeds the file's /ID with that date: the same rulebook would give other bytes
wherever a build tool sets the variable, and `build --check` would call generated/ stale.  The
variable is read once, when a canvas is made, so it is hidden for that moment only: every
document is dated as reportlab dates an invariant one, 2000-01-01.
"""

from __future__ import annotations

import io
import os
import threading
from typing import Any

from reportlab.pdfgen.canvas import Canvas

_ENVIRONMENT = threading.Lock()


def new_canvas(buffer: io.BytesIO | None = None, **options: Any) -> Canvas:
    """An invariant canvas writing into `buffer` (a throwaway one for measuring)."""
    with _ENVIRONMENT:
        hidden = os.environ.pop("SOURCE_DATE_EPOCH", None)
        try:
            canvas = Canvas(io.BytesIO() if buffer is None else buffer, invariant=1, **options)
        finally:
            if hidden is not None:
                os.environ["SOURCE_DATE_EPOCH"] = hidden
    return canvas


_MEASURING = threading.local()


def measuring_canvas() -> Canvas:
    """The throwaway canvas flowables are measured on, one per thread: measuring draws nothing,
    and making a canvas costs more than measuring a paragraph."""
    canvas: Canvas | None = getattr(_MEASURING, "canvas", None)
    if canvas is None:
        canvas = _MEASURING.canvas = new_canvas()
    return canvas
