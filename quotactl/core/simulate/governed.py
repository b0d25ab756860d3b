"""A governed replay: the configuration's schedules, budgets and aging applied on the virtual
clock, as ``quotactl govern`` applies them to an account.

At every cadence tick (second 0, then every ``Governance.every`` seconds of the trace) the
replay asks the one decision function, ``quotactl.core.govern.decide``, what the policies
require, with the shares' live settings, the instances their jobs hold, the waiting jobs and
the budgets' usage (``budget_usage`` over the instance-hours the replay's jobs held). Order at
a tick, as on an account: the events due (lifecycle timers, arrivals), a scheduling pass, then
each action in the decision's order with a pass after it.

An action reaches the engine the way the emulator's API calls do: UpdateServiceJob moves a
job in its share's order (``QueueEngine.reprioritise``); UpdateQuotaShare gives the queue a
new model, and the emulator then rebuilds the queue's engine from its live jobs
(``QueueEngine.load``), which ``rebuild`` does here too, keeping the replay's meters. One
engine decides everything: nothing here schedules.

A trace job submitted while its share is DISABLED (a hard budget, a window's ``enabled:
false``) is refused, as AWS refuses the SubmitServiceJob: it is counted per share as
``refused``, never submitted and never dropped silently.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from quotactl.core.engine import TIMING, Job, QueueEngine, Timing
from quotactl.core.engine.state import EngineState
from quotactl.core.govern import (
    Action,
    ActionKind,
    GovernedJob,
    GovernedShare,
    decide as decide_cycle,
)
from quotactl.core.govern.usage import Held, budget_usage, period_start
from quotactl.core.resources.attributes import attributes, spec_from_attributes
from quotactl.core.resources.desired import ShareSpec as ShareSpecType
from quotactl.core.resources.observed import Kind
from quotactl.core.simulate.metered import MeteredEngine, RecordingEngine, _merged
from quotactl.core.states import JobStatus

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from quotactl.core.engine import PreemptedAttempt, QueueModel
    from quotactl.core.resources.desired import DesiredState, ShareSpec

EVERY = 300.0
"""The governor's default cadence: a cycle every 5 minutes."""


@dataclass(frozen=True)
class Governance:
    """How a replay applies the configuration's policies: its desired state, the instant of
    the trace's second 0, the cadence (seconds) and whether a disrupting lowering is applied
    at once (``--govern-allow-disruption``)."""

    desired: DesiredState
    start: datetime
    every: float = EVERY
    allow_disruption: bool = False


@dataclass(frozen=True)
class Taken:
    """One action a governed replay took, at ``at`` seconds into the trace."""

    at: float
    action: Action


def next_monday(now: datetime) -> datetime:
    """The next Monday 00:00 UTC after ``now`` (a trace's second 0 when none is given)."""
    midnight = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return midnight + timedelta(days=7 - midnight.weekday())


def governs(desired: DesiredState) -> bool:
    """Whether the configuration declares any policy a governed replay applies."""
    return (
        any(share.schedule for share in desired.shares)
        or any(team.budget for team in desired.teams)
        or any(queue.aging for queue in desired.queues)
    )


def hooked(engine: type[MeteredEngine]) -> type[MeteredEngine]:
    """The engine class a governed replay runs: ``engine`` that also logs the instances each
    attempt held (what a budget counts)."""
    return _GOVERNED[engine]


class Log:
    """What the replay's jobs held: closed intervals, and the open ones by job; ``start`` is
    the instant of the trace's second 0 (the governor sets it)."""

    def __init__(self) -> None:
        self.closed: list[Held] = []
        self.open: dict[int, Held] = {}
        self.start = _EPOCH


class GovernedMetered(MeteredEngine):
    __slots__ = ("log",)

    def __init__(self, queues: Sequence[QueueModel], timing: Timing = TIMING) -> None:
        super().__init__(queues, timing)
        self.log = Log()

    def _started(self, job: Job, borrowed: int) -> None:
        MeteredEngine._started(self, job, borrowed)
        opened(self.log, job, self.now + self.startup)

    def _preempted(self, job: Job, attempt: PreemptedAttempt) -> None:
        MeteredEngine._preempted(self, job, attempt)
        closed(self.log, job, attempt.stopped_at)

    def _finished(self, job: Job) -> None:
        MeteredEngine._finished(self, job)
        closed(self.log, job, self.now)


class GovernedRecording(RecordingEngine):
    __slots__ = ("log",)

    def __init__(self, queues: Sequence[QueueModel], timing: Timing = TIMING) -> None:
        super().__init__(queues, timing)
        self.log = Log()

    def _started(self, job: Job, borrowed: int) -> None:
        RecordingEngine._started(self, job, borrowed)
        opened(self.log, job, self.now + self.startup)

    def _preempted(self, job: Job, attempt: PreemptedAttempt) -> None:
        RecordingEngine._preempted(self, job, attempt)
        closed(self.log, job, attempt.stopped_at)

    def _finished(self, job: Job) -> None:
        RecordingEngine._finished(self, job)
        closed(self.log, job, self.now)


