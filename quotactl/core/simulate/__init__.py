"""What-if simulation: replay a job trace against a configuration on a virtual clock.

``simulate(queues, rows, source)`` runs the scheduling engine of ``quotactl.core.engine``
(the one the emulator uses) over a streamed trace and returns raw meters; ``summarise`` turns
them into a ``SimulationResult``. ``run_one``/``run_both`` replay a trace file against one
configuration or two (in parallel processes where the machine has the cores), and ``compare``
sets two replays side by side with a verdict. ``read_trace``/``write_trace`` parse and write
traces, ``generate_trace`` makes synthetic ones, ``queue_models`` turns a configuration into
what the engine schedules.
"""

from quotactl.core.durations import human_duration
from quotactl.core.simulate.compare import (
    Comparison,
    QueueChange,
    ShareChange,
    ShareVerdict,
    compare,
)
from quotactl.core.simulate.generate import ShareWorkload, generate_trace, workloads
from quotactl.core.simulate.metrics import (
    QueueResult,
    ShareResult,
    SimulationResult,
    WaitStats,
    instance_hours,
    summarise,
)
from quotactl.core.simulate.queues import queue_models
from quotactl.core.simulate.reader import trace_rows
from quotactl.core.simulate.runs import Replay, Side, run_both, run_one
from quotactl.core.simulate.simulator import simulate
from quotactl.core.simulate.trace import TraceRow, read_trace, write_trace

__all__ = [
    "Comparison",
    "QueueChange",
    "QueueResult",
    "Replay",
    "ShareChange",
    "ShareResult",
    "ShareVerdict",
    "ShareWorkload",
    "Side",
    "SimulationResult",
    "TraceRow",
    "WaitStats",
    "compare",
    "generate_trace",
    "human_duration",
    "instance_hours",
    "queue_models",
    "read_trace",
    "run_both",
    "run_one",
    "simulate",
    "summarise",
    "trace_rows",
    "workloads",
    "write_trace",
]
