"""Where a waiting job stands: its place in its share's order and in the queue's.

Both count the jobs not yet dispatched (SUBMITTED and RUNNABLE), 1 first. The share's order is
the one it dispatches in (priority, then submission: ``quotactl.core.engine.order``); the
queue's is the order a scheduling pass dispatches across shares, the one GetJobQueueSnapshot's
``frontOfQueue`` reports (``quotactl.core.engine.front``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.engine.front import Waiting, dispatch_order
from quotactl.core.engine.order import dispatch_key, submission_rank

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.engine import Job, QueueModel


def positions(queue: QueueModel, jobs: Sequence[Job]) -> dict[str, tuple[int, int]]:
    """Job ID -> (position in its share, position in the queue) of every queued job."""
    queued: dict[str, list[Job]] = {}
    usage: dict[str, dict[str, int]] = {}
    for job in jobs:
        if job.status.holds_capacity:
            used = usage.setdefault(job.share, {})
            used[job.instance_type] = used.get(job.instance_type, 0) + job.count
        elif not job.status.is_final:
            queued.setdefault(job.share, []).append(job)
    in_share: dict[str, int] = {}
    waiting: dict[str, list[Waiting]] = {}
    for share, members in queued.items():
        members.sort(key=lambda j: dispatch_key(j.priority, j.submitted_at, j.job_id))
        waiting[share] = [
            Waiting(
                j.job_id, share, j.instance_type, j.count, submission_rank(j.submitted_at, j.job_id)
            )
            for j in members
        ]
        for place, job in enumerate(members, start=1):
            in_share[job.job_id] = place
    limits = {s.name: s.limits for s in queue.shares}
    order = dispatch_order(waiting, limits, usage, len(in_share))
    return {w.job: (in_share[w.job], place) for place, w in enumerate(order, start=1)}
