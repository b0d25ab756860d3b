"""Runtime impact: which live jobs a change would stop or expose to preemption.

Computed from the jobs ListServiceJobs reported at plan time; for display only. The rules
follow AWS's documentation and docs/scheduling.md ("Lowered limits"):
- deleting or replacing a share or queue terminates all its jobs;
- disabling one refuses new jobs (AWS lets submitted jobs finish), so its jobs are listed;
- a share's usage above its new limit counts as borrowed: the jobs covering the excess, in
  the engine's victim order (lowest priority, then most recently started), are the first
  candidates for preemption.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.engine.order import victim_key
from quotactl.core.engine.reasons import PREEMPTION_IN_PROGRESS
from quotactl.core.plan.model import Action, AffectedJob, Effect, Impact
from quotactl.core.resources.desired import EnvironmentSpec, QueueSpec, ShareSpec
from quotactl.core.states import JobStatus

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.resources.observed import LiveJob, Spec


def assess(
    action: Action, before: Spec | None, after: Spec | None, jobs: Sequence[LiveJob]
) -> tuple[Impact, ...]:
    """The impacts of one change, given the live jobs of the resource it touches (for an
    environment: the jobs of the queue it serves)."""
    if isinstance(before, EnvironmentSpec) and isinstance(after, EnvironmentSpec):
        return tuple(_squeezed(after, jobs))
    if before is None or not isinstance(before, QueueSpec | ShareSpec):
        return ()
    what = "share" if isinstance(before, ShareSpec) else "queue"
    mine = [j for j in jobs if _belongs(j, before)]
    if action in (Action.DELETE, Action.REPLACE):
        if not mine:
            return ()
        verb = "deleting" if action is Action.DELETE else "replacing"
        return (
            Impact(
                Effect.TERMINATED,
                f"{verb} the {what} terminates {_count(mine)}",
                _affected(mine),
            ),
        )
    impacts: list[Impact] = []
    disabling = isinstance(after, QueueSpec | ShareSpec) and before.enabled and not after.enabled
    if disabling and mine:
        impacts.append(
            Impact(
                Effect.DISABLED,
                f"disabling the {what} refuses new jobs; {_count(mine)} may still finish",
                _affected(mine),
            )
        )
    if isinstance(before, ShareSpec) and isinstance(after, ShareSpec):
        impacts.extend(_lowered_limits(after, mine))
    return tuple(impacts)


def _lowered_limits(after: ShareSpec, jobs: Sequence[LiveJob]) -> list[Impact]:
    impacts: list[Impact] = []
    holding = [j for j in jobs if j.holds_instances]
    types = sorted({t for j in holding for t in j.instances})
    for itype in types:
        users = [j for j in holding if j.instances.get(itype, 0) > 0]
        usage = sum(j.instances[itype] for j in users)
        limit = after.capacity.get(itype, 0)
        if usage <= limit:
            continue
        # Jobs in their preemption window (PREEMPTION_IN_PROGRESS) are leaving already: they
        # cover the excess first, and the rest in the engine's one order (lowest priority,
        # then most recently started: docs/scheduling.md), until the excess is covered.
        leaving = [j for j in users if (j.status_reason or "").startswith(PREEMPTION_IN_PROGRESS)]
        excess = usage - limit - sum(j.instances[itype] for j in leaving)
        ordered = sorted(
            (j for j in users if j not in leaving),
            key=lambda j: victim_key(
                j.priority, j.scheduled_at or j.started_at, j.created_at, j.job_id
            ),
        )
        victims: list[LiveJob] = []
        covered = 0
        for job in ordered:
            if covered >= excess:
                break
            victims.append(job)
            covered += job.instances[itype]
        if not victims:
            continue
        impacts.append(
            Impact(
                Effect.PREEMPTIBLE,
                f"usage of {itype} is {usage}, above the new limit {limit}: "
                f"{_count(victims)} {'becomes' if len(victims) == 1 else 'become'} preemptible",
                _affected(victims),
            )
        )
    return impacts


def _squeezed(after: EnvironmentSpec, jobs: Sequence[LiveJob]) -> list[Impact]:
    """Capacity lowered below what is held: AWS terminates nothing; new jobs wait."""
    impacts: list[Impact] = []
    holding = [j for j in jobs if j.holds_instances]
    for itype in sorted({t for j in holding for t in j.instances}):
        users = [j for j in holding if j.instances.get(itype, 0) > 0]
        usage = sum(j.instances[itype] for j in users)
        capacity = after.capacity.get(itype, 0)
        if usage > capacity:
            impacts.append(
                Impact(Effect.SQUEEZED, squeezed_message(itype, usage, capacity), _affected(users))
            )
    return impacts


def squeezed_message(itype: str, usage: int, capacity: int) -> str:
    return (
        f"{usage} {itype} are in use, above the new capacity {capacity}: AWS terminates "
        "nothing; new jobs of that type wait until usage falls below it"
    )


def _belongs(job: LiveJob, spec: QueueSpec | ShareSpec) -> bool:
    if isinstance(spec, ShareSpec):
        return job.queue == spec.queue and job.share == spec.name
    return job.queue == spec.name


def _count(jobs: Sequence[LiveJob]) -> str:
    return f"{len(jobs)} job{'s' if len(jobs) != 1 else ''}"


_STATUS_ORDER = {
    JobStatus.RUNNING: 0,
    JobStatus.STARTING: 1,
    JobStatus.SCHEDULED: 2,
    JobStatus.RUNNABLE: 3,
    JobStatus.SUBMITTED: 4,
}


def _affected(jobs: Sequence[LiveJob]) -> tuple[AffectedJob, ...]:
    """Running work first (what a reviewer must not miss), then by share and name."""
    ordered = sorted(
        jobs, key=lambda j: (_STATUS_ORDER.get(j.status, 5), j.share or "", j.name, j.job_id)
    )
    return tuple(
        AffectedJob(j.job_id, j.name, j.share, j.status, dict(j.instances)) for j in ordered
    )
