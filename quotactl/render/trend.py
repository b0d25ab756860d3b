"""``status --watch``'s trend: per share, a sparkline of instances in use over the window.

The window is the last ``WINDOW`` refreshes. Each refresh adds one reading per share (its
instances in use, every instance type together); a bar's height is the reading against the
larger of the share's limit and its highest reading in the window, so a share that never
borrows reaches ``█`` only at its limit. A failed refresh adds no reading.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from rich.console import RenderableType

    from quotactl.core.status.report import StatusReport

WINDOW = 40
BARS = "▁▂▃▄▅▆▇█"


def sparkline(values: list[int], top: int) -> str:
    """One character per value, ``▁`` for nothing up to ``█`` for ``top`` or more."""
    if top <= 0:
        return BARS[0] * len(values)
    last = len(BARS) - 1
    return "".join(BARS[min(last, round(v * last / top))] for v in values)


class Trend:
    """The readings of the refreshes so far (at most ``WINDOW`` per share)."""

    def __init__(self) -> None:
        self._readings: dict[str, deque[int]] = {}
        self._limits: dict[str, int] = {}
        self._times: deque[float] = deque(maxlen=WINDOW)

    def add(self, report: StatusReport) -> None:
        self._times.append(report.at)
        for queue in report.queues:
            for share in queue.shares:
                name = f"{queue.name}/{share.name}"
                readings = self._readings.setdefault(name, deque(maxlen=WINDOW))
                readings.append(sum(row.in_use for row in share.capacity))
                self._limits[name] = sum(row.limit for row in share.capacity)

    def view(self) -> RenderableType:
        """The table: share, sparkline, in use now, lowest-highest in the window."""
        span = self._times[-1] - self._times[0] if self._times else 0.0
        title = f"In use over the last {len(self._times)} refreshes ({_span(span)})"
        table = Table(title=Text(title, style="bold"), title_justify="left", box=None)
        table.add_column("share", overflow="fold")
        table.add_column("trend", no_wrap=True)
        for header in ("now", "low", "high", "limit"):
            table.add_column(header, justify="right", no_wrap=True)
        for name, readings in self._readings.items():
            values = list(readings)
            limit = self._limits[name]
            top = max(limit, max(values), 1)
            table.add_row(
                name,
                sparkline(values, top),
                str(values[-1]),
                str(min(values)),
                str(max(values)),
                str(limit),
            )
        return table


def _span(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
