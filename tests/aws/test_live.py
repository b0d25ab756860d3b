"""The live-queue reader against botocore's Stubber: AWS-shaped responses, every request
checked against botocore's Batch model, ListServiceJobs and ListQuotaShares paginated.

With one worker the reader's calls come in a fixed order: the queue, then the environment,
the shares, the snapshot and the first page of each status, then the follow-ups (tags of
each share, DescribeServiceJob of each job that was ever dispatched, and a status of more
than one page read again share by share, each share's list paginated).
"""

from __future__ import annotations

from email.utils import formatdate
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import boto3
import pytest
from botocore.stub import Stubber

from quotactl.aws.live import LiveReader, describe_none
from quotactl.aws.permissions import OPERATIONS
from quotactl.core.engine import JobStatus
from quotactl.core.status.compute import queue_status
from quotactl.errors import BackendError, QuotactlError

if TYPE_CHECKING:
    from collections.abc import Iterator

ARN = "arn:aws:batch:us-east-1:123456789012"
QUEUE_ARN = f"{ARN}:job-queue/training"
P5 = "ml.p5.48xlarge"
T0 = 1_796_119_200_000  # epoch ms: 2026-12-01T10:00:00Z
NOW = T0 / 1000 + 7200 + 6 * 3600  # the Date of the snapshot's answer
STATUSES = ("SUBMITTED", "RUNNABLE", "SCHEDULED", "STARTING", "RUNNING")


@pytest.fixture
def client() -> Any:
    return boto3.client(
        "batch", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x"
    )


@pytest.fixture
def reader(client: Any) -> Iterator[LiveReader]:
    """One worker: the calls come in a fixed order, as the Stubber needs."""
    with LiveReader(client, concurrency=1) as built:
        yield built


@pytest.fixture
def stub(client: Any, reader: LiveReader) -> Iterator[Stubber]:
    with Stubber(client) as stubber:
        yield stubber
        stubber.assert_no_pending_responses()


def queue_item(name: str = "training", **extra: Any) -> dict[str, Any]:
    return {
        "jobQueueName": name,
        "jobQueueArn": f"{ARN}:job-queue/{name}",
        "state": "ENABLED",
        "status": "VALID",
        "priority": 10,
        "schedulingPolicyArn": f"{ARN}:scheduling-policy/{name}-quota",
        "computeEnvironmentOrder": [],
        "serviceEnvironmentOrder": [
            {"order": 1, "serviceEnvironment": f"{ARN}:service-environment/gpu"}
        ],
        "jobQueueType": "SAGEMAKER_TRAINING",
        **extra,
    }


def share_item(name: str, limit: int, strategy: str, borrow: int | None = None) -> dict[str, Any]:
    sharing: dict[str, Any] = {"strategy": strategy}
    if borrow is not None:
        sharing["borrowLimit"] = borrow
    return {
        "quotaShareName": name,
        "quotaShareArn": f"{QUEUE_ARN}/quota-share/{name}",
        "jobQueueArn": QUEUE_ARN,
        "capacityLimits": [{"capacityUnit": P5, "maxCapacity": limit}],
        "resourceSharingConfiguration": sharing,
        "preemptionConfiguration": {"inSharePreemption": "DISABLED"},
        "state": "ENABLED",
        "status": "VALID",
    }


def summary(job_id: str, share: str, status: str, count: int, **times: int) -> dict[str, Any]:
    return {
        "jobId": job_id,
        "jobArn": f"{ARN}:service-job/{job_id}",
        "jobName": f"job-{job_id}",
        "serviceJobType": "SAGEMAKER_TRAINING",
        "quotaShareName": share,
        "status": status,
        "capacityUsage": [{"capacityUnit": P5, "quantity": float(count)}],
        "createdAt": T0,
        **times,
    }


def detail(item: dict[str, Any], priority: int, preempted_at: list[int]) -> dict[str, Any]:
    out = {
        **item,
        "jobQueue": QUEUE_ARN,
        "schedulingPriority": priority,
        "startedAt": item.get("startedAt", T0),
        "attempts": [{"startedAt": T0}] * (len(preempted_at) + 1),
        "isTerminated": False,
    }
    if preempted_at:
        out["preemptionSummary"] = {
            "preemptedAttemptCount": len(preempted_at),
            "recentPreemptedAttempts": [
                {"startedAt": T0, "stoppedAt": at, "statusReason": "Cross-share preemption"}
                for at in preempted_at
            ],
        }
    return out


