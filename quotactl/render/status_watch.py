"""``status --watch``: one frame of the live view (header, change line, error) around the
status view, redrawn in place by rich ``Live``; with JSON, one document per refresh."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from rich.console import Group
from rich.text import Text

from quotactl.core.outputs import Output
from quotactl.core.status.watching import Refresh, StatusWatch
from quotactl.render.status import status_view
from quotactl.render.status_json import status_document
from quotactl.render.trend import Trend
from quotactl.render.views import Screen, view

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import TextIO

    from rich.console import Console, RenderableType

    from quotactl.core.status.changes import Changes
    from quotactl.core.status.report import StatusReport
    from quotactl.errors import QuotactlError


@view(StatusWatch, Output.TEXT)
def show_status_watch(watch: StatusWatch, screen: Screen) -> None:
    """``status --watch``: redrawn until Ctrl-C, which ends it normally (the last view stays)."""
    _until_interrupted(watch, screen, None)


@view(StatusWatch, Output.JSON)
def show_status_watch_json(watch: StatusWatch, screen: Screen) -> None:
    """``status --watch -o json``: one document a refresh (errors on stderr)."""
    _until_interrupted(watch, screen, (screen.stdout, screen.stderr))


def _until_interrupted(
    watch: StatusWatch, screen: Screen, json_streams: tuple[TextIO, TextIO] | None
) -> None:
    try:
        show_watch(screen.console(), watch, interval=watch.interval, json_streams=json_streams)
    except KeyboardInterrupt:
        return


def show_watch(
    console: Console,
    refreshes: Iterable[Refresh],
    *,
    interval: float,
    json_streams: tuple[TextIO, TextIO] | None = None,
) -> None:
    """Draw each refresh as it comes: redrawn in place on a terminal, one frame after another
    elsewhere; with ``json_streams`` (stdout, stderr), one JSON document per refresh instead
    (errors on stderr). Runs until ``refreshes`` ends or raises (Ctrl-C); the last view stays."""
    live = None
    if json_streams is None and console.is_terminal:
        from rich.live import Live

        live = Live(console=console, auto_refresh=False, redirect_stdout=False, transient=False)
        live.start()
    trend = Trend()
    try:
        for refresh in refreshes:
            error = _error(refresh.error)
            if json_streams is not None:
                _write_json(refresh.report, error, *json_streams)
                continue
            if refresh.report is not None and refresh.error is None:
                trend.add(refresh.report)  # a failed refresh shows the last view: no reading
            frame = watch_frame(
                console,
                refresh.report,
                refreshed=refresh.refreshed,
                interval=interval,
                changes=refresh.changes,
                error=error,
                failed_at=refresh.failed_at if error else None,
                trend=trend,
            )
            if live is not None:
                live.update(frame, refresh=True)
            else:
                console.print(frame)
                console.print()
    finally:
        if live is not None:
            live.stop()


def _write_json(
    report: StatusReport | None, error: str | None, stdout: TextIO, stderr: TextIO
) -> None:
    if error is not None or report is None:
        print(error, file=stderr, flush=True)
    else:
        print(json.dumps(status_document(report)), file=stdout, flush=True)


def _error(error: QuotactlError | None) -> str | None:
    return None if error is None else f"error[{error.code}]: {error.message}"


MAX_NAMES = 5


def watch_frame(
    console: Console,
    report: StatusReport | None,
    *,
    refreshed: float | None,
    interval: float,
    changes: Changes | None,
    error: str | None,
    failed_at: float | None = None,
    trend: Trend | None = None,
) -> RenderableType:
    """The view of the last good read, when it was taken, what changed, the last error, and
    the trend of each share's use over the refreshes so far."""
    every = f"every {interval:g}s, Ctrl-C to stop"
    when = _clock(refreshed) if refreshed is not None else "never"
    parts: list[RenderableType] = [
        Text.assemble(("quotactl status --watch", "bold"), f"  refreshed {when}  ({every})")
    ]
    if error is not None:
        at = _clock(failed_at) if failed_at is not None else "now"
        shown = f"showing the view of {when}" if report is not None else "nothing read yet"
        # What the view shows comes first: a long error may be cut at the terminal's width.
        parts.append(Text(f"refresh failed at {at} ({shown}; retrying): {error}", style="bold red"))
    if changes is not None:
        parts.append(change_line(changes))
    if report is not None:
        parts.append(status_view(console, report))
    if trend is not None and report is not None:
        parts += [Text(""), trend.view()]
    return Group(*parts)


def change_line(changes: Changes) -> Text:
    if changes.empty:
        return Text("Since the last refresh: no job started, finished or was preempted.")
    words = [
        _names(label, names)
        for label, names in (
            ("started", changes.started),
            ("finished", changes.finished),
            ("preempted", changes.preempted),
        )
        if names
    ]
    return Text("Since the last refresh: " + "; ".join(words) + ".")


def _names(label: str, names: tuple[str, ...]) -> str:
    shown = ", ".join(names[:MAX_NAMES])
    more = f" and {len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else ""
    return f"{len(names)} {label} ({shown}{more})"


def _clock(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%H:%M:%S UTC")
