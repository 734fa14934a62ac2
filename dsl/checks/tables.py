"""E401-E405 and E301 for tables: every die face or input value covered exactly once, in order.

For a table rolled with dice, the values to cover are the pool's totals, shifted by the range of
its modifier input and by every `then roll TABLE +N` that lands on it; `above N: as M` folds the
totals above N into row M.  For a table looked up by a number, they are the input's range; by a
choice, its members (an `else` row covers the rest).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from dsl import model as m
from dsl import printer
from dsl import types as t
from dsl.diagnostics import Reporter, Span
from dsl.runtime.chains import CHAIN_DEPTH, CHAIN_PATHS, CHAIN_ROLLS
from dsl.runtime.dice import Value
from dsl.semantics.chains import Chains
from dsl.semantics.values import constant_value


def check_tables(book: m.Book, reporter: Reporter) -> None:
    offsets = _offsets(book)
    for table in book.tables.values():
        if table.pool is not None:
            _roll_table(table, offsets.get(table.name, {0}), book, reporter)
        elif table.inputs:
            key_type = book.vars[table.inputs[0]].type
            if isinstance(key_type, t.Enum):
                _member_table(table, key_type, reporter)
            elif isinstance(key_type, t.Numeric):
                _number_table(table, key_type, reporter)


def check_chain_depths(book: m.Book, reporter: Reporter) -> None:
    """The chains of rolled tables, followed as the runtime follows them (on a book whose tables
    cover their rolls), from each roll that can start one: the table's own roll at each end of
    its modifier input, and every `then roll TABLE +N`.

    - E507: `chain depth N` on a table no chain can come back to (nothing to bound), or deeper
      than a resolver lists (its ways past CHAIN_PATHS paths; the message gives the count and
      the depth that fits);
    - E507 too: a chain that comes to more than CHAIN_ROLLS different rolls;
    - W508: a chain listed to fewer rolls in a row than its own (every way, or CHAIN_DEPTH)."""
    if reporter.has_errors:
        return
    chains = Chains(book, _constant_cell(book))
    offsets = _offsets(book)
    reported: set[str] = set()
    for table in book.tables.values():
        if table.pool is None or not any(cell.step for row in table.rows for cell in row.cells):
            if table.chain_depth is not None and table.pool is not None:
                _no_cycle(table, reporter)
            continue
        starts = [(table.name, offset, False) for offset in sorted(offsets.get(table.name, {0}) | _own(table, book))]
        order = chains.rolls_from(starts)
        cyclic = chains.cyclic(order)
        if table.chain_depth is not None and not cyclic:
            _no_cycle(table, reporter)
        where = table.chain_depth_span or table.span
        if len(order) > CHAIN_ROLLS:
            reporter.report(
                "E507",
                f"a chain from `{table.name}` comes to {len(order):,} different rolls (a table and the"
                f" modifier of its roll); a resolver works out chains of at most {CHAIN_ROLLS:,}",
                table.span,
                "send fewer rows on to other tables, or with fewer different `+N`",
            )
            continue
        for start in starts:
            if table.name in reported:
                break
            order = chains.rolls_from([start])
            cyclic = chains.cyclic(order)
            stated = chains.stated(order) if cyclic else None
            listed = chains.listed_depth([start], 0, order, cyclic)
            own = (stated or CHAIN_DEPTH) if cyclic else None
            if listed == own:
                continue
            reported.add(table.name)
            wanted = chains.paths([start], 0, own)
            if stated is not None and table.chain_depth is not None:
                reporter.report(
                    "E507",
                    f"listed to {stated} rolls in a row, the chain of `{table.name}` follows {wanted:,} paths;"
                    f" a resolver lists at most {CHAIN_PATHS:,}, which is {listed} rolls in a row",
                    where,
                    f"state `chain depth {listed}` (the chance of the longer ways is reported in one figure, `beyond`)",
                )
            elif stated is None:
                whole = "every way" if not cyclic else f"{CHAIN_DEPTH} rolls in a row"
                reporter.report(
                    "W508",
                    f"the chain of `{table.name}` is listed to {listed} rolls in a row, not {whole}: that"
                    f" would follow {wanted:,} paths, and a resolver lists at most {CHAIN_PATHS:,}",
                    table.span,
                    "the chance of the longer ways is reported in one figure (`beyond`), and the expected"
                    " rolls, visits and totals stay exact; state `chain depth N` on a table it repeats to"
                    " choose the depth",
                )


def _no_cycle(table: m.Table, reporter: Reporter) -> None:
    reporter.report(
        "E507",
        f"no roll on `{table.name}` can come back to a table it left: its chains are listed completely",
        table.chain_depth_span or table.span,
        "remove `chain depth`: it bounds chains that `roll again`",
    )


def _constant_cell(book: m.Book) -> Callable[[m.TableCell], Value]:
    """A cell as a chain reads it when checking: its value if it is a constant, else its text."""

    def cell(cell: m.TableCell) -> Value:
        value = constant_value(cell.value, book) if cell.value is not None else None
        return value if isinstance(value, (int, Fraction, str)) else printer.cell_text(cell)

    return cell


def _own(table: m.Table, book: m.Book) -> set[int]:
    """The offsets of the table's own roll: its modifier input at each end of its range."""
    if table.modifier is None:
        return {0}
    var_type = book.vars[table.modifier].type
    if not isinstance(var_type, t.Numeric) or var_type.low is None or var_type.high is None:
        return {0}
    return {int(table.modifier_sign * var_type.low), int(table.modifier_sign * var_type.high)}


