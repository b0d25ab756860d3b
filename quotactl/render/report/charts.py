"""A ``Chart`` drawn as static SVG by pygal: no script, no font or file fetched, no network.

pygal is a small pure-Python charting library (docs/reports.md says why this one). Its output
is trimmed: coordinates to a tenth of a pixel (it writes six decimals and more), its generator
comment and the configuration script its tooltips would read dropped (the page allows no
script), and its random chart id replaced by one given here, so one report is the same bytes
every time it is built. Every chart has the same style, so its CSS (some 5 KB, scoped to the
chart's id) is handed back apart, scoped to every chart, for the page to hold once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import unescape
from typing import TYPE_CHECKING, Any

from quotactl.render.report.model import Kind

if TYPE_CHECKING:
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
_DECIMALS = re.compile(r"(\d\.\d)\d{3,}")
_DROPPED = re.compile(r"<!--.*?-->|<script\b.*?</script>", re.S)
_STYLE = re.compile(r"<style[^>]*>(.*?)</style>", re.S)


@dataclass(frozen=True)
class Drawn:
    svg: str  # the <svg> element, without its style
    css: str  # its style, for every chart of the page (``svg.pygal-chart``)


def draw(chart: Chart, chart_id: str) -> Drawn:
    """The chart as an ``<svg id=chart_id>`` element, and the CSS of every chart."""
    import pygal
    from pygal.style import Style

    _drop_import_fixer(pygal)

    style = Style(
        background="white",
        plot_background="white",
        foreground="#333",
        foreground_strong="#111",
        foreground_subtle="#ccc",
        font_family="system-ui, sans-serif",
        label_font_size=11,
        major_label_font_size=11,
        legend_font_size=12,
        title_font_size=14,
        opacity="1",
        opacity_hover="1",
        colors=PALETTE,
    )
    options: dict[str, Any] = {
        "style": style,
        "width": WIDTH,
        "height": HEIGHT,
        "js": [],  # pygal's tooltips would load a script from the network
        "disable_xml_declaration": True,
        "legend_at_bottom": True,
        "legend_at_bottom_columns": min(5, max(1, len(chart.series))),
        "truncate_legend": -1,
        "truncate_label": -1,
        "y_title": chart.y_title,
        "show_dots": False,
        "include_x_axis": True,
        "print_values": False,
        "margin": 12,
        "strict": True,  # the values are plain numbers: no adapting them one by one
    }
    if chart.kind is Kind.BARS:
        drawing = pygal.Bar(**options)
        drawing.x_labels = list(chart.x_labels)
    else:
        drawing = pygal.XY(x_title=chart.x_title, stroke_style={"width": 1.5}, **options)
    for series in chart.series:
        extra: dict[str, Any] = {"fill": series.fill}
        if series.dashed:
            extra["stroke_style"] = {"width": 1.5, "dasharray": "5,4"}
        values: list[Any] = list(series.values)
        if chart.kind is Kind.LINES:  # a point without a value is left out
            values = [(x, v) for x, v in zip(chart.x, values, strict=True) if v is not None]
        drawing.add(series.name, values, **extra)
    text = drawing.render(is_unicode=True)
    text = _DECIMALS.sub(r"\1", _DROPPED.sub("", text)).replace(f"chart-{drawing.uuid}", chart_id)
    found = _STYLE.search(text)
    # the SVG's CSS is XML text (``&gt;``); the page's <style> is raw text
    css = unescape(found.group(1)).replace(f"#{chart_id}", "svg.pygal-chart") if found else ""
    return Drawn(_STYLE.sub("", text, count=1), css)


def _drop_import_fixer(pygal: Any) -> None:
    """Take pygal's ``sys.meta_path`` finder out again: it only serves its map plugins, and it
    has no ``find_spec``, so on Python 3.11 every later import warns (``ImportWarning``) and
    from 3.12 on Python ignores it anyway."""
    import sys

    fixer = getattr(pygal, "PluginImportFixer", None)
    if fixer is not None:
        sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, fixer)]
