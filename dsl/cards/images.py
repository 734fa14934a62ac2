"""Cards as images: one PNG per face for a shop that takes images, and Tabletop Simulator deck
sheets.

The faces are drawn as for the press (draw_face), in RGB, one page each, and rendered by pdfium
(pypdfium2); Pillow writes the PNGs.  Both come with rulecraft's `print` extra.

- `face_images`: each face at `dpi` (300 by default), with its bleed (a poker card is then 825
  by 1125 pixels) or trimmed to the card.
- `tts_sheets`: Tabletop Simulator's custom deck takes a sheet of faces in a grid of at most 10
  columns by 7 rows (at least 2 by 2) and one back image.  A sheet holds at most 69 faces: the
  grid's last slot is left free, as the game may show it for a hidden card.  The faces are trimmed and rendered at
  `dpi` (150 by default: a full sheet of poker cards is 3750 by 3675 pixels, under the 4096 that
  graphics cards take whole).  `{name}-tts.json` says, for each sheet, its columns, rows and
  number of cards, as the game's import dialog asks for them.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

from dsl.cards.formats import POKER, CardFormat
from dsl.cards.pdfcards import Face, document, draw_face
from dsl.cards.press import Back, PressError, draw_back

TTS_COLUMNS = 10
TTS_ROWS = 7
TTS_MOST = TTS_COLUMNS * TTS_ROWS - 1


def _modules() -> tuple[Any, Any]:
    try:
        import pypdfium2
        from PIL import Image
    except ImportError as error:  # pragma: no cover - the extra is in the test environment
        raise PressError("card images need pypdfium2 and Pillow: pip install 'rulecraft[print]'") from error
    return pypdfium2, Image


def _pages(faces: list[Face], back: Back | None, fmt: CardFormat) -> bytes:
    """An RGB PDF of the faces (and the back design last, when given), each page the card with
    its bleed."""
    canvas, buffer = document("card images", "faces for images")
    canvas.setPageSize(fmt.full)
    sides: list[Face | None] = [*faces, *([None] if back is not None else [])]
    for side in sides:
        canvas.saveState()
        canvas.translate(fmt.bleed, fmt.bleed)
        if side is None:
            assert back is not None
            draw_back(canvas, back, fmt, None)
        else:
            draw_face(canvas, side)
        canvas.restoreState()
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def _rendered(faces: list[Face], back: Back | None, dpi: float, trimmed: bool) -> Iterator[Any]:
    """Each face (then the back) as a Pillow image at `dpi`, with its bleed or trimmed."""
    pdfium, _ = _modules()
    fmt = faces[0].fmt.printed if faces else POKER
    document = pdfium.PdfDocument(_pages(faces, back, fmt))
    scale = dpi / 72
    try:
        for index in range(len(document)):
            page = document[index]
            bitmap = page.render(scale=scale, crop=(fmt.bleed,) * 4 if trimmed else (0, 0, 0, 0))
            width, height = (fmt.width, fmt.height) if trimmed else fmt.full
            # pdfium rounds a page's pixels up: the image is cut to the size the dpi gives
            yield bitmap.to_pil().convert("RGB").crop((0, 0, pixels(width, dpi), pixels(height, dpi)))
            page.close()
    finally:
        document.close()


def pixels(length: float, dpi: float) -> int:
    """How many pixels `length` points take at `dpi`."""
    return round(length * dpi / 72)


def face_images(faces: list[Face], name: str, *, dpi: float = 300, bleed: bool = True) -> dict[str, bytes]:
    """One PNG per face, by file name: `{name}-face-001.png`, ... in deck order."""
    files: dict[str, bytes] = {}
    for number, image in enumerate(_rendered(faces, None, dpi, trimmed=not bleed), start=1):
        files[f"{name}-face-{number:03}.png"] = _png(image, dpi)
    return files


def tts_sheets(faces: list[Face], back: Back, name: str, *, dpi: float = 150) -> dict[str, bytes]:
    """Tabletop Simulator deck sheets (see the module's docstring), by file name:
    `{name}-tts-1.png`, ..., `{name}-tts-back.png` and `{name}-tts.json`."""
    _, image_module = _modules()
    images = list(_rendered(faces, back, dpi, trimmed=True))
    back_image = images.pop()
    files: dict[str, bytes] = {}
    sheets: list[dict[str, object]] = []
    for start in range(0, len(images), TTS_MOST):
        chunk = images[start : start + TTS_MOST]
        columns = min(TTS_COLUMNS, max(2, len(chunk)))
        rows = max(2, -(-len(chunk) // columns))
        width, height = chunk[0].size
        sheet = image_module.new("RGB", (columns * width, rows * height), "white")
        for slot, image in enumerate(chunk):
            sheet.paste(image, ((slot % columns) * width, (slot // columns) * height))
        file = f"{name}-tts-{len(sheets) + 1}.png"
        files[file] = _png(sheet, dpi)
        sheets.append({"face": file, "columns": columns, "rows": rows, "cards": len(chunk)})
    files[f"{name}-tts-back.png"] = _png(back_image, dpi)
    manifest = {"back": f"{name}-tts-back.png", "sheets": sheets}
    files[f"{name}-tts.json"] = (json.dumps(manifest, indent=2) + "\n").encode()
    return files


def _png(image: Any, dpi: float) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG", dpi=(dpi, dpi))
    return out.getvalue()
