"""The emulated account runs job queues as AWS does: queues sharing one service environment,
one queue per quota-management environment, FIFO order, and fair-share queues
accepted and run in submission order."""

from __future__ import annotations

import os
import subprocess
from typing import TYPE_CHECKING, Any

import pytest
from botocore.exceptions import ClientError
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.emulator.emulator_support import (
    POLICY,
    Served,
    environment_status,
    inprocess_client,
    make_queue,
    payload,
    queue_status,
    wait_for,
)

if TYPE_CHECKING:
    from pathlib import Path

HOLDING = {"SCHEDULED", "STARTING", "RUNNING"}


def fifo_environment(client: Any, name: str, instances: int) -> None:
    client.create_service_environment(
        serviceEnvironmentName=name,
        serviceEnvironmentType="SAGEMAKER_TRAINING",
        capacityLimits=[{"capacityUnit": "NUM_INSTANCES", "maxCapacity": instances}],
    )
    wait_for(lambda: environment_status(client, name), "VALID")


def fifo_queue(client: Any, name: str, environment: str, priority: int = 1) -> None:
    client.create_job_queue(
        jobQueueName=name,
        priority=priority,
        serviceEnvironmentOrder=[{"order": 1, "serviceEnvironment": environment}],
        jobQueueType="SAGEMAKER_TRAINING",
    )
    wait_for(lambda: queue_status(client, name), "VALID")


def submit(client: Any, name: str, queue: str, **extra: Any) -> str:
    job_id: str = client.submit_service_job(
        jobName=name,
        jobQueue=queue,
        serviceJobType="SAGEMAKER_TRAINING",
        serviceRequestPayload=payload(max_runtime=extra.pop("runtime", 600)),
        **extra,
    )["jobId"]
    return job_id


def statuses(client: Any, ids: list[str]) -> list[str]:
    return [client.describe_service_job(jobId=i)["status"] for i in ids]


def running(client: Any, ids: list[str]) -> set[str]:
    return {
        i
        for i in ids
        if client.describe_service_job(jobId=i)["status"] in {"SCHEDULED", "STARTING", "RUNNING"}
    }


@pytest.fixture
def account(tmp_path: Path) -> Any:
    emulator, client = inprocess_client(tmp_path / "state.db")
    # one emulated millisecond between submissions, so that the order of the calls is the
    # submission order (jobs created in the same millisecond go in job-ID order)
    client.meta.events.register(
        "after-call.batch.SubmitServiceJob", lambda **_: emulator.advance(0.001)
    )
    yield emulator, client
    emulator.close()


# -- one queue per quota-management environment ----------------------------------------------


def test_a_fifo_queue_cannot_join_a_quota_management_environment(account: Any) -> None:
    _, client = account
    make_queue(client, "qm", shares={"a": {"limit": 3}})
    with pytest.raises(ClientError) as caught:
        client.create_job_queue(
            jobQueueName="fifo",
            priority=5,
            serviceEnvironmentOrder=[{"order": 1, "serviceEnvironment": "qm-env"}],
            jobQueueType="SAGEMAKER_TRAINING",
        )
    error = caught.value.response["Error"]
    assert error["Code"] == "ClientException"
    assert "already serves job queue 'qm'" in error["Message"]
    assert client.describe_job_queues(jobQueues=["fifo"])["jobQueues"] == []


def test_a_queue_cannot_move_onto_a_quota_management_environment(account: Any) -> None:
    _, client = account
    make_queue(client, "qm", shares={"a": {"limit": 3}})
    fifo_environment(client, "spare", 4)
    fifo_queue(client, "fifo", "spare")
    with pytest.raises(ClientError) as caught:
        client.update_job_queue(
            jobQueue="fifo",
            serviceEnvironmentOrder=[{"order": 1, "serviceEnvironment": "qm-env"}],
        )
    assert "a quota-management environment serves one job queue" in str(caught.value)


def test_an_environment_with_two_queues_cannot_become_quota_management(account: Any) -> None:
    _, client = account
    fifo_environment(client, "pool", 4)
    fifo_queue(client, "one", "pool")
    fifo_queue(client, "two", "pool")
    with pytest.raises(ClientError) as caught:
        client.update_service_environment(
            serviceEnvironment="pool",
            capacityLimits=[{"capacityUnit": "ml.g5.xlarge", "maxCapacity": 4}],
        )
    assert "serves job queues one, two" in str(caught.value)


def test_the_aws_cli_shows_the_refusal(tmp_path: Path) -> None:
    emulator, client = inprocess_client(tmp_path / "state.db")
    make_queue(client, "qm", shares={"a": {"limit": 3}})
    emulator.close()
    served = Served(tmp_path / "state.db")
    try:
        done = subprocess.run(
            [
                "aws",
                "batch",
                "create-job-queue",
                "--endpoint-url",
                served.url,
                "--region",
                "us-east-1",
                "--job-queue-name",
                "fifo",
                "--priority",
                "5",
                "--job-queue-type",
                "SAGEMAKER_TRAINING",
                "--service-environment-order",
                "order=1,serviceEnvironment=qm-env",
            ],
            capture_output=True,
            text=True,
            env={
                "PATH": os.environ["PATH"],
                "AWS_ACCESS_KEY_ID": "test",
                "AWS_SECRET_ACCESS_KEY": "test",
                "AWS_EC2_METADATA_DISABLED": "true",
            },
            check=False,
        )
    finally:
        served.close()
    assert done.returncode != 0
    assert "An error occurred (ClientException) when calling the CreateJobQueue operation" in (
        done.stderr
    )
    assert "a quota-management environment serves one job queue" in done.stderr


