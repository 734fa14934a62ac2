"""The press file as a print shop's prepress reads it: poker size with 1/8 in of bleed, PDF/X-1a
in CMYK with its output intent, fonts embedded under tags of their own, backs, duplex; and the
image exports (a PNG per face, Tabletop Simulator sheets), read back with Pillow.

The preflight (dsl/cards/preflight.py) runs over every bundled press file, and must fail on files
that are not PDF/X; where qpdf, pdffonts and ghostscript are installed (CI installs them, see
.ci/run) they check the same files independently."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import pikepdf
import pytest
from PIL import Image
from pypdf import PdfReader

from dsl.cards import Back, PrintOptions, card_set
from dsl.cards.blocks import CardsError
from dsl.cards.deck import deck_of
from dsl.cards.formats import FORMATS, card_format
from dsl.cards.images import face_images, tts_sheets
from dsl.cards.pdfcards import fitted_faces
from dsl.cards.preflight import preflight
from dsl.cards.press import sheets
from dsl.compiler import compile_file, compile_text
from dsl.resources import bundled_rulebooks_dir
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "generated" / "cards"
PRESS = sorted(GENERATED.glob("*-cards-press.pdf"))
INCH = 72.0
MM = 72 / 25.4

SMALL = """rulebook small "Small Deck":
    version "1"

stat DEX: int 0..30 = 10
stat MOV: int 0..20 = 8

rule mud "Mud" cites "1":
    category movement
    DEX -1

rule ice "Ice" cites "2":
    category hazard
    MOV -2
"""


def _book(text: str = SMALL):  # type: ignore[no-untyped-def]
    compiled = compile_text(text, "small.rules")
    assert compiled.ok and compiled.book is not None
    return compiled.book


def _close(a: float, b: float) -> bool:
    return abs(a - b) < 0.02


def test_every_bundled_deck_has_a_press_file() -> None:
    assert len(PRESS) == len(list(bundled_rulebooks_dir().glob("*.rules"))) == 6


@pytest.mark.parametrize("press", PRESS, ids=lambda p: p.name)
def test_bundled_press_files_pass_the_preflight(press: Path) -> None:
    assert preflight(press.read_bytes()) == []


@pytest.mark.parametrize("press", PRESS, ids=lambda p: p.name)
def test_bundled_press_files_are_poker_size_with_an_eighth_inch_bleed(press: Path) -> None:
    for page in PdfReader(press).pages:
        trim, bleed, media = page.trimbox, page.bleedbox, page.mediabox
        assert _close(float(trim.width), 2.5 * INCH) and _close(float(trim.height), 3.5 * INCH)
        assert _close(float(trim.left), INCH / 8) and _close(float(trim.bottom), INCH / 8)
        for box in (bleed, media):
            assert _close(float(box.width), 2.75 * INCH) and _close(float(box.height), 3.75 * INCH)
        assert "/ArtBox" not in page  # PDF/X: a TrimBox or an ArtBox, not both


def test_the_preflight_fails_a_file_that_is_not_pdfx() -> None:
    """The sheets for a desktop printer are RGB, without intent or PDF/X key: each is named."""
    found = preflight((GENERATED / "terrain_cards-cards-a4.pdf").read_bytes())
    assert any("GTS_PDFXVersion" in p for p in found)
    assert any("output intents" in p for p in found)
    assert any("an RGB colour (rg" in p for p in found)
    assert any("subset tag AAAAAA names two fonts" in p for p in found)
    assert any("TrimBox" in p for p in found)


def _tampered(change: str) -> bytes:
    with pikepdf.open(GENERATED / "skirmish_terrain-cards-press.pdf") as pdf:
        page = pdf.pages[1]
        if change == "intent":
            del pdf.Root.OutputIntents
        elif change == "artbox":
            page.obj.ArtBox = page.obj.TrimBox
        elif change == "bleed":
            page.obj.BleedBox = pikepdf.Array([4, 4, 194, 266])
        elif change == "rgb":
            page.contents_add(pdf.make_stream(b"0.5 0.2 0.1 rg 0 0 10 10 re f"))
        elif change == "ink":
            page.contents_add(pdf.make_stream(b"1 1 1 1 k 0 0 10 10 re f"))
        elif change == "transparency":
            page.obj.Resources.ExtGState = pikepdf.Dictionary(GS9=pikepdf.Dictionary(ca=0.5))
        elif change == "version":
            del pdf.docinfo["/GTS_PDFXVersion"]
        out = io.BytesIO()
        pdf.save(out)
    return out.getvalue()


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ("intent", "0 PDF/X output intents"),
        ("artbox", "page 2: an ArtBox beside the TrimBox"),
        ("bleed", "page 2: 5.00 pt of bleed"),
        ("rgb", "page 2: an RGB colour (rg 0.5 0.2 0.1)"),
        ("ink", "page 2: a colour of 400% ink, over 240%"),
        ("transparency", "page 2: graphics state /GS9 has ca 0.5"),
        ("version", "GTS_PDFXVersion is None"),
    ],
)
def test_the_preflight_names_each_fault(change: str, said: str) -> None:
    found = preflight(_tampered(change))
    assert any(p.startswith(said) for p in found), found


@pytest.mark.skipif(
    shutil.which("qpdf") is None or shutil.which("pdffonts") is None,
    reason="poppler-utils and qpdf: .ci/run installs them",
)
def test_qpdf_and_pdffonts_agree() -> None:
    """qpdf finds no structural error; pdffonts finds every font embedded, and no subset name
    shared between two decks (a print job that merges them would mix their glyphs)."""
    names: dict[str, str] = {}
    for press in PRESS:
        checked = subprocess.run(["qpdf", "--check", str(press)], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        listed = subprocess.run(["pdffonts", str(press)], capture_output=True, text=True, check=True).stdout
        for line in listed.splitlines()[2:]:
            fields = line.split()
            assert fields[-5] == "yes", line  # emb
            assert names.setdefault(fields[0], press.name) == press.name, fields[0]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("gs") is None, reason="ghostscript: .ci/run installs it")
def test_ghostscript_renders_every_press_file_in_cmyk_without_complaint() -> None:
    for press in PRESS:
        rendered = subprocess.run(
            [
                "gs",
                "-q",
                "-dNOPAUSE",
                "-dBATCH",
                "-dPDFSTOPONERROR",
                "-dPDFSTOPONWARNING",
                "-sDEVICE=inkcov",
                "-o",
                "-",
                str(press),
            ],
            capture_output=True,
            text=True,
        )
        assert rendered.returncode == 0 and not rendered.stderr.strip(), rendered.stderr
        lines = [line for line in rendered.stdout.splitlines() if line.strip()]
        assert lines and all(line.rstrip().endswith("CMYK OK") for line in lines), lines[:3]


def test_backs_and_duplex() -> None:
    """Duplex: a card of two faces is one physical card, front and back; a card of one face has
    the deck's back design behind it.  Simplex: every face a card with the design behind it."""
    book = compile_file(bundled_rulebooks_dir() / "skirmish_terrain.rules").book
    assert book is not None
    faces = fitted_faces(deck_of(book))
    duplex = sheets(faces)
    assert sum(1 + (back is not None) for _, back in duplex) == len(faces)
    for front, back in duplex:
        assert back is None or (back.card is front.card and back.part == front.part + 1)
    assert any(back is not None for _, back in duplex) and any(back is None for _, back in duplex)
    assert all(back is None for _, back in sheets(faces, duplex=False))
    options = PrintOptions(back=Back("Back Title", "#7a1f1f"), duplex=False)
    press = card_set(book, fmt="pdf", layout="cards", paper="a4", options=options)["skirmish_terrain-cards-press.pdf"]
    pages = PdfReader(io.BytesIO(press)).pages
    assert len(pages) == 2 * len(faces)
    assert all("Back Title" in pages[index].extract_text() for index in range(1, len(pages), 2))
    assert preflight(press) == []


