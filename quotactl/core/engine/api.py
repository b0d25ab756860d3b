"""Stateless entry points for a caller that keeps jobs elsewhere (the emulator's SQLite).

Each call builds a fresh ``QueueEngine`` from a snapshot, runs it, and returns the transitions
in the order they happened. The caller's ``Job`` objects are copied, never changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.engine.model import EMULATOR_TIMING, Job, Timing, Transition
from quotactl.core.engine.scheduler import QueueEngine

if TYPE_CHECKING:
    from collections.abc import Iterable

    from quotactl.core.engine.model import QueueModel


def schedule(
    queue: QueueModel, jobs: Iterable[Job], now: float, *, timing: Timing = EMULATOR_TIMING
) -> list[Transition]:
    """One scheduling pass at ``now`` over a snapshot of the queue's live jobs.

    Returns SUBMITTED -> RUNNABLE moves, starts (SCHEDULED; with zero phase times also
    STARTING and RUNNING), preemptions (RUNNABLE or FAILED, with the preempted attempt) and
    MISCONFIGURATION statusReasons. Lifecycle timers are not run: see ``advance``.
    """
    engine = _engine(queue, jobs, now, timing)
    engine.schedule(now)
    return engine.transitions or []


def advance(
    queue: QueueModel,
    jobs: Iterable[Job],
    start: float,
    end: float,
    *,
    timing: Timing = EMULATOR_TIMING,
) -> list[Transition]:
    """Move the clock from ``start`` to ``end``: phase changes and job ends at their own
    times, with a scheduling pass after each (what ``quotactl local advance`` needs)."""
    engine = _engine(queue, jobs, start, timing)
    engine.advance_to(end)
    return engine.transitions or []


def next_event_time(
    queue: QueueModel, jobs: Iterable[Job], now: float, *, timing: Timing = EMULATOR_TIMING
) -> float | None:
    """When the snapshot's next lifecycle timer fires (for ``local serve --speed``)."""
    return _engine(queue, jobs, now, timing).next_event_time()


def _engine(queue: QueueModel, jobs: Iterable[Job], now: float, timing: Timing) -> QueueEngine:
    engine = QueueEngine(queue, timing=timing)
    engine.now = now
    engine.load(j.copy() for j in jobs)
    return engine
