"""A sweep drawn: the chance of a roll (or a stat) against one varied input, one line per member
of the others; bars when that input is a choice (the rules, a terrain type); a heatmap of two
inputs.  With a second edition, both are drawn with the difference beneath.

The data is gathered here (ChartData, plain and testable); `draw` turns it into a matplotlib
figure, written as PNG or SVG with fixed metadata (no dates: the same sweep gives the same
bytes), and `page` into a self-contained HTML page.  Every label is the book's: input labels,
rule titles, roll labels.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dsl.balance.books import BalanceError
from dsl.balance.spec import Axis, shown_value
from dsl.balance.sweeps import Sweep
from dsl.balance.writers import fraction_text
from dsl.runtime.base import show

MAX_SERIES = 12
"""Lines (or bar colours) one chart draws: past a dozen, colours repeat and no one can tell
them apart; `--set` some of the varied inputs, or draw a heatmap."""

MAX_POINTS = 5_000
"""Values one chart shows (every point can be hovered in HTML): beyond it, narrow a --vary."""

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#7f7f7f",
    "#bcbd22",
    "#393b79",
    "#637939",
)
MISSING_COLOUR = "#e4e4e4"


@dataclass(frozen=True)
class Measure:
    """What a chart draws: a column of the sweep, where its exact value is, how it reads."""

    column: str  # the drawn column (a float chance, or a stat)
    exact: str  # the column holding its exact value
    label: str  # "Avoid falling", "Movement allowance"
    chance: bool
    roll: str | None  # the roll's key, when a roll's chance is drawn
    missing: str  # what an empty cell means


@dataclass(frozen=True)
class Cell:
    """One situation on the chart: each edition's value (float and exact) and the difference."""

    values: tuple[float | None, ...]
    exact: tuple[Any, ...]
    difference: float | None = None
    difference_exact: Any = None


@dataclass
class ChartData:
    kind: str  # line | bar | heatmap
    measure: Measure
    x: Axis
    y: Axis | None
    series_axes: tuple[Axis, ...]
    series: list[tuple[Any, ...]]
    cells: dict[tuple[Any, ...], Cell]  # (*series key, x value[, y value])
    title: str
    subtitle: str
    editions: tuple[str, ...]
    hover: list[str] = field(default_factory=list)

    def series_label(self, key: tuple[Any, ...]) -> str:
        """One varied input: its value (the legend's title names it); several: `label: value` each."""
        if not key:
            return self.measure.label
        return "; ".join(self.series_parts(key))

    def series_parts(self, key: tuple[Any, ...]) -> list[str]:
        if len(key) == 1:
            return [self.series_axes[0].text(key[0])]
        return [f"{axis.label}: {axis.text(value)}" for axis, value in zip(self.series_axes, key, strict=True)]

    @property
    def legend_title(self) -> str:
        return self.series_axes[0].label if len(self.series_axes) == 1 else ""

    def cell(self, key: tuple[Any, ...]) -> Cell | None:
        return self.cells.get(key)


def measure_for(sweep: Sweep, roll: str | None = None, outcome: str | None = None, stat: str | None = None) -> Measure:
    """The column to draw: `roll` (its chance, or an outcome tier's), or a numeric `stat`;
    by default the one roll the rules can call for."""
    layout = sweep.plan.layout
    names = {column.name: column for column in sweep.columns}
    if stat is not None:
        if roll is not None or outcome is not None:
            raise BalanceError("chart either a roll (--roll, --outcome) or a stat (--stat), not both")
        found = next((s for s in layout.stats if s[0] == stat), None)
        if found is None:
            known = ", ".join(s[0] for s in layout.stats if s[2]) or "none"
            raise BalanceError(f"--stat {stat}: the rules swept do not change or derive `{stat}` (numbers: {known})")
        if not found[2]:
            raise BalanceError(f"--stat {stat}: `{stat}` is not a number; chart a number or a roll's chance")
        column = f"stat.{stat}"
        return Measure(column, column, f"{found[1]}, after the rules", False, None, "not in this situation")
    keys = [r.key for r in layout.rolls]
    if roll is None:
        if len(keys) != 1:
            listed = ", ".join(keys) or "none"
            raise BalanceError(f"say which roll to chart with --roll NAME (the rules swept call for: {listed})")
        roll = keys[0]
    found_roll = next((r for r in layout.rolls if r.key == roll), None)
    if found_roll is None:
        matches = [key for key in keys if key.split("@")[0] == roll]
        hint = f"; several rules call for a roll so named: say which with --roll {matches[0]}" if matches else ""
        listed = ", ".join(keys) or "none"
        raise BalanceError(f"--roll {roll}: no roll `{roll}` in the rules swept (rolls: {listed}){hint}")
    if outcome is None:
        column = f"roll.{roll}"
        return Measure(f"{column}.p", column, found_roll.label, True, roll, "no roll")
    if outcome not in found_roll.outcomes:
        listed = ", ".join(found_roll.outcomes) or "none besides success"
        raise BalanceError(f"--outcome {outcome}: the roll `{roll}` has no such outcome (outcomes: {listed})")
    column = f"roll.{roll}[{outcome}]"
    assert column in names
    return Measure(f"{column}.p", column, f"{found_roll.label}: {outcome}", True, roll, "no roll")


