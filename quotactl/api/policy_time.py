"""The instant and the usage a governed configuration is taken at: the account's clock, and
each budgeted team's counted hours in its period (``govern``, ``plan`` and ``apply`` share
them, so a merge-time apply never undoes a window or a budget in force)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from quotactl.errors import NotFoundError, QuotactlError

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from pathlib import Path

    from quotactl.aws.account import Account
    from quotactl.core.govern.usage import Held
    from quotactl.core.resources.desired import DesiredState

LOOK_BACK = timedelta(days=28)
"""Jobs read for a budget start this long before its period: a SageMaker training job runs 28
days at most, so one created earlier can hardly have held instances in the period."""


def account_now(account: Account, queues: Sequence[str]) -> datetime:
    """The account's clock (GetJobQueueSnapshot's answer time: the emulator's clock, AWS's
    ``Date`` header) through the first of ``queues`` that answers; this machine's clock when
    none does (a queue still to be created)."""
    import time

    from quotactl.aws.responses import snapshot_time

    for queue in queues:
        try:
            found = snapshot_time(account.batch.call("GetJobQueueSnapshot", jobQueue=queue))
        except QuotactlError:
            continue
        if found is not None:
            return datetime.fromtimestamp(found, UTC)
    return datetime.fromtimestamp(time.time(), UTC)


def account_usage(
    account: Account, desired: DesiredState, now: datetime, history: Sequence[Path] = ()
) -> dict[str, dict[str, float]]:
    """Each budgeted team's counted hours in its current period, from the account's jobs
    (those created since 28 days before the earliest period start) and ``history`` ledgers."""
    from quotactl.api.usage_figures import ledger_attempts, live_attempts
    from quotactl.core.govern.usage import budget_usage, period_start
    from quotactl.core.history.ledger import merge

    budgets = [t.budget for t in desired.teams if t.budget is not None]
    if not budgets:
        return {}
    earliest = min(period_start(b.every, now) for b in budgets)
    try:
        rows = live_attempts(account, (earliest - LOOK_BACK).timestamp())
    except NotFoundError:  # no queue yet (a first apply): no job has run
        rows = []
    if history:
        rows = merge(ledger_attempts(history), rows)
    return budget_usage(desired, _held(rows), now)


def _held(rows: Iterable[Any]) -> list[Held]:
    from quotactl.core.govern.usage import Held

    return [
        Held(
            share=f"share.{row.queue}/{row.share}",
            instance_type=row.instance_type,
            count=row.count,
            start=row.started_at,
            end=row.stopped_at,
        )
        for row in rows
        if row.started_at is not None and row.share and row.instance_type
    ]