def test_a_shop_that_wants_backs_first_and_padding_to_its_deck_size() -> None:
    options = PrintOptions(card=card_format(shop="drivethrucards"), back_first=True, pad=18, duplex=False)
    press = card_set(_book(), fmt="pdf", layout="cards", paper="a4", options=options)["small-cards-press.pdf"]
    pages = PdfReader(io.BytesIO(press)).pages
    assert len(pages) == 2 * 18
    assert "Small Deck" in pages[0].extract_text() and "reference cards" in pages[0].extract_text()
    assert "Small Deck" in pages[1].extract_text() and "RULEBOOK" in pages[1].extract_text()
    assert "Notes" in pages[-1].extract_text()
    assert preflight(press) == []


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_format_prints_at_its_size_and_passes_the_preflight(name: str) -> None:
    fmt = FORMATS[name]
    press = card_set(_book(), fmt="pdf", layout="cards", paper="a4", options=PrintOptions(card=fmt))[
        "small-cards-press.pdf"
    ]
    page = PdfReader(io.BytesIO(press)).pages[0]
    assert _close(float(page.trimbox.width), fmt.width) and _close(float(page.trimbox.height), fmt.height)
    assert _close(float(page.trimbox.left), fmt.bleed)
    assert preflight(press, bleed=fmt.bleed) == []


def test_formats_custom_and_wrong() -> None:
    custom = card_format("60x90", bleed_mm=2, safe_mm=4)
    assert _close(custom.width, 60 * MM) and _close(custom.bleed, 2 * MM) and _close(custom.safe, 4 * MM)
    assert _close(FORMATS["poker"].width, 63.5 * MM) and _close(FORMATS["bridge"].width, 57.15 * MM)
    assert _close(FORMATS["mini"].height, 63.5 * MM) and _close(FORMATS["tarot"].height, 120 * MM)
    for wrong in ("huge", "10x10", "63x"):
        with pytest.raises(CardsError):
            card_format(wrong)


