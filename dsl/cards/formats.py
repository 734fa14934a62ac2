"""Card sizes as data: one table of formats, each with the bleed and safe area it gets by
default, and presets for the print shops whose published specifications we could read.

A print shop trims each card out of a larger sheet: the artwork runs past the cut by the
*bleed*, so that a cut a little off still leaves no white edge, and text stays inside the *safe
area*, so that it is never cut.  US shops ask for 1/8 in of each; metric formats get 3 mm of
bleed and 3.5 mm of safe area.  docs/cards.md cites each shop's page and says which figures we
could not verify.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from dsl.cards.blocks import CardsError
from dsl.cards.fonts import MM

INCH = 72.0
LARGE_TYPE = 1.25
"""How much larger the large-type option sets every size of type (7 pt becomes 8.75 pt)."""
EIGHTH = INCH / 8


@dataclass(frozen=True, slots=True)
class CardFormat:
    """A card's trim size, its bleed and its safe area (how far text stays inside the trim), in
    points; `name` as the command line spells it."""

    name: str
    width: float
    height: float
    bleed: float
    safe: float
    scale: float = 1.0

    @property
    def body_width(self) -> float:
        """The width text is set in: the trim less the safe area on both sides."""
        return self.width - 2 * self.safe

    @property
    def full(self) -> tuple[float, float]:
        """The page of a press file: the trim with its bleed on every side."""
        return (self.width + 2 * self.bleed, self.height + 2 * self.bleed)

    def large(self, scale: float = LARGE_TYPE) -> CardFormat:
        """The format laid out for large type: a card `scale` times smaller, drawn `scale` times
        larger, so that every size of type grows by `scale` and the card keeps its size."""
        return CardFormat(
            self.name, self.width / scale, self.height / scale, self.bleed / scale, self.safe / scale, scale
        )

    @property
    def printed(self) -> CardFormat:
        """The format as it prints: what a large-type layout is drawn up to."""
        if self.scale == 1.0:
            return self
        k = self.scale
        return CardFormat(self.name, self.width * k, self.height * k, self.bleed * k, self.safe * k)

    def describe(self) -> str:
        return (
            f"{self.name}: {self.width / MM:.2f} x {self.height / MM:.2f} mm, "
            f"bleed {self.bleed / MM:.2f} mm, safe area {self.safe / MM:.2f} mm"
        )


def _inches(name: str, width: float, height: float) -> CardFormat:
    return CardFormat(name, width * INCH, height * INCH, EIGHTH, EIGHTH)


def _metric(name: str, width: float, height: float) -> CardFormat:
    return CardFormat(name, width * MM, height * MM, 3 * MM, 3.5 * MM)


FORMATS: dict[str, CardFormat] = {
    f.name: f
    for f in (
        _inches("poker", 2.5, 3.5),  # 63.5 x 88.9 mm, the US standard and the default
        _inches("bridge", 2.25, 3.5),  # 57.15 x 88.9 mm
        _metric("tarot", 70, 120),
        _inches("mini", 1.75, 2.5),  # US mini, 44.45 x 63.5 mm
        _metric("euro", 63, 88),
        _inches("square", 2.5, 2.5),  # 63.5 x 63.5 mm
    )
}
"""Every named card format; `custom` sizes are written WIDTHxHEIGHT in millimetres."""

DEFAULT_FORMAT = "poker"


@dataclass(frozen=True, slots=True)
class Shop:
    """A print shop's requirements for card files, from its published specification."""

    name: str
    label: str
    format: str
    bleed: float
    safe: float
    back_first: bool  # each card's back page comes before its front
    source: str  # the page the figures come from (cited in docs/cards.md)


SHOPS: dict[str, Shop] = {
    shop.name: shop
    for shop in (
        Shop(
            "drivethrucards",
            "DriveThruCards",
            "poker",
            EIGHTH,
            EIGHTH,
            True,
            "https://help.drivethrupartners.com/hc/de/articles/12780748203543",
        ),
    )
}
"""The shops whose card specification we could read and cite; see docs/cards.md for the rest."""

_CUSTOM = re.compile(r"^(?:custom:)?\s*(\d+(?:\.\d+)?)\s*[x\u00d7]\s*(\d+(?:\.\d+)?)\s*(?:mm)?$")

SMALLEST = 30 * MM
LARGEST = 300 * MM


def card_format(
    spec: str = DEFAULT_FORMAT, *, bleed_mm: float | None = None, safe_mm: float | None = None, shop: str | None = None
) -> CardFormat:
    """The format `spec` names (a name of `FORMATS`, or WIDTHxHEIGHT in millimetres, optionally
    prefixed `custom:`), with the bleed and safe area a `shop` asks for, or given in millimetres.
    A bad value raises CardsError with what is expected."""
    if shop is not None:
        found_shop = SHOPS.get(shop)
        if found_shop is None:
            raise CardsError(f"unknown print shop `{shop}`: expected one of {', '.join(SHOPS)}")
        if spec == DEFAULT_FORMAT:
            spec = found_shop.format
    found = FORMATS.get(spec.strip().lower())
    if found is None:
        match = _CUSTOM.match(spec.strip().lower())
        if match is None:
            raise CardsError(
                f"unknown card format `{spec}`: expected one of {', '.join(FORMATS)}, or WIDTHxHEIGHT in mm (63x88)"
            )
        width, height = float(match[1]) * MM, float(match[2]) * MM
        if not (SMALLEST <= width <= LARGEST and SMALLEST <= height <= LARGEST):
            raise CardsError(f"card format `{spec}`: each side must be between 30 and 300 mm")
        found = CardFormat(f"custom:{match[1]}x{match[2]}", width, height, 3 * MM, 3.5 * MM)
    if shop is not None:
        found = replace(found, bleed=SHOPS[shop].bleed, safe=SHOPS[shop].safe)
    if bleed_mm is not None:
        if not 0 <= bleed_mm <= 10:
            raise CardsError(f"bleed {bleed_mm} mm: expected 0 to 10 mm")
        found = replace(found, bleed=bleed_mm * MM)
    if safe_mm is not None:
        if not 0 <= safe_mm <= min(found.width, found.height) / MM / 4:
            raise CardsError(f"safe area {safe_mm} mm: expected 0 to a quarter of the card's shorter side")
        found = replace(found, safe=safe_mm * MM)
    return found


POKER = FORMATS[DEFAULT_FORMAT]
