"""``status``: who uses, borrows and lends what, once or as a live view (``--watch``)."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Annotated

import typer

from quotactl.errors import UsageError

if TYPE_CHECKING:
    from quotactl.api import Account
    from quotactl.cli.runtime import Runtime
    from quotactl.core.status.report import StatusReport


class StatusFormat(enum.StrEnum):
    """``status -o``: a table, one JSON document, or Prometheus's OpenMetrics text."""

    TEXT = "text"
    JSON = "json"
    OPENMETRICS = "openmetrics"


DEFAULT_INTERVAL = "5s"
MIN_INTERVAL = 0.2


def status(
    ctx: typer.Context,
    queue: Annotated[
        list[str] | None,
        typer.Option(
            "--queue",
            metavar="QUEUE",
            help="Only this job queue (repeatable) [default: every quota-managed queue].",
        ),
    ] = None,
    team: Annotated[
        list[str] | None,
        typer.Option("--team", metavar="TEAM", help="Only the shares of this team (repeatable)."),
    ] = None,
    watch: Annotated[
        bool, typer.Option("--watch", help="Redraw in place every --interval until Ctrl-C.")
    ] = False,
    interval: Annotated[
        str | None,
        typer.Option(
            "--interval",
            metavar="DURATION",
            help=f"Time between --watch refreshes, e.g. 2s or 1m [default: {DEFAULT_INTERVAL}].",
            show_default=False,
        ),
    ] = None,
    output: Annotated[
        StatusFormat,
        typer.Option("-o", "--output", help="Report as text, JSON or OpenMetrics (Prometheus)."),
    ] = StatusFormat.TEXT,
) -> None:
    """Show per queue and share: limits, in use, own, borrowed, lent, headroom and jobs."""
    from quotactl import api
    from quotactl.cli.runtime import runtime_of

    runtime = runtime_of(ctx, output)
    if interval is not None and not watch:
        raise UsageError("--interval is the time between --watch refreshes", hint="add --watch")
    if watch and output is StatusFormat.OPENMETRICS:
        raise UsageError(
            "-o openmetrics prints one reading", hint="`quotactl metrics serve` serves it live"
        )
    seconds = _interval(interval or DEFAULT_INTERVAL) if watch else 0.0
    account = runtime.connect(retries=api.WATCH_RETRIES if watch else None)
    try:
        if output is StatusFormat.OPENMETRICS:
            runtime.stdout.write(api.openmetrics(account, queue, clock=runtime.clock))
        elif watch:
            _watch(runtime, account, queue, team, seconds, output)
        else:
            _show(runtime, api.status(account, queue, team=team, clock=runtime.clock), output)
    finally:
        runtime.report_calls(account)
        account.close()


def _show(runtime: Runtime, report: StatusReport, output: StatusFormat) -> None:
    if output is StatusFormat.JSON:
        from quotactl.render.status_json import status_json

        print(status_json(report), file=runtime.stdout)
        return
    from quotactl.render.status import print_status

    print_status(runtime.console(), report)


def _watch(
    runtime: Runtime,
    account: Account,
    queues: list[str] | None,
    team: list[str] | None,
    interval: float,
    output: StatusFormat,
) -> None:
    """Refresh until Ctrl-C (which ends the watch normally: exit 0, the last view stays)."""
    from quotactl import api
    from quotactl.render.status_watch import show_watch

    refreshes = api.watch(
        account, queues, team=team, interval=interval, clock=runtime.clock, sleep=runtime.sleep
    )
    streams = (runtime.stdout, runtime.stderr) if output is StatusFormat.JSON else None
    try:
        show_watch(runtime.console(), refreshes, interval=interval, json_streams=streams)
    except KeyboardInterrupt:
        return


def _interval(text: str) -> float:
    from quotactl.core.durations import DurationError, parse_duration

    try:
        seconds = parse_duration(text)
    except DurationError as exc:
        raise UsageError(f"--interval: {exc}") from None
    if seconds < MIN_INTERVAL:
        raise UsageError(f"--interval must be at least {MIN_INTERVAL:g}s, got {text!r}")
    return seconds


def register(app: typer.Typer) -> None:
    app.command("status")(status)
