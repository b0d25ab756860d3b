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

Limits and strategies come from the configuration (``ShareSpec``, with its schedule windows);
a share of the ledger that the configuration lacks has no limit (all its use is borrowed) and
lends nothing. Settings records (``quotactl.core.history.settings``: what ``apply``,
``govern`` and ``history`` wrote) replace them from each share's first record on.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from quotactl.core.collector import collector_paused
from quotactl.core.history.jobs import job_records
from quotactl.core.history.periods import Slices, period_bounds
from quotactl.core.history.report import (
    By,
    PeriodUsage,
    SettingsGap,
    UsageReport,
    UsageRow,
    Waits,
)
from quotactl.core.history.sweep import Tally, sweep
from quotactl.core.resources.desired import ShareSpec
from quotactl.core.simulate.metrics import percentile

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping, Sequence
    from datetime import datetime

    from quotactl.core.history.jobs import JobRecord
    from quotactl.core.history.ledger import Attempt
    from quotactl.core.history.report import Every
    from quotactl.core.history.settings import SettingsRecord

HOUR = 3600.0
DEFAULT_GRACE = 300.0
"""``--grace``: a head job may wait five minutes for its own capacity before it is a miss."""


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
    settings: Sequence[SettingsRecord] | None = None,
) -> UsageReport:
    """The usage report of the window ``[start, end)`` from ledger rows and the shares'
    configuration; ``queues`` and ``teams`` keep only their rows (lending is still worked
    out against every share of a queue). ``settings``: records of the settings shares held
    (None: none were looked for); a share takes them from its first record on, and the
    stretches before are listed in the report as the configuration's."""
    with collector_paused():  # the jobs and events made of the rows: many objects, no cycles
        report = _usage_of(
            attempts, shares, start, end, by, every, queues, teams, prices, grace, settings or ()
        )
    if settings is None:
        return report
    gaps = settings_gaps(shares, settings, start, end, queues, teams)
    return replace(report, settings_from_config=gaps)


def settings_gaps(
    shares: Sequence[ShareSpec],
    settings: Sequence[SettingsRecord],
    start: datetime,
    end: datetime,
    queues: Collection[str] | None = None,
    teams: Collection[str] | None = None,
) -> tuple[SettingsGap, ...]:
    """Per share of the configuration or the records, the stretch of ``[start, end)`` before
    its first record (the whole window without one)."""
    from quotactl.core.history.ledger import from_epoch

    first: dict[tuple[str, str], float] = {}
    for record in settings:
        key = (record.queue, record.share)
        first[key] = min(first.get(key, record.at), record.at)
    team_of = {(s.queue, s.name): s.team for s in shares}
    gaps = []
    for queue, share in sorted(set(team_of) | set(first)):
        if queues is not None and queue not in queues:
            continue
        if teams is not None and team_of.get((queue, share)) not in teams:
            continue
        until = min(first.get((queue, share), end.timestamp()), end.timestamp())
        if until > start.timestamp():
            gaps.append(SettingsGap(queue, share, start, from_epoch(until)))
    return tuple(gaps)


def _usage_of(
    attempts: Iterable[Attempt],
    shares: Sequence[ShareSpec],
    start: datetime,
    end: datetime,
    by: By,
    every: Every | None,
    queues: Collection[str] | None,
    teams: Collection[str] | None,
    prices: Mapping[str, float] | None,
    grace: float,
    settings: Sequence[SettingsRecord],
) -> UsageReport:
    recorded: dict[str, dict[str, list[SettingsRecord]]] = {}
    for record in sorted(settings, key=lambda r: r.at):  # stable: ties in file order
        recorded.setdefault(record.queue, {}).setdefault(record.share, []).append(record)
    slices = Slices(period_bounds(start, end, every), periods=every is not None)
    by_queue: dict[str, list[JobRecord]] = {}
    for job in job_records(attempts):
        by_queue.setdefault(job.queue, []).append(job)
    specs: dict[str, dict[str, ShareSpec]] = {}
    for spec in shares:
        specs.setdefault(spec.queue, {})[spec.name] = spec
    tallies: dict[Key, Tally] = {}
    for queue in sorted(set(by_queue) | set(specs) | set(recorded)):
        if queues is None or queue in queues:
            found = recorded.get(queue, {})
            _queue(
                queue, specs.get(queue, {}), by_queue.get(queue, []), slices, grace, tallies, found
            )
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


def _queue(
    queue: str,
    specs: Mapping[str, ShareSpec],
    jobs: Sequence[JobRecord],
    slices: Slices,
    grace: float,
    tallies: dict[Key, Tally],
    recorded: Mapping[str, Sequence[SettingsRecord]],
) -> None:
    """Every figure of one queue's shares, added into ``tallies``."""
    jobs = [j for j in jobs if j.share is not None and j.instance_type is not None and j.instances]
    team_of = {name: spec.team for name, spec in specs.items()}
    for job in jobs:  # a share the configuration lacks: the team its latest job names
        if job.share not in specs:
            team_of[job.share or ""] = job.team

    def tally(i: int, share: str, itype: str) -> Tally:
        key = (i, queue, share, itype)
        found = tallies.get(key)
        if found is None:
            found = tallies[key] = Tally(team=team_of.get(share))
        return found

    # a share only the records know: no limit until its first record
    swept = {**{n: ShareSpec(queue, n, {}) for n in recorded}, **specs}
    sweep(swept, jobs, slices, grace, tally, recorded)
    start, end, periods = slices.start, slices.end, slices.periods
    rows: dict[tuple[int, str, str], Tally] = {}  # tally's rows, by (slice, share, type)
    for _, _, share, _, itype, n, _, submitted, first_start, _, _, preempted in jobs:
        assert share is not None
        assert itype is not None
        if not start <= submitted < end:
            if not preempted:
                continue  # most jobs of a long ledger
        else:
            for i in slices.at(submitted) if periods else (0,):
                row = rows.get((i, share, itype))
                if row is None:
                    row = rows[i, share, itype] = tally(i, share, itype)
                row.jobs += 1
                if first_start is not None:
                    row.waits.append(first_start - submitted)
        for a, b in preempted:
            for i in slices.at(b):
                row = tally(i, share, itype)
                row.preemptions += 1
                row.work_lost += n * (b - a)


def _add(total: Tally, other: Tally) -> None:
    for name in ("entitled", "used", "own", "borrowed", "lent", "idle", "reserved_unused"):
        setattr(total, name, getattr(total, name) + getattr(other, name))
    total.waits += other.waits
    total.jobs += other.jobs
    total.preemptions += other.preemptions
    total.work_lost += other.work_lost
    total.missed += other.missed
    total.longest = max(total.longest, other.longest)


def _by_team(tallies: Mapping[Key, Tally]) -> dict[Key, Tally]:
    teams: dict[Key, Tally] = {}
    for (i, _, _, t), found in tallies.items():
        key = (i, None, found.team, t)
        team = teams.get(key)
        if team is None:
            team = teams[key] = Tally(team=found.team)
        _add(team, found)
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
