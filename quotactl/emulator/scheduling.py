"""The seam between the job state machine (``jobs.py``) and a scheduling policy.

On every tick the state machine hands a ``Scheduler`` one immutable ``QueueView`` per job
queue and applies the ``Decision`` values it returns; the scheduler never touches state. A
scheduler is a pure function of its input, so the same one can run in the emulator and in
the offline simulator. ``BuiltinScheduler`` is the emulator's default until the engine of
SPEC §6 (``quotactl.core.engine``) is plugged in through ``Emulator(scheduler=...)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

RESERVE, LEND, LEND_AND_BORROW = "RESERVE", "LEND", "LEND_AND_BORROW"

# AWS's statusReason texts for jobs stuck RUNNABLE (reference §2.6, [UG-misconf]).
ENVIRONMENT_MAX = (
    "MISCONFIGURATION:SERVICE_ENVIRONMENT_MAX_RESOURCE - Service environment(s) associated "
    "with the job queue cannot meet the capacity requirement of the job."
)
SHARE_LIMIT = (
    "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED - Job requirements exceed quota share "
    "capacity limits."
)
SHARE_AND_BORROW_LIMIT = (
    "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED - Job requirements exceed quota share "
    "capacity limits and borrow limits."
)
BORROWABLE_LIMIT = (
    "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED - Job requires borrowing that exceeds "
    "all configured borrowable capacity."
)
CROSS_SHARE_PREEMPTION = "Cross-share preemption triggered to reclaim borrowed capacity"


@dataclass(frozen=True)
class ShareView:
    """One quota share as the scheduler sees it."""

    name: str
    limits: Mapping[str, int]  # instance type -> maxCapacity
    strategy: str  # RESERVE | LEND | LEND_AND_BORROW
    borrow_limit: int  # percent of own limits; -1 = unlimited (only meaningful for borrowing)
    in_share_preemption: bool
    enabled: bool  # a DISABLED share accepts no new jobs but its queued jobs still run


@dataclass(frozen=True)
class JobView:
    """One unfinished, submitted job: RUNNABLE (waiting) or SCHEDULED/STARTING/RUNNING."""

    job_id: str
    share: str | None  # the quota share (None on a queue without quota management)
    status: str
    priority: int  # schedulingPriority; higher runs first
    capacity: Mapping[str, int]  # instance type -> instances the job needs
    order: int  # submission order, unique and increasing (the FIFO tie-break)
    submitted_at: float  # emulated epoch seconds
    started_at: float | None  # when the current attempt was dispatched (active jobs)
    duration: float  # emulated seconds it will run once RUNNING
    status_reason: str | None = None

    @property
    def active(self) -> bool:
        return self.status != "RUNNABLE"


@dataclass(frozen=True)
class QueueView:
    """A job queue, its environment's capacity, its shares and its unfinished jobs."""

    name: str
    quota_managed: bool  # False: one FIFO pool over the environment, no shares
    capacity: Mapping[str, int]  # the service environment's limits (unit -> max instances)
    environment_enabled: bool  # False: nothing new is dispatched
    shares: tuple[ShareView, ...] = ()
    jobs: tuple[JobView, ...] = field(default=())


@dataclass(frozen=True)
class Dispatch:
    """RUNNABLE -> SCHEDULED: the job starts using capacity."""

    job_id: str


@dataclass(frozen=True)
class Preempt:
    """SCHEDULED/STARTING/RUNNING -> RUNNABLE (or FAILED when its preemption retries are spent)."""

    job_id: str
    reason: str = CROSS_SHARE_PREEMPTION


@dataclass(frozen=True)
class Hold:
    """The job stays RUNNABLE for this AWS reason (MISCONFIGURATION:... or CAPACITY:...)."""

    job_id: str
    reason: str


Decision = Dispatch | Preempt | Hold


class Scheduler(Protocol):
    """Decides, for one queue at emulated time ``now``, which jobs start, stop or wait.

    Contract: decisions are applied in order; a job is named at most once per kind; Dispatch
    only RUNNABLE jobs and Preempt only active ones. RUNNABLE jobs that get no Hold lose a
    previous MISCONFIGURATION/CAPACITY statusReason. Finishing is time, not scheduling: the
    state machine ends RUNNING jobs when their duration is over, then calls the scheduler.
    """

    def schedule(self, queue: QueueView, now: float) -> Sequence[Decision]: ...


def usage(jobs: Sequence[JobView]) -> dict[str, int]:
    """Instances per unit held by the active jobs in ``jobs``."""
    held: dict[str, int] = {}
    for job in jobs:
        if job.active:
            for unit, count in job.capacity.items():
                held[unit] = held.get(unit, 0) + count
    return held


