"""Estimates of when waiting jobs start: ``estimate_jobs`` (``jobs --eta``) and the estimate
step of ``why`` and ``preview``.

The live queue is read once (unfinished jobs described, for their priorities and run times;
SUCCEEDED jobs listed, for the share's history) and run forward through the engine once for
all its jobs (``quotactl.core.estimate``). The API calls of the reads are counted and
reported with the estimate; its time budget is for the computation after them.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from quotactl.aws.account import Account
    from quotactl.core.engine import Timing
    from quotactl.core.estimate import DurationSampler, Eta, QueueEstimate
    from quotactl.core.jobs.live import LiveQueue
    from quotactl.core.resources.observed import LiveJob


@dataclass(frozen=True)
class Estimates:
    """The estimates of one command, by job ID, and what they cost."""

    queues: tuple[QueueEstimate, ...] = ()
    calls: Mapping[str, int] = field(default_factory=dict)
    """Batch API calls the command's reads made, by operation (pages included)."""
    history: str | None = None
    """Where drawn run times came from: ``live`` (the SUCCEEDED jobs the account lists) or
    the ledger's path; None when nothing was drawn."""

    def eta(self, job_id: str) -> Eta | None:
        for queue in self.queues:
            found = queue.etas.get(job_id)
            if found is not None:
                return found
        return None

    @property
    def runs(self) -> int:
        return max((q.runs for q in self.queues), default=0)

    @property
    def seconds(self) -> float:
        return sum(q.seconds for q in self.queues)

    @property
    def seed(self) -> int:
        from quotactl.core.estimate.estimate import SEED

        return self.queues[0].seed if self.queues else SEED


def timing_of(account: Account) -> Timing:
    """The timing model the account's scheduler follows: the emulator's setting on the
    local backend (``QUOTACTL_EMULATOR_TIMING``), the default one on AWS."""
    from quotactl.core.engine import TIMING, TIMING_VARIABLE, parse_timing

    if account.backend_name == "local":
        return parse_timing(os.environ.get(TIMING_VARIABLE))
    return TIMING


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
        from quotactl.api.ledgers import ledger_history

        return ledger_history(history_file, live.name, timing_of(account)), str(history_file)
    found = live_history(live.jobs, timing_of(account).starting_seconds)
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
        timing=timing_of(account),
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
    sources = {s for _, s in results if s}
    return Estimates(
        tuple(r for r, _ in results),
        dict(account.calls - before),
        ", ".join(sorted(sources)) or None,
    )
