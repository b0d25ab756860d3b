"""The seam between the job state machine (``jobs.py``) and a scheduling policy.

On every tick the state machine hands a ``Scheduler`` one immutable ``QueueView`` per job
queue and applies the ``Decision`` values it returns; the scheduler never touches state. The
emulator's scheduler is SPEC §6's engine behind this seam (``engine_scheduler.py``); tests
may pass another through ``Emulator(scheduler=...)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence


@dataclass(frozen=True)
class ShareView:
    """One quota share as the scheduler sees it."""

    name: str
    limits: Mapping[str, int]  # instance type -> maxCapacity
    strategy: str  # RESERVE | LEND | LEND_AND_BORROW (AWS's resourceSharingConfiguration)
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
    preemption_retries: int | None = None  # preemptionRetriesBeforeTermination; None: no limit
    preemptions: int = 0  # attempts preempted so far

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
    reason: str  # the preempted attempt's statusReason


@dataclass(frozen=True)
class Hold:
    """The job stays RUNNABLE for this AWS reason (MISCONFIGURATION:... or CAPACITY:...)."""

    job_id: str
    reason: str


Decision = Dispatch | Preempt | Hold


class Scheduler(Protocol):
    """Decides, for one queue at emulated time ``now``, which jobs start, stop or wait.

    Contract: decisions are applied in order, each only if the job is then in the status it
    expects (Dispatch: RUNNABLE, Preempt: SCHEDULED/STARTING/RUNNING, Hold: RUNNABLE).
    RUNNABLE jobs that get no Hold lose a previous MISCONFIGURATION/CAPACITY statusReason.
    Finishing is time, not scheduling: the state machine ends RUNNING jobs when their
    duration is over, then calls the scheduler.
    """

    def schedule(self, queue: QueueView, now: float) -> Sequence[Decision]: ...
