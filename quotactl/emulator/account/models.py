"""The emulated account's resource records: what is stored per resource, and its API shape.

Each record is a dataclass kept as one JSON document per row (``transaction.py``); ``to_api``
produces exactly the members of the corresponding botocore output shape, nothing more.
Times are emulated epoch seconds (floats) internally and epoch milliseconds on the wire.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from quotactl.core.states import LifecycleStatus, State
from quotactl.emulator.account.request_checks import stored_fairshare, stored_time_limits

NUM_INSTANCES = "NUM_INSTANCES"


def ms(seconds: float | None) -> int | None:
    """Emulated seconds -> the epoch milliseconds AWS puts on the wire."""
    return None if seconds is None else round(seconds * 1000)


def drop_none(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


@dataclass
class Record:
    """Common bookkeeping: the row's sequence number is its creation order (pagination key)."""

    KIND: ClassVar[str] = ""
    name: str
    arn: str
    seq: int = field(default=0, compare=False)

    def doc(self) -> dict[str, Any]:
        values = dict(vars(self))  # plain fields: a shallow copy is what json.dumps needs
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

    state: str = State.ENABLED
    status: str = LifecycleStatus.CREATING
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
        return drop_none(
            {
                "name": self.name,
                "arn": self.arn,
                "quotaSharePolicy": self.quota_share_policy,
                "fairsharePolicy": self.fairshare_policy,
                "tags": tags or None,  # the model's map has at least one entry
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
        return drop_none(
            {
                "serviceEnvironmentName": self.name,
                "serviceEnvironmentArn": self.arn,
                "serviceEnvironmentType": "SAGEMAKER_TRAINING",
                "state": self.state,
                "status": self.status,
                "capacityLimits": self.capacity_limits,
                "tags": tags or None,  # the model's map has at least one entry
            }
        )


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
        return drop_none(
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
                "tags": tags or None,  # the model's map has at least one entry
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
    in_share_preemption: str = State.DISABLED

    @property
    def parent(self) -> str:
        return self.queue

    @property
    def capacity(self) -> dict[str, int]:
        return {c["capacityUnit"]: int(c["maxCapacity"]) for c in self.capacity_limits}

    def to_api(self, tags: dict[str, str]) -> dict[str, Any]:
        sharing: dict[str, Any] = {"strategy": self.strategy}
        if self.strategy == "LEND_AND_BORROW":
            sharing["borrowLimit"] = -1 if self.borrow_limit is None else self.borrow_limit
        return drop_none(
            {
                "quotaShareName": self.name,
                "quotaShareArn": self.arn,
                "jobQueueArn": self.queue_arn,
                "capacityLimits": self.capacity_limits,
                "resourceSharingConfiguration": sharing,
                "preemptionConfiguration": {"inSharePreemption": self.in_share_preemption},
                "state": self.state,
                "status": self.status,
                "tags": tags or None,  # the model's map has at least one entry
            }
        )
