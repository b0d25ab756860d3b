"""TagResource, UntagResource, ListTagsForResource on any resource or service job ARN."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quotactl.emulator.account import request_checks as v
from quotactl.emulator.account.arns import job_id_of, parse_arn
from quotactl.emulator.errors import ClientException

if TYPE_CHECKING:
    from quotactl.emulator.scheduling.context import Context

Params = dict[str, Any]


def _existing(ctx: Context, arn: str) -> str:
    parsed = parse_arn(arn)
    if parsed is None:
        raise ClientException(f"resourceArn {arn!r} is not an AWS Batch ARN")
    if parsed.kind == "service-job":
        job_id = job_id_of(arn)
        found = job_id is not None and ctx.tx.job(job_id) is not None
    else:
        found = ctx.tx.has_arn(arn)
    if not found or not ctx.account.owns(arn):
        raise ClientException(f"resource {arn!r} does not exist")
    return arn


def tag_resource(ctx: Context, params: Params) -> dict[str, Any]:
    arn = _existing(ctx, v.required_string(params, "resourceArn"))
    tags = v.tags(v.required(params, "tags"))
    merged = {**ctx.tx.tags(arn), **tags}
    if len(merged) > v.MAX_TAGS:
        raise ClientException(
            f"resource {arn!r} would have {len(merged)} tags; at most {v.MAX_TAGS} are allowed"
        )
    ctx.tx.set_tags(arn, tags)
    return {}


def untag_resource(ctx: Context, params: Params) -> dict[str, Any]:
    arn = _existing(ctx, v.required_string(params, "resourceArn"))
    keys = v.array(params, "tagKeys") or []
    if not keys:
        raise ClientException("tagKeys must name at least one tag key")
    ctx.tx.remove_tags(arn, [str(k) for k in keys])
    return {}


def list_tags_for_resource(ctx: Context, params: Params) -> dict[str, Any]:
    arn = v.required_string(params, "resourceArn")
    parsed = parse_arn(arn)
    if parsed is not None and parsed.kind != "service-job" and ctx.account.owns(arn):
        found = ctx.tx.resource_tags(arn)  # existence and tags in one read
        if found is not None:
            return {"tags": found}
    return {"tags": ctx.tx.tags(_existing(ctx, arn))}
