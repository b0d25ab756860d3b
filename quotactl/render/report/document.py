"""A ``Report`` as one self-contained HTML page: inline CSS and SVG, no script, no network.

The page's Content-Security-Policy allows nothing to be fetched and no script to run, so what
opens from a CI artifact is exactly what was written. Every chart is a ``<figure>`` whose SVG
is labelled with its text alternative, which is also printed under it with a table of its
figures.
"""

from __future__ import annotations

from html import escape
from itertools import count
from typing import TYPE_CHECKING

from quotactl.render.report.charts import draw

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from quotactl.render.report.model import Chart, Report, Section, Table

_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
_CSS = """
body{font:14px/1.45 system-ui,sans-serif;color:#222;margin:0 auto;max-width:1600px;
padding:0 24px 48px}h1{font-size:22px;margin:24px 0 8px}
h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid #ddd}
h3{font-size:15px;margin:24px 0 8px}p{margin:4px 0}table{border-collapse:collapse;
margin:8px 0 16px}caption{text-align:left;font-weight:600;padding:4px 0}
th,td{padding:3px 10px;border-bottom:1px solid #eee;text-align:left;white-space:nowrap}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}.note{color:#666;font-size:12px}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(600px,1fr));gap:16px}
figure{margin:0;border:1px solid #e5e5e5;border-radius:6px;padding:8px 12px}
figcaption{font-weight:600}figure svg{width:100%;height:auto}
details{font-size:12px;color:#444}details table{margin:4px 0}
nav ul{columns:3;margin:4px 0}
"""


def html(report: Report) -> str:
    """The whole page."""
    counter = count(1)
    styles: dict[str, None] = {}  # the charts' CSS, each distinct one once
    body = [_section(section, 2, counter, styles) for section in report.sections]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(report.title)}</title><style>{_CSS}{''.join(styles)}</style>",
        "</head><body>",
        f"<h1>{escape(report.title)}</h1>",
        *(f"<p>{escape(line)}</p>" for line in report.lines),
        _contents(report.sections),
    ]
    parts += body
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _contents(sections: Sequence[Section]) -> str:
    items = "".join(
        f'<li><a href="#{_anchor(s.title)}">{escape(s.title)}</a></li>' for s in sections
    )
    return f"<nav><ul>{items}</ul></nav>"


def _section(section: Section, level: int, counter: Iterator[int], styles: dict[str, None]) -> str:
    parts = [
        f'<section><h{level} id="{_anchor(section.title)}">{escape(section.title)}</h{level}>',
        *(f"<p>{escape(line)}</p>" for line in section.lines),
        *(_table(t) for t in section.tables),
    ]
    if section.charts:
        parts.append('<div class="charts">')
        parts += [_figure(c, f"chart-{next(counter)}", styles) for c in section.charts]
        parts.append("</div>")
    parts += [_section(s, level + 1, counter, styles) for s in section.sections]
    parts.append("</section>")
    return "\n".join(parts)


def _figure(chart: Chart, chart_id: str, styles: dict[str, None]) -> str:
    drawn = draw(chart, chart_id)
    styles[drawn.css] = None
    drawing = drawn.svg
    label = escape(chart.alt, quote=True)
    figures = _table(chart.figures, details=True) if chart.figures else ""
    return (
        f"<figure><figcaption>{escape(chart.title)}</figcaption>"
        f'<div role="img" aria-label="{label}">{drawing}</div>'
        f'<p class="note">{escape(chart.alt)}</p>{figures}</figure>'
    )


def _table(table: Table, *, details: bool = False) -> str:
    numeric = list(table.numeric) + [False] * (len(table.header) - len(table.numeric))
    head = "".join(
        f'<th{_num(n)} scope="col">{escape(h)}</th>'
        for h, n in zip(table.header, numeric, strict=True)
    )
    body = "".join(
        "<tr>"
        + "".join(f"<td{_num(n)}>{escape(c)}</td>" for c, n in zip(row, numeric, strict=True))
        + "</tr>"
        for row in table.rows
    )
    note = f'<p class="note">{escape(table.note)}</p>' if table.note else ""
    if details:
        return (
            f"<details><summary>{escape(table.title)}</summary>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></details>"
        )
    return (
        f"<table><caption>{escape(table.title)}</caption><thead><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table>{note}"
    )


def _num(numeric: bool) -> str:
    return ' class="n"' if numeric else ""


def _anchor(title: str) -> str:
    return "s-" + "".join(c if c.isalnum() else "-" for c in title.lower()).strip("-")
