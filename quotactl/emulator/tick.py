"""Time in the emulated account: ``tick`` per request, ``advance`` for ``local advance``.

A tick completes due status steps, moves jobs on, then lets the scheduler decide for every
queue with work. It runs only when the stored ``next_due`` time has come, so a request that
finds nothing due costs one row read. ``advance`` and ``catch_up`` walk emulated time from
event to event (every job that would finish, start or time out in between does so, in order,
at its own time).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.emulator import jobs, lifecycle
from quotactl.emulator.context import EPSILON
from quotactl.emulator.models import RUNNABLE, JobQueue, ServiceJob

if TYPE_CHECKING:
    from quotactl.emulator.context import Context

MAX_STEPS_PER_INSTANT = 64  # a job takes at most 4 steps per instant; this is a safety net


def due(ctx: Context, next_due: float | None) -> bool:
    if next_due is None:
        return False
    if ctx.strict:
        return next_due < ctx.now - EPSILON
    return next_due <= ctx.now + EPSILON


def tick(ctx: Context) -> int:
    """One pass at ``ctx.now``; returns how many resources and jobs changed."""
    changes = int(lifecycle.settle(ctx))
    queues = {q.seq: q for q in ctx.tx.records(JobQueue)}
    unfinished = ctx.tx.unfinished_jobs()
    for job in unfinished:
        if jobs.advance_job(ctx, job, queues.get(job.queue_ref)):
            ctx.tx.save_job(job)
            changes += 1
    by_queue: dict[int, list[ServiceJob]] = {}
    for job in unfinished:
        by_queue.setdefault(job.queue_ref, []).append(job)
    for ref, queue_jobs in by_queue.items():
        queue = queues.get(ref)
        if queue is None or not any(j.status == RUNNABLE for j in queue_jobs):
            continue
        view = jobs.view_of(ctx, queue, queue_jobs)
        decisions = ctx.scheduler.schedule(view, ctx.now)
        if jobs.apply(ctx, decisions, {j.job_id: j for j in queue_jobs}):
            changes += 1
    pending = [
        t
        for t in (lifecycle.next_due(ctx), jobs.next_due(ctx, unfinished, queues))
        if t is not None
    ]
    ctx.tx.set_next_due(min(pending, default=None))
    return changes


def catch_up(ctx: Context) -> int:
    """Before a request's handler: run what fell due before ``ctx.now``, each at its own time.

    Only a running clock (``local serve --speed``) leaves events behind between requests: a
    job that finished at ``t`` stops at ``t`` and frees its capacity at ``t``. What falls due
    at ``ctx.now`` itself waits for the end of the request (``ctx.strict``).
    """
    now, changes, steps_here, at = ctx.now, 0, 0, None
    ctx.strict = False
    while True:
        _, _, _, next_due = ctx.tx.account_row()
        if next_due is None or next_due >= now - EPSILON:
            break
        if next_due != at:
            at, steps_here = next_due, 0
        steps_here += 1
        if steps_here > MAX_STEPS_PER_INSTANT:
            break
        ctx.now = next_due
        changes += tick(ctx)
    ctx.now, ctx.strict = now, True
    return changes


def advance(ctx: Context, target: float) -> int:
    """Run every tick between ``ctx.now`` and ``target`` in order; ends with now == target."""
    changes = 0
    steps_here = 0
    while True:
        _, _, _, next_due = ctx.tx.account_row()
        if next_due is None or next_due > target + EPSILON:
            break
        if next_due > ctx.now:
            ctx.now, steps_here = next_due, 0
        steps_here += 1
        if steps_here > MAX_STEPS_PER_INSTANT:
            break
        changes += tick(ctx)
    ctx.now = target
    return changes
