"""One queue's attempts swept in time order into exact integrals per share and instance type.

Between two events (an attempt starting or stopping, a job starting or ending a wait) every
share's usage ``U`` is constant. Each share and type keeps one open *stretch* (the time since
its ``U`` last changed); when ``U`` changes, the stretch is closed and added up, cut into the
window and its periods: ``used = U``, ``own = min(U, L)``, ``borrowed = U - own``, and
``L - own`` as ``idle`` (a share that lends) or ``reserved_unused`` (RESERVE), each times the
stretch's length. ``lent`` follows status's rule at every instant
(``quotactl.core.status.compute.lending_rate``): per type, the rate ``covered / Σ idle`` is
integrated over time (``R``, piecewise linear, with a breakpoint where the rate changes), and a
lender's stretch adds ``idle * (R(end) - R(start))``. So the work is proportional to the
number of events, however long the window and however many periods it has.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from quotactl.core.history.jobs import OPEN
from quotactl.core.history.misses import ShareHeads
from quotactl.core.status.compute import lending_rate

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from quotactl.core.history.jobs import JobRecord
    from quotactl.core.history.periods import Slices
    from quotactl.core.resources.desired import ShareSpec

FAR = -1e18
"""Before any event: every stretch starts here (the window cuts it)."""
_STOP, _START, _WAIT_END, _WAIT = 0, 1, 2, 3


@dataclass
class Tally:
    """One (slice, queue, share, instance type)'s sums, in instance-seconds and seconds."""

    team: str | None = None
    entitled: float = 0.0
    used: float = 0.0
    own: float = 0.0
    borrowed: float = 0.0
    lent: float = 0.0
    idle: float = 0.0
    reserved_unused: float = 0.0
    waits: list[float] = field(default_factory=list)
    jobs: int = 0
    preemptions: int = 0
    work_lost: float = 0.0
    missed: float = 0.0
    longest: float = 0.0


class Rate:
    """The integral ``R`` of one type's lending rate over time, piecewise linear."""

    __slots__ = ("rates", "times", "values")

    def __init__(self) -> None:
        self.times = [FAR]
        self.values = [0.0]
        self.rates = [0.0]

    def set(self, at: float, rate: float) -> None:
        if rate != self.rates[-1]:
            self.values.append(self.now(at))
            self.times.append(at)
            self.rates.append(rate)

    def now(self, at: float) -> float:
        """``R(at)`` for a time at or after the last breakpoint."""
        return self.values[-1] + self.rates[-1] * (at - self.times[-1])

    def __call__(self, at: float) -> float:
        i = bisect.bisect_right(self.times, at) - 1
        return self.values[i] + self.rates[i] * (at - self.times[i])


