"""A ``Chart`` drawn as static SVG by pygal: no script, no font or file fetched, no network.

pygal is a small pure-Python charting library (docs/reports.md says why this one). Its output
is trimmed: coordinates to a tenth of a pixel (it writes six decimals and more), its generator
comment and the configuration script its tooltips would read dropped (the page allows no
script), and its random chart id replaced by one given here, so one report is the same bytes
every time it is built.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from quotactl.render.report.model import Kind

if TYPE_CHECKING:
    from quotactl.render.report.model import Chart

PALETTE = ("#3b6fb6", "#e07b39", "#5a9e4b", "#8e5fb0", "#c9453d", "#6d6d6d", "#2aa198")
WIDTH, HEIGHT = 760, 280
_DECIMALS = re.compile(r"(\d\.\d)\d{3,}")
_DROPPED = re.compile(r"<!--.*?-->|<script\b.*?</script>", re.S)


def svg(chart: Chart, chart_id: str) -> str:
    """The chart as an ``<svg>`` element whose CSS applies to it alone (``#chart_id``)."""
    import pygal
    from pygal.style import Style

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
        colors=tuple(chart.colours) or PALETTE,
    )
    options: dict[str, Any] = {
        "style": style,
        "width": WIDTH,
        "height": HEIGHT,
        "js": [],  # pygal's tooltips would load a script from the network
        "disable_xml_declaration": True,
        "legend_at_bottom": True,
        "legend_at_bottom_columns": min(3, max(1, len(chart.series))),
        "truncate_legend": -1,
        "truncate_label": -1,
        "y_title": chart.y_title,
        "show_dots": False,
        "include_x_axis": True,
        "print_values": False,
        "margin": 12,
    }
    if chart.kind is Kind.BARS:
        drawing = pygal.Bar(**options)
    else:
        drawing = pygal.Line(
            show_minor_x_labels=False,
            x_labels_major_count=7,
            stroke_style={"width": 1.5},
            **options,
        )
    drawing.x_labels = list(chart.x_labels)
    for series in chart.series:
        extra: dict[str, Any] = {"fill": series.fill}
        if series.dashed:
            extra["stroke_style"] = {"width": 1.5, "dasharray": "5,4"}
        drawing.add(series.name, list(series.values), **extra)
    text = drawing.render(is_unicode=True)
    text = text.replace(f"chart-{drawing.uuid}", chart_id)
    return _DECIMALS.sub(r"\1", _DROPPED.sub("", text))
