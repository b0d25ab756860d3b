"""``status --watch``: one frame of the live view (header, change line, error) around the
status view, redrawn in place by rich ``Live``."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from rich.console import Group
from rich.text import Text

from quotactl.render.status import status_view

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

    from quotactl.core.status.changes import Changes
    from quotactl.core.status.report import StatusReport

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
) -> RenderableType:
    """The view of the last good read, when it was taken, what changed, the last error."""
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
