"""What the disruption guard counts: jobs holding instances, each once, RUNNING first."""

from __future__ import annotations

import pytest

from quotactl.core.plan.disruption import check, counts, disrupted_jobs
from quotactl.core.plan.model import Action, AffectedJob, Change, Effect, Impact, Plan
from quotactl.core.resources.observed import Kind
from quotactl.errors import DisruptionNotAllowedError
from tests.core.plan_support import share

P5 = "ml.p5.48xlarge"


def job(job_id: str, status: str) -> AffectedJob:
    return AffectedJob(job_id, f"name-{job_id}", "nlp", status, {P5: 1})


def plan_with(*impacts: Impact) -> Plan:
    spec = share("nlp", capacity={P5: 4})
    change = Change(Kind.SHARE, Action.DELETE, spec, None, arn="arn:x", impact=impacts)
    return Plan("demo", "us-east-1", None, (change,), "sha256:x")


def test_jobs_holding_instances_count_once_and_queued_ones_not_at_all() -> None:
    plan = plan_with(
        Impact(Effect.PREEMPTIBLE, "m", (job("s", "SCHEDULED"), job("r", "RUNNING"))),
        Impact(Effect.TERMINATED, "m", (job("r", "RUNNING"), job("q", "RUNNABLE"))),
    )
    disrupted = disrupted_jobs(plan)
    assert [d.job.job_id for d in disrupted] == ["r", "s"]  # RUNNING first
    assert counts(disrupted) == {"jobs": 2, "terminated": 0, "preemptible": 2, "disabled": 0}


@pytest.mark.parametrize(
    ("allow", "max_jobs", "refused"),
    [(False, None, True), (True, None, False), (False, 1, True), (False, 2, False)],
)
def test_flags_let_a_plan_through(allow: bool, max_jobs: int | None, refused: bool) -> None:
    plan = plan_with(Impact(Effect.DISABLED, "m", (job("a", "RUNNING"), job("b", "STARTING"))))
    if refused:
        with pytest.raises(DisruptionNotAllowedError, match="2 active job"):
            check(plan, allow=allow, max_jobs=max_jobs)
    else:
        assert len(check(plan, allow=allow, max_jobs=max_jobs)) == 2
