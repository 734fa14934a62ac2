"""A preflight of a press file against what PDF/X-1a:2003 and the card shops ask for, in pure
Python (pypdf), so that it runs wherever rulecraft does; CI also runs qpdf, pdffonts and
ghostscript over the same files (tests/cards/test_press.py).

`preflight(data)` lists every problem found, as sentences; an empty list is a pass.  It reads:

- the version (1.3 or 1.4), no encryption, a trailer /ID;
- the document information: GTS_PDFXVersion `PDF/X-1:2003`, a Title, CreationDate and ModDate,
  Trapped True or False;
- the output intent: /S /GTS_PDFX, an OutputConditionIdentifier, and an embedded CMYK output
  profile (ICC class `prtr`, data colour space `CMYK`);
- every page: a TrimBox and no ArtBox (one of the two, not both), a BleedBox holding the
  TrimBox, the MediaBox holding the BleedBox, and at least `bleed` points of bleed on each side;
- every content stream (pages and the forms they draw): no RGB colour operator (`rg`, `RG`),
  no colour space other than DeviceCMYK and DeviceGray, no transparency (soft masks, constant
  alpha below 1, blend modes other than Normal), and no CMYK colour laying down more than
  `ink_limit` of ink;
- every font embedded (FontFile, FontFile2 or FontFile3), and every subset tag used once per
  font name;
- every image in DeviceCMYK or DeviceGray.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

from pypdf import PageObject, PdfReader
from pypdf.generic import ArrayObject, ContentStream, DictionaryObject, PdfObject, StreamObject

PDFX_VERSION = "PDF/X-1:2003"
ALLOWED_SPACES = {"/DeviceCMYK", "/DeviceGray"}
RGB_OPERATORS = {b"rg", b"RG"}


def preflight(data: bytes, *, bleed: float = 9.0, ink_limit: float = 2.4) -> list[str]:
    """Every way `data` falls short of a PDF/X-1a:2003 card file (see the module's docstring);
    `bleed` is the least bleed in points (1/8 in: 9 pt), `ink_limit` the most total ink (2.4:
    240%)."""
    problems: list[str] = []
    try:
        reader = PdfReader(io.BytesIO(data), strict=True)
    except Exception as error:  # pypdf raises many types for a broken file
        return [f"not a readable PDF: {error}"]
    problems += _document(reader, data)
    problems += _intent(reader)
    tags: dict[str, str] = {}
    for number, page in enumerate(reader.pages, start=1):
        problems += [f"page {number}: {p}" for p in _page(page, bleed, ink_limit, tags)]
    return sorted(set(problems), key=problems.index)


def _resolved(value: object) -> object:
    return value.get_object() if isinstance(value, PdfObject) else value


def _dict(value: object) -> DictionaryObject:
    """A dictionary of the file, followed through its reference; an empty one for none."""
    found = _resolved(value)
    return found if isinstance(found, DictionaryObject) else DictionaryObject()


def _document(reader: PdfReader, data: bytes) -> Iterator[str]:
    version = data[:9].decode("latin-1", "replace")
    if version not in ("%PDF-1.3\n", "%PDF-1.4\n", "%PDF-1.3\r", "%PDF-1.4\r"):
        yield f"the header says {version.strip()!r}: PDF/X-1a:2003 is PDF 1.3 or 1.4"
    if reader.is_encrypted:
        yield "the file is encrypted"
    if not reader.trailer.get("/ID"):
        yield "the trailer has no /ID"
    info = _dict(reader.trailer.get("/Info"))
    if info.get("/GTS_PDFXVersion") != PDFX_VERSION:
        yield f"GTS_PDFXVersion is {info.get('/GTS_PDFXVersion')!r}, not {PDFX_VERSION!r}"
    for key in ("/Title", "/CreationDate", "/ModDate"):
        if not info.get(key):
            yield f"the document information has no {key[1:]}"
    if info.get("/Trapped") not in ("/True", "/False"):
        yield f"Trapped is {info.get('/Trapped')!r}: it must be True or False"


def _intent(reader: PdfReader) -> Iterator[str]:
    intents = _resolved(_dict(reader.trailer.get("/Root")).get("/OutputIntents"))
    found = [_dict(i) for i in intents] if isinstance(intents, ArrayObject) else []
    pdfx = [i for i in found if i.get("/S") == "/GTS_PDFX"]
    if len(pdfx) != 1:
        yield f"{len(pdfx)} PDF/X output intents: there must be one"
        return
    intent = pdfx[0]
    if not intent.get("/OutputConditionIdentifier"):
        yield "the output intent has no OutputConditionIdentifier"
    profile = intent.get("/DestOutputProfile")
    if profile is None:
        yield "the output intent embeds no profile"
        return
    stream = _resolved(profile)
    header = stream.get_data()[:20] if isinstance(stream, StreamObject) else b""
    if _dict(stream).get("/N") != 4 or header[12:16] != b"prtr" or header[16:20] != b"CMYK":
        yield "the output intent's profile is not a CMYK output profile"


def _box(page: DictionaryObject, name: str) -> tuple[float, float, float, float] | None:
    box = page.get(name)
    if box is None:
        return None
    x0, y0, x1, y1 = (float(v) for v in box.get_object())
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


def _inside(inner: tuple[float, ...], outer: tuple[float, ...]) -> bool:
    return (
        inner[0] >= outer[0] - 0.01
        and inner[1] >= outer[1] - 0.01
        and inner[2] <= outer[2] + 0.01
        and inner[3] <= outer[3] + 0.01
    )


def _page(page: PageObject, bleed: float, ink_limit: float, tags: dict[str, str]) -> Iterator[str]:
    media = _box(page, "/MediaBox")
    trim = _box(page, "/TrimBox")
    bleed_box = _box(page, "/BleedBox") or media
    if trim is None:
        yield "no TrimBox"
    if page.get("/ArtBox") is not None:
        yield "an ArtBox beside the TrimBox: PDF/X wants one of the two"
    if media is not None and bleed_box is not None and trim is not None:
        yield from _boxes(media, bleed_box, trim, bleed)
    if page.get("/Annots"):
        yield "annotations on the page"
    yield from _resources(page.get("/Resources"), page.get_contents(), ink_limit, tags, set())


def _boxes(
    media: tuple[float, float, float, float],
    bleed_box: tuple[float, float, float, float],
    trim: tuple[float, float, float, float],
    bleed: float,
) -> Iterator[str]:
    if not _inside(bleed_box, media):
        yield "the BleedBox reaches outside the MediaBox"
    if not _inside(trim, bleed_box):
        yield "the TrimBox reaches outside the BleedBox"
    least = min(trim[0] - bleed_box[0], trim[1] - bleed_box[1], bleed_box[2] - trim[2], bleed_box[3] - trim[3])
    if least < bleed - 0.01:
        yield f"{least:.2f} pt of bleed, less than {bleed:.2f} pt"


def _resources(
    resources: object, contents: object, ink_limit: float, tags: dict[str, str], seen: set[int]
) -> Iterator[str]:
    """Check a content stream and what it draws with, and the forms it draws, once each."""
    found = _dict(resources)
    yield from _fonts(found, tags)
    yield from _states(found)
    for name, space in _dict(found.get("/ColorSpace")).items():
        family = _resolved(space)
        family = family[0] if isinstance(family, ArrayObject) else family
        if family not in ALLOWED_SPACES:
            yield f"colour space {name} is {family}"
    for name, reference in _dict(found.get("/XObject")).items():
        xobject = _dict(reference)
        if id(xobject) in seen:
            continue
        seen.add(id(xobject))
        if xobject.get("/Subtype") == "/Image":
            space = _resolved(xobject.get("/ColorSpace"))
            if isinstance(space, ArrayObject):
                space = space[0]
            if space not in ALLOWED_SPACES:
                yield f"image {name} is in {space}"
            if xobject.get("/SMask") is not None:
                yield f"image {name} has a soft mask (transparency)"
        elif xobject.get("/Subtype") == "/Form":
            yield from _resources(xobject.get("/Resources"), xobject, ink_limit, tags, seen)
    if contents is not None:
        yield from _operators(contents, ink_limit)


def _operators(contents: object, ink_limit: float) -> Iterator[str]:
    stream = _resolved(contents)
    if not isinstance(stream, StreamObject):
        return
    for operands, operator in ContentStream(stream, None).operations:
        if operator in RGB_OPERATORS:
            yield f"an RGB colour ({operator.decode()} {' '.join(str(o) for o in operands)})"
        elif operator in (b"cs", b"CS") and operands and operands[0] not in ALLOWED_SPACES | {"/Pattern"}:
            yield f"colour space {operands[0]} set in the content"
        elif operator in (b"k", b"K"):
            total = sum(float(o) for o in operands)
            if total > ink_limit + 1e-6:
                yield f"a colour of {total:.0%} ink, over {ink_limit:.0%}"


def _states(resources: DictionaryObject) -> Iterator[str]:
    for name, reference in _dict(resources.get("/ExtGState")).items():
        state = _dict(reference)
        if state.get("/SMask") not in (None, "/None"):
            yield f"graphics state {name} has a soft mask (transparency)"
        for key in ("/CA", "/ca"):
            alpha = float(str(state.get(key, 1)))
            if alpha < 1:
                yield f"graphics state {name} has {key[1:]} {alpha} (transparency)"
        if state.get("/BM") not in (None, "/Normal", "/Compatible"):
            yield f"graphics state {name} has blend mode {state.get('/BM')} (transparency)"


def _fonts(resources: DictionaryObject, tags: dict[str, str]) -> Iterator[str]:
    for reference in _dict(resources.get("/Font")).values():
        font = _dict(reference)
        base = str(font.get("/BaseFont", "")).lstrip("/")
        descriptors = [font.get("/FontDescriptor")]
        descendants = _resolved(font.get("/DescendantFonts"))
        for descendant in descendants if isinstance(descendants, ArrayObject) else []:
            descriptors.append(_dict(descendant).get("/FontDescriptor"))
        found = [_dict(d) for d in descriptors if d is not None]
        if not any(key in d for d in found for key in ("/FontFile", "/FontFile2", "/FontFile3")):
            yield f"font {base} is not embedded"
        if "+" in base:
            tag, rest = base.split("+", 1)
            known = tags.setdefault(tag, rest)
            if known != rest:
                yield f"subset tag {tag} names two fonts ({known}, {rest})"
