"""GetJobQueueSnapshot: the front of the queue and of each share, and capacity in use."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quotactl.core.states import HOLDING
from quotactl.emulator.account import rules as v
from quotactl.emulator.account.models import JobQueue, QuotaShare, ms
from quotactl.emulator.handlers.common import find

if TYPE_CHECKING:
    from quotactl.emulator.account.service_job import ServiceJob
    from quotactl.emulator.scheduling.context import Context

Params = dict[str, Any]
FRONT_OF_QUEUE = 100


def _usage(jobs: list[ServiceJob]) -> list[dict[str, Any]]:
    total: dict[str, int] = {}
    for job in jobs:
        for unit, count in job.capacity.items():
            total[unit] = total.get(unit, 0) + count
    return [{"capacityUnit": u, "quantity": float(q)} for u, q in sorted(total.items())]


def _entry(arn: str, since: float) -> dict[str, Any]:
    return {"jobArn": arn, "earliestTimeAtPosition": ms(since)}


def get_job_queue_snapshot(ctx: Context, params: Params) -> dict[str, Any]:
    queue = find(ctx, JobQueue, v.required_string(params, "jobQueue"), "jobQueue")
    now = ms(ctx.now)
    ref = queue.seq
    waiting = ctx.tx.queue_front(ref, limit=FRONT_OF_QUEUE)
    active = ctx.tx.jobs(queue_ref=ref, statuses=HOLDING, newest_first=False)
    shares = ctx.tx.records(QuotaShare, parent=queue.name) if queue.quota_managed else []
    heads = [head for s in shares for head in ctx.tx.queue_front(ref, s.name, limit=1)]
    heads.sort(key=lambda h: (-h[3], h[4]))
    fronts = {str(h[2]): [_entry(h[0], h[1])] for h in heads}
    per_share: dict[str, list[ServiceJob]] = {}
    for job in active:
        per_share.setdefault(job.share or "", []).append(job)
    utilization: dict[str, Any] = {"totalCapacityUsage": _usage(active), "lastUpdatedAt": now}
    if queue.quota_managed:
        names = [s.name for s in shares]
        ranked = sorted(
            names, key=lambda n: -sum(sum(j.capacity.values()) for j in per_share.get(n, []))
        )
        utilization["quotaShareUtilization"] = {
            "topCapacityUtilization": [
                {"quotaShareName": n, "capacityUsage": _usage(per_share.get(n, []))}
                for n in ranked
                if per_share.get(n)
            ]
        }
    return {
        "frontOfQueue": {
            "jobs": [_entry(arn, since) for arn, since, *_ in waiting],
            "lastUpdatedAt": now,
        },
        "frontOfQuotaShares": {"quotaShares": fronts, "lastUpdatedAt": now},
        "queueUtilization": utilization,
    }
