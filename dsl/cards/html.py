"""Cards and the sheet as one self-contained HTML page for screens: styles inline, no scripts, no
fonts or images to fetch.  Rendered from the Jinja2 templates in dsl/cards/templates/ with
autoescape on: rulebook text only ever reaches the page as escaped text."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import jinja2

from dsl.cards.blocks import Block, Card, Sheet
from dsl.cards.text import title_case_first

TEMPLATES = Path(__file__).resolve().parent / "templates"


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["kind"] = _kind
    env.filters["capitalize_first"] = title_case_first
    return env


def _kind(block: Block) -> str:
    return type(block).__name__.lower()


def cards_html(cards: list[Card], title: str) -> bytes:
    template = environment().get_template("cards.html.j2")
    page = template.render(cards=cards, title=title, page_title=f"{title} — reference cards", layout="cards")
    return page.encode("utf-8")


def sheet_html(sheet: Sheet) -> bytes:
    template = environment().get_template("sheet.html.j2")
    page = template.render(sheet=sheet, page_title=f"{sheet.title} — quick reference", layout="sheet")
    return page.encode("utf-8")