def runnable_in_order(jobs: Sequence[JobView]) -> list[JobView]:
    """RUNNABLE jobs in dispatch order: priority high first, then submission (SPEC §6)."""
    return sorted((j for j in jobs if not j.active), key=lambda j: (-j.priority, j.order))


def misconfiguration(job: JobView, share: ShareView | None, queue: QueueView) -> str | None:
    """AWS's reason why ``job`` can never start where it is, or None if it could."""
    capacity = queue.capacity
    if not queue.quota_managed:
        units = (
            {"NUM_INSTANCES": sum(job.capacity.values())}
            if "NUM_INSTANCES" in capacity
            else job.capacity
        )
        if any(capacity.get(u, 0) < n for u, n in units.items()):
            return ENVIRONMENT_MAX
        return None
    if any(capacity.get(u, 0) < n for u, n in job.capacity.items()):
        return ENVIRONMENT_MAX
    if share is None:
        return SHARE_LIMIT
    if share.strategy != LEND_AND_BORROW:
        if any(share.limits.get(u, 0) < n for u, n in job.capacity.items()):
            return SHARE_LIMIT
        return None
    for unit, count in job.capacity.items():
        own = share.limits.get(unit, 0)
        if count <= own:
            continue
        if share.borrow_limit >= 0 and count > own + own * share.borrow_limit // 100:
            return SHARE_AND_BORROW_LIMIT
        lendable = sum(
            s.limits.get(unit, 0)
            for s in queue.shares
            if s.name != share.name and s.strategy != RESERVE
        )
        if count > own + lendable:
            return BORROWABLE_LIMIT
    return None


class BuiltinScheduler:
    """Each share runs its own jobs within its own limits: no borrowing, no preemption.

    Per share, RUNNABLE jobs go strictly in order (priority, then submission): a head job
    that cannot start holds back the share's later jobs. Across shares, heads that fit start
    in submission order while the environment has room. A queue without quota management is
    one FIFO pool over its environment (``NUM_INSTANCES`` counts every instance).
    """

    def schedule(self, queue: QueueView, now: float) -> Sequence[Decision]:
        decisions: list[Decision] = []
        shares = {s.name: s for s in queue.shares}
        for job in queue.jobs:
            if not job.active:
                share = shares.get(job.share) if job.share is not None else None
                reason = misconfiguration(job, share, queue)
                if reason is not None:
                    decisions.append(Hold(job.job_id, reason))
        held = {d.job_id for d in decisions}
        if not queue.environment_enabled:
            return decisions
        pool = _Pool(queue)
        groups: dict[str | None, list[JobView]] = {}
        for job in runnable_in_order(queue.jobs):
            groups.setdefault(job.share if queue.quota_managed else None, []).append(job)
        while True:
            heads = [jobs[0] for jobs in groups.values() if jobs and jobs[0].job_id not in held]
            fitting = [j for j in sorted(heads, key=lambda j: j.order) if pool.fits(j, shares)]
            if not fitting:
                return decisions
            job = fitting[0]
            pool.take(job)
            decisions.append(Dispatch(job.job_id))
            groups[job.share if queue.quota_managed else None].pop(0)


class _Pool:
    """Capacity left in the environment and in each share while one pass dispatches."""

    def __init__(self, queue: QueueView) -> None:
        self.quota_managed = queue.quota_managed
        self.count_all = "NUM_INSTANCES" in queue.capacity
        self.free = dict(queue.capacity)
        self.share_used: dict[str | None, dict[str, int]] = {}
        for job in queue.jobs:
            if job.active:
                self._hold(job, self.share_used.setdefault(job.share, {}))

    def _units(self, job: JobView) -> dict[str, int]:
        if self.count_all and not self.quota_managed:
            return {"NUM_INSTANCES": sum(job.capacity.values())}
        return dict(job.capacity)

    def _hold(self, job: JobView, used: dict[str, int]) -> None:
        for unit, count in self._units(job).items():
            self.free[unit] = self.free.get(unit, 0) - count
            used[unit] = used.get(unit, 0) + count

    def fits(self, job: JobView, shares: Mapping[str, ShareView]) -> bool:
        units = self._units(job)
        if any(self.free.get(u, 0) < n for u, n in units.items()):
            return False
        if not self.quota_managed:
            return True
        share = shares.get(job.share or "")
        if share is None:
            return False
        used = self.share_used.get(job.share, {})
        return all(used.get(u, 0) + n <= share.limits.get(u, 0) for u, n in units.items())

    def take(self, job: JobView) -> None:
        self._hold(job, self.share_used.setdefault(job.share, {}))
