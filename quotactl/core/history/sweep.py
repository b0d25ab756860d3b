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

``L`` and whether a share lends are the settings in force at each moment: a share's schedule
windows (``quotactl.core.govern.windows``) change them at their boundaries, each change an
event that closes the share's stretches as a change of ``U`` does. So ``borrowed`` is
∫max(0, U - L) with the L of that moment, as a budget counts it, and ``entitled``, ``idle``
and ``lent`` follow the same limits.
"""

from __future__ import annotations

import bisect
import operator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import pairwise
from typing import TYPE_CHECKING

from quotactl.core.govern.windows import apply_window, boundaries, window_in_force
from quotactl.core.history.jobs import OPEN
from quotactl.core.history.misses import ShareHeads
from quotactl.core.history.settings import recorded_steps
from quotactl.core.status.compute import lending_rate

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from quotactl.core.history.jobs import JobRecord
    from quotactl.core.history.periods import Slices
    from quotactl.core.history.settings import SettingsRecord
    from quotactl.core.resources.desired import ShareSpec

FAR = -1e18
"""Before any event: every stretch starts here (the window cuts it)."""
_STOP, _START, _START_LEAVE, _WAIT_END, _WAIT, _SETTINGS = 0, 1, 2, 3, 4, 5


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
    recorded: Mapping[str, Sequence[SettingsRecord]] | None = None,
) -> None:
    """Every figure of one queue's shares, added into ``tally(slice, share, type)``; a share
    with settings ``recorded`` (by name, in time order) takes them from its first record on.

    The state is kept in flat lists indexed by ``k * len(names) + s`` (type k, share s), and
    the common stretch (inside the window, no periods) is added up inline: this loop runs
    once per event, hundreds of thousands of times for a month of a busy queue."""
    # (every job has a share and a type: `usage_of` keeps only those)
    names = sorted(set(specs) | set(map(_share, jobs)))
    index = {name: i for i, name in enumerate(names)}
    changes = (  # a configuration without windows or records: its settings hold throughout
        _settings(specs, min(slices.start, _earliest(jobs)), slices.end, recorded or {})
        if recorded or any(spec.schedule for spec in specs.values())
        else {}
    )
    settled = {n: changes[n][0][1] if n in changes else spec for n, spec in specs.items()}
    windowed = {t for steps in changes.values() for _, spec in steps for t in spec.capacity}
    types = sorted(
        {t for s in specs.values() for t in s.capacity} | windowed | set(map(_type, jobs))
    )
    kinds = {t: k for k, t in enumerate(types)}
    width = len(names)
    limit = [
        int(settled[n].capacity.get(t, 0)) if n in settled else 0 for t in types for n in names
    ]
    lend = [settled[n].strategy.lends if n in settled else False for t in types for n in names]
    usage = [0] * len(limit)
    since = [FAR] * len(limit)
    mark = [0.0] * len(limit)
    whole: list[Tally | None] = [None] * len(limit)  # slice 0's rows
    size = len(limit)
    rows: dict[int, Tally] = {}  # every slice's rows, by i * size + ks
    pool = [0] * len(types)
    idle = [
        sum(limit[k * width + s] for s in range(width) if lend[k * width + s])
        for k in range(len(types))
    ]
    rates = [Rate() for _ in types]
    memo: dict[tuple[int, int], float] = {}
    heads = [ShareHeads() for _ in names]
    room = [sum(1 for k in range(len(types)) if limit[k * width + s]) for s in range(width)]
    """Per share, the number of types whose use is below the limit (where a head may fit)."""
    cut = slices.cut
    whole_only, first, end, edges = not slices.periods, slices.start, slices.end, slices.edges
    # the period holding the current event: [p_lo, p_hi), the window itself without periods
    period, p_lo, p_hi = 0, first, first if slices.periods else OPEN

    def close_cut(ks: int, start: float, at: float, r_start: float, r_now: float) -> None:
        """A stretch that the window or its periods cut: added up piece by piece."""
        k, s = divmod(ks, width)
        u, lim, rate = usage[ks], limit[ks], rates[k]
        own = u if u < lim else lim
        spare = lim - own
        for i, lo, hi in cut(start, at):
            row = rows.get(i * size + ks)
            if row is None:
                row = rows[i * size + ks] = tally(i, names[s], types[k])
            seconds = hi - lo
            row.entitled += lim * seconds
            row.used += u * seconds
            row.own += own * seconds
            row.borrowed += (u - own) * seconds
            if not lend[ks]:
                row.reserved_unused += spare * seconds
            elif spare:
                row.idle += spare * seconds
                lent = (r_now if hi == at else rate(hi)) - (r_start if lo == start else rate(lo))
                row.lent += spare * lent

    events = _events(jobs, index, kinds)
    if changes:
        events += _setting_events(changes, index, kinds)
        events.sort()
    events.append((OPEN, -1, _STOP, 0, 0, -1))  # the end: the last share's head is looked at
    current = [0.0] * len(types)  # each type's lending rate now
    p_at, p_s = FAR, -1  # the last (time, share) changed: its head is looked at after it
    for at, s, kind, k, n, j in events:
        if at != p_at or s != p_s:
            if p_s >= 0:  # after share p_s's last change at p_at: does its head fit?
                share = heads[p_s]
                head = share.head() if room[p_s] else None  # no room: no head fits
                if head is not None and (
                    usage[head[0] * width + p_s] + head[1] <= limit[head[0] * width + p_s]
                ):
                    share.fits(p_at, types[head[0]])
                elif share.spell_since is not None:
                    share.close()
            if at >= end:
                break
            p_at, p_s = at, s
            share = heads[s]
            if share.spell_since is not None:
                share.flush(at, grace, cut)
        if kind <= _START_LEAVE or kind == _SETTINGS:
            ks = k * width + s
            # the stretch of (k, s) ends at `at`: add it up
            u, lim = usage[ks], limit[ks]
            start, since[ks] = since[ks], at
            if lend[ks]:
                rate = rates[k]
                r_now = rate.values[-1] + rate.rates[-1] * (at - rate.times[-1])
                r_start, mark[ks] = mark[ks], r_now
            else:
                r_start = r_now = 0.0
            if u or lim:
                if at >= p_hi:  # into the next period (without periods: never)
                    period = bisect.bisect_right(edges, at)
                    p_lo, p_hi = edges[period - 1], edges[period]
                # inside the window and one period (and, with periods, not empty: `cut` makes
                # no row for an empty stretch): the common case
                if start >= p_lo and (whole_only or start < at):
                    row = whole[ks]
                    if row is None:
                        row = whole[ks] = rows[ks] = tally(0, names[s], types[k])
                    if whole_only:
                        targets: tuple[Tally, ...] = (row,)
                    else:
                        part = rows.get(period * size + ks)
                        if part is None:
                            part = rows[period * size + ks] = tally(period, names[s], types[k])
                        targets = (row, part)
                    seconds = at - start
                    own = u if u < lim else lim
                    spare = lim - own
                    for row in targets:
                        if lim:
                            row.entitled += lim * seconds
                        if u:
                            row.used += u * seconds
                            row.own += own * seconds
                            if u > lim:
                                row.borrowed += (u - own) * seconds
                        if not lend[ks]:
                            if spare:
                                row.reserved_unused += spare * seconds
                        elif spare:
                            row.idle += spare * seconds
                            row.lent += spare * (r_now - r_start)
                else:
                    close_cut(ks, start, at, r_start, r_now)
            if kind == _SETTINGS:  # new settings in force: L is n, the share lends if j
                _settle(ks, n, j == 1, at, usage, limit, lend, mark, pool, idle, room, rates)
            else:
                v = u - n if kind == _STOP else u + n
                usage[ks] = v
                if (u < lim) is not (v < lim):
                    room[s] += 1 if v < lim else -1
                if u > lim or v > lim:
                    pool[k] += (v - lim if v > lim else 0) - (u - lim if u > lim else 0)
                if lend[ks] and (u < lim or v < lim):
                    idle[k] -= (v if v < lim else lim) - (u if u < lim else lim)
            p, i = pool[k], idle[k]
            if p and i:
                key = (p, i)
                found = memo.get(key)
                if found is None:
                    found = memo[key] = float(lending_rate(p, i))
            else:
                found = 0.0
            if found != current[k]:
                current[k] = found
                rates[k].set(at, found)
            if kind == _START_LEAVE:
                heads[s].leave(jobs[j].job_id)
        elif kind == _WAIT:
            job = jobs[j]
            heads[s].enter(job.job_id, job.priority, job.submitted, k, n)
        else:
            heads[s].leave(jobs[j].job_id)
    for ks in range(len(limit)):
        k, s = divmod(ks, width)
        rate = rates[k]
        r_now = rate.now(end) if lend[ks] else 0.0
        start = since[ks]
        if usage[ks] or limit[ks]:
            close_cut(ks, start, end, mark[ks] if lend[ks] else 0.0, r_now)
    for s, share in enumerate(heads):
        share.flush(end, grace, cut)
        share.close()
        for (i, t), seconds in share.missed.items():
            tally(i, names[s], t).missed += seconds
        for (i, t), seconds in share.longest.items():
            row = tally(i, names[s], t)
            row.longest = max(row.longest, seconds)


def _settle(
    ks: int,
    new_limit: int,
    lends: bool,
    at: float,
    usage: list[int],
    limit: list[int],
    lend: list[bool],
    mark: list[float],
    pool: list[int],
    idle: list[int],
    room: list[int],
    rates: list[Rate],
) -> None:
    """(type k, share s) takes ``new_limit`` and lends or not from ``at`` (its stretch was just
    closed): what it borrows, leaves idle and counts as room change with them."""
    width = len(room)
    k, s = divmod(ks, width)
    u, lim, lent = usage[ks], limit[ks], lend[ks]
    if (u < lim) is not (u < new_limit):
        room[s] += 1 if u < new_limit else -1
    pool[k] += max(0, u - new_limit) - max(0, u - lim)
    idle[k] += (new_limit - min(u, new_limit) if lends else 0) - (lim - min(u, lim) if lent else 0)
    limit[ks], lend[ks] = new_limit, lends
    if lends and not lent:  # its lending is integrated from now on
        mark[ks] = rates[k].now(at)


def _settings(
    specs: Mapping[str, ShareSpec],
    start: float,
    end: float,
    recorded: Mapping[str, Sequence[SettingsRecord]],
) -> dict[str, list[tuple[float, ShareSpec]]]:
    """Per share with schedule windows or settings records, its settings in force from
    ``start`` and at each change until ``end`` (epoch seconds; the first at ``start``): the
    boundaries of its windows until its first record, then its records'."""
    if end <= start:
        return {}
    since, until = _moment(start), _moment(end)
    found = {}
    for name, spec in specs.items():
        if spec.schedule:
            instants = [since, *(b for b in boundaries(spec.schedule, since, until) if b > since)]
            found[name] = [
                (b.timestamp(), apply_window(spec, window_in_force(spec, b))) for b in instants
            ]
        elif name in recorded:
            found[name] = [(start, spec)]
        if name in recorded:
            steps = recorded_steps(found[name], [r for r in recorded[name] if r.at < end])
            found[name] = steps
    return found


