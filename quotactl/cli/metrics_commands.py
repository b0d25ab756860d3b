"""``metrics serve``: status's figures as Prometheus metrics, read on an interval."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from quotactl.cli.options import Duration

if TYPE_CHECKING:
    from quotactl.errors import QuotactlError

metrics = typer.Typer(
    name="metrics",
    help="Prometheus metrics of who uses, borrows and lends what.",
    no_args_is_help=True,
)
DEFAULT_INTERVAL = 30.0
MIN_INTERVAL = 1.0


@metrics.command("serve")
def serve(
    ctx: typer.Context,
    host: Annotated[str, typer.Option(help="Address to listen on.", metavar="HOST")] = "127.0.0.1",
    port: Annotated[
        int,
        typer.Option(
            help="TCP port, 0-65535 (0 picks a free one).", min=0, max=65535, metavar="PORT"
        ),
    ] = 9464,
    interval: Annotated[
        float | None,
        Duration(
            "--interval",
            help="Time between reads of the account (at least 1s).  [default: 30s]",
        ),
    ] = None,
    queues: Annotated[
        list[str] | None,
        typer.Option(
            "--queue",
            metavar="QUEUE",
            help="Only this job queue (repeatable) [default: every quota-managed queue].",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Serve /metrics for Prometheus: limits, use, borrowing, lending, jobs, waits, preemptions.

    The account is read every --interval; a scrape gets the latest read at once. Through API
    errors the last good values stay served and quotactl_up is 0. Ctrl-C stops.
    """
    from quotactl import api
    from quotactl.api.options import format_duration
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.support import serving
    from quotactl.errors import UsageError

    runtime = runtime_of(ctx)
    seconds = DEFAULT_INTERVAL if interval is None else interval
    every = format_duration(seconds)
    if seconds < MIN_INTERVAL:
        raise UsageError(f"--interval must be at least {MIN_INTERVAL:g}s, got {every!r}")

    def ready(bound_host: str, bound_port: int) -> None:
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        print(
            f"Serving Prometheus metrics at http://{shown}:{bound_port}/metrics",
            file=runtime.stdout,
        )
        runtime.stdout.flush()
        runtime.notice(f"reading the account every {every}; Ctrl-C stops")

    def failed(error: QuotactlError) -> None:
        runtime.warn(f"read failed, serving the last good values: {error.message}")

    with serving(runtime), runtime.connect(retries=api.WATCH_RETRIES) as account:
        api.serve_metrics(
            account,
            host=host,
            port=port,
            interval=seconds,
            queues=queues,
            clock=runtime.clock,
            sleep=runtime.sleep,
            on_ready=ready,
            on_error=failed,
        )


def register(app: typer.Typer) -> None:
    app.add_typer(metrics)
