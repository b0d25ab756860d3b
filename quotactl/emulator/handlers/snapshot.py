"""GetJobQueueSnapshot: the front of the queue and of each share, and capacity in use.

What each field means is AWS's (botocore's model and
https://docs.aws.amazon.com/batch/latest/APIReference/API_GetJobQueueSnapshot.html):

* ``frontOfQueue.jobs``: the first 100 RUNNABLE jobs in dispatch order (``core/engine/front``);
  FIFO queues by submission time, quota-share queues by job priority and share usage.
* ``earliestTimeAtPosition``: when the job moved to its current position: the latest of its
  entering RUNNABLE, a job entering the queue ahead of it, and a job ahead of it leaving.
* ``lastUpdatedAt``: when that list (or the share heads, or the usage) last changed, not
  the time of the request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quotactl.core.engine.front import Waiting, dispatch_order
from quotactl.core.engine.order import dispatch_key, submission_rank
from quotactl.core.states import HOLDING, JobStatus
from quotactl.emulator.account import request_checks as v
from quotactl.emulator.account.models import JobQueue, QuotaShare, ms
from quotactl.emulator.handlers.common import find

if TYPE_CHECKING:
    from collections.abc import Callable

    from quotactl.emulator.account.service_job import ServiceJob
    from quotactl.emulator.scheduling.context import Context

Params = dict[str, Any]
FRONT_OF_QUEUE = 100
_RUNNABLE = (JobStatus.RUNNABLE,)


def _usage(jobs: list[ServiceJob]) -> list[dict[str, Any]]:
    total: dict[str, int] = {}
    for job in jobs:
        for unit, count in job.capacity.items():
            total[unit] = total.get(unit, 0) + count
    return [{"capacityUnit": u, "quantity": float(q)} for u, q in sorted(total.items())]


def _waiting(job: ServiceJob, share: str) -> Waiting:
    unit, count = min(job.capacity.items()) if job.capacity else ("", 0)
    return Waiting(job.job_id, share, unit, count, _submitted(job))


def _left_at(job: ServiceJob) -> float | None:
    """When a job that is not RUNNABLE left the queue: its SCHEDULED time, or its stop if it
    was terminated while it waited."""
    if job.status in HOLDING:
        return job.scheduled_at
    last = job.attempts[-1] if job.attempts else None
    if last is not None and last.stopped_at == job.stopped_at and job.scheduled_at is not None:
        return job.scheduled_at
    return job.stopped_at


def _submitted(job: ServiceJob) -> int:
    """Submission order as the engine sees it (``createdAt``, then job ID), never row order."""
    return submission_rank(job.created_at, job.job_id)


def _rank(job: ServiceJob) -> tuple[int, int]:
    """A share's dispatch order, the engine's (``quotactl.core.engine.order``)."""
    return dispatch_key(job.priority, job.created_at, job.job_id)


def _positions(
    front: list[ServiceJob], left: list[tuple[float, ServiceJob]], ahead: Callable[..., bool]
) -> list[float]:
    """Each job's ``earliestTimeAtPosition`` (seconds) in ``front``."""
    out, joined = [], 0.0
    for job in front:
        since = max(job.status_since, joined)
        for at, gone in left:
            if at > since and ahead(gone, job):
                since = at
        out.append(since)
        joined = max(joined, job.status_since)
    return out


def get_job_queue_snapshot(ctx: Context, params: Params) -> dict[str, Any]:
    queue = find(ctx, JobQueue, v.required_string(params, "jobQueue"), "jobQueue")
    tx, ref = ctx.tx, queue.seq
    active = tx.jobs(queue_ref=ref, statuses=HOLDING, newest_first=False)
    per_share: dict[str, list[ServiceJob]] = {}
    for job in active:
        per_share.setdefault(job.share or "", []).append(job)
    shares = tx.records(QuotaShare, parent=queue.name) if queue.quota_managed else []
    if queue.quota_managed:
        queued = {
            s.name: tx.jobs(
                queue_ref=ref,
                statuses=_RUNNABLE,
                share=s.name,
                in_queue_order=True,
                limit=FRONT_OF_QUEUE,
            )
            for s in shares
        }
        limits = {s.name: dict(s.capacity) for s in shares}
        usage = {
            name: {u: sum(j.capacity.get(u, 0) for j in jobs) for u in limits.get(name, {})}
            for name, jobs in per_share.items()
        }
    else:
        queued = {
            "": tx.jobs(queue_ref=ref, statuses=_RUNNABLE, newest_first=False, limit=FRONT_OF_QUEUE)
        }
        limits, usage = {}, {}
    for jobs in queued.values():  # the store reads them in row order; ties go the engine's way
        jobs.sort(key=_rank if queue.quota_managed else _submitted)
    by_id = {j.job_id: j for jobs in queued.values() for j in jobs}
    order = dispatch_order(
        {name: [_waiting(j, name) for j in jobs] for name, jobs in queued.items()},
        limits,
        usage,
        FRONT_OF_QUEUE,
    )
    front = [by_id[w.job] for w in order]
    oldest = min((j.status_since for j in by_id.values()), default=ctx.now)
    left = [(at, j) for j in tx.left_since(ref, oldest) if (at := _left_at(j)) is not None]

    def ahead_in_queue(gone: ServiceJob, job: ServiceJob) -> bool:
        if not queue.quota_managed:
            return _submitted(gone) < _submitted(job)
        return gone.share != job.share or _rank(gone) < _rank(job)

    def ahead_in_share(gone: ServiceJob, job: ServiceJob) -> bool:
        return gone.share == job.share and _rank(gone) < _rank(job)

    positions = _positions(front, left, ahead_in_queue)
    departed = max((at for at, _ in left), default=None)
    if ctx.variant == "strict":  # as old as the data shown: a departure dates nothing listed
        departed = None
    created = queue.status_since
    front_at = max([*positions, departed or 0.0], default=0.0) or created
    fronts: dict[str, list[dict[str, Any]]] = {}
    heads_at = departed or created
    for name, jobs in queued.items():
        if jobs and queue.quota_managed:
            (since,) = _positions(jobs[:1], left, ahead_in_share)
            fronts[name] = [{"jobArn": jobs[0].arn, "earliestTimeAtPosition": ms(since)}]
            heads_at = max(heads_at, since)
    utilization: dict[str, Any] = {
        "totalCapacityUsage": _usage(active),
        "lastUpdatedAt": ms(tx.usage_changed_at(ref) or created),
    }
    if queue.quota_managed:
        ranked = sorted(
            (s.name for s in shares),
            key=lambda n: -sum(sum(j.capacity.values()) for j in per_share.get(n, [])),
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
            "jobs": [
                {"jobArn": j.arn, "earliestTimeAtPosition": ms(at)}
                for j, at in zip(front, positions, strict=True)
            ],
            "lastUpdatedAt": ms(front_at),
        },
        "frontOfQuotaShares": {"quotaShares": fronts, "lastUpdatedAt": ms(heads_at)},
        "queueUtilization": utilization,
    }
