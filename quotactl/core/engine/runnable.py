"""One share's queue of RUNNABLE jobs in dispatch order, with the next entry at hand.

The order is the engine's (``order.py``): higher priority first, then submission order
(``createdAt``, then job ID), as ``queue_rank`` packs it.
One heap would cost O(log n) comparisons per job, and a share far behind its arrivals holds
thousands of queued jobs. But priorities are few, and most jobs are queued once, in
submission order: so per priority (a *level*) the queue keeps

* ``fresh``, a deque in rank order: an entry that ranks after the level's last one is
  appended (every newly submitted job does: it is the latest submission) and leaves from the
  front, both O(1);
* ``returned``, a heap of the other entries: jobs queued again at their old place (preempted,
  retried, or given a new priority), usually few.

The queue holds exactly the entries one heap would, and gives them up in the same order: the
engine removes an entry only when it is ``top`` (dropping a stale one, whose job has moved or
left, when it gets there), as it would pop it from the heap.
"""

from __future__ import annotations

from bisect import bisect
from collections import deque
from heapq import heappop, heappush
from typing import TYPE_CHECKING

from quotactl.core.engine.order import RANK_SPAN

if TYPE_CHECKING:
    from collections.abc import Iterator

    from quotactl.core.engine.model import Job

Entry = tuple[int, "Job"]
"""``(queue_rank(job), job)``: the job's ``_entry`` while it is live."""

_SEQ_SPAN = RANK_SPAN
"""Above every ``Job._rank``: ``queue_rank`` packs the priority above it."""


def queue_rank(job: Job) -> int:
    """A job's place in its share's queue: higher priority first, then earlier submission.

    One integer ordered as ``(-priority, submission order)`` (``0 <= _rank < _SEQ_SPAN``):
    cheaper to compare than a tuple.
    """
    return job._rank - job.priority * _SEQ_SPAN


class _Level:
    """The entries queued at one priority: ``fresh`` in rank order, the others in a heap."""

    __slots__ = ("base", "fresh", "key", "returned")

    def __init__(self, priority: int) -> None:
        self.key = -priority  # levels sort by it: highest priority first
        self.base = -priority * _SEQ_SPAN  # rank = submission number + base (``queue_rank``)
        self.fresh: deque[Entry] = deque()
        self.returned: list[Entry] = []


class RunnableQueue:
    """Entries ``(rank, job)`` of one share; ``top`` is the least of them, None when empty.

    Invariants: ``_order`` holds exactly the levels that hold entries, highest priority first,
    and ``_keys`` their keys (plain integers, which bisect compares without calling a key
    function); in each level ``fresh`` is sorted by rank and ``returned`` is a heap; ``top`` is
    the least entry of ``_order[0]``.
    """

    __slots__ = ("_keys", "_levels", "_order", "top")

    def __init__(self) -> None:
        self._levels: dict[int, _Level] = {}
        self._order: list[_Level] = []
        self._keys: list[int] = []
        self.top: Entry | None = None

    def push(self, job: Job) -> Entry:
        """Queue ``job`` at its current priority; returns its new entry."""
        try:
            level = self._levels[job.priority]
        except KeyError:
            level = self._levels[job.priority] = _Level(job.priority)
        rank = job._rank + level.base  # queue_rank(job), spelled out: hot path
        entry = (rank, job)
        fresh = level.fresh
        if not fresh or fresh[-1][0] < rank:
            if not fresh and not level.returned:
                i = bisect(self._keys, level.key)
                self._keys.insert(i, level.key)
                self._order.insert(i, level)
            fresh.append(entry)
        else:
            heappush(level.returned, entry)
        top = self.top
        if top is None or rank < top[0]:
            self.top = entry
        return entry

    def pop(self) -> None:
        """Remove ``top`` (the queue must not be empty)."""
        order = self._order
        level = order[0]
        fresh, returned = level.fresh, level.returned
        if returned and returned[0] is self.top:
            heappop(returned)
        else:
            fresh.popleft()
        if not fresh and not returned:
            del order[0]
            del self._keys[0]
            if not order:
                self.top = None
                return
            level = order[0]
            fresh, returned = level.fresh, level.returned
        if not returned or (fresh and fresh[0][0] < returned[0][0]):
            self.top = fresh[0]
        else:
            self.top = returned[0]

    def __iter__(self) -> Iterator[Entry]:
        """Every entry, live or stale, in no particular order."""
        for level in self._levels.values():
            yield from level.fresh
            yield from level.returned
