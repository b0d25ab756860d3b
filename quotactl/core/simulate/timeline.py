"""What a simulation did over time, collected cheaply: the series a report draws.

A ``Recorder`` rides along one replay (``simulate(..., recorder=...)``). It never samples per
second and keeps no per-event log: time is cut into intervals of equal width, and per interval
it keeps, for each share and instance type, the lowest and highest instances in use (updated
at each start and stop, so no peak is lost), and, from the integrals the engine already keeps,
the instance-seconds each lending share lent and each queue used, and the preemptions per
share. When the intervals pass ``_MOST``, neighbours are merged in pairs and the width doubles,
so memory stays bounded whatever the trace's length; a report thins them further for drawing.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from operator import add
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from quotactl.core.engine import QueueModel
    from quotactl.core.engine.capacity import Capacity

_FIRST_WIDTH = 10.0  # seconds: short traces keep their detail
_MOST = 1024  # intervals kept before neighbours merge (a report draws a few hundred)

WAIT_BINS = (60.0, 600.0, 3600.0, 6 * 3600.0, 86400.0, 7 * 86400.0)
"""Upper edges (seconds) of the wait histogram's bins; the last bin is everything longer."""


@dataclass(frozen=True)
class UsageSeries:
    """One share's instances of one type in use per interval (lowest, highest) and lent."""

    instance_type: str
    limit: int
    low: tuple[int, ...]
    high: tuple[int, ...]
    lent: tuple[float, ...]  # instance-seconds lent per interval; empty if the share never lends


@dataclass(frozen=True)
class ShareTimeline:
    queue: str
    share: str
    usage: tuple[UsageSeries, ...]
    preemptions: tuple[int, ...]  # per interval
    # jobs per wait bin (``WAIT_BINS``, then never started), once the run is summarised
    waits: tuple[int, ...] = ()


@dataclass(frozen=True)
class QueueTimeline:
    queue: str
    used: tuple[float, ...]  # instance-seconds used per interval


@dataclass(frozen=True)
class Timeline:
    """Per-interval series of one run; interval ``i`` starts at ``i * width``."""

    width: float
    end: float  # the run's end: the last interval may be cut short there
    shares: tuple[ShareTimeline, ...]
    queues: tuple[QueueTimeline, ...]

    def seconds(self, i: int) -> float:
        """How long interval ``i`` is (the last may be cut short by the end of the run)."""
        return max(0.0, min(self.width, self.end - i * self.width))


def wait_histogram(ordered: Sequence[float], never: int = 0) -> tuple[int, ...]:
    """Jobs per ``WAIT_BINS`` bin, from waits in ascending order, then the ``never`` jobs that
    never started (every job counts: their wait is infinite)."""
    counts = []
    below = 0
    for edge in WAIT_BINS:
        upto = bisect_right(ordered, edge)
        counts.append(upto - below)
        below = upto
    counts.append(len(ordered) - below)
    counts.append(never)
    return tuple(counts)


