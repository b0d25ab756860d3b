"""What the scheduling engine needs of a stored service job, read from the record alone.

SageMaker's request gives the instances and the run time (the ``quotactl:duration`` tag, else
``StoppingCondition.MaxRuntimeInSeconds``); the retry strategy and the preemption budget give
what an attempt's end means. ``engine_fields`` is what the store keeps beside each unfinished
job, and ``engine_job`` rebuilds the engine's ``Job`` from it, so a rebuilt engine reads only
this. The state machine that changes a job is ``quotactl.emulator.scheduling.jobs``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quotactl.core.durations import DurationError, parse_duration
from quotactl.core.engine import Job, Window, reasons
from quotactl.core.engine.model import PREEMPTING, RESERVED, TERMINATING
from quotactl.core.jobs.spec import DEFAULT_MAX_RUNTIME, DURATION_TAG
from quotactl.core.states import HOLDING, JobStatus
from quotactl.emulator.account.models import NUM_INSTANCES
from quotactl.emulator.account.request_checks import PayloadProblem, training_request

if TYPE_CHECKING:
    from collections.abc import Mapping

    from quotactl.emulator.account.service_job import ServiceJob


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
    except PayloadProblem as exc:
        raise PayloadError(f"ValidationException: {exc}") from exc
    except (ValueError, KeyError, TypeError, AttributeError, OverflowError) as exc:
        raise PayloadError(
            "ValidationException: serviceRequestPayload is not a CreateTrainingJob request "
            "with ResourceConfig.InstanceType and InstanceCount"
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


def reason_matches(reason: str, pattern: str) -> bool:
    """Whether ``onStatusReason`` matches a statusReason: exactly, or by its start when it
    ends with ``*``, AWS's only wildcard ("It can optionally end with an asterisk (*) so that
    only the start of the string needs to be an exact match",
    https://docs.aws.amazon.com/batch/latest/APIReference/API_ServiceJobEvaluateOnExit.html).
    Any other ``*``, ``?`` or ``[`` is an ordinary character."""
    if pattern.endswith("*"):
        return reason.startswith(pattern[:-1])
    return reason == pattern


def _retries_left(job: ServiceJob, reason: str) -> int:
    """Failed attempts (with ``reason``) that go back to RUNNABLE: retryStrategy."""
    strategy = job.retry_strategy or {}
    for rule in strategy.get("evaluateOnExit") or []:
        if reason_matches(reason, str(rule.get("onStatusReason", "*"))):
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
        "window": _window(job),
    }


def _window(job: ServiceJob) -> dict[str, Any] | None:
    """The engine's ``Window`` of a stored job, as its fields (None: in no window)."""
    if job.reserved_since is not None:
        return {"kind": RESERVED, "since": job.reserved_since}
    if job.stopping_since is None:
        return None
    kind = TERMINATING if job.preempted_by is None else PREEMPTING
    return {
        "kind": kind,
        "since": job.stopping_since,
        "by": job.preempted_by,
        "stop_reason": job.stop_reason,
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
    window = values.pop("window", None)
    values["window"] = None if window is None else Window(**window)
    return Job(job_id, instance_type=unit, count=count, groups=tuple(groups), **values)
