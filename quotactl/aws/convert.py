"""Specs <-> AWS Batch request and response shapes (botocore's Batch model: API shapes and ARNs).

Pure functions, no I/O: the backend calls these, and tests check them against botocore's
service model by sending them through a real client with a Stubber.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, cast

from quotactl.aws import responses as live_responses
from quotactl.core.resources.desired import (
    UNLIMITED,
    EnvironmentSpec,
    PolicySpec,
    QueueSpec,
    RunnableTimeout,
    ShareSpec,
    Strategy,
)
from quotactl.core.resources.observed import LiveJob, ObservedResource
from quotactl.core.states import JobStatus, LifecycleStatus, State

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from mypy_boto3_batch.literals import JobStateTimeLimitActionsStateType, JQStateType
    from mypy_boto3_batch.type_defs import (
        CapacityLimitTypeDef,
        CreateJobQueueRequestTypeDef,
        CreateQuotaShareRequestTypeDef,
        CreateSchedulingPolicyRequestTypeDef,
        CreateServiceEnvironmentRequestTypeDef,
        DescribeQuotaShareResponseTypeDef,
        JobQueueDetailTypeDef,
        JobStateTimeLimitActionTypeDef,
        QuotaShareCapacityLimitTypeDef,
        QuotaShareDetailTypeDef,
        QuotaSharePreemptionConfigurationTypeDef,
        QuotaShareResourceSharingConfigurationTypeDef,
        SchedulingPolicyDetailTypeDef,
        ServiceEnvironmentDetailTypeDef,
        ServiceJobSummaryTypeDef,
        UpdateJobQueueRequestTypeDef,
        UpdateQuotaShareRequestTypeDef,
        UpdateServiceEnvironmentRequestTypeDef,
    )

SAGEMAKER_TRAINING: Literal["SAGEMAKER_TRAINING"] = "SAGEMAKER_TRAINING"


def state(enabled: bool) -> JQStateType:
    """The ``state`` of an environment, queue or share (the stubs' literal types agree)."""
    return cast("JQStateType", State.ENABLED if enabled else State.DISABLED)


def enabled(api_state: str | None) -> bool:
    return api_state != State.DISABLED


def capacity_limits(capacity: Mapping[str, int]) -> list[QuotaShareCapacityLimitTypeDef]:
    """A share's capacity limits (the stubs type an environment's, the same list, apart)."""
    return [{"capacityUnit": t, "maxCapacity": n} for t, n in sorted(capacity.items())]


def _environment_limits(capacity: Mapping[str, int]) -> list[CapacityLimitTypeDef]:
    return [{"capacityUnit": t, "maxCapacity": n} for t, n in sorted(capacity.items())]


def capacity(
    limits: Sequence[CapacityLimitTypeDef] | Sequence[QuotaShareCapacityLimitTypeDef] | None,
) -> dict[str, int]:
    return {c["capacityUnit"]: int(c["maxCapacity"]) for c in limits or []}


# -- environments ---------------------------------------------------------------------------


def create_environment(spec: EnvironmentSpec) -> CreateServiceEnvironmentRequestTypeDef:
    request: CreateServiceEnvironmentRequestTypeDef = {
        "serviceEnvironmentName": spec.name,
        "serviceEnvironmentType": SAGEMAKER_TRAINING,
        "state": state(spec.enabled),
        "capacityLimits": _environment_limits(spec.capacity),
    }
    if spec.tags:
        request["tags"] = dict(spec.tags)
    return request


def update_environment(
    spec: EnvironmentSpec, arn: str, fields: frozenset[str]
) -> UpdateServiceEnvironmentRequestTypeDef:
    request: UpdateServiceEnvironmentRequestTypeDef = {"serviceEnvironment": arn}
    if "capacity" in fields:
        request["capacityLimits"] = _environment_limits(spec.capacity)
    if "enabled" in fields:
        request["state"] = state(spec.enabled)
    return request


def observed_environment(item: ServiceEnvironmentDetailTypeDef) -> ObservedResource:
    spec = EnvironmentSpec(
        name=item["serviceEnvironmentName"],
        capacity=capacity(item.get("capacityLimits")),
        enabled=enabled(item.get("state")),
        tags=dict(item.get("tags") or {}),
    )
    return ObservedResource(
        spec, item["serviceEnvironmentArn"], item.get("status") or LifecycleStatus.VALID
    )


# -- scheduling policies --------------------------------------------------------------------


def create_policy(spec: PolicySpec) -> CreateSchedulingPolicyRequestTypeDef:
    request: CreateSchedulingPolicyRequestTypeDef = {
        "name": spec.name,
        "quotaSharePolicy": {"idleResourceAssignmentStrategy": "FIFO"},
    }
    if spec.tags:
        request["tags"] = dict(spec.tags)
    return request


def observed_policy(item: SchedulingPolicyDetailTypeDef) -> ObservedResource:
    if item.get("quotaSharePolicy"):
        policy_type = "quota_share"
    elif item.get("fairsharePolicy"):
        policy_type = "fairshare"
    else:
        policy_type = "none"
    spec = PolicySpec(name=item["name"], tags=dict(item.get("tags") or {}))
    return ObservedResource(spec, item["arn"], LifecycleStatus.VALID, policy_type)


# -- job queues -----------------------------------------------------------------------------


_RUNNABLE = cast("JobStateTimeLimitActionsStateType", JobStatus.RUNNABLE)
"""The one job status a jobStateTimeLimitAction applies to."""


def _time_limits(timeout: RunnableTimeout | None) -> list[JobStateTimeLimitActionTypeDef]:
    if timeout is None:
        return []
    return [
        {"reason": r, "state": _RUNNABLE, "maxTimeSeconds": timeout.seconds, "action": "TERMINATE"}
        for r in sorted(timeout.reasons)
    ]


def create_queue(spec: QueueSpec, policy_arn: str) -> CreateJobQueueRequestTypeDef:
    request: CreateJobQueueRequestTypeDef = {
        "jobQueueName": spec.name,
        "state": state(spec.enabled),
        "schedulingPolicyArn": policy_arn,
        "priority": spec.priority,
        "serviceEnvironmentOrder": [{"order": 1, "serviceEnvironment": spec.environment}],
        "jobQueueType": SAGEMAKER_TRAINING,
    }
    if spec.tags:
        request["tags"] = dict(spec.tags)
    limits = _time_limits(spec.runnable_timeout)
    if limits:
        request["jobStateTimeLimitActions"] = limits
    return request


def update_queue(
    spec: QueueSpec, arn: str, fields: frozenset[str], policy_arn: str
) -> UpdateJobQueueRequestTypeDef:
    request: UpdateJobQueueRequestTypeDef = {"jobQueue": arn}
    if "enabled" in fields:
        request["state"] = state(spec.enabled)
    if "priority" in fields:
        request["priority"] = spec.priority
    if "policy" in fields:
        request["schedulingPolicyArn"] = policy_arn
    if "environment" in fields:
        request["serviceEnvironmentOrder"] = [{"order": 1, "serviceEnvironment": spec.environment}]
    if "runnable_timeout" in fields:
        request["jobStateTimeLimitActions"] = _time_limits(spec.runnable_timeout)
    return request


def observed_queue(item: JobQueueDetailTypeDef) -> ObservedResource:
    order = sorted(item.get("serviceEnvironmentOrder") or [], key=lambda o: o["order"])
    environment = live_responses.name_from_arn(order[0]["serviceEnvironment"]) if order else ""
    policy_arn = item.get("schedulingPolicyArn") or ""
    actions = [
        a
        for a in item.get("jobStateTimeLimitActions") or []
        if a.get("state") == JobStatus.RUNNABLE and a.get("action") == "TERMINATE"
    ]
    timeout = None
    if actions:
        # The config language has one timeout for all reasons; AWS allows one per reason.
        seconds = min(int(a["maxTimeSeconds"]) for a in actions)
        timeout = RunnableTimeout(seconds, tuple(sorted(a["reason"] for a in actions)))
    spec = QueueSpec(
        name=item["jobQueueName"],
        environment=environment,
        policy=live_responses.name_from_arn(policy_arn) if policy_arn else "",
        priority=int(item.get("priority", 1)),
        enabled=enabled(item.get("state")),
        runnable_timeout=timeout,
        tags=dict(item.get("tags") or {}),
    )
    return ObservedResource(spec, item["jobQueueArn"], item.get("status") or LifecycleStatus.VALID)


# -- quota shares ---------------------------------------------------------------------------


def _sharing(spec: ShareSpec) -> QuotaShareResourceSharingConfigurationTypeDef:
    sharing: QuotaShareResourceSharingConfigurationTypeDef = {"strategy": spec.strategy.value}
    if spec.strategy is Strategy.LEND_AND_BORROW:
        sharing["borrowLimit"] = spec.borrow_limit
    return sharing


def _preemption(spec: ShareSpec) -> QuotaSharePreemptionConfigurationTypeDef:
    return {"inSharePreemption": state(spec.in_share_preemption)}


def create_share(spec: ShareSpec) -> CreateQuotaShareRequestTypeDef:
    request: CreateQuotaShareRequestTypeDef = {
        "quotaShareName": spec.name,
        "jobQueue": spec.queue,
        "capacityLimits": capacity_limits(spec.capacity),
        "resourceSharingConfiguration": _sharing(spec),
        "preemptionConfiguration": _preemption(spec),
        "state": state(spec.enabled),
    }
    if spec.tags:
        request["tags"] = dict(spec.tags)
    return request


def update_share(
    spec: ShareSpec, arn: str, fields: frozenset[str]
) -> UpdateQuotaShareRequestTypeDef:
    request: UpdateQuotaShareRequestTypeDef = {"quotaShareArn": arn}
    if "capacity" in fields:
        request["capacityLimits"] = capacity_limits(spec.capacity)
    if fields & {"sharing", "borrow_limit"}:
        request["resourceSharingConfiguration"] = _sharing(spec)
    if "in_share_preemption" in fields:
        request["preemptionConfiguration"] = _preemption(spec)
    if "enabled" in fields:
        request["state"] = state(spec.enabled)
    return request


def observed_share(
    item: QuotaShareDetailTypeDef | DescribeQuotaShareResponseTypeDef,
    queue: str,
    tags: Mapping[str, str],
) -> ObservedResource:
    sharing = item.get("resourceSharingConfiguration")
    strategy = Strategy(sharing.get("strategy", "RESERVE") if sharing else "RESERVE")
    borrow = sharing.get("borrowLimit") if sharing else None
    preempting = item.get("preemptionConfiguration")
    preemption = preempting.get("inSharePreemption") if preempting else None
    spec = ShareSpec(
        queue=queue,
        name=item["quotaShareName"],
        capacity=capacity(item.get("capacityLimits")),
        strategy=strategy,
        borrow_limit=UNLIMITED if borrow is None else int(borrow),
        in_share_preemption=preemption == State.ENABLED,
        enabled=enabled(item.get("state")),
        tags=dict(tags),
    )
    return ObservedResource(
        spec, item["quotaShareArn"], item.get("status") or LifecycleStatus.VALID
    )


def share_arn(queue_arn: str, name: str) -> str:
    """``<jobQueueArn>/quota-share/<name>`` (AWS's quota-share ARN format)."""
    return f"{queue_arn}/quota-share/{name}"


# -- jobs -----------------------------------------------------------------------------------


def live_job(item: ServiceJobSummaryTypeDef, queue: str) -> LiveJob:
    """A ListServiceJobs summary -> ``LiveJob`` (times in epoch seconds)."""
    return live_responses.live_job(item, queue)
