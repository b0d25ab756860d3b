"""``status`` and ``watch``: who uses, borrows and lends what, once or refreshed on a clock."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from quotactl.errors import QuotactlError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    from quotactl.aws.account import Account
    from quotactl.aws.session import Retries
    from quotactl.core.status.report import StatusReport
    from quotactl.core.status.watching import Refresh, StatusWatch

WATCH_RETRIES: Retries = {"mode": "standard", "max_attempts": 2}
"""A live view retries on its next refresh, so its calls give up sooner than apply's:
``connect(..., retries=WATCH_RETRIES)`` for an account that ``watch`` reads."""


def status(
    account: Account,
    queues: Sequence[str] | None = None,
    *,
    team: str | Sequence[str] | None = None,
    clock: Callable[[], float] = time.time,
) -> StatusReport:
    """The status of ``queues`` (default: every quota-managed queue), or of one team's shares."""
    from quotactl.core.status.compute import status_of

    return status_of(
        account.live.read_queues(list(queues) if queues else None), team=team, at=clock()
    )


def watch(
    account: Account,
    queues: Sequence[str] | None = None,
    *,
    team: str | Sequence[str] | None = None,
    interval: float = 5.0,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] = time.sleep,
) -> StatusWatch:
    """A refresh now and one every ``interval`` seconds after it, for ever (stop iterating to
    stop). A failed refresh keeps the last good report and carries its error; only a first
    read failing for a reason that is not transient (a queue that does not exist, missing
    permissions) raises."""
    from quotactl.core.status.watching import StatusWatch

    refreshes = _refreshes(account, queues, team=team, interval=interval, clock=clock, sleep=sleep)
    return StatusWatch(refreshes, interval)


def _refreshes(
    account: Account,
    queues: Sequence[str] | None,
    *,
    team: str | Sequence[str] | None,
    interval: float,
    clock: Callable[[], float],
    sleep: Callable[[float], None],
) -> Iterator[Refresh]:
    from quotactl.core.status.changes import changes
    from quotactl.core.status.compute import status_of
    from quotactl.core.status.watching import Refresh
    from quotactl.errors import BackendError

    wanted = list(queues) if queues else None
    last = None
    report: StatusReport | None = None
    refreshed: float | None = None
    while True:
        try:
            read = account.live.read_queues(wanted)
        except QuotactlError as exc:
            transient = isinstance(exc, BackendError) and exc.retryable
            if report is None and not transient:
                raise
            yield Refresh(report, refreshed, None, exc, clock())
        else:
            found = changes(last, read) if last is not None else None
            last = read
            report = status_of(read, team=team, at=clock())
            refreshed = clock()
            yield Refresh(report, refreshed, found)
        sleep(interval)
