"""GetJobQueueSnapshot: the front of the queue and of each share, and capacity in use."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quotactl.emulator import validate as v
from quotactl.emulator.handlers.common import find
from quotactl.core.engine import HOLDING, JobStatus
from quotactl.emulator.models import JobQueue, QuotaShare, ServiceJob, ms

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
    runnable = (JobStatus.RUNNABLE,)
    ref = queue.seq
    waiting = ctx.tx.jobs(
        queue_ref=ref, statuses=runnable, in_queue_order=True, limit=FRONT_OF_QUEUE
    )
    active = ctx.tx.jobs(queue_ref=ref, statuses=HOLDING, newest_first=False)
    heads = [
        ctx.tx.jobs(queue_ref=ref, statuses=runnable, share=s, in_queue_order=True, limit=1)[0]
        for s in ctx.tx.shares_waiting(ref)
    ]
    heads.sort(key=lambda j: (-(j.priority or 0), j.seq))
    fronts = {str(j.share): [_entry(j)] for j in heads}
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
            "jobs": [_entry(j) for j in waiting],
            "lastUpdatedAt": now,
        },
        "frontOfQuotaShares": {"quotaShares": fronts, "lastUpdatedAt": now},
        "queueUtilization": utilization,
    }
