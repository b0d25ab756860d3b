"""One candidate's replay, as an executor runs it: a function of values only.

An executor (a process pool, a Dask cluster) calls ``replay`` with the candidate's queues and
the trace rows it already holds; the timing model travels with the call, so a worker whose
environment differs from this process's still replays exactly what ``simulate`` would.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.simulate.metrics import summarise
from quotactl.core.simulate.simulator import simulate

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.engine import QueueModel, Timing
    from quotactl.core.simulate.metrics import SimulationResult
    from quotactl.core.simulate.trace import TraceRow


def replay(
    queues: tuple[QueueModel, ...], rows: Sequence[TraceRow], source: str, timing: Timing
) -> SimulationResult:
    """The simulation result of ``rows`` on ``queues``: the same as ``simulate`` reports."""
    return summarise(simulate(queues, rows, source, timing))
