"""The emulated account runs job queues as AWS does: queues sharing one service environment,
one queue per quota-management environment, FIFO order and fair-share refusal."""

from __future__ import annotations

import os
import subprocess
from typing import TYPE_CHECKING, Any

import pytest
from botocore.exceptions import ClientError

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


# -- fair share is refused, never accepted and ignored ---------------------------------------


def test_a_fair_share_policy_is_refused_on_a_service_job_queue(account: Any) -> None:
    _, client = account
    fifo_environment(client, "pool", 4)
    fair = client.create_scheduling_policy(
        name="fair",
        fairsharePolicy={
            "shareDecaySeconds": 3600,
            "computeReservation": 10,
            "shareDistribution": [{"shareIdentifier": "A", "weightFactor": 0.5}],
        },
    )["arn"]
    with pytest.raises(ClientError) as caught:
        client.create_job_queue(
            jobQueueName="fs",
            priority=1,
            schedulingPolicyArn=fair,
            serviceEnvironmentOrder=[{"order": 1, "serviceEnvironment": "pool"}],
            jobQueueType="SAGEMAKER_TRAINING",
        )
    error = caught.value.response["Error"]
    assert error["Code"] == "ClientException"
    assert "does not schedule fair-share SAGEMAKER_TRAINING job queues" in error["Message"]
    assert client.describe_job_queues(jobQueues=["fs"])["jobQueues"] == []


def test_a_quota_share_queue_cannot_take_a_fair_share_policy(account: Any) -> None:
    _, client = account
    make_queue(client, "qm", shares={"a": {"limit": 3}})
    fair = client.create_scheduling_policy(name="fair", fairsharePolicy={})["arn"]
    with pytest.raises(ClientError) as caught:
        client.update_job_queue(jobQueue="qm", schedulingPolicyArn=fair)
    assert "does not schedule fair-share" in str(caught.value)
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
