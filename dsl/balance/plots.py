"""The three drawings of a chart (lines, bars, heatmap) on a matplotlib Figure.

Every drawn value is its own artist with an id `rc-pt-N`, N indexing `ChartData.hover`: the web
page attaches each point's exact values to it.  Chances are drawn on a fixed 0-100% scale, so
two charts of the same roll compare at a glance.
"""

from __future__ import annotations

import io
import math
import textwrap
from typing import Any

from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter, MaxNLocator, PercentFormatter

from dsl.balance.chart import MISSING_COLOUR, PALETTE, Cell, ChartData, hover_text

NAN = math.nan
MINUS = "\u2212"
DASH = "\u2013"  # an empty heatmap cell
GRID = "#e6e6e6"
MUTED = "#555555"
ANNOTATE_BARS = 20
"""Bars labelled with their value: more would overlap."""
ANNOTATE_CELLS = 400
"""Heatmap cells labelled with their value."""


def lines(figure: Figure, data: ChartData) -> None:
    two = len(data.editions) == 2
    if two:
        main, below = figure.subplots(2, 1, sharex=True, height_ratios=(3.0, 1.3))
    else:
        main, below = figure.subplots(), None
    xs = [float(value) for value in data.x.values]
    widths = _widths(data)
    for number, key in enumerate(data.series):
        colour = PALETTE[number % len(PALETTE)]
        cells = [data.cell((*key, value)) for value in data.x.values]
        width = widths[number]
        for edition in range(len(data.editions)):
            ys = [_value(cell, edition) for cell in cells]
            style = "-" if edition == 0 else "--"
            label = _entry(data, key) if edition == 0 else None
            main.plot(xs, ys, color=colour, linestyle=style, linewidth=width if edition == 0 else 1.6, label=label)
            for x, y, value, cell in zip(xs, ys, data.x.values, cells, strict=True):
                if not math.isnan(y):
                    (point,) = main.plot(
                        [x],
                        [y],
                        marker="o" if edition == 0 else "s",
                        markersize=width + 2.5 if edition == 0 else 4.5,
                        linestyle="none",
                        color=colour,
                        markerfacecolor=colour if edition == 0 else "white",
                        markeredgecolor=colour,
                    )
                    _mark(point, data, (*key, value), cell)
        if below is not None:
            ds = [NAN if cell is None or cell.difference is None else cell.difference for cell in cells]
            below.plot(xs, ds, color=colour, linewidth=1.6)
            for x, y, value, cell in zip(xs, ds, data.x.values, cells, strict=True):
                if not math.isnan(y):
                    (point,) = below.plot([x], [y], marker="o", markersize=4, linestyle="none", color=colour)
                    _mark(point, data, (*key, value), cell)
    _frame(main, data)
    _x_ticks(below if below is not None else main, data)
    if below is not None:
        _difference_frame(below, data)
        below.set_xlabel(data.x.label)
    else:
        main.set_xlabel(data.x.label)
    _legend(main, data)


def bars(figure: Figure, data: ChartData) -> None:
    two = len(data.editions) == 2
    if two:
        main, below = figure.subplots(2, 1, sharex=True, height_ratios=(3.0, 1.3))
    else:
        main, below = figure.subplots(), None
    editions = len(data.editions)
    slots = len(data.series) * editions
    width = 0.8 / slots
    labelled = len(data.x.values) * slots <= ANNOTATE_BARS
    for number, key in enumerate(data.series):
        colour = PALETTE[number % len(PALETTE)]
        for edition in range(editions):
            offset = (number * editions + edition - (slots - 1) / 2) * width
            for at, value in enumerate(data.x.values):
                cell = data.cell((*key, value))
                y = _value(cell, edition)
                x = at + offset
                if math.isnan(y):
                    main.text(
                        x, 0.01, data.measure.missing, rotation=90, ha="center", va="bottom", fontsize=8, color=MUTED
                    )
                    continue
                (bar,) = main.bar(
                    [x],
                    [y],
                    width * 0.92,
                    color=colour if edition == 0 else "white",
                    edgecolor=colour,
                    hatch="///" if edition else None,
                    linewidth=1.2,
                )
                _mark(bar, data, (*key, value), cell)
                if labelled:
                    main.text(x, y, _short(data, y), ha="center", va="bottom", fontsize=8, color="#222222")
        if below is not None:
            below_width = 0.8 / len(data.series)
            offset = (number - (len(data.series) - 1) / 2) * below_width
            for at, value in enumerate(data.x.values):
                cell = data.cell((*key, value))
                if cell is None or cell.difference is None:
                    continue
                (bar,) = below.bar([at + offset], [cell.difference], below_width * 0.92, color=colour)
                _mark(bar, data, (*key, value), cell)
    _frame(main, data)
    axis = below if below is not None else main
    labels = list(data.x.shown)
    long = max((len(label) for label in labels), default=0) * len(labels) > 90
    axis.set_xticks(range(len(labels)), labels, rotation=30 if long else 0, ha="right" if long else "center")
    axis.set_xlim(-0.6, len(labels) - 0.4)
    if below is not None:
        _difference_frame(below, data)
    axis.set_xlabel(data.x.label)
    if len(data.series) > 1 or two:
        _legend(main, data, bars=True)


