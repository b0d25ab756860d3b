"""The replay loop: a trace's rows, in time order, advanced through the engines of a configuration.

Queues on environments of their own do not interact, and the engine keeps all its accounting
per instance type, so they all run in one engine (``metered.py``: shares ``queue/share``,
instance types ``queue/type``). Queues that share a service environment run one engine each, as
the emulator runs them: one ``maxCapacity`` serves every queue on the environment; at each
instant every queue first frees what falls due, then the queues are evaluated one after another
in descending ``priority`` (equal priorities: the one listed first), each within what the others
hold (victims in their preemption window included). No job of one queue is preempted for
another's (docs/emulator.md, "Job queues on one service environment").

Either way one loop advances the engines (one, or one per queue) over the trace, and one
routing sends each row to its share.

Two rules make the replay's answer the emulator's. Rows with equal ``submit_time`` keep their
trace order: each is submitted 1 ms after the one before (``SUBMIT_STEP``), as the emulator
gives jobs submitted back to back ``createdAt`` 1 ms apart and moves its clock with them. And a
replay ends at its horizon, ``horizon`` seconds after the last submission, or earlier when
every job has finished: what has not finished by then is counted as stuck.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from quotactl.core.engine import Job
from quotactl.core.simulate.governed import Governor
from quotactl.core.simulate.metered import MeteredEngine, RecordingEngine
from quotactl.core.simulate.metrics import RunTotals
from quotactl.core.simulate.queues import routes
from quotactl.core.simulate.timeline import Timeline
from quotactl.core.states import JobStatus
from quotactl.errors import TraceError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from quotactl.core.engine import QueueModel
    from quotactl.core.simulate.governed import Governance
    from quotactl.core.simulate.timeline import Recorder
    from quotactl.core.simulate.trace import TraceRow

    # where a row goes: its share and instance type as the engine names them, how the engine
    # takes the job, and the engine's per-share submission counts
    Target = tuple[str, str, Callable[[Job], None], list[int]]

E = TypeVar("E", bound=MeteredEngine)

_RUNNABLE = JobStatus.RUNNABLE
_NEVER = float("inf")

SUBMIT_STEP = 0.001
"""Seconds between jobs submitted at one trace time: AWS's resolution of ``createdAt``."""


def shares_environments(queues: Sequence[QueueModel]) -> bool:
    """Whether two of the queues name one service environment."""
    named = [q.environment for q in queues if q.environment is not None]
    return len(named) != len(set(named))


def replay(
    queues: Sequence[QueueModel],
    rows: Iterable[TraceRow],
    source: str,
    make: Callable[[Sequence[QueueModel]], E],
    horizon: float = _NEVER,
    governance: Governance | None = None,
) -> tuple[RunTotals, list[E]]:
    """Replay ``rows`` to the end of the trace and of every job, or to ``horizon`` seconds
    after the last submission if that comes first, in engines built by ``make`` (one for every
    queue, or one per queue where queues share an environment); returns the totals and the
    engines, for what a caller's engine kept besides. With ``governance``, the
    configuration's policies are applied at the governor's cadence (``governed.py``)."""
    if shares_environments(queues):
        engines = [make([q]) for q in queues]
        settle: Callable[[float], None] | None = _Environments(queues, engines).settle
    else:
        engines = [make(queues)]
        settle = None
    recorders = [e.recorder for e in engines if isinstance(e, RecordingEngine)]
    governor = None
    if governance is None:
        routing = _Routing(queues, engines, source)
        last_arrival = _advance(engines, settle, routing, rows, recorders, horizon)
    else:
        governor = Governor(governance, queues, engines, settle or _passes(engines))
        routing = _Routing(queues, engines, source, governed=True)
        last_arrival = _advance_governed(
            engines, settle, routing, rows, recorders, governor, horizon
        )
    end = max([last_arrival, *(e.last_finish for e in engines)])
    if any(e.next_event_time() is not None for e in engines):  # the horizon cut it short
        end = last_arrival + horizon
    totals = RunTotals(
        jobs=sum(sum(e.submitted) for e in engines),
        window=last_arrival,
        window_used=tuple(used for e in engines for used in e.window_used),
        end=end,
        queues=tuple(queues),
        shares=tuple(shares for e in engines for shares in e.close(end)),
        timeline=_timeline(recorders, end) if recorders else None,
        refused=None if governor is None else dict(governor.refused),
        taken=None if governor is None else tuple(governor.taken),
    )
    return totals, engines


def _passes(engines: Sequence[MeteredEngine]) -> Callable[[float], None]:
    """A pass of one engine for every queue."""

    def settle(at: float) -> None:
        engines[0].schedule(at)

    return settle


