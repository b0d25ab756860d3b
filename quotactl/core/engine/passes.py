"""The scheduling pass of docs/scheduling.md over one queue: incremental and pure.

A pass revisits only *dirty* shares (their queue or their own usage changed) and shares whose
blocked head job may now fit because capacity of its instance type was released; every other
share is left alone, so a pass costs O(shares touched), not O(jobs). It runs these phases until
nothing changes:

A. every dirty share starts head jobs that fit its own limit (step 1), shares in the order
   of their head job's submission;
B. a head job that fits its own limit but finds that capacity lent out reclaims it by
   preempting borrowing jobs (step 2, victims chosen in ``preemption.py``);
C. head jobs of LEND_AND_BORROW shares that need to borrow take idle lendable capacity in
   submission order across shares (step 3, FIFO; a head that does not fit does not hold back
   another share's head);
D. a head job that still cannot start preempts lower-priority jobs of its own share, where
   in-share preemption is enabled and only if that frees enough (step 4).

B runs before C: a lending share's own jobs take their capacity
back before idle capacity is handed to borrowers, so no job is started by borrowing and
preempted again in the same instant.

A head that cannot start is *parked* on its instance type with the free capacity and slack it
would need (``_park``); a release wakes only the parked heads it may serve (``_wake``), and a
share's own changes mark it dirty. Hypothesis checks that this bookkeeping never misses a
start a full pass would make (``tests/core/engine/test_engine_properties.py``).
"""

from __future__ import annotations

from heapq import heapify, heappop, heappush
from typing import TYPE_CHECKING

from quotactl.core.engine import reasons
from quotactl.core.engine.capacity import NO_CAP
from quotactl.core.engine.lifecycle import Lifecycle
from quotactl.core.engine.preemption import in_share_victims, reclaim_victims

if TYPE_CHECKING:
    from quotactl.core.engine.model import Job

# Why a head job is blocked (decides when it is looked at again).
_RECLAIMER, _BORROWER, _OVER_LIMIT = 0, 1, 2


