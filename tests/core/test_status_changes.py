"""What `status --watch` reports as changed between two reads."""

from __future__ import annotations

from quotactl.core.engine import JobStatus, QueueModel
from quotactl.core.engine.live import LiveQueue
from quotactl.core.resources.observed import LiveJob
from quotactl.core.status.changes import changes

R, Q, A = JobStatus.RUNNING, JobStatus.RUNNABLE, JobStatus.SCHEDULED


def read(*jobs: tuple[str, JobStatus, int | None]) -> list[LiveQueue]:
    return [
        LiveQueue(
            "q",
            "arn:q",
            QueueModel("q", {}, ()),
            tuple(
                LiveJob(n, n, "q", "s", status, {"t": 1}, preemptions=p) for n, status, p in jobs
            ),
        )
    ]


def test_started_finished_and_preempted_jobs_are_named() -> None:
    before = read(("queued", Q, None), ("done", R, 0), ("reclaimed", R, 0), ("again", R, 0))
    after = read(("queued", A, None), ("reclaimed", Q, 1), ("again", R, 1), ("new", R, 0))
    found = changes(before, after)
    assert found.started == ("new", "queued")
    assert found.finished == ("done",)
    assert found.preempted == ("again", "reclaimed")
    assert not found.empty


def test_nothing_changed_is_empty() -> None:
    same = read(("a", R, 0), ("b", Q, None))
    assert changes(same, same).empty
