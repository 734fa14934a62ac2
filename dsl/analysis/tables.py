"""Tables: their key (a roll, or one or two inputs), columns, rows and cells, and the steps a
row may lead to (`then roll TABLE`, `roll twice`, `roll again`).  Coverage and order are judged
later, on the finished table (dsl/checks/tables.py)."""

from __future__ import annotations

import dataclasses
import functools
import operator
from fractions import Fraction

from dsl import model as m
from dsl import nodes as n
from dsl import types as t
from dsl.analysis.context import Context, guess_high, note_pair, text
from dsl.analysis.infer import Scope, TableShape, check_dice, choices, describe, not_a_member
from dsl.diagnostics import did_you_mean


def analyze_table_shape(cx: Context, decl: n.TableDecl) -> None:
    """Key and column types, needed before any rule can look the table up."""
    key_types: list[t.Type] = []
    if isinstance(decl.key, n.RollKey):
        key_types.append(t.Numeric("int"))
    else:
        assert isinstance(decl.key, n.InputKey)
        for name in decl.key.inputs:
            var = cx.book.vars.get(name.text)
            if var is None:
                cx.reporter.report(
                    "E101", f"unknown input `{name.text}`", name.span, did_you_mean(name.text, cx.book.vars)
                )
                return
            key_types.append(var.type)
    columns = _columns(cx, decl)
    cx.table_shapes[decl.name.text] = TableShape(tuple(key_types), {c: t.TEXT for c, _ in columns})


def _columns(cx: Context, decl: n.TableDecl) -> tuple[tuple[str, str | None], ...]:
    declared = [c for item in decl.items if isinstance(item, n.Columns) for c in item.columns]
    if not declared:
        return (("value", None),)
    return tuple((c.name.text, text(c.label)) for c in declared)


def analyze_table(cx: Context, decl: n.TableDecl) -> None:
    name = decl.name.text
    shape = cx.table_shapes[name]
    columns = _columns(cx, decl)
    column_decls = [item for item in decl.items if isinstance(item, n.Columns)]
    for extra in column_decls[1:]:
        cx.reporter.report("E102", "a table lists its columns once", extra.span)
    inputs: tuple[str, ...] = ()
    pool = None
    modifier = None
    sign = 1
    if isinstance(decl.key, n.RollKey):
        pool = decl.key.pool
        check_dice(pool.count, pool.sides, pool, cx.reporter)
        if decl.key.modifier is not None:
            var = cx.book.vars.get(decl.key.modifier.text)
            if var is None:
                cx.reporter.report(
                    "E101",
                    f"unknown input `{decl.key.modifier.text}`",
                    decl.key.modifier.span,
                    did_you_mean(decl.key.modifier.text, cx.book.vars),
                )
            elif not (isinstance(var.type, t.Numeric) and var.type.integral):
                cx.reporter.report(
                    "E201",
                    f"a roll is modified by a whole number, but `{var.name}` is {describe(var.type)}",
                    decl.key.modifier.span,
                )
            else:
                modifier = var.name
            sign = decl.key.modifier_sign
    else:
        assert isinstance(decl.key, n.InputKey)
        inputs = tuple(x.text for x in decl.key.inputs)
        if len(inputs) == 2:
            _two_d_columns(cx, decl, shape, column_decls)
    scope = Scope()
    rows: list[m.TableRow] = []
    column_types: dict[str, list[t.Type]] = {c: [] for c, _ in columns}
    value_columns = [c for c, _ in columns] if len(inputs) != 2 else ["value"] * len(columns)
    for item in decl.items:
        if not isinstance(item, n.Row):
            continue
        row = _row(cx, decl, item, shape, scope, columns, value_columns, column_types)
        if row is not None:
            rows.append(row)
    rows = _close_thresholds(rows)
    final_columns: dict[str, t.Type] = {}
    if len(inputs) == 2:
        final_columns["value"] = _hull(functools.reduce(operator.iadd, column_types.values(), []))
    else:
        for column, types in column_types.items():
            final_columns[column] = _hull(types)
    shape.columns = final_columns
    overflow = None
    notes: list[tuple[str, str | None]] = []
    asides: list[str] = []
    category = None
    depth: n.ChainDepth | None = None
    for item in decl.items:
        if isinstance(item, n.ChainDepth):
            depth = _chain_depth(cx, item, depth, pool is not None)
        elif isinstance(item, n.Overflow):
            if pool is None:
                cx.reporter.report("E203", "`above N: as M` belongs to tables rolled with dice", item.span)
                continue
            overflow = m.Overflow(
                item.above, item.becomes, analyze_step(cx, item.step, decl) if item.step else None, item.span
            )
        elif isinstance(item, n.TableStmt):
            statement = item.statement
            if isinstance(statement, n.CategoryStmt):
                category = cx.category(statement)
            elif isinstance(statement, n.AsideStmt):
                asides.append(statement.text.value)
            else:
                notes.append(note_pair(statement))
    cx.book.tables[name] = m.Table(
        name=name,
        title=decl.title.value if decl.title else name.replace("_", " ").title(),
        cites=decl.cites.value if decl.cites else None,
        category=category,
        key="roll" if pool is not None else "input",
        pool=pool,
        modifier=modifier,
        modifier_sign=sign,
        inputs=inputs,
        columns=columns,
        rows=tuple(rows),
        overflow=overflow,
        notes=tuple(notes),
        asides=tuple(asides),
        span=decl.span,
        chain_depth=depth.depth if depth else None,
        chain_depth_span=depth.span if depth else None,
    )


