"""Time in the emulated account: the events that fall due, and nothing else.

Every row that changes by itself carries the time it next does (``due_at``: a job's phase
ending, its SUBMITTED step, a RUNNABLE time limit; a resource's CREATING/UPDATING/DELETING
step) and the account keeps the earliest of them (``next_due``). A request that finds nothing
due touches no job. When something is due, only the job queues with due jobs (and those a
request changed) are looked at, each through its engine (``engines.py``): its lifecycle
timers fire, due jobs step, one incremental scheduling pass runs, and the engine's decisions
are stored (``jobs.apply``). ``advance`` and ``catch_up`` walk emulated time from event to
event, so capacity a job frees at ``t`` is handed on at ``t``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.engine import reasons
from quotactl.core.states import HOLDING, JobStatus
from quotactl.emulator.account import engine_fields
from quotactl.emulator.account.models import JobQueue
from quotactl.emulator.scheduling import jobs, lifecycle
from quotactl.emulator.scheduling.context import EPSILON
from quotactl.emulator.scheduling.engines import environment_groups, share_capacity
from quotactl.errors import QuotactlError

if TYPE_CHECKING:
    from quotactl.emulator.account.service_job import ServiceJob
    from quotactl.emulator.scheduling.context import Context
    from quotactl.emulator.scheduling.engines import QueueState

MAX_STEPS_PER_INSTANT = 64  # a job takes at most 4 steps per instant; this is a safety net


def step(ctx: Context, *, stepped: bool) -> int:
    """One round at ``ctx.now``: due resource steps, then every queue with due jobs or
    changes. ``stepped`` (the end of a request): timers armed in this request wait for the
    next one, so a client sees every status. Returns how many jobs and resources changed."""
    changes = lifecycle.settle(ctx)
    tx = ctx.tx
    refs = set(tx.due_queues(ctx.now + EPSILON)) | ctx.queues
    if ctx.everything:
        ctx.engines.clear_queues()
        refs |= set(tx.queues_with_work())
    remodelled = {q.seq for name in ctx.remodel if (q := tx.get(JobQueue, name)) is not None}
    for ref in remodelled:
        ctx.engines.drop(ref)
    refs |= remodelled
    ctx.queues, ctx.remodel, ctx.everything = set(), set(), False
    for group in environment_groups(tx, refs):
        # every queue on the environment first frees what falls due, then each, in priority
        # order, schedules within what the others leave of the environment's capacity
        ready: list[tuple[QueueState, dict[str, ServiceJob]]] = []
        for ref in group:
            state = ctx.engines.get(tx, ref, ctx.now)
            if state is None:
                continue
            if ref in remodelled:  # its time limits may have changed
                for job in tx.jobs_with_reasons(ref):
                    tx.save_job(job, due_at(ctx, state, job))
            ready.append((state, _due(ctx, state, ref, stepped)))
        for state, due in ready:
            share_capacity(state, [peer for peer, _ in ready if peer is not state])
            if state.enabled:
                state.engine.schedule(ctx.now)
            changes += _store(ctx, state, due)
    return changes


def _due(ctx: Context, state: QueueState, ref: int, stepped: bool) -> dict[str, ServiceJob]:
    """Fire the queue's due timers and step its due jobs; returns the jobs looked at."""
    engine = state.engine
    engine.fire(ctx.now, armed_before=state.mark if stepped else None)
    due = {j.job_id: j for j in ctx.tx.due_jobs(ref, ctx.now + EPSILON)}
    for job in due.values():
        if job.status == JobStatus.SUBMITTED:
            if ctx.due(job.status_since, job.job_id):
                _submitted(ctx, state, job)
        elif job.status == JobStatus.RUNNABLE:
            limit = jobs.time_limit(job, state.queue)
            if limit is not None and ctx.due(limit[0], job.job_id):
                jobs.terminate(ctx, job, reasons.time_limit(limit[1]))
    return due


