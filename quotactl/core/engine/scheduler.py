"""``QueueEngine``: the scheduling pass of SPEC §6 over one queue, incremental and pure.

A pass revisits only *dirty* shares (their queue or their own usage changed) and shares whose
blocked head job may now fit because capacity of its instance type was released; every other
share is left alone, so a pass costs O(shares touched), not O(jobs). It runs these phases until
nothing changes:

A. every dirty share starts head jobs that fit its own limit (SPEC step 1), shares in the order
   of their head job's submission;
B. a head job that fits its own limit but finds that capacity lent out reclaims it by
   preempting borrowing jobs (step 3, victims chosen in ``preemption.py``);
C. head jobs of LEND_AND_BORROW shares that need to borrow take idle lendable capacity in
   submission order across shares (step 2, FIFO; a head that does not fit does not hold back
   another share's head);
D. a head job that still cannot start preempts lower-priority jobs of its own share, where
   in-share preemption is enabled and only if that frees enough (step 4).

B runs before C so that no job is started by borrowing and preempted again in the same pass;
the outcome is otherwise that of SPEC's order.
"""

from __future__ import annotations

from heapq import heappop, heappush
from typing import TYPE_CHECKING

from quotactl.core.engine import reasons
from quotactl.core.engine.capacity import NO_CAP
from quotactl.core.engine.model import SIMULATOR_TIMING, Job, JobStatus, QueueModel, Timing
from quotactl.core.engine.preemption import in_share_headroom, in_share_victims, reclaim_victims
from quotactl.core.engine.state import EngineState

if TYPE_CHECKING:
    from collections.abc import Iterable


# Why a head job is blocked (decides when it is looked at again).
_RECLAIMER, _BORROWER, _OVER_LIMIT = 0, 1, 2