def _offsets(book: m.Book) -> dict[str, set[int]]:
    """For each table, the offsets other rolls add when they send a result to it (0: plain roll)."""
    found: dict[str, set[int]] = {name: {0} for name in book.tables}
    steps: list[tuple[str, m.Step]] = []
    for table in book.tables.values():
        for row in table.rows:
            steps += [(table.name, c.step) for c in row.cells if c.step is not None]
        if table.overflow and table.overflow.step:
            steps.append((table.name, table.overflow.step))
    for part in book.parts.values():
        for effect in part.effects:
            if isinstance(effect, m.RollEffect):
                steps += [(part.rule, o.step) for o in effect.outcomes if o.step is not None]
    for owner, step in steps:
        target = step.table or owner
        if target in found:
            found[target].add(step.offset)
    return found


def _roll_table(table: m.Table, offsets: set[int], book: m.Book, reporter: Reporter) -> None:
    pool = table.pool
    assert pool is not None
    if pool.keep:
        low, high = 1, pool.sides
    else:
        low, high = pool.count, pool.count * pool.sides
    dice_low, dice_high = low, high
    dice = f"{pool.count}d{pool.sides}" if pool.count != 1 else f"d{pool.sides}"
    what = dice
    if table.modifier is not None:
        var_type = book.vars[table.modifier].type
        assert isinstance(var_type, t.Numeric)
        if var_type.low is None or var_type.high is None:
            reporter.report(
                "E401",
                f"the modifier `{table.modifier}` has no range, so the rows this table needs are unknown",
                table.span,
                f"give `{table.modifier}` a range, e.g. `int -5..5`",
            )
            return
        shifts = sorted({int(table.modifier_sign * var_type.low), int(table.modifier_sign * var_type.high)})
        low, high = low + shifts[0], high + shifts[1]
        what += f" {'+' if table.modifier_sign > 0 else '-'} {table.modifier}"
    extra = [o for o in offsets if o]
    if extra:  # a chained roll is the dice plus its step's modifier, without the table's input
        low, high = min(low, dice_low + min(extra)), max(high, dice_high + max(extra))
        what += " (and " + ", ".join(f"{o:+d}" for o in sorted(extra)) + " from other rolls)"
    reach_high = high
    if table.overflow is not None:
        high = min(high, table.overflow.above)
    _ranges(table, Fraction(low), Fraction(high), f"{what} gives {low}..{reach_high}", reporter, dice_table=True)


def _number_table(table: m.Table, key_type: t.Numeric, reporter: Reporter) -> None:
    name = table.inputs[0]
    _ranges(table, key_type.low, key_type.high, f"`{name}` is {key_type.describe()}", reporter, dice_table=False)


