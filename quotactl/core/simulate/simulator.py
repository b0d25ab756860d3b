"""Replaying a trace on a virtual clock: ``simulate``, the use of the replay loop that reports.

``simulate`` streams trace rows: it never holds more than the jobs that are queued or running.
It replays them (``replay.py``) in ``MeteredEngine``s (``metered.py``); with ``record``, in
``RecordingEngine``s, whose recorders draw a report's charts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.collector import collector_paused
from quotactl.core.engine import TIMING, Timing
from quotactl.core.simulate.governed import hooked
from quotactl.core.simulate.metered import MeteredEngine, RecordingEngine
from quotactl.core.simulate.replay import replay

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from quotactl.core.engine import QueueModel
    from quotactl.core.simulate.governed import Governance
    from quotactl.core.simulate.metrics import RunTotals
    from quotactl.core.simulate.trace import TraceRow

__all__ = ["HORIZON", "MeteredEngine", "RecordingEngine", "simulate"]

HORIZON = 30 * 86400.0
"""Seconds a replay goes on after the last submission, unless every job finished before."""


def simulate(
    queues: Sequence[QueueModel],
    rows: Iterable[TraceRow],
    source: str,
    timing: Timing = TIMING,
    *,
    record: bool = False,
    horizon: float = HORIZON,
    governance: Governance | None = None,
) -> RunTotals:
    """Replay ``rows`` against ``queues`` to the end of the trace and of every job, or to
    ``horizon`` seconds after the last submission (a job not finished then is stuck), with
    ``timing`` (default: the emulator's default phase times, which stand for AWS).

    With ``record``, the totals carry a ``Timeline`` of the run (for a report's charts).
    With ``governance``, the configuration's schedules, budgets and aging are applied at the
    governor's cadence (``governed.py``).

    The cyclic garbage collector is paused meanwhile: the replay allocates millions of
    short-lived objects that reference counting frees, and rescanning them cost about a tenth
    of the run. (A queued job and its queue entry refer to each other until it starts; what is
    left queued at the end is collected once the collector runs again.)
    """
    engine: type[MeteredEngine] = RecordingEngine if record else MeteredEngine
    if governance is not None:
        engine = hooked(engine)
    with collector_paused():
        totals, _ = replay(queues, rows, source, lambda qs: engine(qs, timing), horizon, governance)
    return totals
