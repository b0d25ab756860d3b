"""GetJobQueueSnapshot: the front of the queue and of each share, and capacity in use."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quotactl.emulator import validate as v
from quotactl.emulator.handlers.common import find
from quotactl.emulator.models import ACTIVE, RUNNABLE, JobQueue, QuotaShare, ServiceJob, ms

if TYPE_CHECKING:
    from quotactl.emulator.context import Context

Params = dict[str, Any]
FRONT_OF_QUEUE = 100


def _usage(jobs: list[ServiceJob]) -> list[dict[str, Any]]:
    total: dict[str, int] = {}
    for job in jobs:
        for unit, count in job.capacity.items():
            total[unit] = total.get(unit, 0) + count
    return [{"capacityUnit": u, "quantity": float(q)} for u, q in sorted(total.items())]


def _entry(job: ServiceJob) -> dict[str, Any]:
    return {"jobArn": job.arn, "earliestTimeAtPosition": ms(job.status_since)}


def get_job_queue_snapshot(ctx: Context, params: Params) -> dict[str, Any]:
    queue = find(ctx, JobQueue, v.required_string(params, "jobQueue"), "jobQueue")
    now = ms(ctx.now)
    waiting: list[ServiceJob] = sorted(
        ctx.tx.jobs(queue_ref=queue.seq, statuses=(RUNNABLE,), newest_first=False),
        key=lambda j: (-(j.priority or 0), j.seq),
    )
    active = ctx.tx.jobs(queue_ref=queue.seq, statuses=ACTIVE, newest_first=False)
    fronts: dict[str, list[dict[str, Any]]] = {}
    for job in waiting:
        if job.share is not None and job.share not in fronts:
            fronts[job.share] = [_entry(job)]
    per_share: dict[str, list[ServiceJob]] = {}
    for job in active:
        per_share.setdefault(job.share or "", []).append(job)
    utilization: dict[str, Any] = {"totalCapacityUsage": _usage(active), "lastUpdatedAt": now}
    if queue.quota_managed:
        names = [s.name for s in ctx.tx.records(QuotaShare, parent=queue.name)]
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
            "jobs": [_entry(j) for j in waiting[:FRONT_OF_QUEUE]],
            "lastUpdatedAt": now,
        },
        "frontOfQuotaShares": {"quotaShares": fronts, "lastUpdatedAt": now},
        "queueUtilization": utilization,
    }