def _moment(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def _earliest(jobs: Sequence[JobRecord]) -> float:
    """When the first of ``jobs`` began to wait or run (``OPEN`` without jobs)."""
    first = OPEN
    for job in jobs:
        for a, _ in (*job.waits, *job.runs):
            if a < first:
                first = a
    return first


def _setting_events(
    changes: Mapping[str, list[tuple[float, ShareSpec]]],
    index: Mapping[str, int],
    kinds: Mapping[str, int],
) -> list[Event]:
    """A ``_SETTINGS`` event per share and type at each change of its settings after the first
    (in force from the start): (time, share, kind, type, the new limit, 1 if it lends)."""
    events: list[Event] = []
    for name, steps in changes.items():
        s = index[name]
        for (_, before), (at, after) in pairwise(steps):
            lends = after.strategy.lends
            for itype, k in kinds.items():
                old, new = before.capacity.get(itype, 0), after.capacity.get(itype, 0)
                if old != new or before.strategy.lends != lends:
                    events.append((at, s, _SETTINGS, k, int(new), 1 if lends else 0))
    return events


Event = tuple[float, int, int, int, int, int]
"""(time, share, kind, type, instances, job index): a share's changes at one time are
adjacent, stops before starts. A start that ends the job's wait is one event
(``_START_LEAVE``), not two."""


def _events(
    jobs: Sequence[JobRecord], index: Mapping[str, int], kinds: Mapping[str, int]
) -> list[Event]:
    events: list[Event] = []
    add = events.append
    for j, (_, _, share, _, itype, n, _, _, _, runs, waits, _) in enumerate(jobs):
        s, k = index[share], kinds[itype]  # type: ignore[index]
        if len(runs) == 1 and len(waits) == 1:
            (a, b), (w, w_end) = runs[0], waits[0]
            if w_end == a:  # most jobs: one wait, then one run
                add((w, s, _WAIT, k, n, j))
                add((a, s, _START_LEAVE, k, n, j))
                if b != OPEN:
                    add((b, s, _STOP, k, n, j))
                continue
        for a, b in waits:
            add((a, s, _WAIT, k, n, j))
            if b != OPEN and all(b != start for start, _ in runs):
                add((b, s, _WAIT_END, k, n, j))
        ends = {b for _, b in waits}
        for a, b in runs:
            add((a, s, _START_LEAVE if a in ends else _START, k, n, j))
            if b != OPEN:
                add((b, s, _STOP, k, n, j))
    # by time first (a sort of floats), then in full: only the ties are out of order by then
    events.sort(key=_time)
    events.sort()
    return events


_time = operator.itemgetter(0)
_share = operator.attrgetter("share")
_type = operator.attrgetter("instance_type")
