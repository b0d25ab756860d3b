"""The engine's state: one queue's jobs and capacity, and the bookkeeping around them.

``EngineState`` holds the capacity ledger (``capacity.py``), a queue of runnable jobs per share
in priority, then submission order (``runnable.py``), the active jobs per share, the lifecycle
timers, and which blocked head jobs are parked on which instance type with what room they need.
Layers on top: ``lifecycle.py`` (status changes), ``passes.py`` (the scheduling pass),
``scheduler.py`` (the public ``QueueEngine``). Subclasses observe a run through the
``_started``/``_preempted``/``_finished`` hooks (the simulator meters with them; by default
they record transitions).
"""

from __future__ import annotations

from heapq import heappop, heappush
from typing import TYPE_CHECKING

from quotactl.core.engine.capacity import NO_CAP, Capacity
from quotactl.core.engine.model import (
    Job,
    PreemptedAttempt,
    QueueModel,
    Timing,
    Transition,
)
from quotactl.core.engine.order import RANK
from quotactl.core.engine.runnable import RunnableQueue
from quotactl.core.states import JobStatus
from quotactl.errors import NotFoundError

if TYPE_CHECKING:
    from quotactl.core.engine.timeouts import Limits

_SCHEDULED = JobStatus.SCHEDULED
_STARTING = JobStatus.STARTING
_RUNNING = JobStatus.RUNNING

Timer = tuple[float, int, Job, int, int]
_pack = RANK.pack
_from_bytes = int.from_bytes