def sweep(
    specs: Mapping[str, ShareSpec],
    jobs: Sequence[JobRecord],
    slices: Slices,
    grace: float,
    tally: Callable[[int, str, str], Tally],
) -> None:
    """Every figure of one queue's shares, added into ``tally(slice, share, type)``."""
    names = sorted(set(specs) | {j.share for j in jobs if j.share is not None})
    index = {name: i for i, name in enumerate(names)}
    types = sorted(
        {t for s in specs.values() for t in s.capacity}
        | {j.instance_type for j in jobs if j.instance_type is not None}
    )
    kinds = {t: k for k, t in enumerate(types)}
    limit = [[int(specs[n].capacity.get(t, 0)) if n in specs else 0 for n in names] for t in types]
    lends = [specs[n].strategy.lends if n in specs else False for n in names]
    usage = [[0] * len(names) for _ in types]
    since = [[FAR] * len(names) for _ in types]
    mark = [[0.0] * len(names) for _ in types]
    pool = [0] * len(types)
    idle = [sum(lim for lim, lender in zip(row, lends, strict=True) if lender) for row in limit]
    rates = [Rate() for _ in types]
    memo: dict[tuple[int, int], float] = {}
    heads = [ShareHeads() for _ in names]
    cut = slices.cut
    whole_only, first, end = not slices.periods, slices.start, slices.end
    rows: dict[tuple[int, int, int], Tally] = {}

    def close(k: int, s: int, at: float) -> None:
        """The stretch of (type k, share s) ends at ``at``: add it up."""
        u, lim = usage[k][s], limit[k][s]
        start, since[k][s] = since[k][s], at
        rate = rates[k]
        r_start, r_now = mark[k][s], rate.now(at)
        mark[k][s] = r_now
        if not u and not lim:
            return
        own = u if u < lim else lim
        spare = lim - own
        if whole_only and start >= first and at <= end:
            pieces: list[tuple[int, float, float]] = [(0, start, at)]  # the common case
        else:
            pieces = cut(start, at)
        for i, lo, hi in pieces:
            row = rows.get((i, k, s))
            if row is None:
                row = rows[i, k, s] = tally(i, names[s], types[k])
            seconds = hi - lo
            row.entitled += lim * seconds
            row.used += u * seconds
            row.own += own * seconds
            row.borrowed += (u - own) * seconds
            if not lends[s]:
                row.reserved_unused += spare * seconds
            elif spare:
                row.idle += spare * seconds
                lent = (r_now if hi == at else rate(hi)) - (r_start if lo == start else rate(lo))
                row.lent += spare * lent

    events = _events(jobs, index, kinds)
    count = len(events)
    for e, (at, s, kind, k, n, j) in enumerate(events):
        if at >= end:
            break
        share = heads[s]
        if share.last != at:
            share.flush(at, grace, cut)
        if kind <= _START:
            close(k, s, at)
            u, lim = usage[k][s], limit[k][s]
            v = u + n if kind == _START else u - n
            pool[k] += (v - lim if v > lim else 0) - (u - lim if u > lim else 0)
            if lends[s]:
                idle[k] -= (v if v < lim else lim) - (u if u < lim else lim)
            usage[k][s] = v
            key = (pool[k], idle[k])
            found = memo.get(key)
            if found is None:
                found = memo[key] = float(lending_rate(*key))
            rates[k].set(at, found)
        elif kind == _WAIT:
            job = jobs[j]
            share.enter(job.job_id, job.priority, job.submitted, k, n)
        else:
            share.leave(jobs[j].job_id)
        following = events[e + 1] if e + 1 < count else None
        if following is None or following[0] != at or following[1] != s:
            # after the share's last change at this time: does its head fit its own limit?
            head = share.head()
            if head is not None and usage[head[0]][s] + head[1] <= limit[head[0]][s]:
                share.fits(at, types[head[0]])
            else:
                share.close()
    for k in range(len(types)):
        for s in range(len(names)):
            close(k, s, end)
    for s, share in enumerate(heads):
        share.flush(end, grace, cut)
        share.close()
        for (i, t), seconds in share.missed.items():
            tally(i, names[s], t).missed += seconds
        for (i, t), seconds in share.longest.items():
            row = tally(i, names[s], t)
            row.longest = max(row.longest, seconds)


Event = tuple[float, int, int, int, int, int]
"""(time, share, kind, type, instances, job index): a share's changes at one time are
adjacent, stops before starts."""


def _events(
    jobs: Sequence[JobRecord], index: Mapping[str, int], kinds: Mapping[str, int]
) -> list[Event]:
    events: list[Event] = []
    add = events.append
    for j, job in enumerate(jobs):
        assert job.share is not None
        assert job.instance_type is not None
        s, k, n = index[job.share], kinds[job.instance_type], job.instances
        for a, b in job.runs:
            add((a, s, _START, k, n, j))
            if b != OPEN:
                add((b, s, _STOP, k, n, j))
        for a, b in job.waits:
            add((a, s, _WAIT, k, n, j))
            if b != OPEN:
                add((b, s, _WAIT_END, k, n, j))
    events.sort()
    return events
