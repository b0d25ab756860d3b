"""Specs <-> AWS Batch request and response shapes (botocore's Batch model: API shapes and ARNs).

Pure functions, no I/O: the backend calls these, and tests check them against botocore's
service model by sending them through a real client with a Stubber.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quotactl.core import live
from quotactl.core.model import (
    UNLIMITED,
    EnvironmentSpec,
    PolicySpec,
    QueueSpec,
    RunnableTimeout,
    ShareSpec,
    Strategy,
)
from quotactl.core.observed import LiveJob, ObservedResource

if TYPE_CHECKING:
    from collections.abc import Mapping

SAGEMAKER_TRAINING = "SAGEMAKER_TRAINING"
FIFO = {"idleResourceAssignmentStrategy": "FIFO"}

Request = dict[str, Any]


def state(enabled: bool) -> str:
    return "ENABLED" if enabled else "DISABLED"


def enabled(api_state: str | None) -> bool:
    return api_state != "DISABLED"


def name_from_arn(value: str) -> str:
    """A name or an ARN (``...:job-queue/training``) -> the name."""
    return value.rsplit("/", 1)[-1] if value.startswith("arn:") else value


def capacity_limits(capacity: Mapping[str, int]) -> list[dict[str, Any]]:
    return [{"capacityUnit": t, "maxCapacity": n} for t, n in sorted(capacity.items())]


def capacity(limits: list[dict[str, Any]] | None) -> dict[str, int]:
    return {c["capacityUnit"]: int(c["maxCapacity"]) for c in limits or []}


def _tags(tags: Mapping[str, str]) -> Request:
    return {"tags": dict(tags)} if tags else {}


# -- environments ---------------------------------------------------------------------------


def create_environment(spec: EnvironmentSpec) -> Request:
    return {
        "serviceEnvironmentName": spec.name,
        "serviceEnvironmentType": SAGEMAKER_TRAINING,
        "state": state(spec.enabled),
        "capacityLimits": capacity_limits(spec.capacity),
        **_tags(spec.tags),
    }


def update_environment(spec: EnvironmentSpec, arn: str, fields: frozenset[str]) -> Request:
    request: Request = {"serviceEnvironment": arn}
    if "capacity" in fields:
        request["capacityLimits"] = capacity_limits(spec.capacity)
    if "enabled" in fields:
        request["state"] = state(spec.enabled)
    return request


def observed_environment(item: Mapping[str, Any]) -> ObservedResource:
    spec = EnvironmentSpec(
        name=item["serviceEnvironmentName"],
        capacity=capacity(item.get("capacityLimits")),
        enabled=enabled(item.get("state")),
        tags=dict(item.get("tags") or {}),
    )
    return ObservedResource(spec, item["serviceEnvironmentArn"], item.get("status") or "VALID")


# -- scheduling policies --------------------------------------------------------------------


def create_policy(spec: PolicySpec) -> Request:
    return {"name": spec.name, "quotaSharePolicy": dict(FIFO), **_tags(spec.tags)}


def observed_policy(item: Mapping[str, Any]) -> ObservedResource:
    if item.get("quotaSharePolicy"):
        policy_type = "quota_share"
    elif item.get("fairsharePolicy"):
        policy_type = "fairshare"
    else:
        policy_type = "none"
    spec = PolicySpec(name=item["name"], tags=dict(item.get("tags") or {}))
    return ObservedResource(spec, item["arn"], "VALID", policy_type)


# -- job queues -----------------------------------------------------------------------------


def _time_limits(timeout: RunnableTimeout | None) -> list[dict[str, Any]]:
    if timeout is None:
        return []
    return [
        {"reason": r, "state": "RUNNABLE", "maxTimeSeconds": timeout.seconds, "action": "TERMINATE"}
        for r in sorted(timeout.reasons)
    ]


def create_queue(spec: QueueSpec, policy_arn: str) -> Request:
    request: Request = {
        "jobQueueName": spec.name,
        "state": state(spec.enabled),
        "schedulingPolicyArn": policy_arn,
        "priority": spec.priority,
        "serviceEnvironmentOrder": [{"order": 1, "serviceEnvironment": spec.environment}],
        "jobQueueType": SAGEMAKER_TRAINING,
        **_tags(spec.tags),
    }
    limits = _time_limits(spec.runnable_timeout)
    if limits:
        request["jobStateTimeLimitActions"] = limits
    return request


def update_queue(spec: QueueSpec, arn: str, fields: frozenset[str], policy_arn: str) -> Request:
    request: Request = {"jobQueue": arn}
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


def observed_queue(item: Mapping[str, Any]) -> ObservedResource:
    order = sorted(item.get("serviceEnvironmentOrder") or [], key=lambda o: o["order"])
    environment = name_from_arn(order[0]["serviceEnvironment"]) if order else ""
    policy_arn = item.get("schedulingPolicyArn") or ""
    actions = [
        a
        for a in item.get("jobStateTimeLimitActions") or []
        if a.get("state") == "RUNNABLE" and a.get("action") == "TERMINATE"
    ]
    timeout = None
    if actions:
        # The config language has one timeout for all reasons; AWS allows one per reason.
        seconds = min(int(a["maxTimeSeconds"]) for a in actions)
        timeout = RunnableTimeout(seconds, tuple(sorted(a["reason"] for a in actions)))
    spec = QueueSpec(
        name=item["jobQueueName"],
        environment=environment,
        policy=name_from_arn(policy_arn) if policy_arn else "",
        priority=int(item.get("priority", 1)),
        enabled=enabled(item.get("state")),
        runnable_timeout=timeout,
        tags=dict(item.get("tags") or {}),
    )
    return ObservedResource(spec, item["jobQueueArn"], item.get("status") or "VALID")


# -- quota shares ---------------------------------------------------------------------------


def _sharing(spec: ShareSpec) -> dict[str, Any]:
    sharing: dict[str, Any] = {"strategy": spec.strategy.value}
    if spec.strategy is Strategy.LEND_AND_BORROW:
        sharing["borrowLimit"] = spec.borrow_limit
    return sharing


def _preemption(spec: ShareSpec) -> dict[str, str]:
    return {"inSharePreemption": state(spec.in_share_preemption)}


def create_share(spec: ShareSpec) -> Request:
    return {
        "quotaShareName": spec.name,
        "jobQueue": spec.queue,
        "capacityLimits": capacity_limits(spec.capacity),
        "resourceSharingConfiguration": _sharing(spec),
        "preemptionConfiguration": _preemption(spec),
        "state": state(spec.enabled),
        **_tags(spec.tags),
    }


def update_share(spec: ShareSpec, arn: str, fields: frozenset[str]) -> Request:
    request: Request = {"quotaShareArn": arn}
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
    item: Mapping[str, Any], queue: str, tags: Mapping[str, str]
) -> ObservedResource:
    sharing = item.get("resourceSharingConfiguration") or {}
    strategy = Strategy(sharing.get("strategy", "RESERVE"))
    borrow = sharing.get("borrowLimit")
    preemption = (item.get("preemptionConfiguration") or {}).get("inSharePreemption")
    spec = ShareSpec(
        queue=queue,
        name=item["quotaShareName"],
        capacity=capacity(item.get("capacityLimits")),
        strategy=strategy,
        borrow_limit=UNLIMITED if borrow is None else int(borrow),
        in_share_preemption=preemption == "ENABLED",
        enabled=enabled(item.get("state")),
        tags=dict(tags),
    )
    return ObservedResource(spec, item["quotaShareArn"], item.get("status") or "VALID")


def share_arn(queue_arn: str, name: str) -> str:
    """``<jobQueueArn>/quota-share/<name>`` (AWS's quota-share ARN format)."""
    return f"{queue_arn}/quota-share/{name}"


# -- jobs -----------------------------------------------------------------------------------


def live_job(item: Mapping[str, Any], queue: str) -> LiveJob:
    """A ListServiceJobs summary -> ``LiveJob`` (times in epoch seconds)."""
    return live.live_job(item, queue)
