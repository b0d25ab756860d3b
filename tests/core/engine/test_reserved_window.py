"""A job that preempted, once its window ends, is an active job like any other.

While a preemption window is under way, the job it makes room for waits RUNNABLE with the
capacity reserved, and is no victim (nor is the job leaving). A higher-priority job of the same
share arriving meanwhile finds nobody to preempt; once the reserved job starts at the window's
end it is a lower-priority active job, so the waiting one preempts it in that same pass, as a
fresh engine handed the same jobs decides (and as an instant preemption would have).
"""

from __future__ import annotations

from quotactl.core.engine import Job, JobStatus, QueueEngine, QueueModel, ShareModel, Timing
from quotactl.core.engine.reasons import IN_SHARE_PREEMPTION
from quotactl.core.resources.desired import Strategy

G5 = "ml.g5.12xlarge"
WINDOWS = Timing(120.0, 30.0, True, 20.0, 120.0)
QUEUE = QueueModel(
    "q", {G5: 4}, (ShareModel("ranking", {G5: 4}, Strategy.RESERVE, in_share_preemption=True),)
)


def _job(job_id: str, priority: int, at: float) -> Job:
    return Job(job_id, "ranking", G5, 4, priority=priority, submitted_at=at, run_seconds=3600)


def test_the_job_a_window_made_room_for_is_preempted_by_a_higher_one_that_came_meanwhile() -> None:
    engine = QueueEngine(QUEUE, timing=WINDOWS)
    low, middle, high = _job("low", 0, 0.0), _job("middle", 2, 10.0), _job("high", 3, 15.0)
    engine.submit(low)
    engine.schedule(0.0)
    engine.advance_to(10.0)
    engine.submit(middle)  # preempts ``low``: a window to 30 s, ``middle`` reserved
    engine.schedule(10.0)
    engine.advance_to(15.0)
    engine.submit(high)  # nobody it may preempt: ``low`` is leaving, ``middle`` is reserved
    engine.schedule(15.0)
    assert high.status is JobStatus.RUNNABLE
    assert high.window is None

    engine.advance_to(31.0)  # ``middle`` started at 30 s: ``high`` preempts it then
    assert middle.started_at == 30.0
    assert middle.window is not None
    assert (middle.status_reason or "").endswith(IN_SHARE_PREEMPTION)
    assert high.window is not None  # reserved: it starts at the window's end

    engine.advance_to(51.0)
    assert high.status is JobStatus.SCHEDULED
    assert high.started_at == 50.0
    assert middle.status is JobStatus.RUNNABLE
    assert middle.preemptions == 1
    fresh = QueueEngine(QUEUE, timing=WINDOWS, record=False)
    fresh.now = 51.0
    fresh.load([j.copy() for j in (low, middle, high)])
    fresh.schedule(51.0)
    assert fresh.next_event_time() == 50.0 + WINDOWS.scheduled_seconds  # nothing else to do
