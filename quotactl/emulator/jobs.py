"""The service-job state machine: the one place a job's status changes.

    SUBMITTED -> RUNNABLE -> SCHEDULED -> STARTING -> RUNNING -> SUCCEEDED | FAILED
                    ^------- preempted ------'---------'

Steps SUBMITTED->RUNNABLE, SCHEDULED->STARTING and STARTING->RUNNING take one status delay
each (at least the next request); RUNNABLE->SCHEDULED and preemption back to RUNNABLE are
the scheduler's ``Decision`` values; RUNNING ends when the job's duration is over: its tag
``quotactl:duration`` if present, else ``StoppingCondition.MaxRuntimeInSeconds``, else
SageMaker's default of one day. Termination (TerminateServiceJob, a deleted share or queue,
a queue's jobStateTimeLimitActions) moves any unfinished job to FAILED at once.
"""

from __future__ import annotations

import fnmatch
import json
import secrets
from typing import TYPE_CHECKING, Any

from quotactl.core.durations import DurationError, parse_duration
from quotactl.emulator.models import (
    ACTIVE,
    ENABLED,
    FAILED,
    RUNNABLE,
    RUNNING,
    SCHEDULED,
    STARTING,
    SUBMITTED,
    SUCCEEDED,
    TERMINAL,
    Attempt,
    JobQueue,
    QuotaShare,
    ServiceEnvironment,
    ServiceJob,
)
from quotactl.emulator.scheduling import (
    Decision,
    Dispatch,
    Hold,
    JobView,
    Preempt,
    QueueView,
    ShareView,
)
from quotactl.emulator.validate import training_request

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from quotactl.emulator.context import Context

DURATION_TAG = "quotactl:duration"
DEFAULT_MAX_RUNTIME = 86_400.0  # SageMaker's default StoppingCondition
RECENT_PREEMPTIONS = 5  # recentPreemptedAttempts window (UNCONFIRMED in AWS's docs)
SAGEMAKER_PREFIX = "Received status from SageMaker: "
MAX_RUNTIME_EXCEEDED = (
    SAGEMAKER_PREFIX + "MaxRuntimeExceeded: Training job runtime exceeded MaxRuntimeInSeconds"
)
ATTEMPT_TIMEOUT = "Job attempt duration exceeded timeout"
TIME_LIMIT = "Terminated by JobStateTimeLimit action due to reason: "
_CLEARED_PREFIXES = ("MISCONFIGURATION:", "CAPACITY:")


class PayloadError(ValueError):
    """A serviceRequestPayload SageMaker would refuse: the job fails when it is dispatched."""


def capacity_of(payload: str) -> dict[str, int]:
    """Instances per instance type a CreateTrainingJob request asks for.

    ``ResourceConfig.InstanceType`` x ``InstanceCount``; heterogeneous clusters
    (``InstanceGroups``) count each group's instances against its own type.
    """
    try:
        request = training_request(payload)
        resources = request["ResourceConfig"]
        groups = resources.get("InstanceGroups") or [resources]
        capacity: dict[str, int] = {}
        for group in groups:
            unit, count = str(group["InstanceType"]), int(group["InstanceCount"])
            if count < 1:
                raise PayloadError(f"InstanceCount must be at least 1, got {count}")
            capacity[unit] = capacity.get(unit, 0) + count
        return capacity
    except PayloadError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise PayloadError(
            "ValidationException: serviceRequestPayload is not a CreateTrainingJob request "
            f"with ResourceConfig.InstanceType and InstanceCount ({exc!r})"
        ) from exc


def runtime_of(payload: str, tags: Mapping[str, str]) -> tuple[float, float | None]:
    """(seconds the training runs, MaxRuntimeInSeconds or None) for a job."""
    max_runtime: float | None = None
    try:
        stopping = training_request(payload).get("StoppingCondition") or {}
        if stopping.get("MaxRuntimeInSeconds") is not None:
            max_runtime = float(stopping["MaxRuntimeInSeconds"])
    except (ValueError, AttributeError, TypeError):
        max_runtime = None
    if DURATION_TAG in tags:
        try:
            return parse_duration(tags[DURATION_TAG]), max_runtime
        except DurationError:
            pass
    return (max_runtime if max_runtime is not None else DEFAULT_MAX_RUNTIME), max_runtime


def attempt_limit(job: ServiceJob) -> tuple[float, str | None]:
    """How long the RUNNING phase lasts and, if it is cut short, the failure reason."""
    length, reason = job.run_for, None
    if job.max_runtime is not None and job.max_runtime < length:
        length, reason = job.max_runtime, MAX_RUNTIME_EXCEEDED
    timeout = (job.timeout_config or {}).get("attemptDurationSeconds")
    if timeout is not None and float(timeout) < length:
        length, reason = float(timeout), ATTEMPT_TIMEOUT
    return length, reason


