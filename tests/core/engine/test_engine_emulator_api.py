"""What the emulator needs of the engine beyond the scenario table: jobs of several instance
types, failed attempts with retries, and phases that are steps of their own (``steps``)."""

from __future__ import annotations

from quotactl.core.engine import (
    Job,
    JobStatus,
    QueueEngine,
    QueueModel,
    ShareModel,
    Timing,
    reasons,
)
from quotactl.core.resources.desired import Strategy

G5, M5 = "ml.g5.xlarge", "ml.m5.large"


def statuses(engine: QueueEngine) -> dict[str, JobStatus]:
    return {t.job_id: t.status for t in engine.transitions or []}


def test_a_job_of_two_instance_types_waits_whole_and_holds_back_its_share() -> None:
    queue = QueueModel("q", {G5: 1, M5: 1}, (ShareModel("A", {G5: 1, M5: 1}),))
    engine = QueueEngine(queue)
    engine.submit(Job("m5", "A", M5, 1, run_seconds=60))
    engine.submit(Job("both", "A", G5, 1, submitted_at=1, groups=((M5, 1),), run_seconds=60))
    engine.submit(Job("g5", "A", G5, 1, submitted_at=2, run_seconds=60))
    engine.schedule(0)
    assert statuses(engine) == {
        "m5": JobStatus.RUNNING,
        "both": JobStatus.RUNNABLE,
        "g5": JobStatus.RUNNABLE,
    }
    assert (engine.usage("A", G5), engine.usage("A", M5)) == (0, 1)
    engine.transitions = []
    engine.advance_to(60)  # m5 frees its instance: both takes one of each type at once
    assert statuses(engine) == {"m5": JobStatus.SUCCEEDED, "both": JobStatus.RUNNING}
    assert (engine.usage("A", G5), engine.usage("A", M5)) == (1, 1)
    engine.transitions = []
    engine.advance_to(120)
    assert statuses(engine) == {"both": JobStatus.SUCCEEDED, "g5": JobStatus.RUNNING}


def test_a_group_the_share_can_never_hold_says_why() -> None:
    queue = QueueModel("q", {G5: 4, M5: 4}, (ShareModel("A", {G5: 2, M5: 1}),))
    engine = QueueEngine(queue)
    engine.submit(Job("big", "A", G5, 1, groups=((M5, 2),)))
    engine.schedule(0)
    [*_, last] = engine.transitions or []
    assert (last.status, last.reason) == (JobStatus.RUNNABLE, reasons.QUOTA_SHARE_LIMIT)


def test_a_job_of_two_types_never_borrows() -> None:
    queue = QueueModel(
        "q",
        {G5: 2, M5: 2},
        (
            ShareModel("A", {G5: 1, M5: 1}, Strategy.LEND_AND_BORROW),
            ShareModel("B", {G5: 1, M5: 1}, Strategy.LEND),
        ),
    )
    engine = QueueEngine(queue)
    engine.submit(Job("wide", "A", G5, 2, groups=((M5, 1),)))
    engine.schedule(0)
    assert engine.usage("A", G5) == 0
    assert engine.live("wide") is not None


def test_a_failed_attempt_is_retried_in_its_place_then_the_job_fails() -> None:
    queue = QueueModel("q", {G5: 1}, (ShareModel("A", {G5: 1}),))
    engine = QueueEngine(queue)
    reason = reasons.MAX_RUNTIME_EXCEEDED
    engine.submit(Job("flaky", "A", G5, 1, run_seconds=10, end_reason=reason, retries=1))
    engine.submit(Job("next", "A", G5, 1, submitted_at=1, run_seconds=10))
    engine.advance_to(10)
    first = [(t.job_id, t.status, t.reason) for t in engine.transitions or [] if t.at == 10]
    # flaky failed at 10 and went back to the front of its share: it runs again before next.
    assert first[:2] == [
        ("flaky", JobStatus.RUNNABLE, reason),
        ("flaky", JobStatus.SCHEDULED, None),
    ]
    engine.transitions = []
    engine.advance_to(20)
    assert [(t.job_id, t.status, t.reason) for t in engine.transitions or []][:2] == [
        ("flaky", JobStatus.FAILED, reason),
        ("next", JobStatus.SCHEDULED, None),
    ]


def test_stepped_phases_move_one_step_per_fire_even_when_they_take_no_time() -> None:
    queue = QueueModel("q", {G5: 1}, (ShareModel("A", {G5: 1}),))
    engine = QueueEngine(queue, timing=Timing(0, 0, steps=True))
    engine.submit(Job("job", "A", G5, 1, run_seconds=5))
    engine.schedule(0)
    seen = [engine.live("job").status]  # type: ignore[union-attr]
    for _ in range(2):
        engine.fire(0, armed_before=engine.timer_mark())
        seen.append(engine.live("job").status)  # type: ignore[union-attr]
    assert seen == [JobStatus.SCHEDULED, JobStatus.STARTING, JobStatus.RUNNING]
    assert engine.next_event_time() == 5