def opened(log: Log, job: Job, now: float) -> None:
    """``job``'s attempt holds its instances from ``now``: its ``startedAt`` (the end of
    SCHEDULED), where the governor counts an account's attempts from; one stopped before it
    (preempted while SCHEDULED) counts nothing."""
    queue, _, share = job.share.partition("/")
    itype = job.instance_type.split("/", 1)[1]
    start = log.start + timedelta(seconds=now)
    log.open[id(job)] = Held(f"share.{queue}/{share}", itype, job.count, start)


def closed(log: Log, job: Job, now: float) -> None:
    held = log.open.pop(id(job), None)
    if held is not None:
        log.closed.append(replace(held, end=log.start + timedelta(seconds=now)))


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class Governor:
    """The governor of one replay: the shares' live settings and tags, the jobs' base
    priorities, what was refused and every action taken."""

    def __init__(
        self,
        governance: Governance,
        queues: Sequence[QueueModel],
        engines: Sequence[MeteredEngine],
        settle: Callable[[float], None],
    ) -> None:
        self.governance = governance
        self.desired = governance.desired
        self.queues = tuple(queues)
        self.engines = tuple(engines)
        self.settle = settle
        # each queue's engine (one for all, or one per queue)
        self.engine_of = {
            q.name: engines[0 if len(engines) == 1 else i] for i, q in enumerate(queues)
        }
        configured = {share.address: share for share in self.desired.shares}
        self.live: dict[str, ShareSpec] = dict(configured)
        self.enabled = {
            f"{q.name}/{s.name}": s.enabled and configured[_address(q.name, s.name)].enabled
            for q in queues
            for s in q.shares
            if _address(q.name, s.name) in configured
        }
        self.base: dict[int, int] = {}  # id(job) -> its base priority, once aging raised it
        self.refused: dict[str, int] = {}
        self.taken: list[Taken] = []
        self.budgets = any(team.budget for team in self.desired.teams)
        self._seen: dict[int, tuple[Job, tuple[object, ...], GovernedJob]] = {}
        self._keys = 0
        self.aging = {queue.name for queue in self.desired.queues if queue.aging is not None}
        for engine in engines:
            log: Log | None = getattr(engine, "log", None)
            if log is not None:
                log.start = governance.start

    def instant(self, seconds: float) -> datetime:
        return self.governance.start + timedelta(seconds=seconds)

    def takes(self, share: str) -> bool:
        """Whether ``queue/share`` takes a new job now; a refusal is counted."""
        if self.enabled.get(share, True):
            return True
        self.refused[share] = self.refused.get(share, 0) + 1
        return False

    def tick(self, at: float) -> None:
        """One governor cycle at ``at`` seconds: decide, then apply each action with a pass
        after it."""
        now = self.instant(at)
        jobs: dict[str, Job] = {}
        governed_jobs = []
        if self.aging:  # only aging reads jobs
            for engine in self.engines:
                for job in engine.jobs():
                    if job.share.split("/", 1)[0] in self.aging:
                        seen = self._job(job)
                        jobs[seen.job_id] = job
                        governed_jobs.append(seen)
            # forget the jobs that ended
            self._seen = {id(job): self._seen[id(job)] for job in jobs.values()}
            self.base = {
                id(job): self.base[id(job)] for job in jobs.values() if id(job) in self.base
            }
        decision = decide_cycle(
            self.desired,
            now,
            [self._share(address) for address in sorted(self.live)],
            governed_jobs,
            self._usage(now) if self.budgets else None,
            allow_disruption=self.governance.allow_disruption,
        )
        for action in decision.actions:
            if action.kind == ActionKind.UPDATE_SHARE:
                self._update_share(action, at)
            else:
                job = jobs[action.address.removeprefix("job.")]
                self.base.setdefault(id(job), job.priority)
                self.engine_of[job.share.split("/", 1)[0]].reprioritise(
                    job, int(action.after["priority"])
                )
            self.taken.append(Taken(at, replace(action, address=_named(action.address, jobs))))
            self.settle(at)

    def _job(self, job: Job) -> GovernedJob:
        """What aging sees of ``job``, under a key of its own for the replay (made again only
        when the job changed: every tick looks at every waiting job)."""
        seen = self._seen.get(id(job))
        state = (job.status, job.priority, job.status_since, job.window is None)
        if seen is not None and seen[0] is not job:  # another job at the same address
            self.base.pop(id(job), None)
            seen = None
        if seen is not None and seen[1] == state:
            return seen[2]
        if seen is not None:
            key = seen[2].job_id
        else:
            key = str(self._keys)
            self._keys += 1
        queue, _, share = job.share.partition("/")
        waiting = job.status is JobStatus.RUNNABLE and job.window is None
        made = GovernedJob(
            job_id=key,
            queue=queue,
            share=share,
            status=job.status,
            priority=job.priority,
            created_at=self.instant(job.submitted_at),
            runnable_since=self.instant(job.status_since) if waiting else None,
            base_priority=self.base.get(id(job)),
        )
        self._seen[id(job)] = (job, state, made)
        return made

    def _share(self, address: str) -> GovernedShare:
        spec = self.live[address]
        engine = self.engine_of[spec.queue]
        cap = engine.capacity
        s = cap.share_names.index(f"{spec.queue}/{spec.name}")
        in_use = {}
        for t, name in enumerate(cap.types):
            used = cap.usage[t * cap.S + s]
            if used:
                in_use[name.split("/", 1)[1]] = used
        return GovernedShare(spec, in_use)

    def _usage(self, now: datetime) -> dict[str, dict[str, float]]:
        since = min(
            period_start(team.budget.every, now) for team in self.desired.teams if team.budget
        )
        held: list[Held] = []
        for engine in self.engines:
            log: Log = engine.log  # type: ignore[attr-defined]
            if log.closed and log.closed[0].end is not None and log.closed[0].end <= since:
                # what ended before every budget's period counts no more
                log.closed = [h for h in log.closed if h.end is None or h.end > since]
            held += log.closed
            held += log.open.values()
        return budget_usage(self.desired, held, now)

    def _update_share(self, action: Action, at: float) -> None:
        spec = self.live[action.address]
        attrs = {**attributes(spec), **dict(action.after)}
        changed = spec_from_attributes(Kind.SHARE, spec.name, attrs)
        assert isinstance(changed, ShareSpecType)
        tags = {**spec.tags, **action.tags}
        for name in action.untag:
            tags.pop(name, None)
        updated = replace(
            spec,
            capacity=dict(changed.capacity),
            strategy=changed.strategy,
            borrow_limit=changed.borrow_limit,
            in_share_preemption=changed.in_share_preemption,
            enabled=changed.enabled,
            tags=tags,
        )
        self.live[action.address] = updated
        self.enabled[f"{spec.queue}/{spec.name}"] = updated.enabled
        if _model_fields(updated) != _model_fields(spec):
            self._rebuild(spec.queue, at)

    def _rebuild(self, queue: str, at: float) -> None:
        engine = self.engine_of[queue]
        models = tuple(self._model(q) for q in engine.queues)
        rebuild(engine, models, at)

    def _model(self, queue: QueueModel) -> QueueModel:
        shares = []
        for share in queue.shares:
            spec = self.live.get(_address(queue.name, share.name))
            if spec is None:
                shares.append(share)
                continue
            shares.append(
                replace(
                    share,
                    limits=dict(spec.capacity),
                    strategy=spec.strategy,
                    borrow_limit=spec.borrow_limit,
                    in_share_preemption=spec.in_share_preemption,
                )
            )
        return replace(queue, shares=tuple(shares))