def test_the_command_line_options(tmp_path: Path) -> None:
    path = tmp_path / "small.rules"
    path.write_text(SMALL)
    result = run_cli(
        "cards",
        str(path),
        "-o",
        str(tmp_path / "out"),
        "--size",
        "bridge",
        "--only",
        "hazard",
        "--large-type",
        "--pad",
        "6",
    )
    assert result.exit_code == 0, result.output
    press = (tmp_path / "out" / "small-cards-press.pdf").read_bytes()
    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(press)).pages)
    assert "Ice" in text and "Mud" not in text
    assert preflight(press) == []
    for wrong in (["--only", "lava"], ["--size", "giant"], ["--back-colour", "blue"], ["--shop", "nowhere"]):
        result = run_cli("cards", str(path), "-o", str(tmp_path / "bad"), *wrong)
        assert result.exit_code == 2, (wrong, result.output)
        assert "Traceback" not in result.output


def test_large_type_sets_every_size_larger() -> None:
    book = compile_file(bundled_rulebooks_dir() / "skirmish_terrain.rules").book
    assert book is not None
    regular = fitted_faces(deck_of(book))
    large = fitted_faces(deck_of(book), FORMATS["poker"].large())
    assert len(large) > len(regular)
    assert _close(large[0].fmt.printed.width, FORMATS["poker"].width)


def test_a_png_per_face_at_300_dpi() -> None:
    faces = fitted_faces(deck_of(_book()))
    files = face_images(faces, "small")
    assert list(files) == [f"small-face-{n:03}.png" for n in range(1, len(faces) + 1)]
    for data in files.values():
        image = Image.open(io.BytesIO(data))
        assert image.size == (825, 1125)  # 2.75 x 3.75 in with the bleed, at 300 dpi
        assert round(image.info["dpi"][0]) == 300
    mud = Image.open(io.BytesIO(files["small-face-004.png"])).convert("RGB")
    # The movement band (#1f5f99) runs into the bleed at the top corner; the body is white.
    assert all(abs(a - b) < 8 for a, b in zip(mud.getpixel((5, 5)), (0x1F, 0x5F, 0x99), strict=True))
    assert mud.getpixel((412, 800)) == (255, 255, 255)
    trimmed = face_images(faces[:1], "small", bleed=False)
    assert Image.open(io.BytesIO(trimmed["small-face-001.png"])).size == (750, 1050)


@pytest.mark.parametrize("book_name", ["skirmish_terrain", pytest.param("spot_rules_a_to_e", marks=pytest.mark.slow)])
def test_tabletop_simulator_sheets_hold_the_faces_in_a_grid(book_name: str) -> None:
    """One sheet for a short deck; three for spot_rules_a_to_e's 190 faces (69 a sheet at most)."""
    book = compile_file(bundled_rulebooks_dir() / f"{book_name}.rules").book
    assert book is not None
    faces = fitted_faces(deck_of(book))
    files = tts_sheets(faces, Back("Spot Rules"), "spot")
    manifest = json.loads(files["spot-tts.json"])
    assert sum(sheet["cards"] for sheet in manifest["sheets"]) == len(faces)
    assert len(manifest["sheets"]) == -(-len(faces) // 69)
    back = Image.open(io.BytesIO(files[manifest["back"]]))
    assert back.size == (375, 525)  # a poker card at 150 dpi
    singles = face_images(faces[:2], "one", dpi=150, bleed=False)
    for sheet in manifest["sheets"]:
        image = Image.open(io.BytesIO(files[sheet["face"]]))
        assert sheet["columns"] <= 10 and sheet["rows"] <= 7 and sheet["cards"] <= 69
        assert image.size == (sheet["columns"] * 375, sheet["rows"] * 525)
    first = Image.open(io.BytesIO(files[manifest["sheets"][0]["face"]])).convert("RGB")
    for slot, single in enumerate(singles.values()):
        expected = Image.open(io.BytesIO(single)).convert("RGB")
        assert first.crop((slot * 375, 0, slot * 375 + 375, 525)).tobytes() == expected.tobytes()


def test_a_back_image_is_printed_in_cmyk(tmp_path: Path) -> None:
    """An RGB image on the backs is converted through the press profile: the file stays PDF/X-1a."""
    picture = tmp_path / "crest.png"
    Image.new("RGB", (60, 40), (200, 30, 40)).save(picture)
    options = PrintOptions(back=Back("Crest", "#2b4a1f", picture), duplex=False)
    press = card_set(_book(), fmt="pdf", layout="cards", paper="a4", options=options)["small-cards-press.pdf"]
    assert preflight(press) == []
    with pikepdf.open(io.BytesIO(press)) as pdf:
        images = [image for page in pdf.pages for image in page.get_images().values()]
        assert images and all(image.ColorSpace == pikepdf.Name.DeviceCMYK for image in images)
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not an image")
    result = run_cli("cards", str(_rules(tmp_path)), "-o", str(tmp_path / "out"), "--back-image", str(broken))
    assert result.exit_code == 2 and "cannot read the back image" in result.output


def _rules(tmp_path: Path) -> Path:
    path = tmp_path / "small.rules"
    path.write_text(SMALL)
    return path
