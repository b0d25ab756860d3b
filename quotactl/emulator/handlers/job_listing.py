"""ListServiceJobs: newest first, by status (RUNNING by default), queue and one filter."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from quotactl.core.states import JOB_STATUSES, JobStatus
from quotactl.emulator.account import request_checks as v
from quotactl.emulator.account.models import JobQueue
from quotactl.emulator.errors import ClientException
from quotactl.emulator.handlers.common import find
from quotactl.emulator.wire import rest_json as wire

if TYPE_CHECKING:
    from quotactl.emulator.account.service_job import ServiceJob
    from quotactl.emulator.scheduling.context import Context

Params = dict[str, Any]
FILTERS = (
    "JOB_NAME",
    "BEFORE_CREATED_AT",
    "AFTER_CREATED_AT",
    "SHARE_IDENTIFIER",
    "QUOTA_SHARE_NAME",
)
SHARE_FILTERS = ("SHARE_IDENTIFIER", "QUOTA_SHARE_NAME")
EPOCH_MS = re.compile(r"[0-9]{1,19}")  # ASCII digits only: "²".isdigit() but int("²") fails


def _filter(params: Params) -> tuple[str, str] | None:
    filters = v.array(params, "filters") or []
    if not filters:
        return None
    if len(filters) > 1:
        raise ClientException(f"filters has {len(filters)} entries; only one filter is allowed")
    entry = filters[0]
    if not isinstance(entry, dict):
        raise ClientException("filters[0] must be an object with name and values")
    name = v.enum(entry, "name", FILTERS)
    values = v.array(entry, "values") or []
    if len(values) != 1 or not isinstance(values[0], str):
        raise ClientException(f"filter {name} takes exactly one string value, got {values!r}")
    value = values[0]
    if name in ("BEFORE_CREATED_AT", "AFTER_CREATED_AT") and not EPOCH_MS.fullmatch(value):
        raise ClientException(f"filter {name} takes epoch milliseconds, got {value!r}")
    return name, value


def _matches(job: ServiceJob, name: str, value: str) -> bool:
    if name == "JOB_NAME":
        if value.endswith("*"):
            return job.name.lower().startswith(value[:-1].lower())
        return job.name.lower() == value.lower()
    created = round(job.created_at * 1000)
    if name == "BEFORE_CREATED_AT":
        return created < int(value)
    if name == "AFTER_CREATED_AT":
        return created > int(value)
    if name == "SHARE_IDENTIFIER":
        return job.share_identifier == value
    return job.share == value


def list_service_jobs(ctx: Context, params: Params) -> dict[str, Any]:
    queue_ref = None
    if params.get("jobQueue") is not None:
        queue_ref = find(ctx, JobQueue, v.required_string(params, "jobQueue"), "jobQueue").seq
    status = v.string(params, "jobStatus")
    if status is not None and status not in JOB_STATUSES:
        raise ClientException(
            f"jobStatus {status!r} is invalid: use one of {', '.join(JOB_STATUSES)}"
        )
    limit = v.max_results(params)
    before = v.decode_token(params, "ListServiceJobs")
    chosen = _filter(params)
    statuses: tuple[str, ...] | None = (status or JobStatus.RUNNING,)
    if chosen is not None:
        # A filter replaces the status, except that the share filters combine with it.
        statuses = (status,) if status is not None and chosen[0] in SHARE_FILTERS else None
    share = chosen[1] if chosen is not None and chosen[0] == "QUOTA_SHARE_NAME" else None
    if chosen is None or chosen[0] == "QUOTA_SHARE_NAME":  # the page is one index range
        found = ctx.tx.summaries(
            queue_ref=queue_ref, statuses=statuses, share=share, before=before, limit=limit + 1
        )
        items = wire.StoredJSON(item for item, _ in found[:limit])
        out: dict[str, Any] = {"jobSummaryList": items}
        if len(found) > limit:
            out["nextToken"] = v.encode_token("ListServiceJobs", found[limit - 1][1])
        return out
    rows = [
        j
        for j in ctx.tx.jobs(queue_ref=queue_ref, statuses=statuses, before=before)
        if _matches(j, *chosen)
    ]
    out = {"jobSummaryList": [j.summary() for j in rows[:limit]]}
    if len(rows) > limit:
        out["nextToken"] = v.encode_token("ListServiceJobs", rows[limit - 1].seq)
    return out