MAX_CHAIN_DEPTH = 12
"""The deepest listing a book may state: a roll again on a d10 lists up to 10**12 ways."""


def _chain_depth(cx: Context, item: n.ChainDepth, before: n.ChainDepth | None, rolled: bool) -> n.ChainDepth | None:
    """`chain depth N` once, on a table rolled with dice, with N from 1 to MAX_CHAIN_DEPTH.
    Whether the table can repeat at all is judged on the finished book (dsl/checks/tables.py)."""
    if before is not None:
        cx.reporter.report("E102", "a table states its chain depth once", item.span)
        return before
    if not rolled:
        cx.reporter.report("E507", "`chain depth` belongs to tables rolled with dice", item.span)
        return None
    if not 1 <= item.depth <= MAX_CHAIN_DEPTH:
        cx.reporter.report(
            "E507",
            f"a chain is listed to 1 to {MAX_CHAIN_DEPTH} rolls in a row, not {item.depth}",
            item.span,
            "the chance of the longer ways is reported in one figure (`beyond`) whatever the depth",
        )
        return None
    return item


def _two_d_columns(cx: Context, decl: n.TableDecl, shape: TableShape, column_decls: list[n.Columns]) -> None:
    column_type = shape.key_types[1]
    row_type = shape.key_types[0]
    assert isinstance(decl.key, n.InputKey)
    for key_type, key_name in zip((row_type, column_type), decl.key.inputs, strict=True):
        if not isinstance(key_type, t.Enum):
            cx.reporter.report(
                "E201",
                f"a two-way table is keyed by choices, but `{key_name.text}` is {describe(key_type)}",
                key_name.span,
            )
    if not isinstance(column_type, t.Enum):
        return
    if not column_decls:
        cx.reporter.report(
            "E205",
            "a two-way table names its columns",
            decl.name.span,
            f"add `columns {', '.join(column_type.members)}`",
        )
        return
    listed = [c.name for c in column_decls[0].columns]
    for column in listed:
        if column.text not in column_type.members:
            cx.reporter.report(
                "E105",
                not_a_member(column.text, column_type),
                column.span,
                did_you_mean(column.text, column_type.members),
            )
    missing = [x for x in column_type.members if x not in {c.text for c in listed}]
    if missing:
        cx.reporter.report("E404", f"the columns miss {', '.join(f'`{x}`' for x in missing)}", column_decls[0].span)