def heatmap(figure: Figure, data: ChartData) -> None:
    import matplotlib

    assert data.y is not None
    two = len(data.editions) == 2
    panels = figure.subplots(1, 3 if two else 1, squeeze=False, sharey=True)[0]
    values = [v for cell in data.cells.values() for v in cell.values if v is not None]
    low, high = (0.0, 1.0) if data.measure.chance else (min(values, default=0.0), max(values, default=1.0))
    norm = Normalize(low, high)
    colours = matplotlib.colormaps["viridis"]
    for edition in range(len(data.editions)):
        _cells(panels[edition], data, lambda cell, e=edition: _value(cell, e), colours, norm)
        if two:
            panels[edition].set_title(data.editions[edition], fontsize=10)
    mappable = matplotlib.cm.ScalarMappable(norm=norm, cmap=colours)
    bar = figure.colorbar(mappable, ax=list(panels[: len(data.editions)]), shrink=0.9, pad=0.02)
    bar.set_label(_y_label(data))
    if data.measure.chance:
        bar.ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    if two:
        spread = max((abs(c.difference) for c in data.cells.values() if c.difference is not None), default=0.0)
        spread = spread or 1e-9
        diverging = matplotlib.colormaps["RdBu"]
        differences = Normalize(-spread, spread)
        _cells(
            panels[2],
            data,
            lambda cell: NAN if cell is None or cell.difference is None else cell.difference,
            diverging,
            differences,
            difference=True,
        )
        panels[2].set_title(f"{data.editions[0]} {MINUS} {data.editions[1]}", fontsize=10)
        scale = figure.colorbar(
            matplotlib.cm.ScalarMappable(norm=differences, cmap=diverging), ax=panels[2], shrink=0.9, pad=0.02
        )
        scale.set_label("difference (points)" if data.measure.chance else "difference")
        if data.measure.chance:
            scale.ax.yaxis.set_major_formatter(FuncFormatter(_points))
    for panel in panels:
        _heat_ticks(panel, data)
    panels[0].set_ylabel(data.y.label)
    missing = any(v is None for cell in data.cells.values() for v in cell.values) or len(data.cells) < len(
        data.x.values
    ) * len(data.y.values)
    note = f" · grey: {data.measure.missing}" if missing else ""
    panels[0].set_title(_wrap(data.subtitle + note, 110), loc="left", fontsize=9, color=MUTED)


def _cells(axes: Any, data: ChartData, value_of: Any, colours: Any, norm: Normalize, difference: bool = False) -> None:
    assert data.y is not None
    annotate = len(data.x.values) * len(data.y.values) <= ANNOTATE_CELLS
    for row, y_value in enumerate(data.y.values):
        for column, x_value in enumerate(data.x.values):
            key = (x_value, y_value)
            cell = data.cell(key)
            value = value_of(cell)
            missing = math.isnan(value)
            face = MISSING_COLOUR if missing else colours(norm(value))
            patch = Rectangle((column - 0.5, row - 0.5), 1.0, 1.0, facecolor=face, edgecolor="white", linewidth=0.6)
            axes.add_patch(patch)
            _mark(patch, data, key, cell)
            if annotate:
                text = DASH if missing else (_signed(data, value) if difference else _short(data, value))
                dark = not missing and _luminance(face) < 0.5
                axes.text(column, row, text, ha="center", va="center", fontsize=7, color="white" if dark else "#222222")
    axes.set_xlim(-0.5, len(data.x.values) - 0.5)
    if data.y.numeric:
        axes.set_ylim(-0.5, len(data.y.values) - 0.5)
    else:
        axes.set_ylim(len(data.y.values) - 0.5, -0.5)


