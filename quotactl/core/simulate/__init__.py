"""What-if simulation: replay a job trace against a configuration on a virtual clock.

``simulate(queues, rows, source)`` runs the scheduling engine of ``quotactl.core.engine``
(the one the emulator uses) over a streamed trace and returns raw meters; ``summarise`` turns
them into a ``SimulationResult``; ``compare`` sets a run beside its all-RESERVE baseline.
``read_trace``/``write_trace`` parse and write traces, ``generate_trace`` makes synthetic ones.
No I/O happens here: callers pass lines in and a stream out.
"""

from quotactl.core.simulate.generate import ShareWorkload, generate_trace, workloads
from quotactl.core.simulate.metrics import (
    Comparison,
    QueueResult,
    ShareResult,
    SimulationResult,
    WaitStats,
    compare,
    human_duration,
    instance_hours,
    summarise,
)
from quotactl.core.simulate.simulator import simulate
from quotactl.core.simulate.trace import TraceError, TraceRow, read_trace, write_trace

__all__ = [
    "Comparison",
    "QueueResult",
    "ShareResult",
    "ShareWorkload",
    "SimulationResult",
    "TraceError",
    "TraceRow",
    "WaitStats",
    "compare",
    "generate_trace",
    "human_duration",
    "instance_hours",
    "read_trace",
    "simulate",
    "summarise",
    "workloads",
    "write_trace",
]