class EngineState:
    """One queue's jobs and capacity, and the bookkeeping every decision relies on."""

    # Fixed attributes (here and in every subclass): each decision reads a dozen of them, and
    # a slot is read faster than an entry of an instance dict grown past its shared keys.
    __slots__ = (
        "_active",
        "_by_id",
        "_dirty",
        "_held",
        "_in_share_failed",
        "_instant",
        "_lead",
        "_lowest",
        "_priorities",
        "_runnable",
        "_seq",
        "_share_index",
        "_stopping",
        "_time_limits",
        "_timer_seq",
        "_timers",
        "_touched",
        "_waiting",
        "_waits_on",
        "_wake_free",
        "_wake_slack",
        "_whole",
        "capacity",
        "now",
        "queue",
        "timing",
        "transitions",
    )

    def __init__(
        self, queue: QueueModel, timing: Timing, *, record: bool, metered: bool = False
    ) -> None:
        self.queue = queue
        self.timing = timing
        self.now = 0.0
        self.capacity = Capacity(queue, metered=metered)
        shares = len(queue.shares)
        self._share_index = {s.name: i for i, s in enumerate(queue.shares)}
        self._runnable = [RunnableQueue() for _ in range(shares)]
        self._active: list[dict[int, Job]] = [{} for _ in range(shares)]
        # per instance type: parked share -> (head job, free instances, slack it needs)
        self._waiting: list[dict[int, tuple[Job, int, int]]] = [{} for _ in self.capacity.types]
        self._waits_on = [-1] * shares
        # per instance type: lower bounds of the parked heads' thresholds (a release that
        # leaves less free capacity or slack than these cannot wake anybody)
        self._wake_free = [NO_CAP] * len(self.capacity.types)
        self._wake_slack = [NO_CAP] * len(self.capacity.types)
        # per share: its last failed in-share preemption attempt, (head, its priority) and the
        # room it lacked; forgotten whenever the share's active jobs change (see
        # ``Passes._preempt_in_share``)
        self._in_share_failed: list[tuple[tuple[Job, int], tuple[int, int] | None] | None]
        self._in_share_failed = [None] * shares
        # per share with in-share preemption: active jobs per priority, and the lowest priority
        # among them (NO_CAP if none): who could be a victim (see ``_count``)
        self._priorities: list[dict[int, int]] = [{} for _ in range(shares)]
        self._lowest = [NO_CAP] * shares
        self._dirty: set[int] = set()
        self._touched: set[int] = set()
        # per instance type: instances that preemption victims still hold in their window and
        # that nobody has reserved (left out of ``capacity.cap`` until the window ends); and
        # the victims in their window, by arrival number (see ``Lifecycle._preempt``)
        self._held = [0] * len(self.capacity.types)
        self._stopping: dict[int, Job] = {}
        self._timers: list[Timer] = []
        self._seq = 0
        self._timer_seq = 0
        # A start goes straight to RUNNING when the phases take no time, or when nobody sees
        # them (an engine that records nothing: the simulator). Then the phases' time is one
        # lead before the run: capacity is held from SCHEDULED on either way, and SCHEDULED,
        # STARTING and RUNNING differ in nothing else the engine decides on.
        lead = max(timing.scheduled_seconds, 0.0) + max(timing.starting_seconds, 0.0)
        self._instant = not record or (not timing.steps and lead <= 0)
        self._lead = lead if self._instant else 0.0
        # shares whose head needs several instance types and could not start whole: looked at
        # again after every release (such jobs are rare; see ``Job.groups``)
        self._whole: dict[int, Job] = {}
        self._by_id: dict[str, Job] | None = {} if record else None
        # per share: its queue's runnable timeout (``QueueModel.time_limits``)
        self._time_limits: list[Limits] = [queue.time_limits] * shares
        self.transitions: list[Transition] | None = [] if record else None

    # -- queries --------------------------------------------------------------------------------

    def jobs(self) -> list[Job]:
        """Every job the engine holds (queued and active), in submission order."""
        live = [e[1] for q in self._runnable for e in q if e[1]._entry is e]
        live += [j for active in self._active for j in active.values()]
        live += self._stopping.values()
        return sorted(live, key=lambda j: j._rank)

    def head(self, share: str) -> Job | None:
        """The job the share would dispatch next."""
        return self._head(self._share_index[share])

    def usage(self, share: str, instance_type: str) -> int:
        """Instances the share's active jobs hold of that type (U)."""
        t = self.capacity.type_index.get(instance_type)
        if t is None:
            return 0
        return self.capacity.usage[t * self.capacity.S + self._share_index[share]]

    def live(self, job_id: str) -> Job | None:
        """The engine's record of a queued or active job (engines built with ``record``)."""
        return None if self._by_id is None else self._by_id.get(job_id)

    def timer_mark(self) -> int:
        """A mark for ``fire(now, armed_before=mark)``: timers armed from now on wait."""
        return self._timer_seq

    def next_event_time(self) -> float | None:
        """When the next lifecycle timer fires (a phase change or a job finishing), if any."""
        timers = self._timers
        while timers and timers[0][2]._attempt != timers[0][3]:
            heappop(timers)
        return timers[0][0] if timers else None

    # -- hooks (subclasses meter here; the default records transitions) --------------------------

    def _emit(self, job: Job, status: JobStatus, reason: str | None) -> None:
        if self.transitions is not None:
            self.transitions.append(Transition(job.job_id, self.now, status, reason))

    def _started(self, job: Job, borrowed: int) -> None:
        if self.transitions is None:
            return
        self.transitions.append(Transition(job.job_id, self.now, _SCHEDULED, borrowed=borrowed))
        if self._instant:
            self.transitions.append(Transition(job.job_id, self.now, _STARTING))
            self.transitions.append(Transition(job.job_id, self.now, _RUNNING))

    def _preempted(self, job: Job, attempt: PreemptedAttempt) -> None:
        if self.transitions is not None:
            self.transitions.append(
                Transition(job.job_id, self.now, job.status, job.status_reason, attempt)
            )

    def _finished(self, job: Job) -> None:
        self._emit(job, JobStatus.SUCCEEDED, None)

    def _terminated(self, job: Job) -> None:
        """A RUNNABLE job was terminated by its queue's runnable timeout (already recorded)."""

    # -- bookkeeping ----------------------------------------------------------------------------

    def _index(self, job: Job) -> None:
        # subscripts, not .get(): every job passes here, and a method call costs more than
        # the lookup
        try:
            s = self._share_index[job.share]
        except KeyError:
            raise NotFoundError(
                f"queue {self.queue.name!r} has no quota share {job.share!r}",
            ) from None
        cap = self.capacity
        try:
            t = cap.type_index[job.instance_type]
        except KeyError:
            t = self._type(job.instance_type)
        job._s = s
        job._t = t
        job._k = t * cap.S + s
        if job.groups:
            job._parts = self._group_parts(job)
        # the job's place in submission order, from its data alone (``order.submission_rank``,
        # spelled out: every job passes here); the arrival number keeps equal ones apart
        n = self._seq
        job._seq = n
        self._seq = n + 1
        created = round(job.submitted_at * 1000)
        job._rank = _from_bytes(_pack(created if created > 0 else 0, job.job_id.encode(), n))
        if self._by_id is not None:
            self._by_id[job.job_id] = job

    def _group_parts(self, job: Job) -> tuple[tuple[int, int, int], ...]:
        """``(k, t, n)`` of each further instance group of an indexed job (``Job.groups``).

        (A method of its own: a comprehension in ``_index`` would turn the locals it reads
        into cells, made anew on every call, for every job.)
        """
        s = job._s
        S = self.capacity.S
        typed = [(self._type(u), n) for u, n in job.groups]
        return tuple((t * S + s, t, n) for t, n in typed)

    def _type(self, name: str) -> int:
        """The index of an instance type (a new one, which the environment may lack, is added)."""
        cap = self.capacity
        t = cap.type_index.get(name)
        if t is None:
            t = cap.add_type(name)
            self._waiting.append({})
            self._held.append(0)
            self._wake_free.append(NO_CAP)
            self._wake_slack.append(NO_CAP)
        return t

    def _enqueue(self, job: Job) -> None:
        """Queue a job; its share needs a look only if the job is (or may be) its new head."""
        queue = self._runnable[job._s]
        entry = job._entry = queue.push(job)
        top = queue.top
        if top is entry or (top is not None and top[1]._entry is not top):
            self._dirty.add(job._s)

    def _head(self, s: int) -> Job | None:
        queue = self._runnable[s]
        while (entry := queue.top) is not None:
            if entry[1]._entry is entry:
                return entry[1]
            queue.pop()
        return None

    def _timer(self, at: float, job: Job, phase: int) -> None:
        heappush(self._timers, (at, self._timer_seq, job, job._attempt, phase))
        self._timer_seq += 1

    def _wait(self, s: int, t: int, job: Job, need_free: int, need_slack: int) -> None:
        self._waiting[t][s] = (job, need_free, need_slack)
        self._waits_on[s] = t
        if need_free < self._wake_free[t]:
            self._wake_free[t] = need_free
        if need_slack < self._wake_slack[t]:
            self._wake_slack[t] = need_slack

    def _unwait(self, s: int) -> None:
        t = self._waits_on[s]
        if t >= 0:
            waiting = self._waiting[t]
            del waiting[s]
            self._waits_on[s] = -1
            if not waiting:
                self._wake_free[t] = self._wake_slack[t] = NO_CAP

    def _job(self, job_id: str) -> Job:
        if self._by_id is None or job_id not in self._by_id:
            raise NotFoundError(f"no live job {job_id!r} in this engine")
        return self._by_id[job_id]

    def _count(self, s: int, priority: int) -> None:
        """An active job of ``priority`` joins share ``s`` (one with in-share preemption).

        Keeps ``_priorities[s]`` (active jobs per priority) and ``_lowest[s]`` (the lowest key
        of it, NO_CAP when empty), so that "does an active job of share ``s`` have a lower
        priority than ``p`` (a possible victim)?" is one comparison: ``_lowest[s] < p``.
        (``Lifecycle._start`` and ``_release`` spell this and ``_uncount`` out: hot path.)
        """
        counts = self._priorities[s]
        counts[priority] = counts.get(priority, 0) + 1
        if priority < self._lowest[s]:
            self._lowest[s] = priority

    def _uncount(self, s: int, priority: int) -> None:
        """An active job of ``priority`` leaves share ``s``: the inverse of ``_count``."""
        counts = self._priorities[s]
        left = counts[priority] - 1
        if left:
            counts[priority] = left
        else:
            del counts[priority]
            if priority == self._lowest[s]:
                self._lowest[s] = min(counts, default=NO_CAP)

    def _forget(self, job: Job) -> None:
        if self._by_id is not None:
            self._by_id.pop(job.job_id, None)
