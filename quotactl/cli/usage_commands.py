"""``usage``: who used, borrowed and lent what over a window; showback and guarantee misses."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated

import typer

from quotactl.cli.options import Duration, PathsArgument


class UsageFormat(enum.StrEnum):
    """``usage -o``: tables for people, JSON or CSV for charts and sheets, markdown for a PR."""

    TEXT = "text"
    JSON = "json"
    CSV = "csv"
    MARKDOWN = "markdown"


class ByOption(enum.StrEnum):
    SHARE = "share"
    TEAM = "team"


class EveryOption(enum.StrEnum):
    DAY = "day"
    WEEK = "week"


def usage(
    ctx: typer.Context,
    paths: PathsArgument = None,
    history: Annotated[
        list[Path] | None,
        typer.Option(
            "--history",
            metavar="FILE",
            help="Read these ledgers (repeatable; `quotactl history` writes them) instead of"
            " the live account, and the settings records of apply and govern --log files"
            " among them.",
            show_default=False,
        ),
    ] = None,
    since: Annotated[
        float | None,
        Duration("--since", help="The window: this last stretch (7d, 30d) [default: 30d]."),
    ] = None,
    start: Annotated[
        str | None,
        typer.Option(
            "--from",
            metavar="TIME",
            help="The window's start (ISO 8601, UTC unless a zone).",
            show_default=False,
        ),
    ] = None,
    end: Annotated[
        str | None,
        typer.Option(
            "--to",
            metavar="TIME",
            help="The window's end, not included [default: now; for ledgers, their last time].",
            show_default=False,
        ),
    ] = None,
    by: Annotated[
        ByOption, typer.Option("--by", help="One row per share, or per team across queues.")
    ] = ByOption.SHARE,
    every: Annotated[
        EveryOption | None,
        typer.Option("--every", help="Add one row per UTC day or ISO week (for charts)."),
    ] = None,
    queues: Annotated[
        list[str] | None,
        typer.Option("--queue", metavar="QUEUE", help="Only this job queue (repeatable)."),
    ] = None,
    teams: Annotated[
        list[str] | None,
        typer.Option("--team", metavar="TEAM", help="Only the shares of this team (repeatable)."),
    ] = None,
    prices: Annotated[
        Path | None,
        typer.Option(
            "--prices",
            metavar="FILE",
            help="Price per instance-hour by instance type (YAML or CSV): adds cost, the cost"
            " of what was borrowed and the credit for what was lent.",
            show_default=False,
        ),
    ] = None,
    grace: Annotated[
        float | None,
        Duration(
            "--grace",
            help="How long a head job may wait for its own capacity before it counts as a"
            " guarantee miss [default: 5m].",
        ),
    ] = None,
    output: Annotated[
        UsageFormat, typer.Option("-o", "--output", help="text, json, csv or markdown.")
    ] = UsageFormat.TEXT,
    report_path: Annotated[
        Path | None,
        typer.Option(
            "--report",
            metavar="FILE.html",
            help="Also write the tables and charts per --every period (default: per day) as"
            " one self-contained HTML page.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Show per share (or team) and instance type what was used, own, borrowed and lent.

    Over a window (default: the last 30 days), in instance-hours: entitled (limit x hours),
    used, own, borrowed, lent, idle and reserved-unused; waits, preemptions and work lost;
    guarantee misses (time a share's next job waited although its own limit had room). From
    the live account, or from ledgers written by `quotactl history`; limits and strategies
    are the config's, or with --history those in force at each moment as the settings
    records say (apply --log, govern --log, and history's file beside each ledger); where a
    share has none for a stretch, the config's, and usage says so.
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.support import load, write_report

    runtime = runtime_of(ctx, output)
    window = api.usage_window(since=since, start=start, end=end)
    desired = load(runtime, paths).desired
    if report_path is not None:
        api.check_report_path(report_path)

    def usage_of(account: api.Account | None) -> api.UsageRun:
        return api.usage_run(
            desired,
            account=account,
            ledgers=history or (),
            window=window,
            by=by.value,
            every=every.value if every else None,
            report=report_path is not None,
            queues=queues,
            teams=teams,
            prices=prices,
            grace=grace,
        )

    if history:
        run = usage_of(None)
    else:
        with runtime.account(desired.region) as account:
            run = usage_of(account)
    if report_path is not None:
        write_report(runtime, report_path, api.report_page(run))
    runtime.show(run)


def register(app: typer.Typer) -> None:
    app.command("usage")(usage)
