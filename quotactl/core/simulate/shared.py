"""Job queues that share one service environment, replayed as the emulator schedules them.

One ``maxCapacity`` serves every queue on an environment: at each instant every queue first
frees what falls due, then the queues are evaluated one after another in descending
``priority`` (equal priorities: the one listed first), each within what the others hold
(victims in their preemption window included). No job of one queue is preempted for
another's. This is the emulator's rule (docs/emulator.md, "Job queues on one service
environment"), with one engine per queue as there.

Used by ``simulate`` and ``schedule.attempts`` only when two queues name the same
environment (``QueueModel.environment``); otherwise every queue runs in one merged engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.engine import Job
from quotactl.core.simulate.metrics import RunTotals
from quotactl.core.states import JobStatus
from quotactl.errors import TraceError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from quotactl.core.engine import QueueModel, Timing
    from quotactl.core.simulate.simulator import MeteredEngine
    from quotactl.core.simulate.trace import TraceRow

    MakeEngine = Callable[[Sequence[QueueModel], Timing], MeteredEngine]


def shares_environments(queues: Sequence[QueueModel]) -> bool:
    """Whether two of the queues name one service environment."""
    named = [q.environment for q in queues if q.environment is not None]
    return len(named) != len(set(named))


class SharedReplay:
    """One metered engine per queue; queues on one environment share its capacity."""

    def __init__(self, queues: Sequence[QueueModel], timing: Timing, make: MakeEngine) -> None:
        self.queues = tuple(queues)
        self.engines = [make([q], timing) for q in self.queues]
        groups: dict[str, list[int]] = {}
        for i, queue in enumerate(self.queues):
            groups.setdefault(queue.environment or f"\0{i}", []).append(i)
        # each environment's queues in the order they are evaluated
        self.groups = [
            sorted(members, key=lambda i: (-self.queues[i].priority, i))
            for members in groups.values()
        ]
        self.route: dict[str, tuple[int, str]] = {}
        for i, queue in enumerate(self.queues):
            for share in queue.shares:
                if share.enabled:
                    self.route[f"{queue.name}/{share.name}"] = (i, f"{queue.name}/{share.name}")

    def run(self, rows: Iterable[TraceRow], source: str) -> RunTotals:
        """Replay ``rows`` to the end of the trace and of every job."""
        engines = self.engines
        arrivals = iter(rows)
        pending = next(arrivals, None)
        last_arrival = 0.0
        while True:
            times = [t for e in engines if (t := e.next_event_time()) is not None]
            if pending is not None:
                times.append(pending[0])
            if not times:
                break
            at = min(times)
            for engine in engines:
                engine.fire(at)
            while pending is not None and pending[0] <= at:
                self._submit(pending, at, source)
                pending = next(arrivals, None)
                last_arrival = at
                if pending is None:
                    for engine in engines:
                        engine.checkpoint(at)
            for group in self.groups:
                for i in group:
                    self._share_capacity(i, group)
                    engines[i].schedule(at)
        end = max([last_arrival, *(e.last_finish for e in engines)])
        return RunTotals(
            jobs=sum(sum(e.submitted) for e in engines),
            window=last_arrival,
            window_used=tuple(e.window_used[0] for e in engines),
            end=end,
            queues=self.queues,
            shares=tuple(e.close(end)[0] for e in engines),
        )

    def _submit(self, row: TraceRow, at: float, source: str) -> None:
        _, ref, itype, count, duration, priority, name, line = row
        target = self.route.get(ref)
        if target is None:
            known = ", ".join(sorted(self.route)) or "none"
            raise TraceError(
                f"{source}:{line}: no quota share {ref!r} taking jobs in the configuration",
                hint=f"shares are {known}",
            )
        i, share = target
        engine = self.engines[i]
        qtype = f"{self.queues[i].name}/{itype}"
        engine.now = at
        job = Job(name, share, qtype, count, priority, at, duration, JobStatus.RUNNABLE, at)
        engine.submit(job)
        engine.submitted[job._s] += 1

    def _share_capacity(self, i: int, group: list[int]) -> None:
        """What the environment leaves queue ``i`` after the other queues on it."""
        if len(group) == 1:
            return
        queue = self.queues[i]
        for itype, full in queue.capacity.items():
            held = sum(
                self.engines[j].held(f"{self.queues[j].name}/{itype}") for j in group if j != i
            )
            self.engines[i].set_capacity(f"{queue.name}/{itype}", max(0, int(full) - held))
