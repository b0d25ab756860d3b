"""``job why``: why a job waits, and what preempted it, from what the Batch API reports.

The wait comes from one engine pass over the job's queue (``analysis.run_pass``). The
preemption history comes from DescribeServiceJob's ``preemptionSummary``: each preempted
attempt's statusReason says the kind (cross-share reclaim or in-share), and the job that was
scheduled at the moment the attempt stopped is the one that took the capacity. That needs
nothing but DescribeServiceJob and ListServiceJobs, so it works the same on AWS.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from quotactl.core.jobs.analysis import Wait, kind_of, run_pass
from quotactl.core.jobs.records import JobRecord, engine_jobs

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.engine import QueueModel

MATCH_BEFORE = 1.0
"""Seconds a preempting job may appear scheduled before the preempted attempt stopped."""
MATCH_AFTER = 300.0
"""Seconds after it: on AWS the preemption completes, then the preempting job is scheduled."""


@dataclass(frozen=True)
class Preemption:
    """One preempted attempt: when, how, and by which share and job (None: not found)."""

    at: float | None
    kind: str
    by_share: str | None
    by_job: str | None
    by_job_name: str | None
    status_reason: str | None


@dataclass(frozen=True)
class Why:
    """``job why``'s answer: the job's status, its wait (None while running or done), its
    preemptions (newest first, as AWS lists them)."""

    job: JobRecord
    wait: Wait | None
    preemptions: tuple[Preemption, ...]


def wait_for(queue: QueueModel, jobs: Sequence[JobRecord], job_id: str, now: float) -> Wait | None:
    """The wait code of ``job_id`` among its queue's live ``jobs`` (None if it runs or ended).

    A job already SCHEDULED or STARTING is ``starting``; a RUNNABLE one is looked at by one
    pass of the scheduling engine over the queue's live jobs.
    """
    target = next((j for j in jobs if j.job_id == job_id), None)
    if target is None or target.is_final or target.status == "RUNNING":
        return None
    if target.holds_capacity:
        return Wait(
            "starting",
            f"it is {target.status}: SageMaker is acquiring its instances and downloading data",
            target.status_reason,
        )
    if target.share is None or target.share not in {s.name for s in queue.shares}:
        return Wait(
            "misconfigured",
            f"its quota share {target.share!r} does not exist on queue {queue.name}",
            target.status_reason,
        )
    if not target.instances:
        return Wait(
            "misconfigured",
            "its request names no instances, so no quota share can place it",
            target.status_reason,
        )
    engine = [e for j in jobs for e in engine_jobs(j) if j.share in {s.name for s in queue.shares}]
    result = run_pass(queue, engine, job_id, now)
    if result.started:
        return Wait(
            "starting",
            "it fits now: the scheduler starts it on its next pass",
            target.status_reason,
        )
    assert result.wait is not None
    return result.wait


def preemptions_of(job: JobRecord, others: Sequence[JobRecord]) -> tuple[Preemption, ...]:
    """The job's preempted attempts, each matched to the job that took the capacity."""
    out: list[Preemption] = []
    for attempt in job.preempted_attempts:
        kind = kind_of(attempt.status_reason)
        by = _preemptor(job, others, attempt.stopped_at, kind)
        by_share = by.share if by is not None else (job.share if kind == "in-share" else None)
        out.append(
            Preemption(
                at=attempt.stopped_at,
                kind=kind,
                by_share=by_share,
                by_job=by.job_id if by else None,
                by_job_name=by.name if by else None,
                status_reason=attempt.status_reason,
            )
        )
    return tuple(out)


def _preemptor(
    job: JobRecord, others: Sequence[JobRecord], at: float | None, kind: str
) -> JobRecord | None:
    if at is None:
        return None
    types = set(job.instances)
    found: list[tuple[float, JobRecord]] = []
    for other in others:
        when = other.scheduled_at
        if other.job_id == job.job_id or when is None or not types & set(other.instances):
            continue
        if not at - MATCH_BEFORE <= when <= at + MATCH_AFTER:
            continue
        if kind == "in-share" and other.share != job.share:
            continue
        if kind == "reclaim" and other.share == job.share:
            continue
        found.append((abs(when - at), other))
    return min(found, key=lambda pair: pair[0])[1] if found else None


def explain(queue: QueueModel | None, job: JobRecord, jobs: Sequence[JobRecord], now: float) -> Why:
    """``job why`` for ``job`` (described), given every job of its queue and its model."""
    live = [j for j in jobs if j.job_id != job.job_id] + [job]
    wait = None if queue is None else wait_for(queue, live, job.job_id, now)
    if queue is None and not job.is_final and job.status != "RUNNING":
        wait = Wait(
            "misconfigured", f"its job queue {job.queue} has no quota shares", job.status_reason
        )
    return Why(job, wait, preemptions_of(job, jobs))
