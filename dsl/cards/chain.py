"""A table's chain on its card: where its rows send on to other rolls, the whole procedure as a
compact flow, each roll on one line with the chance of reaching each of its rows.

The chances are the reference resolver's (dsl/semantics/chains.py), which every resolver is held
to, each cell as the card writes it.  A table's modifier input counts at its default, as
`describe` shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from dsl import model as m
from dsl.cards.blocks import Block, Detail, Heading, Run
from dsl.cards.notation import Notation
from dsl.cards.text import MINUS, clean, percent
from dsl.runtime.dice import Value
from dsl.semantics.chains import Chains
from dsl.semantics.values import constant_value

_ARROW = "\u2192"
_DEPTH = 1
"""The deepest level a card shows; deeper rolls are in `describe` and the resolution."""


def chain_blocks(table: m.Table, notation: Notation) -> list[Block]:
    """The flow of the chain a rolled table starts, or nothing for a table that sends nowhere."""
    if table.pool is None or not _sends_on(table):
        return []
    book = notation.book

    def cell(cell: m.TableCell) -> Value:
        value = constant_value(cell.value, book) if cell.value is not None else None
        return value if isinstance(value, (int, Fraction, str)) else clean(notation.cell(cell))

    specs = book.tables
    offset = table.modifier_sign * _default(book, table.modifier)
    chain = Chains(book, cell).chain(table.name, table.name, Fraction(1), (table.name, offset, False))
    lines: list[Block] = [Heading("Chain", "chance of reaching each row")]
    heading: tuple[object, ...] | None = None
    parts: list[str] = []
    lead = ""
    # The table's own rows are on the card with their chances when it prints a chance column:
    # the chain then shows only where they send on to.
    own_chances = table.modifier is None and table.overflow is None
    for step in chain.flow:
        if step.depth > _DEPTH or (own_chances and step.depth == 0 and step.table == table.name and not step.twice):
            continue
        head = (step.depth, step.table, step.roll, step.twice)
        if head != heading:
            if parts:
                lines.append(Detail((Run(lead + " \u00b7 ".join(parts)),), indent=int(heading is not None and heading[0] != 0)))
            heading, parts = head, []
            title = _title(step.table, table.name, specs)
            each = ", each of two" if step.twice else ""
            lead = f"{'Then ' if step.depth else ''}{step.roll} on {title}{each}: "
        then = f" {_ARROW} {'; '.join(_step(s, step.table, table.name, specs) for s in step.then)}" if step.then else ""
        again = " (as above)" if step.repeats else ""
        parts.append(f"{_key(step.key)} ({percent(step.reach)}){then}{again}")
    if parts:
        lines.append(Detail((Run(lead + " \u00b7 ".join(parts)),), indent=int(heading is not None and heading[0] != 0)))
    facts = []
    if chain.rolls is not None:
        facts.append(f"{_average(chain.rolls)} rolls on average")
    facts += [f"{name} {_average(value)} on average" for name, value in chain.means.items()]
    if facts:
        lines.append(Detail((Run("; ".join(facts) + "."),)))
    return lines


def _step(text: str, table: str, own: str, specs: Mapping[str, m.Table]) -> str:
    """A step as a card says it (`roll on TABLE +N`, `roll twice on this table`, `roll again +N`):
    the table by its title."""
    words = text.split()
    twice = words[1] == "twice"
    target = words[2] if words[1] == "on" and not twice else table
    modifier = int(words[-1]) if words[-1][0] in "+-" else 0
    shift = f" {'+' if modifier > 0 else MINUS}{abs(modifier)}" if modifier else ""
    if twice:
        return "roll twice"
    if target == table:
        return f"roll again{shift}"
    return f"roll on {_title(target, own, specs)}{shift}"


def _title(name: str, own: str, specs: Mapping[str, m.Table]) -> str:
    """"this table" for the card's own, else the short title ("Sub-table A" of "Sub-table A: ...")."""
    return "this table" if name == own else clean(specs[name].title).split(":")[0]


def _sends_on(table: m.Table) -> bool:
    return any(c.step is not None for r in table.rows for c in r.cells) or bool(table.overflow and table.overflow.step)


def _default(book: m.Book, name: str | None) -> int:
    if name is None:
        return 0
    default = book.vars[name].default
    return int(default) if isinstance(default, (int, Fraction)) and not isinstance(default, bool) else 0


def _key(key: str) -> str:
    """A row's key as the table prints it: `1-19` with an en dash, not `1..19`."""
    return key.replace("..", "\u2013")


def _average(value: Fraction) -> str:
    """An expectation as a player reads it: `1.88`, `-15.27` (two decimals at most, with a true minus sign);
    the exact fraction is in `describe` and the resolution."""
    text = f"{float(abs(value)):.2f}".rstrip("0").rstrip(".")
    return (MINUS if value < 0 else "") + text
