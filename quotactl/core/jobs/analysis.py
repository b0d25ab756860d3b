"""One scheduling pass over a live queue, for one job: will it start, on what, or why not.

``submit --dry-run``, ``job why`` and ``job priority`` all ask the engine that schedules the
emulator and ``simulate`` (``quotactl.core.engine``): the queue's live jobs are loaded, one
pass runs at ``now``, and what happened to the job is read back. So a preview says what the
next pass will do, not what a second model of the scheduler thinks.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from quotactl.core.engine import TIMING, Job, QueueEngine, Timing, reasons as engine_reasons
from quotactl.core.engine.model import PREEMPTING
from quotactl.core.engine.order import dispatch_key
from quotactl.core.resources.desired import UNLIMITED, Strategy
from quotactl.core.states import JobStatus

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.engine import QueueModel, Transition


class WaitCode(StrEnum):
    """Why a job that is not running is not running, in one stable word (``job why``)."""

    MISCONFIGURED = "misconfigured"
    SHARE_AT_LIMIT = "share-at-limit"
    BORROW_LIMIT = "borrow-limit"
    NO_IDLE_CAPACITY = "no-idle-capacity"
    BEHIND = "behind"
    STARTING = "starting"
    OVER_BUDGET = "over-budget"


@dataclass(frozen=True)
class Wait:
    """Why a job that is not running is not running: one stable code, a sentence, AWS's
    statusReason, and the jobs ahead of it in its share (for ``behind``)."""

    code: WaitCode
    message: str
    status_reason: str | None = None
    ahead: tuple[str, ...] = ()


@dataclass(frozen=True)
class Victim:
    """A job a pass preempts, how (``reclaim`` or ``in-share``), and for whom."""

    job_id: str
    share: str
    kind: str
    by_job: str


@dataclass(frozen=True)
class PassResult:
    """What one pass does to ``job_id``: started (and how many instances it borrows),
    whom it preempts, or why it waits. ``preempted`` lists every preemption of the pass.
    ``starts_in``: seconds from the pass until the job is SCHEDULED (0, or the preemption
    window of its victims)."""

    job_id: str
    started: bool
    borrowed: int
    victims: tuple[Victim, ...]
    wait: Wait | None
    lenders: tuple[str, ...]
    preempted: tuple[Victim, ...]
    starts_in: float | None = None


def kind_of(reason: str | None) -> str:
    """``reclaim`` or ``in-share`` from a preempted attempt's statusReason."""
    if reason and engine_reasons.IN_SHARE_PREEMPTION.split(" triggered")[0] in reason:
        return "in-share"
    return "reclaim"


def run_pass(
    queue: QueueModel,
    jobs: Sequence[Job],
    job_id: str,
    now: float,
    *,
    priority: int | None = None,
    timing: Timing = TIMING,
) -> PassResult:
    """Load ``jobs`` (one of them ``job_id``), optionally re-prioritise it, run one pass."""
    engine = QueueEngine(queue, timing=timing)
    engine.now = now
    engine.load(j.copy() for j in jobs)
    if priority is not None:
        engine.set_priority(job_id, priority)
    mark = engine.timer_mark()
    engine.schedule(now)
    engine.settle_windows(mark)  # victims leave, and the jobs they make room for start
    transitions: list[Transition] = engine.transitions or []
    shares = {j.job_id: j.share for j in jobs}
    started = [t for t in transitions if t.job_id == job_id and t.status is JobStatus.SCHEDULED]
    preempted = tuple(
        Victim(
            t.job_id,
            shares.get(t.job_id, ""),
            kind_of(t.preempted_attempt.status_reason),
            t.preempted_attempt.preempted_by,
        )
        for t in transitions
        if t.preempted_attempt is not None and t.window is None
    )
    victims = tuple(v for v in preempted if v.by_job == job_id)
    live = {j.job_id: j for j in engine.jobs()}
    target = live.get(job_id) or next(j for j in jobs if j.job_id == job_id)
    wait = None if started else _wait(engine, queue, jobs, target)
    lenders: tuple[str, ...] = ()
    borrowed = started[-1].borrowed if started else 0
    if borrowed:
        lenders = _lenders(engine, queue, target)
    starts_in = started[-1].at - now if started else None
    return PassResult(job_id, bool(started), borrowed, victims, wait, lenders, preempted, starts_in)