def _row(
    cx: Context,
    decl: n.TableDecl,
    item: n.Row,
    shape: TableShape,
    scope: Scope,
    columns: tuple[tuple[str, str | None], ...],
    value_columns: list[str],
    column_types: dict[str, list[t.Type]],
) -> m.TableRow | None:
    key = item.key
    numeric_key = isinstance(decl.key, n.RollKey) or isinstance(shape.key_types[0], t.Numeric)
    low = high = None
    member = None
    if isinstance(key, n.KeyRange):
        if not numeric_key:
            row_type = shape.key_types[0]
            cx.reporter.report(
                "E405",
                f"rows of this table are named by {row_type.describe()}, not numbers",
                key.span,
                f"name the row by one of {choices(row_type)}" if isinstance(row_type, t.Enum) else None,
            )
            return None
        low, high = key.low, key.high
        if high is not None and low > high:
            cx.reporter.report(
                "E302",
                f"the range {low}..{high} is empty: it ends below where it starts",
                key.span,
                f"did you mean {low}..{guess_high(Fraction(low), Fraction(high))}?",
            )
            return None
    elif isinstance(key, n.KeyName):
        row_type = shape.key_types[0]
        if numeric_key or not isinstance(row_type, t.Enum):
            keyed = "the roll" if isinstance(decl.key, n.RollKey) else "the value"
            cx.reporter.report(
                "E405",
                "rows of this table are numbers or ranges, not names",
                key.span,
                f"key each row by {keyed}: a number (`20`), a range (`1..5`) or a threshold (`15+`)",
            )
            return None
        if key.name.text not in row_type.members:
            cx.reporter.report(
                "E105",
                not_a_member(key.name.text, row_type),
                key.name.span,
                did_you_mean(key.name.text, row_type.members),
            )
            return None
        member = key.name.text
    if len(item.cells) != len(columns):
        cx.reporter.report(
            "E205",
            f"this row has {len(item.cells)} value(s) but the table has {len(columns)} column(s)",
            item.span,
            "columns: " + ", ".join(c for c, _ in columns),
        )
        return None
    cells = []
    for cell, column in zip(item.cells, value_columns, strict=True):
        cells.append(_cell(cx, cell, decl, scope, column_types, column))
    threshold = isinstance(key, n.KeyRange) and key.open
    return m.TableRow(low, high, member, isinstance(key, n.KeyElse), tuple(cells), item.span, threshold)


def _cell(
    cx: Context, cell: n.Cell, decl: n.TableDecl, scope: Scope, column_types: dict[str, list[t.Type]], column: str
) -> m.TableCell:
    bucket = column_types.setdefault(column, [])
    if isinstance(cell, n.ImpassableCell):
        bucket.append(t.Cell(t.Numeric("int")))
        return m.TableCell("impassable", None, None, cell.span)
    if isinstance(cell, n.NACell):
        bucket.append(t.Cell(t.Numeric("int")))
        return m.TableCell("na", None, None, cell.span)
    if isinstance(cell, n.StepCell):
        return m.TableCell("step", None, analyze_step(cx, cell.step, decl), cell.span)
    assert isinstance(cell, n.ValueCell)
    found = cx.typer.infer(cell.value, scope)
    if found is not None:
        bucket.append(found)
    step = analyze_step(cx, cell.step, decl) if cell.step else None
    return m.TableCell("value", cell.value, step, cell.span)


def analyze_step(cx: Context, step: n.Step, decl: n.TableDecl) -> m.Step:
    if isinstance(step, n.RollOn):
        if step.table.text not in cx.table_shapes and step.table.text != decl.name.text:
            cx.reporter.report(
                "E101",
                f"unknown table `{step.table.text}`",
                step.table.span,
                did_you_mean(step.table.text, cx.table_shapes),
            )
        return m.Step("roll_on", step.table.text, step.offset, step.span)
    if not isinstance(decl.key, n.RollKey):
        cx.reporter.report("E203", "only a table rolled with dice can be rolled again", step.span)
    if isinstance(step, n.RollTwice):
        return m.Step("twice", decl.name.text, 0, step.span)
    assert isinstance(step, n.RollAgain)
    return m.Step("again", decl.name.text, step.offset, step.span)


# ------------------------------------------------------------------ rules


def _close_thresholds(rows: list[m.TableRow]) -> list[m.TableRow]:
    """`N+` rows followed by a higher row cover up to just below it (a threshold table)."""
    closed = []
    for index, row in enumerate(rows):
        following = rows[index + 1] if index + 1 < len(rows) else None
        if (
            row.threshold
            and row.low is not None
            and following is not None
            and following.low is not None
            and following.low > row.low
        ):
            row = dataclasses.replace(row, high=following.low - 1)
        closed.append(row)
    return closed


def _hull(types: list[t.Type]) -> t.Type:
    """The type of a table column: the common type of its cells (numbers join their ranges)."""
    if not types:
        return t.TEXT
    cells = [x.number if isinstance(x, t.Cell) else x for x in types]
    if all(isinstance(x, t.Numeric) for x in cells):
        numerics = [x for x in cells if isinstance(x, t.Numeric)]
        lows = [x.low for x in numerics]
        highs = [x.high for x in numerics]
        low = None if None in lows else min(x for x in lows if x is not None)
        high = None if None in highs else max(x for x in highs if x is not None)
        kind = "number" if any(x.kind == "number" for x in numerics) else "int"
        joined = t.Numeric(kind, low, high, numerics[0].unit)
        return t.Cell(joined) if any(isinstance(x, t.Cell) for x in types) else joined
    first = types[0]
    if all(type(x) is type(first) for x in types):
        return first
    return t.TEXT
