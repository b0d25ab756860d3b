"""Preemption windows already under way when the queue was read.

AWS reports a victim in its window (statusReason ``PREEMPTION_IN_PROGRESS: ...``) but not the
job the capacity is held for. Left unknown, a forward run would let that job's share start it
at once, on capacity the victim still holds for the rest of its window. So each victim is
matched to the job it was most likely preempted for, as the engine chooses one: for an
in-share preemption the first job of the victim's own share still short of instances; for a
reclaim the first such job, earliest in submission order, of another share that needs that
instance type and fits its own limit. Once a job's victims cover its instances, the next
victims go to the job after it. That job is taken to hold the capacity from the read on (as
the window is: ``engine_job``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from quotactl.core.engine import reasons
from quotactl.core.engine.model import PREEMPTING, RESERVED, Window
from quotactl.core.engine.order import dispatch_key, submission_rank
from quotactl.core.states import JobStatus

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.engine import Job, QueueModel

_IN_SHARE = reasons.IN_SHARE_PREEMPTION.split(" triggered")[0]


def match_windows(queue: QueueModel, jobs: Sequence[Job], now: float) -> None:
    """Name, on each victim whose preemptor is unknown, the job it is preempted for, and mark
    that job as holding the capacity since ``now`` (the records are changed in place)."""
    victims = [
        j
        for j in jobs
        if j.window is not None and j.window.kind == PREEMPTING and j.window.by is None
    ]
    if not victims:
        return
    queued: dict[str, list[Job]] = {}
    for job in sorted(
        (j for j in jobs if j.status is JobStatus.RUNNABLE and j.window is None),
        key=lambda j: dispatch_key(j.priority, j.submitted_at, j.job_id),
    ):
        queued.setdefault(job.share, []).append(job)
    used: dict[tuple[str, str], int] = {}
    for job in jobs:
        if job.status.holds_capacity and (job.window is None or job.window.kind != PREEMPTING):
            key = (job.share, job.instance_type)
            used[key] = used.get(key, 0) + job.count
    limits = {s.name: s.limits for s in queue.shares}
    need: dict[str, int] = {}  # a matched job's instances not yet covered by its victims

    def next_of(share: str, t: str) -> Job | None:
        """The share's first queued job still short of instances, if it is of type ``t``."""
        for job in queued.get(share, ()):
            if need.get(job.job_id, job.count) > 0:
                return job if job.instance_type == t else None
        return None

    for victim in sorted(victims, key=lambda j: submission_rank(j.submitted_at, j.job_id)):
        t = victim.instance_type
        if _IN_SHARE in (victim.status_reason or ""):
            found = next_of(victim.share, t)
        else:
            fitting = [
                h
                for share in queued
                if share != victim.share
                and (h := next_of(share, t)) is not None
                and used.get((share, t), 0) + h.count <= limits.get(share, {}).get(t, 0)
            ]
            found = min(
                fitting, key=lambda h: submission_rank(h.submitted_at, h.job_id), default=None
            )
        if found is not None and victim.window is not None:
            victim.window = replace(victim.window, by=found.job_id)
            found.window = Window(RESERVED, now)
            need[found.job_id] = need.get(found.job_id, found.count) - victim.count