def _heat_ticks(axes: Any, data: ChartData) -> None:
    assert data.y is not None
    axes.set_xticks(*_thinned(data.x.shown))
    axes.set_yticks(*_thinned(data.y.shown))
    axes.set_xlabel(data.x.label)
    axes.tick_params(length=0)
    for side in ("top", "right", "bottom", "left"):
        axes.spines[side].set_visible(False)


def _thinned(labels: tuple[str, ...]) -> tuple[list[int], list[str]]:
    step = max(1, math.ceil(len(labels) / 25))
    at = list(range(0, len(labels), step))
    return at, [labels[i] for i in at]


def _widths(data: ChartData) -> list[float]:
    """Line widths: 2 points, unless two lines share a stretch (several terrains with the same
    chances): then each line is drawn thinner than the one before, so all of them show, nested."""
    seen: set[tuple[Any, Any, float, float]] = set()
    overlap = False
    for key in data.series:
        ys = [_value(data.cell((*key, value)), 0) for value in data.x.values]
        for at in range(len(ys) - 1):
            if math.isnan(ys[at]) or math.isnan(ys[at + 1]):
                continue
            segment = (data.x.values[at], data.x.values[at + 1], ys[at], ys[at + 1])
            overlap = overlap or segment in seen
            seen.add(segment)
    count = len(data.series)
    if not overlap or count == 1:
        return [2.0] * count
    widest = min(1.0 + count, 6.0)
    return [widest - (widest - 2.0) * number / (count - 1) for number in range(count)]


def _entry(data: ChartData, key: tuple[Any, ...]) -> str:
    """A legend entry: one line per varied input (each wrapped)."""
    return "\n".join(_wrap(part) for part in data.series_parts(key)) if key else data.measure.label


def _wrap(text: str, width: int = 48) -> str:
    return "\n".join(textwrap.wrap(text, width)) or text


def _frame(axes: Any, data: ChartData) -> None:
    axes.set_title(_wrap(data.subtitle, 110), loc="left", fontsize=9, color=MUTED)
    axes.set_ylabel(_y_label(data))
    if data.measure.chance:
        axes.set_ylim(-0.03, 1.07)
        axes.yaxis.set_major_formatter(PercentFormatter(1.0))
    axes.grid(True, color=GRID, linewidth=0.8)
    axes.set_axisbelow(True)
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)


def _difference_frame(axes: Any, data: ChartData) -> None:
    axes.axhline(0.0, color="#333333", linewidth=0.8)
    unit = " (percentage points)" if data.measure.chance else ""
    axes.set_title(
        f"Difference: {data.editions[0]} {MINUS} {data.editions[1]}{unit}", loc="left", fontsize=9, color=MUTED
    )
    axes.set_ylabel("points" if data.measure.chance else "difference")
    if data.measure.chance:
        axes.yaxis.set_major_formatter(FuncFormatter(_points))
    axes.grid(True, color=GRID, linewidth=0.8)
    axes.set_axisbelow(True)
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)


def _points(value: float, _: object = None) -> str:
    """A difference of chances in percentage points: +5, -12, and 0 unsigned."""
    points = round(100 * value, 6)
    return "0" if points == 0 else f"{points:+g}"


def _x_ticks(axes: Any, data: ChartData) -> None:
    if len(data.x.values) <= 25:
        axes.set_xticks([float(v) for v in data.x.values], list(data.x.shown))
    elif data.x.kind in ("int", "percent"):
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))


