"""One scheduling engine per job queue (``quotactl.core.engine.QueueEngine``), kept between
requests and rebuilt from the stored jobs whenever it may be stale.

The state file is the truth; an engine is a cache of one queue's RUNNABLE and active jobs.
It is valid for the account ``generation`` it was last synchronised with: a write by any
other process (or ``Emulator``) bumps the generation and every engine of this one is dropped;
a change to a queue's shares, environment or settings drops them too (``Context.changed``).
A rebuild reads the queue's unfinished jobs once (``QueueEngine.load``); otherwise a request
costs what it changes. A failed request drops every engine, since its writes are undone.

Translation, both ways, is in ``jobs.py``: a stored ``ServiceJob`` -> an engine ``Job``, and
an engine ``Transition`` -> the stored job's status, attempts and times.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quotactl.core.engine import QueueEngine, QueueModel, ShareModel, Timing
from quotactl.core.resources.desired import Strategy
from quotactl.core.states import State
from quotactl.emulator.account import engine_fields
from quotactl.emulator.account.models import NUM_INSTANCES, JobQueue, QuotaShare, ServiceEnvironment

if TYPE_CHECKING:
    from quotactl.core.engine import Job
    from quotactl.emulator.account.service_job import ServiceJob
    from quotactl.emulator.store.database import Tx

POOL = "(queue)"
"""The one share standing for a queue without quota management."""


class QueueState:
    """A queue's engine and what the emulator needs beside it."""

    def __init__(self, queue: JobQueue, engine: QueueEngine, enabled: bool) -> None:
        self.queue = queue
        self.engine = engine
        self.enabled = enabled  # False: its environment is DISABLED or missing
        self.mark: int | None = None  # the engine's timer mark at this request's start
        self.shared = False  # other job queues on its environment hold some of its capacity
        # a queue without quota shares over NUM_INSTANCES counts every instance as one unit
        self.count_all = not queue.quota_managed and NUM_INSTANCES in engine.queue.capacity

    def job(self, record: ServiceJob) -> Job:
        """The engine's view of a stored job of this queue."""
        return self.engine_job(record.job_id, engine_fields.engine_fields(record))

    def engine_job(self, job_id: str, fields: dict[str, Any]) -> Job:
        share = None if self.queue.quota_managed and fields["share"] else POOL
        if not self.queue.quota_managed:
            # a FIFO queue orders by submission time only: schedulingPriority counts on
            # quota-share and fair-share queues (SubmitServiceJob's API reference)
            fields = {**fields, "priority": 0}
        return engine_fields.engine_job(job_id, fields, share, count_all=self.count_all)


class Engines:
    """The engines of one ``Emulator``, by job queue seq."""

    def __init__(self, timing: Timing) -> None:
        self.timing = timing
        self._queues: dict[int, QueueState] = {}
        self._generation = -1

    def begin(self, generation: int) -> None:
        """A write transaction starts on the account at ``generation``."""
        if generation != self._generation:
            self._queues.clear()
        for state in self._queues.values():
            state.mark = None

    def committed(self, generation: int) -> None:
        self._generation = generation

    def clear(self) -> None:
        self._queues.clear()
        self._generation = -1

    def clear_queues(self) -> None:
        """Every queue's model may have changed (this request's writes are kept)."""
        self._queues.clear()

    def drop(self, queue_ref: int) -> None:
        self._queues.pop(queue_ref, None)

    def get(self, tx: Tx, queue_ref: int, now: float) -> QueueState | None:
        """The queue's engine (built from the stored jobs if need be); None if it is gone."""
        state = self._queues.get(queue_ref)
        if state is None:
            state = self._build(tx, queue_ref, now)
            if state is None:
                return None
            self._queues[queue_ref] = state
        if state.mark is None:
            state.mark = state.engine.timer_mark()
        return state

    def _build(self, tx: Tx, queue_ref: int, now: float) -> QueueState | None:
        queue = tx.record(JobQueue, queue_ref)
        if queue is None:
            return None
        live = tx.queued_and_active(queue_ref)
        model, enabled = model_of(tx, queue, {f["share"] for _, f in live if f["share"]})
        engine = QueueEngine(model, timing=self.timing)
        engine.now = now
        state = QueueState(queue, engine, enabled)
        engine.load(state.engine_job(job_id, fields) for job_id, fields in live)
        return state


def environment_groups(tx: Tx, refs: set[int]) -> list[list[int]]:
    """The job queues (seqs) to look at for ``refs``, one list per service environment, each
    in the order AWS evaluates queues on a shared environment: higher ``priority`` first
    (equal priorities: the queue created first). A queue on an environment that other queues
    share brings them all in, since capacity one frees may go to another.

    https://docs.aws.amazon.com/batch/latest/APIReference/API_JobQueueDetail.html: "Queues are
    evaluated in cycles, in descending order by priority."
    """
    if tx.count(JobQueue) <= 1:
        return [[ref] for ref in refs]
    queues = {q.seq: q for q in tx.records(JobQueue)}
    sharing: dict[str, list[JobQueue]] = {}
    for q in queues.values():
        if q.environment:
            sharing.setdefault(q.environment, []).append(q)
    groups, seen = [], set()
    for ref in sorted(refs):
        if ref in seen:
            continue
        queue = queues.get(ref)
        members = sharing.get(queue.environment, []) if queue and queue.environment else []
        group = [q.seq for q in sorted(members, key=lambda q: (-q.priority, q.seq))] or [ref]
        seen.update(group)
        groups.append(group)
    return groups


def share_capacity(state: QueueState, peers: list[QueueState]) -> None:
    """Give a queue what its environment's capacity leaves after the other queues on it (one
    ``maxCapacity`` for them all), just before its scheduling pass."""
    engine = state.engine
    if not peers and not state.shared:
        return
    state.shared = bool(peers)
    full = engine.queue.capacity
    for name in engine.capacity.types:
        held = sum(peer.engine.held(name) for peer in peers)
        engine.set_capacity(name, max(0, int(full.get(name, 0)) - held))


def model_of(tx: Tx, queue: JobQueue, job_shares: set[str]) -> tuple[QueueModel, bool]:
    """The engine's model of a queue, and whether its environment may start jobs.

    A queue without quota management is one RESERVE share over its environment's capacity.
    A share that is gone but still has jobs (they are terminated with it) runs nothing.
    """
    environment = tx.get(ServiceEnvironment, queue.environment) if queue.environment else None
    capacity = dict(environment.capacity) if environment else {}
    enabled = environment is not None and environment.state == State.ENABLED
    if not queue.quota_managed:
        if NUM_INSTANCES in capacity:
            capacity = {NUM_INSTANCES: capacity[NUM_INSTANCES]}
        return QueueModel(queue.name, capacity, (ShareModel(POOL, capacity),)), enabled
    records = tx.records(QuotaShare, parent=queue.name)
    shares = [
        ShareModel(
            name=s.name,
            limits=s.capacity,
            strategy=Strategy(s.strategy),
            borrow_limit=-1 if s.borrow_limit is None else s.borrow_limit,
            in_share_preemption=s.in_share_preemption == State.ENABLED,
            enabled=s.state == State.ENABLED,
        )
        for s in records
    ]
    known = {s.name for s in records}
    shares += [ShareModel(name, {}) for name in sorted(job_shares - known)]
    return QueueModel(queue.name, capacity, tuple(shares)), enabled