def _lenders(engine: QueueEngine, queue: QueueModel, job: Job) -> tuple[str, ...]:
    """Lending shares with idle capacity of the job's type: whose capacity it borrows."""
    t = job.instance_type
    return tuple(
        s.name
        for s in queue.shares
        if s.name != job.share
        and s.strategy.lends
        and s.limits.get(t, 0) > 0
        and engine.usage(s.name, t) < s.limits.get(t, 0)
    )


def _wait(engine: QueueEngine, queue: QueueModel, jobs: Sequence[Job], job: Job) -> Wait:
    reason = job.status_reason
    if job.status.holds_capacity:
        return Wait(
            WaitCode.STARTING,
            f"it is {job.status.value}: SageMaker is acquiring its instances and data",
            reason,
        )
    if reason and reason.startswith("MISCONFIGURATION"):
        return Wait(WaitCode.MISCONFIGURED, _misconfigured_sentence(queue, job), reason)

    def place(j: Job) -> tuple[int, int]:
        return dispatch_key(j.priority, j.submitted_at, j.job_id)

    mine = place(job)
    ahead = tuple(
        j.job_id
        for j in sorted(engine.jobs(), key=place)
        if j.share == job.share
        and j.job_id != job.job_id
        and j.status is JobStatus.RUNNABLE
        and place(j) < mine
    )
    if ahead:
        n = len(ahead)
        return Wait(
            WaitCode.BEHIND,
            f"{n} job{'s' if n != 1 else ''} of share {job.share} go{'es' if n == 1 else ''} "
            "first (higher priority or submitted earlier), and a share starts its jobs in order",
            reason,
            ahead,
        )
    return _capacity_wait(engine, queue, job)


def _capacity_wait(engine: QueueEngine, queue: QueueModel, job: Job) -> Wait:
    share = queue.share(job.share)
    t, n = job.instance_type, job.count
    limit = share.limits.get(t, 0)
    used = engine.usage(share.name, t)
    reason = job.status_reason
    need = f"{n} x {t}"
    leaving = [
        j
        for j in engine.jobs()
        if j.window is not None and j.window.kind == PREEMPTING and j.instance_type == t
    ]
    if used + n <= limit and leaving:
        count = len(leaving)
        return Wait(
            WaitCode.NO_IDLE_CAPACITY,
            f"{need} fits share {share.name}'s own limit ({used} of {limit} in use), and "
            f"{count} job{'s' if count != 1 else ''} of {t} {'are' if count != 1 else 'is'} "
            "being preempted (PREEMPTION_IN_PROGRESS): their instances are free when the "
            "preemption window ends",
            reason,
        )
    if used + n <= limit:
        return Wait(
            WaitCode.NO_IDLE_CAPACITY,
            f"{need} fits share {share.name}'s own limit ({used} of {limit} in use), but no "
            f"{t} is free in the environment and none can be reclaimed from borrowers now",
            reason,
        )
    if share.strategy is not Strategy.LEND_AND_BORROW:
        return Wait(
            WaitCode.SHARE_AT_LIMIT,
            f"share {share.name} uses {used} of its {limit} x {t}, and as a "
            f"{share.strategy.value} share it may not borrow: it waits for its own jobs to end",
            reason,
        )
    if share.borrow_limit != UNLIMITED:
        cap = limit * share.borrow_limit // 100
        if used + n > limit + cap:
            return Wait(
                WaitCode.BORROW_LIMIT,
                f"starting {need} would have share {share.name} borrow {used + n - limit}, "
                f"more than its borrow limit of {share.borrow_limit}% ({cap} x {t})",
                reason,
            )
    more = min(n, used + n - limit)
    return Wait(
        WaitCode.NO_IDLE_CAPACITY,
        f"share {share.name} uses {used} x {t} (its limit is {limit}) and must borrow {more} "
        f"more, but no lending share has {more} x {t} idle to lend",
        reason,
    )


def _misconfigured_sentence(queue: QueueModel, job: Job) -> str:
    share = next((s for s in queue.shares if s.name == job.share), None)
    t, n = job.instance_type, job.count
    if share is None or t not in share.limits:
        return f"share {job.share} has no {t} capacity: the job can never run there"
    return (
        f"{n} x {t} is more than share {share.name} can ever hold (limit "
        f"{share.limits[t]}, plus what it may borrow; environment {queue.capacity.get(t, 0)})"
    )
