"""AwsBackend against botocore's Stubber: AWS-shaped responses, pagination, error mapping.

The Stubber validates every request against botocore's Batch model, so these tests also
prove the requests quotactl builds are ones AWS accepts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import boto3
import pytest
from botocore.config import Config
from botocore.stub import Stubber

from quotactl.aws.backend import AwsBackend
from quotactl.core.resources.desired import (
    STACK_TAG,
    EnvironmentSpec,
    QueueSpec,
    ShareSpec,
    Strategy,
)
from quotactl.core.resources.observed import Kind, Ref, ResourceStatus
from quotactl.errors import AlreadyExistsError, BackendError

if TYPE_CHECKING:
    from collections.abc import Iterator

ACCOUNT = "123456789012"
ARN = f"arn:aws:batch:us-east-1:{ACCOUNT}"
TAGS = {STACK_TAG: "demo"}


@pytest.fixture
def client() -> Any:
    return boto3.client(
        "batch",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


@pytest.fixture
def stub(client: Any) -> Iterator[Stubber]:
    with Stubber(client) as stubber:
        yield stubber
        stubber.assert_no_pending_responses()


def queue_item(name: str, **extra: Any) -> dict[str, Any]:
    return {
        "jobQueueName": name,
        "jobQueueArn": f"{ARN}:job-queue/{name}",
        "state": "ENABLED",
        "status": "VALID",
        "priority": 10,
        "computeEnvironmentOrder": [],
        "serviceEnvironmentOrder": [
            {"order": 1, "serviceEnvironment": f"{ARN}:service-environment/gpu"}
        ],
        "schedulingPolicyArn": f"{ARN}:scheduling-policy/{name}-quota",
        "jobQueueType": "SAGEMAKER_TRAINING",
        "tags": TAGS,
        **extra,
    }


def share_item(name: str, queue: str = "training") -> dict[str, Any]:
    return {
        "quotaShareName": name,
        "quotaShareArn": f"{ARN}:job-queue/{queue}/quota-share/{name}",
        "jobQueueArn": f"{ARN}:job-queue/{queue}",
        "capacityLimits": [{"capacityUnit": "ml.g5.xlarge", "maxCapacity": 4}],
        "resourceSharingConfiguration": {"strategy": "LEND_AND_BORROW", "borrowLimit": 100},
        "preemptionConfiguration": {"inSharePreemption": "ENABLED"},
        "state": "ENABLED",
        "status": "VALID",
    }


def test_observe_reads_every_page_and_each_shares_tags(client: Any, stub: Stubber) -> None:
    stub.add_response(
        "describe_service_environments",
        {
            "serviceEnvironments": [
                {
                    "serviceEnvironmentName": "gpu",
                    "serviceEnvironmentArn": f"{ARN}:service-environment/gpu",
                    "serviceEnvironmentType": "SAGEMAKER_TRAINING",
                    "state": "ENABLED",
                    "status": "VALID",
                    "capacityLimits": [{"capacityUnit": "ml.g5.xlarge", "maxCapacity": 8}],
                    "tags": TAGS,
                }
            ]
        },
    )
    stub.add_response(
        "list_scheduling_policies",
        {"schedulingPolicies": [{"arn": f"{ARN}:scheduling-policy/training-quota"}]},
    )
    stub.add_response(
        "describe_scheduling_policies",
        {
            "schedulingPolicies": [
                {
                    "name": "training-quota",
                    "arn": f"{ARN}:scheduling-policy/training-quota",
                    "quotaSharePolicy": {"idleResourceAssignmentStrategy": "FIFO"},
                    "tags": TAGS,
                }
            ]
        },
        {"arns": [f"{ARN}:scheduling-policy/training-quota"]},
    )
    # Two pages of queues: the paginator must follow nextToken.
    stub.add_response(
        "describe_job_queues", {"jobQueues": [queue_item("training")], "nextToken": "t1"}
    )
    stub.add_response(
        "describe_job_queues", {"jobQueues": [queue_item("other", tags={})]}, {"nextToken": "t1"}
    )
    stub.add_response(
        "list_quota_shares",
        {"quotaShares": [share_item("nlp")], "nextToken": "s1"},
        {"jobQueue": "training"},
    )
    stub.add_response(
        "list_quota_shares",
        {"quotaShares": [share_item("cv")]},
        {"jobQueue": "training", "nextToken": "s1"},
    )
    for name in ("nlp", "cv"):
        stub.add_response(
            "list_tags_for_resource",
            {"tags": {**TAGS, "owner": name}},
            {"resourceArn": f"{ARN}:job-queue/training/quota-share/{name}"},
        )

    observed = AwsBackend(client, concurrency=1).observe("demo", ["training"])

    by_address = {r.address: r for r in observed.resources}
    assert sorted(by_address) == [
        "environment.gpu",
        "policy.training-quota",
        "queue.other",
        "queue.training",
        "share.training/cv",
        "share.training/nlp",
    ]
    assert by_address["queue.training"].spec == QueueSpec(
        "training", "gpu", "training-quota", priority=10, tags=TAGS
    )
    assert by_address["share.training/nlp"].spec == ShareSpec(
        "training",
        "nlp",
        {"ml.g5.xlarge": 4},
        Strategy.LEND_AND_BORROW,
        100,
        in_share_preemption=True,
        tags={**TAGS, "owner": "nlp"},
    )
    assert by_address["policy.training-quota"].policy_type == "quota_share"


def test_client_exception_becomes_aws_error_with_aws_message(client: Any, stub: Stubber) -> None:
    stub.add_client_error(
        "create_quota_share",
        service_error_code="ClientException",
        service_message="Job queue training is not in VALID status",
        http_status_code=400,
    )
    backend = AwsBackend(client)
    with pytest.raises(BackendError) as info:
        backend.create(ShareSpec("training", "nlp", {"ml.g5.xlarge": 4}, tags=TAGS))
    assert info.value.code == "aws-error"
    assert "Job queue training is not in VALID status" in info.value.message
    assert not info.value.retryable


def test_create_of_a_taken_name_is_already_exists(client: Any, stub: Stubber) -> None:
    stub.add_client_error("create_service_environment", "ClientException", "Object already exists")
    with pytest.raises(AlreadyExistsError):
        AwsBackend(client).create(EnvironmentSpec("gpu", {"ml.g5.xlarge": 8}, tags=TAGS))


@pytest.mark.parametrize(
    ("code", "status"),
    [("TooManyRequestsException", 429), ("ServerException", 500), ("ServiceUnavailable", 503)],
)
def test_throttling_and_server_errors_are_retryable(
    client: Any, stub: Stubber, code: str, status: int
) -> None:
    stub.add_client_error("describe_job_queues", code, "slow down", http_status_code=status)
    with pytest.raises(BackendError) as info:
        AwsBackend(client).describe(Ref(Kind.QUEUE, "training"))
    assert info.value.retryable


def test_create_sends_tags_and_aws_shapes(client: Any, stub: Stubber) -> None:
    share = ShareSpec("training", "nlp", {"ml.g5.xlarge": 4}, Strategy.RESERVE, tags=TAGS)
    stub.add_response(
        "create_quota_share",
        {"quotaShareName": "nlp", "quotaShareArn": f"{ARN}:job-queue/training/quota-share/nlp"},
        {
            "quotaShareName": "nlp",
            "jobQueue": "training",
            "capacityLimits": [{"capacityUnit": "ml.g5.xlarge", "maxCapacity": 4}],
            "resourceSharingConfiguration": {"strategy": "RESERVE"},
            "preemptionConfiguration": {"inSharePreemption": "DISABLED"},
            "state": "ENABLED",
            "tags": TAGS,
        },
    )
    assert AwsBackend(client).create(share).endswith("quota-share/nlp")


def test_tag_changes_use_tag_and_untag(client: Any, stub: Stubber) -> None:
    arn = f"{ARN}:job-queue/training"
    before = QueueSpec(
        "training", "gpu", "training-quota", tags={**TAGS, "old": "x", "aws:cf": "y"}
    )
    after = QueueSpec("training", "gpu", "training-quota", tags={**TAGS, "new": "z"})
    stub.add_response("tag_resource", {}, {"resourceArn": arn, "tags": {"new": "z"}})
    stub.add_response("untag_resource", {}, {"resourceArn": arn, "tagKeys": ["old"]})
    AwsBackend(client).update(before, after, arn, frozenset({"tags"}))


def test_statuses_batch_one_call_per_kind_and_queue(client: Any, stub: Stubber) -> None:
    stub.add_response(
        "describe_job_queues",
        {"jobQueues": [queue_item("training", status="CREATING")]},
        {"jobQueues": ["other", "training"]},
    )
    stub.add_response(
        "list_quota_shares", {"quotaShares": [share_item("nlp")]}, {"jobQueue": "training"}
    )
    refs = [
        Ref(Kind.QUEUE, "training"),
        Ref(Kind.QUEUE, "other"),
        Ref(Kind.SHARE, "nlp", "training"),
        Ref(Kind.SHARE, "cv", "training"),
    ]
    found = AwsBackend(client, concurrency=1).statuses(refs)
    assert found == {
        Ref(Kind.QUEUE, "training"): ResourceStatus("CREATING", True),
        Ref(Kind.QUEUE, "other"): None,
        Ref(Kind.SHARE, "nlp", "training"): ResourceStatus("VALID", True),
        Ref(Kind.SHARE, "cv", "training"): None,
    }


def test_delete_of_something_already_gone_reports_not_found(client: Any, stub: Stubber) -> None:
    arn = f"{ARN}:job-queue/training"
    stub.add_client_error("delete_job_queue", "ClientException", "does not exist")
    stub.add_response("describe_job_queues", {"jobQueues": []}, {"jobQueues": ["training"]})
    with pytest.raises(BackendError) as info:
        AwsBackend(client).delete(Ref(Kind.QUEUE, "training"), arn)
    assert info.value.code == "not-found"


def test_live_jobs_read_each_active_status_and_the_priority_of_holders(
    client: Any, stub: Stubber
) -> None:
    for status in ("SUBMITTED", "RUNNABLE", "SCHEDULED", "STARTING", "RUNNING"):
        jobs = []
        if status == "RUNNING":
            jobs = [
                {
                    "jobId": "j1",
                    "jobName": "train",
                    "serviceJobType": "SAGEMAKER_TRAINING",
                    "quotaShareName": "nlp",
                    "status": "RUNNING",
                    "capacityUsage": [{"capacityUnit": "ml.g5.xlarge", "quantity": 2.0}],
                    "startedAt": 5000,
                }
            ]
        stub.add_response(
            "list_service_jobs",
            {"jobSummaryList": jobs},
            {"jobQueue": "training", "jobStatus": status},
        )
    # a job that holds instances is described: preemption goes by its priority first
    stub.add_response(
        "describe_service_job",
        {
            "jobArn": "arn:aws:batch:us-east-1:123456789012:service-job/j1",
            "jobId": "j1",
            "jobName": "train",
            "jobQueue": "arn:aws:batch:us-east-1:123456789012:job-queue/training",
            "serviceJobType": "SAGEMAKER_TRAINING",
            "serviceRequestPayload": "{}",
            "quotaShareName": "nlp",
            "status": "RUNNING",
            "schedulingPriority": 7,
            "capacityUsage": [{"capacityUnit": "ml.g5.xlarge", "quantity": 2.0}],
            "startedAt": 5000,
        },
        {"jobId": "j1"},
    )
    (job,) = AwsBackend(client, concurrency=1).live_jobs(["training"])
    assert (job.job_id, job.share, job.instances, job.started_at, job.priority) == (
        "j1",
        "nlp",
        {"ml.g5.xlarge": 2},
        5.0,
        7,
    )


def test_observe_of_many_queues_on_a_small_pool_does_not_deadlock(
    client: Any, stub: Stubber
) -> None:
    stub.add_response("describe_service_environments", {"serviceEnvironments": []})
    stub.add_response("list_scheduling_policies", {"schedulingPolicies": []})
    stub.add_response("describe_job_queues", {"jobQueues": [queue_item("a"), queue_item("b")]})
    for queue in ("a", "b"):
        stub.add_response(
            "list_quota_shares",
            {"quotaShares": [share_item("x", queue), share_item("y", queue)]},
            {"jobQueue": queue},
        )
    for queue in ("a", "b"):
        for name in ("x", "y"):
            arn = f"{ARN}:job-queue/{queue}/quota-share/{name}"
            stub.add_response("list_tags_for_resource", {"tags": TAGS}, {"resourceArn": arn})
    observed = AwsBackend(client, concurrency=1).observe("demo", [])
    assert len([r for r in observed.resources if r.address.startswith("share.")]) == 4


def test_an_unreachable_endpoint_says_which_setting_to_check() -> None:
    # Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
    unreachable = boto3.client(
        "batch",
        region_name="us-east-1",
        endpoint_url="http://127.0.0.1:9",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(retries={"total_max_attempts": 1}),
    )
    backend = AwsBackend(unreachable)
    with pytest.raises(BackendError) as info:
        backend.create(ShareSpec("training", "nlp", {"ml.g5.xlarge": 4}, tags=TAGS))
    assert info.value.code == "aws-error"
    assert "127.0.0.1:9" in info.value.message
    assert info.value.hint is not None
    assert "--endpoint-url" in info.value.hint
    assert "local serve" in info.value.hint
