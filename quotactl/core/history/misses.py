"""Guarantee misses: time during which a share's head job waited although it fit in the
share's own unused limit.

The head is the job that starts next in share order (priority, high first, then submission
time; a preempted job keeps its place). At each moment the head of share ``s`` of ``n``
instances of type ``t`` *fits* when ``O + n <= L`` (``O = min(U, L)``): its share's own limit
would hold it, so it waits only because that capacity is lent out and not yet reclaimed (or
because starting takes time). A *spell* is a stretch during which the share's head (whichever
job it is) fits and waits. The time of a spell beyond ``grace`` seconds counts as missed; the
longest spell reported is the longest such time. Spells are measured from the attempts'
recorded start and stop times, so a slow reclaim (a victim that takes a while to stop) is
counted as it happened.

A ``ShareHeads`` is told of every change to its share (``flush`` before it while a spell is
under way, then ``fits`` or ``close`` after it); between two changes nothing about the share
can change, so the work is proportional to the number of changes, not to the length of the
window.
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

Slot = tuple[int, str]
"""(slice index, instance type): where missed time is credited."""


class ShareHeads:
    """The waiting jobs of one share, in share order, and the share's current spell."""

    __slots__ = (
        "_entries",
        "_heap",
        "_live",
        "itype",
        "last",
        "longest",
        "missed",
        "spell_missed",
        "spell_since",
    )

    def __init__(self) -> None:
        self._heap: list[tuple[int, float, str, int, int, int]] = []
        self._live: dict[str, int] = {}  # a waiting job's entry in the heap (the others: gone)
        self._entries = 0
        self.spell_since: float | None = None
        self.itype = ""
        self.last = 0.0
        self.spell_missed: dict[Slot, float] = {}
        self.missed: dict[Slot, float] = {}
        self.longest: dict[Slot, float] = {}

    def enter(self, job_id: str, priority: int, submitted: float, kind: int, n: int) -> None:
        """A job starts waiting (``kind`` numbers its instance type, ``n`` its instances)."""
        self._entries += 1
        self._live[job_id] = self._entries
        heapq.heappush(self._heap, (-priority, submitted, job_id, self._entries, kind, n))

    def leave(self, job_id: str) -> None:
        """The job stops waiting: its entry is dropped once it comes to the top (a job that
        waits again later has a new entry, so an old one never comes back to life)."""
        self._live.pop(job_id, None)

    def head(self) -> tuple[int, int] | None:
        """The head's (instance type's number, instances), or None when nothing waits."""
        heap, live = self._heap, self._live
        while heap and live.get(heap[0][2]) != heap[0][3]:
            heapq.heappop(heap)
        return (heap[0][4], heap[0][5]) if heap else None

    def flush(
        self,
        at: float,
        grace: float,
        cut: Callable[[float, float], list[tuple[int, float, float]]],
    ) -> None:
        """Credit the spell under way up to ``at`` (before the share changes at ``at``);
        ``cut(lo, hi)`` gives the pieces of ``[lo, hi)`` in each slice of the window."""
        if self.spell_since is not None:
            lo = max(self.last, self.spell_since + grace)
            if lo < at:
                for index, a, b in cut(lo, at):
                    slot = (index, self.itype)
                    self.missed[slot] = self.missed.get(slot, 0.0) + (b - a)
                    self.spell_missed[slot] = self.spell_missed.get(slot, 0.0) + (b - a)
        self.last = at

    def fits(self, at: float, itype: str) -> None:
        """After the share changed at ``at``, its head (of ``itype``) fits: a spell goes on
        or begins. (When it does not fit, ``close``.)"""
        self.itype = itype
        if self.spell_since is None:
            self.spell_since = self.last = at

    def close(self) -> None:
        """The spell (if any) ends: its missed time per slot may be the longest."""
        if self.spell_since is None:
            return
        for slot, seconds in self.spell_missed.items():
            if seconds > self.longest.get(slot, 0.0):
                self.longest[slot] = seconds
        self.spell_missed = {}
        self.spell_since = None
