"""``usage`` for people: the window's tables (text or markdown), and each period's with
``--every``. Capacity in instance-hours, waits as durations, money with two decimals."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from quotactl.core.durations import human_duration
from quotactl.core.history.ledger import iso
from quotactl.core.history.report import By, UsageRun
from quotactl.core.outputs import Output, ReportOutput
from quotactl.core.simulate import instance_hours
from quotactl.render.markdown import code_span
from quotactl.render.mermaid import wait_unit, xychart
from quotactl.render.simulate import titled_table
from quotactl.render.status_parts import budget_line
from quotactl.render.symbols import DASH
from quotactl.render.views import Screen, view

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import Console

    from quotactl.core.history.report import UsageReport, UsageRow

CAPACITY = ("entitled", "used", "own", "borrowed", "lent", "idle", "reserved_unused")
CAPACITY_HEADERS = ("entitled", "used", "own", "borrowed", "lent", "idle", "reserved unused")
JOBS_HEADERS = ("jobs", "wait p50", "p95", "max", "preemptions", "lost", "missed", "longest")
MONEY_HEADERS = ("cost", "of it borrowed", "credit lent")


@view(UsageRun, Output.TEXT)
def show_text(run: UsageRun, screen: Screen) -> None:
    print_usage(screen.console(), run.shown)


@view(UsageRun, ReportOutput.MARKDOWN)
def show_markdown(run: UsageRun, screen: Screen) -> None:
    screen.write(usage_markdown(run.shown))


def print_usage(console: Console, report: UsageReport) -> None:
    console.print(Text(_headline(report), style="bold"))
    if not report.rows:
        console.print("no share had capacity or jobs in the window")
        return
    for title, headers, cells in usage_tables(report, report.rows):
        console.print()
        table = titled_table(title)
        for i, header in enumerate(headers):
            table.add_column(header, justify="left" if i < key_columns(report) else "right")
        for row in cells:
            table.add_row(*row)
        console.print(table)
    for period in report.periods:
        console.print()
        table = titled_table(f"{iso(period.start)} to {iso(period.end)} (instance-hours)")
        headers = [*_key_headers(report), *CAPACITY_HEADERS[1:5], "missed"]
        for i, header in enumerate(headers):
            table.add_column(header, justify="left" if i < key_columns(report) else "right")
        for r in period.rows:
            values = [instance_hours(getattr(r, n)) for n in CAPACITY[1:5]]
            table.add_row(*row_key(report, r), *values, _missed(r))
        console.print(table)
    if report.budgets:
        console.print()
        console.print(Text(f"Budgets at {iso(report.end)}", style="bold"))
        for budget in report.budgets:
            console.print(f"  {budget_line(budget)}", highlight=False)
    if report.unpriced:
        console.print(f"no price for {', '.join(report.unpriced)}: its cost is not shown")
    for line in settings_notes(report):
        console.print(line, highlight=False)


def settings_notes(report: UsageReport) -> list[str]:
    """Where no settings record said what a share held: the configuration's settings were
    used, stretch by stretch."""
    gaps = report.settings_from_config or ()
    return [
        f"{g.queue}/{g.share}: no settings record from {iso(g.start)} to {iso(g.end)};"
        " the configuration's settings are used"
        for g in gaps
    ]


def usage_markdown(report: UsageReport) -> str:
    lines = [f"**{_headline(report)}**"]
    for title, headers, cells in usage_tables(report, report.rows):
        lines += ["", f"### {title}", "", _md_row(headers), _md_row(["---"] * len(headers))]
        lines += [_md_row(row) for row in cells]
    for period in report.periods:
        headers = [*_key_headers(report), *CAPACITY_HEADERS[1:5], "missed"]
        lines += ["", f"### {iso(period.start)} to {iso(period.end)} (instance-hours)", ""]
        lines += [_md_row(headers), _md_row(["---"] * len(headers))]
        for r in period.rows:
            values = [instance_hours(getattr(r, n)) for n in CAPACITY[1:5]]
            lines.append(_md_row([*row_key(report, r), *values, _missed(r)]))
    if notes := settings_notes(report):
        lines += ["", *(f"- {note}" for note in notes)]
    lines += _wait_chart(report)
    return "\n".join(lines) + "\n"


def _wait_chart(report: UsageReport) -> list[str]:
    """p95 waits per row: over the window (bars) and in the last period (line, --every)."""
    rows = [r for r in report.rows if r.wait.p95 is not None][:MARKDOWN_CHART_ROWS]
    if not rows:
        return []
    last = {}
    if report.periods:
        last = {tuple(row_key(report, r)): r.wait.p95 or 0.0 for r in report.periods[-1].rows}
    window = [r.wait.p95 or 0.0 for r in rows]
    recent = [last.get(tuple(row_key(report, r)), 0.0) for r in rows] if last else None
    unit, seconds = wait_unit([*window, *(recent or [])])
    which = f"the window (bars), the last {report.every} (line)" if recent else "the window"
    chart = xychart(
        f"p95 wait per {report.by}: {which}",
        ["/".join(row_key(report, r)[1 if report.by is By.SHARE else 0 :]) for r in rows],
        f"p95 wait ({unit})",
        [v / seconds for v in window],
        [v / seconds for v in recent] if recent else None,
    )
    return ["", *chart]


MARKDOWN_CHART_ROWS = 20
"""Bars of the markdown chart: more would not be read."""


def _headline(report: UsageReport) -> str:
    return (
        f"Usage per {report.by} from {iso(report.start)} to {iso(report.end)}"
        f" (guarantee misses beyond a grace of {human_duration(report.grace)})"
    )


def usage_tables(
    report: UsageReport, rows: Sequence[UsageRow]
) -> list[tuple[str, list[str], list[list[str]]]]:
    """The window's tables: (title, headers, cells) each; the key columns come first."""
    keys = _key_headers(report)
    tables = [
        (
            "Capacity (instance-hours)",
            [*keys, *CAPACITY_HEADERS],
            [
                [*row_key(report, r), *(instance_hours(getattr(r, n)) for n in CAPACITY)]
                for r in rows
            ],
        ),
        (
            "Jobs, waits and guarantee misses",
            [*keys, *JOBS_HEADERS],
            [
                [
                    *row_key(report, r),
                    f"{r.jobs:,}",
                    _duration(r.wait.p50),
                    _duration(r.wait.p95),
                    _duration(r.wait.max),
                    f"{r.preemptions:,}",
                    instance_hours(r.work_lost),
                    _missed(r),
                    _duration(r.longest_miss_seconds) if r.longest_miss_seconds else DASH,
                ]
                for r in rows
            ],
        ),
    ]
    if report.priced:
        tables.append(
            (
                "Showback",
                [*keys, *MONEY_HEADERS],
                [
                    [*row_key(report, r), *(_money(getattr(r, n)) for n in MONEY_FIELDS)]
                    for r in rows
                ],
            )
        )
    return tables


MONEY_FIELDS = ("cost", "cost_borrowed", "credit_lent")


def key_columns(report: UsageReport) -> int:
    return len(_key_headers(report))


def _key_headers(report: UsageReport) -> list[str]:
    return ["team", "type"] if report.by is By.TEAM else ["queue", "share", "type"]


def row_key(report: UsageReport, row: UsageRow) -> list[str]:
    if report.by is By.TEAM:
        return [row.team or DASH, row.instance_type]
    return [row.queue or DASH, row.share or DASH, row.instance_type]


def _missed(row: UsageRow) -> str:
    if not row.guarantee_miss_hours:
        return "0"
    return human_duration(row.guarantee_miss_hours * 3600)


def _duration(value: float | None) -> str:
    return DASH if value is None else human_duration(value)


def _money(value: float | None) -> str:
    return DASH if value is None else f"{value:,.2f}"


def _md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(c if c == DASH else _md(c) for c in cells) + " |"


def _md(cell: str) -> str:
    return cell if cell.replace(",", "").replace(".", "").isdigit() else code_span(cell)
