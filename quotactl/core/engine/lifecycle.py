"""Status changes: a job starts, is released, preempted, or moves on when its timer fires.

Lifecycle: a started job is SCHEDULED, then STARTING after ``Timing.scheduled_seconds``, then
RUNNING after ``Timing.starting_seconds``, then SUCCEEDED after its ``run_seconds`` (or FAILED
with its ``end_reason``, or RUNNABLE again while it has ``retries``). Capacity is held from
SCHEDULED on. With zero phase times the three statuses are passed in one instant (unless
``Timing.steps``).
Each change keeps the capacity ledger, the per-share active sets and the parking of blocked
heads consistent, and marks what the next pass must look at.
"""

from __future__ import annotations

from heapq import heappop, heappush

from quotactl.core.engine import reasons
from quotactl.core.engine.capacity import NO_CAP
from quotactl.core.engine.model import (
    PREEMPTING,
    RESERVED,
    TERMINATING,
    Job,
    PreemptedAttempt,
    Transition,
    Window,
)
from quotactl.core.engine.state import EngineState
from quotactl.core.engine.timeouts import deadline
from quotactl.core.states import JobStatus
from quotactl.core.transitions import transition

_RUNNABLE = JobStatus.RUNNABLE
_SCHEDULED = JobStatus.SCHEDULED
_STARTING = JobStatus.STARTING
_RUNNING = JobStatus.RUNNING
_SUCCEEDED = JobStatus.SUCCEEDED
_FAILED = JobStatus.FAILED

# Timer phases: a phase ends, a run ends; a preemption window ends for a victim (_LEAVE) or
# for the job it was preempted for (_BEGIN); a termination window ends (_STOP); a RUNNABLE job's
# runnable timeout ends (_EXPIRE).
_TO_STARTING, _TO_RUNNING, _DONE, _LEAVE, _BEGIN, _STOP, _EXPIRE = 0, 1, 2, 3, 4, 5, 6
_PHASE = {_SCHEDULED: _TO_STARTING, _STARTING: _TO_RUNNING, _RUNNING: _DONE}
_PREFIX = reasons.PREEMPTION_IN_PROGRESS


