"""Headroom: the largest job a share could start right now without preempting anything.

Two steps, both the engine's own rules. The admission check of every pass
(``QueueEngine.headroom``: own limit, borrow cap, idle lendable capacity, the environment)
gives the largest job that fits. A job within the share's own limit then starts as it is. One
that borrows can do more: it makes its share a borrower, and a head of another share that is
waiting for capacity within its own limit then takes capacity back in the same pass, by
preempting. So a borrowing size counts only if one engine pass over the queue, with a job of
that size at the share's front, starts it and preempts nobody.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.engine import Job, schedule
from quotactl.core.states import JobStatus

if TYPE_CHECKING:
    from quotactl.core.engine import QueueEngine
    from quotactl.core.jobs.live import LiveQueue

FRONT = 10_000
"""A priority above any AWS allows (0-9999): the probe job is its share's head."""
PROBE = "quotactl-headroom-probe"


def headroom(queue: LiveQueue, engine: QueueEngine, share: str, instance_type: str) -> int:
    """Headroom of ``share`` for ``instance_type``; ``engine`` holds the queue's active jobs."""
    top = engine.headroom(share, instance_type)
    limit = int(queue.model.share(share).limits.get(instance_type, 0))
    own = min(top, max(0, limit - engine.usage(share, instance_type)))
    if top == own or starts_cleanly(queue, share, instance_type, top):
        return top
    low, high = own, top - 1  # the largest borrowing size that starts cleanly, if any
    while low < high:
        mid = (low + high + 1) // 2
        if starts_cleanly(queue, share, instance_type, mid):
            low = mid
        else:
            high = mid - 1
    return low


def starts_cleanly(queue: LiveQueue, share: str, instance_type: str, count: int) -> bool:
    """Would a job of ``count`` at the front of ``share`` start in the next pass, with no
    preemption anywhere in that pass?"""
    probe = Job(PROBE, share, instance_type, count, priority=FRONT, submitted_at=queue.read_at)
    transitions = schedule(queue.model, [*queue.engine_jobs(), probe], queue.read_at)
    if any(t.preempted_attempt is not None for t in transitions):
        return False
    return any(t.job_id == PROBE and t.status is JobStatus.SCHEDULED for t in transitions)
