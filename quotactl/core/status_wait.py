"""The ``job why`` wait code of a share's head job, for ``status``.

One definition of the wait codes: ``quotactl.core.jobs.why.wait_of`` (one engine pass over the
queue's live jobs). The head is the share's first RUNNABLE job, so it is never ``behind``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.jobs.why import wait_of

if TYPE_CHECKING:
    from quotactl.core.live import LiveQueue
    from quotactl.core.observed import LiveJob


def head_wait_code(queue: LiveQueue, job: LiveJob) -> str | None:
    """``job why``'s wait code for ``job`` (None for a running or finished one)."""
    wait = wait_of(queue, job.job_id)
    return None if wait is None else wait.code
