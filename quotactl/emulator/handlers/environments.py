"""Service environments: Create/Update/Delete/DescribeServiceEnvironments."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quotactl.core.states import STATES, LifecycleStatus, State
from quotactl.core.transitions import transition_resource
from quotactl.emulator.account import request_checks as v
from quotactl.emulator.account.models import NUM_INSTANCES, JobQueue, ServiceEnvironment
from quotactl.emulator.errors import ClientException
from quotactl.emulator.handlers.common import (
    capacity_limits,
    find,
    require_disabled,
    require_settled,
    tag_new,
)

if TYPE_CHECKING:
    from quotactl.emulator.scheduling.context import Context

Params = dict[str, Any]
MAX_ENVIRONMENTS = 50


def create_service_environment(ctx: Context, params: Params) -> dict[str, Any]:
    name = v.name(params, "serviceEnvironmentName")
    v.enum(params, "serviceEnvironmentType", ["SAGEMAKER_TRAINING"])
    state = v.enum(params, "state", STATES, default=State.ENABLED)
    owner = f"service environment {name!r}"
    limits = capacity_limits(params, "capacityLimits", instance_types_only=False, owner=owner)
    v.tags(params.get("tags"))
    if ctx.tx.get(ServiceEnvironment, name) is not None:
        raise ClientException("Object already exists")
    if ctx.tx.count(ServiceEnvironment) >= MAX_ENVIRONMENTS:
        raise ClientException(
            f"the account already has {MAX_ENVIRONMENTS} service environments, the AWS limit"
        )
    environment = ServiceEnvironment(
        name=name,
        arn=ctx.account.arn(ServiceEnvironment.KIND, name),
        state=state,
        status=LifecycleStatus.CREATING,
        status_since=ctx.now,
        capacity_limits=limits,
    )
    ctx.tx.insert(environment)
    tag_new(ctx, environment.arn, params)
    ctx.settling(environment.arn)
    return {"serviceEnvironmentName": name, "serviceEnvironmentArn": environment.arn}


def update_service_environment(ctx: Context, params: Params) -> dict[str, Any]:
    environment = find(
        ctx,
        ServiceEnvironment,
        v.required_string(params, "serviceEnvironment"),
        "serviceEnvironment",
    )
    require_settled(environment, "update")
    state = v.enum(params, "state", STATES, default=environment.state)
    if params.get("capacityLimits") is not None:
        users = _queues_using(ctx, environment.name)
        quota_managed = any(q.quota_managed for q in users)
        limits = capacity_limits(
            params,
            "capacityLimits",
            instance_types_only=quota_managed,
            owner=f"service environment {environment.name!r}",
        )
        if len(users) > 1 and all(c["capacityUnit"] != NUM_INSTANCES for c in limits):
            raise ClientException(
                f"service environment {environment.name!r} serves job queues "
                f"{', '.join(q.name for q in users)}; a quota-management environment "
                "(instance-type capacity limits) serves one job queue"
            )
        environment.capacity_limits = limits
    environment.state = state
    transition_resource(environment, LifecycleStatus.UPDATING, ctx.now)
    ctx.tx.update(environment)
    ctx.settling(environment.arn)
    ctx.changed()
    return {
        "serviceEnvironmentName": environment.name,
        "serviceEnvironmentArn": environment.arn,
    }


def delete_service_environment(ctx: Context, params: Params) -> dict[str, Any]:
    environment = find(
        ctx,
        ServiceEnvironment,
        v.required_string(params, "serviceEnvironment"),
        "serviceEnvironment",
    )
    if environment.status == LifecycleStatus.DELETING:
        return {}
    require_disabled(environment)
    require_settled(environment, "delete")
    users = [q.name for q in _queues_using(ctx, environment.name)]
    if users:
        raise ClientException(
            f"service environment {environment.name!r} is still used by job queue(s) "
            f"{', '.join(users)}; remove it from their serviceEnvironmentOrder first"
        )
    transition_resource(environment, LifecycleStatus.DELETING, ctx.now)
    ctx.tx.update(environment)
    ctx.settling(environment.arn)
    return {}


def describe_service_environments(ctx: Context, params: Params) -> dict[str, Any]:
    wanted = v.array(params, "serviceEnvironments")
    limit = v.max_results(params)
    if wanted:
        if len(wanted) > 100:
            raise ClientException(
                f"serviceEnvironments has {len(wanted)} entries; at most 100 are allowed"
            )
        found = []
        for value in wanted:
            try:
                found.append(find(ctx, ServiceEnvironment, str(value), "serviceEnvironments"))
            except ClientException:
                continue  # AWS leaves unknown names out rather than failing
        return {"serviceEnvironments": [e.to_api(ctx.tx.tags(e.arn)) for e in found]}
    after = v.decode_token(params, "DescribeServiceEnvironments") or 0
    page = ctx.tx.records(ServiceEnvironment, after=after, limit=limit + 1)
    out: dict[str, Any] = {
        "serviceEnvironments": [e.to_api(ctx.tx.tags(e.arn)) for e in page[:limit]]
    }
    if len(page) > limit:
        out["nextToken"] = v.encode_token("DescribeServiceEnvironments", page[limit - 1].seq)
    return out


def _queues_using(ctx: Context, environment: str) -> list[JobQueue]:
    return [q for q in ctx.tx.records(JobQueue) if q.environment == environment]


def uses_instance_types(environment: ServiceEnvironment) -> bool:
    return all(c["capacityUnit"] != NUM_INSTANCES for c in environment.capacity_limits)