# -- FIFO queues order by submission only ------------------------------------------------------


def test_a_fifo_queue_ignores_scheduling_priority(account: Any) -> None:
    emulator, client = account
    fifo_environment(client, "pool", 1)
    fifo_queue(client, "fifo", "pool")
    first = submit(client, "first", "fifo", runtime=60)
    second = submit(client, "second", "fifo", runtime=60)
    urgent = submit(client, "urgent", "fifo", runtime=60, schedulingPriority=9000)
    emulator.advance(1)
    assert running(client, [first, second, urgent]) == {first}
    client.update_service_job(jobId=second, schedulingPriority=1)
    emulator.advance(61)
    assert running(client, [first, second, urgent]) == {second}
    front = client.get_job_queue_snapshot(jobQueue="fifo")["frontOfQueue"]["jobs"]
    assert [j["jobArn"].rsplit("/", 1)[1] for j in front] == [urgent]


# -- fair share: accepted, dispatched in submission order -------------------------------------


def test_a_fair_share_queue_is_accepted_and_dispatches_in_submission_order(account: Any) -> None:
    _, client = account
    fifo_environment(client, "pool", 2)
    fair = client.create_scheduling_policy(
        name="fair",
        fairsharePolicy={
            "shareDecaySeconds": 3600,
            "computeReservation": 10,
            "shareDistribution": [{"shareIdentifier": "A", "weightFactor": 0.5}],
        },
    )["arn"]
    client.create_job_queue(
        jobQueueName="fs",
        priority=1,
        schedulingPolicyArn=fair,
        serviceEnvironmentOrder=[{"order": 1, "serviceEnvironment": "pool"}],
        jobQueueType="SAGEMAKER_TRAINING",
    )
    wait_for(lambda: queue_status(client, "fs"), "VALID")
    # shares and priorities are not modelled: the first two submitted run, whatever they say
    ids = [
        submit(client, "j0", "fs", shareIdentifier="B", schedulingPriority=1),
        submit(client, "j1", "fs", shareIdentifier="A", schedulingPriority=1),
        submit(client, "j2", "fs", shareIdentifier="A", schedulingPriority=9),
    ]
    client.list_service_jobs(jobQueue="fs")  # one request for the pass to be seen
    assert running(client, ids) == set(ids[:2])
    with pytest.raises(ClientError, match="shareIdentifier is required"):
        submit(client, "j3", "fs")


def test_a_quota_share_queue_cannot_take_a_fair_share_policy(account: Any) -> None:
    _, client = account
    make_queue(client, "qm", shares={"a": {"limit": 3}})
    fair = client.create_scheduling_policy(name="fair", fairsharePolicy={})["arn"]
    with pytest.raises(ClientError) as caught:
        client.update_job_queue(jobQueue="qm", schedulingPolicyArn=fair)
    assert "cannot switch between a quota-share and a fair-share" in str(caught.value)
    queue = client.describe_job_queues(jobQueues=["qm"])["jobQueues"][0]
    assert queue["schedulingPolicyArn"].endswith("/qm-quota")
    assert POLICY  # the quota-share policy stays


# -- queues on one service environment share its capacity ------------------------------------


def test_queues_on_one_environment_share_its_capacity_in_priority_order(account: Any) -> None:
    emulator, client = account
    fifo_environment(client, "pool", 4)
    fifo_queue(client, "low", "pool", priority=1)
    fifo_queue(client, "high", "pool", priority=10)
    early = [submit(client, f"early{i}", "low", runtime=60) for i in range(3)]
    emulator.advance(1)
    late_low = [submit(client, f"low{i}", "low", runtime=60) for i in range(4)]
    late_high = [submit(client, f"high{i}", "high", runtime=60) for i in range(4)]
    emulator.advance(1)
    every = early + late_low + late_high
    # one maxCapacity for both queues: 3 early jobs and one more, never 8
    assert running(client, every) == {*early, late_low[0]}
    emulator.advance(58.5)
    # the early jobs freed 3 instances: the priority-10 queue is evaluated first
    assert running(client, every) == {late_low[0], *late_high[:3]}
    assert statuses(client, early) == ["SUCCEEDED"] * 3
    emulator.advance(1)
    assert running(client, every) == set(late_high)
    for _ in range(4):
        emulator.advance(60)
        assert len(running(client, every)) <= 4