class Recorder:
    """Collects a ``Timeline`` during one replay; see the module docstring.

    The simulator calls ``started`` and ``stopped`` after an attempt of share ``s`` on pair
    ``k`` (share and instance type, the engine's indexes) takes or frees its instances,
    ``preempted`` per preemption, and ``roll(at)`` at the top of every instant at or after
    ``edge``, while the engine still holds the state of the instants before. Instance-seconds
    used come from the engine's meter of ended attempts plus, for the running ones, their
    instances and start times summed here (so closing an interval is O(shares)).
    """

    def __init__(self, queues: Sequence[QueueModel], capacity: Capacity) -> None:
        self._queues = tuple(queues)
        self._cap = capacity
        self.width = _FIRST_WIDTH
        self.edge = _FIRST_WIDTH
        self._start = 0.0  # start of the open interval
        shares = [s for q in queues for s in q.shares]
        self._queue_of = [i for i, q in enumerate(queues) for _ in q.shares]
        # tracked pairs: the (share, type) pairs with a limit, in share order
        self._pairs = [
            k
            for s, share in enumerate(shares)
            for k in range(s, len(capacity.usage), capacity.S)
            if capacity.has_limit[k]
        ]
        usage = capacity.usage
        self._low = list(usage)
        self._high = list(usage)
        self._lows: dict[int, list[int]] = {k: [] for k in self._pairs}
        self._highs: dict[int, list[int]] = {k: [] for k in self._pairs}
        self._lending = [k for k in self._pairs if capacity.lends_k[k]]
        self._lent: dict[int, list[float]] = {k: [] for k in self._lending}
        self._lent_so_far = dict.fromkeys(self._lending, 0.0)
        self._used: list[list[float]] = [[] for _ in queues]
        self._used_so_far = [0.0] * len(queues)
        self._preempted = [0] * len(shares)
        self._preemptions: list[list[int]] = [[] for _ in shares]
        self._ended: Sequence[float] = [0.0] * len(shares)
        self._running = [0] * len(shares)  # instances of running attempts
        self._since = [0.0] * len(shares)  # the sum of their instances x start time

    def attach(self, ended: Sequence[float]) -> None:
        """The engine's instance-seconds of ended attempts per share (a list it updates)."""
        self._ended = ended

    def started(self, k: int, s: int, count: int, now: float) -> None:
        u = self._cap.usage[k]
        if u > self._high[k]:
            self._high[k] = u
        self._running[s] += count
        self._since[s] += count * now

    def stopped(self, k: int, s: int, count: int, started_at: float) -> None:
        u = self._cap.usage[k]
        if u < self._low[k]:
            self._low[k] = u
        self._running[s] -= count
        self._since[s] -= count * started_at

    def preempted(self, s: int) -> None:
        self._preempted[s] += 1

    def roll(self, at: float) -> float:
        """Close every interval that ends at or before ``at``; returns the next edge."""
        while self.edge <= at:
            self._close(self.edge)
            if len(self._used[0]) >= _MOST:
                self._coarsen()
            self._start = self.edge
            self.edge = self._start + self.width
        return self.edge

    def finish(self, end: float) -> Timeline:
        """Close the open interval at ``end`` and hand over the series."""
        self.roll(end)
        if end > self._start or not self._used[0]:
            self._close(end)
        names = [(q.name, s.name) for q in self._queues for s in q.shares]
        types = self._cap.types
        shares = []
        for s, (queue, share) in enumerate(names):
            usage = tuple(
                UsageSeries(
                    instance_type=types[k // self._cap.S].split("/", 1)[1],
                    limit=self._cap.limit[k],
                    low=tuple(self._lows[k]),
                    high=tuple(self._highs[k]),
                    lent=tuple(self._lent.get(k, ())),
                )
                for k in self._pairs
                if k % self._cap.S == s
            )
            shares.append(ShareTimeline(queue, share, usage, tuple(self._preemptions[s])))
        queues = tuple(
            QueueTimeline(q.name, tuple(used))
            for q, used in zip(self._queues, self._used, strict=True)
        )
        return Timeline(self.width, end, tuple(shares), queues)

    def _close(self, edge: float) -> None:
        cap = self._cap
        usage = cap.usage
        for k in self._pairs:
            self._lows[k].append(self._low[k])
            self._highs[k].append(self._high[k])
            self._low[k] = self._high[k] = usage[k]
        for k in self._lending:
            lent = _lent_until(cap, k, edge)
            self._lent[k].append(lent - self._lent_so_far[k])
            self._lent_so_far[k] = lent
        per_queue = [0.0] * len(self._queues)
        for s, ended in enumerate(self._ended):
            per_queue[self._queue_of[s]] += ended + self._running[s] * edge - self._since[s]
        for q, used in enumerate(per_queue):
            self._used[q].append(used - self._used_so_far[q])
            self._used_so_far[q] = used
        for s, count in enumerate(self._preempted):
            self._preemptions[s].append(count)
            self._preempted[s] = 0

    def _coarsen(self) -> None:
        """Merge neighbouring intervals in pairs: the width doubles, no extreme is lost."""
        for k in self._pairs:
            self._lows[k] = _pairwise(self._lows[k], min)
            self._highs[k] = _pairwise(self._highs[k], max)
        for series in (*self._lent.values(), *self._used):
            series[:] = _pairwise(series, add)
        for counts in self._preemptions:
            counts[:] = _pairwise(counts, add)
        self.width *= 2


_N = TypeVar("_N", int, float)


def _pairwise(series: list[_N], merge: Callable[[_N, _N], _N]) -> list[_N]:
    merged = [merge(a, b) for a, b in zip(series[0::2], series[1::2], strict=False)]
    if len(series) % 2:
        merged.append(series[-1])
    return merged


def _lent_until(cap: Capacity, k: int, at: float) -> float:
    """Instance-seconds pair ``k`` lent up to ``at``, with the rates that hold now.

    The ledger integrates lending lazily (see ``quotactl.core.engine.capacity``): the rate sum
    of the type is brought up to ``at`` and the pair's idle capacity since its mark applied.
    """
    meters = cap.meters
    assert meters is not None
    t = k // cap.S
    rate = meters.rate_sum[t]
    if cap.borrowed[t]:
        rate += cap.borrowed[t] * (at - meters.rate_since[t]) / cap.idle[t]
    idle = cap.limit[k] - cap.usage[k]
    return meters.lent[k] + (idle * (rate - meters.mark[k]) if idle > 0 else 0.0)