class Lifecycle(EngineState):
    """Start, release, preempt and the lifecycle timers."""

    __slots__ = ()

    def _start(self, job: Job) -> None:
        """RUNNABLE -> SCHEDULED: the job (no longer in its share's heap) takes capacity."""
        job._entry = None
        cap = self.capacity
        k = job._k
        t = job._t
        now = self.now
        s = job._s
        self._active[s][job._seq] = job
        self._in_share_failed[s] = None  # its active jobs change
        if cap.in_share[s]:  # ``self._count(s, job.priority)``
            counts = self._priorities[s]
            p = job.priority
            counts[p] = counts.get(p, 0) + 1
            if p < self._lowest[s]:
                self._lowest[s] = p
        borrowed = cap.change(k, t, job.count, now)
        if borrowed:
            self._touched.add(t)  # new borrowing: new victims for blocked own-limit heads
        if job._parts:
            for pk, pt, pn in job._parts:
                cap.change(pk, pt, pn, now)
        job.started_at = now
        attempt = job._attempt = job._attempt + 1
        if job.first_started_at is None:
            job.first_started_at = now
        if self._instant:
            transition(job, _RUNNING, None, now)
            if job.run_seconds is not None:
                heappush(
                    self._timers,
                    (now + self._lead + job.run_seconds, self._timer_seq, job, attempt, _DONE),
                )
                self._timer_seq += 1
        else:
            transition(job, _SCHEDULED, None, now)
            self._timer(now + self.timing.scheduled_seconds, job, _TO_STARTING)
        self._started(job, borrowed)

    def _activate(self, job: Job) -> None:
        s = job._s
        self._active[s][job._seq] = job
        self._in_share_failed[s] = None  # its active jobs change
        if self.capacity.in_share[s]:
            self._count(s, job.priority)
        self.capacity.change(job._k, job._t, job.count, self.now)
        for pk, pt, pn in job._parts:
            self.capacity.change(pk, pt, pn, self.now)

    def _release(self, job: Job) -> None:
        """Free what an active job holds; look again at whatever that may unblock.

        Parked heads of the type are woken through ``_touched``. The share's own head is looked
        at again only if the freed instances are of its type and may change its case: it is not
        parked and now within its limit plus borrow cap; or, parked as a borrower, it is now
        within its own limit (and may reclaim); or it outranks an active job of its share (so
        in-share preemption may now work for it).
        """
        s = job._s
        t = job._t
        del self._active[s][job._seq]
        self._in_share_failed[s] = None  # its active jobs change
        cap = self.capacity
        if cap.in_share[s]:  # ``self._uncount(s, job.priority)``
            counts = self._priorities[s]
            p = job.priority
            left = counts[p] - 1
            if left:
                counts[p] = left
            else:
                del counts[p]
                if p == self._lowest[s]:
                    self._lowest[s] = min(counts, default=NO_CAP)
        cap.change(job._k, t, -job.count, self.now)
        if job._parts:
            for pk, pt, pn in job._parts:
                cap.change(pk, pt, -pn, self.now)
                self._touched.add(pt)
            self._dirty.add(s)
        if self._whole:
            self._dirty.update(self._whole)
        if (
            self._waiting[t]
            and cap.cap[t] - cap.used[t] >= self._wake_free[t]
            and cap.idle[t] - cap.borrowed[t] >= self._wake_slack[t]
        ):
            self._touched.add(t)
        entry = self._runnable[s].top
        if entry is not None:
            head = entry[1]
            if head._entry is not entry:
                self._dirty.add(s)  # stale top: the head is unknown until the heap is cleaned
            elif head._t == t:
                k = head._k
                need = cap.usage[k] + head.count
                lim = cap.limit[k]
                parked = self._waits_on[s] >= 0
                if (
                    need <= lim
                    or (not parked and need <= lim + cap.bcap[k])
                    or (cap.in_share[s] and self._lowest[s] < head.priority)
                ):
                    self._dirty.add(s)
        job._attempt += 1

    def _preempt(self, job: Job, reason: str, by: Job) -> None:
        """Stop an active job: back to RUNNABLE at its old queue position, or FAILED; with a
        preemption window, at the window's end (``_stop_for``)."""
        window = self.timing.preemption_seconds
        if window > 0:
            self._stop_for(job, reason, by, window)
            return
        now = self.now
        started = job.started_at if job.started_at is not None else now
        self._release(job)
        # Inside a pass: heads blocked earlier in it may not be parked yet, so the release
        # must be seen by the next round whoever is parked now.
        self._touched.add(job._t)
        self._requeue(job, reason, by.job_id, started)

    def _requeue(self, job: Job, reason: str, by: str, started: float) -> None:
        """A preempted attempt ends now: RUNNABLE at the job's old place, or FAILED."""
        now = self.now
        job.preemptions += 1
        attempt = PreemptedAttempt(started, now, reason, by)
        retries = job.preemption_retries
        if retries is not None and job.preemptions > retries:
            failed = reasons.preemption_retries_exhausted(retries, reason)
            transition(job, _FAILED, failed, now)
            self._forget(job)
        else:
            transition(job, _RUNNABLE, reason, now)
            self._enqueue(job)
        self._preempted(job, attempt)

    # -- windows --------------------------------------------------------------------------------
    #
    # A victim's preemption window: the ledger gives its capacity to the job it is preempted
    # for at once (so every later decision is the one an instant preemption would make), but
    # the victim keeps its status and its instances until the window ends: what that job does
    # not take of them is held out of ``capacity.cap`` (``_held``) until then, and that job
    # is RUNNABLE with its capacity reserved (``_reserve``) until it starts at the same end.

    def _stop_for(self, job: Job, reason: str, by: Job, window: float) -> None:
        """Open a victim's preemption window (``by`` takes its capacity in ``_take``)."""
        cap = self.capacity
        t = job._t
        held = self._held
        cap.cap[t] -= job.count
        held[t] += job.count
        for _, pt, pn in job._parts:
            cap.cap[pt] -= pn
            held[pt] += pn
        self._release(job)  # its phase and run timers stop with the attempt
        self._touched.add(t)
        now = self.now
        job.window = Window(PREEMPTING, now, by.job_id, held=job.count)
        job.status_reason = _PREFIX + reason
        self._stopping[job._seq] = job
        self._timer(now + window, job, _LEAVE)
        if self.transitions is not None:  # the attempt as it will end
            started = job.started_at if job.started_at is not None else now
            attempt = PreemptedAttempt(started, now + window, reason, by.job_id)
            self.transitions.append(
                Transition(
                    job.job_id, now, job.status, job.status_reason, attempt, window=PREEMPTING
                )
            )

    def _take(self, job: Job, victims: list[Job]) -> None:
        """A head job that preempted ``victims`` (of its instance type) takes their capacity:
        it starts now, or with a preemption window its capacity is reserved until the
        victims' window ends. It takes the victims' instances first, then free ones."""
        if self.timing.preemption_seconds <= 0:
            self._start(job)
            return
        self._take_held(job, victims)
        self._reserve(job)

    def _take_held(self, job: Job, victims: list[Job]) -> None:
        """What ``job`` takes of its victims' instances is no longer held for them."""
        cap = self.capacity
        t = job._t
        need = job.count
        for victim in victims:
            window = victim.window
            if window is None:
                continue
            take = min(window.held, need)
            window.held -= take
            need -= take
            cap.cap[t] += take
            self._held[t] -= take

    def _reserve(self, job: Job, *, loaded: bool = False) -> None:
        """RUNNABLE, out of its share's queue: the ledger counts its instances as taken
        (``loaded``: a snapshot's reserved job, whose window it keeps)."""
        job._entry = None
        s = job._s
        self._active[s][job._seq] = job
        self._in_share_failed[s] = None  # its active jobs change
        if self.capacity.in_share[s]:
            self._count(s, job.priority)
        borrowed = self.capacity.change(job._k, job._t, job.count, self.now)
        if borrowed:
            self._touched.add(job._t)
        window = job.window
        if loaded and window is not None:
            window.borrowed = borrowed
            self._timer(window.since + self.timing.preemption_seconds, job, _BEGIN)
            return
        job.window = Window(RESERVED, self.now, borrowed=borrowed)
        self._timer(self.now + self.timing.preemption_seconds, job, _BEGIN)
        self._window(job, RESERVED)

    def _begin(self, job: Job) -> None:
        """A reserved job starts at its window's end (the status part of ``_start``)."""
        borrowed = job.window.borrowed if job.window is not None else 0
        job.window = None
        s = job._s
        if self.capacity.in_share[s]:
            # no longer reserved, it is a victim like any other active job: a higher-priority
            # head that found nobody to preempt during the window looks again
            self._in_share_failed[s] = None
            self._dirty.add(s)
        now = self.now
        job.started_at = now
        job._attempt += 1
        if job.first_started_at is None:
            job.first_started_at = now
        if self._instant:
            transition(job, _RUNNING, None, now)
            if job.run_seconds is not None:
                self._timer(now + self._lead + job.run_seconds, job, _DONE)
        else:
            transition(job, _SCHEDULED, None, now)
            self._timer(now + self.timing.scheduled_seconds, job, _TO_STARTING)
        self._started(job, borrowed)

    def _leave(self, job: Job) -> None:
        """A victim's preemption window ends: what it held is free, and it is RUNNABLE again
        (or FAILED: its retries are spent, or it was terminated meanwhile)."""
        del self._stopping[job._seq]
        self._unhold(job)
        window = job.window
        reason = job.status_reason or ""
        if reason.startswith(_PREFIX):
            reason = reason[len(_PREFIX) :]
        by = (window.by if window is not None else None) or ""
        started = job.started_at if job.started_at is not None else self.now
        if window is not None and window.stop_reason is not None:
            self._end_terminated(job)
            return
        job.window = None
        self._requeue(job, reason, by, started)

    def _unhold(self, job: Job) -> None:
        """Give back what a victim in its window holds out of the capacity."""
        cap = self.capacity
        t = job._t
        window = job.window
        if window is not None and window.held:
            cap.cap[t] += window.held
            self._held[t] -= window.held
            window.held = 0
        for _, pt, pn in job._parts:
            cap.cap[pt] += pn
            self._held[pt] -= pn
            self._touched.add(pt)
        self._touched.add(t)
        if self._whole:
            self._dirty.update(self._whole)

    def _unreserve(self, job: Job) -> None:
        """A reserved job is gone before its window ends: its victims hold their instances
        whole until then."""
        cap = self.capacity
        for victim in self._stopping.values():
            window = victim.window
            if window is not None and window.by == job.job_id and window.held < victim.count:
                more = victim.count - window.held
                window.held = victim.count
                cap.cap[victim._t] -= more
                self._held[victim._t] += more

    def _end_terminated(self, job: Job) -> None:
        """A terminated job's window ends: FAILED with the termination's reason."""
        reason = job.window.stop_reason if job.window is not None else None
        job.window = None
        transition(job, _FAILED, reason, self.now)
        self._forget(job)
        self._emit(job, _FAILED, reason)

    def _window_end(self, job: Job, phase: int) -> None:
        if phase == _LEAVE:
            self._leave(job)
        elif phase == _BEGIN:
            self._begin(job)
        else:  # _STOP
            self._release(job)
            self._end_terminated(job)

    def _window(self, job: Job, kind: str) -> None:
        if self.transitions is not None:
            self.transitions.append(
                Transition(job.job_id, self.now, job.status, job.status_reason, window=kind)
            )

    def _misconfigured(self, job: Job) -> None:
        reason = self.capacity.misconfiguration(job._k, job.count)
        if reason != job.status_reason:
            job.status_reason = reason
            self._emit(job, _RUNNABLE, reason)
            self._arm_time_limit(job)

    def _arm_time_limit(self, job: Job) -> None:
        """The job's statusReason changed: a timer for its queue's runnable timeout, if one
        applies to the new reason (any earlier one no longer does)."""
        limits = self._time_limits[job._s]
        if limits:
            job._attempt += 1
            found = deadline(job.status_reason, self.now, limits)
            if found is not None:
                self._timer(found[0], job, _EXPIRE)

    def _expire(self, job: Job) -> None:
        """The runnable timeout of a queued job ends: it is terminated, FAILED, and its
        share's next job is looked at."""
        if job.status is not _RUNNABLE or job._entry is None:
            return
        found = deadline(job.status_reason, self.now, self._time_limits[job._s])
        reason = reasons.time_limit(found[1] if found is not None else "")
        job._entry = None
        job._attempt += 1
        transition(job, _FAILED, reason, self.now)
        self._forget(job)
        self._emit(job, _FAILED, reason)
        self._dirty.add(job._s)
        self._terminated(job)

    def _start_whole(self, s: int, job: Job) -> bool:
        """Start a head job of several instance types if every group fits at once (see
        ``Job.groups``); True if it started. One that can never fit says why."""
        cap = self.capacity
        fits = True
        for k, t, n in ((job._k, job._t, job.count), *job._parts):
            if n > cap.cap[t] or n > cap.limit[k]:
                reason = (
                    reasons.SERVICE_ENVIRONMENT_MAX_RESOURCE
                    if n > cap.cap[t]
                    else reasons.QUOTA_SHARE_LIMIT
                )
                if reason != job.status_reason:
                    job.status_reason = reason
                    self._emit(job, _RUNNABLE, reason)
                fits = False
                break
            slack = cap.idle[t] - cap.borrowed[t] if cap.lends_k[k] else n
            if cap.usage[k] + n > cap.limit[k] or cap.used[t] + n > cap.cap[t] or slack < n:
                fits = False
        if not fits:
            self._whole[s] = job
            return False
        self._whole.pop(s, None)
        self._runnable[s].pop()
        self._start(job)
        return True

    def event_time(self, job: Job) -> float | None:
        """When an active job's current phase (or window) ends by itself (its timer), or None."""
        window = job.window
        if window is not None:
            timing = self.timing
            if window.kind == TERMINATING:
                return window.since + timing.termination_seconds
            return window.since + timing.preemption_seconds
        since = job.status_since
        if job.status is _SCHEDULED:
            return since + self.timing.scheduled_seconds
        if job.status is _STARTING:
            return since + self.timing.starting_seconds
        if job.status is _RUNNING and job.run_seconds is not None:
            return since + job.run_seconds
        return None

    def _resume_timer(self, job: Job, dispatched: bool = False) -> None:
        """Re-arm the timer of an active job handed over in a snapshot. (``dispatched``: its
        start went straight to RUNNING, so its run ends one lead after it: the phases' time,
        as ``_start``.)"""
        at = self.event_time(job)
        straight = dispatched and self._lead and job.window is None and job.status is _RUNNING
        if straight and at is not None:
            at = job.status_since + self._lead + job.run_seconds  # type: ignore[operator]
        if at is not None:
            self._timer(at, job, _PHASE[job.status])

    def fire(self, now: float, armed_before: int | None = None) -> None:
        """Apply every lifecycle timer due at or before ``now``, each at its own time.

        With ``armed_before`` (a ``timer_mark()``), timers armed at or after the mark wait
        for a later call, even if due: so a zero-length phase is still a step of its own.
        """
        timers = self._timers
        while timers and timers[0][0] <= now:
            if armed_before is not None and timers[0][1] >= armed_before:
                break
            at, _, job, attempt, phase = heappop(timers)
            if job._attempt != attempt:
                continue  # the attempt was preempted or the job removed
            self.now = at
            if phase == _DONE:
                self._release(job)
                if job.end_reason is None:
                    transition(job, _SUCCEEDED, job.status_reason, at)
                    if self._by_id is not None:
                        self._forget(job)
                    self._finished(job)
                    continue
                if job.retries > 0:
                    job.retries -= 1
                    transition(job, _RUNNABLE, job.end_reason, at)
                    self._enqueue(job)
                else:
                    transition(job, _FAILED, job.end_reason, at)
                    self._forget(job)
                self._emit(job, job.status, job.end_reason)
            elif phase == _TO_STARTING:
                transition(job, _STARTING, job.status_reason, at)
                self._timer(at + self.timing.starting_seconds, job, _TO_RUNNING)
                self._emit(job, _STARTING, None)
            elif phase == _TO_RUNNING:
                transition(job, _RUNNING, job.status_reason, at)
                if job.run_seconds is not None:
                    self._timer(at + job.run_seconds, job, _DONE)
                self._emit(job, _RUNNING, None)
            elif phase == _EXPIRE:
                self._expire(job)
            else:
                self._window_end(job, phase)
        if now > self.now:
            self.now = now