def _advance_governed(
    engines: Sequence[MeteredEngine],
    settle: Callable[[float], None] | None,
    routing: _Routing,
    rows: Iterable[TraceRow],
    recorders: Sequence[Recorder],
    governor: Governor,
    horizon: float,
) -> float:
    """``_advance`` with a governor cycle at every cadence tick: at an instant, the timers
    due fire and the arrivals are submitted (a job for a DISABLED share is refused), a pass
    runs, then, at a tick, each action of the cycle with a pass after it. A rebuild replaces
    an engine's state, so nothing of it is held across instants here. It ends where
    ``_advance`` does: nothing left to happen, or past ``horizon`` after the last arrival."""
    every = governor.governance.every
    resolved: dict[tuple[str, str], Target] = {}
    arrivals = iter(rows)
    pending = next(arrivals, None)
    last_arrival = 0.0
    deadline = _NEVER  # known once the last row is in
    edge = recorders[0].edge if recorders else _NEVER
    tick = 0.0
    while True:
        at = _NEVER if pending is None else pending[0]
        for e in engines:
            if e._timers and e._timers[0][0] <= at:
                at = e._timers[0][0]
        at = min(at, tick)
        if at > deadline or at == _NEVER:
            break
        if at >= edge:
            for recorder in recorders:
                edge = recorder.roll(at)
        for e in engines:
            if e._timers and e._timers[0][0] <= at:
                e.fire(at)
        if pending is not None and pending[0] <= at:
            for e in engines:
                e.now = at
            while pending is not None and pending[0] <= at:
                _, ref, itype, count, duration, priority, name, line = pending
                try:
                    share, qtype, _, _ = resolved[ref, itype]
                except KeyError:
                    target = resolved[ref, itype] = routing.target(ref, itype, line)
                    share, qtype = target[0], target[1]
                if governor.takes(share):
                    engine = routing.engine_of[share.split("/", 1)[0]]
                    job = Job(name, share, qtype, count, priority, at, duration, _RUNNABLE, at)
                    engine.submit(job)
                    engine.submitted[job._s] += 1
                pending = next(arrivals, None)
                if pending is not None and pending[0] <= at:  # the same instant: 1 ms later
                    pending = (at + SUBMIT_STEP, *pending[1:])
            last_arrival = at
            if pending is None:
                deadline = at + horizon
                for e in engines:
                    e.checkpoint(at)
        if settle is not None:
            settle(at)
        else:
            engines[0].schedule(at)
        if at == tick:
            governor.tick(at)
            tick += every
            if (
                pending is None
                and not any(e._timers for e in engines)
                and not any(e.jobs() for e in engines)
            ):
                tick = _NEVER
    return last_arrival


def _advance(
    engines: Sequence[MeteredEngine],
    settle: Callable[[float], None] | None,
    routing: _Routing,
    rows: Iterable[TraceRow],
    recorders: Sequence[Recorder],
    horizon: float,
) -> float:
    """The loop: instant by instant, timers due fire, arrivals are submitted, then a pass runs
    (``settle``: the passes of queues sharing environments), until nothing is left to happen
    or the instant is past ``horizon`` seconds after the last arrival; returns the last
    arrival's time. A row at the instant of the one before is submitted ``SUBMIT_STEP`` later.

    It is the hot loop of a simulation (a few microseconds a job), hence the local names.
    """
    engine = engines[0]
    heaps = [e._timers for e in engines]
    fires = [e.fire for e in engines]
    dirty = engine._dirty
    touched = engine._touched
    schedule = engine.schedule
    # per (trace share, instance type): where its rows go
    resolved: dict[tuple[str, str], Target] = {}
    target = routing.target
    arrivals = iter(rows)
    pending = next(arrivals, None)
    last_arrival = 0.0
    deadline = _NEVER  # known once the last row is in
    edge = recorders[0].edge if recorders else _NEVER
    while True:
        # the next instant: the earliest timer or arrival; timers due then fire first
        at = _NEVER if pending is None else pending[0]
        due = False
        for heap in heaps:
            if heap and heap[0][0] <= at:
                at = heap[0][0]
                due = True
        if at > deadline or at == _NEVER:
            break
        if at >= edge:  # a recorder's interval ended: it reads the state before this instant
            for recorder in recorders:
                edge = recorder.roll(at)
        if due:
            for fire in fires:
                fire(at)
        if pending is not None and pending[0] <= at:
            for e in engines:
                e.now = at
            while pending is not None and pending[0] <= at:
                _, ref, itype, count, duration, priority, name, line = pending
                try:  # a subscript, not .get(): a method call costs more than the lookup
                    share, qtype, submit, submitted = resolved[ref, itype]
                except KeyError:
                    share, qtype, submit, submitted = resolved[ref, itype] = target(
                        ref, itype, line
                    )
                job = Job(name, share, qtype, count, priority, at, duration, _RUNNABLE, at)
                submit(job)
                submitted[job._s] += 1
                pending = next(arrivals, None)
                if pending is not None and pending[0] <= at:  # the same instant: 1 ms later
                    pending = (at + SUBMIT_STEP, *pending[1:])
            last_arrival = at
            if pending is None:
                deadline = at + horizon
                for e in engines:
                    e.checkpoint(at)
        if settle is not None:
            settle(at)
        elif dirty or touched:
            schedule(at)
    return last_arrival