class Passes(Lifecycle):
    """``schedule(now)``: phases A-D until nothing changes, over the shares that need a look."""

    __slots__ = ()

    def schedule(self, now: float) -> None:
        """One scheduling pass at ``now``; its decisions are applied (and recorded)."""
        self.now = now
        dirty = self._dirty
        touched = self._touched
        while dirty or touched:
            if touched:
                self._wake()
            if len(dirty) == 1:
                blocked = self._fill(dirty.pop())
                if blocked is not None:
                    self._unblock([blocked])
            elif dirty:
                shares = sorted(dirty, key=self._head_seq)
                dirty.clear()
                found = [b for b in map(self._fill, shares) if b is not None]
                if found:
                    self._unblock(found)

    def _fill(self, s: int) -> tuple[int, Job] | None:
        """Phase A for share ``s``: start head jobs within its own limit.

        Returns the blocked head and why (``_RECLAIMER``: within its own limit but the capacity
        is lent out; ``_BORROWER``: needs to borrow; ``_OVER_LIMIT``: over its limit and borrow
        cap, with in-share preemption enabled), or None if nothing is left for phases B-D.
        """
        if self._waits_on[s] >= 0:
            self._unwait(s)
        cap = self.capacity
        queue = self._runnable[s]
        while (entry := queue.top) is not None:
            job = entry[1]
            if job._entry is not entry:
                queue.pop()
                continue
            if job._parts:
                if self._start_whole(s, job):
                    continue
                return None
            k = job._k
            n = job.count
            if n > cap.max_count[k]:
                self._misconfigured(job)
                return None
            u = cap.usage[k]
            lim = cap.limit[k]
            if u + n <= lim:
                t = job._t
                if cap.used[t] + n <= cap.cap[t] and (
                    not cap.lends_k[k] or cap.idle[t] - cap.borrowed[t] >= n
                ):
                    queue.pop()
                    self._start(job)
                    continue
                return (_RECLAIMER, job)
            if u + n <= lim + cap.bcap[k]:
                t = job._t
                if (cap.used[t] + n <= cap.cap[t] and cap.idle[t] - cap.borrowed[t] >= n) or (
                    cap.in_share[s] and self._lowest[s] < job.priority
                ):
                    return (_BORROWER, job)
                # No room to borrow now, and nobody to preempt: park it at once. Capacity
                # only comes back through releases, which wake it.
                self._park(job, _BORROWER)
            elif cap.in_share[s] and self._lowest[s] < job.priority:
                return (_OVER_LIMIT, job)
            return None
        return None

    def _unblock(self, blocked: list[tuple[int, Job]]) -> None:
        """Phases B, C and D for the head jobs phase A could not start."""
        reclaim: list[Job] = []
        borrow: list[tuple[int, int, Job]] = []
        in_share: list[tuple[Job, int]] = []
        for kind, job in blocked:
            if kind == _BORROWER:
                borrow.append((job._rank, job._s, job))
            elif kind == _OVER_LIMIT:
                in_share.append((job, kind))
            else:
                reclaim.append(job)
        if reclaim:
            self._reclaim(reclaim, in_share)
        if borrow:
            heapify(borrow)
            self._borrow(borrow, in_share)
        if in_share:
            self._preempt_in_share(in_share)

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
            self._runnable[s].pop()
            self._take(job, victims)
            self._dirty.add(s)

    def _borrow(
        self, candidates: list[tuple[int, int, Job]], in_share: list[tuple[Job, int]]
    ) -> None:
        """Phase C: borrowing head jobs take idle lendable capacity, earliest submitted first."""
        cap = self.capacity
        later: set[int] = set()
        while candidates:
            _, s, job = heappop(candidates)
            if self._head(s) is not job:
                continue
            if cap.fits(job._k, job._t, job.count):
                self._runnable[s].pop()
                self._start(job)
                blocked = self._fill(s)
                if blocked is None:
                    continue
                kind, head = blocked
                if kind == _BORROWER:
                    heappush(candidates, (head._rank, s, head))
                elif kind == _OVER_LIMIT:
                    in_share.append((head, kind))
                else:
                    # The next head is of another instance type, within its own limit but lent
                    # out: it reclaims in the next round of the pass, after this borrowing.
                    later.add(s)
            elif cap.in_share[s]:
                in_share.append((job, _BORROWER))
            else:
                self._park(job, _BORROWER)
        self._dirty.update(later)

    def _preempt_in_share(self, candidates: list[tuple[Job, int]]) -> None:
        """Phase D: a blocked head preempts lower-priority jobs of its share if that is enough.

        A failed attempt is remembered with the head and its priority, together with the free
        capacity and slack of the type that stopping every candidate would still need; it is
        forgotten whenever the share's active jobs change. Until then, and while the head and
        its priority are the same, the attempt is repeated only if the type now has that much
        room: so the arrival of more jobs behind the head costs nothing.
        """
        cap = self.capacity
        if len(candidates) > 1:
            candidates.sort(key=lambda c: c[0]._rank)
        for job, kind in candidates:
            s = job._s
            if self._head(s) is not job:
                continue
            if self._lowest[s] >= job.priority:
                # nobody to preempt: only capacity of the type can help (see ``_park``)
                self._park(job, kind, self._own_room(job))
                continue
            key = (job, job.priority)
            failed = self._in_share_failed[s]
            if failed is not None and failed[0] == key:
                need = failed[1]
                t = job._t
                if need is None or not (
                    cap.cap[t] - cap.used[t] >= need[0] and cap.idle[t] - cap.borrowed[t] >= need[1]
                ):
                    self._park(job, kind, need)
                    continue
            victims, headroom = in_share_victims(self, job)
            if victims is None:
                need = None
                if headroom is not None:
                    n = job.count
                    lends = cap.lends_k[job._k]
                    need = (n - headroom[0], n - headroom[1] if lends else -NO_CAP)
                self._in_share_failed[s] = (key, need)
                self._park(job, kind, need)
                continue
            for victim in victims:
                self._preempt(victim, reasons.IN_SHARE_PREEMPTION, job)
            self._unwait(s)
            self._runnable[s].pop()
            self._take(job, victims)
            self._dirty.add(s)

    def _own_room(self, job: Job) -> tuple[int, int] | None:
        """The (free, slack) a head with no in-share victims needs, or None if over its cap."""
        cap = self.capacity
        k = job._k
        n = job.count
        if cap.usage[k] + n > cap.limit[k] + cap.bcap[k]:
            return None
        return (n, n if cap.lends_k[k] else -NO_CAP)

    def _park(self, job: Job, kind: int, in_share_need: tuple[int, int] | None = None) -> None:
        """File a blocked head job with the capacity of its type that would let it start.

        A borrower needs ``n`` free instances and ``n`` of slack; with in-share preemption,
        only what stopping all its share's lower-priority jobs would still leave missing
        (``in_share_need``). An own-limit head that could not reclaim is woken by any change of
        its type (borrowers come and go). An over-limit head without in-share preemption waits
        for its own share only (it is not parked).
        """
        n = job.count
        need: tuple[int, int] | None
        if kind == _RECLAIMER:
            need = (-NO_CAP, -NO_CAP)
        elif in_share_need is not None:
            need = in_share_need
        elif kind == _BORROWER:
            need = (n, n)
        else:
            return
        self._wait(job._s, job._t, job, *need)

    def _wake(self) -> None:
        """Mark dirty the parked shares whose head the changed capacity of its type may serve."""
        cap = self.capacity
        for t in self._touched:
            waiting = self._waiting[t]
            if not waiting:
                continue
            free = cap.cap[t] - cap.used[t]
            slack = cap.idle[t] - cap.borrowed[t]
            woken: list[int] = []  # a loop: a comprehension would make free and slack cells
            for s, (_, need_free, need_slack) in waiting.items():
                if free >= need_free and slack >= need_slack:
                    woken.append(s)
            for s in woken:
                self._unwait(s)
                self._dirty.add(s)
        self._touched.clear()

    def _head_seq(self, s: int) -> int:
        job = self._head(s)
        return job._rank if job is not None else -1


def _submission(job: Job) -> int:
    return job._rank
