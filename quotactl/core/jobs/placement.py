"""``submit --dry-run``: where a job would run if it were submitted now.

The queue's live jobs plus the hypothetical one go through one pass of the scheduling engine
(``analysis.run_pass``); the outcome is read off what the pass did to it:

- ``own``: it starts on its share's own capacity;
- ``borrow``: it starts on idle capacity lent by other shares (``lenders``);
- ``preempt``: it starts after preempting ``victims`` (cross-share ``reclaim`` or ``in-share``);
- ``wait``: it stays RUNNABLE, behind the jobs ``ahead`` of it or for capacity (``wait.code``);
- ``misconfigured``: it can never run on this share (AWS's MISCONFIGURATION statusReason).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from quotactl.core.engine import TIMING, Job, Timing
from quotactl.core.jobs.analysis import PassResult, Victim, Wait, WaitCode, run_pass
from quotactl.core.states import JobStatus
from quotactl.errors import BudgetExceededError, NotFoundError, ShareDisabledError

if TYPE_CHECKING:
    from quotactl.core.jobs.live import LiveQueue

DRY_RUN_ID = "(this job)"
PLACEMENTS = ("own", "borrow", "preempt", "wait", "misconfigured")


@dataclass(frozen=True)
class Placement:
    """The preview: an outcome from ``PLACEMENTS`` and what it depends on."""

    placement: str
    message: str
    lenders: tuple[str, ...] = ()
    victims: tuple[Victim, ...] = ()
    ahead: tuple[str, ...] = ()
    status_reason: str | None = None
    wait: Wait | None = None
    starts_in: float | None = None
    """Seconds until it would be SCHEDULED: 0, or its victims' preemption window."""
    knock_on: tuple[Victim, ...] = ()
    """The other preemptions of the same pass: waiting jobs that start once this one is in
    (each ``Victim.by_job`` names the job that preempts it)."""


def preview(
    live: LiveQueue,
    *,
    share: str,
    instance_type: str,
    count: int,
    priority: int,
    timing: Timing = TIMING,
) -> Placement:
    """Where one job would run if it were submitted now (``preview_jobs`` of one job)."""
    (placement,) = preview_jobs(
        live,
        share=share,
        instance_type=instance_type,
        count=count,
        priority=priority,
        timing=timing,
    )
    return placement


def preview_jobs(
    live: LiveQueue,
    *,
    share: str,
    instance_type: str,
    count: int,
    priority: int,
    n_jobs: int = 1,
    timing: Timing = TIMING,
) -> list[Placement]:
    """Run the queue's unfinished jobs and the ``n_jobs`` hypothetical ones (a ``--count``)
    through one pass, at the time the queue was read (``live.read_at``: the account's own
    clock); one placement per hypothetical job, in submission order."""
    queue = live.model
    model = next((s for s in queue.shares if s.name == share), None)
    if model is None:
        names = ", ".join(s.name for s in queue.shares) or "none"
        raise NotFoundError(
            f"queue {queue.name} has no quota share {share!r}", hint=f"its shares: {names}"
        )
    if not model.enabled:
        refused_by_budget(live, share)
        raise ShareDisabledError(f"quota share {share!r} is DISABLED and accepts no new jobs")
    jobs = live.engine_jobs()
    latest = preview_time(live)
    ids = preview_ids(n_jobs)
    candidates = [
        Job(
            job_id=job_id,
            share=share,
            instance_type=instance_type,
            count=count,
            priority=priority,
            submitted_at=submitted,
            status=JobStatus.SUBMITTED,
            status_since=latest,
        )
        for job_id, submitted in zip(ids, preview_submitted(live, n_jobs), strict=True)
    ]
    need = f"{count} x {instance_type}"
    return [
        _outcome(run_pass(queue, [*jobs, *candidates], job_id, latest, timing=timing), need, share)
        for job_id in ids
    ]


def preview_ids(n_jobs: int) -> list[str]:
    """The IDs that stand for the previewed jobs (AWS gives the real ones on submission)."""
    return [DRY_RUN_ID] if n_jobs == 1 else [f"(job {i} of {n_jobs})" for i in range(1, n_jobs + 1)]


def preview_time(live: LiveQueue) -> float:
    """The moment of the preview: the read, or the latest submission if the clocks differ."""
    return max([live.read_at, *(j.submitted_at for j in live.engine_jobs())])


def preview_submitted(live: LiveQueue, n_jobs: int) -> list[float]:
    """The previewed jobs' ``createdAt``: after every job already submitted, a millisecond
    apart in submission order (their IDs, AWS's last tie-break, are not known yet)."""
    latest = preview_time(live)
    return [latest + 0.001 * index for index in range(1, n_jobs + 1)]


def _outcome(result: PassResult, need: str, share: str) -> Placement:
    placement = _placement(result, need, share)
    knock_on = tuple(v for v in result.preempted if v.by_job != result.job_id)
    return replace(placement, knock_on=knock_on) if knock_on else placement


def _placement(result: PassResult, need: str, share: str) -> Placement:
    if result.started and result.victims:
        kinds = sorted({v.kind for v in result.victims})
        n = len(result.victims)
        later = ""
        if result.starts_in:
            window = f"{result.starts_in:g}"
            later = f", {window} s from now, when their preemption window ends"
        return Placement(
            "preempt",
            f"{need} would start on share {share} after preempting {n} job{'s' if n != 1 else ''}"
            f" ({' and '.join(kinds)}){later}",
            lenders=result.lenders if result.borrowed else (),
            victims=result.victims,
            starts_in=result.starts_in,
        )
    if result.started and result.borrowed:
        lenders = ", ".join(result.lenders) or "lending shares"
        return Placement(
            "borrow",
            f"{need} would start on share {share}, borrowing {result.borrowed} idle instance"
            f"{'s' if result.borrowed != 1 else ''} lent by {lenders}",
            lenders=result.lenders,
            starts_in=result.starts_in,
        )
    if result.started:
        return Placement(
            "own",
            f"{need} would start at once on share {share}'s own capacity",
            starts_in=result.starts_in,
        )
    wait = result.wait
    assert wait is not None
    if wait.code == WaitCode.MISCONFIGURED:
        return Placement(
            "misconfigured",
            f"{need} can never run on share {share}: {wait.message}",
            status_reason=wait.status_reason,
            wait=wait,
        )
    return Placement(
        "wait",
        f"{need} would wait ({wait.code}): {wait.message}",
        ahead=wait.ahead,
        status_reason=wait.status_reason,
        wait=wait,
    )


def refused_by_budget(live: LiveQueue, share: str) -> None:
    """Raise ``budget-exceeded`` when the DISABLED ``share`` is held so by a hard budget (its
    ``quotactl:governed`` tag names the budget, its ``quotactl:budget`` tag the figures)."""
    from quotactl.core.govern.readback import budget_refusal

    rows = budget_refusal(live.share_tags.get(share, {}), enabled=False)
    if not rows:
        return
    team = rows[0].team
    figures = ", ".join(f"{r.instance_type} {r.used:g} of {r.limit:g} h" for r in rows)
    resets = rows[0].resets
    when = resets.strftime("%Y-%m-%dT%H:%MZ") if resets else "at the end of its period"
    raise BudgetExceededError(
        f"quota share {live.name}/{share} is DISABLED: team {team} is over its hard budget "
        f"({figures})",
        hint=f"the budget resets at {when}, when the share is enabled again; "
        "until then submit to a share of another team, or raise the budget in the config",
    )
