"""Service jobs between the stored record and the scheduling engine: translation only.

The lifecycle is the engine's (``quotactl.core.engine``): RUNNABLE -> SCHEDULED -> STARTING
-> RUNNING -> SUCCEEDED, FAILED or RUNNABLE again, preemption and its retry budget. This module
turns a stored ``ServiceJob`` into an engine ``Job`` (``engine_job``) and an engine
``Transition`` into the stored job's status, attempts, times and preemption summary
(``apply``). What AWS adds around the engine is here too: SageMaker's request (instances,
run time), the retry strategy of failed attempts, and termination. The full account of the
lifecycle and its timing is in docs/emulator.md, "Service jobs".
"""

from __future__ import annotations

import json
import secrets
from typing import TYPE_CHECKING, Any

from quotactl.core.engine import reasons, timeouts
from quotactl.core.states import FINAL, HOLDING, JobStatus
from quotactl.core.transitions import transition
from quotactl.emulator.account.service_job import Attempt

if TYPE_CHECKING:
    from collections.abc import Callable

    from quotactl.core.engine import Transition
    from quotactl.emulator.account.arns import Account
    from quotactl.emulator.account.models import JobQueue
    from quotactl.emulator.account.service_job import ServiceJob
    from quotactl.emulator.scheduling.context import Context
    from quotactl.emulator.scheduling.engines import QueueState


RECENT_PREEMPTIONS = 5  # recentPreemptedAttempts window (AWS does not say)
CAPACITY_RETRY_SECONDS = 60.0
"""How long a job that found too few instances waits before Batch tries again (AWS retries
"until capacity becomes available" and does not say how often: the emulator's choice)."""
_RUNNABLE = JobStatus.RUNNABLE


def apply(account: Account, job: ServiceJob, tr: Transition) -> None:
    """Store one engine decision on the job: status, times, attempts, preemption summary.

    The change itself is ``quotactl.core.transitions.transition`` (an edge the table lacks
    raises); what the emulator records beside it depends on the status the job enters."""
    if job.status in FINAL:
        return  # terminated meanwhile
    if tr.window is not None:
        _window(job, tr)
    elif tr.preempted_attempt is not None:
        _preempted(job, tr)
    else:
        _ENTER[tr.status](account, job, tr)


def _window(job: ServiceJob, tr: Transition) -> None:
    """A window opens; the job keeps its status. A victim is RUNNING (or SCHEDULED, STARTING)
    with statusReason ``PREEMPTION_IN_PROGRESS: ...`` until it leaves; the job it is preempted
    for stays RUNNABLE with the capacity reserved; a terminated job carries isTerminated."""
    if tr.window == "reserved":
        job.reserved_since = tr.at
        return
    job.stopping_since = tr.at
    if tr.window == "terminating":
        job.is_terminated = True
        job.stop_reason = tr.reason
    elif tr.preempted_attempt is not None:
        job.preempted_by = tr.preempted_attempt.preempted_by
    if tr.reason != job.status_reason:
        job.status_reason, job.reason_since = tr.reason, tr.at


def _closed(job: ServiceJob) -> None:
    """Whatever window the job was in has ended."""
    job.stopping_since = job.preempted_by = job.stop_reason = job.reserved_since = None


def _preempted(job: ServiceJob, tr: Transition) -> None:
    """A holding job preempted: RUNNABLE again, or FAILED with its retries spent."""
    assert tr.preempted_attempt is not None
    _closed(job)
    attempt = job.attempts[-1]
    attempt.stopped_at, attempt.status_reason = tr.at, tr.preempted_attempt.status_reason
    job.preempted_count += 1
    recent = [Attempt(**vars(attempt)), *job.recent_preempted]
    job.recent_preempted = recent[:RECENT_PREEMPTIONS]
    job.running_since = None
    if tr.status is JobStatus.FAILED:
        # "A job will be terminated when preemption retries have been exhausted" (botocore's
        # ServiceJobPreemptionConfiguration): AWS terminates it, so it carries isTerminated.
        job.stopped_at, job.is_terminated = tr.at, True
    _set_status(job, tr.status, tr.reason, tr.at)


def _scheduled(account: Account, job: ServiceJob, tr: Transition) -> None:
    _closed(job)
    if job.status_reason == reasons.INSUFFICIENT_CAPACITY:  # the wait counts toward time limits
        job.capacity_wait += tr.at - job.reason_since
    # The job's times are those of its latest attempt, which has not started yet.
    job.scheduled_at, job.started_at, job.stopped_at = tr.at, None, None
    name = f"AWSBatch{job.name[:23]}{secrets.token_hex(16)}"  # 63 characters at most
    job.attempts.append(Attempt(account.training_job_arn(name)))
    _set_status(job, tr.status, None, tr.at)


def _starting(account: Account, job: ServiceJob, tr: Transition) -> None:
    job.started_at = job.attempts[-1].started_at = tr.at
    _set_status(job, tr.status, None, tr.at)


def _running(account: Account, job: ServiceJob, tr: Transition) -> None:
    job.running_since = tr.at
    _set_status(job, tr.status, None, tr.at)


def _succeeded(account: Account, job: ServiceJob, tr: Transition) -> None:
    stop(job, tr.status, None, tr.at)


def _failed(account: Account, job: ServiceJob, tr: Transition) -> None:
    """An attempt failed (its run time or timeout is over): FAILED, or RUNNABLE to retry; or
    a terminated job's window ended (not a failed attempt: retryStrategy does not count it)."""
    if job.stopping_since is None:
        job.failed_attempts += 1
    _closed(job)
    stop(job, tr.status, tr.reason, tr.at)
    if tr.status is _RUNNABLE:
        job.stopped_at = None  # retried


