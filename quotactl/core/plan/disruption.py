"""The disruption guard: apply refuses a plan that would disturb work in progress.

A plan disrupts a job when one of its changes would terminate it or expose it to preemption
while it holds instances (SCHEDULED, STARTING or RUNNING): deleting or replacing its share or
queue (AWS eventually terminates the jobs), lowering its share's limit below the share's usage
(the excess counts as borrowed, and the jobs covering it in the engine's victim order,
lowest priority then most recently started, are the first victims), and disabling its share
or queue. AWS documents that a DISABLED share or queue lets submitted jobs finish, but not
whether its running jobs keep their claim against preemption, nor whether a preempted one
can start again in a share that takes no jobs; quotactl counts them as disrupted and lets
``--allow-disruption`` decide. Queued jobs (SUBMITTED, RUNNABLE)
are listed in the plan's runtime impact but do not count: nothing they hold is lost.

``apply`` evaluates the plan against the jobs live at apply time (``reassess``), not those
read when the plan was made, so a saved plan whose jobs started since is refused too.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from quotactl.core.plan.impact import assess
from quotactl.core.plan.model import Effect
from quotactl.core.states import HOLDING, JobStatus
from quotactl.core.words import count_of
from quotactl.errors import DisruptionNotAllowedError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.backend import StateReader
    from quotactl.core.plan.model import AffectedJob, Plan
    from quotactl.core.resources.observed import LiveJob

DISRUPTING = (Effect.TERMINATED, Effect.PREEMPTIBLE, Effect.DISABLED)


@dataclass(frozen=True)
class DisruptedJob:
    """One active job and the first change of the plan that disrupts it."""

    address: str
    effect: Effect
    job: AffectedJob


def disrupted_jobs(plan: Plan) -> tuple[DisruptedJob, ...]:
    """The active jobs the plan's runtime impact names, each once, RUNNING first."""
    found: dict[str, DisruptedJob] = {}
    for change in plan.changes:
        for impact in change.impact:
            if impact.effect not in DISRUPTING:
                continue
            for job in impact.jobs:
                if job.status in HOLDING and job.job_id not in found:
                    found[job.job_id] = DisruptedJob(change.address, impact.effect, job)
    rank: dict[str, int] = {JobStatus.RUNNING: 0, JobStatus.STARTING: 1, JobStatus.SCHEDULED: 2}
    return tuple(sorted(found.values(), key=lambda d: (rank.get(d.job.status, 3), d.address)))


def counts(disrupted: Sequence[DisruptedJob]) -> dict[str, int]:
    """``{"jobs": n, "terminated": n, "preemptible": n, "disabled": n}``."""
    out = {"jobs": len(disrupted)}
    for effect in DISRUPTING:
        out[effect.value] = sum(1 for d in disrupted if d.effect is effect)
    return out


def reassess(plan: Plan, jobs: Sequence[LiveJob]) -> Plan:
    """The same plan with its runtime impact evaluated against ``jobs`` (read just now)."""
    changes = tuple(
        replace(c, impact=assess(c.action, c.before, c.after, jobs)) for c in plan.changes
    )
    return replace(plan, changes=changes)


def check(plan: Plan, *, allow: bool, max_jobs: int | None) -> tuple[DisruptedJob, ...]:
    """Raise ``disruption-not-allowed`` unless the flags let the plan's disruption through."""
    disrupted = disrupted_jobs(plan)
    if not disrupted or allow or (max_jobs is not None and len(disrupted) <= max_jobs):
        return disrupted
    shown = ", ".join(
        f"{d.job.name} ({d.job.job_id}, {d.job.status}, {d.address}: {d.effect.value})"
        for d in disrupted[:10]
    )
    more = f" and {len(disrupted) - 10} more" if len(disrupted) > 10 else ""
    limit = f" (more than --max-disruption {max_jobs})" if max_jobs is not None else ""
    raise DisruptionNotAllowedError(
        f"the plan would terminate or expose to preemption {count_of(len(disrupted), 'active job')}"
        f"{limit}: {shown}{more}; nothing was changed",
        hint="wait for those jobs to finish, or re-run with --allow-disruption"
        f" (or --max-disruption {len(disrupted)})",
    )


def guard(plan: Plan, reader: StateReader, *, allow: bool, max_jobs: int | None) -> None:
    """Apply's precondition: judge ``plan`` on the jobs live now (read here, under the lock)
    and raise ``disruption-not-allowed`` unless the flags let it through."""
    if allow:
        return
    queues = plan.queues_at_risk()
    if queues:
        check(reassess(plan, reader.live_jobs(sorted(queues))), allow=False, max_jobs=max_jobs)
