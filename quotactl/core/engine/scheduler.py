"""``QueueEngine``: the scheduler of one queue, as the emulator and the simulator use it.

Jobs go in through ``submit`` (or the simulator's ``offer``), ``load`` (a snapshot),
``set_priority`` and ``remove``; decisions come out of ``schedule(now)`` (one pass, see
``passes.py``) and ``advance_to(t)`` (lifecycle timers, each followed by a pass), recorded in
``transitions`` unless the engine was built with ``record=False``.
"""

from __future__ import annotations

from heapq import heapify
from typing import TYPE_CHECKING

from quotactl.core.engine.lifecycle import _BEGIN, _LEAVE, _STOP
from quotactl.core.engine.model import (
    INSTANT,
    PREEMPTING,
    RESERVED,
    TERMINATING,
    Job,
    QueueModel,
    Timing,
    Window,
)
from quotactl.core.engine.passes import Passes
from quotactl.core.states import JobStatus
from quotactl.core.transitions import transition

if TYPE_CHECKING:
    from collections.abc import Iterable


_SUBMITTED = JobStatus.SUBMITTED
_RUNNABLE = JobStatus.RUNNABLE


class QueueEngine(Passes):
    """The scheduler of one queue. Feed it jobs, call ``schedule(now)``, read ``transitions``."""

    __slots__ = ()

    def __init__(
        self,
        queue: QueueModel,
        *,
        timing: Timing = INSTANT,
        record: bool = True,
        metered: bool = False,
    ) -> None:
        super().__init__(queue, timing, record=record, metered=metered)

    # -- inputs ---------------------------------------------------------------------------------

    def submit(self, job: Job) -> None:
        """Queue a SUBMITTED or RUNNABLE job (its place comes from its data: ``order.py``)."""
        self._index(job)
        if job.status is _SUBMITTED:
            transition(job, _RUNNABLE, job.status_reason, self.now)
            self._emit(job, _RUNNABLE, job.status_reason)
        self._admit(job)

    def offer(self, job: Job) -> None:
        """``submit(job)``, starting it at once when that is what the next pass would do.

        That is the case when no other change awaits a pass, the job's share has nothing
        queued, and the job fits the share's own limit. Otherwise it waits for the caller's
        ``schedule(now)`` at the end of the instant, like any submitted job. (The simulator's
        way of feeding arrivals: many skip the pass machinery and the queue altogether.)
        """
        if job.status is not _RUNNABLE or self._dirty or self._touched or job.groups:
            self.submit(job)
            return
        self._index(job)
        cap = self.capacity
        s = job._s
        k = job._k
        n = job.count
        t = job._t
        if (
            self._runnable[s].top is None
            and self._waits_on[s] < 0
            and n <= cap.max_count[k]
            and cap.usage[k] + n <= cap.limit[k]
            and cap.used[t] + n <= cap.cap[t]
            and (not cap.lends_k[k] or cap.idle[t] - cap.borrowed[t] >= n)
        ):
            self._start(job)
        elif n <= cap.max_count[k] and job.status_reason is None:
            self._enqueue(job)  # what ``_admit`` comes to for a job that can run
        else:
            self._admit(job)

    def _admit(self, job: Job) -> None:
        """Put an indexed RUNNABLE job in its share's queue, with its misconfiguration if any."""
        if job.count > self.capacity.max_count[job._k]:
            self._misconfigured(job)  # visible at once, not only when it reaches the head
        elif job.status_reason is not None and job.status_reason.startswith("MISCONFIGURATION"):
            job.status_reason = None  # the config changed: it can run now, if not yet
            self._emit(job, _RUNNABLE, None)
            self._arm_time_limit(job)
        self._enqueue(job)

    def load(self, jobs: Iterable[Job], *, dispatched: bool = False) -> None:
        """Take over a snapshot of live jobs: queued ones wait, active ones hold capacity.
        ``dispatched``: the jobs come from an engine whose starts go straight to RUNNING
        (the simulator's own, rebuilt mid-replay), so a RUNNING job's ``status_since`` is its
        dispatch and its run ends one lead later; from a live account (an estimate, the
        emulator) it is the start the account reported, after the phases.

        Final jobs are skipped; the order of ``jobs`` decides nothing (``order.py``). Windows
        are rebuilt from the jobs' fields (``Job``): a victim in its preemption window holds
        its instances out of the capacity, except what the job it is preempted for (reserved,
        in the snapshot) takes of them; a terminated job holds its instances until its window
        ends.
        """
        victims: list[Job] = []
        reserved: list[Job] = []
        for job in sorted(jobs, key=lambda j: j.submitted_at):
            if job.status.is_final:
                continue
            window = job.window
            if window is not None and window.kind == RESERVED and job.status is _RUNNABLE:
                self._index(job)
                reserved.append(job)
                continue
            if not job.status.holds_capacity:
                job.window = None
                self.submit(job)
                continue
            self._index(job)
            if job.started_at is None:
                job.started_at = job.status_since
            if window is not None and window.kind == PREEMPTING:
                victims.append(job)
                continue
            self._activate(job)
            if window is not None:  # terminated, stopping
                self._timer(self._window_end_time(job), job, _STOP)
            else:
                self._resume_timer(job, dispatched)
        for job in reserved:  # what they take of their victims is theirs, in the ledger
            self._reserve(job, loaded=True)
        for job in victims:
            self._held_for(job)
        for job in reserved:
            mine = [v for v in victims if v.window is not None and v.window.by == job.job_id]
            self._take_held(job, mine)

    def _held_for(self, job: Job) -> None:
        """A loaded victim in its window holds all its instances out of the capacity."""
        cap = self.capacity
        cap.cap[job._t] -= job.count
        self._held[job._t] += job.count
        if job.window is not None:
            job.window.held = job.count
        for _, pt, pn in job._parts:
            cap.cap[pt] -= pn
            self._held[pt] += pn
        self._stopping[job._seq] = job
        self._timer(self._window_end_time(job), job, _LEAVE)

    def _window_end_time(self, job: Job) -> float:
        at = self.event_time(job)
        return self.now if at is None else at

    def set_priority(self, job_id: str, priority: int) -> None:
        """UpdateServiceJob: a queued job moves in its share's order; any job may now preempt."""
        self.reprioritise(self._job(job_id), priority)

    def reprioritise(self, job: Job, priority: int) -> None:
        """``set_priority`` of a job the caller holds (an engine that keeps no index by ID:
        the simulator's, where a governed replay raises a waiting job's priority)."""
        active = job._seq in self._active[job._s]
        if active and self.capacity.in_share[job._s]:
            self._uncount(job._s, job.priority)
            self._count(job._s, priority)
        job.priority = priority
        if job.status is JobStatus.RUNNABLE and not active:
            self._enqueue(job)
        else:
            self._touched.add(job._t)  # the order of victims changed for blocked own-limit heads
            self._in_share_failed[job._s] = None
        self._dirty.add(job._s)

    def remove(self, job_id: str) -> None:
        """The job was terminated outside the engine: forget it and free what it held."""
        job = self._job(job_id)
        if job._seq in self._active[job._s]:  # holding, reserved or in its termination window
            if job.window is not None and job.window.kind == RESERVED:
                self._unreserve(job)
            self._release(job)
        elif self._stopping.pop(job._seq, None) is not None:  # in its preemption window
            self._unhold(job)
        job._entry = None
        job._attempt += 1
        self._dirty.add(job._s)
        self._forget(job)

    def terminate(self, job_id: str, reason: str) -> float | None:
        """TerminateServiceJob: a job that holds instances keeps them and its status for the
        termination window (``Timing.termination_seconds``) and is FAILED at its end, which
        is returned; any other job is removed now (None). A job already in a window ends with
        it, FAILED with ``reason`` (the first termination's)."""
        job = self._job(job_id)
        window = job.window
        if window is not None and window.kind != RESERVED:  # stopping already
            if window.stop_reason is None:
                window.stop_reason = reason
            return self.event_time(job)
        seconds = self.timing.termination_seconds
        if seconds <= 0 or window is not None or not job.status.holds_capacity:
            self.remove(job_id)
            return None
        job._attempt += 1  # its phase and run timers stop
        job.window = Window(TERMINATING, self.now, stop_reason=reason)
        job.status_reason = reason
        self._in_share_failed[job._s] = None  # one victim fewer
        self._timer(self.now + seconds, job, _STOP)
        self._window(job, TERMINATING)
        return self.now + seconds

    def settle_windows(self, mark: int) -> None:
        """Close the preemption windows opened since ``mark`` (a ``timer_mark()``), each at
        its end: victims leave and the jobs they were preempted for start. No other timer
        fires and no pass runs: what a preview shows of one pass's decisions."""
        ends = (_LEAVE, _BEGIN)
        timers = self._timers
        chosen = sorted(e for e in timers if e[1] >= mark and e[4] in ends)
        if not chosen:
            return
        timers[:] = [e for e in timers if not (e[1] >= mark and e[4] in ends)]
        heapify(timers)
        now = self.now
        for at, _, job, attempt, phase in chosen:
            if job._attempt == attempt:
                self.now = at
                self._window_end(job, phase)
        self.now = max(now, self.now)

    def held(self, instance_type: str) -> int:
        """Instances of ``instance_type`` the queue's jobs hold (SCHEDULED to RUNNING, and
        victims in their preemption window) or have reserved."""
        t = self.capacity.type_index.get(instance_type)
        return 0 if t is None else self.capacity.used[t] + self._held[t]

    def set_capacity(self, instance_type: str, instances: int) -> None:
        """What the queue may use of ``instance_type`` from now on: less than its environment's
        capacity while other job queues on the environment hold some. Whether a job can ever
        run (its MISCONFIGURATION) still counts the environment's whole capacity."""
        cap = self.capacity
        t = cap.type_index.get(instance_type)
        if t is None:
            return
        instances -= self._held[t]  # victims in their window hold these
        if cap.cap[t] == instances:
            return
        grew = instances > cap.cap[t]
        cap.cap[t] = instances
        if grew:  # parked heads of the type may start now
            self._touched.add(t)
            self._dirty.update(range(cap.S))

    def advance_to(self, until: float) -> None:
        """Run the clock to ``until``: each timer fires at its own time, then a pass runs."""
        self.schedule(self.now)
        while True:
            at = self.next_event_time()
            if at is None or at > until:
                break
            self.fire(at)
            self.schedule(at)
        self.now = max(self.now, until)

    def headroom(self, share: str, instance_type: str) -> int:
        """The largest job of ``instance_type`` (in instances) that ``share`` could start right
        now without preempting anything: the largest count the admission check of every pass
        (``Capacity.fits``: own limit, borrow cap, idle lendable capacity, the environment)
        lets through. It ignores the share's queue: a job behind others waits for them."""
        cap = self.capacity
        t = cap.type_index.get(instance_type)
        if t is None:
            return 0
        k = t * cap.S + self._share_index[share]
        low, high = 0, cap.cap[t]
        while low < high:  # fits() is monotone in the count
            mid = (low + high + 1) // 2
            if cap.fits(k, t, mid):
                low = mid
            else:
                high = mid - 1
        return low
