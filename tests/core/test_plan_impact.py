"""Runtime impact: the plan names the live jobs each change stops or exposes."""

from __future__ import annotations

from quotactl.core.plan.diff import diff, make_plan
from quotactl.core.plan.document import from_document, to_document
from quotactl.core.plan.model import Effect
from tests.core.plan_support import desired, env, job, observed, policy, queue, share

BASE = (env(), policy(), queue())


def test_lowering_a_limit_below_usage_marks_the_newest_jobs_preemptible() -> None:
    jobs = [
        job("a", instances={"ml.g5.xlarge": 2}, started_at=100),
        job("b", instances={"ml.g5.xlarge": 1}, started_at=300),
        job("c", instances={"ml.g5.xlarge": 1}, started_at=200),
        job("d", status="RUNNABLE", instances={"ml.g5.xlarge": 4}),
    ]
    plan = diff(
        desired(*BASE, share(capacity={"ml.g5.xlarge": 2})),
        observed(*BASE, share(capacity={"ml.g5.xlarge": 4}), jobs=jobs),
    )
    (change,) = plan.changes
    (impact,) = change.impact
    assert impact.effect is Effect.PREEMPTIBLE
    assert [j.job_id for j in impact.jobs] == ["b", "c"]
    assert "usage of ml.g5.xlarge is 4, above the new limit 2" in impact.message


def test_lowering_a_limit_that_usage_fits_under_has_no_impact() -> None:
    plan = diff(
        desired(*BASE, share(capacity={"ml.g5.xlarge": 2})),
        observed(*BASE, share(capacity={"ml.g5.xlarge": 4}), jobs=[job("a")]),
    )
    assert plan.changes[0].impact == ()


def test_deleting_a_share_terminates_all_its_active_jobs() -> None:
    jobs = [job("a"), job("b", status="RUNNABLE"), job("c", share_name="other")]
    plan = diff(desired(*BASE), observed(*BASE, share(), jobs=jobs))
    (impact,) = plan.changes[0].impact
    assert impact.effect is Effect.TERMINATED
    assert [j.job_id for j in impact.jobs] == ["a", "b"]
    assert impact.message == "deleting the share terminates 2 jobs"


def test_disabling_a_queue_lists_its_jobs() -> None:
    jobs = [job("a"), job("b", share_name="cv")]
    plan = diff(desired(env(), policy(), queue(enabled=False)), observed(*BASE, jobs=jobs))
    (impact,) = plan.changes[0].impact
    assert impact.effect is Effect.DISABLED
    assert len(impact.jobs) == 2


def test_replacing_a_moved_share_terminates_its_jobs() -> None:
    extra = (env("gpu2"), policy("inference"), queue("inference", "gpu2"))
    plan = diff(
        desired(*BASE, *extra, share(queue="inference")),
        observed(*BASE, *extra, share(), jobs=[job("a")]),
    )
    (impact,) = plan.changes[0].impact
    assert impact.effect is Effect.TERMINATED
    assert impact.message == "replacing the share terminates 1 job"


def test_jobs_are_read_only_for_queues_a_change_disturbs() -> None:
    from tests.core.plan_support import MemoryBackend

    backend = MemoryBackend()
    backend.seed(*BASE, share())
    backend.jobs = [job("a")]
    make_plan(desired(*BASE, share()), backend)
    assert backend.count("live_jobs") == 0
    plan = make_plan(desired(*BASE), backend)
    assert backend.calls[-1] == ("live_jobs", "training")
    assert plan.changes[0].impact[0].jobs[0].job_id == "a"


def test_plan_document_round_trips() -> None:
    jobs = [job("a", instances={"ml.g5.xlarge": 4})]
    extra = (env("gpu2"), policy("inference"), queue("inference", "gpu2"))
    plan = diff(
        desired(*BASE, *extra, share(queue="inference", capacity={"ml.g5.xlarge": 1})),
        observed(*BASE, *extra, share(), share("old"), jobs=jobs),
    )
    assert from_document(to_document(plan)) == plan


def test_an_impact_lists_running_jobs_first() -> None:
    jobs = [
        job("queued", status="RUNNABLE"),
        job("starting", status="STARTING"),
        job("running", status="RUNNING"),
        job("scheduled", status="SCHEDULED"),
    ]
    plan = diff(desired(*BASE), observed(*BASE, share(), jobs=jobs))
    (change,) = plan.changes
    (impact,) = change.impact
    assert [j.job_id for j in impact.jobs] == ["running", "starting", "scheduled", "queued"]
