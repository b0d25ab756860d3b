"""The stored service job: what DescribeServiceJob and ListServiceJobs report about it.

A ``ServiceJob`` is kept as one JSON document per row (``transaction.py``); its status is
a ``JobStatus`` value, changed only through ``jobs.apply`` and ``jobs.stop``, which take
every change through ``quotactl.core.transitions.transition``. Times are emulated epoch
seconds; epoch milliseconds on the wire.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from quotactl.core.states import JobStatus
from quotactl.emulator.account.models import drop_none, ms


@dataclass
class Attempt:
    """One SageMaker training job started for a service job (a new one per dispatch)."""

    training_job_arn: str
    started_at: float | None = None
    stopped_at: float | None = None
    status_reason: str | None = None

    def to_api(self) -> dict[str, Any]:
        return drop_none(
            {
                "serviceResourceId": {"name": "TrainingJobArn", "value": self.training_job_arn},
                "startedAt": ms(self.started_at),
                "stoppedAt": ms(self.stopped_at),
                "statusReason": self.status_reason,
            }
        )


@dataclass
class ServiceJob:
    """A submitted service job and everything DescribeServiceJob reports about it."""

    job_id: str
    arn: str
    name: str
    queue_ref: int  # the job queue row's seq: a recreated queue of the same name is another queue
    queue_arn: str
    share: str | None
    share_identifier: str | None
    payload: str
    priority: int | None
    created_at: float
    capacity: dict[str, int]  # instance type -> instances requested (from ResourceConfig)
    run_for: float  # emulated seconds of training once RUNNING
    max_runtime: float | None
    status: str = JobStatus.SUBMITTED
    status_since: float = 0.0
    status_reason: str | None = None
    reason_since: float = 0.0
    retry_strategy: dict[str, Any] | None = None
    preemption_configuration: dict[str, Any] | None = None
    timeout_config: dict[str, Any] | None = None
    client_token: str | None = None
    request_digest: str | None = None
    scheduled_at: float | None = None
    started_at: float | None = None
    stopped_at: float | None = None
    running_since: float | None = None
    is_terminated: bool = False
    attempts: list[Attempt] = field(default_factory=list)
    failed_attempts: int = 0
    preempted_count: int = 0
    recent_preempted: list[Attempt] = field(default_factory=list)
    capacity_wait: float = 0.0  # seconds waited for instances before the current status
    # windows (the engine's ``Job`` fields of the same names): a victim's preemption window or
    # a terminated job's stopping window, and a RUNNABLE job's reserved capacity
    stopping_since: float | None = None
    preempted_by: str | None = None
    stop_reason: str | None = None
    reserved_since: float | None = None
    seq: int = field(default=0, compare=False)

    def doc(self) -> dict[str, Any]:
        values = dict(vars(self))  # the fields (asdict's deep copy costs a request's budget)
        values.pop("seq")
        values["attempts"] = [dict(vars(a)) for a in self.attempts]
        values["recent_preempted"] = [dict(vars(a)) for a in self.recent_preempted]
        return values

    @classmethod
    def from_doc(cls, doc: dict[str, Any], seq: int) -> ServiceJob:
        attempts = [Attempt(**a) for a in doc.pop("attempts")]
        recent = [Attempt(**a) for a in doc.pop("recent_preempted")]
        return cls(**doc, attempts=attempts, recent_preempted=recent, seq=seq)

    @property
    def capacity_usage(self) -> list[dict[str, Any]]:
        return [{"capacityUnit": u, "quantity": float(q)} for u, q in sorted(self.capacity.items())]

    def _latest(self) -> dict[str, Any] | None:
        if not self.attempts:
            return None
        return {"serviceResourceId": self.attempts[-1].to_api()["serviceResourceId"]}

    def summary(self) -> dict[str, Any]:
        """The ListServiceJobs item (isTerminated only when true, as AWS does)."""
        return drop_none(
            {
                "latestAttempt": self._latest(),
                "capacityUsage": self.capacity_usage,
                "createdAt": ms(self.created_at),
                "jobArn": self.arn,
                "jobId": self.job_id,
                "jobName": self.name,
                "scheduledAt": ms(self.scheduled_at),
                "serviceJobType": "SAGEMAKER_TRAINING",
                "shareIdentifier": self.share_identifier,
                "quotaShareName": self.share,
                "status": self.status,
                "statusReason": self.status_reason,
                "startedAt": ms(self.started_at),
                "stoppedAt": ms(self.stopped_at),
                "isTerminated": True if self.is_terminated else None,
            }
        )

    def to_api(self, tags: dict[str, str]) -> dict[str, Any]:
        """The DescribeServiceJob response."""
        summary = None
        if self.preempted_count:
            summary = {
                "preemptedAttemptCount": self.preempted_count,
                "recentPreemptedAttempts": [a.to_api() for a in self.recent_preempted],
            }
        return drop_none(
            {
                "attempts": [a.to_api() for a in self.attempts],
                "capacityUsage": self.capacity_usage,
                "createdAt": ms(self.created_at),
                "isTerminated": self.is_terminated,
                "jobArn": self.arn,
                "jobId": self.job_id,
                "jobName": self.name,
                "jobQueue": self.queue_arn,
                "latestAttempt": self._latest(),
                "retryStrategy": self.retry_strategy,
                "scheduledAt": ms(self.scheduled_at),
                "schedulingPriority": self.priority,
                "serviceRequestPayload": self.payload,
                "serviceJobType": "SAGEMAKER_TRAINING",
                "shareIdentifier": self.share_identifier,
                "quotaShareName": self.share,
                "preemptionConfiguration": self.preemption_configuration,
                "preemptionSummary": summary,
                "startedAt": ms(self.started_at),
                "status": self.status,
                "statusReason": self.status_reason,
                "stoppedAt": ms(self.stopped_at),
                "tags": tags or None,  # the model's map has at least one entry
                "timeoutConfig": self.timeout_config,
            }
        )
