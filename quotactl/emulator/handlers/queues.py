"""Job queues: Create/Update/Delete/DescribeJobQueues (SAGEMAKER_TRAINING queues only)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quotactl.core.resources.desired import TIME_LIMIT_REASONS
from quotactl.core.states import STATES, JobStatus, LifecycleStatus, State
from quotactl.core.transitions import transition_resource
from quotactl.emulator.account import request_checks as v
from quotactl.emulator.account.models import JobQueue, ServiceEnvironment
from quotactl.emulator.errors import ClientException
from quotactl.emulator.handlers.common import find, require_disabled, require_settled, tag_new
from quotactl.emulator.handlers.environments import uses_instance_types
from quotactl.emulator.handlers.policies import find_policy

if TYPE_CHECKING:
    from quotactl.emulator.scheduling.context import Context

Params = dict[str, Any]
MAX_QUEUES = 50


def _environment(
    ctx: Context, params: Params, queue: str
) -> tuple[ServiceEnvironment, list[dict[str, Any]]]:
    order = v.array(params, "serviceEnvironmentOrder") or []
    if len(order) != 1:
        raise ClientException(
            f"serviceEnvironmentOrder of job queue {queue!r} has {len(order)} entries; a "
            "SAGEMAKER_TRAINING job queue takes exactly one service environment"
        )
    entry = order[0]
    if not isinstance(entry, dict):
        raise ClientException("serviceEnvironmentOrder[0] must be an object")
    v.integer(entry, "order", 0, at="serviceEnvironmentOrder[0].")
    environment = find(
        ctx,
        ServiceEnvironment,
        v.required_string(entry, "serviceEnvironment"),
        "serviceEnvironmentOrder[0].serviceEnvironment",
    )
    if environment.status != LifecycleStatus.VALID:
        raise ClientException(
            f"service environment {environment.name!r} is {environment.status}; it must be VALID"
        )
    return environment, [{"order": entry.get("order", 1), "serviceEnvironment": environment.arn}]


def _check_environment(
    ctx: Context, queue: str, environment: ServiceEnvironment, *, quota_managed: bool
) -> None:
    """AWS's rules for a queue's service environment: a quota-share queue needs instance-type
    capacity limits, and an environment with instance-type limits (a quota-management
    environment) serves one job queue, whatever that queue's scheduling policy. See
    https://docs.aws.amazon.com/batch/latest/userguide/create-quota-management-resources.html
    """
    quota_environment = uses_instance_types(environment)
    if quota_managed and not quota_environment:
        raise ClientException(
            f"service environment {environment.name!r} counts NUM_INSTANCES; a job queue with a "
            "quota-share scheduling policy needs instance-type capacity limits"
        )
    if not quota_environment:
        return
    others = [
        q.name
        for q in ctx.tx.records(JobQueue)
        if q.environment == environment.name and q.name != queue
    ]
    if others:
        raise ClientException(
            f"service environment {environment.name!r} already serves job queue "
            f"{others[0]!r}; a quota-management environment serves one job queue"
        )


def _time_limits(params: Params) -> list[dict[str, Any]] | None:
    actions = v.array(params, "jobStateTimeLimitActions")
    if actions is None:
        return None
    out = []
    for index, action in enumerate(actions):
        where = f"jobStateTimeLimitActions[{index}]"
        if not isinstance(action, dict):
            raise ClientException(f"{where} must be an object")
        reason = v.enum(action, "reason", TIME_LIMIT_REASONS, at=f"{where}.")
        v.enum(action, "state", [JobStatus.RUNNABLE], at=f"{where}.")
        if action.get("action") != "TERMINATE":
            raise ClientException(
                f"{where}.action {action.get('action')!r} is invalid: SAGEMAKER_TRAINING job "
                "queues support TERMINATE only"
            )
        seconds = v.integer(action, "maxTimeSeconds", 600, 86400, at=f"{where}.")
        out.append(
            {
                "reason": reason,
                "state": JobStatus.RUNNABLE,
                "maxTimeSeconds": seconds,
                "action": "TERMINATE",
            }
        )
    return out


def create_job_queue(ctx: Context, params: Params) -> dict[str, Any]:
    name = v.name(params, "jobQueueName")
    state = v.enum(params, "state", STATES, default=State.ENABLED)
    priority = v.integer(params, "priority", 0, 1000)
    if priority is None:
        raise ClientException("priority is required (0 to 1000)")
    if params.get("computeEnvironmentOrder"):
        if params.get("serviceEnvironmentOrder"):
            raise ClientException(
                "a job queue takes computeEnvironmentOrder or serviceEnvironmentOrder, not both"
            )
        raise ClientException(
            "computeEnvironmentOrder is not supported by the quotactl emulator: it implements "
            "SAGEMAKER_TRAINING job queues with a serviceEnvironmentOrder"
        )
    kind = v.enum(
        params,
        "jobQueueType",
        ["SAGEMAKER_TRAINING", "EKS", "ECS", "ECS_FARGATE", "ECS_MANAGED_INSTANCES"],
        default="SAGEMAKER_TRAINING",
    )
    if kind != "SAGEMAKER_TRAINING":
        raise ClientException(
            f"jobQueueType {kind} needs a computeEnvironmentOrder; a serviceEnvironmentOrder "
            "requires jobQueueType SAGEMAKER_TRAINING"
        )
    environment, order = _environment(ctx, params, name)
    policy = None
    if params.get("schedulingPolicyArn") is not None:
        policy = find_policy(
            ctx, v.required_string(params, "schedulingPolicyArn"), "schedulingPolicyArn"
        )
    quota_managed = policy is not None and policy.quota_share_policy is not None
    _check_environment(ctx, name, environment, quota_managed=quota_managed)
    limits = _time_limits(params) or []
    v.tags(params.get("tags"))
    if ctx.tx.get(JobQueue, name) is not None:
        raise ClientException("Object already exists")
    if ctx.tx.count(JobQueue) >= MAX_QUEUES:
        raise ClientException(f"the account already has {MAX_QUEUES} job queues, the AWS limit")
    queue = JobQueue(
        name=name,
        arn=ctx.account.arn(JobQueue.KIND, name),
        state=state,
        status=LifecycleStatus.CREATING,
        status_since=ctx.now,
        priority=priority,
        scheduling_policy_arn=policy.arn if policy else None,
        quota_managed=quota_managed,
        environment=environment.name,
        service_environment_order=order,
        job_state_time_limit_actions=limits,
    )
    ctx.tx.insert(queue)
    tag_new(ctx, queue.arn, params)
    ctx.settling(queue.arn)
    return {"jobQueueName": name, "jobQueueArn": queue.arn}


def update_job_queue(ctx: Context, params: Params) -> dict[str, Any]:
    queue = find(ctx, JobQueue, v.required_string(params, "jobQueue"), "jobQueue")
    require_settled(queue, "update")
    queue.state = v.enum(params, "state", STATES, default=queue.state)
    priority = v.integer(params, "priority", 0, 1000)
    if priority is not None:
        queue.priority = priority
    if params.get("computeEnvironmentOrder"):
        raise ClientException(
            f"job queue {queue.name!r} is a SAGEMAKER_TRAINING queue; it takes a "
            "serviceEnvironmentOrder, not a computeEnvironmentOrder"
        )
    if params.get("schedulingPolicyArn") is not None:
        policy = find_policy(
            ctx, v.required_string(params, "schedulingPolicyArn"), "schedulingPolicyArn"
        )
        if queue.scheduling_policy_arn is None:
            raise ClientException(
                f"job queue {queue.name!r} was created without a scheduling policy and cannot "
                "get one; create a new job queue instead"
            )
        if (policy.quota_share_policy is not None) != queue.quota_managed:
            raise ClientException(
                f"job queue {queue.name!r} cannot switch between a quota-share and a fair-share "
                "scheduling policy; it may only be replaced by one of the same type"
            )
        queue.scheduling_policy_arn = policy.arn
    if params.get("serviceEnvironmentOrder") is not None:
        environment, order = _environment(ctx, params, queue.name)
        _check_environment(ctx, queue.name, environment, quota_managed=queue.quota_managed)
        queue.environment, queue.service_environment_order = environment.name, order
    limits = _time_limits(params)
    if limits is not None:
        queue.job_state_time_limit_actions = limits
    transition_resource(queue, LifecycleStatus.UPDATING, ctx.now)
    queue.status_reason = None
    ctx.tx.update(queue)
    ctx.settling(queue.arn)
    ctx.remodelled(queue.name)
    return {"jobQueueName": queue.name, "jobQueueArn": queue.arn}


def delete_job_queue(ctx: Context, params: Params) -> dict[str, Any]:
    queue = find(ctx, JobQueue, v.required_string(params, "jobQueue"), "jobQueue")
    if queue.status == LifecycleStatus.DELETING:
        return {}
    require_disabled(queue)
    require_settled(queue, "delete")
    transition_resource(queue, LifecycleStatus.DELETING, ctx.now)
    queue.status_reason = None
    ctx.tx.update(queue)
    ctx.settling(queue.arn)
    return {}


def describe_job_queues(ctx: Context, params: Params) -> dict[str, Any]:
    wanted = v.array(params, "jobQueues")
    limit = v.max_results(params)
    if wanted:
        if len(wanted) > 100:
            raise ClientException(f"jobQueues has {len(wanted)} entries; at most 100 are allowed")
        found = []
        for value in wanted:
            try:
                found.append(find(ctx, JobQueue, str(value), "jobQueues"))
            except ClientException:
                continue  # AWS leaves unknown names out rather than failing
        return {"jobQueues": [q.to_api(ctx.tx.tags(q.arn)) for q in found]}
    after = v.decode_token(params, "DescribeJobQueues") or 0
    page = ctx.tx.records(JobQueue, after=after, limit=limit + 1)
    out: dict[str, Any] = {"jobQueues": [q.to_api(ctx.tx.tags(q.arn)) for q in page[:limit]]}
    if len(page) > limit:
        out["nextToken"] = v.encode_token("DescribeJobQueues", page[limit - 1].seq)
    return out
