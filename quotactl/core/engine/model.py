"""The values the engine reads and returns: the queue it schedules, jobs, transitions, timing.

A ``QueueModel`` is one job queue with its service environment and quota shares, in the terms
of docs/scheduling.md. ``Job`` is the engine's mutable record of one service job;
``Transition`` is one status change the engine decided, for the caller (the emulator) to store.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from operator import attrgetter
from typing import TYPE_CHECKING

from quotactl.core.resources.desired import UNLIMITED, Strategy
from quotactl.core.states import JobStatus
from quotactl.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from quotactl.core.resources.desired import DesiredState


@dataclass(frozen=True)
class ShareModel:
    """One quota share as the engine sees it: limits per instance type and how it shares."""

    name: str
    limits: Mapping[str, int]
    strategy: Strategy = Strategy.RESERVE
    borrow_limit: int = UNLIMITED  # percent of the share's own limit; -1 = unlimited
    in_share_preemption: bool = False
    team: str | None = None
    enabled: bool = True  # a DISABLED share takes no new jobs; its queued jobs still run


@dataclass(frozen=True)
class QueueModel:
    """One quota-managed job queue: its environment's capacity and its quota shares.

    ``environment`` and ``priority``: queues that name the same service environment share its
    capacity, evaluated in descending priority (what ``simulate`` replays as the emulator does);
    None: the queue has its environment to itself.
    """

    name: str
    capacity: Mapping[str, int]
    shares: tuple[ShareModel, ...]
    environment: str | None = None
    priority: int = 1
    time_limits: tuple[tuple[str, float], ...] = ()
    """The queue's runnable timeout (AWS's ``jobStateTimeLimitActions``): per statusReason
    prefix, the seconds a RUNNABLE job may keep that reason before it is terminated (FAILED,
    ``reasons.time_limit``). The engine applies it to MISCONFIGURATION reasons, the only ones it
    decides; the emulator applies the same deadline (``timeouts.deadline``) to the others."""

    @classmethod
    def from_desired(cls, desired: DesiredState, queue: str) -> QueueModel:
        """The model of ``queue`` in a configuration (disabled shares still hold and lend)."""
        spec = next((q for q in desired.queues if q.name == queue), None)
        if spec is None:
            raise KeyError(queue)
        env = next((e for e in desired.environments if e.name == spec.environment), None)
        shares = tuple(
            ShareModel(
                name=s.name,
                limits=dict(s.capacity),
                strategy=s.strategy,
                borrow_limit=s.borrow_limit,
                in_share_preemption=s.in_share_preemption,
                team=s.team,
                enabled=s.enabled,
            )
            for s in desired.shares
            if s.queue == queue
        )
        timeout = spec.runnable_timeout
        return cls(
            name=queue,
            capacity=dict(env.capacity) if env else {},
            shares=shares,
            environment=spec.environment,
            priority=spec.priority,
            time_limits=(
                tuple((reason, float(timeout.seconds)) for reason in timeout.reasons)
                if timeout is not None
                else ()
            ),
        )

    def with_strategy(self, strategy: Strategy) -> QueueModel:
        """The same queue with every share forced to ``strategy`` (the simulator's baseline)."""
        return replace(self, shares=tuple(replace(s, strategy=strategy) for s in self.shares))

    def share(self, name: str) -> ShareModel:
        for share in self.shares:
            if share.name == name:
                return share
        raise KeyError(name)


@dataclass(frozen=True)
class Timing:
    """How long a job spends in each phase that is not its own run.

    ``scheduled_seconds`` and ``starting_seconds``: a started job is SCHEDULED, then STARTING,
    before it is RUNNING. ``preemption_seconds``: a preemption victim keeps its status and its
    instances (statusReason ``PREEMPTION_IN_PROGRESS: ...``) this long before it leaves, and the
    job that preempted it gets the instances only then. ``termination_seconds``: a terminated
    job that holds instances keeps them this long (``isTerminated``, still in its status)
    before it is FAILED. Capacity is held from SCHEDULED on. A job's own duration
    (``Job.run_seconds``) counts from RUNNING. Zero means the phase passes in the same instant
    (the simulator's choice), unless ``steps``: then every phase is a status of its own even
    when it takes no time, and its timer fires at the earliest in a later
    ``fire(now, armed_before=...)`` call (the emulator: each status is seen by at least one
    request).
    """

    scheduled_seconds: float = 0.0
    starting_seconds: float = 0.0
    steps: bool = False
    preemption_seconds: float = 0.0
    termination_seconds: float = 0.0


INSTANT = Timing(0.0, 0.0)
"""Phases that take no time: a started job is RUNNING at once, and a victim or a terminated job
leaves at once (the engine's own default, for reasoning about scheduling decisions alone)."""

TIMING = Timing(
    scheduled_seconds=120.0,
    starting_seconds=30.0,
    steps=True,
    preemption_seconds=20.0,
    termination_seconds=120.0,
)
"""The one timing model (docs/scheduling.md, "Where time comes from"): the emulator's default,
and what ``job why``, the previews and ``simulate`` assume. A started job is SCHEDULED for 120 s
(SageMaker launching its instances) and STARTING for 30 s (downloading its image and data)
before it is RUNNING; a preempted
job stops 20 s after it was chosen (AWS's preemption events show that much between "started"
and "completed"); a terminated job stops within 120 s (SageMaker's StopTrainingJob window)."""

TIMING_VARIABLE = "QUOTACTL_EMULATOR_TIMING"
"""The environment variable that chooses the emulator's phase times, e.g.
``scheduled=120,starting=30,preemption=20,termination=120`` (the default); every process on one
state file should agree."""

_TIMING_KEYS = {
    "scheduled": "scheduled_seconds",
    "starting": "starting_seconds",
    "preemption": "preemption_seconds",
    "termination": "termination_seconds",
}


def parse_timing(spec: str | None) -> Timing:
    """``scheduled=S,starting=S,preemption=S,termination=S`` (seconds, any may be left out:
    the default's) -> ``Timing``; empty: TIMING."""
    if not spec or not spec.strip():
        return TIMING
    values = {field: getattr(TIMING, field) for field in _TIMING_KEYS.values()}
    for item in spec.split(","):
        key, _, value = item.partition("=")
        key = key.strip()
        try:
            seconds = float(value)
        except ValueError:
            seconds = -1.0
        if key not in _TIMING_KEYS or not 0 <= seconds < float("inf"):
            raise UsageError(
                f"{TIMING_VARIABLE}: bad item {item.strip()!r}",
                hint=(
                    "write scheduled=SECONDS,starting=SECONDS,preemption=SECONDS,"
                    "termination=SECONDS (any may be left out), e.g. scheduled=120,starting=30"
                ),
            )
        values[_TIMING_KEYS[key]] = seconds
    return Timing(steps=True, **values)


@dataclass(slots=True, eq=False)
class Job:
    """One service job. The engine owns and updates the record you hand it.

    ``submitted_at`` (``createdAt``) and ``job_id`` order equal-priority jobs of a share, and
    ``started_at`` (the attempt's ``scheduledAt``) orders victims: see ``order.py``.
    ``run_seconds`` is how long the job stays RUNNING (None: until it is terminated).
    ``started_at`` is when the current attempt was SCHEDULED.

    ``groups`` are further instance types the job needs at the same time (SageMaker
    ``InstanceGroups``): such a job starts only when every group fits its share's own limit
    and the free capacity at once, never by borrowing or preempting. ``end_reason``: the
    attempt ends FAILED with this statusReason when its ``run_seconds`` are over (a stopping
    condition or timeout) instead of SUCCEEDED; ``retries`` such failed attempts go back to
    RUNNABLE first, at their old place in the share's order.

    ``window`` (``Timing.preemption_seconds``, ``Timing.termination_seconds``): a preemption
    victim keeps its status for the window with statusReason ``PREEMPTION_IN_PROGRESS: ...``;
    the job that preempted it stays RUNNABLE with the capacity reserved for it and is
    SCHEDULED at the window's end; a terminated job that holds instances keeps them and its
    status for the termination window and is FAILED at its end (``Window``).
    """

    job_id: str
    share: str
    instance_type: str
    count: int
    priority: int = 0
    submitted_at: float = 0.0
    run_seconds: float | None = None
    status: JobStatus = JobStatus.SUBMITTED
    status_since: float = 0.0
    status_reason: str | None = None
    started_at: float | None = None
    first_started_at: float | None = None
    preemption_retries: int | None = None  # preemptionRetriesBeforeTermination; None = no limit
    preemptions: int = 0
    groups: tuple[tuple[str, int], ...] = ()
    end_reason: str | None = None
    retries: int = 0
    window: Window | None = None  # a preemption or termination window, or reserved capacity
    # Engine bookkeeping: share, instance-type and (type, share) indices, arrival number and
    # submission rank,
    # attempt counter (invalidates timers of a preempted attempt), the live runnable-heap entry.
    _s: int = field(default=-1, repr=False)
    _t: int = field(default=-1, repr=False)
    _k: int = field(default=-1, repr=False)
    _seq: int = field(default=-1, repr=False)
    _rank: int = field(default=-1, repr=False)  # submission order from the data (order.py)
    _attempt: int = field(default=0, repr=False)
    _entry: tuple[int, Job] | None = field(default=None, repr=False)
    _parts: tuple[tuple[int, int, int], ...] = field(default=(), repr=False)  # groups' (k, t, n)

    def copy(self) -> Job:
        """A new record with the same public fields and none of an engine's bookkeeping."""
        job = Job(*public_values(self))
        if job.window is not None:
            job.window = job.window.copy()
        return job


PREEMPTING, TERMINATING, RESERVED = "preempting", "terminating", "reserved"
"""The kinds of ``Window`` (and of a ``Transition.window``)."""


@dataclass(slots=True, eq=False)
class Window:
    """A job's window (``Job.window``): all a snapshot needs to rebuild it.

    ``PREEMPTING``: a victim, since ``since``, preempted for the job ``by`` (None: not known,
    as on AWS); ``TERMINATING``: terminated while it held instances; ``RESERVED``: RUNNABLE
    with capacity reserved since ``since`` until its victims' window ends. ``stop_reason``: the
    job was terminated, and the window ends FAILED with it.
    """

    kind: str
    since: float
    by: str | None = None
    stop_reason: str | None = None
    held: int = 0  # PREEMPTING: its instances nobody may take yet (engine bookkeeping)
    borrowed: int = 0  # RESERVED: what its capacity borrows (engine bookkeeping)

    def copy(self) -> Window:
        return Window(self.kind, self.since, self.by, self.stop_reason)


_PUBLIC_FIELDS = tuple(f.name for f in fields(Job) if not f.name.startswith("_"))
assert [f.name for f in fields(Job)][: len(_PUBLIC_FIELDS)] == list(_PUBLIC_FIELDS)
public_values = attrgetter(*_PUBLIC_FIELDS)
"""A job's public fields, in order (they come first): ``Job(*public_values(job))`` is a new
record as ``copy`` makes it, sharing the window (the bookkeeping is the engine's)."""


@dataclass(frozen=True, slots=True)
class PreemptedAttempt:
    """One entry of a job's ``preemptionSummary.recentPreemptedAttempts``."""

    started_at: float
    stopped_at: float
    status_reason: str
    preempted_by: str


@dataclass(frozen=True, slots=True)
class Transition:
    """A status change the engine decided: the job, its new status, when and why.

    A RUNNABLE transition with a MISCONFIGURATION reason changes only the statusReason. A
    preemption carries the ``preempted_attempt`` to append to the job's preemption summary.
    ``borrowed`` is how many of the job's instances count as borrowed when it is SCHEDULED.
    ``window``: the job enters a window and keeps its status: ``"preempting"`` (a victim, the
    ``reason`` is its new statusReason and ``preempted_attempt`` the attempt as it will end,
    at the window's end), ``"reserved"`` (capacity is held for this RUNNABLE job until it
    starts) or ``"terminating"``.
    """

    job_id: str
    at: float
    status: JobStatus
    reason: str | None = None
    preempted_attempt: PreemptedAttempt | None = None
    borrowed: int = 0
    window: str | None = None
