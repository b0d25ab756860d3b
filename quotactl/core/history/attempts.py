"""A service job as ledger rows: one per attempt, with how each attempt ended.

DescribeServiceJob lists a job's attempts (each a SageMaker training job, with its
``startedAt``, ``stoppedAt`` and ``statusReason``). The outcome of each is read from its
reason and the job's status:

- an attempt stopped by a preemption (cross-share reclaim or in-share) is ``PREEMPTED``;
- the job's last attempt is ``SUCCEEDED`` or ``FAILED`` with the job, ``CANCELLED`` where
  TerminateServiceJob ended the job (``isTerminated`` on a job not failed by its preemption
  budget), ``RUNNING`` while it holds instances;
- any other earlier attempt failed and was retried (a retry strategy, too few instances):
  ``FAILED``;
- a job waiting to start (never started, or preempted and queued again) has a ``WAITING`` row
  for the attempt it waits for; a job ended before any attempt has one row, ``CANCELLED`` or
  ``FAILED``, that never started.

Attempts are numbered from 1. Where AWS no longer lists the oldest attempts (its
``preemptedAttemptCount`` is larger than the preempted attempts listed), the numbers of the
listed ones start after the missing ones, so a job's rows keep their keys as it ages, and the
missing ones are counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from quotactl.core.engine import reasons
from quotactl.core.history.ledger import Attempt, AttemptOutcome, from_epoch
from quotactl.core.states import QUEUED, JobStatus

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.resources.observed import LiveJob

PREEMPTION_REASONS = (reasons.CROSS_SHARE_PREEMPTION, reasons.IN_SHARE_PREEMPTION)


@dataclass(frozen=True)
class Tried:
    """One entry of DescribeServiceJob's ``attempts`` (epoch seconds)."""

    started_at: float | None
    stopped_at: float | None
    status_reason: str | None

    @property
    def preempted(self) -> bool:
        return (self.status_reason or "").startswith(PREEMPTION_REASONS)


@dataclass(frozen=True)
class JobAttempts:
    """A job's ledger rows, and how many of its attempts AWS no longer lists."""

    rows: tuple[Attempt, ...]
    missing: int


def attempts_of(job: LiveJob, tried: Sequence[Tried], team: str | None) -> JobAttempts:
    """The ledger rows of ``job`` (read with DescribeServiceJob) from its ``tried`` attempts."""
    listed = sum(1 for a in tried if a.preempted)
    missing = max(0, (job.preemptions or 0) - listed)
    base = missing
    rows: list[Attempt] = []
    last = len(tried) - 1
    for i, attempt in enumerate(tried):
        rows.append(_row(job, team, base + i + 1, attempt, _outcome(job, attempt, i == last)))
    if job.status in QUEUED:
        rows.append(_row(job, team, base + len(tried) + 1, None, AttemptOutcome.WAITING))
    elif not tried:
        ended = AttemptOutcome.CANCELLED if job.is_terminated else _final(job)
        rows.append(_row(job, team, 1, Tried(None, job.stopped_at, None), ended))
    return JobAttempts(tuple(rows), missing)


def _outcome(job: LiveJob, attempt: Tried, last: bool) -> AttemptOutcome:
    if attempt.preempted:
        return AttemptOutcome.PREEMPTED
    if not last or job.status in QUEUED:
        return AttemptOutcome.FAILED  # retried
    if job.holds_instances:
        return AttemptOutcome.RUNNING
    if job.is_terminated:
        return AttemptOutcome.CANCELLED
    return _final(job)


def _final(job: LiveJob) -> AttemptOutcome:
    if job.status is JobStatus.SUCCEEDED:
        return AttemptOutcome.SUCCEEDED
    if job.status is JobStatus.FAILED:
        return AttemptOutcome.FAILED
    return AttemptOutcome.RUNNING


def _row(
    job: LiveJob, team: str | None, number: int, attempt: Tried | None, outcome: AttemptOutcome
) -> Attempt:
    started = attempt.started_at if attempt else None
    stopped = attempt.stopped_at if attempt else None
    return Attempt(
        job_id=job.job_id,
        attempt=number,
        name=job.name,
        queue=job.queue,
        share=job.share,
        team=team,
        instance_type=job.instance_type,
        count=job.instance_count,
        priority=job.priority or 0,
        submitted_at=from_epoch(job.created_at or 0.0),
        started_at=from_epoch(started) if started is not None else None,
        stopped_at=from_epoch(stopped)
        if stopped is not None and outcome is not AttemptOutcome.RUNNING
        else None,
        outcome=outcome,
    )
