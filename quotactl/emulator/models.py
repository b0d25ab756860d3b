"""The emulated account's records: what is stored per resource and job, and their API shapes.

Each record is a dataclass kept as one JSON document per row (``store.py``); ``to_api``
produces exactly the members of the corresponding botocore output shape, nothing more.
Times are emulated epoch seconds (floats) internally and epoch milliseconds on the wire.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from quotactl.emulator.validate import stored_fairshare, stored_time_limits

# Resource statuses (reference §1); INVALID is never produced by the emulator.
CREATING, UPDATING, DELETING, VALID = "CREATING", "UPDATING", "DELETING", "VALID"
SETTLING = (CREATING, UPDATING, DELETING)
ENABLED, DISABLED = "ENABLED", "DISABLED"
NUM_INSTANCES = "NUM_INSTANCES"

# Service-job statuses, in lifecycle order (PENDING exists in the enum but is never used).
SUBMITTED, PENDING, RUNNABLE = "SUBMITTED", "PENDING", "RUNNABLE"
SCHEDULED, STARTING, RUNNING = "SCHEDULED", "STARTING", "RUNNING"
SUCCEEDED, FAILED = "SUCCEEDED", "FAILED"
JOB_STATUSES = (SUBMITTED, PENDING, RUNNABLE, SCHEDULED, STARTING, RUNNING, SUCCEEDED, FAILED)
ACTIVE = (SCHEDULED, STARTING, RUNNING)  # hold capacity
TERMINAL = (SUCCEEDED, FAILED)


def ms(seconds: float | None) -> int | None:
    """Emulated seconds -> the epoch milliseconds AWS puts on the wire."""
    return None if seconds is None else round(seconds * 1000)


def _drop_none(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


@dataclass
class Record:
    """Common bookkeeping: the row's sequence number is its creation order (pagination key)."""

    KIND: ClassVar[str] = ""
    name: str
    arn: str
    seq: int = field(default=0, compare=False)

    def doc(self) -> dict[str, Any]:
        values = dataclasses.asdict(self)
        values.pop("seq")
        return values

    @classmethod
    def from_doc(cls, doc: dict[str, Any], seq: int) -> Self:
        return cls(**doc, seq=seq)

    @property
    def parent(self) -> str:
        return ""


@dataclass
class Settling(Record):
    """A resource with AWS's asynchronous status: CREATING/UPDATING/DELETING -> VALID or gone."""

    state: str = ENABLED
    status: str = CREATING
    status_since: float = 0.0


@dataclass
class SchedulingPolicy(Record):
    KIND: ClassVar[str] = "scheduling-policy"
    quota_share_policy: dict[str, Any] | None = None
    fairshare_policy: dict[str, Any] | None = None

    @classmethod
    def from_doc(cls, doc: dict[str, Any], seq: int) -> Self:
        policy = super().from_doc(doc, seq)
        policy.fairshare_policy = stored_fairshare(policy.fairshare_policy)
        return policy

    def to_api(self, tags: dict[str, str]) -> dict[str, Any]:
        return _drop_none(
            {
                "name": self.name,
                "arn": self.arn,
                "quotaSharePolicy": self.quota_share_policy,
                "fairsharePolicy": self.fairshare_policy,
                "tags": tags,
            }
        )


@dataclass
class ServiceEnvironment(Settling):
    KIND: ClassVar[str] = "service-environment"
    capacity_limits: list[dict[str, Any]] = field(default_factory=list)

    @property
    def capacity(self) -> dict[str, int]:
        return {c["capacityUnit"]: int(c["maxCapacity"]) for c in self.capacity_limits}

    def to_api(self, tags: dict[str, str]) -> dict[str, Any]:
        return {
            "serviceEnvironmentName": self.name,
            "serviceEnvironmentArn": self.arn,
            "serviceEnvironmentType": "SAGEMAKER_TRAINING",
            "state": self.state,
            "status": self.status,
            "capacityLimits": self.capacity_limits,
            "tags": tags,
        }


@dataclass
class JobQueue(Settling):
    KIND: ClassVar[str] = "job-queue"
    priority: int = 1
    scheduling_policy_arn: str | None = None
    quota_managed: bool = False
    environment: str | None = None  # the service environment's name
    service_environment_order: list[dict[str, Any]] = field(default_factory=list)
    job_state_time_limit_actions: list[dict[str, Any]] = field(default_factory=list)
    status_reason: str | None = None

    @classmethod
    def from_doc(cls, doc: dict[str, Any], seq: int) -> Self:
        queue = super().from_doc(doc, seq)
        queue.job_state_time_limit_actions = stored_time_limits(queue.job_state_time_limit_actions)
        return queue

    def to_api(self, tags: dict[str, str]) -> dict[str, Any]:
        return _drop_none(
            {
                "jobQueueName": self.name,
                "jobQueueArn": self.arn,
                "state": self.state,
                "schedulingPolicyArn": self.scheduling_policy_arn,
                "status": self.status,
                "statusReason": self.status_reason,
                "priority": self.priority,
                "computeEnvironmentOrder": [],
                "serviceEnvironmentOrder": self.service_environment_order,
                "jobQueueType": "SAGEMAKER_TRAINING",
                "tags": tags,
                "jobStateTimeLimitActions": self.job_state_time_limit_actions,
            }
        )


@dataclass
class QuotaShare(Settling):
    KIND: ClassVar[str] = "quota-share"
    queue: str = ""
    queue_arn: str = ""
    capacity_limits: list[dict[str, Any]] = field(default_factory=list)
    strategy: str = "RESERVE"
    borrow_limit: int | None = None
    in_share_preemption: str = DISABLED

    @property
    def parent(self) -> str:
        return self.queue

    @property
    def capacity(self) -> dict[str, int]:
        return {c["capacityUnit"]: int(c["maxCapacity"]) for c in self.capacity_limits}

    def to_api(self, tags: dict[str, str] | None) -> dict[str, Any]:
        sharing: dict[str, Any] = {"strategy": self.strategy}
        if self.strategy == "LEND_AND_BORROW":
            sharing["borrowLimit"] = -1 if self.borrow_limit is None else self.borrow_limit
        return _drop_none(
            {
                "quotaShareName": self.name,
                "quotaShareArn": self.arn,
                "jobQueueArn": self.queue_arn,
                "capacityLimits": self.capacity_limits,
                "resourceSharingConfiguration": sharing,
                "preemptionConfiguration": {"inSharePreemption": self.in_share_preemption},
                "state": self.state,
                "status": self.status,
                "tags": tags,
            }
        )


@dataclass
class Attempt:
    """One SageMaker training job started for a service job (a new one per dispatch)."""

    training_job_arn: str
    started_at: float | None = None
    stopped_at: float | None = None
    status_reason: str | None = None

    def to_api(self) -> dict[str, Any]:
        return _drop_none(
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
    status: str = SUBMITTED
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
    seq: int = field(default=0, compare=False)

    def doc(self) -> dict[str, Any]:
        values = dataclasses.asdict(self)
        values.pop("seq")
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
        return _drop_none(
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
        return _drop_none(
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
                "tags": tags,
                "timeoutConfig": self.timeout_config,
            }
        )
