"""``usage``: who used, borrowed and lent what over a window; showback and guarantee misses."""

from __future__ import annotations

import enum
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from quotactl.cli.options import PathsArgument

if TYPE_CHECKING:
    from datetime import datetime

    from quotactl.cli.runtime import Runtime
    from quotactl.core.history.report import UsageReport


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
            " the live account.",
            show_default=False,
        ),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            metavar="DURATION",
            help="The window: this last stretch (7d, 30d) [default: 30d].",
            show_default=False,
        ),
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
        str | None,
        typer.Option(
            "--grace",
            metavar="DURATION",
            help="How long a head job may wait for its own capacity before it counts as a"
            " guarantee miss [default: 5m].",
            show_default=False,
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
    are the config's.
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.support import load, write_report
    from quotactl.core.history.report import By, Every
    from quotactl.errors import UsageError

    runtime = runtime_of(ctx, output)
    if since is not None and start is not None:
        raise UsageError("give --since DURATION or --from TIME, not both")
    window = api.UsageWindow(
        since=_duration("--since", since),
        start=_time("--from", start),
        end=_time("--to", end),
    )
    grace_seconds = _duration("--grace", grace)
    desired = load(runtime, paths).desired
    if report_path is not None:
        api.check_report_path(report_path)
    periods = every or (EveryOption.DAY if report_path is not None else None)

    def report_of(account: api.Account | None) -> UsageReport:
        return api.usage(
            desired,
            account=account,
            ledgers=history or (),
            window=window,
            by=By(by.value),
            every=Every(periods.value) if periods else None,
            queues=queues,
            teams=teams,
            prices=prices,
            grace=grace_seconds,
        )

    if history:
        report = report_of(None)
    else:
        with runtime.connect(desired.region) as account:
            report = report_of(account)
            runtime.report_calls(account)
    if report_path is not None:
        from quotactl.render.report.usage import usage_html

        write_report(runtime, report_path, usage_html(report))
    if every is None and periods is not None:  # the report's periods: not asked for on stdout
        report = replace(report, periods=(), every=None)
    _show(runtime, report, output)


def _show(runtime: Runtime, report: UsageReport, output: UsageFormat) -> None:
    if output is UsageFormat.JSON:
        from quotactl.render.usage_data import usage_json

        print(usage_json(report), file=runtime.stdout)
    elif output is UsageFormat.CSV:
        from quotactl.render.usage_data import usage_csv

        runtime.stdout.write(usage_csv(report))
    elif output is UsageFormat.MARKDOWN:
        from quotactl.render.usage import usage_markdown

        runtime.stdout.write(usage_markdown(report))
    else:
        from quotactl.render.usage import print_usage

        print_usage(runtime.console(), report)


def _duration(option: str, text: str | None) -> float | None:
    from quotactl.core.durations import DurationError, parse_duration
    from quotactl.errors import UsageError

    if text is None:
        return None
    try:
        return parse_duration(text)
    except DurationError as exc:
        raise UsageError(f"{option}: {exc}") from None


def _time(option: str, text: str | None) -> datetime | None:
    from quotactl.core.history.ledger import parse_time
    from quotactl.errors import UsageError

    if text is None:
        return None
    try:
        return parse_time(text)
    except ValueError:
        raise UsageError(
            f"{option}: {text!r} is not an ISO 8601 time", hint="e.g. 2026-11-01T00:00:00Z"
        ) from None


def register(app: typer.Typer) -> None:
    app.command("usage")(usage)
