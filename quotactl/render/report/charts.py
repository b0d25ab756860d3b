"""A ``Chart`` drawn as static SVG by pygal: no script, no font or file fetched, no network.

pygal is a small pure-Python charting library (docs/reports.md says why this one). Its output
is trimmed: coordinates to a tenth of a pixel (it writes six decimals and more), its generator
comment and the configuration script its tooltips would read dropped (the page allows no
script), and its random chart id replaced by one given here, so one report is the same bytes
every time it is built. Every chart has the same style, so its CSS (some 5 KB, scoped to the
chart's id) is handed back apart, scoped to every chart, for the page to hold once.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cache
from html import unescape
from typing import TYPE_CHECKING, Any

from quotactl.render.report.model import Kind

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.render.report.model import Chart

PALETTE = (
    "#e07b39",  # orange: borrowed, and the first series
    "#7aa6dc",  # light blue: own
    "#1d3d6e",  # dark blue: lowest in use
    "#c9453d",  # red: the limit
    "#6a3d9a",  # purple: the other run
    "#5a9e4b",
    "#2aa198",
    "#b8860b",
    "#6d6d6d",
)
"""Series colours by position: a chart orders its series so that each role has its colour."""
WIDTH, HEIGHT = 760, 280
_MARGIN = 12
_LEGEND_FONT = 12
_LEGEND_ROW = 1.5 * _LEGEND_FONT  # pygal's step from one legend row to the next
_LEGEND_WIDTH = 640  # the plot's width, under which the legend's columns share the room
_LEGEND_MOST_COLUMNS = 5
_DECIMALS = re.compile(r"(?<=\d\.\d)\d{3,}")
_DROPPED = re.compile(r"<!--.*?-->|<script\b.*?</script>", re.S)
_STYLE = re.compile(r"<style[^>]*>(.*?)</style>", re.S)


@dataclass(frozen=True)
class Drawn:
    svg: str  # the <svg> element, without its style
    css: str  # its style, for every chart of the page (``svg.pygal-chart``)


def draw(chart: Chart, chart_id: str) -> Drawn:
    """The chart as an ``<svg id=chart_id>`` element, and the CSS of every chart."""
    import pygal

    _drop_import_fixer(pygal)
    columns, rows = legend_grid([s.name for s in chart.series])
    options: dict[str, Any] = {
        "style": _style(),
        "width": WIDTH,
        "height": HEIGHT + (rows - 1) * _LEGEND_ROW,  # the plot keeps its height
        "js": [],  # pygal's tooltips would load a script from the network
        "disable_xml_declaration": True,
        "legend_at_bottom": True,
        "legend_at_bottom_columns": columns,
        "truncate_legend": -1,
        "truncate_label": -1,
        "y_title": chart.y_title,
        "show_dots": False,
        "include_x_axis": True,
        "print_values": False,
        "margin": _MARGIN,
        # pygal makes room for ``len // columns`` legend rows: one more when the last is short
        "margin_bottom": _MARGIN + (rows - len(chart.series) // columns) * _LEGEND_ROW,
        "strict": True,  # the values are plain numbers: no adapting them one by one
    }
    if chart.kind is Kind.BARS:
        drawing = pygal.Bar(**options)
        drawing.x_labels = list(chart.x_labels)
    else:
        every_x = {x for s in chart.series for x in (s.x or chart.x)}
        if len(every_x) == 1:  # one x for every point: give the axis a width to sit in
            (only,) = every_x
            options["xrange"] = (only, only + 1)
        drawing = pygal.XY(x_title=chart.x_title, stroke_style={"width": 1.5}, **options)
    for series in chart.series:
        extra: dict[str, Any] = {"fill": series.fill}
        if series.dashed:
            extra["stroke_style"] = {"width": 1.5, "dasharray": "5,4"}
        if series.dots:
            extra.update(show_dots=True, dots_size=3)
        if not series.line:
            extra["stroke"] = False
        values: list[Any] = list(series.values)
        if chart.kind is Kind.LINES:  # a point without a value is left out
            xs = series.x or chart.x
            values = [(x, v) for x, v in zip(xs, values, strict=True) if v is not None]
        drawing.add(series.name, values, **extra)
    text = drawing.render(is_unicode=True)
    text = _DECIMALS.sub("", _DROPPED.sub("", text)).replace(f"chart-{drawing.uuid}", chart_id)
    found = _STYLE.search(text)
    # the SVG's CSS is XML text (``&gt;``); the page's <style> is raw text
    css = unescape(found.group(1)).replace(f"#{chart_id}", "svg.pygal-chart") if found else ""
    return Drawn(_STYLE.sub("", text, count=1), css)


def legend_grid(names: Sequence[str]) -> tuple[int, int]:
    """Columns and rows of a legend under the chart in which the longest name fits whole
    (pygal writes a legend's text at about 0.6 font sizes a character, after a 12 px box)."""
    if not names:
        return 1, 1
    longest = 0.6 * _LEGEND_FONT * max(len(n) for n in names) + _LEGEND_FONT + 15
    columns = max(1, min(_LEGEND_MOST_COLUMNS, len(names), int(_LEGEND_WIDTH // longest)))
    return columns, math.ceil(len(names) / columns)


@cache
def _style() -> Any:
    """One pygal style for every chart (building it is a good part of a small chart's cost)."""
    from pygal.style import Style

    return Style(
        background="white",
        plot_background="white",
        foreground="#333",
        foreground_strong="#111",
        foreground_subtle="#ccc",
        font_family="system-ui, sans-serif",
        label_font_size=11,
        major_label_font_size=11,
        legend_font_size=_LEGEND_FONT,
        title_font_size=14,
        opacity="1",
        opacity_hover="1",
        colors=PALETTE,
    )


def _drop_import_fixer(pygal: Any) -> None:
    """Take pygal's ``sys.meta_path`` finder out again: it only serves its map plugins, and it
    has no ``find_spec``, so on Python 3.11 every later import warns (``ImportWarning``) and
    from 3.12 on Python ignores it anyway."""
    import sys

    fixer = getattr(pygal, "PluginImportFixer", None)
    if fixer is not None:
        sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, fixer)]
