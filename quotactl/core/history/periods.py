"""The window of ``usage`` cut into UTC days or ISO weeks, and time cut into those slices."""

from __future__ import annotations

import bisect
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from quotactl.core.history.report import Every

if TYPE_CHECKING:
    from collections.abc import Iterable


def first_active_period(
    start: datetime, submitted: Iterable[datetime], every: Every | None
) -> datetime:
    """``start``, or the start of the day (week) of the earliest of ``submitted`` when that
    is later: a default window then holds no day before anything happened (a stack created
    this morning shows today, not 29 empty days before it)."""
    first = min(submitted, default=None)
    if every is None or first is None or first <= start:
        return start
    first = first.astimezone(UTC)
    day = datetime(first.year, first.month, first.day, tzinfo=UTC)
    if every is Every.WEEK:
        day -= timedelta(days=day.weekday())
    return max(start, day)


def period_bounds(start: datetime, end: datetime, every: Every | None) -> list[datetime]:
    """``[start, b1, b2, ..., end]``: the window cut at each UTC midnight (day) or each
    Monday 00:00 UTC (week); just ``[start, end]`` without ``every``."""
    if every is None:
        return [start, end]
    start, end = start.astimezone(UTC), end.astimezone(UTC)
    first = datetime(start.year, start.month, start.day, tzinfo=UTC)
    step = timedelta(days=1)
    if every is Every.WEEK:
        first -= timedelta(days=first.weekday())
        step = timedelta(days=7)
    bounds = [start]
    at = first + step
    while at < end:
        bounds.append(at)
        at += step
    bounds.append(end)
    return bounds


class Slices:
    """Slice 0 is the whole window; slices 1.. are the periods (none without ``--every``)."""

    def __init__(self, bounds: list[datetime], *, periods: bool) -> None:
        self.edges = [b.timestamp() for b in bounds]
        self.start, self.end = self.edges[0], self.edges[-1]
        self.periods = periods

    @property
    def count(self) -> int:
        return len(self.edges) if self.periods else 1

    def cut(self, lo: float, hi: float) -> list[tuple[int, float, float]]:
        """``[lo, hi)`` inside the window as (slice, from, to): the window, then each period."""
        lo, hi = max(lo, self.start), min(hi, self.end)
        if hi <= lo:
            return []
        pieces = [(0, lo, hi)]
        if self.periods:
            edges = self.edges
            i = bisect.bisect_right(edges, lo) - 1
            while i < len(edges) - 1 and edges[i] < hi:
                a, b = max(lo, edges[i]), min(hi, edges[i + 1])
                if b > a:
                    pieces.append((i + 1, a, b))
                i += 1
        return pieces

    def at(self, moment: float) -> list[int]:
        """The slices holding ``moment`` (none outside the window)."""
        if not self.start <= moment < self.end:
            return []
        if not self.periods:
            return [0]
        return [0, bisect.bisect_right(self.edges, moment)]

    def length(self, index: int) -> float:
        if index == 0:
            return self.end - self.start
        return self.edges[index] - self.edges[index - 1]
