"""``job priority``: what changing a job's priority does on the next scheduling pass.

Two passes of the engine over the queue's unfinished jobs, one as it is and one with the new
priority; the preemptions only the second makes are the change's consequence (a raised
RUNNABLE job preempting lower-priority jobs of its share, or a lowered running job becoming
the victim of a waiting one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from quotactl.core.engine import TIMING, Timing
from quotactl.core.jobs.analysis import run_pass

if TYPE_CHECKING:
    from collections.abc import Mapping

    from quotactl.core.jobs.analysis import Victim
    from quotactl.core.jobs.live import LiveQueue
    from quotactl.core.resources.observed import LiveJob


@dataclass(frozen=True)
class PriorityChange:
    job_id: str
    name: str
    before: int | None
    after: int
    preempts: tuple[Victim, ...]
    starts: bool
    names: Mapping[str, str] = field(default_factory=dict)
    """Job names by ID, for the jobs ``preempts`` names."""


def consequences(
    queue: LiveQueue, job: LiveJob, priority: int, *, timing: Timing = TIMING
) -> PriorityChange:
    """The preemptions the change triggers on the next pass (and whether the job starts)."""
    engine = queue.engine_jobs()
    if not any(e.job_id == job.job_id for e in engine):
        return PriorityChange(job.job_id, job.name, job.priority, priority, (), False)
    before = run_pass(queue.model, engine, job.job_id, queue.read_at, timing=timing)
    after = run_pass(
        queue.model, engine, job.job_id, queue.read_at, priority=priority, timing=timing
    )
    seen = {(v.job_id, v.by_job) for v in before.preempted}
    new = tuple(v for v in after.preempted if (v.job_id, v.by_job) not in seen)
    starts = after.started and not before.started
    names = {j.job_id: j.name for j in queue.jobs}
    return PriorityChange(job.job_id, job.name, job.priority, priority, new, starts, names)
