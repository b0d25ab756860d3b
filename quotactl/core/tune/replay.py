"""One candidate's replay, as an executor runs it: a function of values only.

An executor (a process pool, a Dask cluster) calls ``replay`` with the candidate's queues, the
trace rows it already holds and the candidate's governance (its configuration's schedule
windows, budgets and aging, the instant of the trace's second 0, the cadence: None replays it
as AWS alone); the timing model travels with the call, so a worker whose environment differs
from this process's still replays exactly what ``simulate`` would.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.simulate.metrics import summarise
from quotactl.core.simulate.simulator import simulate

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.engine import QueueModel, Timing
    from quotactl.core.simulate.governed import Governance
    from quotactl.core.simulate.metrics import SimulationResult
    from quotactl.core.simulate.trace import TraceRow


def replay(
    queues: tuple[QueueModel, ...],
    rows: Sequence[TraceRow],
    source: str,
    timing: Timing,
    governance: Governance | None = None,
) -> SimulationResult:
    """The simulation result of ``rows`` on ``queues``, with ``governance``'s policies applied
    on the virtual clock: the same as ``simulate`` reports."""
    return summarise(simulate(queues, rows, source, timing, governance=governance))
