"""AWS's server-side rules: each broken rule is a ClientException whose message names the
field and the value (botocore itself only checks types and required members)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from tests.conftest import TEST_TIMING
from tests.emulator.emulator_support import (
    POLICY,
    TYPE,
    create_share,
    make_queue,
    payload,
    queue_status,
    wait_for,
)

if TYPE_CHECKING:
    from tests.emulator.conftest import Account

QUEUE = "vq"
SHARE = {
    "quotaShareName": "s",
    "jobQueue": QUEUE,
    "capacityLimits": [{"capacityUnit": TYPE, "maxCapacity": 1}],
    "resourceSharingConfiguration": {"strategy": "RESERVE"},
    "preemptionConfiguration": {"inSharePreemption": "DISABLED"},
}
JOB = {
    "jobName": "j",
    "jobQueue": QUEUE,
    "serviceJobType": "SAGEMAKER_TRAINING",
    "serviceRequestPayload": payload(),
    "quotaShareName": "a",
}
ENV = {
    "serviceEnvironmentName": "e2",
    "serviceEnvironmentType": "SAGEMAKER_TRAINING",
    "capacityLimits": [{"capacityUnit": TYPE, "maxCapacity": 1}],
}


def limits(*units: str) -> list[dict[str, Any]]:
    return [{"capacityUnit": u, "maxCapacity": 1} for u in units]


CASES: list[tuple[str, str, dict[str, Any], str]] = [
    (
        "bad policy name",
        "create_scheduling_policy",
        {"name": "no spaces"},
        "name 'no spaces' is invalid",
    ),
    (
        "both policy types",
        "create_scheduling_policy",
        {"name": "x", "quotaSharePolicy": POLICY, "fairsharePolicy": {}},
        "not both",
    ),
    (
        "duplicate policy",
        "create_scheduling_policy",
        {"name": f"{QUEUE}-quota"},
        "Object already exists",
    ),
    (
        "policy in use",
        "delete_scheduling_policy",
        {"arn": f"arn:aws:batch:us-east-1:123456789012:scheduling-policy/{QUEUE}-quota"},
        "in use by job queue",
    ),
    (
        "reserved tag",
        "create_scheduling_policy",
        {"name": "t", "tags": {"aws:x": "1"}},
        "prefix is reserved",
    ),
    (
        "duplicate environment",
        "create_service_environment",
        {**ENV, "serviceEnvironmentName": f"{QUEUE}-env"},
        "Object already exists",
    ),
    (
        "six capacity limits",
        "create_service_environment",
        {
            **ENV,
            "capacityLimits": limits(
                "ml.m5.large",
                "ml.m5.xlarge",
                "ml.m5.2xlarge",
                "ml.m5.4xlarge",
                "ml.g5.xlarge",
                "ml.g5.2xlarge",
            ),
        },
        "has 6 entries; use 1 to 5",
    ),
    (
        "unknown instance type",
        "create_service_environment",
        {**ENV, "capacityLimits": limits("ml.bogus.big")},
        "'ml.bogus.big' is not a SageMaker training instance type",
    ),
    (
        "zero capacity",
        "create_service_environment",
        {**ENV, "capacityLimits": [{"capacityUnit": TYPE, "maxCapacity": 0}]},
        "maxCapacity must be at least 1, got 0",
    ),
    (
        "enabled environment delete",
        "delete_service_environment",
        {"serviceEnvironment": f"{QUEUE}-env"},
        "must be DISABLED before it can be deleted",
    ),
    (
        "queue priority",
        "update_job_queue",
        {"jobQueue": QUEUE, "priority": 1001},
        "priority must be between 0 and 1000, got 1001",
    ),
    (
        "unknown queue",
        "update_job_queue",
        {"jobQueue": "nope", "priority": 1},
        "job queue 'nope' does not exist",
    ),
    (
        "enabled queue delete",
        "delete_job_queue",
        {"jobQueue": QUEUE},
        "must be DISABLED before it can be deleted",
    ),
    (
        "time limit range",
        "update_job_queue",
        {
            "jobQueue": QUEUE,
            "jobStateTimeLimitActions": [
                {
                    "reason": "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED",
                    "state": "RUNNABLE",
                    "maxTimeSeconds": 60,
                    "action": "TERMINATE",
                }
            ],
        },
        "maxTimeSeconds must be between 600 and 86400, got 60",
    ),
    (
        "duplicate share",
        "create_quota_share",
        {**SHARE, "quotaShareName": "a"},
        "Object already exists",
    ),
    (
        "empty capacity",
        "create_quota_share",
        {**SHARE, "capacityLimits": []},
        "has 0 entries; use 1 to 5",
    ),
    (
        "NUM_INSTANCES share",
        "create_quota_share",
        {**SHARE, "capacityLimits": limits("NUM_INSTANCES")},
        "NUM_INSTANCES is not allowed",
    ),
    (
        "borrow without LEND_AND_BORROW",
        "create_quota_share",
        {**SHARE, "resourceSharingConfiguration": {"strategy": "LEND", "borrowLimit": 100}},
        "borrowLimit 100 is not allowed for quota share 's' with strategy LEND",
    ),
    (
        "borrow below -1",
        "create_quota_share",
        {
            **SHARE,
            "resourceSharingConfiguration": {"strategy": "LEND_AND_BORROW", "borrowLimit": -2},
        },
        "borrowLimit must be at least -1, got -2",
    ),
    (
        "share on unknown queue",
        "create_quota_share",
        {**SHARE, "jobQueue": "ghost"},
        "job queue 'ghost' does not exist",
    ),
    (
        "share ARN format",
        "describe_quota_share",
        {"quotaShareArn": "s"},
        "is not a quota share ARN",
    ),
    (
        "enabled share delete",
        "delete_quota_share",
        {"quotaShareArn": f"arn:aws:batch:us-east-1:123456789012:job-queue/{QUEUE}/quota-share/a"},
        "must be DISABLED before it can be deleted",
    ),
    (
        "maxResults too big",
        "list_quota_shares",
        {"jobQueue": QUEUE, "maxResults": 101},
        "maxResults must be between 1 and 100, got 101",
    ),
    (
        "forged nextToken",
        "list_quota_shares",
        {"jobQueue": QUEUE, "nextToken": "abc"},
        "nextToken 'abc' is invalid",
    ),
    (
        "missing quotaShareName",
        "submit_service_job",
        {**JOB, "quotaShareName": None},
        "quotaShareName is required: job queue 'vq' uses quota shares",
    ),
    (
        "shareIdentifier on QM queue",
        "submit_service_job",
        {**JOB, "shareIdentifier": "x"},
        "shareIdentifier is not allowed on job queue 'vq'",
    ),
    (
        "unknown share",
        "submit_service_job",
        {**JOB, "quotaShareName": "zz"},
        "quota share 'zz' does not exist on job queue 'vq'",
    ),
    (
        "job priority",
        "submit_service_job",
        {**JOB, "schedulingPriority": 10000},
        "schedulingPriority must be between 0 and 9999, got 10000",
    ),
    ("bad job name", "submit_service_job", {**JOB, "jobName": "a b"}, "jobName 'a b' is invalid"),
    (
        "payload too big",
        "submit_service_job",
        {**JOB, "serviceRequestPayload": "x" * 10241},
        "serviceRequestPayload is 10241 bytes",
    ),
    (
        "retry attempts",
        "submit_service_job",
        {**JOB, "retryStrategy": {"attempts": 11}},
        "attempts must be between 1 and 10, got 11",
    ),
    (
        "unknown job",
        "describe_service_job",
        {"jobId": "00000000-0000-0000-0000-000000000000"},
        "service job '00000000-0000-0000-0000-000000000000' does not exist",
    ),
    (
        "malformed job id",
        "describe_service_job",
        {"jobId": "job-1"},
        "jobId 'job-1' is not a service job ID or ARN",
    ),
    (
        "two filters",
        "list_service_jobs",
        {
            "jobQueue": QUEUE,
            "filters": [
                {"name": "JOB_NAME", "values": ["a"]},
                {"name": "JOB_NAME", "values": ["b"]},
            ],
        },
        "only one filter is allowed",
    ),
    (
        "unknown filter",
        "list_service_jobs",
        {"jobQueue": QUEUE, "filters": [{"name": "STATUS", "values": ["a"]}]},
        "name 'STATUS' is invalid",
    ),
    (
        "created-at filter",
        "list_service_jobs",
        {"jobQueue": QUEUE, "filters": [{"name": "AFTER_CREATED_AT", "values": ["yesterday"]}]},
        "takes epoch milliseconds, got 'yesterday'",
    ),
    (
        "bulk terminate size",
        "terminate_service_jobs",
        {"jobs": ["x"] * 51, "reason": "r"},
        "jobs has 51 entries",
    ),
    (
        "tag unknown resource",
        "tag_resource",
        {"resourceArn": "arn:aws:batch:us-east-1:123456789012:job-queue/ghost", "tags": {"a": "b"}},
        "does not exist",
    ),
]


@pytest.fixture(scope="module")
def prepared() -> dict[str, Any]:
    return {}


@pytest.mark.parametrize(
    ("operation", "params", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_rule_is_a_client_exception_naming_the_field(
    batch: Account, operation: str, params: dict[str, Any], message: str
) -> None:
    client = batch.client
    if not client.describe_job_queues(jobQueues=[QUEUE])["jobQueues"]:
        make_queue(client, QUEUE, shares={"a": {}})
    call = getattr(client, operation)
    with pytest.raises(client.exceptions.ClientException) as caught:
        call(**{k: v for k, v in params.items() if v is not None})
    error = caught.value.response
    assert error["Error"]["Code"] == "ClientException"
    assert error["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert message in error["message"], error["message"]


def test_quota_shares_need_a_quota_share_policy(inproc: Account) -> None:
    client = inproc.client
    client.create_service_environment(**{**ENV, "serviceEnvironmentName": "plain"})
    wait_for(
        lambda: client.describe_service_environments(serviceEnvironments=["plain"])[
            "serviceEnvironments"
        ][0],
        "VALID",
    )
    client.create_job_queue(
        jobQueueName="fifo",
        priority=1,
        serviceEnvironmentOrder=[{"order": 1, "serviceEnvironment": "plain"}],
    )
    wait_for(lambda: queue_status(client, "fifo"), "VALID")
    with pytest.raises(
        client.exceptions.ClientException, match="has no quota-share scheduling policy"
    ):
        client.create_quota_share(**{**SHARE, "jobQueue": "fifo"})
    with pytest.raises(client.exceptions.ClientException, match="quotaShareName is not allowed"):
        client.submit_service_job(**{**JOB, "jobQueue": "fifo"})


def test_a_quota_management_environment_serves_one_queue(inproc: Account) -> None:
    client = inproc.client
    arns = make_queue(client, "one")
    with pytest.raises(client.exceptions.ClientException, match="already serves job queue 'one'"):
        client.create_job_queue(
            jobQueueName="two",
            priority=1,
            schedulingPolicyArn=arns["policy"],
            serviceEnvironmentOrder=[{"order": 1, "serviceEnvironment": "one-env"}],
        )


def test_twenty_shares_per_queue_is_the_limit(inproc: Account) -> None:
    client = inproc.client
    make_queue(client, "full")
    for index in range(20):
        create_share(client, "full", f"s{index}")
    with pytest.raises(client.exceptions.ClientException, match="already has 20 quota shares"):
        create_share(client, "full", "s20")


def test_fifty_environments_is_the_limit(inproc: Account) -> None:
    client = inproc.client
    for index in range(50):
        client.create_service_environment(**{**ENV, "serviceEnvironmentName": f"e{index}"})
    with pytest.raises(
        client.exceptions.ClientException, match="already has 50 service environments"
    ):
        client.create_service_environment(**{**ENV, "serviceEnvironmentName": "e50"})


def test_fifty_queues_is_the_limit(inproc: Account) -> None:
    client = inproc.client
    client.create_service_environment(
        **{**ENV, "serviceEnvironmentName": "shared", "capacityLimits": limits("NUM_INSTANCES")}
    )
    for index in range(51):
        if index == 0:
            client.describe_service_environments()

        def call(i: int = index) -> object:
            return client.create_job_queue(
                jobQueueName=f"q{i}",
                priority=1,
                serviceEnvironmentOrder=[{"order": 1, "serviceEnvironment": "shared"}],
            )

        if index < 50:
            call()
        else:
            with pytest.raises(
                client.exceptions.ClientException, match="already has 50 job queues"
            ):
                call()


def test_a_disabled_share_takes_no_new_jobs(inproc: Account) -> None:
    client = inproc.client
    arns = make_queue(client, QUEUE, shares={"a": {}})
    client.update_quota_share(quotaShareArn=arns["a"], state="DISABLED")
    with pytest.raises(
        client.exceptions.ClientException, match="is DISABLED and accepts no new jobs"
    ):
        client.submit_service_job(**JOB)


def test_an_unsettled_share_cannot_be_changed(inproc: Account) -> None:
    client = inproc.client
    make_queue(client, QUEUE)
    arn = create_share(client, QUEUE, "fresh")
    with pytest.raises(client.exceptions.ClientException, match="while its status is CREATING"):
        client.update_quota_share(quotaShareArn=arn, state="DISABLED")


def test_client_token_reused_for_another_request_is_refused(inproc: Account) -> None:
    client = inproc.client
    make_queue(client, QUEUE, shares={"a": {}})
    first = client.submit_service_job(**JOB, clientToken="tok")
    again = client.submit_service_job(**JOB, clientToken="tok")
    assert again["jobId"] == first["jobId"]
    with pytest.raises(client.exceptions.ClientException, match="already used for a different"):
        client.submit_service_job(**{**JOB, "jobName": "other"}, clientToken="tok")
    listed = client.list_service_jobs(
        jobQueue=QUEUE, filters=[{"name": "JOB_NAME", "values": ["j"]}]
    )
    assert len(listed["jobSummaryList"]) == 1


def test_the_request_body_must_be_json(inproc: Account) -> None:
    emulator_response = _raw(inproc, "POST", "/v1/listschedulingpolicies", b"{not json")
    assert emulator_response.status == 400
    assert emulator_response.headers["x-amzn-ErrorType"] == "ClientException"
    assert "not valid JSON" in json.loads(emulator_response.body)["message"]
    unknown = _raw(inproc, "POST", "/v1/createcomputeenvironment", b"{}")
    assert unknown.status == 404


def _raw(account: Account, method: str, path: str, body: bytes) -> Any:
    from quotactl.emulator import Emulator

    with Emulator(account.state, timing=TEST_TIMING) as emulator:
        return emulator.handle(method, path, "", {}, body)
