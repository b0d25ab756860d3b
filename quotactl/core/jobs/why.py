"""``job why``: why a job waits, and what preempted it, from what the Batch API reports.

The wait comes from one engine pass over the job's live queue (``analysis.run_pass``). The
preemption history comes from DescribeServiceJob's ``preemptionSummary``: each preempted
attempt's statusReason says the kind (cross-share reclaim or in-share), and the job that was
scheduled at the moment the attempt stopped is the one that took the capacity. That needs
nothing but DescribeServiceJob and ListServiceJobs, so it works the same on AWS.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from quotactl.core.engine import TIMING, Timing
from quotactl.core.jobs.analysis import Wait, WaitCode, kind_of, run_pass
from quotactl.core.states import JobStatus

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from quotactl.core.jobs.live import LiveQueue
    from quotactl.core.resources.observed import LiveJob

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
    """``job why``'s answer: the job, its wait (None while running or done), its
    preemptions (newest first, as AWS lists them)."""

    job: LiveJob
    wait: Wait | None
    preemptions: tuple[Preemption, ...]
    names: Mapping[str, str] = field(default_factory=dict)
    """Job names by ID, for the jobs the answer mentions."""


def wait_of(queue: LiveQueue, job_id: str, *, timing: Timing = TIMING) -> Wait | None:
    """The wait code of ``job_id`` (ID or ARN) in its live queue; None if it runs or ended.

    A SCHEDULED or STARTING job is ``starting``; a queued one is looked at by one pass of the
    scheduling engine over the queue's unfinished jobs at ``queue.read_at``. For ``behind``,
    the queue's jobs need their priorities (DescribeServiceJob): read it with details.
    """
    target = queue.job(job_id)
    if target is None or target.is_final or target.status is JobStatus.RUNNING:
        return None
    if target.holds_instances:
        return Wait(
            WaitCode.STARTING,
            f"it is {target.status.value}: SageMaker is acquiring its instances and data",
            target.status_reason,
        )
    shares = {s.name for s in queue.shares}
    if target.share not in shares:
        return Wait(
            WaitCode.MISCONFIGURED,
            f"its quota share {target.share!r} does not exist on queue {queue.name}",
            target.status_reason,
        )
    if target.instance_type is None:
        return Wait(
            WaitCode.MISCONFIGURED,
            "its request names no instances, so no quota share can place it",
            target.status_reason,
        )
    result = run_pass(queue.model, queue.engine_jobs(), target.job_id, queue.read_at, timing=timing)
    if result.started:
        return Wait(
            WaitCode.STARTING,
            "it fits now: the scheduler starts it on its next pass",
            target.status_reason,
        )
    assert result.wait is not None
    return over_budget(queue, target.share, result.wait) or result.wait


STOPPED_BY_BUDGET = (WaitCode.SHARE_AT_LIMIT, WaitCode.BORROW_LIMIT)
"""Waits a budget explains: the share's own capacity is in use and the budget stopped it
borrowing (or disabled it)."""


def over_budget(queue: LiveQueue, share: str | None, wait: Wait) -> Wait | None:
    """``over-budget`` when ``wait`` is for capacity and the governor holds ``share`` for a
    budget (its ``quotactl:governed`` tag names the budget): the team may not borrow, or submit,
    until the budget resets. None otherwise."""
    from quotactl.core.govern.readback import budget_rows, governed_row

    if share is None or wait.code not in STOPPED_BY_BUDGET:
        return None
    tags = queue.share_tags.get(share, {})
    held = governed_row(f"share.{queue.name}/{share}", tags, _at(queue.read_at))
    if held is None or not held.budget:
        return None
    over = [row for row in budget_rows(tags) if row.exceeded]
    figures = ", ".join(f"{r.instance_type} {r.used:g} of {r.limit:g} h" for r in over)
    team = over[0].team if over else "its team"
    until = f" until {held.until.strftime('%Y-%m-%dT%H:%MZ')}" if held.until else ""
    spent = f"{team} is over its {over[0].over} budget ({figures})" if over else "over budget"
    return Wait(
        WaitCode.OVER_BUDGET,
        f"{spent}: its share {share} may not borrow{until}, and its own capacity is in use",
        wait.status_reason,
        wait.ahead,
    )


def _at(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)


def preemptions_of(job: LiveJob, others: Sequence[LiveJob]) -> tuple[Preemption, ...]:
    """The job's preempted attempts, each matched to the job that took the capacity."""
    out: list[Preemption] = []
    for attempt in job.recent_preemptions:
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
    job: LiveJob, others: Sequence[LiveJob], at: float | None, kind: str
) -> LiveJob | None:
    """The job of the right share scheduled nearest the moment the attempt stopped."""
    if at is None:
        return None
    types = set(job.instances)
    found: list[tuple[float, LiveJob]] = []
    for other in others:
        when = other.scheduled_at
        if other.job_id == job.job_id or when is None or not types & set(other.instances):
            continue
        if not at - MATCH_BEFORE <= when <= at + MATCH_AFTER:
            continue
        if (kind == "in-share") != (other.share == job.share):
            continue
        found.append((abs(when - at), other))
    return min(found, key=lambda pair: pair[0])[1] if found else None


def explain(queue: LiveQueue, job: LiveJob, *, timing: Timing = TIMING) -> Why:
    """``job why`` for ``job`` (described), in its live queue (all statuses, for history)."""
    wait = wait_of(queue, job.job_id, timing=timing)
    names = {j.job_id: j.name for j in queue.jobs if wait and j.job_id in wait.ahead}
    return Why(job, wait, preemptions_of(job, queue.jobs), names)
