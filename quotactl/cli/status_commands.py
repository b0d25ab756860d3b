"""``status``: who uses, borrows and lends what, once or as a live view (``--watch``)."""

from __future__ import annotations

import enum
import time
from typing import TYPE_CHECKING, Annotated, Any

import typer

from quotactl.errors import QuotactlError, UsageError

if TYPE_CHECKING:
    from quotactl.aws.live import LiveReader
    from quotactl.aws.session import Retries
    from quotactl.cli.runtime import Runtime
    from quotactl.core.status.report import StatusReport

DEFAULT_INTERVAL = "5s"
MIN_INTERVAL = 0.2
WATCH_RETRIES: Retries = {"mode": "standard", "max_attempts": 2}
"""A live view retries on its next refresh, so its calls give up sooner than apply's."""


class StatusFormat(enum.StrEnum):
    TEXT = "text"
    JSON = "json"


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
        str | None,
        typer.Option("--team", metavar="TEAM", help="Only the shares of this team."),
    ] = None,
    watch: Annotated[
        bool, typer.Option("--watch", help="Redraw in place every --interval until Ctrl-C.")
    ] = False,
    interval: Annotated[
        str,
        typer.Option(
            "--interval",
            metavar="DURATION",
            help=f"Time between --watch refreshes, e.g. 2s or 1m [default: {DEFAULT_INTERVAL}].",
            show_default=False,
        ),
    ] = DEFAULT_INTERVAL,
    output: Annotated[
        StatusFormat,
        typer.Option("-o", "--output", help="Report as text or JSON."),
    ] = StatusFormat.TEXT,
) -> None:
    """Show per queue and share: limits, in use, own, borrowed, lent, headroom and jobs."""
    from quotactl.cli.runtime import runtime_of

    runtime = runtime_of(ctx)
    seconds = _interval(interval) if watch else 0.0
    reader = _reader(runtime, retries=WATCH_RETRIES if watch else None)
    try:
        if watch:
            _watch(runtime, reader, queue, team, seconds, output)
        else:
            _show(runtime, _read(reader, queue, team), output)
    finally:
        _report_calls(runtime, reader)
        reader.close()


def _reader(runtime: Runtime, *, retries: Retries | None) -> LiveReader:
    from quotactl.aws.live import LiveReader
    from quotactl.aws.session import client

    target = runtime.target(None)
    return LiveReader(client(target, session=runtime.session(target), retries=retries))


def _read(reader: LiveReader, queues: list[str] | None, team: str | None) -> StatusReport:
    from quotactl.core.status.compute import status_of

    return status_of(reader.read_queues(queues or None), team=team, at=time.time())


def _show(runtime: Runtime, report: StatusReport, output: StatusFormat) -> None:
    if output is StatusFormat.JSON:
        from quotactl.render.status_json import status_json

        print(status_json(report), file=runtime.stdout)
        return
    from quotactl.render.status import print_status

    print_status(runtime.console(), report)


def _watch(
    runtime: Runtime,
    reader: LiveReader,
    queues: list[str] | None,
    team: str | None,
    interval: float,
    output: StatusFormat,
) -> None:
    """Refresh until Ctrl-C (which ends the watch normally: exit 0, the last view stays).

    A failed refresh is shown and the last good view kept; the next refresh retries. Only a
    first read failing for a reason that is not transient (a queue that does not exist,
    missing permissions) ends the command, as an error.
    """
    from quotactl.core.status.changes import changes
    from quotactl.core.status.compute import status_of
    from quotactl.errors import BackendError
    from quotactl.render.status_json import status_document
    from quotactl.render.status_watch import watch_frame

    console = runtime.console()
    live = _live(console) if output is StatusFormat.TEXT else None
    state: dict[str, Any] = {"report": None, "queues": None, "refreshed": None}
    try:
        while True:
            error: str | None = None
            found = None
            try:
                read = reader.read_queues(queues or None)
            except QuotactlError as exc:
                transient = isinstance(exc, BackendError) and exc.retryable
                if state["report"] is None and not transient:
                    raise
                error = f"error[{exc.code}]: {exc.message}"
            else:
                found = changes(state["queues"], read) if state["queues"] is not None else None
                state["queues"] = read
                state["report"] = status_of(read, team=team, at=time.time())
                state["refreshed"] = time.time()
            if output is StatusFormat.JSON:
                if error is not None:
                    print(error, file=runtime.stderr, flush=True)
                else:
                    import json

                    document = status_document(state["report"])
                    print(json.dumps(document), file=runtime.stdout, flush=True)
            else:
                frame = watch_frame(
                    console,
                    state["report"],
                    refreshed=state["refreshed"],
                    interval=interval,
                    changes=found,
                    error=error,
                    failed_at=time.time() if error else None,
                )
                if live is not None and console.is_terminal:
                    live.update(frame, refresh=True)
                else:
                    console.print(frame)
                    console.print()
            time.sleep(interval)
    except KeyboardInterrupt:
        return
    finally:
        if live is not None and console.is_terminal:
            live.stop()


def _live(console: Any) -> Any:
    if not console.is_terminal:
        return None
    from rich.live import Live

    live = Live(console=console, auto_refresh=False, redirect_stdout=False, transient=False)
    live.start()
    return live


def _interval(text: str) -> float:
    from quotactl.core.durations import DurationError, parse_duration

    try:
        seconds = parse_duration(text)
    except DurationError as exc:
        raise UsageError(f"--interval: {exc}") from None
    if seconds < MIN_INTERVAL:
        raise UsageError(f"--interval must be at least {MIN_INTERVAL:g}s, got {text!r}")
    return seconds


def _report_calls(runtime: Runtime, reader: LiveReader) -> None:
    if runtime.debug:
        calls = reader.calls
        detail = ", ".join(f"{op} {n}" for op, n in sorted(calls.items()))
        print(f"quotactl: {sum(calls.values())} API calls ({detail})", file=runtime.stderr)


def register(app: typer.Typer) -> None:
    app.command("status")(status)
