"""Replaying a trace on a virtual clock: the engine plus meters, driven by a tight event loop.

``MeteredEngine`` is the scheduling engine with the emulator's timing model (default: a
started job holds its capacity through SCHEDULED and STARTING before its run), no transition
records, and a capacity ledger
that integrates borrowed and lent instance-seconds over time (``quotactl.core.engine.capacity``).
Its hooks count waits, finishes, preemptions and the instance-seconds each attempt held.

``simulate`` streams trace rows: it never holds more than the jobs that are queued or running.
With a ``Recorder`` (``quotactl.core.simulate.timeline``) it runs a ``RecordingEngine``, which
also tells the recorder of every start and stop, for a report's charts; without one, nothing
of that runs.
"""

from __future__ import annotations

from array import array
from dataclasses import replace
from typing import TYPE_CHECKING

from quotactl.core.collector import collector_paused
from quotactl.core.engine import TIMING, Job, QueueEngine, QueueModel, Timing
from quotactl.core.simulate.metrics import RawShare, RunTotals
from quotactl.core.simulate.shared import SharedReplay, shares_environments
from quotactl.core.simulate.timeline import Recorder
from quotactl.core.states import JobStatus
from quotactl.errors import TraceError

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from quotactl.core.engine import PreemptedAttempt
    from quotactl.core.simulate.trace import TraceRow

_RUNNABLE = JobStatus.RUNNABLE
_NEVER = float("inf")


