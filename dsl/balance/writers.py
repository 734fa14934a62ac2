"""A sweep's rows as files: CSV and JSON lines (streamed while the sweep runs), Parquet (pyarrow,
from the `balance` extra).

Exact chances are written as fractions ("145/432"), the way `resolve --json` writes them, next
to their float column; other values as the resolver's JSON does (whole numbers as numbers, exact
decimals as text, flags as yes/no in CSV and true/false in JSON).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import IO, Any

from dsl.balance.books import BalanceError
from dsl.balance.layout import Column
from dsl.balance.rows import Row
from dsl.runtime.base import show

FORMATS = ("csv", "jsonl", "parquet")
SUFFIXES = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet"}


def format_for(path: Path | None, fmt: str | None) -> str:
    """The format asked for, else the one the output's suffix names, else CSV."""
    if fmt is not None:
        return fmt
    if path is not None and path.suffix.lower() in SUFFIXES:
        return SUFFIXES[path.suffix.lower()]
    if path is not None and path.suffix:
        raise BalanceError(f"cannot tell the format of `{path}` from its suffix; add --format csv, jsonl or parquet")
    return "csv"


def fraction_text(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value.numerator)


def json_value(column: Column, value: Any) -> Any:
    if value is None or isinstance(value, (bool, float)):
        return value
    if column.kind == "restrictions":
        return list(value)
    if isinstance(value, Fraction):
        if column.kind == "chance":
            return fraction_text(value)
        return value.numerator if value.denominator == 1 else show(value)
    return value


def text_value(column: Column, value: Any) -> str:
    if value is None:
        return ""
    if column.kind == "restrictions":
        return "; ".join(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, Fraction) and column.kind == "chance":
        return fraction_text(value)
    return show(value)


def write_csv(stream: IO[str], columns: Sequence[Column], chunks: Iterable[list[Row]]) -> int:
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow([column.name for column in columns])
    count = 0
    for chunk in chunks:
        writer.writerows([text_value(c, v) for c, v in zip(columns, row, strict=True)] for row in chunk)
        count += len(chunk)
    return count


def write_jsonl(stream: IO[str], columns: Sequence[Column], chunks: Iterable[list[Row]]) -> int:
    count = 0
    for chunk in chunks:
        for row in chunk:
            record = {c.name: json_value(c, v) for c, v in zip(columns, row, strict=True)}
            stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        count += len(chunk)
    return count


def write_parquet(path: Path, columns: Sequence[Column], chunks: Iterable[list[Row]]) -> int:
    """A Parquet file: each column typed by what it holds (whole numbers, floats, flags, text;
    exact chances as fraction text, restrictions as a list of texts)."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise BalanceError("Parquet needs pyarrow: pip install 'rulecraft[balance]'") from None
    rows = [row for chunk in chunks for row in chunk]
    arrays = []
    for index, column in enumerate(columns):
        values = [row[index] for row in rows]
        arrays.append(_array(pyarrow, column, values))
    table = pyarrow.table(dict(zip([c.name for c in columns], arrays, strict=True)))
    pyarrow.parquet.write_table(table, str(path))
    return len(rows)


def _array(pyarrow: Any, column: Column, values: list[Any]) -> Any:
    if column.kind == "restrictions":
        return pyarrow.array([list(v) if v is not None else None for v in values], type=pyarrow.list_(pyarrow.string()))
    present = [v for v in values if v is not None]
    if column.kind == "float" or (present and all(isinstance(v, float) for v in present)):
        return pyarrow.array(values, type=pyarrow.float64())
    if present and all(isinstance(v, bool) for v in present):
        return pyarrow.array(values, type=pyarrow.bool_())
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return pyarrow.array(values, type=pyarrow.int64())
    texts = [None if v is None else text_value(column, v) for v in values]
    return pyarrow.array(texts, type=pyarrow.string())
