"""PDF/X-1a:2003 for the press file: what print shops ask for (DriveThruCards requires it; see
docs/cards.md), drawn with reportlab's public API and finished with pikepdf (qpdf's Python binding), which
adds what reportlab has no call for: the output intent and the PDF/X key.

- Colour: every colour is CMYK.  The canvas converts each colour it is given (reportlab's
  `enforceColorSpace` takes a callable): the text inks (INK, MUTED) print as 100% black, which
  stays sharp at 7 pt where a four-colour or screened grey would not; other greys use the black
  plate alone; colours are separated with all their grey in black and at most `INK_LIMIT` of
  ink in all (shops cap it: 240% at DriveThruCards).
- Output intent: FOGRA39 (ISO 12647-2 coated), with its profile embedded (icc/README.md).
- Boxes: MediaBox and BleedBox the trim plus its bleed, TrimBox the trim, and no ArtBox
  (PDF/X-3:2002 2.9 and its successors: "either an ArtBox or TrimBox, but not both").
- The document information carries GTS_PDFXVersion and Trapped; fonts are embedded subsets,
  each tagged uniquely (reportlab tags every file's first subset AAAAAA+, and two decks merged
  into one print job would then share a name for different subsets).

preflight.py checks all of this on the file written.
"""

from __future__ import annotations

import hashlib
import io
from functools import cache
from pathlib import Path

import pikepdf
from reportlab.lib import colors
from reportlab.lib.colors import CMYKColor

from dsl.cards.flow import INK, MUTED

PDFX_VERSION = "PDF/X-1:2003"
PROFILE = Path(__file__).resolve().parent / "icc" / "FOGRA39-rulecraft.icc"
CONDITION = "FOGRA39"
CONDITION_INFO = "Coated FOGRA39 (ISO 12647-2:2004)"
CONDITION_TEXT = "Offset commercial printing according to ISO 12647-2:2004/Amd 1, paper type 1 or 2, coated, 115 g/m2"
REGISTRY = "http://www.color.org"

INK_LIMIT = 2.4
"""The most ink any colour lays down, summed over the four plates (240%)."""

BLACK = CMYKColor(0, 0, 0, 1)
_TEXT_INKS = {INK.hexval(), MUTED.hexval()}


def press_colour(colour: object) -> CMYKColor:
    """The CMYK colour the press file prints for `colour` (see the module's docstring)."""
    found = colors.toColor(colour)
    if isinstance(found, CMYKColor):
        return found
    if found.hexval() in _TEXT_INKS:
        return BLACK
    red, green, blue = float(found.red), float(found.green), float(found.blue)
    black = 1 - max(red, green, blue)
    if black >= 1:
        return BLACK
    cyan, magenta, yellow = ((1 - value - black) / (1 - black) for value in (red, green, blue))
    total = cyan + magenta + yellow + black
    if total > INK_LIMIT:
        scale = (INK_LIMIT - black) / (cyan + magenta + yellow)
        cyan, magenta, yellow = cyan * scale, magenta * scale, yellow * scale
    return CMYKColor(*(round(value, 4) for value in (cyan, magenta, yellow, black)))


@cache
def _profile() -> bytes:
    return PROFILE.read_bytes()


def finish(data: bytes, name: str) -> bytes:
    """The PDF reportlab wrote, made PDF/X: the FOGRA39 output intent with its profile embedded,
    GTS_PDFXVersion in the document information, and every font subset tagged by a hash of
    `name` (the file's name) and its own name: unique across decks, the same on every build.
    Saved with an /ID made from the content, so that the same deck gives the same bytes."""
    with pikepdf.open(io.BytesIO(data)) as pdf:
        profile = pdf.make_stream(_profile(), N=4)
        pdf.Root.OutputIntents = pikepdf.Array(
            [
                pikepdf.Dictionary(
                    Type=pikepdf.Name.OutputIntent,
                    S=pikepdf.Name.GTS_PDFX,
                    OutputConditionIdentifier=pikepdf.String(CONDITION),
                    OutputCondition=pikepdf.String(CONDITION_TEXT),
                    RegistryName=pikepdf.String(REGISTRY),
                    Info=pikepdf.String(CONDITION_INFO),
                    DestOutputProfile=profile,
                )
            ]
        )
        pdf.docinfo[pikepdf.Name.GTS_PDFXVersion] = pikepdf.String(PDFX_VERSION)
        done: set[tuple[int, int]] = set()
        for page in pdf.pages:
            fonts = page.obj.get("/Resources", pikepdf.Dictionary()).get("/Font", pikepdf.Dictionary())
            for font in fonts.values():
                if font.objgen in done:
                    continue
                done.add(font.objgen)
                base = str(font.BaseFont).lstrip("/")
                if "+" not in base:
                    continue
                new = pikepdf.Name("/" + f"{subset_tag(name, base)}+{base.split('+', 1)[1]}")
                font.BaseFont = new
                if "/FontDescriptor" in font:
                    font.FontDescriptor.FontName = new
        out = io.BytesIO()
        pdf.save(out, deterministic_id=True, compress_streams=True, force_version="1.4")
    return out.getvalue()


def subset_tag(name: str, base: str) -> str:
    """Six capital letters, as PDF names a font subset, from a hash of the file and the subset."""
    digest = hashlib.sha256(f"{name}\0{base}".encode()).digest()
    return "".join(chr(ord("A") + byte % 26) for byte in digest[:6])
