"""``usage -o json`` and ``-o csv``: the usage report as data, format version 1::

    {"format_version": "1", "window": {"from", "to"}, "by": "share" | "team",
     "grace_seconds", "rows": [ROW], "periods": [{"from", "to", "rows": [ROW]}],
     "budgets": [{"team", "instance_type", "over", "used", "limit", "ratio", "exceeded",
                  "resets"}],
     "settings_from_config": [{"queue", "share", "from", "to"}] | null}

    ROW = {"queue", "share", "team", "instance_type", "entitled", "used", "own", "borrowed",
           "lent", "idle", "reserved_unused", "wait": {"p50", "p95", "max"}, "jobs",
           "preemptions", "work_lost", "guarantee_miss_hours", "longest_miss_seconds",
           "cost", "cost_borrowed", "credit_lent"}

Capacity figures and ``work_lost`` are instance-hours and ``guarantee_miss_hours`` hours,
rounded to 6 decimals (a few milliseconds); waits and ``longest_miss_seconds`` are seconds
(rounded to 3 decimals); ``cost``, ``cost_borrowed`` and ``credit_lent`` are null without
``--prices``. ``--by team`` rows have ``"queue": null`` and ``"share": null``. ``periods`` is
empty without ``--every``; ``budgets`` has a row per budgeted team and instance type (hours
counted in the budget's period holding the window's end; the CSV leaves them out).
``settings_from_config`` lists, when ``--history`` files were read, the stretches in which a
share had no settings record, so its configuration's settings were used (null for the live
account). The CSV
has one line per row, with a ``period_from`` and ``period_to`` column (the window itself for
the window's rows) and the wait flattened to ``wait_p50``, ``wait_p95`` and ``wait_max``.
"""

from __future__ import annotations

import csv
import io
import json
from typing import TYPE_CHECKING, Any

from quotactl.core.history.ledger import iso
from quotactl.core.history.report import UsageRun
from quotactl.core.outputs import Output
from quotactl.render.views import Screen, view

if TYPE_CHECKING:
    from datetime import datetime

    from quotactl.core.history.report import UsageReport, UsageRow

FORMAT_VERSION = "1"
FIGURES = (
    "entitled",
    "used",
    "own",
    "borrowed",
    "lent",
    "idle",
    "reserved_unused",
)
COUNTS = ("jobs", "preemptions")
MONEY = ("cost", "cost_borrowed", "credit_lent")


@view(UsageRun, Output.JSON)
def show_json(run: UsageRun, screen: Screen) -> None:
    screen.write(usage_json(run.shown) + "\n")
    screen.json_written = True


@view(UsageRun, "csv")
def show_csv(run: UsageRun, screen: Screen) -> None:
    screen.write(usage_csv(run.shown))


def usage_document(report: UsageReport) -> dict[str, Any]:
    return {
        "format_version": FORMAT_VERSION,
        "window": {"from": iso(report.start), "to": iso(report.end)},
        "by": str(report.by),
        "grace_seconds": report.grace,
        "rows": [row_document(r) for r in report.rows],
        "periods": [
            {"from": iso(p.start), "to": iso(p.end), "rows": [row_document(r) for r in p.rows]}
            for p in report.periods
        ],
        "budgets": [
            {
                "team": b.team,
                "instance_type": b.instance_type,
                "over": b.over,
                "used": hours(b.used),
                "limit": b.limit,
                "ratio": round(b.ratio, 4),
                "exceeded": b.exceeded,
                "resets": iso(b.resets) if b.resets else None,
            }
            for b in report.budgets
        ],
        "settings_from_config": None
        if report.settings_from_config is None
        else [
            {"queue": g.queue, "share": g.share, "from": iso(g.start), "to": iso(g.end)}
            for g in report.settings_from_config
        ],
    }


def usage_json(report: UsageReport) -> str:
    return json.dumps(usage_document(report), indent=2)


def row_document(row: UsageRow) -> dict[str, Any]:
    return {
        "queue": row.queue,
        "share": row.share,
        "team": row.team,
        "instance_type": row.instance_type,
        **{name: hours(getattr(row, name)) for name in FIGURES},
        "wait": {
            "p50": seconds(row.wait.p50),
            "p95": seconds(row.wait.p95),
            "max": seconds(row.wait.max),
        },
        "jobs": row.jobs,
        "preemptions": row.preemptions,
        "work_lost": hours(row.work_lost),
        "guarantee_miss_hours": hours(row.guarantee_miss_hours),
        "longest_miss_seconds": seconds(row.longest_miss_seconds),
        **{name: money(getattr(row, name)) for name in MONEY},
    }


def usage_csv(report: UsageReport) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    columns = ["period_from", "period_to", "queue", "share", "team", "instance_type"]
    columns += [*FIGURES, "wait_p50", "wait_p95", "wait_max", *COUNTS, "work_lost"]
    columns += ["guarantee_miss_hours", "longest_miss_seconds", *MONEY]
    writer.writerow(columns)
    blocks: list[tuple[datetime, datetime, tuple[UsageRow, ...]]] = [
        (report.start, report.end, report.rows)
    ]
    blocks += [(p.start, p.end, p.rows) for p in report.periods]
    for start, end, rows in blocks:
        for row in rows:
            doc = row_document(row)
            wait = doc.pop("wait")
            doc = {**doc, "wait_p50": wait["p50"], "wait_p95": wait["p95"], "wait_max": wait["max"]}
            values = [iso(start), iso(end)] + [doc[c] for c in columns[2:]]
            writer.writerow("" if v is None else v for v in values)
    return out.getvalue()


def hours(value: float) -> float:
    return round(value, 6) + 0.0


def seconds(value: float | None) -> float | None:
    return None if value is None else round(value, 3) + 0.0


def money(value: float | None) -> float | None:
    return None if value is None else round(value, 2) + 0.0