def _model_fields(spec: ShareSpec) -> tuple[object, ...]:
    """What the engine's model takes of a share (enabled only decides who may submit)."""
    return (
        sorted(spec.capacity.items()),
        spec.strategy,
        spec.borrow_limit,
        spec.in_share_preemption,
    )


def _address(queue: str, share: str) -> str:
    return f"share.{queue}/{share}"


def _named(address: str, jobs: dict[str, Job]) -> str:
    """A job action's address by the job's name in the trace (``job.NAME``)."""
    if not address.startswith("job."):
        return address
    return f"job.{jobs[address.removeprefix('job.')].job_id}"


def rebuild(engine: MeteredEngine, queues: Sequence[QueueModel], at: float) -> None:
    """Give ``engine`` the settings of ``queues`` (its own queues, changed) at ``at``, as the
    emulator does after UpdateQuotaShare: a new engine state with the live jobs loaded
    (``QueueEngine.load``); what the replay measured so far is kept."""
    old = engine.capacity
    for k in range(len(old.usage)):  # bring the integrals up to now, at the rates until now
        old.change(k, k // old.S, 0, at)
    merged = _merged(queues)
    # the same instance types in the same order, so each (type, share) pair keeps its index
    order = {name: merged.capacity.get(name, 0) for name in old.types}
    merged = replace(merged, capacity={**order, **merged.capacity})
    fresh = QueueEngine(merged, timing=engine.timing, record=False, metered=True)
    fresh.now = at
    jobs = engine.jobs()
    unstarted = {id(job) for job in jobs if job._seq in engine.unstarted}
    fresh.load(jobs, dispatched=True)
    for name in _STATE:
        setattr(engine, name, getattr(fresh, name))
    meters, before = engine.capacity.meters, old.meters
    assert meters is not None
    assert before is not None
    for k in range(len(before.borrowed)):
        meters.borrowed[k] += before.borrowed[k]
        meters.lent[k] += before.lent[k]
    engine.unstarted = {job._seq for job in jobs if id(job) in unstarted}
    engine.now = at
    if isinstance(engine, RecordingEngine):
        engine.recorder._cap = engine.capacity


_STATE = tuple(
    name
    for name in EngineState.__slots__
    if name not in ("_time_limits", "timing", "transitions", "now")
)
"""The engine state a rebuild replaces (each share keeps its queue's runnable timeout)."""


_GOVERNED: dict[type[MeteredEngine], type[MeteredEngine]] = {
    MeteredEngine: GovernedMetered,
    RecordingEngine: GovernedRecording,
}