def training_job_arn(ctx: Context, job: ServiceJob) -> str:
    """A new SageMaker training job per attempt: ``AWSBatch<jobName><32 hex>`` (63 max)."""
    return ctx.account.training_job_arn(f"AWSBatch{job.name[:23]}{secrets.token_hex(16)}")


def _set_status(ctx: Context, job: ServiceJob, status: str, reason: str | None) -> None:
    job.status = status
    job.status_since = ctx.now
    if reason != job.status_reason:
        job.reason_since = ctx.now
    job.status_reason = reason


def _stop(ctx: Context, job: ServiceJob, status: str, reason: str | None) -> None:
    if job.attempts and job.attempts[-1].stopped_at is None and job.status in ACTIVE:
        job.attempts[-1].stopped_at = ctx.now
        job.attempts[-1].status_reason = reason
    job.stopped_at = ctx.now
    job.running_since = None
    _set_status(ctx, job, status, reason)


def terminate(ctx: Context, job: ServiceJob, reason: str) -> bool:
    """Any unfinished job -> FAILED with isTerminated (a finished job is left as it is)."""
    if job.status in TERMINAL:
        return False
    job.is_terminated = True
    _stop(ctx, job, FAILED, reason)
    ctx.tx.save_job(job)
    ctx.changed()
    return True


def _retry_allowed(job: ServiceJob, reason: str) -> bool:
    strategy = job.retry_strategy or {}
    if job.failed_attempts >= int(strategy.get("attempts", 1)):
        return False
    for rule in strategy.get("evaluateOnExit") or []:
        if fnmatch.fnmatchcase(reason, str(rule.get("onStatusReason", "*"))):
            return str(rule.get("action", "")).upper() == "RETRY"
    return True


def _finish(ctx: Context, job: ServiceJob) -> None:
    _, reason = attempt_limit(job)
    if reason is None:
        _stop(ctx, job, SUCCEEDED, None)
        return
    job.failed_attempts += 1
    _stop(ctx, job, FAILED, reason)
    if _retry_allowed(job, reason):
        job.stopped_at = None
        _set_status(ctx, job, RUNNABLE, reason)


def advance_job(ctx: Context, job: ServiceJob, queue: JobQueue | None) -> bool:
    """One time-driven step for ``job`` if it is due; True if its status changed."""
    due = ctx.due(job.status_since + ctx.status_delay, job.job_id)
    if job.status == SUBMITTED and due:
        try:
            capacity_of(job.payload)
        except PayloadError as exc:
            _stop(ctx, job, FAILED, SAGEMAKER_PREFIX + str(exc))
            return True
        _set_status(ctx, job, RUNNABLE, None)
    elif job.status == SCHEDULED and due:
        job.started_at = ctx.now
        job.attempts[-1].started_at = ctx.now
        _set_status(ctx, job, STARTING, None)
    elif job.status == STARTING and due:
        job.running_since = ctx.now
        _set_status(ctx, job, RUNNING, None)
    elif job.status == RUNNING and job.running_since is not None:
        if not ctx.due(job.running_since + attempt_limit(job)[0], job.job_id):
            return False
        _finish(ctx, job)
    elif job.status == RUNNABLE and queue is not None:
        deadline = time_limit(job, queue)
        if deadline is None or not ctx.due(deadline[0], job.job_id):
            return False
        job.is_terminated = True
        _stop(ctx, job, FAILED, TIME_LIMIT + deadline[1])
    else:
        return False
    return True


def time_limit(job: ServiceJob, queue: JobQueue) -> tuple[float, str] | None:
    """When a queue's jobStateTimeLimitActions terminates this RUNNABLE job, and why."""
    if job.status != RUNNABLE or not job.status_reason:
        return None
    for action in queue.job_state_time_limit_actions:
        if job.status_reason.startswith(str(action["reason"])):
            return job.reason_since + float(action["maxTimeSeconds"]), str(action["reason"])
    return None


def next_due(
    ctx: Context, jobs: Iterable[ServiceJob], queues: Mapping[int, JobQueue]
) -> float | None:
    """The earliest emulated time at which one of ``jobs`` moves on by itself."""
    times: list[float] = []
    for job in jobs:
        if job.status in (SUBMITTED, SCHEDULED, STARTING):
            times.append(job.status_since + ctx.status_delay)
        elif job.status == RUNNING and job.running_since is not None:
            times.append(job.running_since + attempt_limit(job)[0])
        elif job.status == RUNNABLE and job.queue_ref in queues:
            deadline = time_limit(job, queues[job.queue_ref])
            if deadline is not None:
                times.append(deadline[0])
    return min(times, default=None)


