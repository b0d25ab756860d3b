"""``status --watch`` as a value: the refreshes of a live view, each as it is read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

    from quotactl.core.status.changes import Changes
    from quotactl.core.status.report import StatusReport
    from quotactl.errors import QuotactlError


@dataclass(frozen=True)
class Refresh:
    """One refresh of a watch: the last good report (None before the first), when it was
    read, what changed since the read before it, and this refresh's error, if it failed."""

    report: StatusReport | None
    refreshed: float | None
    changes: Changes | None
    error: QuotactlError | None = None
    failed_at: float | None = None


@dataclass(frozen=True)
class StatusWatch:
    """A live view: ``refreshes`` come one every ``interval`` seconds until the reader stops
    (an endless iterator; Ctrl-C ends the command's)."""

    refreshes: Iterator[Refresh]
    interval: float

    def __iter__(self) -> Iterator[Refresh]:
        return self

    def __next__(self) -> Refresh:
        return next(self.refreshes)
