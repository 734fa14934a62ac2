"""A sweep's rows as files: CSV and JSON lines (streamed while the sweep runs), Parquet (pyarrow,
from the `balance` extra), one file or a folder of parts.  Each writer takes the rows chunk by chunk, in order, and holds no
more than a chunk (Parquet: a row group) at a time; `write_file` writes a file whole or not at
all (output.py).

Exact chances are written as fractions ("145/432"), the way `resolve --json` writes them, next
to their float column; other values as the resolver's JSON does (whole numbers as numbers, exact
decimals as text, flags as yes/no in CSV and true/false in JSON).
"""

from __future__ import annotations

import csv
import itertools
import json
import pickle
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from fractions import Fraction
from pathlib import Path
from typing import IO, Any

from dsl.balance.books import BalanceError
from dsl.balance.layout import Column
from dsl.balance.limits import ROW_GROUP
from dsl.balance.output import replacing
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


def write_file(path: Path, fmt: str, columns: Sequence[Column], chunks: Iterable[list[Row]]) -> int:
    """Write the rows to PATH in FMT: PATH is replaced once every row is written, and keeps what
    it held if the sweep fails or is stopped.  The number of rows written."""
    try:
        with replacing(path) as temporary:
            if fmt == "parquet":
                return write_parquet(temporary, columns, chunks)
            writer = write_csv if fmt == "csv" else write_jsonl
            with temporary.open("w", encoding="utf-8", newline="") as stream:
                return writer(stream, columns, chunks)
    except OSError as error:
        raise BalanceError(f"cannot write to `{path}`: {error.strerror or error}") from None


def partitioned(path: Path, fmt: str) -> bool:
    """Parquet to a name without a suffix (or to a folder) is a folder of parts: a dataset that
    Spark, DuckDB, pandas and pyarrow read as one table."""
    return fmt == "parquet" and (path.is_dir() or not path.suffix)


def write_dataset(path: Path, columns: Sequence[Column], chunks: Iterable[list[Row]]) -> int:
    """A folder of Parquet files, `part-00000.parquet` ..., each of at most ROW_GROUP rows, in
    situation order, all of one schema.  Written beside PATH and renamed over it once whole: a
    folder there from an earlier sweep stays as it was if this one fails or is stopped."""
    target = path.resolve()
    if target.exists() and not target.is_dir():
        raise BalanceError(f"`{path}` is a file: a partitioned sweep is written as a folder (or name a .parquet file)")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{target.name}.") as work:
            building = Path(work) / "parts"
            building.mkdir()
            count = _parquet(columns, chunks, lambda number: building / f"part-{number:05d}.parquet")
            old = Path(work) / "old"
            if target.exists():
                target.rename(old)
            building.rename(target)
    except OSError as error:
        raise BalanceError(f"cannot write to `{path}`: {error.strerror or error}") from None
    return count


def write_parquet(path: Path, columns: Sequence[Column], chunks: Iterable[list[Row]]) -> int:
    """One Parquet file (see _parquet)."""
    return _parquet(columns, chunks, lambda number: path, one_file=True)


def _parquet(
    columns: Sequence[Column], chunks: Iterable[list[Row]], part: Callable[[int], Path], one_file: bool = False
) -> int:
    """A Parquet file: each column typed by what it holds (whole numbers, floats, flags, text;
    exact chances as fraction text, restrictions as a list of texts).

    A column's type depends on every row (one fraction among whole numbers makes it text), so
    the rows are spooled to an unnamed temporary file beside the output (the system's temporary
    folder for a device) as they come, the types noted, then read back a row group at a time:
    into one file (ONE_FILE), or each row group into a part of its own, `part(number)`."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise BalanceError("Parquet needs pyarrow: pip install 'rulecraft[balance]'") from None
    held: list[set[type]] = [set() for _ in columns]
    count = 0
    first = part(0)
    beside = first.is_file() or not one_file  # a device (`-o /dev/null`) spools to the system's folder
    with tempfile.TemporaryFile(dir=first.parent if beside else None) as spool:
        for chunk in chunks:
            for seen, values in zip(held, zip(*chunk, strict=True), strict=True):
                seen.update(map(type, values))
            pickle.dump(chunk, spool, protocol=pickle.HIGHEST_PROTOCOL)
            count += len(chunk)
        types = [_arrow_type(pyarrow, column, seen - {type(None)}) for column, seen in zip(columns, held, strict=True)]
        schema = pyarrow.schema([(column.name, kind) for column, kind in zip(columns, types, strict=True)])
        spool.seek(0)

        def table(rows: list[Row]) -> Any:
            arrays = [
                _array(pyarrow, column, kind, [row[index] for row in rows])
                for index, (column, kind) in enumerate(zip(columns, types, strict=True))
            ]
            return pyarrow.Table.from_arrays(arrays, schema=schema)

        if one_file:
            with pyarrow.parquet.ParquetWriter(str(first), schema) as parquet:
                for rows in _row_groups(spool, count):
                    parquet.write_table(table(rows))
            return count
        groups = itertools.chain(_row_groups(spool, count), [[]] if not count else [])  # none: one empty part
        for number, rows in enumerate(groups):
            pyarrow.parquet.write_table(table(rows), str(part(number)))
    return count


def _row_groups(spool: IO[bytes], count: int) -> Iterator[list[Row]]:
    """The spooled rows again, ROW_GROUP at a time (the chunks whole)."""
    rows: list[Row] = []
    read = 0
    while read < count:
        chunk = pickle.load(spool)
        rows.extend(chunk)
        read += len(chunk)
        if len(rows) >= ROW_GROUP:
            yield rows
            rows = []
    if rows:
        yield rows


def _arrow_type(pyarrow: Any, column: Column, held: set[type]) -> Any:
    """The type of a column from the types of the values it holds (None aside)."""
    if column.kind == "restrictions":
        return pyarrow.list_(pyarrow.string())
    if column.kind == "float" or (held and held <= {float}):
        return pyarrow.float64()
    if held and held <= {bool}:
        return pyarrow.bool_()
    if held <= {int}:
        return pyarrow.int64()
    return pyarrow.string()


def _array(pyarrow: Any, column: Column, kind: Any, values: list[Any]) -> Any:
    if column.kind == "restrictions":
        return pyarrow.array([list(v) if v is not None else None for v in values], type=kind)
    if kind == pyarrow.string():
        return pyarrow.array([None if v is None else text_value(column, v) for v in values], type=kind)
    return pyarrow.array(values, type=kind)
