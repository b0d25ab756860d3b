"""``status``: who uses, borrows and lends what, computed from live queues.

Per queue, share and instance type, in the scheduling model's notation: the limit ``L``, the
instances in use ``U`` (SCHEDULED, STARTING and RUNNING jobs), own ``O = min(U, L)``, borrowed
``B = max(0, U - L)``, idle ``L - O`` for shares that lend (0 for RESERVE), lent, and the
headroom the engine's admission rule gives. AWS reports none of these; everything here is
worked out from ``LiveQueue`` values (``quotactl.core.jobs.live``), so it is the same on AWS.

Borrowed capacity is pooled: AWS does not say whose idle instance a borrower holds. It is
attributed to the lending shares in proportion to their idle capacity (the rule ``simulate``
meters with), and the "who borrows from whom" pairs split each borrower's ``B`` the same way.
Lent amounts are exact fractions. Where usage is above the limits because limits were lowered
(or a lender turned RESERVE while its capacity was borrowed) and the idle lendable capacity
does not cover it, the excess is borrowed from nobody: a pair with no lender
(``unattributed``), so that in every queue and instance type Σ lent + unattributed = Σ
borrowed, and the pairs of a borrower add up to its ``borrowed``.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from fractions import Fraction
from typing import TYPE_CHECKING

from quotactl.core.engine import TIMING, QueueEngine
from quotactl.core.govern.readback import governance_of
from quotactl.core.resources.desired import UNLIMITED, Strategy
from quotactl.core.states import UNFINISHED
from quotactl.core.status.headroom import headroom
from quotactl.core.status.report import (
    Borrowing,
    CapacityRow,
    Head,
    QueueStatus,
    ShareStatus,
    StatusReport,
    TeamRow,
    TeamStatus,
)
from quotactl.core.status.wait import head_wait_code, heads_only
from quotactl.errors import NotFoundError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from quotactl.core.engine import ShareModel
    from quotactl.core.jobs.live import LiveQueue
    from quotactl.core.resources.observed import LiveJob

PREEMPTION_WINDOW = 86_400.0
"""``preempted_24h`` counts preempted attempts that stopped in the last day."""


def status_of(
    queues: Iterable[LiveQueue],
    *,
    team: str | Sequence[str] | None = None,
    at: float = 0.0,
    wait_code: Callable[[LiveQueue, LiveJob], str | None] = head_wait_code,
) -> StatusReport:
    """The status report of ``queues``; with ``team``, only that team's shares (and the
    queues that have one). ``at`` is the report's time when no queue says (no queue read)."""
    live = sorted(queues, key=lambda q: q.name)
    found = [queue_status(q, wait_code=wait_code) for q in live]
    times = [q.read_at for q in live if q.read_at]
    if team is not None:
        wanted = [team] if isinstance(team, str) else list(dict.fromkeys(team))
        found = [q for q in (_only_team(q, wanted) for q in found) if q.shares]
        teams = sorted({s.team for q in live for s in q.shares if s.team})
        missing = [t for t in wanted if t not in teams]
        if missing:
            raise NotFoundError(
                f"no quota share of team {missing[0]!r} on "
                + ("these job queues" if live else "any quota-managed job queue"),
                hint=f"teams with shares: {', '.join(teams)}" if teams else None,
            )
    when = max(times, default=at)
    governance = governance_of(live, datetime.fromtimestamp(when, UTC))
    if team is not None:
        shown = {f"share.{q.name}/{s.name}" for q in found for s in q.shares}
        governance = replace(
            governance,
            budgets=tuple(b for b in governance.budgets if b.team in wanted),
            governed=tuple(g for g in governance.governed if g.address in shown),
        )
    return StatusReport(when, tuple(found), team_rollup(found), governance)


def queue_status(
    queue: LiveQueue,
    *,
    wait_code: Callable[[LiveQueue, LiveJob], str | None] = head_wait_code,
) -> QueueStatus:
    """Every figure of one queue."""
    shares = sorted(queue.shares, key=lambda s: s.name)
    usage = _usage(queue)
    types = sorted({t for s in shares for t in s.limits} | {t for (_, t), n in usage.items() if n})
    # Headroom and the heads' waits depend only on the jobs holding capacity and the heads:
    # the engine is given those, not every queued job.
    small = heads_only(queue)
    engine = QueueEngine(queue.model, timing=TIMING)
    engine.now = queue.read_at
    engine.load(small.engine_jobs())
    can_start = queue.enabled and queue.environment_enabled
    rows: dict[tuple[str, str], CapacityRow] = {}
    pairs: list[Borrowing] = []
    for t in types:
        per_share = {}
        for share in shares:
            limit = int(share.limits.get(t, 0))
            in_use = usage.get((share.name, t), 0)
            if t not in share.limits and not in_use:
                continue
            own = min(in_use, limit)
            idle = limit - own if share.strategy.lends else 0
            per_share[share.name] = (limit, in_use, own, in_use - own, idle)
        lent, type_pairs = attribute(t, {n: (v[3], v[4]) for n, v in per_share.items()})
        pairs += type_pairs
        for name, (limit, in_use, own, borrowed, idle) in per_share.items():
            share = queue.model.share(name)
            room = headroom(small, engine, name, t) if can_start and share.enabled else 0
            rows[name, t] = CapacityRow(
                t, limit, in_use, own, borrowed, idle, lent.get(name, Fraction(0)), room
            )
    since = queue.read_at - PREEMPTION_WINDOW
    by_share: dict[str | None, list[LiveJob]] = {}
    for job in queue.jobs:
        by_share.setdefault(job.share, []).append(job)
    statuses = [
        ShareStatus(
            name=share.name,
            team=share.team,
            sharing=share.strategy,
            borrow_limit=_borrow_limit(share),
            in_share_preemption=share.in_share_preemption,
            enabled=share.enabled,
            capacity=tuple(rows[share.name, t] for t in types if (share.name, t) in rows),
            jobs=_job_counts(by_share.get(share.name, [])),
            preempted_24h=sum(
                j.preempted_since(since)
                for j in by_share.get(share.name, [])
                if j.recent_preemptions
            ),
            head=_head(queue, small, share.name, wait_code),
        )
        for share in shares
    ]
    return QueueStatus(
        name=queue.name,
        enabled=queue.enabled,
        environment=queue.environment,
        capacity=dict(sorted(queue.model.capacity.items())),
        shares=tuple(statuses),
        totals=totals(statuses),
        borrowing=tuple(pairs),
    )