def rules_calling(sweep: Sweep, roll: str) -> list[str]:
    """The varied rules that can call for ROLL: a chart over the rules leaves the others out."""
    layout = sweep.plan.layout
    axis = next((a for a in sweep.axes if a.kind == "rule"), None)
    if axis is None:
        return []
    kept = []
    for name in axis.values:
        combo = tuple(dict.fromkeys([*sweep.plan.rules, name]))
        if roll in layout.roll_keys.get(combo, {}).values():
            kept.append(str(name))
    return kept


def gather(
    sweep: Sweep,
    measure: Measure,
    x: str | None = None,
    y: str | None = None,
    jobs: int | None = None,
    progress: Callable[[int], None] | None = None,
    title: str | None = None,
    scheduler: str | None = None,
) -> ChartData:
    """Run the sweep and keep what the chart shows."""
    axes = list(sweep.axes)
    if not axes:
        raise BalanceError("a chart needs at least one --vary")
    x_axis = _axis(axes, x, "--x") if x else next((a for a in axes if a.numeric), axes[0])
    y_axis = _axis(axes, y, "--y") if y else None
    if y_axis is x_axis:
        raise BalanceError(f"--x and --y both name `{x_axis.name}`; a heatmap needs two varied inputs")
    series_axes = tuple(a for a in axes if a is not x_axis and a is not y_axis)
    if y_axis is not None and series_axes:
        names = ", ".join(a.name for a in series_axes)
        raise BalanceError(f"a heatmap shows two varied inputs; --set the others ({names}) to one value")
    lines = math.prod(len(a.values) for a in series_axes)  # counted, not listed: the axes may be long
    if lines > MAX_SERIES:
        raise BalanceError(
            f"{lines:,} lines ({' x '.join(str(len(a.values)) for a in series_axes)}) are more than a chart can "
            f"tell apart ({MAX_SERIES}); --set some of the varied inputs, or draw a heatmap with --y"
        )
    if sweep.total * len(sweep.editions) > MAX_POINTS:
        raise BalanceError(f"{sweep.total:,} situations are more than a chart shows ({MAX_POINTS:,}); narrow a --vary")
    series = _product(series_axes)
    kind = "heatmap" if y_axis is not None else ("line" if x_axis.numeric else "bar")
    index = {column.name: i for i, column in enumerate(sweep.columns)}
    positions = {axis.name: i for i, axis in enumerate(axes)}
    two = len(sweep.editions) == 2
    cells: dict[tuple[Any, ...], Cell] = {}
    for chunk in sweep.chunks(jobs, progress, scheduler):
        for row in chunk:
            key = (*(row[positions[a.name]] for a in series_axes), row[positions[x_axis.name]])
            if y_axis is not None:
                key = (*key, row[positions[y_axis.name]])
            cells[key] = _cell(row, index, measure, two)
    data = ChartData(
        kind,
        measure,
        x_axis,
        y_axis,
        series_axes,
        series,
        cells,
        title or _title(sweep, measure),
        _subtitle(sweep),
        _edition_names(sweep),
    )
    return data