class MeteredEngine(QueueEngine):
    """A ``QueueEngine`` that measures what a simulation report needs, and records nothing."""

    __slots__ = (
        "discarded",
        "finished",
        "last_finish",
        "preemptions",
        "queue_of",
        "queues",
        "startup",
        "submitted",
        "unstarted",
        "used",
        "waits",
        "window_used",
    )

    def __init__(self, queues: Sequence[QueueModel], timing: Timing = TIMING) -> None:
        super().__init__(_merged(queues), timing=timing, record=False, metered=True)
        # a wait ends at the first attempt's startedAt: when it leaves SCHEDULED for STARTING
        self.startup = timing.scheduled_seconds
        self.unstarted: set[int] = set()  # jobs whose only attempts ended while SCHEDULED
        self.queues = tuple(queues)
        self.queue_of = [i for i, q in enumerate(queues) for _ in q.shares]
        shares = len(self.queue_of)
        self.waits = [array("d") for _ in range(shares)]
        self.submitted = [0] * shares
        self.finished = [0] * shares
        self.preemptions = [0] * shares
        self.used = [0.0] * shares  # instance-seconds held by attempts that have ended
        self.discarded = [0.0] * shares  # instance-seconds of preempted attempts
        self.last_finish = 0.0
        # per queue: instance-seconds used until the last submission
        self.window_used = tuple(0.0 for _ in queues)

    def _started(self, job: Job, borrowed: int) -> None:
        if job.preemptions:  # a job joins ``unstarted`` only once preempted
            if job._seq not in self.unstarted:
                return
            self.unstarted.remove(job._seq)
        self.waits[job._s].append(self.now + self.startup - job.submitted_at)

    def _preempted(self, job: Job, attempt: PreemptedAttempt) -> None:
        held = job.count * (attempt.stopped_at - attempt.started_at)
        s = job._s
        self.used[s] += held
        self.discarded[s] += held
        self.preemptions[s] += 1
        start = attempt.started_at + self.startup
        if start > attempt.stopped_at - self.timing.preemption_seconds and (
            job.preemptions == 1 or job._seq in self.unstarted
        ):
            # preempted while SCHEDULED (it stays so in its window): the attempt never
            # started, so the wait counted for it is not one; the next attempt's counts
            _drop_last(self.waits[s], start - job.submitted_at)
            self.unstarted.add(job._seq)

    def _finished(self, job: Job) -> None:
        s = job._s
        self.used[s] += job.count * (self.now - (job.started_at or 0.0))
        self.finished[s] += 1
        self.last_finish = self.now

    def _used_until(self, at: float) -> list[float]:
        """Instance-seconds used per share up to ``at``, running attempts included."""
        used = list(self.used)
        for s, active in enumerate(self._active):
            for job in active.values():
                if job.window is None:  # a reserved job has not started yet
                    used[s] += job.count * (at - (job.started_at or 0.0))
        for job in self._stopping.values():  # victims in their preemption window
            used[job._s] += job.count * (at - (job.started_at or 0.0))
        return used

    def checkpoint(self, at: float) -> None:
        """Remember, per queue, the instance-seconds used up to ``at`` (the trace window)."""
        per_queue = [0.0] * len(self.queues)
        for s, used in enumerate(self._used_until(at)):
            per_queue[self.queue_of[s]] += used
        self.window_used = tuple(per_queue)

    def close(self, end: float) -> tuple[tuple[RawShare, ...], ...]:
        """Bring every meter up to ``end`` and hand over the raw numbers, per queue and share."""
        cap = self.capacity
        for k in range(len(cap.usage)):
            cap.change(k, k // cap.S, 0, end)  # a zero change brings the integrals up to ``end``
        meters = cap.meters
        assert meters is not None
        used = self._used_until(end)
        stuck = [0] * cap.S
        misconfigured = [0] * cap.S
        for job in self.jobs():
            stuck[job._s] += 1
            if (job.status_reason or "").startswith("MISCONFIGURATION"):
                misconfigured[job._s] += 1
        originals = [s for q in self.queues for s in q.shares]
        raw = []
        for s, share in enumerate(originals):
            ks = range(s, len(cap.usage), cap.S)
            borrowed = sum(meters.borrowed[k] for k in ks)
            raw.append(
                RawShare(
                    share=share,
                    submitted=self.submitted[s],
                    finished=self.finished[s],
                    stuck=stuck[s],
                    misconfigured=misconfigured[s],
                    waits=self.waits[s],
                    own_seconds=used[s] - borrowed,
                    borrowed_seconds=borrowed,
                    lent_seconds=sum(meters.lent[k] for k in ks),
                    preemptions=self.preemptions[s],
                    discarded_seconds=self.discarded[s],
                )
            )
        return tuple(
            tuple(r for s, r in enumerate(raw) if self.queue_of[s] == q)
            for q in range(len(self.queues))
        )


def _drop_last(waits: array[float], wait: float) -> None:
    """Remove the last ``wait`` from ``waits``: the attempt's own, counted when it started.

    It was appended at most a preemption window and a SCHEDULED phase ago, so it is found
    near the end; ``array.remove`` looks from the front, through every wait of the share
    (a million-job replay spent most of its time there). Waits are read sorted, so which of
    several equal ones goes makes no difference to anything reported.
    """
    i = len(waits) - 1
    while waits[i] != wait:
        i -= 1
    del waits[i]


class RecordingEngine(MeteredEngine):
    """A ``MeteredEngine`` that also tells a ``Recorder`` of every start, stop and preemption."""

    __slots__ = ("recorder",)

    def __init__(self, queues: Sequence[QueueModel], timing: Timing = TIMING) -> None:
        super().__init__(queues, timing)
        self.recorder = Recorder(queues, self.capacity)
        self.recorder.attach(self.used)

    def _started(self, job: Job, borrowed: int) -> None:
        MeteredEngine._started(self, job, borrowed)
        self.recorder.started(job._k, job._s, job.count, self.now)

    def _preempted(self, job: Job, attempt: PreemptedAttempt) -> None:
        MeteredEngine._preempted(self, job, attempt)
        self.recorder.stopped(job._k, job._s, job.count, attempt.started_at)
        self.recorder.preempted(job._s)

    def _finished(self, job: Job) -> None:
        MeteredEngine._finished(self, job)
        self.recorder.stopped(job._k, job._s, job.count, job.started_at or 0.0)


def simulate(
    queues: Sequence[QueueModel],
    rows: Iterable[TraceRow],
    source: str,
    timing: Timing = TIMING,
    *,
    record: bool = False,
) -> RunTotals:
    """Replay ``rows`` against ``queues`` to the end of the trace and of every job, with
    ``timing`` (default: the emulator's default phase times, which stand for AWS).

    With ``record``, the totals carry a ``Timeline`` of the run (for a report's charts; not
    for queues that share an environment, which only the library can describe).

    Queues on environments of their own do not interact, and the engine keeps all its
    accounting per instance type, so all queues run in one engine whose instance types are
    qualified by queue (``queue/type``). Queues that share an environment are replayed with
    one engine each, as the emulator runs them (``shared.py``).
    The cyclic garbage collector is paused meanwhile: the replay allocates millions of
    short-lived objects that reference counting frees, and rescanning them cost about a tenth
    of the run. (A queued job and its queue entry refer to each other until it starts; what is
    left queued at the end is collected once the collector runs again.)
    """
    with collector_paused():
        if shares_environments(queues):  # queues on one environment: one engine each
            return SharedReplay(queues, timing, MeteredEngine).run(rows, source)
        engine = RecordingEngine(queues, timing) if record else MeteredEngine(queues, timing)
        return _replay(queues, rows, source, engine)


def _replay(
    queues: Sequence[QueueModel],
    rows: Iterable[TraceRow],
    source: str,
    engine: MeteredEngine | None = None,
) -> RunTotals:
    engine = MeteredEngine(queues) if engine is None else engine
    route = _routes(queues)
    # per (trace share, instance type): the merged share and the queue-qualified type
    resolved: dict[tuple[str, str], tuple[str, str]] = {}
    heap = engine._timers
    dirty = engine._dirty
    touched = engine._touched
    fire = engine.fire
    schedule = engine.schedule
    offer = engine.offer
    submitted = engine.submitted
    arrivals = iter(rows)
    pending = next(arrivals, None)
    last_arrival = 0.0
    recorder = engine.recorder if isinstance(engine, RecordingEngine) else None
    edge = _NEVER if recorder is None else recorder.edge
    while True:
        # the next instant: the earliest timer or arrival; timers due then fire first
        if heap:
            at = heap[0][0]
            due = pending is None or pending[0] >= at
            if not due:
                at = pending[0]  # type: ignore[index]
        elif pending is not None:
            at = pending[0]
            due = False
        else:
            break
        if at >= edge:  # a recorder's interval ended: it reads the state before this instant
            edge = recorder.roll(at)  # type: ignore[union-attr]
        if due:
            fire(at)
        if pending is not None and pending[0] <= at:
            engine.now = at
            while pending is not None and pending[0] <= at:
                _, ref, itype, count, duration, priority, name, line = pending
                try:  # a subscript, not .get(): a method call costs more than the lookup
                    share, qtype = resolved[ref, itype]
                except KeyError:
                    share, qtype = resolved[ref, itype] = _target(route, ref, itype, source, line)
                job = Job(name, share, qtype, count, priority, at, duration, _RUNNABLE, at)
                offer(job)
                submitted[job._s] += 1
                pending = next(arrivals, None)
            last_arrival = at
            if pending is None:
                engine.checkpoint(at)
        if dirty or touched:
            schedule(at)
    end = max(last_arrival, engine.last_finish)
    return RunTotals(
        jobs=sum(submitted),
        window=last_arrival,
        window_used=engine.window_used,
        end=end,
        queues=tuple(queues),
        shares=engine.close(end),
        timeline=None if recorder is None else recorder.finish(end),
    )


def _target(
    route: dict[str, tuple[str, str] | str], ref: str, itype: str, source: str, line: int
) -> tuple[str, str]:
    """The merged share a trace row's ``share`` names, and its instance type qualified."""
    share, _ = _resolve(route, ref, source, line)
    return share, f"{share.split('/', 1)[0]}/{itype}"


def _merged(queues: Sequence[QueueModel]) -> QueueModel:
    """One model holding every queue: shares ``queue/share``, instance types ``queue/type``."""
    capacity = {f"{q.name}/{t}": n for q in queues for t, n in q.capacity.items()}
    shares = tuple(
        replace(
            s,
            name=f"{q.name}/{s.name}",
            limits={f"{q.name}/{t}": n for t, n in s.limits.items()},
        )
        for q in queues
        for s in q.shares
    )
    return QueueModel("+".join(q.name for q in queues), capacity, shares)


def _routes(queues: Sequence[QueueModel]) -> dict[str, tuple[str, str] | str]:
    """Trace ``share`` values to (merged share name, queue); a str value explains a rejection."""
    route: dict[str, tuple[str, str] | str] = {}
    for queue in queues:
        for share in queue.shares:
            qualified = f"{queue.name}/{share.name}"
            target: tuple[str, str] | str = (qualified, queue.name)
            if not share.enabled:
                target = f"quota share {qualified} is disabled (it takes no new jobs)"
            route[qualified] = target
            if len(queues) == 1:
                route[share.name] = target
    return route


def _resolve(
    route: dict[str, tuple[str, str] | str], ref: str, source: str, line: int
) -> tuple[str, str]:
    target = route.get(ref)
    if isinstance(target, tuple):
        return target
    if target is None:
        known = sorted(k for k in route if "/" in k)
        raise TraceError(
            f"{source}:{line}: no quota share {ref!r} in the configuration",
            hint=f"shares are {', '.join(known)}" if known else "the configuration has no shares",
        )
    raise TraceError(f"{source}:{line}: {target}")
