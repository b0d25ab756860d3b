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

import fnmatch
import json
import secrets
from typing import TYPE_CHECKING, Any

from quotactl.core.durations import DurationError, parse_duration
from quotactl.core.engine import Job, reasons
from quotactl.core.states import FINAL, HOLDING, JobStatus
from quotactl.core.transitions import transition
from quotactl.emulator.account.models import NUM_INSTANCES
from quotactl.emulator.account.rules import training_request
from quotactl.emulator.account.service_job import Attempt

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from quotactl.core.engine import Transition
    from quotactl.emulator.account.arns import Account
    from quotactl.emulator.account.context import Context
    from quotactl.emulator.account.models import JobQueue
    from quotactl.emulator.account.service_job import ServiceJob

DURATION_TAG = "quotactl:duration"
DEFAULT_MAX_RUNTIME = 86_400.0  # SageMaker's default StoppingCondition
RECENT_PREEMPTIONS = 5  # recentPreemptedAttempts window (AWS does not say)

_RUNNABLE = JobStatus.RUNNABLE


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
    except (ValueError, KeyError, TypeError, AttributeError, OverflowError) as exc:
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
    except (ValueError, AttributeError, TypeError, OverflowError):
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
        length, reason = job.max_runtime, reasons.MAX_RUNTIME_EXCEEDED
    timeout = (job.timeout_config or {}).get("attemptDurationSeconds")
    if timeout is not None and float(timeout) < length:
        length, reason = float(timeout), reasons.ATTEMPT_TIMEOUT
    return length, reason


def _retries_left(job: ServiceJob, reason: str) -> int:
    """Failed attempts (with ``reason``) that go back to RUNNABLE: retryStrategy."""
    strategy = job.retry_strategy or {}
    for rule in strategy.get("evaluateOnExit") or []:
        if fnmatch.fnmatchcase(reason, str(rule.get("onStatusReason", "*"))):
            if str(rule.get("action", "")).upper() != "RETRY":
                return 0
            break
    return max(0, int(strategy.get("attempts", 1)) - 1 - job.failed_attempts)


def preemption_retries(job: ServiceJob) -> int | None:
    """The job's ``preemptionRetriesBeforeTermination`` (None: requeued however often)."""
    retries = (job.preemption_configuration or {}).get("preemptionRetriesBeforeTermination")
    return None if retries is None else int(retries)


def engine_fields(job: ServiceJob) -> dict[str, Any]:
    """What the engine needs of a stored job, as stored beside it (a rebuilt engine reads only
    this: ``engine_job``): the engine's ``Job`` fields, and the instances by type."""
    length, end_reason = attempt_limit(job)
    return {
        "share": job.share,
        "capacity": job.capacity,
        "priority": job.priority or 0,
        "submitted_at": job.created_at,
        "run_seconds": length,
        "end_reason": end_reason,
        "retries": 0 if end_reason is None else _retries_left(job, end_reason),
        "status": str(job.status),
        "status_since": job.status_since,
        "status_reason": job.status_reason,
        "started_at": job.scheduled_at if job.status in HOLDING else None,
        "preemption_retries": preemption_retries(job),
        "preemptions": job.preempted_count,
    }


def engine_job(job_id: str, fields: dict[str, Any], share: str | None, *, count_all: bool) -> Job:
    """The engine's job from ``engine_fields`` (``share``: the engine's name for the job's
    quota share; ``count_all``: one NUM_INSTANCES unit per instance, whatever its type)."""
    values = dict(fields)
    capacity: dict[str, int] = values.pop("capacity")
    units = {NUM_INSTANCES: sum(capacity.values())} if count_all else capacity
    (unit, count), *groups = sorted(units.items())
    values["share"] = share or values["share"]
    values["status"] = JobStatus(values["status"])
    return Job(job_id, instance_type=unit, count=count, groups=tuple(groups), **values)


def apply(account: Account, job: ServiceJob, tr: Transition) -> None:
    """Store one engine decision on the job: status, times, attempts, preemption summary.

    The change itself is ``quotactl.core.transitions.transition`` (an edge the table lacks
    raises); what the emulator records beside it depends on the status the job enters."""
    if job.status in FINAL:
        return  # terminated meanwhile
    if tr.preempted_attempt is not None:
        _preempted(job, tr)
    else:
        _ENTER[tr.status](account, job, tr)


def _preempted(job: ServiceJob, tr: Transition) -> None:
    """A holding job preempted: RUNNABLE again, or FAILED with its retries spent."""
    assert tr.preempted_attempt is not None
    attempt = job.attempts[-1]
    attempt.stopped_at, attempt.status_reason = tr.at, tr.preempted_attempt.status_reason
    job.preempted_count += 1
    recent = [Attempt(**vars(attempt)), *job.recent_preempted]
    job.recent_preempted = recent[:RECENT_PREEMPTIONS]
    job.running_since = None
    if tr.status is JobStatus.FAILED:
        job.stopped_at = tr.at
    _set_status(job, tr.status, tr.reason, tr.at)


def _scheduled(account: Account, job: ServiceJob, tr: Transition) -> None:
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
    """An attempt failed (its run time or timeout is over): FAILED, or RUNNABLE to retry."""
    job.failed_attempts += 1
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


def time_limit(job: ServiceJob, queue: JobQueue) -> tuple[float, str] | None:
    """When a queue's jobStateTimeLimitActions terminates this RUNNABLE job, and why."""
    if job.status != _RUNNABLE or not job.status_reason:
        return None
    for action in queue.job_state_time_limit_actions:
        if job.status_reason.startswith(str(action["reason"])):
            return job.reason_since + float(action["maxTimeSeconds"]), str(action["reason"])
    return None


def terminate(ctx: Context, job: ServiceJob, reason: str) -> bool:
    """Any unfinished job -> FAILED with isTerminated (a finished job is left as it is)."""
    if job.status in FINAL:
        return False
    if job.status != JobStatus.SUBMITTED:
        state = ctx.engines.get(ctx.tx, job.queue_ref, ctx.now)
        if state is not None and state.engine.live(job.job_id) is not None:
            state.engine.remove(job.job_id)
            ctx.changed(job.queue_ref)
    job.is_terminated = True
    stop(job, JobStatus.FAILED, reason, ctx.now)
    ctx.tx.save_job(job, None)
    return True


def describe_request(job: dict[str, Any]) -> str:
    """A stable digest of a SubmitServiceJob request (clientToken idempotency)."""
    return json.dumps(job, sort_keys=True, separators=(",", ":"))
