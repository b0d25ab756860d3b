"""``usage``: what each share (or team) used, borrowed and lent over a window, exactly.

Every figure is an integral over the attempts' intervals ``[started_at, stopped_at)``, with no
sampling: the attempts of a queue are swept in time order, and between two consecutive events
(an attempt starting or stopping, a job starting or ending a wait, a period's edge) every
share's usage ``U`` per instance type is constant. For each such stretch, per instance type,
``own = min(U, L)``, ``borrowed = max(0, U - L)``, ``idle = L - own`` for a share that lends
(``reserved_unused`` for a RESERVE share) and ``lent`` by the rule ``status`` uses at an
instant (``quotactl.core.status.compute.attribute``: borrowed capacity pooled, attributed to
lenders in proportion to their idle capacity). Stretches with the same usage are added up
before the rule runs, so the rule runs once per distinct state, not once per stretch.

Limits and strategies come from the configuration (``ShareSpec``); a share of the ledger
that the configuration lacks has no limit (all its use is borrowed) and lends nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from quotactl.core.history.jobs import OPEN, JobRecord, job_records
from quotactl.core.history.misses import ShareHeads
from quotactl.core.history.periods import Slices, period_bounds
from quotactl.core.history.report import By, PeriodUsage, UsageReport, UsageRow, Waits
from quotactl.core.simulate.metrics import percentile
from quotactl.core.status.compute import attribute

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
    from datetime import datetime

    from quotactl.core.history.ledger import Attempt
    from quotactl.core.history.report import Every
    from quotactl.core.resources.desired import ShareSpec

HOUR = 3600.0
DEFAULT_GRACE = 300.0
"""``--grace``: a head job may wait five minutes for its own capacity before it is a miss."""
_RUN, _WAIT_END, _WAIT, _EDGE = 0, 1, 2, 3


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

    def add(self, other: Tally) -> None:
        for name in ("entitled", "used", "own", "borrowed", "lent", "idle", "reserved_unused"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.waits += other.waits
        self.jobs += other.jobs
        self.preemptions += other.preemptions
        self.work_lost += other.work_lost
        self.missed += other.missed
        self.longest = max(self.longest, other.longest)


Key = tuple[int, str | None, str | None, str]
"""(slice, queue, share, instance type); for a team row, (slice, None, team, type)."""


def usage_of(
    attempts: Iterable[Attempt],
    shares: Sequence[ShareSpec],
    *,
    start: datetime,
    end: datetime,
    by: By = By.SHARE,
    every: Every | None = None,
    queues: Collection[str] | None = None,
    teams: Collection[str] | None = None,
    prices: Mapping[str, float] | None = None,
    grace: float = DEFAULT_GRACE,
) -> UsageReport:
    """The usage report of the window ``[start, end)`` from ledger rows and the shares'
    configuration; ``queues`` and ``teams`` keep only their rows (lending is still worked
    out against every share of a queue)."""
    slices = Slices(period_bounds(start, end, every), periods=every is not None)
    by_queue: dict[str, list[JobRecord]] = {}
    for job in job_records(attempts):
        by_queue.setdefault(job.queue, []).append(job)
    specs: dict[str, dict[str, ShareSpec]] = {}
    for spec in shares:
        specs.setdefault(spec.queue, {})[spec.name] = spec
    tallies: dict[Key, Tally] = {}
    for queue in sorted(set(by_queue) | set(specs)):
        if queues is None or queue in queues:
            _sweep(queue, specs.get(queue, {}), by_queue.get(queue, []), slices, grace, tallies)
    if teams is not None:
        tallies = {k: v for k, v in tallies.items() if v.team in teams}
    if by is By.TEAM:
        tallies = _by_team(tallies)
    rows = _rows(tallies, prices)
    bounds = slices.edges
    from quotactl.core.history.ledger import from_epoch

    periods = tuple(
        PeriodUsage(from_epoch(bounds[i - 1]), from_epoch(bounds[i]), rows.get(i, ()))
        for i in range(1, slices.count)
    )
    used_types = {r.instance_type for r in rows.get(0, ()) if r.used}
    return UsageReport(
        start=start,
        end=end,
        by=by,
        rows=rows.get(0, ()),
        periods=periods,
        every=every,
        priced=prices is not None,
        grace=grace,
        unpriced=tuple(sorted(used_types - set(prices))) if prices is not None else (),
    )


def _sweep(
    queue: str,
    specs: Mapping[str, ShareSpec],
    jobs: Sequence[JobRecord],
    slices: Slices,
    grace: float,
    tallies: dict[Key, Tally],
) -> None:
    """Every figure of one queue's shares, added into ``tallies``."""
    jobs = [j for j in jobs if j.share is not None and j.instance_type is not None and j.count]
    names = sorted(set(specs) | {j.share for j in jobs if j.share is not None})
    index = {name: i for i, name in enumerate(names)}
    team_of = {name: spec.team for name, spec in specs.items()}
    for job in jobs:
        assert job.share is not None
        if job.share not in specs:
            team_of[job.share] = job.team
    types = sorted(
        {t for s in specs.values() for t in s.capacity}
        | {j.instance_type for j in jobs if j.instance_type is not None}
    )
    limit = {
        t: [int(specs[n].capacity.get(t, 0)) if n in specs else 0 for n in names] for t in types
    }
    lends = [specs[n].strategy.lends if n in specs else False for n in names]
    usage = {t: [0] * len(names) for t in types}
    events: list[tuple[float, int, int, int]] = [(edge, _EDGE, -1, 0) for edge in slices.edges]
    for j, job in enumerate(jobs):
        assert job.share is not None
        s = index[job.share]
        for a, b in job.runs:
            events.append((a, _RUN, s, j))
            if b != OPEN:
                events.append((b, _RUN, s, ~j))
        for a, b in job.waits:
            events.append((a, _WAIT, s, j))
            if b != OPEN:
                events.append((b, _WAIT_END, s, j))
    events.sort()
    heads = [ShareHeads() for _ in names]
    waiting: set[int] = set()
    states: dict[tuple[int, str, tuple[int, ...]], float] = {}

    def fits_for(s: int) -> Callable[[str, int], bool]:
        return lambda t, n: usage[t][s] + n <= limit[t][s]

    fits = [fits_for(s) for s in range(len(names))]
    previous: float | None = None
    for at, kind, s, j in events:
        if previous is not None and at > previous:
            for i, seconds in slices.cut(previous, at):
                for t in types:
                    key = (i, t, tuple(usage[t]))
                    states[key] = states.get(key, 0.0) + seconds
            for w in list(waiting):
                heads[w].advance(previous, at, fits[w], grace, slices.cut)
                if heads[w].spell_since is None and heads[w].head() is None:
                    waiting.discard(w)
        previous = at
        if at >= slices.end:
            break
        if kind == _RUN:
            job = jobs[j if j >= 0 else ~j]
            assert job.instance_type is not None
            usage[job.instance_type][s] += job.count if j >= 0 else -job.count
        elif kind == _WAIT:
            job = jobs[j]
            assert job.instance_type is not None
            heads[s].enter(job.job_id, job.priority, job.submitted, job.instance_type, job.count)
            waiting.add(s)
        elif kind == _WAIT_END:
            heads[s].leave(jobs[j].job_id)
    for share_heads in heads:
        share_heads.close()

    def tally(i: int, s: int, t: str) -> Tally:
        key = (i, queue, names[s], t)
        found = tallies.get(key)
        if found is None:
            found = tallies[key] = Tally(team=team_of.get(names[s]))
        return found

    for (i, t, state), seconds in states.items():
        figures: dict[str, tuple[int, int]] = {}
        for s, u in enumerate(state):
            lim = limit[t][s]
            if not lim and not u:
                continue
            own = min(u, lim)
            row = tally(i, s, t)
            row.used += u * seconds
            row.own += own * seconds
            row.borrowed += (u - own) * seconds
            if lends[s]:
                row.idle += (lim - own) * seconds
            else:
                row.reserved_unused += (lim - own) * seconds
            row.entitled += lim * seconds
            figures[names[s]] = (u - own, lim - own if lends[s] else 0)
        lent, _ = attribute(t, figures)
        for name, amount in lent.items():
            tally(i, index[name], t).lent += float(amount) * seconds
    for s, share_heads in enumerate(heads):
        for (i, t), seconds in share_heads.missed.items():
            tally(i, s, t).missed += seconds
        for (i, t), seconds in share_heads.longest.items():
            row = tally(i, s, t)
            row.longest = max(row.longest, seconds)
    for job in jobs:
        assert job.share is not None
        assert job.instance_type is not None
        s, t = index[job.share], job.instance_type
        for i in slices.at(job.submitted):
            row = tally(i, s, t)
            row.jobs += 1
            if job.first_start is not None:
                row.waits.append(job.first_start - job.submitted)
        for a, b in job.preempted:
            for i in slices.at(b):
                row = tally(i, s, t)
                row.preemptions += 1
                row.work_lost += job.count * (b - a)