def _ranges(
    table: m.Table,
    low: Fraction | None,
    high: Fraction | None,
    reach: str,
    reporter: Reporter,
    *,
    dice_table: bool,
) -> None:
    rows = [r for r in table.rows if r.low is not None]
    remedy = (
        f"send results to {{it}} from another table with `then roll {table.name} +N`"
        if dice_table
        else f"widen the range of `{table.inputs[0]}`"
    )
    unreachable = "remove {it}, or " + remedy
    previous: m.TableRow | None = None
    for row in rows:
        assert row.low is not None
        if previous is not None and previous.low is not None and row.low < previous.low:
            reporter.report(
                "E403",
                f"row {row.key_text()} comes after row {previous.key_text()}",
                row.span,
                "list the rows from the lowest value to the highest",
            )
            return
        previous = row
    covered: list[tuple[int, int | None, m.TableRow]] = []
    beyond_reach: list[m.TableRow] = []  # a run of consecutive rows no value reaches
    run_side = ""
    # The rows come in order of their first value, so a row overlaps an earlier one exactly when
    # an earlier row reaches it; the one reaching furthest is named (one E402 per row, not one
    # per pair: a sweep, not a comparison of every pair).
    furthest: tuple[int | None, m.TableRow] | None = None
    for row in rows:
        assert row.low is not None
        row_high = row.high
        outside_low = high is not None and row.low > high
        outside_high = low is not None and row_high is not None and row_high < low
        side = "above" if outside_low else "below" if outside_high else ""
        if beyond_reach and side != run_side:
            _unreachable(beyond_reach, reach, unreachable, reporter)
            beyond_reach = []
        if side:
            beyond_reach.append(row)
            run_side = side
            continue
        if dice_table and not row.threshold and row_high is not None and low is not None and high is not None:
            # a closed range that a die never fills says the die is not the one the source rolls
            beyond = [x for x in (row.low, row_high) if not low <= x <= high]
            if beyond:
                reporter.report(
                    "E301",
                    f"row {row.key_text()} reaches {beyond[0]}, which the roll never gives: {reach}",
                    row.span,
                    f"end the row within {low}..{high}, or write it as a threshold (`{row.low}+`)"
                    if row.low >= low
                    else f"start the row within {low}..{high}",
                )
        if furthest is not None:
            end, other = furthest
            if end is None or row.low <= end:
                top = row_high if end is None else (end if row_high is None else min(end, row_high))
                both = f"{row.low}" if top == row.low else f"{row.low}..{top}" if top is not None else f"{row.low}+"
                reporter.report(
                    "E402",
                    f"rows {other.key_text()} and {row.key_text()} both cover {both}",
                    row.span,
                    "each value belongs to exactly one row",
                )
        if furthest is None or (furthest[0] is not None and (row_high is None or row_high > furthest[0])):
            furthest = (row_high, row)
        covered.append((row.low, row_high, row))
    if beyond_reach:
        _unreachable(beyond_reach, reach, unreachable, reporter)
    if any(r.is_else for r in table.rows):
        return
    gaps = _gaps(covered, low, high)
    starting: dict[int, m.TableRow] = {}
    ending: dict[int, m.TableRow] = {}
    for _, _, row in covered:
        assert row.low is not None
        starting.setdefault(row.low, row)
        if row.high is not None:
            ending.setdefault(row.high, row)
    for gap_low, gap_high in gaps:
        if gap_high is None:
            text = f"{gap_low} and above"
        elif gap_low is None:
            text = f"{gap_high} and below"
        elif gap_low == gap_high:
            text = str(gap_low)
        else:
            text = f"{gap_low}..{gap_high}"
        after = starting.get(gap_high + 1) if gap_high is not None else None
        before = ending.get(gap_low - 1) if gap_low is not None else None
        # show the row the gap ends at, where a designer looks for the typo
        where = after.span if after else table.rows[-1].span if table.rows else table.span
        hint = f"add a row for {text}"
        if after and before:
            hint += ", or widen the row before or after it"
        elif not dice_table:
            hint += ", or an `else` row"
        elif before and before.high is not None and gap_high == high:
            top = before.high
            hint += f", or fold the higher totals into row {before.key_text()} with `above {top}: as {top}`"
        reporter.report("E401", f"table `{table.name}` has no row for {text} ({reach})", where, hint)


def _unreachable(run: list[m.TableRow], reach: str, hint: str, reporter: Reporter) -> None:
    """One E301 for a run of consecutive rows that no value reaches (a table of 10,000 rows keyed
    on 0..1000 is one mistake, not 9,000).  `hint` names the rows `{it}`."""
    first, last = run[0], run[-1]
    if len(run) == 1:
        what = f"row {first.key_text()}"
    elif last.high is None or last.threshold:
        what = f"rows {first.low}+ ({len(run)} rows)"
    else:
        what = f"rows {first.low}..{last.high} ({len(run)} rows)"
    span = Span(first.span.path, first.span.line, first.span.column, last.span.end_line, last.span.end_column)
    reporter.report(
        "E301", f"{what} can never be reached: {reach}", span, hint.format(it="it" if len(run) == 1 else "them")
    )


def _gaps(
    covered: list[tuple[int, int | None, m.TableRow]], low: Fraction | None, high: Fraction | None
) -> list[tuple[int | None, int | None]]:
    """The runs of values in low..high (None: unbounded) that no row covers, in one pass over the
    rows in order of their first value (an open row, `4+`, ends the pass)."""
    top = None if high is None else int(high)
    cursor: int | None = None if low is None else int(low)
    gaps: list[tuple[int | None, int | None]] = []
    for start, end, _ in sorted(covered, key=lambda item: item[0]):
        if top is not None and cursor is not None and cursor > top:
            return gaps
        if cursor is None or start > cursor:
            gap_end = start - 1 if top is None else min(start - 1, top)
            gaps.append((cursor, gap_end))
        if end is None:
            return gaps
        cursor = end + 1 if cursor is None else max(cursor, end + 1)
    if cursor is None:
        return gaps
    if top is None:
        gaps.append((cursor, None))
    elif cursor <= top:
        gaps.append((cursor, top))
    return gaps


def _member_table(table: m.Table, key_type: t.Enum, reporter: Reporter) -> None:
    seen: dict[str, m.TableRow] = {}
    for row in table.rows:
        if row.member is None:
            continue
        if row.member in seen:
            reporter.report(
                "E402", f"`{row.member}` has two rows", row.span, f"the first is on line {seen[row.member].span.line}"
            )
        seen.setdefault(row.member, row)
    elses = [r for r in table.rows if r.is_else]
    if elses and elses[0] is not table.rows[-1]:
        reporter.report("E403", "the `else` row comes last", elses[0].span)
    missing = [x for x in key_type.members if x not in seen]
    if missing and not elses:
        reporter.report(
            "E404",
            f"table `{table.name}` has no row for {', '.join(f'`{x}`' for x in missing)}",
            table.rows[-1].span if table.rows else table.span,
            "add the rows, or an `else` row for the rest",
        )
