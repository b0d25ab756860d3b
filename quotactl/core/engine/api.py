"""The stateless entry point: what one scheduling pass would decide on a snapshot of jobs.

Each call builds a fresh ``QueueEngine`` from a snapshot, runs it, and returns the transitions
in the order they happened. The caller's ``Job`` objects are copied, never changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.engine.model import TIMING, Job, Timing, Transition
from quotactl.core.engine.scheduler import QueueEngine

if TYPE_CHECKING:
    from collections.abc import Iterable

    from quotactl.core.engine.model import QueueModel


def schedule(
    queue: QueueModel, jobs: Iterable[Job], now: float, *, timing: Timing = TIMING
) -> list[Transition]:
    """One scheduling pass at ``now`` over a snapshot of the queue's live jobs.

    Returns SUBMITTED -> RUNNABLE moves, starts (SCHEDULED; with zero phase times also
    STARTING and RUNNING), preemptions (RUNNABLE or FAILED, with the preempted attempt) and
    MISCONFIGURATION statusReasons. The preemption windows the pass opens are closed at their
    end (``QueueEngine.settle_windows``): a victim's window opening, then its preemption and
    the start of the job it was preempted for, at the window's end. No other lifecycle timer
    runs.
    """
    engine = _engine(queue, jobs, now, timing)
    mark = engine.timer_mark()
    engine.schedule(now)
    engine.settle_windows(mark)
    return engine.transitions or []


def _engine(queue: QueueModel, jobs: Iterable[Job], now: float, timing: Timing) -> QueueEngine:
    engine = QueueEngine(queue, timing=timing)
    engine.now = now
    engine.load(j.copy() for j in jobs)
    return engine
