"""The live state of one quota-managed job queue, as typed values: ``LiveQueue``.

It is the engine's ``QueueModel`` with the queue's live jobs, which it hands to the engine
as ``Job`` values (``engine_jobs``), so it lives with the engine, above the resources
(``observed``'s ``LiveJob``) it is made of.

``quotactl.aws.responses.live_queue(...)`` builds one from AWS Batch responses; everything here
works on the values only, so the same figures come out of real AWS, an endpoint and the
emulator.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from quotactl.core.engine.model import (
    PREEMPTING,
    TERMINATING,
    Job,
    QueueModel,
    ShareModel,
    Window,
)
from quotactl.core.engine.order import dispatch_key, submission_rank
from quotactl.core.engine.reasons import PREEMPTION_IN_PROGRESS
from quotactl.core.states import JobStatus, LifecycleStatus

if TYPE_CHECKING:
    from collections.abc import Mapping

    from quotactl.core.resources.observed import LiveJob


@dataclass(frozen=True)
class LiveQueue:
    """One quota-managed job queue as it is right now: settings, shares and service jobs.

    ``heads`` maps a share to the job ARN AWS reports at its front (GetJobQueueSnapshot's
    ``frontOfQuotaShares``); ``read_at`` is the account's own time of the read (the snapshot's
    ``lastUpdatedAt`` where there is one), so an emulated clock is honoured.
    """

    name: str
    arn: str
    model: QueueModel
    jobs: tuple[LiveJob, ...] = ()
    enabled: bool = True
    status: str = LifecycleStatus.VALID
    environment: str = ""
    environment_enabled: bool = True
    share_arns: Mapping[str, str] = field(default_factory=dict)
    heads: Mapping[str, str] = field(default_factory=dict)
    read_at: float = 0.0
    front: tuple[str, ...] = ()
    """Job ARNs at the front of the queue, in AWS's order (the snapshot's ``frontOfQueue``).
    The order of jobs is the engine's (``quotactl.core.engine.order``), from the jobs' data
    alone, so that a preview and the emulator break every tie the same way."""
    share_tags: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """Each share's tags, by share name (the governor's ``quotactl:governed`` and
    ``quotactl:budget`` among them)."""

    @property
    def shares(self) -> tuple[ShareModel, ...]:
        return self.model.shares

    def job(self, job_id: str) -> LiveJob | None:
        """The job with this ID or ARN, if it was read."""
        return self._by_id.get(job_id)

    @cached_property
    def _by_id(self) -> dict[str, LiveJob]:
        found = {j.job_arn: j for j in self.jobs if j.job_arn}
        found.update({j.job_id: j for j in self.jobs})
        return found

    def unfinished(self) -> list[LiveJob]:
        return [j for j in self.jobs if not j.is_final]

    def waiting(self, share: str) -> list[LiveJob]:
        """The share's RUNNABLE jobs in dispatch order: priority (high first), then submission.

        Jobs whose priority was not read (ListServiceJobs does not report it) count as 0.
        """
        queued = [j for j in self.jobs if j.share == share and j.status is JobStatus.RUNNABLE]
        return sorted(queued, key=lambda j: dispatch_key(j.priority, j.created_at, j.job_id))

    def head(self, share: str) -> LiveJob | None:
        """The share's first RUNNABLE job: AWS's (snapshot) if known, else by dispatch order."""
        arn = self.heads.get(share)
        if arn is not None:
            found = self.job(arn)
            if found is not None:
                return found
        waiting = self.waiting(share)
        return waiting[0] if waiting else None

    def engine_jobs(self) -> list[Job]:
        """The unfinished jobs as engine ``Job``s, for ``quotactl.core.engine.schedule(...)``.

        Left out: jobs of a share the queue no longer has and jobs that name no instance type
        (the engine cannot place either). Unknown priorities count as 0; ``run_seconds`` is
        unknown (None: the job runs until it ends), so only the present is modelled.
        """
        names = {s.name for s in self.model.shares}
        return [
            engine_job(j, self.read_at)
            for j in sorted(self.jobs, key=lambda j: submission_rank(j.created_at, j.job_id))
            if not j.is_final and j.share in names and j.instance_type is not None
        ]


def engine_job(job: LiveJob, read_at: float) -> Job:
    """One unfinished ``LiveJob`` as the engine's mutable ``Job`` (a fresh object each call).

    A job that holds instances and is being preempted (statusReason ``PREEMPTION_IN_PROGRESS:
    ...``) or terminated (``isTerminated``) is in its window: AWS reports neither when the
    window began nor which job the capacity is reserved for, so it is taken to have begun at
    ``read_at`` (the latest the job can stop) and to hold its instances until it ends."""
    assert job.instance_type is not None
    assert job.share is not None
    created = job.created_at or 0.0
    dispatched = job.scheduled_at if job.scheduled_at is not None else job.started_at
    if job.status is JobStatus.SCHEDULED:
        since = dispatched
    elif job.status.holds_capacity:
        since = job.started_at if job.started_at is not None else dispatched
    else:
        since = created
    stopping = job.status.holds_capacity and (
        job.is_terminated or (job.status_reason or "").startswith(PREEMPTION_IN_PROGRESS)
    )
    return Job(
        job_id=job.job_id,
        share=job.share,
        instance_type=job.instance_type,
        count=job.instances[job.instance_type],
        priority=job.priority or 0,
        submitted_at=created,
        status=job.status,
        status_since=since if since is not None else created,
        status_reason=job.status_reason,
        started_at=dispatched if job.status.holds_capacity else None,
        preemption_retries=job.preemption_retries,
        preemptions=job.preemptions or 0,
        window=_window(job, read_at) if stopping else None,
    )


def _window(job: LiveJob, read_at: float) -> Window:
    if job.is_terminated:
        return Window(TERMINATING, read_at, stop_reason=job.status_reason)
    return Window(PREEMPTING, read_at)
