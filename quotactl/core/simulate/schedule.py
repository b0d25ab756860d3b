"""Every attempt of every job of a replay, with AWS's times: what ``simulate`` decided, job by job.

``simulate`` reports totals; this replays the same trace through the same engine and keeps, per
job (by its trace ``name``), each attempt's ``startedAt`` and ``stoppedAt`` as the emulator
reports them in DescribeServiceJob's ``attempts``: an attempt starts when it leaves SCHEDULED
for STARTING, and stops when it finishes or is preempted. It is how a test holds the emulator
to ``simulate``'s schedule, and it keeps a record per job, so it is for small traces.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.collector import collector_paused
from quotactl.core.engine import TIMING
from quotactl.core.simulate.governed import Log, closed, opened
from quotactl.core.simulate.metered import MeteredEngine
from quotactl.core.simulate.replay import replay

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from quotactl.core.engine import Job, PreemptedAttempt, QueueModel, Timing
    from quotactl.core.simulate.governed import Governance
    from quotactl.core.simulate.metrics import RunTotals
    from quotactl.core.simulate.trace import TraceRow

Attempts = dict[str, list[tuple[float | None, float | None]]]
"""Per job name: its attempts in order, each ``(startedAt, stoppedAt)`` in trace seconds."""


class _Recorder(MeteredEngine):
    __slots__ = ("attempts",)

    def __init__(self, queues: Sequence[QueueModel], timing: Timing) -> None:
        super().__init__(queues, timing)
        self.attempts: dict[str, list[list[float | None]]] = {}

    def _started(self, job: Job, borrowed: int) -> None:
        super()._started(job, borrowed)
        self.attempts.setdefault(job.job_id, []).append([self.now + self.startup, None])

    def _preempted(self, job: Job, attempt: PreemptedAttempt) -> None:
        super()._preempted(job, attempt)
        last = self.attempts[job.job_id][-1]
        last[1] = attempt.stopped_at
        start = last[0]
        chosen = attempt.stopped_at - self.timing.preemption_seconds  # its window opened
        if start is not None and start > chosen:
            last[0] = None  # preempted while SCHEDULED (it stays so in its window): never started

    def _finished(self, job: Job) -> None:
        super()._finished(job)
        self.attempts[job.job_id][-1][1] = self.now


class _GovernedRecorder(_Recorder):
    """A ``_Recorder`` that also logs what each attempt held (what a budget counts)."""

    __slots__ = ("log",)

    def __init__(self, queues: Sequence[QueueModel], timing: Timing) -> None:
        super().__init__(queues, timing)
        self.log = Log()

    def _started(self, job: Job, borrowed: int) -> None:
        super()._started(job, borrowed)
        opened(self.log, job, self.now + self.startup)

    def _preempted(self, job: Job, attempt: PreemptedAttempt) -> None:
        super()._preempted(job, attempt)
        closed(self.log, job, attempt.stopped_at)

    def _finished(self, job: Job) -> None:
        super()._finished(job)
        closed(self.log, job, self.now)


def attempts(
    queues: Sequence[QueueModel],
    rows: Iterable[TraceRow],
    source: str,
    timing: Timing = TIMING,
) -> Attempts:
    """Replay ``rows`` as ``simulate`` does (with ``timing``, else the default) and return
    every job's attempts (see module doc)."""
    return governed_attempts(queues, rows, source, timing)[0]


def governed_attempts(
    queues: Sequence[QueueModel],
    rows: Iterable[TraceRow],
    source: str,
    timing: Timing = TIMING,
    governance: Governance | None = None,
) -> tuple[Attempts, RunTotals]:
    """``attempts``, with ``governance`` applied on the way, and the run's totals (with the
    governor's actions and the jobs it refused)."""
    make = _GovernedRecorder if governance is not None else _Recorder
    with collector_paused():
        totals, engines = replay(
            queues, rows, source, lambda qs: make(qs, timing), governance=governance
        )
    return {
        name: [(a, b) for a, b in runs]
        for engine in engines
        for name, runs in engine.attempts.items()
    }, totals
