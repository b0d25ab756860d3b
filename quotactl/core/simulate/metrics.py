"""What a simulation reports, per share and per queue.

Per share: jobs submitted, finished, failed, terminated (by the queue's runnable timeout) and
stuck (not finished when the replay ended; ``never_started`` of them never started), with
submitted = finished + failed + terminated + stuck. Every job counts in the waits (first start -
submit): a job that never started (stuck, or terminated before it ran) has an infinite wait,
sorted last for the nearest-rank p50 and p95, which are ``inf`` (``never``) when they fall on
one; the mean is over the jobs that started, with their count, and ``judged_mean`` (what rules
and objectives read) is infinite when any job never started. Instance-hours on own capacity,
on borrowed capacity and lent to others; preemptions and the instance-hours of work they
discarded (a preempted attempt starts over).
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
    from collections.abc import Mapping, Sequence

    from quotactl.core.engine import QueueModel, ShareModel
    from quotactl.core.simulate.governed import Taken
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
    terminated: int = 0  # by the queue's runnable timeout, before they started
    never_started: int = 0  # of the stuck jobs, those that never started


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
    refused: Mapping[str, int] | None = None
    """A governed run: trace jobs refused per ``queue/share`` (sent while it was DISABLED)."""
    taken: tuple[Taken, ...] | None = None
    """A governed run: every action its governor took."""


@dataclass(frozen=True)
class WaitStats:
    """Seconds from submission to first start, over every job: one that never started waits
    forever (``math.inf``) and sorts last. ``mean`` is over the ``started`` jobs (None: none
    did); ``p50``, ``p95`` and ``max`` are ``inf`` when they fall on a never-started job."""

    started: int
    mean: float | None
    p50: float
    p95: float
    max: float
    never_started: int = 0

    @property
    def judged_mean(self) -> float:
        """The mean as rules and objectives read it: infinite when any job never started."""
        if self.never_started or self.mean is None:
            return math.inf
        return self.mean


@dataclass(frozen=True)
class ShareResult:
    queue: str
    share: str
    team: str | None
    strategy: str
    submitted: int
    finished: int
    stuck: int  # not finished when the replay ended, started or not
    misconfigured: int  # of those, stuck with a MISCONFIGURATION reason
    wait: WaitStats | None  # None: the share was sent no job
    own_hours: float
    borrowed_hours: float
    lent_hours: float
    preemptions: int
    preempted_hours: float
    terminated: int = 0  # ended by the queue's runnable timeout
    never_started: int = 0  # of the stuck jobs, those that never started
    refused: int | None = None
    """A governed run: trace jobs sent while the share was DISABLED, which AWS refuses (not
    submitted, so in no other count); None: the run applied no policy."""

    @property
    def failed(self) -> int:
        """Jobs that ended FAILED otherwise (submitted = finished + failed + terminated +
        stuck)."""
        return self.submitted - self.finished - self.terminated - self.stuck

    @property
    def not_run(self) -> int:
        """Jobs that never started: stuck unstarted or terminated by the runnable timeout."""
        return self.wait.never_started if self.wait is not None else 0

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
    governed: tuple[Taken, ...] | None = None
    """The actions the configuration's policies took (None: the run applied none)."""

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
            result = _share_result(queue.name, raw, ordered)
            if run.refused is not None:
                result = replace(
                    result, refused=run.refused.get(f"{queue.name}/{raw.share.name}", 0)
                )
            shares.append(result)
            if run.timeline is not None:
                histograms.append(wait_histogram(ordered, raw.never_started + raw.terminated))
    timeline = run.timeline
    if timeline is not None:
        waits = zip(timeline.shares, histograms, strict=True)
        timeline = replace(timeline, shares=tuple(replace(s, waits=w) for s, w in waits))
    return SimulationResult(
        run.jobs,
        run.window,
        run.end,
        tuple(queues),
        tuple(shares),
        timeline=timeline,
        governed=run.taken,
    )


def instance_hours(hours: float) -> str:
    """``0.5``, ``12.3``, ``1,204``: one decimal while it matters."""
    return f"{hours:.1f}" if hours < 100 else f"{hours:,.0f}"


def percentile(ordered: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of an ascending sequence (``q`` in 0-1)."""
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _rank(ordered: Sequence[float], never: int, q: float) -> float:
    """Nearest-rank percentile of ``ordered`` followed by ``never`` infinite waits."""
    i = max(0, math.ceil(q * (len(ordered) + never)) - 1)
    return ordered[i] if i < len(ordered) else math.inf


def _claimed(queue: QueueModel) -> dict[str, int]:
    types = dict.fromkeys([*queue.capacity, *(t for s in queue.shares for t in s.limits)])
    claimed = {}
    for t in types:
        limits = sum(s.limits.get(t, 0) for s in queue.shares)
        claimed[t] = min(queue.capacity.get(t, 0), limits)
    return {t: n for t, n in claimed.items() if n > 0}


def _share_result(queue: str, raw: RawShare, ordered: Sequence[float]) -> ShareResult:
    never = raw.never_started + raw.terminated  # jobs that never started wait forever
    wait = None
    if ordered or never:
        wait = WaitStats(
            started=len(ordered),
            mean=math.fsum(ordered) / len(ordered) if ordered else None,
            p50=_rank(ordered, never, 0.50),
            p95=_rank(ordered, never, 0.95),
            max=math.inf if never else ordered[-1],
            never_started=never,
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
        terminated=raw.terminated,
        never_started=raw.never_started,
    )
