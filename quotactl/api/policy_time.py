"""The instant and the usage a governed configuration is taken at: the account's clock, and
each budgeted team's counted hours in its period (``govern``, ``plan`` and ``apply`` share
them, so a merge-time apply never undoes a window or a budget in force)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from quotactl.errors import QuotactlError

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from pathlib import Path

    from quotactl.aws.account import Account
    from quotactl.core.govern.usage import Held
    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.resources.observed import LiveJob

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
    (those created since 28 days before the earliest period start) and ``history`` ledgers
    (for the jobs the account no longer lists)."""
    from quotactl.api.usage_figures import ledger_attempts
    from quotactl.core.govern.usage import budget_usage, period_start

    budgets = {t.name: t.budget for t in desired.teams if t.budget is not None}
    if not budgets:
        return {}
    earliest = min(period_start(b.every, now) for b in budgets.values())
    queues = sorted({s.queue for s in desired.shares if s.team in budgets})
    held, seen = _live_held(account, queues, earliest)
    if history:
        rows = [row for row in ledger_attempts(history) if row.job_id not in seen]
        held += _held(rows)
    return budget_usage(desired, held, now)


def _live_held(
    account: Account, queues: Sequence[str], since: datetime
) -> tuple[list[Held], set[str]]:
    """The instances each job of ``queues`` held, attempt by attempt, that may fall after
    ``since``. Only jobs that ever started and did not stop before ``since`` are described:
    a job still waiting for its first start, or done before the period, held nothing in it."""
    from quotactl.aws.job_history import job_history
    from quotactl.aws.ledger import tried
    from quotactl.core.govern.usage import Held
    from quotactl.core.states import JobStatus

    bound = since.timestamp()
    waiting = (JobStatus.SUBMITTED, JobStatus.RUNNABLE)

    def counts(job: LiveJob) -> bool:
        started = job.started_at is not None or job.status not in waiting
        return started and (job.stopped_at is None or job.stopped_at >= bound)

    held: list[Held] = []
    seen: set[str] = set()
    existing = [q for q in queues if _exists(account, q)]
    for job, detail in job_history(
        account.batch, existing, since=bound - LOOK_BACK.total_seconds(), describe=counts
    ):
        seen.add(job.job_id)
        if detail is None or not job.share or job.instance_type is None:
            continue
        count = job.instances.get(job.instance_type, 0)
        for attempt in tried(detail):
            if attempt.started_at is None:
                continue
            end = attempt.stopped_at
            held.append(
                Held(
                    share=f"share.{job.queue}/{job.share}",
                    instance_type=job.instance_type,
                    count=count,
                    start=datetime.fromtimestamp(attempt.started_at, UTC),
                    end=datetime.fromtimestamp(end, UTC) if end is not None else None,
                )
            )
    return held, seen


def _exists(account: Account, queue: str) -> bool:
    found = account.batch.call("DescribeJobQueues", jobQueues=[queue]).get("jobQueues") or []
    from quotactl.core.states import LifecycleStatus

    return any(q.get("status") != LifecycleStatus.DELETED for q in found)


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
