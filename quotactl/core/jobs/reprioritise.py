"""``job priority``: what changing a job's priority does on the next scheduling pass.

Two passes of the engine over the queue's live jobs, one as it is and one with the new
priority; the preemptions only the second makes are the change's consequence (a raised
RUNNABLE job preempting lower-priority jobs of its share, or a lowered running job becoming
the victim of a waiting one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from quotactl.core.jobs.analysis import run_pass
from quotactl.core.jobs.records import engine_jobs

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.engine import QueueModel
    from quotactl.core.jobs.analysis import Victim
    from quotactl.core.jobs.records import JobRecord


@dataclass(frozen=True)
class PriorityChange:
    job_id: str
    name: str
    before: int | None
    after: int
    preempts: tuple[Victim, ...]
    starts: bool


def consequences(
    queue: QueueModel, jobs: Sequence[JobRecord], job: JobRecord, priority: int, now: float
) -> PriorityChange:
    """The preemptions the change triggers on the next pass (and whether the job starts)."""
    known = {s.name for s in queue.shares}
    live = [j for j in jobs if j.job_id != job.job_id] + [job]
    engine = [e for j in live if j.share in known for e in engine_jobs(j)]
    ids = [e.job_id for e in engine if e.job_id.split("/")[0] == job.job_id]
    if not ids:
        return PriorityChange(job.job_id, job.name, job.priority, priority, (), False)
    target = ids[0]
    before = run_pass(queue, engine, target, now)
    after = run_pass(queue, engine, target, now, priority=priority)
    seen = {(v.job_id, v.by_job) for v in before.preempted}
    new = tuple(v for v in after.preempted if (v.job_id, v.by_job) not in seen)
    starts = after.started and not before.started
    return PriorityChange(job.job_id, job.name, job.priority, priority, new, starts)
