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
from dsl.cards.text import MINUS, clean
from dsl.runtime.dice import Value
from dsl.semantics.chains import Chains
from dsl.semantics.values import constant_value

_ARROW = "\u2192"
_LEVEL = "\u203a"  # one mark per level of the flow
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
    for step in chain.flow:
        if step.depth > _DEPTH:
            continue
        head = (step.depth, step.table, step.roll, step.twice)
        if head != heading:
            if parts:
                lines.append(Detail((Run(lead + " \u00b7 ".join(parts)),), indent=heading is not None and heading[0] != 0))
            heading, parts = head, []
            title = _title(step.table, table.name, specs)
            each = ", each of two" if step.twice else ""
            lead = f"{_LEVEL * step.depth}{' ' if step.depth else ''}{step.roll} on {title}{each}: "
        then = f" {_ARROW} {'; '.join(_step(s, step.table, table.name, specs) for s in step.then)}" if step.then else ""
        again = " (as above)" if step.repeats else ""
        parts.append(f"{step.key} {_chance(step.reach)}{then}{again}")
    if parts:
        lines.append(Detail((Run(lead + " \u00b7 ".join(parts)),), indent=heading is not None and heading[0] != 0))
    facts = []
    if chain.rolls is not None:
        facts.append(f"{_chance(chain.rolls)} rolls on average")
    facts += [f"{name} {_chance(value)} on average" for name, value in chain.means.items()]
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


def _chance(value: Fraction) -> str:
    """A chance or an expectation, exactly: `1/72`, `1739/900`, `-565/37` (with a minus sign)."""
    return (MINUS if value < 0 else "") + str(abs(value))
