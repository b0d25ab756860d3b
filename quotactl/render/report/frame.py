"""One time axis for the timelines a report draws together (before and after).

Each run's timeline has its own interval width (a power of two times the first one, set by
the run's length); the frame merges the finer one's intervals to the coarser width, pads the
shorter run with its idle end, then thins every series to at most ``downsample.POINTS``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from quotactl.core.simulate.metrics import HOUR
from quotactl.render.report import downsample

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from quotactl.core.simulate.timeline import Timeline


DAY = 24 * HOUR


class Frame:
    """The common axis of ``timelines``: ``points`` drawn points of ``seconds`` each."""

    def __init__(self, timelines: Sequence[Timeline]) -> None:
        self.width = max(t.width for t in timelines)
        self.end = max(t.end for t in timelines)
        self.intervals = max(1, math.ceil(self.end / self.width))
        self.step = downsample.factor(self.intervals)
        self.seconds = self.width * self.step
        self.points = math.ceil(self.intervals / self.step)

    def lows(self, timeline: Timeline, values: Sequence[float]) -> list[float]:
        return self._thin(timeline, values, downsample.lows)

    def highs(self, timeline: Timeline, values: Sequence[float]) -> list[float]:
        return self._thin(timeline, values, downsample.highs)

    def averages(
        self, timeline: Timeline, values: Sequence[float], per: float = 1.0
    ) -> list[float]:
        """Per point, the sum of ``values`` over its time divided by that time and ``per``
        (instance-seconds per interval -> instances on average, or a share of ``per``)."""
        sums = self._thin(timeline, values, downsample.sums)
        return [s / (self._length(i) * per) if per else 0.0 for i, s in enumerate(sums)]

    def sums(self, timeline: Timeline, values: Sequence[float]) -> list[float]:
        return self._thin(timeline, values, downsample.sums)

    def x(self) -> list[float]:
        """Each point's start since the trace began, in days (hours for a short run)."""
        unit = DAY if self.end > 3 * DAY else HOUR
        return [i * self.seconds / unit for i in range(self.points)]

    def x_title(self) -> str:
        return f"{'days' if self.end > 3 * DAY else 'hours'} since the trace began"

    def _thin(
        self,
        timeline: Timeline,
        values: Sequence[float],
        merge: Callable[[Sequence[float], int], list[float]],
    ) -> list[float]:
        ratio = round(self.width / timeline.width)
        aligned = merge(values, ratio) if ratio > 1 else list(values)
        aligned += [0.0] * (self.intervals - len(aligned))  # the run ended: nothing in use
        return merge(aligned[: self.intervals], self.step)

    def _length(self, point: int) -> float:
        """Seconds of ``point``: the last one ends with the longer run."""
        return max(1e-9, min(self.seconds, self.end - point * self.seconds))
