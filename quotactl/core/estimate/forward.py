"""One forward run of a live queue through the scheduling engine, from its current state.

``ForwardEngine`` is the engine the emulator runs (``quotactl.core.engine.QueueEngine``) with
the emulator's timing model, recording nothing but each job's first dispatch after ``now``
and each finish. ``run`` loads the queue's unfinished jobs (each with the run time chosen for
this run), then walks the engine's own events, a pass after each, exactly as the emulator's
``local advance`` does, until every job asked about has started (or nothing is left to
happen). A job's expected ``startedAt`` is its dispatch plus the SCHEDULED phase: AWS's
``startedAt`` is when the attempt leaves SCHEDULED for STARTING.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.engine import QueueEngine

if TYPE_CHECKING:
    from collections.abc import Iterable

    from quotactl.core.engine import Job, QueueModel, Timing


class ForwardEngine(QueueEngine):
    """The engine, noting first dispatches and finishes (no transitions recorded)."""

    __slots__ = ("_left", "_wanted", "finishes", "starts")

    def __init__(self, queue: QueueModel, timing: Timing, wanted: frozenset[str] | None) -> None:
        super().__init__(queue, timing=timing, record=False)
        self.starts: dict[str, float] = {}
        """Job ID -> when its first attempt after ``now`` was dispatched (SCHEDULED)."""
        self.finishes: list[tuple[float, str]] = []
        """(time, job ID) of every job that ended, in order."""
        self._wanted = wanted
        self._left = -1 if wanted is None else len(wanted)

    def _started(self, job: Job, borrowed: int) -> None:
        job_id = job.job_id
        starts = self.starts
        if job_id not in starts:
            starts[job_id] = self.now
            wanted = self._wanted
            if wanted is None or job_id in wanted:
                self._left -= 1

    def _finished(self, job: Job) -> None:
        self.finishes.append((self.now, job.job_id))

    @property
    def done(self) -> bool:
        """Every wanted job has started (never, when every job is wanted: run to the end)."""
        return self._left == 0


def run(
    queue: QueueModel,
    jobs: Iterable[Job],
    now: float,
    timing: Timing,
    wanted: frozenset[str] | None = None,
) -> ForwardEngine:
    """Run ``jobs`` forward from ``now`` until every ``wanted`` job started (None: until
    nothing is left to happen). The jobs are the engine's from then on: pass fresh ones."""
    engine = ForwardEngine(queue, timing, wanted)
    engine.now = now
    engine.load(jobs)
    engine.schedule(now)
    next_event, fire, schedule = engine.next_event_time, engine.fire, engine.schedule
    while engine._left:  # not ``done`` yet (a property: a call per event)
        at = next_event()
        if at is None:
            break
        fire(at)
        schedule(at)
    return engine