def view_of(ctx: Context, queue: JobQueue, jobs: Sequence[ServiceJob]) -> QueueView:
    """The scheduler's input for one queue."""
    environment = ctx.tx.get(ServiceEnvironment, queue.environment) if queue.environment else None
    shares = tuple(
        ShareView(
            name=s.name,
            limits=s.capacity,
            strategy=s.strategy,
            borrow_limit=-1 if s.borrow_limit is None else s.borrow_limit,
            in_share_preemption=s.in_share_preemption == ENABLED,
            enabled=s.state == ENABLED,
        )
        for s in ctx.tx.records(QuotaShare, parent=queue.name)
    )
    return QueueView(
        name=queue.name,
        quota_managed=queue.quota_managed,
        capacity=environment.capacity if environment else {},
        environment_enabled=environment is not None and environment.state == ENABLED,
        shares=shares,
        jobs=tuple(
            JobView(
                job_id=j.job_id,
                share=j.share,
                status=j.status,
                priority=j.priority or 0,
                capacity=j.capacity,
                order=j.seq,
                submitted_at=j.created_at,
                started_at=j.scheduled_at if j.status in ACTIVE else None,
                duration=j.run_for,
                status_reason=j.status_reason,
                preemption_retries=preemption_retries(j),
                preemptions=j.preempted_count,
            )
            for j in jobs
            if j.status == RUNNABLE or j.status in ACTIVE
        ),
    )


def apply(ctx: Context, decisions: Sequence[Decision], jobs: Mapping[str, ServiceJob]) -> bool:
    """Carry out a scheduler's decisions; True if any job changed."""
    changed = False
    held: set[str] = set()
    for decision in decisions:
        job = jobs.get(decision.job_id)
        if job is None:
            continue
        if isinstance(decision, Dispatch) and job.status == RUNNABLE:
            # The job's times are those of its latest attempt, which has not started yet.
            job.scheduled_at, job.started_at, job.stopped_at = ctx.now, None, None
            job.attempts.append(Attempt(training_job_arn(ctx, job)))
            _set_status(ctx, job, SCHEDULED, None)
        elif isinstance(decision, Preempt) and job.status in ACTIVE:
            _preempt(ctx, job, decision.reason)
        elif isinstance(decision, Hold) and job.status == RUNNABLE:
            held.add(job.job_id)
            if job.status_reason == decision.reason:
                continue
            _set_status(ctx, job, RUNNABLE, decision.reason)
        else:
            continue
        changed = True
        ctx.tx.save_job(job)
    for job in jobs.values():
        reason = job.status_reason or ""
        if (
            job.status == RUNNABLE
            and job.job_id not in held
            and reason.startswith(_CLEARED_PREFIXES)
        ):
            _set_status(ctx, job, RUNNABLE, None)
            ctx.tx.save_job(job)
            changed = True
    return changed


def _preempt(ctx: Context, job: ServiceJob, reason: str) -> None:
    attempt = job.attempts[-1]
    attempt.stopped_at, attempt.status_reason = ctx.now, reason
    job.preempted_count += 1
    job.recent_preempted = [Attempt(**vars(attempt)), *job.recent_preempted][:RECENT_PREEMPTIONS]
    retries = preemption_retries(job)
    job.running_since = None
    if retries is not None and job.preempted_count > retries:
        job.stopped_at = ctx.now
        _set_status(ctx, job, FAILED, retries_exhausted(retries, reason))
    else:
        _set_status(ctx, job, RUNNABLE, reason)


def preemption_retries(job: ServiceJob) -> int | None:
    """The job's ``preemptionRetriesBeforeTermination`` (None: requeued however often)."""
    retries = (job.preemption_configuration or {}).get("preemptionRetriesBeforeTermination")
    return None if retries is None else int(retries)


def retries_exhausted(retries: int, reason: str) -> str:
    """statusReason of a job FAILED by its last allowed preemption.

    AWS publishes no text for it; this is the engine's wording (``quotactl.core.engine``), so
    the emulator and ``simulate`` say the same thing.
    """
    budget = f"preemptionRetriesBeforeTermination={retries}"
    return f"Terminated after preemption: {budget} used up. {reason}"


def describe_request(job: dict[str, Any]) -> str:
    """A stable digest of a SubmitServiceJob request (clientToken idempotency)."""
    return json.dumps(job, sort_keys=True, separators=(",", ":"))
