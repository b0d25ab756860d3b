"""``status --watch`` draws each share's trend: a sparkline of its instances in use, one bar
per refresh over the last ones, with the reading now and the window's lowest and highest."""

from __future__ import annotations

import io
from dataclasses import replace
from typing import TYPE_CHECKING

from quotactl.render.console import make_console
from quotactl.render.status_watch import watch_frame
from quotactl.render.trend import WINDOW, Trend, sparkline
from tests.render.status_data import report

if TYPE_CHECKING:
    from quotactl.core.status.report import StatusReport


def with_nlp_using(base: StatusReport, in_use: int, at: float) -> StatusReport:
    queue = base.queues[0]
    nlp = queue.shares[0]
    rows = tuple(replace(r, in_use=in_use) for r in nlp.capacity)
    shares = (replace(nlp, capacity=rows), *queue.shares[1:])
    return replace(base, at=at, queues=(replace(queue, shares=shares), *base.queues[1:]))


def test_the_trend_draws_use_rising_to_borrowing_over_the_refreshes() -> None:
    base = report()
    trend = Trend()
    for i, in_use in enumerate([0, 2, 4, 6]):  # nlp's limit is 4: 6 is borrowing
        trend.add(with_nlp_using(base, in_use, base.at + 5 * i))
    screen = io.StringIO()
    frame = watch_frame(
        make_console(screen, color=False, width=120),
        with_nlp_using(base, 6, base.at + 15),
        refreshed=base.at + 15,
        interval=5.0,
        changes=None,
        error=None,
        trend=trend,
    )
    make_console(screen, color=False, width=120).print(frame)
    drawn = screen.getvalue()
    assert "In use over the last 4 refreshes (15 s)" in drawn
    line = next(x for x in drawn.splitlines() if x.strip().startswith("training/nlp"))
    assert "▁▃▆█" in line  # 0, 2, 4, 6 against the highest reading, 6
    assert line.split()[-4:] == ["6", "0", "6", "4"]  # now, low, high, limit


def test_the_window_keeps_the_last_refreshes_only() -> None:
    base = report()
    trend = Trend()
    for i in range(WINDOW + 10):
        trend.add(with_nlp_using(base, i % 2, base.at + i))
    screen = io.StringIO()
    make_console(screen, color=False, width=200).print(trend.view())
    line = next(x for x in screen.getvalue().splitlines() if "training/nlp" in x)
    assert len(line.split()[1]) == WINDOW


def test_a_sparkline_scales_to_its_top() -> None:
    assert sparkline([0, 1, 2, 4, 8], 8) == "▁▂▃▅█"
    assert sparkline([3, 3], 0) == "▁▁"
