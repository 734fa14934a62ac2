"""A chart as one self-contained HTML page: the SVG inline, each point's exact values on hover
(an SVG <title>, which browsers show without any script, and a small inline script that shows
the same text beside the pointer), and every value in a table beneath.  Nothing is loaded from
anywhere: the page works from a file, offline, forever.
"""

from __future__ import annotations

import html
import re

from dsl.balance.chart import ChartData, difference_text, exact_text
from dsl.balance.plots import inline_svg

_POINT = re.compile(r'<g id="rc-pt-(\d+)">')
_PROLOGUE = re.compile(r"\A.*?(?=<svg)", re.DOTALL)
_METADATA = re.compile(r"\s*<metadata>.*?</metadata>", re.DOTALL)

STYLE = """
body { font-family: "DejaVu Sans", Verdana, sans-serif; margin: 1.5rem; color: #222; background: #fff; }
main { max-width: 1100px; }
figure.chart { margin: 0; }
figure.chart svg { max-width: 100%; height: auto; }
g[id^="rc-pt-"] { cursor: crosshair; }
g[id^="rc-pt-"]:hover { opacity: 0.7; }
#tip { position: fixed; pointer-events: none; background: #222; color: #fff; padding: 0.4rem 0.6rem;
       border-radius: 4px; font-size: 0.8rem; white-space: pre-line; display: none; max-width: 28rem; }
#readout { font-size: 0.9rem; white-space: pre-line; min-height: 3.5em; color: #333; }
table { border-collapse: collapse; font-size: 0.8rem; margin-top: 0.5rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.2rem 0.6rem; text-align: left; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
summary { cursor: pointer; margin-top: 1rem; }
"""

SCRIPT = """
(function () {
  var tip = document.getElementById("tip"), readout = document.getElementById("readout");
  document.querySelectorAll('g[id^="rc-pt-"]').forEach(function (point) {
    var title = point.querySelector("title");
    if (!title) { return; }
    point.addEventListener("mousemove", function (event) {
      tip.textContent = title.textContent;
      tip.style.display = "block";
      tip.style.left = (event.clientX + 14) + "px";
      tip.style.top = (event.clientY + 14) + "px";
      readout.textContent = title.textContent;
    });
    point.addEventListener("mouseleave", function () { tip.style.display = "none"; });
  });
})();
"""


def page(data: ChartData) -> str:
    svg = _METADATA.sub("", _PROLOGUE.sub("", inline_svg(data), count=1), count=1)
    svg = _POINT.sub(lambda match: _titled(data, int(match.group(1))), svg)
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{html.escape(data.title)}</title>",
            f"<style>{STYLE}</style>",
            "</head>",
            "<body>",
            "<main>",
            f'<figure class="chart">{svg}</figure>',
            '<div id="readout" role="status" aria-live="polite">Hover a point for its exact value.</div>',
            '<div id="tip"></div>',
            "<details open>",
            "<summary>Exact values</summary>",
            _table(data),
            "</details>",
            "</main>",
            f"<script>{SCRIPT}</script>",
            "</body>",
            "</html>",
            "",
        ]
    )


def _titled(data: ChartData, number: int) -> str:
    return f'<g id="rc-pt-{number}"><title>{html.escape(data.hover[number])}</title>'


def _table(data: ChartData) -> str:
    heads = [axis.label for axis in data.series_axes] + [data.x.label]
    if data.y is not None:
        heads.append(data.y.label)
    two = len(data.editions) == 2
    heads += [f"{data.measure.label}, {name}" for name in data.editions] if two else [data.measure.label]
    if two:
        heads.append("difference")
    lines = [
        "<table>",
        "<thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in heads) + "</tr></thead>",
        "<tbody>",
    ]
    axes = [*data.series_axes, data.x] + ([data.y] if data.y is not None else [])
    rank = [{value: at for at, value in enumerate(axis.values)} for axis in axes]
    ordered = sorted(data.cells.items(), key=lambda item: [r[v] for r, v in zip(rank, item[0], strict=True)])
    for key, cell in ordered:
        texts = [axis.text(value) for axis, value in zip(axes, key, strict=True)]
        cells = [f"<td>{html.escape(text)}</td>" for text in texts]
        cells += [f'<td class="number">{html.escape(exact_text(data.measure, v))}</td>' for v in cell.exact]
        if two:
            cells.append(f'<td class="number">{html.escape(difference_text(data.measure, cell.difference_exact))}</td>')
        lines.append("<tr>" + "".join(cells) + "</tr>")
    lines += ["</tbody>", "</table>"]
    return "\n".join(lines)
