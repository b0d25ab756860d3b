"""Service jobs through boto3: submit, the status lifecycle in emulated time, listing rules,
priority updates, termination, the queue snapshot."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from tests.emulator.emulator_support import TYPE, make_queue, payload

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.emulator.conftest import Account


def submit(client: object, queue: str, share: str, name: str = "job", **extra: object) -> dict:  # type: ignore[type-arg]
    return client.submit_service_job(  # type: ignore[attr-defined,no-any-return]
        jobName=name,
        jobQueue=queue,
        serviceJobType="SAGEMAKER_TRAINING",
        serviceRequestPayload=extra.pop("body", payload()),
        quotaShareName=share,
        **extra,
    )


def status(client: object, job: dict) -> str:  # type: ignore[type-arg]
    return str(client.describe_service_job(jobId=job["jobArn"])["status"])  # type: ignore[attr-defined]


def test_a_job_walks_its_lifecycle_and_runs_for_its_duration_tag(
    batch: Account, names: Callable[[str], str]
) -> None:
    client = batch.client
    queue = names("q")
    make_queue(client, queue, shares={"a": {}})
    body = payload(max_runtime=3600)
    job = submit(
        client, queue, "a", body=body, tags={"quotactl:duration": "10m"}, schedulingPriority=3
    )
    assert job["jobArn"] == f"arn:aws:batch:us-east-1:123456789012:service-job/{job['jobId']}"
    seen = [status(client, job) for _ in range(4)]
    assert seen == ["SUBMITTED", "SCHEDULED", "STARTING", "RUNNING"]
    batch.advance(9 * 60)
    assert status(client, job) == "RUNNING"
    batch.advance(60)
    done = client.describe_service_job(jobId=job["jobId"])
    assert done["status"] == "SUCCEEDED"
    assert done["stoppedAt"] - done["startedAt"] == 10 * 60 * 1000
    assert done["serviceRequestPayload"] == body
    assert done["schedulingPriority"] == 3
    assert done["tags"] == {"quotactl:duration": "10m"}
    assert done["latestAttempt"]["serviceResourceId"]["value"].startswith(
        "arn:aws:sagemaker:us-east-1:123456789012:training-job/AWSBatchjob"
    )


def test_a_job_longer_than_max_runtime_is_stopped_and_fails(inproc: Account) -> None:
    client = inproc.client
    make_queue(client, "q", shares={"a": {}})
    job = submit(client, "q", "a", tags={"quotactl:duration": "1h"})  # MaxRuntimeInSeconds 300
    inproc.advance(301)
    stopped = client.describe_service_job(jobId=job["jobId"])
    assert stopped["status"] == "FAILED"
    assert "MaxRuntimeExceeded" in stopped["statusReason"]


def test_a_share_runs_only_what_fits_its_own_limit(
    batch: Account, names: Callable[[str], str]
) -> None:
    client = batch.client
    queue = names("q")
    make_queue(client, queue, shares={"a": {"limit": 1}})
    first = submit(client, queue, "a", name="first")
    second = submit(client, queue, "a", name="second")
    for _ in range(3):
        client.list_service_jobs(jobQueue=queue)
    assert (status(client, first), status(client, second)) == ("RUNNING", "RUNNABLE")
    batch.advance(300)  # MaxRuntimeInSeconds of the payload
    assert status(client, first) == "SUCCEEDED"
    for _ in range(3):
        client.list_service_jobs(jobQueue=queue)
    assert status(client, second) == "RUNNING"


def test_a_job_bigger_than_its_share_waits_as_misconfigured(
    batch: Account, names: Callable[[str], str]
) -> None:
    client = batch.client
    queue = names("q")
    make_queue(client, queue, capacity={TYPE: 3}, shares={"a": {"limit": 1}})
    job = submit(client, queue, "a", body=payload(count=2))
    client.list_service_jobs(jobQueue=queue)
    described = client.describe_service_job(jobId=job["jobId"])
    assert described["status"] == "RUNNABLE"
    assert described["statusReason"].startswith("MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED")
    too_big = submit(client, queue, "a", name="huge", body=payload(count=5))
    client.list_service_jobs(jobQueue=queue)
    assert client.describe_service_job(jobId=too_big["jobId"])["statusReason"].startswith(
        "MISCONFIGURATION:SERVICE_ENVIRONMENT_MAX_RESOURCE"
    )


def test_a_runnable_timeout_on_the_queue_terminates_a_stuck_job(inproc: Account) -> None:
    client = inproc.client
    make_queue(client, "q", shares={"a": {"limit": 1}})
    reason = "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED"
    client.update_job_queue(
        jobQueue="q",
        jobStateTimeLimitActions=[
            {"reason": reason, "state": "RUNNABLE", "maxTimeSeconds": 600, "action": "TERMINATE"}
        ],
    )
    job = submit(client, "q", "a", body=payload(count=2))
    for _ in range(3):
        client.list_service_jobs(jobQueue="q")
    inproc.advance(601)
    described = client.describe_service_job(jobId=job["jobId"])
    assert described["status"] == "FAILED"
    assert described["isTerminated"] is True
    assert (
        described["statusReason"]
        == f"Terminated by JobStateTimeLimit action due to reason: {reason}"
    )


def test_listing_defaults_to_running_and_filters_list_newest_first(
    batch: Account, names: Callable[[str], str]
) -> None:
    client = batch.client
    queue = names("q")
    make_queue(client, queue, shares={"a": {"limit": 1}, "b": {"limit": 1}})
    jobs = [submit(client, queue, "a", name=f"train-{i}") for i in range(3)]
    other = submit(client, queue, "b", name="eval-0")
    for _ in range(3):
        client.list_service_jobs(jobQueue=queue)
    running = client.list_service_jobs(jobQueue=queue)["jobSummaryList"]
    assert {j["jobName"] for j in running} == {"train-0", "eval-0"}
    by_name = client.list_service_jobs(
        jobQueue=queue, jobStatus="SUCCEEDED", filters=[{"name": "JOB_NAME", "values": ["TRAIN-*"]}]
    )["jobSummaryList"]
    assert [j["jobName"] for j in by_name] == ["train-2", "train-1", "train-0"]  # status ignored
    runnable_a = client.list_service_jobs(
        jobQueue=queue,
        jobStatus="RUNNABLE",
        filters=[{"name": "QUOTA_SHARE_NAME", "values": ["a"]}],
    )["jobSummaryList"]
    assert [j["jobId"] for j in runnable_a] == [jobs[2]["jobId"], jobs[1]["jobId"]]
    after = client.list_service_jobs(
        jobQueue=queue,
        filters=[{"name": "AFTER_CREATED_AT", "values": [str(running[0]["createdAt"] - 1)]}],
    )["jobSummaryList"]
    assert other["jobId"] in {j["jobId"] for j in after}
    pages = client.get_paginator("list_service_jobs").paginate(
        jobQueue=queue,
        filters=[{"name": "JOB_NAME", "values": ["train*"]}],
        PaginationConfig={"PageSize": 2},
    )
    assert [len(p["jobSummaryList"]) for p in pages] == [2, 1]


def test_priority_update_and_termination_by_arn(
    batch: Account, names: Callable[[str], str]
) -> None:
    client = batch.client
    queue = names("q")
    make_queue(client, queue, shares={"a": {"limit": 1}})
    running = submit(client, queue, "a", name="r")
    waiting = submit(client, queue, "a", name="w")
    updated = client.update_service_job(jobId=waiting["jobArn"], schedulingPriority=9999)
    assert updated["jobId"] == waiting["jobId"]
    assert client.describe_service_job(jobId=waiting["jobId"])["schedulingPriority"] == 9999
    client.terminate_service_job(jobId=waiting["jobArn"], reason="not needed")
    gone = client.describe_service_job(jobId=waiting["jobId"])
    assert (gone["status"], gone["isTerminated"], gone["statusReason"]) == (
        "FAILED",
        True,
        "not needed",
    )
    with pytest.raises(client.exceptions.ClientException, match="only unfinished jobs"):
        client.update_service_job(jobId=waiting["jobId"], schedulingPriority=1)
    result = client.terminate_service_jobs(
        jobs=[running["jobId"], "00000000-0000-0000-0000-000000000000", "bad"], reason="cleanup"
    )
    assert result["successful"] == [running["jobId"], "00000000-0000-0000-0000-000000000000"]
    assert result["errors"][0]["job"] == "bad"
    assert status(client, running) == "FAILED"


def test_snapshot_shows_the_front_of_each_share_and_usage(
    batch: Account, names: Callable[[str], str]
) -> None:
    client = batch.client
    queue = names("q")
    make_queue(client, queue, shares={"a": {"limit": 1}, "b": {"limit": 2}})
    submit(client, queue, "a", name="a1")
    waiting = submit(client, queue, "a", name="a2", schedulingPriority=5)
    submit(client, queue, "b", name="b1", body=payload(count=2))
    for _ in range(2):
        client.list_service_jobs(jobQueue=queue)
    snapshot = client.get_job_queue_snapshot(jobQueue=queue)
    assert [j["jobArn"] for j in snapshot["frontOfQueue"]["jobs"]] == [waiting["jobArn"]]
    assert list(snapshot["frontOfQuotaShares"]["quotaShares"]) == ["a"]
    usage = snapshot["queueUtilization"]
    assert usage["totalCapacityUsage"] == [{"capacityUnit": TYPE, "quantity": 3.0}]
    top = usage["quotaShareUtilization"]["topCapacityUtilization"]
    assert [s["quotaShareName"] for s in top] == ["b", "a"]


def test_a_payload_without_resource_config_fails_when_sagemaker_sees_it(inproc: Account) -> None:
    client = inproc.client
    make_queue(client, "q", shares={"a": {}})
    job = submit(client, "q", "a", body=json.dumps({"TrainingJobName": "x"}))
    assert client.describe_service_job(jobId=job["jobId"])["serviceRequestPayload"] == (
        '{"TrainingJobName": "x"}'
    )
    client.list_service_jobs(jobQueue="q")
    failed = client.describe_service_job(jobId=job["jobId"])
    assert failed["status"] == "FAILED"
    assert failed["statusReason"].startswith("Received status from SageMaker: ValidationException")


def test_deleting_a_share_terminates_its_jobs(inproc: Account) -> None:
    client = inproc.client
    arns = make_queue(client, "q", shares={"a": {}})
    job = submit(client, "q", "a")
    client.update_quota_share(quotaShareArn=arns["a"], state="DISABLED")
    client.list_service_jobs(jobQueue="q")
    client.delete_quota_share(quotaShareArn=arns["a"])
    client.list_service_jobs(jobQueue="q")
    gone = client.describe_service_job(jobId=job["jobId"])
    assert (gone["status"], gone["isTerminated"]) == ("FAILED", True)
    assert gone["statusReason"] == "Quota share a was deleted"
