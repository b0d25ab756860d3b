"""Scheduling policies: Create/Update/Delete/DescribeSchedulingPolicies, ListSchedulingPolicies."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quotactl.emulator.account import request_checks as v
from quotactl.emulator.account.arns import parse_arn
from quotactl.emulator.account.models import JobQueue, SchedulingPolicy
from quotactl.emulator.errors import ClientException
from quotactl.emulator.handlers.common import tag_new

if TYPE_CHECKING:
    from quotactl.emulator.scheduling.context import Context

Params = dict[str, Any]


def _policies(params: Params) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    quota = v.struct(params, "quotaSharePolicy")
    fair = v.struct(params, "fairsharePolicy")
    if quota is not None and fair is not None:
        raise ClientException(
            "a scheduling policy takes quotaSharePolicy or fairsharePolicy, not both"
        )
    if fair is not None:
        fair = v.fairshare_policy(fair)
    if quota is not None:
        quota = {
            "idleResourceAssignmentStrategy": v.enum(
                quota, "idleResourceAssignmentStrategy", ["FIFO"]
            )
        }
    return quota, fair


def find_policy(ctx: Context, arn: str, field: str = "arn") -> SchedulingPolicy:
    """The policy an ARN names; ``field`` is the request member, for the error message."""
    parsed = parse_arn(arn)
    if parsed is None or parsed.kind != SchedulingPolicy.KIND:
        raise ClientException(f"{field} {arn!r} is not a scheduling policy ARN")
    policy = ctx.tx.get(SchedulingPolicy, parsed.name)
    if policy is None or policy.arn != arn:
        raise ClientException(f"scheduling policy {arn!r} does not exist")
    return policy


def create_scheduling_policy(ctx: Context, params: Params) -> dict[str, Any]:
    name = v.name(params, "name")
    quota, fair = _policies(params)
    v.tags(params.get("tags"))
    if ctx.tx.get(SchedulingPolicy, name) is not None:
        raise ClientException("Object already exists")
    policy = SchedulingPolicy(
        name=name,
        arn=ctx.account.arn(SchedulingPolicy.KIND, name),
        quota_share_policy=quota,
        fairshare_policy=fair,
    )
    ctx.tx.insert(policy)
    tag_new(ctx, policy.arn, params)
    return {"name": name, "arn": policy.arn}


def update_scheduling_policy(ctx: Context, params: Params) -> dict[str, Any]:
    policy = find_policy(ctx, v.required_string(params, "arn"))
    quota, fair = _policies(params)
    if (policy.quota_share_policy is not None and fair is not None) or (
        policy.fairshare_policy is not None and quota is not None
    ):
        raise ClientException(
            f"the type of scheduling policy {policy.name!r} cannot change between "
            "quotaSharePolicy and fairsharePolicy"
        )
    if policy.quota_share_policy is not None and quota is None and "quotaSharePolicy" in params:
        raise ClientException("quotaSharePolicy cannot be removed")
    if quota is not None:
        policy.quota_share_policy = quota
    if fair is not None:
        policy.fairshare_policy = fair
    ctx.tx.update(policy)
    return {}


def delete_scheduling_policy(ctx: Context, params: Params) -> dict[str, Any]:
    policy = find_policy(ctx, v.required_string(params, "arn"))
    users = [q.name for q in ctx.tx.records(JobQueue) if q.scheduling_policy_arn == policy.arn]
    if users:
        raise ClientException(
            f"scheduling policy {policy.name!r} is in use by job queue(s) {', '.join(users)}; "
            "delete them or switch them to another policy first"
        )
    ctx.tx.delete(policy)
    return {}


def describe_scheduling_policies(ctx: Context, params: Params) -> dict[str, Any]:
    arns = v.array(params, "arns") or []
    if len(arns) > 100:
        raise ClientException(f"arns has {len(arns)} entries; at most 100 are allowed")
    found = []
    for arn in arns:
        parsed = parse_arn(str(arn))
        if parsed is None or parsed.kind != SchedulingPolicy.KIND:
            continue
        policy = ctx.tx.get(SchedulingPolicy, parsed.name)
        if policy is not None and policy.arn == arn:
            found.append(policy.to_api(ctx.tx.tags(policy.arn)))
    return {"schedulingPolicies": found}


def list_scheduling_policies(ctx: Context, params: Params) -> dict[str, Any]:
    limit = v.max_results(params)
    after = v.decode_token(params, "ListSchedulingPolicies") or 0
    page = ctx.tx.records(SchedulingPolicy, after=after, limit=limit + 1)
    out: dict[str, Any] = {"schedulingPolicies": [{"arn": p.arn} for p in page[:limit]]}
    if len(page) > limit:
        out["nextToken"] = v.encode_token("ListSchedulingPolicies", page[limit - 1].seq)
    return out
