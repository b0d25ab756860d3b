"""What a simulation reports, per share and per queue.

Per share: jobs finished; wait (first start - submit) mean, p50, p95 (nearest rank) over the
jobs that started; instance-hours on own capacity, on borrowed capacity and lent to others;
preemptions and the instance-hours of work they discarded (a preempted attempt starts over).
Per queue: utilisation of claimed capacity over the trace window (from 0 to the last
submission): instance-hours used in the window over ``sum_t min(environment capacity, sum of
share limits) x window``. The window, not the makespan: a backlog draining after the last
submission says nothing about how well the capacity served the workload while it arrived.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from quotactl.core.simulate.timeline import wait_histogram

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.engine import QueueModel, ShareModel
    from quotactl.core.simulate.timeline import Timeline

HOUR = 3600.0


@dataclass(frozen=True)
class RawShare:
    """A share's meters at the end of a run, before summarising."""

    share: ShareModel
    submitted: int
    finished: int
    stuck: int
    misconfigured: int
    waits: Sequence[float]
    own_seconds: float
    borrowed_seconds: float
    lent_seconds: float
    preemptions: int
    discarded_seconds: float


@dataclass(frozen=True)
class RunTotals:
    """Everything a run measured: per queue, the raw numbers of each of its shares."""

    jobs: int
    window: float  # seconds from 0 to the last submission
    window_used: tuple[float, ...]  # per queue: instance-seconds used within the window
    end: float  # seconds from 0 to the last job's end
    queues: tuple[QueueModel, ...]
    shares: tuple[tuple[RawShare, ...], ...]
    timeline: Timeline | None = None  # with ``simulate(..., record=True)``


@dataclass(frozen=True)
class WaitStats:
    """Seconds from submission to first start, over the jobs that started."""

    started: int
    mean: float
    p50: float
    p95: float
    max: float


@dataclass(frozen=True)
class ShareResult:
    queue: str
    share: str
    team: str | None
    strategy: str
    submitted: int
    finished: int
    stuck: int  # still queued at the end: never started, or preempted and never restarted
    misconfigured: int  # of those, stuck with a MISCONFIGURATION reason
    wait: WaitStats | None
    own_hours: float
    borrowed_hours: float
    lent_hours: float
    preemptions: int
    preempted_hours: float

    @property
    def label(self) -> str:
        """How the verdict names the share: by its team when the config says whose it is."""
        return f"team {self.team}" if self.team else f"share {self.share}"


@dataclass(frozen=True)
class QueueResult:
    queue: str
    claimed: dict[str, int]  # per instance type: min(environment capacity, sum of share limits)
    used_hours: float  # within the trace window
    claimed_hours: float  # claimed capacity x the trace window

    @property
    def utilisation(self) -> float | None:
        return self.used_hours / self.claimed_hours if self.claimed_hours > 0 else None


@dataclass(frozen=True)
class SimulationResult:
    jobs: int
    window_seconds: float
    end_seconds: float
    queues: tuple[QueueResult, ...]
    shares: tuple[ShareResult, ...]
    timeline: Timeline | None = None  # the series a report draws, when the run recorded them

    @property
    def utilisation(self) -> float | None:
        claimed = sum(q.claimed_hours for q in self.queues)
        return sum(q.used_hours for q in self.queues) / claimed if claimed > 0 else None

    @property
    def preemptions(self) -> int:
        return sum(s.preemptions for s in self.shares)

    @property
    def preempted_hours(self) -> float:
        return sum(s.preempted_hours for s in self.shares)


def summarise(run: RunTotals) -> SimulationResult:
    """Turn a run's meters into the numbers a report shows."""
    queues = []
    shares = []
    histograms = []
    for queue, used, raw_shares in zip(run.queues, run.window_used, run.shares, strict=True):
        claimed = _claimed(queue)
        claimed_hours = sum(claimed.values()) * run.window / HOUR
        queues.append(QueueResult(queue.name, claimed, used / HOUR, claimed_hours))
        for raw in raw_shares:
            ordered = sorted(raw.waits)
            shares.append(_share_result(queue.name, raw, ordered))
            if run.timeline is not None:
                histograms.append(wait_histogram(ordered))
    timeline = run.timeline
    if timeline is not None:
        waits = zip(timeline.shares, histograms, strict=True)
        timeline = replace(timeline, shares=tuple(replace(s, waits=w) for s, w in waits))
    return SimulationResult(
        run.jobs, run.window, run.end, tuple(queues), tuple(shares), timeline=timeline
    )


def instance_hours(hours: float) -> str:
    """``0.5``, ``12.3``, ``1,204``: one decimal while it matters."""
    return f"{hours:.1f}" if hours < 100 else f"{hours:,.0f}"


def percentile(ordered: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of an ascending sequence (``q`` in 0-1)."""
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _claimed(queue: QueueModel) -> dict[str, int]:
    types = dict.fromkeys([*queue.capacity, *(t for s in queue.shares for t in s.limits)])
    claimed = {}
    for t in types:
        limits = sum(s.limits.get(t, 0) for s in queue.shares)
        claimed[t] = min(queue.capacity.get(t, 0), limits)
    return {t: n for t, n in claimed.items() if n > 0}


def _share_result(queue: str, raw: RawShare, ordered: Sequence[float]) -> ShareResult:
    wait = None
    if ordered:
        wait = WaitStats(
            started=len(ordered),
            mean=math.fsum(ordered) / len(ordered),
            p50=percentile(ordered, 0.50),
            p95=percentile(ordered, 0.95),
            max=ordered[-1],
        )
    return ShareResult(
        queue=queue,
        share=raw.share.name,
        team=raw.share.team,
        strategy=raw.share.strategy.value,
        submitted=raw.submitted,
        finished=raw.finished,
        stuck=raw.stuck,
        misconfigured=raw.misconfigured,
        wait=wait,
        own_hours=raw.own_seconds / HOUR,
        borrowed_hours=raw.borrowed_seconds / HOUR,
        lent_hours=raw.lent_seconds / HOUR,
        preemptions=raw.preemptions,
        preempted_hours=raw.discarded_seconds / HOUR,
    )