def exact_text(measure: Measure, value: Any) -> str:
    """An exact value as a designer reads it: 7/27 (25.93%) for a chance, 5 for a stat."""
    if value is None:
        return measure.missing
    if measure.chance:
        fraction = Fraction(value)
        return f"{fraction_text(fraction)} ({_percent(float(fraction))})"
    return show(value)


def difference_text(measure: Measure, value: Any) -> str:
    if value is None:
        return "no difference to show"
    if measure.chance:
        fraction = Fraction(value)
        if fraction == 0:
            return "0 (no change)"
        sign = "+" if fraction > 0 else ""
        return f"{sign}{fraction_text(fraction)} ({100 * float(fraction):+.2f} points)"
    return ("+" if value > 0 else "") + show(value)


def hover_text(data: ChartData, key: tuple[Any, ...], cell: Cell | None) -> str:
    """What hovering a point shows: where it is, and its exact value in each edition."""
    parts = [f"{axis.label}: {axis.text(value)}" for axis, value in zip(data.series_axes, key, strict=False)]
    offset = len(data.series_axes)
    parts.append(f"{data.x.label}: {data.x.text(key[offset])}")
    if data.y is not None:
        parts.append(f"{data.y.label}: {data.y.text(key[offset + 1])}")
    if cell is None:
        return "\n".join(parts)
    if len(data.editions) == 1:
        parts.append(f"{data.measure.label}: {exact_text(data.measure, cell.exact[0])}")
    else:
        for name, exact in zip(data.editions, cell.exact, strict=True):
            parts.append(f"{data.measure.label}, {name}: {exact_text(data.measure, exact)}")
        parts.append(f"difference: {difference_text(data.measure, cell.difference_exact)}")
    return "\n".join(parts)


def _percent(value: float) -> str:
    return f"{100 * value:.2f}%"


def _axis(axes: Sequence[Axis], name: str, option: str) -> Axis:
    for axis in axes:
        if axis.name == name:
            return axis
    varied = ", ".join(a.name for a in axes)
    raise BalanceError(f"{option} {name}: not a varied input (varied: {varied}); add --vary {name}=...")


def _product(axes: Sequence[Axis]) -> list[tuple[Any, ...]]:
    keys: list[tuple[Any, ...]] = [()]
    for axis in axes:
        keys = [(*key, value) for key in keys for value in axis.values]
    return keys


def _cell(row: tuple[Any, ...], index: dict[str, int], measure: Measure, two: bool) -> Cell:
    prefixes = ("", "against.") if two else ("",)
    values = tuple(_number(row[index[p + measure.column]]) for p in prefixes)
    exact = tuple(row[index[p + measure.exact]] for p in prefixes)
    if not two:
        return Cell(values, exact)
    difference_exact = row[index["diff." + measure.exact]] if "diff." + measure.exact in index else None
    difference = _number(difference_exact)
    return Cell(values, exact, difference, difference_exact)


def _number(value: Any) -> float | None:
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _title(sweep: Sweep, measure: Measure) -> str:
    first = sweep.editions[0]
    rules = [first.module.RULES[name].title for name in sweep.plan.rules]
    noun = "Chance: " if measure.chance else ""
    return f"{noun}{measure.label}" + (f" ({', '.join(rules)})" if rules else "")


def _subtitle(sweep: Sweep) -> str:
    first = sweep.editions[0]
    parts = []
    for name, value in sweep.plan.given:
        spec = first.module.INPUTS[name]
        parts.append(f"{spec.label or name}: {shown_value(value)}")
    book = first.model.title
    return f"{book}" + (f" · {'; '.join(parts)}" if parts else "")


def _edition_names(sweep: Sweep) -> tuple[str, ...]:
    editions = sweep.editions
    if len(editions) == 1:
        return (editions[0].stem,)
    names = [edition.stem for edition in editions]
    if names[0] == names[1]:
        names = [edition.path for edition in editions]
    versions = [edition.model.version for edition in editions]
    if versions[0] != versions[1]:
        names = [f"{name} {version or ''}".strip() for name, version in zip(names, versions, strict=True)]
    return tuple(names)
