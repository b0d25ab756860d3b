"""Resource status lifecycles: CREATING/UPDATING -> VALID, DELETING -> gone.

AWS documents the statuses but not the timing; the emulator completes each step at the
first request (or ``local advance`` step) at least ``status_delay`` emulated seconds after
it began, and never within the request that started it, so a client must really wait.
Deleting a quota share or job queue terminates its unfinished jobs ([API-DeleteQS]); a job
queue takes its remaining quota shares with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.emulator import jobs
from quotactl.emulator.models import (
    CREATING,
    DELETING,
    UPDATING,
    VALID,
    JobQueue,
    QuotaShare,
    Settling,
)

if TYPE_CHECKING:
    from quotactl.emulator.context import Context

QUEUE_HEALTHY = "JobQueue Healthy"


def settle(ctx: Context) -> bool:
    """Complete every due status step; True if anything changed."""
    changed = False
    for record in ctx.tx.settling():
        assert isinstance(record, Settling)
        if not ctx.due(record.status_since + ctx.status_delay, record.arn):
            continue
        changed = True
        if record.status in (CREATING, UPDATING):
            record.status = VALID
            record.status_since = ctx.now
            if isinstance(record, JobQueue):
                record.status_reason = QUEUE_HEALTHY
            ctx.tx.update(record)
        elif record.status == DELETING:
            remove(ctx, record)
    return changed


def remove(ctx: Context, record: Settling) -> None:
    """Delete a resource for good, terminating the jobs that depended on it."""
    if isinstance(record, QuotaShare):
        queue = ctx.tx.get(JobQueue, record.queue)
        if queue is not None:
            reason = f"Quota share {record.name} was deleted"
            for job in ctx.tx.jobs(queue_ref=queue.seq, share=record.name, newest_first=False):
                jobs.terminate(ctx, job, reason)
    elif isinstance(record, JobQueue):
        for share in ctx.tx.records(QuotaShare, parent=record.name):
            ctx.tx.delete(share)
        for job in ctx.tx.jobs(queue_ref=record.seq, newest_first=False):
            jobs.terminate(ctx, job, f"Job queue {record.name} was deleted")
    ctx.tx.delete(record)
    ctx.changed()


def next_due(ctx: Context) -> float | None:
    """The earliest emulated time at which a pending status step completes."""
    times = [
        r.status_since + ctx.status_delay
        for r in ctx.tx.settling()
        if isinstance(r, Settling) and r.status in (CREATING, UPDATING, DELETING)
    ]
    return min(times, default=None)