class QueueEngine(EngineState):
    """The scheduler of one queue. Feed it jobs, call ``schedule(now)``, read ``transitions``."""

    def __init__(
        self, queue: QueueModel, *, timing: Timing = SIMULATOR_TIMING, record: bool = True
    ) -> None:
        super().__init__(queue, timing, record=record)

    # -- inputs ---------------------------------------------------------------------------------

    def submit(self, job: Job) -> None:
        """Queue a SUBMITTED or RUNNABLE job; submission order is the order of these calls."""
        self._index(job)
        if job.status is JobStatus.SUBMITTED:
            job.status = JobStatus.RUNNABLE
            job.status_since = self.now
            self._emit(job, JobStatus.RUNNABLE, job.status_reason)
        if job.count > self.capacity.max_count[job._k]:
            self._misconfigured(job)  # visible at once, not only when it reaches the head
        self._enqueue(job)

    def load(self, jobs: Iterable[Job]) -> None:
        """Take over a snapshot of live jobs: queued ones wait, active ones hold capacity.

        Jobs are ordered by ``submitted_at`` (ties keep the order given); final ones are skipped.
        """
        for job in sorted(jobs, key=lambda j: j.submitted_at):
            if job.status.is_final:
                continue
            if not job.status.holds_capacity:
                self.submit(job)
                continue
            self._index(job)
            if job.started_at is None:
                job.started_at = job.status_since
            self._activate(job)
            self._resume_timer(job)

    def set_priority(self, job_id: str, priority: int) -> None:
        """UpdateServiceJob: a queued job moves in its share's order; any job may now preempt."""
        job = self._job(job_id)
        job.priority = priority
        if job.status is JobStatus.RUNNABLE:
            self._enqueue(job)
        else:
            self._touched.add(job._t)  # the order of victims changed for blocked own-limit heads
        self._dirty.add(job._s)

    def remove(self, job_id: str) -> None:
        """The job was terminated outside the engine: forget it and free what it held."""
        job = self._job(job_id)
        if job.status.holds_capacity:
            self._release(job)
        job._entry = None
        job._attempt += 1
        self._dirty.add(job._s)
        self._forget(job)

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

    # -- the pass -------------------------------------------------------------------------------

    def schedule(self, now: float) -> None:
        """One scheduling pass at ``now``; its decisions are applied (and recorded)."""
        self.now = now
        dirty = self._dirty
        while dirty or self._touched:
            if self._touched:
                self._wake()
            reclaim: list[Job] = []
            borrow: list[tuple[int, int, Job]] = []
            in_share: list[tuple[Job, int]] = []
            if len(dirty) == 1:
                self._fill(dirty.pop(), reclaim, borrow, in_share)
            else:
                shares = sorted(dirty, key=self._head_seq)
                dirty.clear()
                for s in shares:
                    self._fill(s, reclaim, borrow, in_share)
            if reclaim:
                self._reclaim(reclaim, in_share)
            if borrow:
                self._borrow(borrow, in_share)
            if in_share:
                self._preempt_in_share(in_share)

    def _fill(
        self,
        s: int,
        reclaim: list[Job],
        borrow: list[tuple[int, int, Job]],
        in_share: list[tuple[Job, int]],
    ) -> None:
        """Phase A for share ``s``: start head jobs within its own limit; file the blocked head."""
        self._unwait(s)
        cap = self.capacity
        usage, limit, bcap, max_count = cap.usage, cap.limit, cap.bcap, cap.max_count
        used, capt, idle, borrowed, lends = cap.used, cap.cap, cap.idle, cap.borrowed, cap.lends_k
        queue = self._runnable[s]
        while queue:
            entry = queue[0]
            job = entry[2]
            if job._entry is not entry:
                heappop(queue)
                continue
            k = job._k
            t = job._t
            n = job.count
            if n > max_count[k]:
                self._misconfigured(job)
                return
            u = usage[k]
            if u + n <= limit[k]:
                if used[t] + n <= capt[t] and (not lends[k] or idle[t] - borrowed[t] >= n):
                    self._start(job)
                    continue
                reclaim.append(job)
            elif u + n <= limit[k] + bcap[k]:
                heappush(borrow, (job._seq, s, job))
            elif cap.in_share[s]:
                in_share.append((job, _OVER_LIMIT))
            return

    def _reclaim(self, candidates: list[Job], in_share: list[tuple[Job, int]]) -> None:
        """Phase B: own-limit head jobs take back lent capacity from borrowing jobs."""
        for job in sorted(candidates, key=_submission):
            s = job._s
            if self._head(s) is not job:
                continue
            victims = reclaim_victims(self, job)
            if victims is None:
                if self.capacity.in_share[s]:
                    in_share.append((job, _RECLAIMER))
                else:
                    self._park(job, _RECLAIMER)
                continue
            for victim in victims:
                self._preempt(victim, reasons.CROSS_SHARE_PREEMPTION, job)
            self._unwait(s)
            self._start(job)
            self._dirty.add(s)

    def _borrow(
        self, candidates: list[tuple[int, int, Job]], in_share: list[tuple[Job, int]]
    ) -> None:
        """Phase C: borrowing head jobs take idle lendable capacity, earliest submitted first."""
        cap = self.capacity
        reclaim: list[Job] = []
        while candidates:
            _, s, job = heappop(candidates)
            if self._head(s) is not job:
                continue
            if cap.fits(job._k, job._t, job.count):
                self._start(job)
                self._fill(s, reclaim, candidates, in_share)
            elif cap.in_share[s]:
                in_share.append((job, _BORROWER))
            else:
                self._park(job, _BORROWER)
        # A next head of another instance type may fit its own limit but find it lent out:
        # it reclaims in the next round of the pass, after this round's borrowing.
        self._dirty.update(job._s for job in reclaim)

    def _preempt_in_share(self, candidates: list[tuple[Job, int]]) -> None:
        """Phase D: a blocked head preempts lower-priority jobs of its share if that is enough."""
        for job, kind in sorted(candidates, key=lambda c: c[0]._seq):
            s = job._s
            if self._head(s) is not job:
                continue
            victims = in_share_victims(self, job)
            if victims is None:
                self._park(job, kind)
                continue
            for victim in victims:
                self._preempt(victim, reasons.IN_SHARE_PREEMPTION, job)
            self._unwait(s)
            self._start(job)
            self._dirty.add(s)

    def _park(self, job: Job, kind: int) -> None:
        """File a blocked head job with the capacity of its type that would let it start.

        A borrower needs ``n`` free instances and ``n`` of slack; with in-share preemption,
        less by what stopping all its share's lower-priority jobs would free. An own-limit head
        that could not reclaim is woken by any change of its type (borrowers come and go). An
        over-limit head without that option waits for its own share only (not parked).
        """
        n = job.count
        if kind == _RECLAIMER:
            self._wait(job._s, job._t, job, -NO_CAP, -NO_CAP)
            return
        freed = in_share_headroom(self, job) if self.capacity.in_share[job._s] else None
        if freed is None:
            if kind == _BORROWER:
                self._wait(job._s, job._t, job, n, n)
            return
        instances, slack = freed
        need_slack = n - slack if self.capacity.lends_k[job._k] else -NO_CAP
        self._wait(job._s, job._t, job, n - instances, need_slack)

    def _wake(self) -> None:
        """Mark dirty the parked shares whose head the changed capacity of its type may serve."""
        cap = self.capacity
        for t in self._touched:
            waiting = self._waiting[t]
            if not waiting:
                continue
            free = cap.cap[t] - cap.used[t]
            slack = cap.idle[t] - cap.borrowed[t]
            woken = [s for s, (_, nf, ns) in waiting.items() if free >= nf and slack >= ns]
            for s in woken:
                del waiting[s]
                self._waits_on[s] = -1
                self._dirty.add(s)
        self._touched.clear()

    def _head_seq(self, s: int) -> int:
        job = self._head(s)
        return job._seq if job is not None else -1


def _submission(job: Job) -> int:
    return job._seq
