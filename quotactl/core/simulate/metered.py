"""The engine the replay runs: the scheduling engine plus the meters a simulation reports.

``MeteredEngine`` is the scheduling engine with the emulator's timing model (default: a
started job holds its capacity through SCHEDULED and STARTING before its run), no transition
records, and a capacity ledger
that integrates borrowed and lent instance-seconds over time (``quotactl.core.engine.capacity``).
Its hooks count waits, finishes, preemptions and the instance-seconds each attempt held.
One engine holds one or more queues: shares ``queue/share``, instance types ``queue/type``.

``RecordingEngine`` also tells a ``Recorder`` (``quotactl.core.simulate.timeline``) of every
start and stop, for a report's charts; without one, nothing of that runs.
"""

from __future__ import annotations

from array import array
from dataclasses import replace
from typing import TYPE_CHECKING

from quotactl.core.engine import TIMING, Job, QueueEngine, QueueModel, Timing
from quotactl.core.simulate.metrics import RawShare
from quotactl.core.simulate.timeline import Recorder

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.engine import PreemptedAttempt


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
        "terminated",
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
        self.terminated = [0] * shares  # by the queue's runnable timeout
        # each share keeps its own queue's runnable timeout in the merged model
        self._time_limits = [q.time_limits for q in queues for _ in q.shares]
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

    def _terminated(self, job: Job) -> None:
        self.terminated[job._s] += 1

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
        never = [0] * cap.S
        for job in self.jobs():
            stuck[job._s] += 1
            if (job.status_reason or "").startswith("MISCONFIGURATION"):
                misconfigured[job._s] += 1
            if job.first_started_at is None or job._seq in self.unstarted:
                never[job._s] += 1
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
                    terminated=self.terminated[s],
                    never_started=never[s],
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
