"""The engine's scenario table through a real boto3 Batch client against the emulator (#4).

``tests/core/engine/test_engine_scenarios.py`` runs the same table against the engine
directly; here every step is an API call (``scenario_driver.py``) and every check is what
DescribeServiceJob, ListServiceJobs and GetJobQueueSnapshot report. (The file name differs
from the engine's because test modules share one namespace.)
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pytest

from quotactl.aws.session import Target, client, make_session
from quotactl.emulator import Emulator
from tests.conftest import TEST_TIMING
from tests.core.engine.engine_scenarios import (
    G5,
    M5,
    MISCONFIGURATION,
    NOTEBOOK,
    SCENARIOS,
    MisconfigCase,
    Scenario,
    SetPriority,
    Share,
    Submit,
)
from tests.emulator.conftest import Account, http_client
from tests.emulator.emulator_support import environment_status, payload, queue_status, wait_for
from tests.emulator.scenario_driver import ApiDriver, check_snapshot, play

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.emulator.emulator_support import Served

CROSS_SHARE = "Cross-share preemption triggered to reclaim borrowed capacity"  # AWS's text
IN_SHARE = "In-share preemption triggered by a higher-priority job"  # quotactl's (AWS: none)
MINUTE = 60_000  # epoch milliseconds, as on the wire


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_scenario_plays_out_through_the_batch_api_as_documented(
    inproc: Account, scenario: Scenario
) -> None:
    play(ApiDriver(inproc, scenario), scenario)


def test_the_sdk_notebook_plays_out_the_same_over_http(
    served: Served, names: Callable[[str], str]
) -> None:
    client = http_client(served.url)
    try:
        account = Account(client, "http", served.state)
        play(ApiDriver(account, NOTEBOOK, queue=names("notebook")), NOTEBOOK)
    finally:
        client.close()


@pytest.mark.parametrize("case", MISCONFIGURATION, ids=lambda c: c.id)
def test_misconfigured_job_stays_runnable_with_aws_reason_and_blocks_its_share(
    inproc: Account, case: MisconfigCase
) -> None:
    driver = ApiDriver(inproc, Scenario(case.id, case.environment, case.shares, ()))
    driver.submit(case.job)
    behind = Submit("behind", case.job.share, instance_type=next(iter(case.shares[0].limits)))
    driver.submit(behind)
    driver.advance(86_400)
    jobs = driver.settle()
    stuck = jobs[case.job.name]
    assert (stuck["status"], stuck["statusReason"]) == ("RUNNABLE", case.reason)
    assert jobs["behind"]["status"] == "RUNNABLE"
    assert driver.listed()[case.job.name] == ("RUNNABLE", case.reason)
    check_snapshot(driver.snapshot(), jobs, list(driver.arns), case.id)


def test_the_notebook_jobs_report_attempts_and_preemptions_as_aws_does(inproc: Account) -> None:
    driver = ApiDriver(inproc, NOTEBOOK)
    update = next(i for i, s in enumerate(NOTEBOOK.steps) if isinstance(s, SetPriority))
    play(driver, replace(NOTEBOOK, steps=NOTEBOOK.steps[: update + 1]))
    jobs = driver.settle()
    high, med, low, qs2 = (
        jobs[n] for n in ("qs1_job_high", "qs1_job_med", "qs1_job_low", "qs2_job_1")
    )

    # qs2_job_1 took back QS2's instance from med at the moment it arrived.
    assert (med["status"], med["statusReason"]) == ("RUNNABLE", CROSS_SHARE)
    assert med["capacityUsage"] == [{"capacityUnit": G5, "quantity": 1.0}]
    [attempt] = med["attempts"]
    assert med["preemptionSummary"] == {
        "preemptedAttemptCount": 1,
        "recentPreemptedAttempts": [attempt],
    }
    assert attempt["statusReason"] == CROSS_SHARE
    assert attempt["startedAt"] <= attempt["stoppedAt"] == qs2["scheduledAt"]
    # Raising low to 4 displaced high on QS1's own instance, in the same instant.
    assert (high["status"], high["statusReason"]) == ("RUNNABLE", IN_SHARE)
    assert high["preemptionSummary"]["recentPreemptedAttempts"][0]["statusReason"] == IN_SHARE
    assert low["status"] == "RUNNING"
    assert low["schedulingPriority"] == 4
    assert low["scheduledAt"] == high["attempts"][0]["stoppedAt"]
    snapshot = driver.snapshot()
    assert snapshot["frontOfQuotaShares"]["quotaShares"] == {
        "QS1": [{"jobArn": high["jobArn"], "earliestTimeAtPosition": low["scheduledAt"]}]
    }

    driver.advance(3600)
    jobs = driver.settle()
    high, med, low, qs2 = (
        jobs[n] for n in ("qs1_job_high", "qs1_job_med", "qs1_job_low", "qs2_job_1")
    )
    for job in jobs.values():
        assert job["status"] == "SUCCEEDED"
        assert job["stoppedAt"] - job["startedAt"] == 5 * MINUTE  # its 300 s, from the tag
        assert job["latestAttempt"]["serviceResourceId"] == job["attempts"][-1]["serviceResourceId"]
    assert [len(j["attempts"]) for j in (high, med, low, qs2)] == [2, 2, 1, 1]
    assert med["preemptionSummary"]["preemptedAttemptCount"] == 1
    # When low and qs2_job_1 finished, high got QS1's instance back and med borrowed QS2's.
    assert high["scheduledAt"] == low["stoppedAt"]
    assert med["scheduledAt"] == qs2["stoppedAt"]


def test_local_advance_hands_freed_capacity_on_at_the_moment_it_is_freed(
    inproc: Account, cli: Callable[..., Any]
) -> None:
    scenario = Scenario(
        "time-order",
        {G5: 3},
        (
            Share("X", {G5: 1}, "LEND_AND_BORROW", 100),
            Share("Y", {G5: 1}, "LEND"),
            Share("Z", {G5: 1}, "RESERVE"),
        ),
        (),
    )
    driver = ApiDriver(inproc, scenario)
    driver.submit(Submit("y1", "Y", duration=600))
    driver.submit(Submit("x1", "X", duration=1800))
    driver.submit(Submit("x2", "X", duration=1500))  # must borrow: Y is busy, Z never lends
    driver.submit(Submit("x3", "X", duration=600))
    start = driver.settle()["y1"]["startedAt"]
    result = cli("--state", str(inproc.state), "local", "advance", "2h")
    assert result.exit_code == 0, result.stderr
    jobs = driver.settle()
    assert {n: j["status"] for n, j in jobs.items()} == dict.fromkeys(jobs, "SUCCEEDED")
    # y1 ends at 10 min and x2 borrows Y's instance then; x1 ends at 30 min and x3 starts then.
    # (The driver submits a millisecond apart: x1 starts 1 ms after y1.)
    x1 = jobs["x1"]["startedAt"]
    assert jobs["x2"]["scheduledAt"] == jobs["y1"]["stoppedAt"] == start + 10 * MINUTE
    assert jobs["x3"]["scheduledAt"] == jobs["x1"]["stoppedAt"] == x1 + 30 * MINUTE
    assert jobs["x2"]["stoppedAt"] == start + 35 * MINUTE
    assert jobs["x3"]["stoppedAt"] == x1 + 40 * MINUTE


def instance_groups(*groups: tuple[str, int]) -> str:
    """A heterogeneous-cluster CreateTrainingJob request (ResourceConfig.InstanceGroups)."""
    request = json.loads(payload())
    request["ResourceConfig"] = {
        "InstanceGroups": [
            {"InstanceGroupName": f"g{i}", "InstanceType": t, "InstanceCount": n}
            for i, (t, n) in enumerate(groups)
        ],
        "VolumeSizeInGB": 30,
    }
    return json.dumps(request)


def test_a_job_of_several_instance_types_starts_only_when_all_of_them_can(
    inproc: Account,
) -> None:
    scenario = Scenario("groups", {G5: 1, M5: 1}, (Share("A", {G5: 1, M5: 1}),), ())
    driver = ApiDriver(inproc, scenario)
    driver.submit(Submit("first", "A", instance_type=M5, duration=600))
    client = inproc.client
    hetero = client.submit_service_job(
        jobName="hetero",
        jobQueue="q",
        serviceJobType="SAGEMAKER_TRAINING",
        serviceRequestPayload=instance_groups((G5, 1), (M5, 1)),
        quotaShareName="A",
        tags={"quotactl:duration": "10m"},
    )
    driver.arns["hetero"] = hetero["jobArn"]
    driver.submit(Submit("gpu", "A", duration=600))
    jobs = driver.settle()
    # The free ml.g5.xlarge is not taken: hetero waits whole and holds back gpu behind it.
    assert {n: j["status"] for n, j in jobs.items()} == {
        "first": "RUNNING",
        "hetero": "RUNNABLE",
        "gpu": "RUNNABLE",
    }
    assert jobs["hetero"].get("statusReason") is None
    check_snapshot(driver.snapshot(), jobs, list(driver.arns), "before")
    driver.advance(600)
    jobs = driver.settle()
    assert [jobs[n]["status"] for n in ("first", "hetero", "gpu")] == [
        "SUCCEEDED",
        "RUNNING",
        "RUNNABLE",
    ]
    usage = driver.snapshot()["queueUtilization"]["totalCapacityUsage"]
    assert usage == [
        {"capacityUnit": G5, "quantity": 1.0},
        {"capacityUnit": M5, "quantity": 1.0},
    ]
    driver.advance(600)
    assert driver.settle()["gpu"]["status"] == "RUNNING"


def test_a_disabled_environment_starts_nothing_but_misconfigured_jobs_say_why(
    inproc: Account,
) -> None:
    scenario = Scenario("disabled", {G5: 2}, (Share("A", {G5: 2}), Share("B", {G5: 2})), ())
    driver = ApiDriver(inproc, scenario)
    client = inproc.client
    client.update_service_environment(serviceEnvironment="q-env", state="DISABLED")
    wait_for(lambda: environment_status(client, "q-env"), "VALID")
    driver.submit(Submit("fits", "A"))
    driver.submit(Submit("huge", "B", count=3))
    jobs = driver.settle()
    assert (jobs["fits"]["status"], jobs["fits"].get("statusReason")) == ("RUNNABLE", None)
    assert jobs["huge"]["statusReason"].startswith(
        "MISCONFIGURATION:SERVICE_ENVIRONMENT_MAX_RESOURCE"
    )
    client.update_service_environment(serviceEnvironment="q-env", state="ENABLED")
    assert driver.settle()["fits"]["status"] == "RUNNING"


def test_a_queue_without_quota_shares_runs_its_jobs_first_in_first_out(inproc: Account) -> None:
    client = inproc.client
    client.create_service_environment(
        serviceEnvironmentName="pool",
        serviceEnvironmentType="SAGEMAKER_TRAINING",
        capacityLimits=[{"capacityUnit": "NUM_INSTANCES", "maxCapacity": 2}],
    )
    wait_for(lambda: environment_status(client, "pool"), "VALID")
    client.create_job_queue(
        jobQueueName="fifo",
        priority=1,
        serviceEnvironmentOrder=[{"order": 1, "serviceEnvironment": "pool"}],
        jobQueueType="SAGEMAKER_TRAINING",
    )
    wait_for(lambda: queue_status(client, "fifo"), "VALID")
    bodies = {"two": payload(M5, 2), "one": payload(G5, 1), "three": payload(G5, 3)}
    arns = {}
    for name, body in bodies.items():
        arns[name] = client.submit_service_job(
            jobName=name,
            jobQueue="fifo",
            serviceJobType="SAGEMAKER_TRAINING",
            serviceRequestPayload=body,
        )["jobArn"]
        inproc.advance(0.001)  # in submission order: the same millisecond would go by job ID
    for _ in range(4):
        client.list_service_jobs(jobQueue="fifo")
    seen = {n: client.describe_service_job(jobId=a) for n, a in arns.items()}
    # NUM_INSTANCES counts every instance, whatever its type: two fill the pool.
    assert [seen[n]["status"] for n in bodies] == ["RUNNING", "RUNNABLE", "RUNNABLE"]
    assert seen["three"]["statusReason"].startswith(
        "MISCONFIGURATION:SERVICE_ENVIRONMENT_MAX_RESOURCE"
    )
    inproc.advance(300)
    for _ in range(3):
        client.list_service_jobs(jobQueue="fifo")
    assert client.describe_service_job(jobId=arns["one"])["status"] == "RUNNING"


def test_a_running_clock_hands_freed_capacity_on_at_the_moment_it_is_freed(
    tmp_path: Path,
) -> None:
    """`local serve --speed`: events that fell due between two requests happen at their own
    times, not at the time of the next request."""
    wall = [1_800_000_000.0]
    target = Target(backend="local", state_path=tmp_path / "state.db", timing=TEST_TIMING)
    with Emulator(target.state_path, wall=lambda: wall[0], timing=TEST_TIMING) as emulator:
        batch = client(target, session=make_session(target, emulator=emulator))
        driver = ApiDriver(
            Account(batch, "inproc", target.state_path),
            Scenario("clock", {G5: 1}, (Share("A", {G5: 1}),), ()),
        )
        driver.submit(Submit("first", "A", duration=600))
        driver.submit(Submit("second", "A", duration=600))
        start = driver.settle()["first"]["startedAt"]
        emulator.set_speed(1.0)
        wall[0] += 3600
        jobs = driver.settle()
        batch.close()
    assert jobs["first"]["stoppedAt"] == jobs["second"]["scheduledAt"] == start + 10 * MINUTE
    assert jobs["second"]["stoppedAt"] == start + 20 * MINUTE


def test_a_job_dispatched_again_reports_the_times_of_its_new_attempt(inproc: Account) -> None:
    driver = ApiDriver(inproc, NOTEBOOK)
    reclaimed = next(
        i for i, s in enumerate(NOTEBOOK.steps) if isinstance(s, Submit) and s.share == "QS2"
    )
    play(driver, replace(NOTEBOOK, steps=NOTEBOOK.steps[: reclaimed + 1]))
    assert driver.settle()["qs1_job_med"]["status"] == "RUNNABLE"
    inproc.client.terminate_service_job(jobId=driver.arns["qs2_job_1"], reason="done with it")
    med = driver.describe("qs1_job_med")  # borrowing QS2's instance again, not started yet
    stopped = driver.describe("qs2_job_1")["stoppedAt"]
    assert (med["status"], med["scheduledAt"]) == ("SCHEDULED", stopped)
    assert "startedAt" not in med
    assert len(med["attempts"]) == 2
    assert med["latestAttempt"]["serviceResourceId"] == med["attempts"][1]["serviceResourceId"]
    started = driver.settle()["qs1_job_med"]
    assert started["status"] == "RUNNING"
    assert started["startedAt"] >= started["scheduledAt"]


def test_a_job_that_fits_after_its_share_grows_loses_its_misconfiguration_reason(
    inproc: Account,
) -> None:
    driver = ApiDriver(inproc, Scenario("grow", {G5: 4}, (Share("A", {G5: 1}),), ()))
    driver.submit(Submit("small", "A", duration=3600))
    driver.submit(Submit("big", "A", count=2))
    assert driver.settle()["big"]["statusReason"] == (
        "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED - Job requirements exceed quota share "
        "capacity limits."
    )
    driver.set_limits("A", {G5: 2})
    jobs = driver.settle()  # big now fits the share, once small is done
    assert (jobs["big"]["status"], jobs["big"].get("statusReason")) == ("RUNNABLE", None)
    driver.advance(3600)
    assert driver.settle()["big"]["status"] == "RUNNING"
