"""What the emulator's adapter (``engine_scheduler.py``) relies on from the engine's public API."""

from __future__ import annotations

from quotactl.core.engine import Job, JobStatus, QueueModel, ShareModel, schedule

G5 = "ml.g5.xlarge"


def test_engine_schedule_clears_a_misconfiguration_reason_that_no_longer_holds() -> None:
    running = Job("small", "A", G5, 1, status=JobStatus.RUNNING, started_at=0.0, run_seconds=600)
    big = Job("big", "A", G5, 2, submitted_at=1.0, status=JobStatus.RUNNABLE)
    [stuck] = schedule(QueueModel("q", {G5: 4}, (ShareModel("A", {G5: 1}),)), [running, big], 10)
    assert (stuck.job_id, stuck.status) == ("big", JobStatus.RUNNABLE)
    assert str(stuck.reason).startswith("MISCONFIGURATION:")
    big.status_reason = stuck.reason  # what a caller stores (the emulator's database)
    grown = QueueModel("q", {G5: 4}, (ShareModel("A", {G5: 2}),))
    transitions = schedule(grown, [running, big], 20)
    # big fits its share now but waits for small: its stored reason must be replaced.
    assert [(t.job_id, t.status, t.reason) for t in transitions] == [
        ("big", JobStatus.RUNNABLE, None)
    ]