def _runnable(account: Account, job: ServiceJob, tr: Transition) -> None:
    if job.status in HOLDING:
        _failed(account, job, tr)
    elif job.status == _RUNNABLE:  # only the statusReason changes
        if tr.reason != job.status_reason:
            job.status_reason, job.reason_since = tr.reason, tr.at
    else:
        _set_status(job, tr.status, tr.reason, tr.at)


_ENTER: dict[JobStatus, Callable[[Account, ServiceJob, Transition], None]] = {
    JobStatus.RUNNABLE: _runnable,
    JobStatus.SCHEDULED: _scheduled,
    JobStatus.STARTING: _starting,
    JobStatus.RUNNING: _running,
    JobStatus.SUCCEEDED: _succeeded,
    JobStatus.FAILED: _failed,
}
"""What the emulator records when an engine decision moves a job into each status."""


def _set_status(job: ServiceJob, status: JobStatus, reason: str | None, at: float) -> None:
    if reason != job.status_reason:
        job.reason_since = at
    transition(job, status, reason, at)


def stop(job: ServiceJob, status: JobStatus, reason: str | None, at: float) -> None:
    """The current attempt (if one runs) ends with ``reason``; the job becomes ``status``."""
    if job.attempts and job.attempts[-1].stopped_at is None and job.status in HOLDING:
        job.attempts[-1].stopped_at = at
        job.attempts[-1].status_reason = reason
    job.stopped_at = at
    job.running_since = None
    _set_status(job, status, reason, at)


def capacity_failed(state: QueueState, job: ServiceJob, at: float) -> None:
    """SageMaker found too few instances for the attempt: the job goes back to RUNNABLE with
    AWS's CAPACITY reason, and Batch tries again later. AWS: "AWS Batch retries the job
    automatically until capacity becomes available", "These capacity-based retries don't
    consume your configured retry attempts", and only the newest such training job is kept
    (https://docs.aws.amazon.com/batch/latest/userguide/service-job-retries.html)."""
    attempt = job.attempts[-1]
    attempt.stopped_at, attempt.status_reason = at, reasons.INSUFFICIENT_CAPACITY
    earlier = job.attempts[-2] if len(job.attempts) > 1 else None
    if earlier is not None and earlier.status_reason == reasons.INSUFFICIENT_CAPACITY:
        del job.attempts[-2]  # the older failed training job is deleted
    job.capacity_wait += at - (job.scheduled_at if job.scheduled_at is not None else at)
    job.stopped_at, job.running_since = None, None
    _set_status(job, _RUNNABLE, reasons.INSUFFICIENT_CAPACITY, at)
    state.engine.remove(job.job_id)
    state.engine.now = at
    state.engine.submit(state.job(job))


def capacity_retry_at(job: ServiceJob) -> float | None:
    """When Batch next tries to start a job that found too few instances."""
    if job.status != _RUNNABLE or job.status_reason != reasons.INSUFFICIENT_CAPACITY:
        return None
    return job.reason_since + CAPACITY_RETRY_SECONDS


def time_limit(job: ServiceJob, queue: JobQueue) -> tuple[float, str] | None:
    """When a queue's jobStateTimeLimitActions terminates this RUNNABLE job, and why.

    For insufficient capacity the time the job already waited for instances counts too (each
    earlier RUNNABLE spell with that reason, and the SCHEDULED time of each attempt that
    found too few instances). AWS: "the time the corresponding AWS Batch job spent in
    SCHEDULED between job submission and failure accumulates between job submissions for
    comparison against maxTimeSeconds"
    (https://docs.aws.amazon.com/batch/latest/userguide/sm_job_stuck_in_runnable_capacity.html).
    """
    if job.status != _RUNNABLE or not job.status_reason:
        return None
    limits = [
        (str(a["reason"]), float(a["maxTimeSeconds"])) for a in queue.job_state_time_limit_actions
    ]
    found = timeouts.deadline(job.status_reason, job.reason_since, limits)
    if found is None:
        return None
    counted = job.capacity_wait if job.status_reason.startswith("CAPACITY:") else 0.0
    return found[0] - counted, found[1]


def terminate(ctx: Context, job: ServiceJob, reason: str, *, stopping: bool = False) -> bool:
    """Any unfinished job -> FAILED with isTerminated (a finished job is left as it is).

    ``stopping`` (TerminateServiceJob): a job that holds instances keeps them and its status
    for the termination window, with isTerminated and ``reason`` at once, and is FAILED at the
    window's end (the engine's ``terminate``); a job in its preemption window ends FAILED at
    that window's end."""
    if job.status in FINAL:
        return False
    if job.status != JobStatus.SUBMITTED:
        state = ctx.engines.get(ctx.tx, job.queue_ref, ctx.now)
        if state is not None and state.engine.live(job.job_id) is not None:
            ctx.changed(job.queue_ref)
            if stopping:
                state.engine.now = ctx.now
                end = state.engine.terminate(job.job_id, reason)
                if end is not None:
                    if job.stopping_since is None:
                        job.stopping_since = ctx.now
                        job.status_reason, job.reason_since = reason, ctx.now
                    job.stop_reason = job.stop_reason or reason
                    job.is_terminated = True
                    ctx.tx.save_job(job, end)
                    return True
            else:
                state.engine.remove(job.job_id)
    _closed(job)
    job.is_terminated = True
    stop(job, JobStatus.FAILED, reason, ctx.now)
    ctx.tx.save_job(job, None)
    return True


def describe_request(job: dict[str, Any]) -> str:
    """A stable digest of a SubmitServiceJob request (clientToken idempotency)."""
    return json.dumps(job, sort_keys=True, separators=(",", ":"))
