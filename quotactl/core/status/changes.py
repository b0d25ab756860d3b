"""What changed between two reads of the live queues (``status --watch``'s change line)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from quotactl.core.states import JobStatus

if TYPE_CHECKING:
    from collections.abc import Iterable

    from quotactl.core.jobs.live import LiveQueue
    from quotactl.core.resources.observed import LiveJob


@dataclass(frozen=True)
class Changes:
    """Jobs (names) that started, finished or were preempted between two refreshes.

    ``started``: active now (SCHEDULED, STARTING, RUNNING), not active before. ``finished``:
    unfinished before and no longer listed among the unfinished (SUCCEEDED, FAILED or
    terminated). ``preempted``: active before and RUNNABLE again, or with more preempted
    attempts than before.
    """

    started: tuple[str, ...] = ()
    finished: tuple[str, ...] = ()
    preempted: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.started or self.finished or self.preempted)


def changes(before: Iterable[LiveQueue], after: Iterable[LiveQueue]) -> Changes:
    old = _jobs(before)
    new = _jobs(after)
    started, finished, preempted = [], [], []
    for job_id, job in new.items():
        was = old.get(job_id)
        if job.holds_instances and (was is None or not was.holds_instances):
            started.append(job.name or job_id)
        if was is not None and _preempted(was, job):
            preempted.append(job.name or job_id)
    for job_id, was in old.items():
        if job_id not in new or new[job_id].is_final:
            finished.append(was.name or job_id)
    return Changes(tuple(sorted(started)), tuple(sorted(finished)), tuple(sorted(preempted)))


def _preempted(was: LiveJob, now: LiveJob) -> bool:
    if was.holds_instances and now.status is JobStatus.RUNNABLE:
        return True
    return (now.preemptions or 0) > (was.preemptions or 0) and was.preemptions is not None


def _jobs(queues: Iterable[LiveQueue]) -> dict[str, LiveJob]:
    return {j.job_id: j for q in queues for j in q.jobs if not j.is_final}