def test_a_lower_priority_queue_takes_what_the_higher_cannot_use(account: Any) -> None:
    emulator, client = account
    fifo_environment(client, "pool", 2)
    fifo_queue(client, "low", "pool", priority=1)
    fifo_queue(client, "high", "pool", priority=10)
    client.submit_service_job(
        jobName="wide",
        jobQueue="high",
        serviceJobType="SAGEMAKER_TRAINING",
        serviceRequestPayload=payload(count=3),
    )
    small = submit(client, "small", "low", runtime=60)
    emulator.advance(1)
    # a job is dispatched from a queue only if resources are available when it is evaluated
    assert running(client, [small]) == {small}


# -- GetJobQueueSnapshot: dispatch order, time at position, last updated ---------------------


def _ids(entries: list[dict[str, Any]]) -> list[str]:
    return [e["jobArn"].rsplit("/", 1)[1] for e in entries]


def test_the_front_of_a_quota_share_queue_is_in_dispatch_order(account: Any) -> None:
    emulator, client = account
    make_queue(client, "qm", capacity={"ml.g5.xlarge": 2}, shares={"a": {}, "b": {}})
    busy = [
        submit(client, "busy-a", "qm", quotaShareName="a"),
        submit(client, "busy-b", "qm", quotaShareName="b"),
    ]
    emulator.advance(1)
    assert running(client, busy) == set(busy)
    low = submit(client, "a-low", "qm", quotaShareName="a", schedulingPriority=0)
    high = submit(client, "a-high", "qm", quotaShareName="a", schedulingPriority=100)
    middle = submit(client, "b-mid", "qm", quotaShareName="b", schedulingPriority=50)
    emulator.advance(1)
    snapshot = client.get_job_queue_snapshot(jobQueue="qm")
    # share a's order is a-high, a-low; across shares, the earlier submission first
    assert _ids(snapshot["frontOfQueue"]["jobs"]) == [high, low, middle]
    heads = snapshot["frontOfQuotaShares"]["quotaShares"]
    assert {name: _ids(jobs) for name, jobs in heads.items()} == {"a": [high], "b": [middle]}


def test_time_at_position_and_last_updated_follow_the_queue(account: Any) -> None:
    emulator, client = account
    fifo_environment(client, "pool", 1)
    fifo_queue(client, "fifo", "pool")
    jobs = [submit(client, f"j{i}", "fifo", runtime=60) for i in range(3)]
    emulator.advance(1)
    submitted = client.describe_service_job(jobId=jobs[2])["createdAt"]
    emulator.advance(60)  # j0 finishes at t=60: j1 starts, j2 moves to the head
    emulator.advance(20)
    snapshot = client.get_job_queue_snapshot(jobQueue="fifo")
    front = snapshot["frontOfQueue"]
    assert _ids(front["jobs"]) == [jobs[2]]
    moved = client.describe_service_job(jobId=jobs[1])["startedAt"]
    assert front["jobs"][0]["earliestTimeAtPosition"] == moved
    assert moved == client.describe_service_job(jobId=jobs[0])["stoppedAt"] > submitted
    # nothing changed in the last 20 s: the front and the usage were last updated at t=60
    assert front["lastUpdatedAt"] == moved
    assert snapshot["queueUtilization"]["lastUpdatedAt"] == moved


JOB_MIXES = st.lists(
    st.tuples(st.integers(0, 2), st.integers(1, 3), st.integers(1, 9), st.integers(0, 2)),
    min_size=1,
    max_size=10,
)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    capacity=st.integers(1, 5),
    priorities=st.lists(st.integers(0, 3), min_size=2, max_size=3),
    mix=JOB_MIXES,
)
def test_queues_never_hold_more_than_their_environment(
    tmp_path_factory: pytest.TempPathFactory,
    capacity: int,
    priorities: list[int],
    mix: list[tuple[int, int, int, int]],
) -> None:
    """Whatever the queues' priorities and jobs: together they never hold more instances than
    the environment's maxCapacity, and every job runs to the end. (Jobs fit the environment:
    a MISCONFIGURATION head holds back its FIFO queue for good.)"""
    emulator, client = inprocess_client(tmp_path_factory.mktemp("mix") / "state.db")
    try:
        fifo_environment(client, "pool", capacity)
        names = [f"q{i}" for i in range(len(priorities))]
        for name, priority in zip(names, priorities, strict=True):
            fifo_queue(client, name, "pool", priority=priority)
        sizes: dict[str, int] = {}
        for index, (queue, count, minutes, wait) in enumerate(mix):
            job = client.submit_service_job(
                jobName=f"j{index}",
                jobQueue=names[queue % len(names)],
                serviceJobType="SAGEMAKER_TRAINING",
                serviceRequestPayload=payload(count=min(count, capacity), max_runtime=minutes * 10),
            )["jobId"]
            sizes[job] = min(count, capacity)
            emulator.advance(wait * 5)
        for _ in range(100):
            found = {j: client.describe_service_job(jobId=j)["status"] for j in sizes}
            assert sum(sizes[j] for j, status in found.items() if status in HOLDING) <= capacity
            if all(status == "SUCCEEDED" for status in found.values()):
                break
            emulator.advance(10)
        assert set(found.values()) == {"SUCCEEDED"}
    finally:
        emulator.close()
