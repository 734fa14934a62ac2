"""The press file: one page per card side, for a print shop that prints a deck from a PDF.

Each physical card is two pages, its front and its back.  In the duplex layout (the default) a
card with two faces is one physical card, its second face on the back; a face left without a
partner gets the deck's back design (its title and colour, and an image when one is given).  In
the simplex layout every face is a card of its own with the back design behind it.  Some shops
want each back before its front (`back_first`).  A deck may be padded with blank note cards to a
multiple of a shop's deck size (`pad`).

The file is PDF/X-1a:2003 in CMYK (pdfx.py): MediaBox and BleedBox the trim plus the format's
bleed, TrimBox the trim (PDF/X asks for a TrimBox or an ArtBox, never both).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen.canvas import Canvas

from dsl.cards.blocks import Card, CardsError
from dsl.cards.flow import WHITE, Para, markup
from dsl.cards.fonts import BOLD, MM, REGULAR
from dsl.cards.formats import POKER, CardFormat
from dsl.cards.pdfcards import Face, document, draw_face, faces_of
from dsl.cards.pdfx import finish, press_colour
from dsl.categories import CATEGORIES

BACK_COLOUR = "#243b55"


@dataclass(frozen=True, slots=True)
class Back:
    """The design on the back of every card that has no face there: the deck's title on a
    colour, and an image file (PNG or JPEG) above it when given."""

    title: str
    colour: str = BACK_COLOUR
    image: Path | None = None


class PressError(CardsError):
    """A back image that cannot be read, or a colour that is not one: the user's to fix."""


Side = Face | None
"""A page of the press file: a card face, or None for the deck's back design."""


def sheets(faces: list[Face], *, duplex: bool = True, pad: int | None = None) -> list[tuple[Face, Side]]:
    """The physical cards of a deck, each as its front and its back.  `pad`: blank note cards
    are added until the count is a multiple of it."""
    cards: list[tuple[Face, Side]] = []
    index = 0
    while index < len(faces):
        face = faces[index]
        following = faces[index + 1] if duplex and index + 1 < len(faces) else None
        if following is not None and following.card is face.card:
            cards.append((face, following))
            index += 2
        else:
            cards.append((face, None))
            index += 1
    if pad and faces:
        blank = faces_of([_note_card(faces[0].card.footer)], faces[0].fmt)[0]
        cards += [(blank, None)] * (-len(cards) % pad)
    return cards


def _note_card(footer: str) -> Card:
    return Card("", "Notes", "Notes", "", CATEGORIES["general"], (), footer)


def press_pdf(
    faces: list[Face],
    title: str,
    *,
    name: str,
    back: Back | None = None,
    duplex: bool = True,
    back_first: bool = False,
    pad: int | None = None,
) -> bytes:
    """The press file of a deck's faces (see the module's docstring); `name` makes its font
    subset tags its own."""
    fmt = faces[0].fmt.printed if faces else POKER
    design = back or Back(title)
    how = "duplex" if duplex else "simplex"
    canvas, buffer = document(
        f"{title} — reference cards (press)",
        f"Reference cards, {fmt.name}, {fmt.bleed / MM:.2f} mm bleed, fronts and backs ({how}), PDF/X-1a",
        enforceColorSpace=press_colour,
    )
    full = fmt.full
    trim = (fmt.bleed, fmt.bleed, fmt.bleed + fmt.width, fmt.bleed + fmt.height)
    canvas.setPageSize(full)
    canvas.setBleedBox((0, 0, *full))
    canvas.setTrimBox(trim)  # and no ArtBox: PDF/X has a page carry one of the two, not both
    image = _image(design.image) if design.image is not None else None
    for side in _sides(sheets(faces, duplex=duplex, pad=pad), back_first):
        canvas.saveState()
        canvas.translate(fmt.bleed, fmt.bleed)
        if side is None:
            draw_back(canvas, design, fmt, image)
        else:
            draw_face(canvas, side)
        canvas.restoreState()
        canvas.showPage()
    canvas.save()
    return finish(buffer.getvalue(), name)


def _sides(cards: list[tuple[Face, Side]], back_first: bool) -> Iterator[Side]:
    for front, back in cards:
        yield from (back, front) if back_first else (front, back)


def draw_back(canvas: Canvas, back: Back, fmt: CardFormat, image: ImageReader | None) -> None:
    """The back design, with the trim's lower-left corner at the origin: the colour to the edge
    of the bleed, a frame inside the safe area, the title in the middle, the image above it."""
    try:
        colour = colors.HexColor(back.colour)
    except ValueError as error:
        raise PressError(f"back colour `{back.colour}` is not a colour: expected #RRGGBB") from error
    canvas.saveState()
    canvas.setFillColor(colour)
    canvas.rect(-fmt.bleed, -fmt.bleed, fmt.width + 2 * fmt.bleed, fmt.height + 2 * fmt.bleed, stroke=0, fill=1)
    inset = fmt.safe + 1.5 * MM
    canvas.setStrokeColor(WHITE)
    canvas.setLineWidth(1.0)
    canvas.roundRect(inset, inset, fmt.width - 2 * inset, fmt.height - 2 * inset, 2.5 * MM, stroke=1, fill=0)
    width = fmt.width - 2 * inset - 4 * MM
    style = ParagraphStyle("back_title", fontName=BOLD, fontSize=13, leading=15.5, textColor=WHITE, alignment=TA_CENTER)
    title = Para(markup(back.title), style)
    _, height = title.wrapOn(canvas, width, fmt.height)
    middle = fmt.height / 2
    if image is not None:
        image_width, image_height = image.getSize()
        room_width, room_height = width, fmt.height / 2 - inset - 4 * MM
        scale = min(room_width / image_width, room_height / image_height)
        drawn = (image_width * scale, image_height * scale)
        canvas.drawImage(image, (fmt.width - drawn[0]) / 2, middle + 2 * MM, *drawn)
        title.drawOn(canvas, (fmt.width - width) / 2, middle - 2 * MM - height)
    else:
        title.drawOn(canvas, (fmt.width - width) / 2, middle - height / 2)
    canvas.setFillColor(WHITE)
    canvas.setFont(REGULAR, 7)
    canvas.drawCentredString(fmt.width / 2, inset + 3 * MM, "reference cards")
    canvas.restoreState()


def _image(path: Path) -> ImageReader:
    """An image file as CMYK JPEG data, converted from its colours through the press profile
    (PDF/X-1a admits no RGB): needs Pillow, in rulecraft's `print` extra."""
    try:
        from PIL import Image, ImageCms
    except ImportError as error:  # pragma: no cover - the extra is in the test environment
        raise PressError("a back image needs Pillow: pip install 'rulecraft[print]'") from error
    from dsl.cards.pdfx import PROFILE

    try:
        with Image.open(path) as opened:
            picture = opened.convert("RGB")
    except (OSError, ValueError) as error:
        raise PressError(f"cannot read the back image {path}: {error}") from error
    transform = ImageCms.buildTransform(ImageCms.createProfile("sRGB"), str(PROFILE), "RGB", "CMYK")
    cmyk = ImageCms.applyTransform(picture, transform)
    data = io.BytesIO()
    assert cmyk is not None
    cmyk.save(data, "JPEG", quality=92)
    data.seek(0)
    return ImageReader(data)
