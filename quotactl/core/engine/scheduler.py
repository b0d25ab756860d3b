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
from quotactl.core.engine.model import SIMULATOR_TIMING, Job, JobStatus, QueueModel, Timing
from quotactl.core.engine.preemption import in_share_victims, reclaim_victims
from quotactl.core.engine.state import EngineState

if TYPE_CHECKING:
    from collections.abc import Iterable


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
            in_share: list[Job] = []
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
        self, s: int, reclaim: list[Job], borrow: list[tuple[int, int, Job]], in_share: list[Job]
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
                self._wait(s, t, job, reclaimer=True)
                reclaim.append(job)
            elif u + n <= limit[k] + bcap[k]:
                heappush(borrow, (job._seq, s, job))
            elif cap.in_share[s]:
                in_share.append(job)
            return

    def _reclaim(self, candidates: list[Job], in_share: list[Job]) -> None:
        """Phase B: own-limit head jobs take back lent capacity from borrowing jobs."""
        for job in sorted(candidates, key=_submission):
            s = job._s
            if self._head(s) is not job:
                continue
            victims = reclaim_victims(self, job)
            if victims is None:
                if self.capacity.in_share[s]:
                    in_share.append(job)
                continue
            for victim in victims:
                self._preempt(victim, reasons.CROSS_SHARE_PREEMPTION, job)
            self._unwait(s)
            self._start(job)
            self._dirty.add(s)

    def _borrow(self, candidates: list[tuple[int, int, Job]], in_share: list[Job]) -> None:
        """Phase C: borrowing head jobs take idle lendable capacity, earliest submitted first."""
        cap = self.capacity
        unused: list[Job] = []
        while candidates:
            _, s, job = heappop(candidates)
            if self._head(s) is not job:
                continue
            if cap.fits(job._k, job._t, job.count):
                self._start(job)
                self._fill(s, unused, candidates, in_share)
                continue
            self._wait(s, job._t, job, reclaimer=False)
            if cap.in_share[s]:
                in_share.append(job)

    def _preempt_in_share(self, candidates: list[Job]) -> None:
        """Phase D: a blocked head preempts lower-priority jobs of its share if that is enough."""
        for job in sorted(candidates, key=_submission):
            s = job._s
            if self._head(s) is not job:
                continue
            victims = in_share_victims(self, job)
            if victims is None:
                continue
            for victim in victims:
                self._preempt(victim, reasons.IN_SHARE_PREEMPTION, job)
            self._unwait(s)
            self._start(job)
            self._dirty.add(s)

    def _wake(self) -> None:
        """Mark dirty the blocked shares whose head the changed capacity of its type may serve.

        A borrowing head is woken only if it now fits; an own-limit head blocked by lent
        capacity (it may reclaim) is woken on any change of its type, new borrowing included.
        """
        cap = self.capacity
        for t in self._touched:
            waiting = self._waiting[t]
            if not waiting:
                continue
            free = cap.cap[t] - cap.used[t]
            slack = cap.idle[t] - cap.borrowed[t]
            woken = [
                s
                for s, (job, reclaimer) in waiting.items()
                if reclaimer or (job.count <= free and job.count <= slack)
            ]
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