def _submitted(ctx: Context, state: QueueState, job: ServiceJob) -> None:
    """SUBMITTED -> RUNNABLE (the engine queues it), or FAILED if SageMaker would refuse it."""
    try:
        engine_fields.capacity_of(job.payload)
    except engine_fields.PayloadError as exc:
        jobs.stop(job, JobStatus.FAILED, reasons.SAGEMAKER + str(exc), ctx.now)
        ctx.tx.save_job(job, None)
        return
    state.engine.now = ctx.now
    try:
        state.engine.submit(state.job(job))
    except QuotactlError:  # its quota share is gone
        jobs.terminate(ctx, job, reasons.share_deleted(job.share or ""))


def _store(ctx: Context, state: QueueState, due: dict[str, ServiceJob]) -> int:
    """Store the engine's decisions, and the new due time of every job looked at."""
    transitions, state.engine.transitions = state.engine.transitions or [], []
    touched = dict(due)
    short: set[str] = set()  # jobs whose start found too few instances: nothing more happens
    for tr in transitions:
        job = touched.get(tr.job_id) or ctx.tx.job(tr.job_id)
        if job is not None and tr.job_id not in short:
            if tr.status is JobStatus.STARTING and ctx.short_of(job.capacity):
                jobs.capacity_failed(state, job, tr.at)
                short.add(tr.job_id)
            else:
                jobs.apply(ctx.account, job, tr)
            touched[tr.job_id] = job
    for job in touched.values():
        ctx.tx.save_job(job, due_at(ctx, state, job))
    return len(transitions)


def due_at(ctx: Context, state: QueueState, job: ServiceJob) -> float | None:
    """When the job's status next changes by itself (None: only a request changes it)."""
    if job.status == JobStatus.SUBMITTED:
        return job.status_since
    if job.status in HOLDING:
        live = state.engine.live(job.job_id)
        return None if live is None else state.engine.event_time(live)
    if job.status == JobStatus.RUNNABLE:
        if job.reserved_since is not None:  # it starts when its victims' window ends
            live = state.engine.live(job.job_id)
            if live is not None:
                return state.engine.event_time(live)
        limit = jobs.time_limit(job, state.queue)
        retry = jobs.capacity_retry_at(job)
        times = [t for t in (None if limit is None else limit[0], retry) if t is not None]
        return min(times, default=None)
    return None


def next_due(ctx: Context) -> float | None:
    """The earliest emulated time at which anything in the account changes by itself."""
    times = [ctx.tx.first_job_event()]
    settling = ctx.tx.first_settling()
    if settling is not None:
        times.append(settling + ctx.status_delay)
    return min((t for t in times if t is not None), default=None)


def catch_up(ctx: Context) -> int:
    """Before a request's handler: run what fell due before ``ctx.now``, each at its own time.

    Only a running clock (``local serve --speed``) leaves events behind between requests: a
    job that finished at ``t`` stops at ``t`` and frees its capacity at ``t``. What falls due
    at ``ctx.now`` itself waits for the end of the request (``ctx.strict``).
    """
    now = ctx.now
    ctx.now = 0.0
    changes = _walk(ctx, now - EPSILON, inclusive=False)
    ctx.now, ctx.strict = now, True
    return changes


def advance(ctx: Context, target: float) -> int:
    """Run every event between ``ctx.now`` and ``target`` in order; ends with now == target."""
    changes = _walk(ctx, target + EPSILON, inclusive=True)
    ctx.now = target
    return changes + step(ctx, stepped=False)


def _walk(ctx: Context, until: float, *, inclusive: bool) -> int:
    ctx.strict = False
    changes, steps_here, at = 0, 0, None
    while True:
        upcoming = next_due(ctx)
        if upcoming is None or upcoming > until or (upcoming == until and not inclusive):
            break
        if upcoming != at:
            at, steps_here = upcoming, 0
        steps_here += 1
        if steps_here > MAX_STEPS_PER_INSTANT:
            break
        ctx.now = max(ctx.now, upcoming)
        changes += step(ctx, stepped=False)
    return changes
