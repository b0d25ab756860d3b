"""Service jobs as the Batch API reports them (ListServiceJobs / DescribeServiceJob), in
quotactl's terms: names instead of ARNs, seconds instead of milliseconds, and the engine
``Job`` each one is to the scheduler. Pure: the dicts come from ``quotactl.aws``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from quotactl.core.engine import Job, JobStatus

if TYPE_CHECKING:
    from collections.abc import Mapping

STATUSES = (
    "SUBMITTED",
    "PENDING",
    "RUNNABLE",
    "SCHEDULED",
    "STARTING",
    "RUNNING",
    "SUCCEEDED",
    "FAILED",
)
"""Every service-job status, in lifecycle order (ListServiceJobs takes one at a time)."""
FINAL_STATUSES = frozenset({"SUCCEEDED", "FAILED"})
CROSS_SHARE = "Cross-share preemption"
IN_SHARE = "In-share preemption"


@dataclass(frozen=True)
class Attempt:
    """One attempt (a SageMaker training job); ``preempted`` ones carry AWS's reason."""

    training_job_arn: str | None
    started_at: float | None = None
    stopped_at: float | None = None
    status_reason: str | None = None

    @property
    def training_job_name(self) -> str | None:
        if not self.training_job_arn:
            return None
        return self.training_job_arn.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class JobRecord:
    """One service job; fields only DescribeServiceJob has are empty for list items."""

    job_id: str
    job_arn: str
    name: str
    queue: str
    share: str | None
    status: str
    status_reason: str | None = None
    priority: int | None = None
    instances: Mapping[str, int] = field(default_factory=dict)
    created_at: float | None = None
    scheduled_at: float | None = None
    started_at: float | None = None
    stopped_at: float | None = None
    is_terminated: bool = False
    attempts: tuple[Attempt, ...] = ()
    latest_training_job_arn: str | None = None
    preemption_count: int = 0
    preempted_attempts: tuple[Attempt, ...] = ()
    preemption_retries: int | None = None
    payload: str | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    described: bool = False

    @property
    def instance_type(self) -> str | None:
        """The type of the largest instance group (most jobs have exactly one)."""
        if not self.instances:
            return None
        return max(self.instances.items(), key=lambda item: (item[1], item[0]))[0]

    @property
    def instance_count(self) -> int:
        return sum(self.instances.values())

    @property
    def holds_capacity(self) -> bool:
        return self.status in ("SCHEDULED", "STARTING", "RUNNING")

    @property
    def is_final(self) -> bool:
        return self.status in FINAL_STATUSES


def seconds(value: Any) -> float | None:
    """Epoch milliseconds (the wire) -> epoch seconds; botocore may hand a datetime."""
    if value is None:
        return None
    if hasattr(value, "timestamp"):
        return float(value.timestamp())
    return float(value) / 1000.0


def queue_name(value: str) -> str:
    """A job queue name or ARN (``...:job-queue/training``) -> the name."""
    return value.rsplit("/", 1)[-1] if value.startswith("arn:") else value


def _instances(item: Mapping[str, Any]) -> dict[str, int]:
    usage: dict[str, int] = {}
    for entry in item.get("capacityUsage") or []:
        unit = entry.get("capacityUnit")
        if unit:
            usage[unit] = usage.get(unit, 0) + round(float(entry.get("quantity", 0)))
    if usage:
        return usage
    try:  # DescribeServiceJob before the job has capacity: read the request
        payload = json.loads(item.get("serviceRequestPayload") or "{}")
        resources = payload.get("ResourceConfig") or {}
        for group in resources.get("InstanceGroups") or [resources]:
            unit = str(group["InstanceType"])
            usage[unit] = usage.get(unit, 0) + int(group["InstanceCount"])
    except (ValueError, KeyError, TypeError, AttributeError):
        return {}
    return usage


def _attempt(item: Mapping[str, Any]) -> Attempt:
    resource = item.get("serviceResourceId") or {}
    return Attempt(
        training_job_arn=resource.get("value"),
        started_at=seconds(item.get("startedAt")),
        stopped_at=seconds(item.get("stoppedAt")),
        status_reason=item.get("statusReason"),
    )


def record_of(item: Mapping[str, Any], queue: str | None = None) -> JobRecord:
    """A ListServiceJobs item or a DescribeServiceJob response -> a ``JobRecord``."""
    latest = (item.get("latestAttempt") or {}).get("serviceResourceId") or {}
    summary = item.get("preemptionSummary") or {}
    retries = (item.get("preemptionConfiguration") or {}).get("preemptionRetriesBeforeTermination")
    priority = item.get("schedulingPriority")
    return JobRecord(
        job_id=item["jobId"],
        job_arn=item.get("jobArn", ""),
        name=item.get("jobName", ""),
        queue=queue or queue_name(str(item.get("jobQueue", ""))),
        share=item.get("quotaShareName"),
        status=item.get("status") or "SUBMITTED",
        status_reason=item.get("statusReason"),
        priority=None if priority is None else int(priority),
        instances=_instances(item),
        created_at=seconds(item.get("createdAt")),
        scheduled_at=seconds(item.get("scheduledAt")),
        started_at=seconds(item.get("startedAt")),
        stopped_at=seconds(item.get("stoppedAt")),
        is_terminated=bool(item.get("isTerminated")),
        attempts=tuple(_attempt(a) for a in item.get("attempts") or []),
        latest_training_job_arn=latest.get("value"),
        preemption_count=int(summary.get("preemptedAttemptCount") or 0),
        preempted_attempts=tuple(_attempt(a) for a in summary.get("recentPreemptedAttempts") or []),
        preemption_retries=None if retries is None else int(retries),
        payload=item.get("serviceRequestPayload"),
        tags=dict(item.get("tags") or {}),
        described="serviceRequestPayload" in item,
    )


def engine_jobs(record: JobRecord) -> list[Job]:
    """The job as the scheduler sees it: one engine job per instance type while it holds
    capacity (``<id>/<type>``, as the emulator splits it), else its largest group."""
    if record.is_final or record.share is None or not record.instances:
        return []
    status = JobStatus.SUBMITTED if record.status == "PENDING" else JobStatus(record.status)
    since = record.scheduled_at or record.created_at or 0.0
    types = sorted(record.instances) if record.holds_capacity else [record.instance_type or ""]
    many = len(types) > 1
    return [
        Job(
            job_id=f"{record.job_id}/{unit}" if many else record.job_id,
            share=record.share,
            instance_type=unit,
            count=record.instances[unit],
            priority=record.priority or 0,
            submitted_at=record.created_at or 0.0,
            status=status,
            status_since=since,
            status_reason=record.status_reason,
            started_at=record.scheduled_at if record.holds_capacity else None,
            preemption_retries=record.preemption_retries,
            preemptions=record.preemption_count,
        )
        for unit in types
    ]


_SAGEMAKER_STATUS = {
    "SCHEDULED": ("InProgress", "Pending"),
    "STARTING": ("InProgress", "Downloading"),
    "RUNNING": ("InProgress", "Training"),
    "SUCCEEDED": ("Completed", "Completed"),
    "FAILED": ("Failed", "Failed"),
}


def sagemaker_status(status: str) -> tuple[str | None, str | None]:
    """The training job's (status, secondary status) for a service job status, from AWS's
    documented mapping (used where there is no SageMaker to ask: the emulator)."""
    return _SAGEMAKER_STATUS.get(status, (None, None))
