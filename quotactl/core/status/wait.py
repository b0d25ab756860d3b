"""The ``job why`` wait code of a share's head job, for ``status``.

One definition of the wait codes: ``quotactl.core.jobs.why.wait_of`` (one engine pass over the
queue's live jobs). A head is its share's first RUNNABLE job, so it is never ``behind``, and
whether it starts in a pass depends only on the jobs that hold capacity and on the other
shares' heads (in a settled queue nothing else starts before it). So heads are asked about on
that much smaller queue (``heads_only``): 20 heads of a 10,000-job queue cost 20 small passes.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from quotactl.core.jobs.why import wait_of

if TYPE_CHECKING:
    from quotactl.core.engine.live import LiveQueue
    from quotactl.core.resources.observed import LiveJob


def head_wait_code(queue: LiveQueue, job: LiveJob) -> str | None:
    """``job why``'s wait code for ``job`` (None for a running or finished one)."""
    wait = wait_of(queue, job.job_id)
    return None if wait is None else wait.code


def heads_only(queue: LiveQueue) -> LiveQueue:
    """The queue with only the jobs that hold capacity and the heads of its shares."""
    heads = {h.job_id for s in queue.shares if (h := queue.head(s.name)) is not None}
    return replace(
        queue, jobs=tuple(j for j in queue.jobs if j.holds_instances or j.job_id in heads)
    )