def _legend(axes: Any, data: ChartData, bars: bool = False) -> None:
    handles, labels = axes.get_legend_handles_labels()
    if bars:
        shown = [key for key in data.series if key]
        handles = [Rectangle((0, 0), 1, 1, color=PALETTE[i % len(PALETTE)]) for i in range(len(shown))]
        labels = [_entry(data, key) for key in shown]
    if len(data.editions) == 2:
        if bars:
            handles += [
                Rectangle((0, 0), 1, 1, facecolor="#888888"),
                Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="#888888", hatch="///"),
            ]
        else:
            handles += [Line2D([], [], color="#333333", linestyle="-"), Line2D([], [], color="#333333", linestyle="--")]
        labels += list(data.editions)
    if len(handles) <= 1:
        return
    title = _wrap(data.legend_title) or None
    if len(data.series_axes) > 1:  # long entries: beneath the chart, two to a row
        axes.legend(
            handles,
            labels,
            title=title,
            loc="upper left",
            bbox_to_anchor=(0.0, -0.16),
            ncols=2,
            frameon=False,
            fontsize=9,
            title_fontsize=9,
            alignment="left",
        )
        return
    axes.legend(
        handles,
        labels,
        title=title,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        frameon=False,
        fontsize=9,
        title_fontsize=9,
        alignment="left",
    )


def _y_label(data: ChartData) -> str:
    return f"{data.measure.label} (chance)" if data.measure.chance else data.measure.label


def _value(cell: Cell | None, edition: int) -> float:
    if cell is None:
        return NAN
    value = cell.values[edition]
    return NAN if value is None else value


def _short(data: ChartData, value: float) -> str:
    if data.measure.chance:
        return f"{100 * value:.1f}%" if 0 < value < 1 else f"{100 * value:.0f}%"
    return f"{value:g}"


def _signed(data: ChartData, value: float) -> str:
    return f"{100 * value:+.1f}" if data.measure.chance else f"{value:+g}"


def _luminance(colour: Any) -> float:
    red, green, blue = colour[0], colour[1], colour[2]
    return float(0.299 * red + 0.587 * green + 0.114 * blue)


def _mark(artist: Any, data: ChartData, key: tuple[Any, ...], cell: Cell | None) -> None:
    artist.set_gid(f"rc-pt-{len(data.hover)}")
    data.hover.append(hover_text(data, key, cell))


def draw(data: ChartData) -> Any:
    """The matplotlib Figure of a chart (Agg canvas; no window, no global state)."""


    two = len(data.editions) == 2
    data.hover.clear()
    if data.kind == "heatmap":
        assert data.y is not None
        width = min(16.0, max(8.0, 2.5 + 0.55 * len(data.x.values) * (3 if two else 1)))
        height = min(12.0, max(4.5, 2.2 + 0.42 * len(data.y.values)))
        figure = Figure(figsize=(width, height), dpi=100, layout="constrained")
        heatmap(figure, data)
    else:
        figure = Figure(figsize=(9.0, 7.4 if two else 5.4), dpi=100, layout="constrained")
        if data.kind == "line":
            lines(figure, data)
        else:
            bars(figure, data)
    figure.suptitle(data.title, x=0.01, ha="left", fontsize=13, fontweight="bold")
    return figure


def render(data: ChartData, fmt: str) -> bytes:
    """PNG or SVG bytes, the same for the same chart: fixed metadata, fixed SVG ids."""
    import matplotlib

    with matplotlib.rc_context({"svg.hashsalt": "rulecraft", "svg.fonttype": "path", "font.family": "DejaVu Sans"}):
        figure = draw(data)
        buffer = io.BytesIO()
        if fmt == "png":
            figure.savefig(buffer, format="png", dpi=100, metadata={"Software": "rulecraft"})
        else:
            figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": "rulecraft"})
    return buffer.getvalue()


def inline_svg(data: ChartData) -> str:
    """The chart as SVG text for a web page: text kept as text, each point a hoverable group."""
    import matplotlib

    with matplotlib.rc_context({"svg.hashsalt": "rulecraft", "svg.fonttype": "none", "font.family": "DejaVu Sans"}):
        figure = draw(data)
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": "rulecraft"})
    return buffer.getvalue()
