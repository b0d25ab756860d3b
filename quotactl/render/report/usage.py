"""The report of ``usage --report``: the window's tables, and per period (``--every``, a day by
default) the p95 wait of each share and, per share and instance type, the instances it used
(own and borrowed, against its limit) and lent, on average over the period."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.history.ledger import iso
from quotactl.core.history.report import UsageRun
from quotactl.core.simulate.metrics import HOUR
from quotactl.render.report.document import html
from quotactl.render.report.model import Chart, Kind, Report, Section, Series, Table
from quotactl.render.usage import key_columns, row_key, usage_tables
from quotactl.render.views import Screen, view

if TYPE_CHECKING:
    from quotactl.core.history.report import UsageReport, UsageRow

DAY = 24 * HOUR


def usage_report(report: UsageReport) -> Report:
    keys = key_columns(report)
    tables = [
        Table(title, headers, cells, [i >= keys for i in range(len(headers))])
        for title, headers, cells in usage_tables(report, report.rows)
    ]
    lines = [
        f"Usage per {report.by} from {iso(report.start)} to {iso(report.end)}, in"
        f" instance-hours; charts per {report.every or 'period'}."
    ]
    charts: list[Chart] = []
    shares: list[Section] = []
    if report.periods:
        x = [(p.start - report.start).total_seconds() / DAY for p in report.periods]
        charts.append(_waits(report, x))
        for row in report.rows:
            shares.append(Section(_name(report, row), charts=[_used(report, row, x)]))
    else:
        lines.append("The window holds no whole period: no chart over time.")
    section = Section("Window", tables=tables, charts=charts, sections=shares)
    return Report(f"quotactl usage: {iso(report.start)} to {iso(report.end)}", lines, [section])


@view(UsageRun, "html")
def show_html(run: UsageRun, screen: Screen) -> None:
    screen.write(usage_html(run.report))


def usage_html(report: UsageReport) -> str:
    """``usage_report`` as the page ``usage --report`` writes."""
    return html(usage_report(report))


def _waits(report: UsageReport, x: list[float]) -> Chart:
    series = []
    for row in report.rows:
        key = row_key(report, row)
        values = [_p95(report, period_rows, key) for period_rows in _by_period(report)]
        if any(v is not None for v in values):
            series.append(Series(_name(report, row), values))
    seen = [v for s in series for v in s.values if v is not None]
    alt = (
        f"p95 wait per {report.every}, per {report.by}: from {min(seen):.1f} h to"
        f" {max(seen):.1f} h."
        if seen
        else "No job started in the window."
    )
    return Chart(
        title=f"p95 wait per {report.every}",
        kind=Kind.LINES,
        x_labels=(),
        x=x,
        x_title="days since the window began",
        series=series,
        y_title="p95 wait (hours)",
        alt=alt,
    )


def _used(report: UsageReport, row: UsageRow, x: list[float]) -> Chart:
    key = row_key(report, row)
    own, used, lent, limit = [], [], [], []
    for period in report.periods:
        hours = max((period.end - period.start).total_seconds() / HOUR, 1e-9)
        found = next((r for r in period.rows if row_key(report, r) == key), None)
        own.append(found.own / hours if found else 0.0)
        used.append((found.own + found.borrowed) / hours if found else 0.0)
        lent.append(found.lent / hours if found else 0.0)
        limit.append(found.entitled / hours if found else 0.0)
    series = [
        Series("borrowed", used, fill=True),
        Series("own", own, fill=True),
        Series("lent", lent),
        Series("limit", limit, dashed=True),
    ]
    name = _name(report, row)
    alt = (
        f"{name}: on average {min(used):.1f} to {max(used):.1f} instances in use per"
        f" {report.every} against a limit of {max(limit):.0f}; borrowed at most"
        f" {max(u - o for u, o in zip(used, own, strict=True)):.1f}; lent at most"
        f" {max(lent):.1f}."
    )
    return Chart(
        title=f"{name}: instances in use per {report.every} (average)",
        kind=Kind.LINES,
        x_labels=(),
        x=x,
        x_title="days since the window began",
        series=series,
        y_title="instances (average)",
        alt=alt,
    )


def _by_period(report: UsageReport) -> list[dict[tuple[str, ...], UsageRow]]:
    return [{tuple(row_key(report, r)): r for r in p.rows} for p in report.periods]


def _p95(
    report: UsageReport, rows: dict[tuple[str, ...], UsageRow], key: list[str]
) -> float | None:
    found = rows.get(tuple(key))
    if found is None or found.wait.p95 is None:
        return None
    return found.wait.p95 / HOUR


def _name(report: UsageReport, row: UsageRow) -> str:
    return (
        " ".join(row_key(report, row))
        if report.by.value == "team"
        else "/".join(row_key(report, row)[1:])
    )