def expect_reads(stub: Stubber, runnable_pages: int = 2, *, describes: bool = True) -> None:
    """One queue, a borrower and a lender, 1 running + 2 x 100 RUNNABLE jobs (2 pages),
    one RUNNABLE job of them preempted an hour ago."""
    stub.add_response(
        "describe_job_queues", {"jobQueues": [queue_item()]}, {"jobQueues": ["training"]}
    )
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
                    "capacityLimits": [{"capacityUnit": P5, "maxCapacity": 8}],
                }
            ]
        },
        {"serviceEnvironments": ["gpu"]},
    )
    stub.add_response(
        "list_quota_shares",
        {"quotaShares": [share_item("nlp", 4, "LEND_AND_BORROW", 100)], "nextToken": "s2"},
        {"jobQueue": "training"},
    )
    stub.add_response(
        "list_quota_shares",
        {"quotaShares": [share_item("research", 4, "LEND")]},
        {"jobQueue": "training", "nextToken": "s2"},
    )
    stub.add_response(
        "get_job_queue_snapshot",
        {
            "frontOfQuotaShares": {
                "quotaShares": {
                    "nlp": [{"jobArn": f"{ARN}:service-job/w0", "earliestTimeAtPosition": T0}]
                },
                "lastUpdatedAt": T0 + 7_200_000,
            },
            "queueUtilization": {
                "totalCapacityUsage": [{"capacityUnit": P5, "quantity": 6.0}],
                "lastUpdatedAt": T0 + 7_200_000,
            },
            # AWS's clock, six hours after the data last changed
            "ResponseMetadata": {"HTTPHeaders": {"date": formatdate(NOW, usegmt=True)}},
        },
        {"jobQueue": "training"},
    )
    waiting = [
        summary(f"w{i}", "nlp", "RUNNABLE", 1, **({"scheduledAt": T0} if i == 0 else {}))
        for i in range(100 * runnable_pages)
    ]
    running = summary("r1", "nlp", "RUNNING", 6, scheduledAt=T0, startedAt=T0 + 60_000)
    for status in STATUSES:
        jobs = {"RUNNABLE": waiting[:100], "RUNNING": [running]}.get(status, [])
        response: dict[str, Any] = {"jobSummaryList": jobs}
        if status == "RUNNABLE" and runnable_pages > 1:
            response["nextToken"] = "p1"
        stub.add_response(
            "list_service_jobs",
            response,
            {"jobQueue": "training", "jobStatus": status, "maxResults": 100},
        )
    for name in ("nlp", "research"):
        stub.add_response(
            "list_tags_for_resource",
            {"tags": {"quotactl:team": f"team-{name}"}},
            {"resourceArn": f"{QUEUE_ARN}/quota-share/{name}"},
        )
    # follow-ups in the order their lists were handled: RUNNABLE w0 (dispatched once), the
    # rest of RUNNABLE share by share (nlp's in pages; w0 is not described twice), then r1
    if describes:
        stub.add_response(
            "describe_service_job", detail(waiting[0], 5, [T0 + 3_600_000]), {"jobId": "w0"}
        )
    if runnable_pages > 1:
        by_share = {"jobQueue": "training", "jobStatus": "RUNNABLE"}
        nlp = [{"name": "QUOTA_SHARE_NAME", "values": ["nlp"]}]
        for page in range(runnable_pages):
            params: dict[str, Any] = {**by_share, "filters": nlp}
            if page:
                params["nextToken"] = f"n{page}"
            found: dict[str, Any] = {"jobSummaryList": waiting[page * 100 : page * 100 + 100]}
            if page + 1 < runnable_pages:
                found["nextToken"] = f"n{page + 1}"
            stub.add_response("list_service_jobs", found, params)
        research = [{"name": "QUOTA_SHARE_NAME", "values": ["research"]}]
        stub.add_response(
            "list_service_jobs", {"jobSummaryList": []}, {**by_share, "filters": research}
        )
    if describes:
        stub.add_response("describe_service_job", detail(running, 3, []), {"jobId": "r1"})


def test_a_queue_is_read_in_full_through_paginators(reader: LiveReader, stub: Stubber) -> None:
    expect_reads(stub)
    queue = reader.read_queue("training")  # the Stubber checks each call, in order
    assert queue.model.capacity == {P5: 8}
    assert [(s.name, s.team, s.borrow_limit) for s in queue.shares] == [
        ("nlp", "team-nlp", 100),
        ("research", "team-research", -1),
    ]
    assert len(queue.jobs) == 201
    running = queue.job("r1")
    assert running is not None
    assert (running.status, running.instances, running.priority) == (JobStatus.RUNNING, {P5: 6}, 3)
    assert (running.created_at, running.started_at) == (T0 / 1000, T0 / 1000 + 60)
    preempted = queue.job("w0")
    assert preempted is not None
    assert (preempted.priority, preempted.preemptions, preempted.attempts) == (5, 1, 2)
    listed = queue.job("w1")
    assert listed is not None
    assert not listed.detailed
    # the account's clock: the snapshot answer's Date header, not its lastUpdatedAt (6 h older)
    assert queue.read_at == NOW
    assert queue.head("nlp") == preempted


