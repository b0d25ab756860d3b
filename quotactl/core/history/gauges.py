"""What the Prometheus exposition reports: status's figures per share and instance type, the
share's jobs by status and its oldest wait, and the preemptions seen so far.

``reading_of`` takes one read of the live queues and their status report. A ``Preemptions``
tally keeps every preempted attempt it has been shown (by job and stop time), so a counter
built from it only grows, however often the same attempt is read again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from quotactl.core.govern.readback import Governance
from quotactl.core.states import QUEUED

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.jobs.live import LiveQueue
    from quotactl.core.status.report import CapacityRow, StatusReport

ShareKey = tuple[str, str, str]
"""(queue, share, team): the labels of a share's series (team "" when it has none)."""


@dataclass(frozen=True)
class ShareGauges:
    """One share's figures at the read."""

    key: ShareKey
    capacity: tuple[CapacityRow, ...]
    jobs: dict[str, int]
    oldest_wait: float
    """Seconds the share's longest-queued job (SUBMITTED or RUNNABLE) has waited; 0 if none."""


@dataclass(frozen=True)
class Reading:
    """One read of the account: the time, every share's gauges, and the preempted attempts
    the read saw as (share, job ID, stop time)."""

    at: float
    shares: tuple[ShareGauges, ...]
    preempted: frozenset[tuple[ShareKey, str, float]]
    governance: Governance = field(default_factory=Governance)
    """Budgets and governed shares, from the governor's tags."""


def reading_of(queues: Sequence[LiveQueue], report: StatusReport) -> Reading:
    """The gauges of ``report``, with the waits and preemptions from the queues it was
    computed from."""
    live = {q.name: q for q in queues}
    shares: list[ShareGauges] = []
    preempted: set[tuple[ShareKey, str, float]] = set()
    for queue in report.queues:
        jobs = live[queue.name].jobs if queue.name in live else ()
        for share in queue.shares:
            key = (queue.name, share.name, share.team or "")
            waiting = [
                j.created_at
                for j in jobs
                if j.share == share.name and j.status in QUEUED and j.created_at is not None
            ]
            oldest = max(0.0, report.at - min(waiting)) if waiting else 0.0
            shares.append(ShareGauges(key, share.capacity, dict(share.jobs), oldest))
            for job in jobs:
                if job.share != share.name:
                    continue
                for attempt in job.recent_preemptions:
                    if attempt.stopped_at is not None:
                        preempted.add((key, job.job_id, attempt.stopped_at))
    return Reading(report.at, tuple(shares), frozenset(preempted), report.governance)


@dataclass
class Preemptions:
    """Preempted attempts counted per share, each once, across readings."""

    seen: set[tuple[ShareKey, str, float]] = field(default_factory=set)
    counts: dict[ShareKey, int] = field(default_factory=dict)

    def add(self, reading: Reading) -> None:
        for share in reading.shares:
            self.counts.setdefault(share.key, 0)
        for item in reading.preempted - self.seen:
            self.seen.add(item)
            self.counts[item[0]] = self.counts.get(item[0], 0) + 1