class _Routing:
    """Trace ``share`` values to the engine and share that take their jobs: ``queue/share``,
    or a share's own name when the configuration has one queue."""

    def __init__(
        self,
        queues: Sequence[QueueModel],
        engines: Sequence[MeteredEngine],
        source: str,
        *,
        governed: bool = False,
    ) -> None:
        self.queues = queues
        # governed: a share disabled now may be enabled later (the governor refuses a job
        # sent to it while it is disabled)
        self.route = routes(queues, every_share=governed)
        self.source = source
        # one engine for all queues may start a job on arrival (``offer``); engines that share
        # an environment wait for the pass, which first hands each its part of the capacity
        self.offers = len(engines) == 1
        self.engine_of = {q.name: engines[0 if self.offers else i] for i, q in enumerate(queues)}

    def target(self, ref: str, itype: str, line: int) -> Target:
        """Where the rows of share ``ref`` and ``itype`` go; a share that takes no jobs (unknown
        or disabled) is the trace's error, at ``line``."""
        share = self.route.get(ref)
        if share is None:
            raise self._refused(ref, line)
        queue = share.split("/", 1)[0]
        engine = self.engine_of[queue]
        submit = engine.offer if self.offers else engine.submit
        return share, f"{queue}/{itype}", submit, engine.submitted

    def _refused(self, ref: str, line: int) -> TraceError:
        where = f"{self.source}:{line}"
        for queue in self.queues:
            for share in queue.shares:
                qualified = f"{queue.name}/{share.name}"
                if ref == qualified or (len(self.queues) == 1 and ref == share.name):
                    return TraceError(
                        f"{where}: quota share {qualified} is disabled (it takes no new jobs)"
                    )
        known = sorted(f"{q.name}/{s.name}" for q in self.queues for s in q.shares)
        return TraceError(
            f"{where}: no quota share {ref!r} in the configuration",
            hint=f"shares are {', '.join(known)}" if known else "the configuration has no shares",
        )


class _Environments:
    """Queues with an engine each, where queues on one environment share its capacity."""

    def __init__(self, queues: Sequence[QueueModel], engines: Sequence[MeteredEngine]) -> None:
        self.queues = tuple(queues)
        self.engines = tuple(engines)
        groups: dict[str, list[int]] = {}
        for i, queue in enumerate(self.queues):
            groups.setdefault(queue.environment or f"\0{i}", []).append(i)
        # each environment's queues in the order they are evaluated
        self.groups = [
            sorted(members, key=lambda i: (-self.queues[i].priority, i))
            for members in groups.values()
        ]

    def settle(self, at: float) -> None:
        """A pass at ``at`` of every queue, in turn, within what the others on its environment
        hold."""
        engines = self.engines
        for group in self.groups:
            for i in group:
                if len(group) > 1:
                    self._share_capacity(i, group)
                engines[i].schedule(at)

    def _share_capacity(self, i: int, group: list[int]) -> None:
        """What the environment leaves queue ``i`` after the other queues on it."""
        queue = self.queues[i]
        for itype, full in queue.capacity.items():
            held = sum(
                self.engines[j].held(f"{self.queues[j].name}/{itype}") for j in group if j != i
            )
            self.engines[i].set_capacity(f"{queue.name}/{itype}", max(0, int(full) - held))


def _timeline(recorders: Sequence[Recorder], end: float) -> Timeline:
    """One run's timeline from its engines' recorders, in queue order (they rolled together,
    so their intervals are the same)."""
    timelines = [r.finish(end) for r in recorders]
    if len(timelines) == 1:
        return timelines[0]
    assert len({t.width for t in timelines}) == 1
    return Timeline(
        timelines[0].width,
        end,
        tuple(s for t in timelines for s in t.shares),
        tuple(q for t in timelines for q in t.queues),
    )
