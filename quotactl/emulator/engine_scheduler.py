"""The emulator's scheduler: the engine of SPEC §6 (``quotactl.core.engine``) behind the seam.

On each tick ``EngineScheduler`` turns one queue's ``QueueView`` into an engine ``QueueModel``
and a snapshot of ``Job`` values, runs one stateless ``engine.schedule`` pass at ``now`` and
hands its transitions back as decisions:

    SCHEDULED                                        -> Dispatch(job)
    RUNNABLE or FAILED with a preempted attempt      -> Preempt(job, the attempt's statusReason)
    RUNNABLE with a MISCONFIGURATION:... statusReason -> Hold(job, that reason)

Time stays with the emulator (``jobs``, ``tick``): phase steps, finishing, retries, and FAILED
once ``preemptionRetriesBeforeTermination`` is used up. The engine is told the same retry
budget, so that its pass plans with the jobs that really go back to the queue.

Where the emulator's model is wider than the engine's (one instance type per job, quota-managed
queues only):

- a queue without quota management is one RESERVE share over its environment's capacity
  (``NUM_INSTANCES`` counts every instance a job asks for);
- a job of several instance types (SageMaker ``InstanceGroups``) is one engine job per type,
  adjacent in its share's order. It starts only if all of them start in the same pass. If only
  some would, the pass runs again with the job standing still in its place: like any head job
  that cannot start, it holds back its share's later jobs, and nobody is preempted for it;
- a disabled or missing service environment starts and preempts nothing; jobs that can never
  run still show their MISCONFIGURATION reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core import engine
from quotactl.core.engine import Job, JobStatus, QueueModel, ShareModel
from quotactl.core.model import Strategy
from quotactl.emulator.models import NUM_INSTANCES
from quotactl.emulator.scheduling import Decision, Dispatch, Hold, Preempt

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.engine import Transition
    from quotactl.emulator.scheduling import JobView, QueueView

    Parts = list[tuple[JobView, list[Job]]]

POOL = "(queue)"
"""The one share standing for a queue without quota management."""


class EngineScheduler:
    """The emulator's ``Scheduler``: one stateless engine pass per queue and tick."""

    def schedule(self, queue: QueueView, now: float) -> Sequence[Decision]:
        model = queue_model(queue)
        views = sorted(queue.jobs, key=lambda j: j.order)
        waiting: set[str] = set()  # several-type jobs that cannot start whole in this pass
        holds: list[Decision] | None = None
        while True:
            parts = engine_jobs(queue, model, views, waiting)
            owner = {job.job_id: view.job_id for view, jobs in parts for job in jobs}
            transitions = engine.schedule(model, [job for _, jobs in parts for job in jobs], now)
            if holds is None:  # whether a job can ever run does not depend on the pass
                holds = _holds(transitions, owner)
            split = _started_in_part(transitions, parts)
            if not split:
                break
            waiting |= split
        if not queue.environment_enabled:
            return holds
        return [*holds, *_moves(transitions, owner)]


def queue_model(queue: QueueView) -> QueueModel:
    """The engine's model of a queue: its environment's capacity and its quota shares."""
    capacity = dict(queue.capacity)
    if not queue.quota_managed:
        return QueueModel(queue.name, capacity, (ShareModel(POOL, capacity),))
    shares = [
        ShareModel(
            name=s.name,
            limits=dict(s.limits),
            strategy=Strategy(s.strategy),
            borrow_limit=s.borrow_limit,
            in_share_preemption=s.in_share_preemption,
            enabled=s.enabled,
        )
        for s in queue.shares
    ]
    # The handlers terminate a deleted share's jobs; should one survive, it runs nowhere
    # rather than failing every request of the account.
    known = {s.name for s in queue.shares}
    orphans = {j.share for j in queue.jobs if j.share is not None and j.share not in known}
    shares += [ShareModel(name, {}) for name in sorted(orphans)]
    return QueueModel(queue.name, capacity, tuple(shares))


def engine_jobs(
    queue: QueueView, model: QueueModel, views: Sequence[JobView], waiting: set[str]
) -> Parts:
    """Each job as engine jobs, one per instance type, in submission order."""
    out: Parts = []
    for view in views:
        units = _units(queue, view)
        if view.job_id in waiting:
            # More than the environment holds: the engine keeps it in place, starting nothing.
            unit = next(iter(units))
            units = {unit: int(model.capacity.get(unit, 0)) + 1}
        many = len(units) > 1
        out.append(
            (
                view,
                [
                    Job(
                        job_id=f"{view.job_id}/{unit}" if many else view.job_id,
                        share=view.share if queue.quota_managed and view.share else POOL,
                        instance_type=unit,
                        count=count,
                        priority=view.priority,
                        submitted_at=view.submitted_at,
                        run_seconds=view.duration,
                        status=JobStatus(view.status),
                        status_since=view.started_at or view.submitted_at,
                        started_at=view.started_at,
                        preemption_retries=view.preemption_retries,
                        preemptions=view.preemptions,
                    )
                    for unit, count in units.items()
                ],
            )
        )
    return out


def _units(queue: QueueView, view: JobView) -> dict[str, int]:
    if not queue.quota_managed and NUM_INSTANCES in queue.capacity:
        return {NUM_INSTANCES: sum(view.capacity.values())}
    return dict(sorted(view.capacity.items()))


def _holds(transitions: Sequence[Transition], owner: dict[str, str]) -> list[Decision]:
    """Hold for every job the engine found misconfigured (its first part's reason)."""
    held: dict[str, Decision] = {}
    for tr in transitions:
        if tr.status is JobStatus.RUNNABLE and tr.preempted_attempt is None and tr.reason:
            held.setdefault(owner[tr.job_id], Hold(owner[tr.job_id], tr.reason))
    return list(held.values())


def _started_in_part(transitions: Sequence[Transition], parts: Parts) -> set[str]:
    """Queued several-type jobs of which the pass left some parts started and some not."""
    final = {tr.job_id: tr.status for tr in transitions}
    split = set()
    for view, jobs in parts:
        if len(jobs) > 1 and not view.active:
            started = [final.get(job.job_id) is JobStatus.SCHEDULED for job in jobs]
            if any(started) and not all(started):
                split.add(view.job_id)
    return split


def _moves(transitions: Sequence[Transition], owner: dict[str, str]) -> list[Decision]:
    """Dispatch and Preempt in the order the engine decided them; a job's parts move as one."""
    decisions: list[Decision] = []
    last: dict[str, type[Decision]] = {}
    for tr in transitions:
        job_id = owner[tr.job_id]
        decision: Decision
        if tr.status is JobStatus.SCHEDULED:
            decision = Dispatch(job_id)
        elif tr.preempted_attempt is not None:
            decision = Preempt(job_id, tr.preempted_attempt.status_reason)
        else:
            continue
        if last.get(job_id) is not type(decision):
            last[job_id] = type(decision)
            decisions.append(decision)
    return decisions