def test_status_figures_from_the_aws_shaped_read(reader: LiveReader, stub: Stubber) -> None:
    expect_reads(stub)
    status = queue_status(reader.read_queue("training"))
    nlp, research = status.shares
    (row,) = nlp.capacity
    assert (row.limit, row.in_use, row.own, row.borrowed, row.headroom) == (4, 6, 4, 2, 2)
    assert nlp.jobs == {
        "SUBMITTED": 0,
        "RUNNABLE": 200,
        "SCHEDULED": 0,
        "STARTING": 0,
        "RUNNING": 1,
    }
    assert nlp.preempted_24h == 1
    assert nlp.head is not None
    assert nlp.head.job_id == "w0"
    assert research.capacity[0].lent == Fraction(2)
    assert [(b.borrower, b.lender, b.instances) for b in status.borrowing] == [
        ("nlp", "research", Fraction(2))
    ]


def test_iam_policy_grants_status_every_call_it_makes() -> None:
    """The reads above are every operation status makes; iam-policy grants status exactly these."""
    made = {
        "DescribeJobQueues",
        "DescribeServiceEnvironments",
        "ListQuotaShares",
        "GetJobQueueSnapshot",
        "ListServiceJobs",
        "ListTagsForResource",
        "DescribeServiceJob",
        "DescribeSchedulingPolicies",  # which queues are quota-managed: their policy says
    }
    assert {op for op, spec in OPERATIONS.items() if "status" in spec.commands} == made


def test_lists_only_with_describe_none(reader: LiveReader, stub: Stubber) -> None:
    expect_reads(stub, runnable_pages=1, describes=False)
    queue = reader.read_queue("training", describe=describe_none)
    assert len(queue.jobs) == 101
    assert not any(j.detailed for j in queue.jobs)


def test_a_queue_that_does_not_exist_is_not_found(reader: LiveReader, stub: Stubber) -> None:
    stub.add_response("describe_job_queues", {"jobQueues": []}, {"jobQueues": ["nope"]})
    with pytest.raises(QuotactlError) as info:
        reader.read_queue("nope")
    assert info.value.code == "not-found"


def test_only_quota_managed_queues_are_listed(reader: LiveReader, stub: Stubber) -> None:
    fifo = {k: v for k, v in queue_item("fifo").items() if k != "schedulingPolicyArn"}
    stub.add_response(
        "describe_job_queues",
        {
            "jobQueues": [
                queue_item("training"),
                queue_item("ecs", jobQueueType="ECS"),
                queue_item("gone", status="DELETING"),
            ],
            "nextToken": "t",
        },
        {},
    )
    stub.add_response(
        "describe_job_queues",
        {"jobQueues": [queue_item("eval"), queue_item("fair"), fifo]},
        {"nextToken": "t"},
    )
    stub.add_response(
        "describe_scheduling_policies",
        {
            "schedulingPolicies": [
                {"name": n, "arn": f"{ARN}:scheduling-policy/{n}-quota", **policy}
                for n, policy in (
                    ("eval", {"quotaSharePolicy": {"idleResourceAssignmentStrategy": "FIFO"}}),
                    ("fair", {"fairsharePolicy": {"shareDecaySeconds": 0}}),
                    ("training", {"quotaSharePolicy": {"idleResourceAssignmentStrategy": "FIFO"}}),
                )
            ]
        },
        {"arns": [f"{ARN}:scheduling-policy/{n}-quota" for n in ("eval", "fair", "training")]},
    )
    # a fair-share queue (its policy has no quotaSharePolicy) is never taken for quota-managed
    assert reader.queue_names() == ["eval", "training"]


def test_a_failed_read_raises_the_aws_error_and_leaves_the_pool_usable(
    reader: LiveReader, stub: Stubber
) -> None:
    stub.add_response(
        "describe_job_queues", {"jobQueues": [queue_item()]}, {"jobQueues": ["training"]}
    )
    stub.add_client_error(
        "describe_service_environments", "ServerException", "boom", http_status_code=500
    )
    with pytest.raises(BackendError) as info:
        reader.read_queue("training")
    assert info.value.retryable
    assert "boom" in info.value.message
    stub.add_response("describe_job_queues", {"jobQueues": []}, {"jobQueues": ["x"]})
    with pytest.raises(QuotactlError):
        reader.read_queue("x")
