"""``status``: who uses, borrows and lends what, once or as a live view (``--watch``)."""

from __future__ import annotations

from typing import Annotated

import typer

from quotactl.cli.options import Duration, StatusOutput
from quotactl.errors import UsageError

DEFAULT_INTERVAL = 5.0
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
        float | None,
        Duration("--interval", help="Time between --watch refreshes, e.g. 2s or 1m [default: 5s]."),
    ] = None,
    output: Annotated[
        StatusOutput,
        typer.Option("-o", "--output", help="Report as text, JSON or OpenMetrics (Prometheus)."),
    ] = StatusOutput.TEXT,
) -> None:
    """Show per queue and share: limits, in use, own, borrowed, lent, headroom and jobs."""
    from quotactl import api
    from quotactl.cli.runtime import runtime_of

    runtime = runtime_of(ctx, output)
    if interval is not None and not watch:
        raise UsageError("--interval is the time between --watch refreshes", hint="add --watch")
    if watch and output is StatusOutput.OPENMETRICS:
        raise UsageError(
            "-o openmetrics prints one reading", hint="`quotactl metrics serve` serves it live"
        )
    if interval is not None and interval < MIN_INTERVAL:
        raise UsageError(f"--interval must be at least {MIN_INTERVAL:g}s, got {interval:g}s")
    every = DEFAULT_INTERVAL if interval is None else interval
    with runtime.account(retries=api.WATCH_RETRIES if watch else None) as account:
        if output is StatusOutput.OPENMETRICS:
            result: object = api.read_metrics(account, queue, clock=runtime.clock)
        elif watch:
            result = api.watch(
                account, queue, team=team, interval=every, clock=runtime.clock, sleep=runtime.sleep
            )
        else:
            result = api.status(account, queue, team=team, clock=runtime.clock)
        runtime.show(result)


def register(app: typer.Typer) -> None:
    app.command("status")(status)
