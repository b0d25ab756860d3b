"""Why a share's head job is not running: its ``job why`` wait code, from one engine pass.

The head is the share's first RUNNABLE job, so it is never ``behind``. One scheduling pass of
the engine over the queue's live jobs says whether it would start now (``starting``);
otherwise the share's limits and the queue's capacity say which wait it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.engine import EMULATOR_TIMING, JobStatus, QueueEngine

if TYPE_CHECKING:
    from quotactl.core.live import LiveQueue
    from quotactl.core.observed import LiveJob


def head_wait_code(queue: LiveQueue, job: LiveJob) -> str | None:
    """``misconfigured``, ``share-at-limit``, ``borrow-limit``, ``no-idle-capacity`` or
    ``starting`` for a job that is not running; None for a running or finished one."""
    if job.is_final or job.status is JobStatus.RUNNING:
        return None
    if job.status in (JobStatus.SCHEDULED, JobStatus.STARTING, JobStatus.SUBMITTED):
        return "starting"
    names = {s.name for s in queue.shares}
    if job.share not in names or job.instance_type is None:
        return "misconfigured"
    if (job.status_reason or "").startswith("MISCONFIGURATION"):
        return "misconfigured"
    engine = QueueEngine(queue.model, timing=EMULATOR_TIMING)
    engine.now = queue.read_at
    engine.load(queue.engine_jobs())
    engine.schedule(queue.read_at)
    started = {t.job_id for t in engine.transitions or [] if t.status is JobStatus.SCHEDULED}
    if job.job_id in started:
        return "starting"
    share = queue.model.share(job.share or "")
    limit = int(share.limits.get(job.instance_type, 0))
    in_use = engine.usage(share.name, job.instance_type)
    count = job.instances[job.instance_type]
    if in_use + count <= limit:
        return "no-idle-capacity"
    if not share.strategy.borrows:
        return "share-at-limit"
    if share.borrow_limit >= 0 and in_use + count > limit + limit * share.borrow_limit // 100:
        return "borrow-limit"
    return "no-idle-capacity"