def _by_team(tallies: Mapping[Key, Tally]) -> dict[Key, Tally]:
    teams: dict[Key, Tally] = {}
    for (i, _, _, t), found in tallies.items():
        key = (i, None, found.team, t)
        team = teams.get(key)
        if team is None:
            team = teams[key] = Tally(team=found.team)
        team.add(found)
    return teams


def _rows(
    tallies: Mapping[Key, Tally], prices: Mapping[str, float] | None
) -> dict[int, tuple[UsageRow, ...]]:
    rows: dict[int, list[UsageRow]] = {}
    for key in sorted(tallies, key=lambda k: (k[0], k[1] or "", k[2] or "", k[3])):
        i, queue, share, t = key
        found = tallies[key]
        price = prices.get(t) if prices is not None else None
        used, borrowed, lent = found.used / HOUR, found.borrowed / HOUR, found.lent / HOUR
        ordered = sorted(found.waits)
        rows.setdefault(i, []).append(
            UsageRow(
                queue=queue,
                share=share if queue is not None else None,
                team=found.team,
                instance_type=t,
                entitled=found.entitled / HOUR,
                used=used,
                own=found.own / HOUR,
                borrowed=borrowed,
                lent=lent,
                idle=found.idle / HOUR,
                reserved_unused=found.reserved_unused / HOUR,
                wait=Waits(percentile(ordered, 0.5), percentile(ordered, 0.95), ordered[-1])
                if ordered
                else Waits(),
                jobs=found.jobs,
                preemptions=found.preemptions,
                work_lost=found.work_lost / HOUR,
                guarantee_miss_hours=found.missed / HOUR,
                longest_miss_seconds=found.longest,
                cost=used * price if price is not None else None,
                cost_borrowed=borrowed * price if price is not None else None,
                credit_lent=lent * price if price is not None else None,
            )
        )
    return {i: tuple(r) for i, r in rows.items()}
