"""Quota shares: Create/Update/Delete/DescribeQuotaShare, ListQuotaShares."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quotactl.core.resources.desired import Strategy
from quotactl.core.states import STATES, LifecycleStatus, State
from quotactl.core.transitions import transition_resource
from quotactl.emulator.account import request_checks as v
from quotactl.emulator.account.arns import parse_arn
from quotactl.emulator.account.models import JobQueue, QuotaShare
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
MAX_SHARES_PER_QUEUE = 20
STRATEGIES = tuple(s.value for s in Strategy)


def find_share(ctx: Context, arn: str) -> QuotaShare:
    parsed = parse_arn(arn)
    if parsed is None or parsed.kind != QuotaShare.KIND or parsed.share is None:
        raise ClientException(
            f"quotaShareArn {arn!r} is not a quota share ARN "
            "(arn:aws:batch:<region>:<account>:job-queue/<queue>/quota-share/<name>)"
        )
    share = ctx.tx.get(QuotaShare, parsed.share, parent=parsed.name)
    if share is None or share.arn != arn:
        raise ClientException(f"quota share {arn!r} does not exist")
    return share


def _sharing(params: Params, owner: str) -> tuple[str, int | None]:
    config = v.struct(params, "resourceSharingConfiguration")
    if config is None:
        raise ClientException("resourceSharingConfiguration is required")
    where = "resourceSharingConfiguration."
    strategy = v.enum(config, "strategy", STRATEGIES, at=where)
    borrow = v.integer(config, "borrowLimit", -1, at=where)
    if borrow is not None and strategy != "LEND_AND_BORROW":
        raise ClientException(
            f"borrowLimit {borrow} is not allowed for {owner} with strategy {strategy}: "
            "only LEND_AND_BORROW shares borrow"
        )
    return strategy, borrow


def _preemption(params: Params) -> str:
    config = v.struct(params, "preemptionConfiguration")
    if config is None:
        raise ClientException("preemptionConfiguration is required")
    return v.enum(config, "inSharePreemption", STATES, at="preemptionConfiguration.")


def create_quota_share(ctx: Context, params: Params) -> dict[str, Any]:
    name = v.name(params, "quotaShareName")
    queue = find(ctx, JobQueue, v.required_string(params, "jobQueue"), "jobQueue")
    owner = f"quota share {name!r}"
    if not queue.quota_managed:
        raise ClientException(
            f"job queue {queue.name!r} has no quota-share scheduling policy; quota shares need a "
            "queue whose scheduling policy has a quotaSharePolicy"
        )
    if queue.status != LifecycleStatus.VALID:
        raise ClientException(f"job queue {queue.name!r} is {queue.status}; it must be VALID")
    limits = capacity_limits(params, "capacityLimits", instance_types_only=True, owner=owner)
    strategy, borrow = _sharing(params, owner)
    preemption = _preemption(params)
    state = v.enum(params, "state", STATES, default=State.ENABLED)
    v.tags(params.get("tags"))
    if ctx.tx.get(QuotaShare, name, parent=queue.name) is not None:
        raise ClientException("Object already exists")
    if ctx.tx.count(QuotaShare, parent=queue.name) >= MAX_SHARES_PER_QUEUE:
        raise ClientException(
            f"job queue {queue.name!r} already has {MAX_SHARES_PER_QUEUE} quota shares, the "
            "AWS limit"
        )
    share = QuotaShare(
        name=name,
        arn=ctx.account.share_arn(queue.arn, name),
        state=state,
        status=LifecycleStatus.CREATING,
        status_since=ctx.now,
        queue=queue.name,
        queue_arn=queue.arn,
        capacity_limits=limits,
        strategy=strategy,
        borrow_limit=borrow,
        in_share_preemption=preemption,
    )
    ctx.tx.insert(share)
    tag_new(ctx, share.arn, params)
    ctx.settling(share.arn)
    ctx.remodelled(queue.name)
    return {"quotaShareName": name, "quotaShareArn": share.arn}


def update_quota_share(ctx: Context, params: Params) -> dict[str, Any]:
    share = find_share(ctx, v.required_string(params, "quotaShareArn"))
    require_settled(share, "update")
    owner = f"quota share {share.name!r}"
    if params.get("capacityLimits") is not None:
        # The whole list is replaced (AWS's docs do not say; a merge could never remove a type).
        share.capacity_limits = capacity_limits(
            params, "capacityLimits", instance_types_only=True, owner=owner
        )
    if params.get("resourceSharingConfiguration") is not None:
        share.strategy, share.borrow_limit = _sharing(params, owner)
    if params.get("preemptionConfiguration") is not None:
        share.in_share_preemption = _preemption(params)
    share.state = v.enum(params, "state", STATES, default=share.state)
    transition_resource(share, LifecycleStatus.UPDATING, ctx.now)
    ctx.tx.update(share)
    ctx.settling(share.arn)
    ctx.remodelled(share.queue)
    return {"quotaShareName": share.name, "quotaShareArn": share.arn}


def delete_quota_share(ctx: Context, params: Params) -> dict[str, Any]:
    share = find_share(ctx, v.required_string(params, "quotaShareArn"))
    if share.status == LifecycleStatus.DELETING:
        return {}
    require_disabled(share)
    require_settled(share, "delete")
    transition_resource(share, LifecycleStatus.DELETING, ctx.now)
    ctx.tx.update(share)
    ctx.settling(share.arn)
    return {}


def describe_quota_share(ctx: Context, params: Params) -> dict[str, Any]:
    share = find_share(ctx, v.required_string(params, "quotaShareArn"))
    return share.to_api(ctx.tx.tags(share.arn))


def list_quota_shares(ctx: Context, params: Params) -> dict[str, Any]:
    queue = find(ctx, JobQueue, v.required_string(params, "jobQueue"), "jobQueue")
    limit = v.max_results(params)
    after = v.decode_token(params, "ListQuotaShares") or 0
    page = ctx.tx.records(QuotaShare, parent=queue.name, after=after, limit=limit + 1)
    # Each item with its tags, as the API reference's example shows (botocore's model of the
    # item has no tags, so a stock client drops them; quotactl reads them from the body).
    # The strict variant lists them without (docs/emulator.md).
    strict = ctx.variant == "strict"
    out: dict[str, Any] = {
        "quotaShares": [s.to_api({} if strict else ctx.tx.tags(s.arn)) for s in page[:limit]]
    }
    if len(page) > limit:
        out["nextToken"] = v.encode_token("ListQuotaShares", page[limit - 1].seq)
    return out