def totals(shares: Sequence[ShareStatus]) -> tuple[CapacityRow, ...]:
    """Per instance type, the sums over ``shares`` (headroom is not additive: None)."""
    by_type: dict[str, list[CapacityRow]] = {}
    for share in shares:
        for row in share.capacity:
            by_type.setdefault(row.instance_type, []).append(row)
    return tuple(
        CapacityRow(
            t,
            sum(r.limit for r in rows),
            sum(r.in_use for r in rows),
            sum(r.own for r in rows),
            sum(r.borrowed for r in rows),
            sum(r.idle for r in rows),
            sum((r.lent for r in rows), Fraction(0)),
            None,
        )
        for t, rows in sorted(by_type.items())
    )


def team_rollup(queues: Sequence[QueueStatus]) -> tuple[TeamStatus, ...]:
    """Each team's limits, usage, borrowed and lent per instance type, across queues."""
    sums: dict[str, dict[str, list[Fraction]]] = {}
    for queue in queues:
        for share in queue.shares:
            if share.team is None:
                continue
            team = sums.setdefault(share.team, {})
            for row in share.capacity:
                acc = team.setdefault(row.instance_type, [Fraction(0)] * 4)
                acc[0] += row.limit
                acc[1] += row.in_use
                acc[2] += row.borrowed
                acc[3] += row.lent
    return tuple(
        TeamStatus(
            name,
            tuple(
                TeamRow(t, int(v[0]), int(v[1]), int(v[2]), v[3]) for t, v in sorted(types.items())
            ),
        )
        for name, types in sorted(sums.items())
    )


def _usage(queue: LiveQueue) -> dict[tuple[str, str], int]:
    """U per (share, instance type): instances of the share's SCHEDULED/STARTING/RUNNING jobs."""
    usage: dict[tuple[str, str], int] = {}
    for job in queue.jobs:
        if job.share is None or not job.holds_instances:
            continue
        for t, n in job.instances.items():
            usage[job.share, t] = usage.get((job.share, t), 0) + n
    return usage


def lending_rate(pool: int, idle_total: int) -> Fraction:
    """The part of each idle lendable instance that is lent at an instant: with ``covered =
    min(pool, idle_total)`` of the pooled borrowed instances attributed to lenders, a lender
    with ``idle`` idle instances lends ``idle * covered / idle_total``. ``usage`` integrates
    this rate over time; ``attribute`` applies it at one instant."""
    if not pool or not idle_total:
        return Fraction(0)
    return Fraction(min(pool, idle_total), idle_total)


def attribute(
    instance_type: str, figures: dict[str, tuple[int, int]]
) -> tuple[dict[str, Fraction], list[Borrowing]]:
    """Split the pooled borrowed capacity of one type over the lenders, by idle capacity.

    ``figures`` maps a share to its (borrowed, idle). Returns lent per lender and the pairs.
    A borrower's part that the lenders' idle capacity does not cover is a pair with no lender
    (unattributed).
    """
    pool = sum(b for b, _ in figures.values())
    idle = sum(i for _, i in figures.values())
    rate = lending_rate(pool, idle)
    lent = {n: rate * i for n, (_, i) in figures.items() if i and rate}
    uncovered = Fraction(max(0, pool - idle), pool) if pool else Fraction(0)
    pairs: list[Borrowing] = []
    for borrower, (b, _) in sorted(figures.items()):
        if not b:
            continue
        if rate:
            pairs += [
                Borrowing(instance_type, borrower, lender, Fraction(b, pool) * rate * i)
                for lender, (_, i) in sorted(figures.items())
                if i
            ]
        if uncovered:
            pairs.append(Borrowing(instance_type, borrower, None, b * uncovered))
    return lent, pairs


def _borrow_limit(share: ShareModel) -> int | None:
    if share.strategy is not Strategy.LEND_AND_BORROW:
        return None
    return UNLIMITED if share.borrow_limit < 0 else share.borrow_limit


def _job_counts(jobs: Sequence[LiveJob]) -> dict[str, int]:
    counts = {str(s): 0 for s in UNFINISHED}
    for job in jobs:
        if job.status in counts:
            counts[job.status] += 1
    return counts


def _head(
    queue: LiveQueue,
    small: LiveQueue,
    share: str,
    wait_code: Callable[[LiveQueue, LiveJob], str | None],
) -> Head | None:
    job = queue.head(share)
    if job is None:
        return None
    return Head(job.job_id, job.name, wait_code(small, job))


def _only_team(queue: QueueStatus, teams: Sequence[str]) -> QueueStatus:
    shares = tuple(s for s in queue.shares if s.team in teams)
    names = {s.name for s in shares}
    return QueueStatus(
        name=queue.name,
        enabled=queue.enabled,
        environment=queue.environment,
        capacity=queue.capacity,
        shares=shares,
        totals=totals(shares),
        borrowing=tuple(b for b in queue.borrowing if names & {b.borrower, b.lender}),
    )
