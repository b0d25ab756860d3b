"""Resource status lifecycles: CREATING/UPDATING -> VALID, DELETING -> gone.

AWS documents the statuses but not the timing; the emulator completes each step at the
first request (or ``local advance`` step) at least ``status_delay`` emulated seconds after
it began, and never within the request that started it, so a client must really wait.
Deleting a quota share or job queue terminates its unfinished jobs (as AWS's DeleteQuotaShare
reference says); a job queue takes its remaining quota shares with it. The steps are events
that fall due as time moves, so ``tick`` takes them, before the jobs' own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.engine import reasons
from quotactl.core.states import SETTLING, UNFINISHED, LifecycleStatus
from quotactl.core.transitions import transition_resource
from quotactl.emulator.account.models import JobQueue, QuotaShare, Settling
from quotactl.emulator.scheduling import jobs
from quotactl.emulator.scheduling.context import EPSILON

if TYPE_CHECKING:
    from quotactl.emulator.scheduling.context import Context

QUEUE_HEALTHY = "JobQueue Healthy"


def settle(ctx: Context) -> int:
    """Complete every due status step; returns how many resources changed."""
    changed = 0
    for record in ctx.tx.settling(ctx.now - ctx.status_delay + EPSILON):
        assert isinstance(record, Settling)
        if not ctx.due(record.status_since + ctx.status_delay, record.arn):
            continue
        changed += 1
        if record.status in SETTLING:
            transition_resource(record, LifecycleStatus.VALID, ctx.now)
            if isinstance(record, JobQueue):
                record.status_reason = QUEUE_HEALTHY
            ctx.tx.update(record)
        elif record.status == LifecycleStatus.DELETING:
            transition_resource(record, LifecycleStatus.DELETED, ctx.now)
            remove(ctx, record)
    return changed


def remove(ctx: Context, record: Settling) -> None:
    """Delete a resource for good, terminating the jobs that depended on it."""
    if isinstance(record, QuotaShare):
        queue = ctx.tx.get(JobQueue, record.queue)
        if queue is not None:
            reason = reasons.share_deleted(record.name)
            unfinished = ctx.tx.jobs(
                queue_ref=queue.seq, statuses=UNFINISHED, share=record.name, newest_first=False
            )
            for job in unfinished:
                jobs.terminate(ctx, job, reason)
    elif isinstance(record, JobQueue):
        for share in ctx.tx.records(QuotaShare, parent=record.name):
            ctx.tx.delete(share)
        reason = reasons.queue_deleted(record.name)
        for job in ctx.tx.jobs(queue_ref=record.seq, statuses=UNFINISHED, newest_first=False):
            jobs.terminate(ctx, job, reason)
    ctx.tx.delete(record)
    ctx.changed()
