"""Estimates of when waiting jobs start: ``estimate_jobs`` (``jobs --eta``) and the estimate
step of ``why`` and ``preview``.

The live queue is read once (unfinished jobs described, for their priorities and run times;
SUCCEEDED jobs listed, for the share's history) and run forward through the engine once for
all its jobs (``quotactl.core.estimate``). The API calls of the reads are counted and
reported with the estimate; its time budget is for the computation after them.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from quotactl.aws.account import Account
    from quotactl.core.engine import Timing
    from quotactl.core.estimate import DurationSampler, Estimates, QueueEstimate, ShareHistory
    from quotactl.core.jobs.live import LiveQueue
    from quotactl.core.jobs.spec import SubmitRequest
    from quotactl.core.resources.observed import LiveJob


def read_for_estimates(account: Account, queues: Sequence[str] | None) -> list[LiveQueue]:
    """The queues with their unfinished jobs described and their SUCCEEDED jobs listed."""
    from quotactl.core.states import UNFINISHED, JobStatus

    return account.live.read_queues(
        list(queues) if queues else None,
        statuses=(*UNFINISHED, JobStatus.SUCCEEDED),
        describe=_unfinished,
    )


def _unfinished(job: LiveJob) -> bool:
    return not job.is_final


def sampler(
    account: Account, live: LiveQueue, history_file: Path | None
) -> tuple[DurationSampler | None, str | None]:
    """The run-time history to draw from: the ledger at ``history_file``, else the SUCCEEDED
    jobs the account still lists; None when there is none."""
    from quotactl.core.estimate import live_history

    if history_file is not None:
        return ledger_history(history_file, live.name, account.timing), str(history_file)
    found = live_history(live.jobs, account.timing.starting_seconds)
    return (found, "live") if len(found) else (None, None)


def estimate_queue(
    account: Account,
    live: LiveQueue,
    *,
    wanted: Sequence[str] | None = None,
    history_file: Path | None = None,
    seed: int | None = None,
) -> tuple[QueueEstimate, str | None]:
    """Estimate ``wanted`` (None: every waiting job) of one queue already read."""
    from quotactl.core.estimate import estimate
    from quotactl.core.estimate.estimate import SEED

    history, source = sampler(account, live, history_file)
    found = estimate(
        live,
        wanted=wanted,
        history=history,
        timing=account.timing,
        seed=SEED if seed is None else seed,
    )
    return found, source if found.history else None


def estimate_jobs(
    account: Account,
    queues: Sequence[str] | None = None,
    *,
    history_file: Path | None = None,
    seed: int | None = None,
) -> Estimates:
    """``jobs --eta``: every waiting job of ``queues`` (default: every quota-managed queue),
    each queue read once and run forward once for all its jobs."""
    before = Counter(account.calls)
    read = read_for_estimates(account, queues)
    results = [estimate_queue(account, q, history_file=history_file, seed=seed) for q in read]
    from quotactl.core.estimate import Estimates

    sources = {s for _, s in results if s}
    return Estimates(
        tuple(r for r, _ in results),
        dict(account.calls - before),
        ", ".join(sorted(sources)) or None,
    )


def preview_estimates(
    account: Account,
    live: LiveQueue,
    batch: Sequence[SubmitRequest],
    *,
    instance_type: str,
    count: int,
    priority: int,
    history_file: Path | None = None,
) -> tuple[tuple[str, ...], Estimates]:
    """``submit --dry-run``: when each job of ``batch`` would start if it were submitted now
    (placed after every job already submitted, as the placement preview places it)."""
    from quotactl.aws.responses import run_time_of
    from quotactl.core.estimate import Estimates, with_job
    from quotactl.core.jobs.placement import preview_ids, preview_submitted
    from quotactl.core.resources.observed import LiveJob
    from quotactl.core.states import JobStatus

    ids = preview_ids(len(batch))
    queue = live
    for job_id, created, request in zip(
        ids, preview_submitted(live, len(batch)), batch, strict=True
    ):
        duration, max_runtime, timeout = run_time_of(request.params)
        queue = with_job(
            queue,
            LiveJob(
                job_id=job_id,
                name=request.name,
                queue=live.name,
                share=request.share,
                status=JobStatus.SUBMITTED,
                instances={instance_type: count},
                created_at=created,
                priority=priority,
                detailed=True,
                duration=duration,
                max_runtime=max_runtime,
                attempt_timeout=timeout,
            ),
        )
    found, source = estimate_queue(account, queue, wanted=ids, history_file=history_file)
    return tuple(ids), Estimates((found,), {}, source)


def ledger_history(path: Path, queue: str, timing: Timing) -> ShareHistory:
    """The run times of the SUCCEEDED attempts of ``queue``'s shares in the ledger at
    ``path`` (``history --out``): ``started_at`` (the start of STARTING) to ``stopped_at``,
    less the STARTING phase of the timing model, as the engine counts a run."""
    from quotactl.core.estimate import ShareHistory
    from quotactl.core.history.ledger import AttemptOutcome, read_ledger

    return ShareHistory.of(
        (row.share, (row.stopped_at - row.started_at).total_seconds() - timing.starting_seconds)
        for row in read_ledger(path)
        if row.outcome is AttemptOutcome.SUCCEEDED
        and row.queue == queue
        and row.share
        and row.started_at is not None
        and row.stopped_at is not None
    )
