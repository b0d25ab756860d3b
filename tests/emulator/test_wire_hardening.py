"""Malformed requests are a 400 ClientException naming the member, never a 500, and nothing
unchecked is stored: the five inputs that once answered 500, structures that were echoed
back as sent, integers past int32, and ARNs of another account, region or partition."""

from __future__ import annotations

import base64
import json
import sqlite3
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given, strategies as st

from tests.emulator.emulator_support import POLICY, TYPE, make_queue, payload
from tests.emulator.wire_support import output_problems, raw

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.emulator.conftest import Account

REASON = "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED"
ACCOUNT = "arn:aws:batch:us-east-1:123456789012"


def job_request(queue: str, **extra: Any) -> dict[str, Any]:
    return {
        "jobName": "j",
        "jobQueue": queue,
        "serviceJobType": "SAGEMAKER_TRAINING",
        "serviceRequestPayload": payload(),
        "quotaShareName": "a",
        **extra,
    }


def assert_client_error(answer: Any, *parts: str) -> None:
    assert answer.status == 400, answer
    assert answer.code == "ClientException"
    for part in parts:
        assert part in answer.message, answer.message


# -- the five 500s -----------------------------------------------------------------------
def test_a_time_limit_action_without_max_time_is_refused(
    batch: Account, names: Callable[[str], str]
) -> None:
    queue = names("q")
    make_queue(batch.client, queue, shares={"a": {"limit": 1}})
    action = {"reason": REASON, "state": "RUNNABLE", "action": "TERMINATE"}
    answer = raw(batch, "UpdateJobQueue", {"jobQueue": queue, "jobStateTimeLimitActions": [action]})
    assert_client_error(answer, "jobStateTimeLimitActions[0]", '"maxTimeSeconds"')
    stored = batch.client.describe_job_queues(jobQueues=[queue])["jobQueues"][0]
    assert stored.get("jobStateTimeLimitActions", []) == []


def test_an_old_state_file_with_such_an_action_still_answers(inproc: Account) -> None:
    client = inproc.client
    make_queue(client, "q", shares={"a": {"limit": 1}})
    with sqlite3.connect(inproc.state) as db:  # what an older version stored unchecked
        (doc,) = db.execute("SELECT doc FROM resources WHERE kind = 'job-queue'").fetchone()
        queue = json.loads(doc)
        queue["job_state_time_limit_actions"] = [
            {"reason": REASON, "state": "RUNNABLE", "action": "TERMINATE"},
            {"reason": REASON, "state": "RUNNABLE", "action": "TERMINATE", "maxTimeSeconds": "x"},
        ]
        db.execute("UPDATE resources SET doc = ? WHERE kind = 'job-queue'", (json.dumps(queue),))
    job = client.submit_service_job(**job_request("q", serviceRequestPayload=payload(count=2)))
    for _ in range(3):
        client.list_service_jobs(jobQueue="q")
    inproc.advance(3600)
    described = client.describe_service_job(jobId=job["jobId"])
    assert described["status"] == "RUNNABLE"
    assert described["statusReason"].startswith(REASON)
    shown = client.describe_job_queues(jobQueues=["q"])["jobQueues"][0]
    assert shown.get("jobStateTimeLimitActions", []) == []


@pytest.mark.parametrize("depth", [40, 100_000])
def test_a_deeply_nested_body_is_refused(batch: Account, depth: int) -> None:
    body = '{"arns": ' + "[" * depth + "]" * depth + "}"
    answer = raw(batch, "DescribeSchedulingPolicies", body)
    assert_client_error(answer, "nests deeper than 32 levels")


SURROGATE = "\ud800"
SURROGATE_CASES = [
    ("tag key", "CreateSchedulingPolicy", {"name": "p", "tags": {SURROGATE: "v"}}, "tags (key:"),
    ("tag value", "CreateSchedulingPolicy", {"name": "p", "tags": {"k": SURROGATE}}, "tags.k"),
    ("name", "CreateSchedulingPolicy", {"name": "p" + SURROGATE}, "parameter name"),
    (
        "client token",
        "SubmitServiceJob",
        {**job_request("q"), "clientToken": SURROGATE},
        "clientToken",
    ),
    (
        "filter value",
        "ListServiceJobs",
        {"filters": [{"name": "JOB_NAME", "values": [SURROGATE]}]},
        "filters[0].values[0]",
    ),
    ("queue name", "DescribeJobQueues", {"jobQueues": ["q" + SURROGATE]}, "jobQueues[0]"),
]


@pytest.mark.parametrize(
    ("operation", "body", "member"),
    [c[1:] for c in SURROGATE_CASES],
    ids=[c[0] for c in SURROGATE_CASES],
)
def test_a_lone_surrogate_in_any_string_is_refused(
    batch: Account, operation: str, body: dict[str, Any], member: str
) -> None:
    answer = raw(batch, operation, body)
    assert_client_error(answer, member, "lone surrogate")


def test_a_surrogate_escaped_in_the_uri_is_refused(batch: Account) -> None:
    answer = raw(batch, "ListTagsForResource", b"", path="/v1/tags/arn%ED%A0%80")
    assert answer.status == 400


@pytest.mark.parametrize("after", [10**30, 2**63, -1, 1.5, True, "7"])
def test_a_tampered_next_token_is_refused(
    batch: Account, names: Callable[[str], str], after: Any
) -> None:
    queue = names("q")
    make_queue(batch.client, queue)
    token = base64.urlsafe_b64encode(json.dumps({"op": "ListQuotaShares", "after": after}).encode())
    with pytest.raises(batch.client.exceptions.ClientException, match=r"nextToken .* is invalid"):
        batch.client.list_quota_shares(jobQueue=queue, nextToken=token.decode())
    jobs = base64.urlsafe_b64encode(json.dumps({"op": "ListServiceJobs", "after": after}).encode())
    with pytest.raises(batch.client.exceptions.ClientException, match=r"nextToken .* is invalid"):
        batch.client.list_service_jobs(nextToken=jobs.decode())


BAD_PAYLOADS = [
    ('"InstanceCount": 1e999', "out of range"),
    ('"InstanceCount": 1e30', "ResourceConfig.InstanceCount"),
    ('"InstanceCount": 10000000000000000000000000000000', "ResourceConfig.InstanceCount"),
    ('"InstanceCount": NaN', "NaN is not a JSON value"),
    ('"InstanceCount": "2"', "ResourceConfig.InstanceCount"),
    ('"InstanceCount": 2.5', "ResourceConfig.InstanceCount"),
]


@pytest.mark.parametrize(("count", "why"), BAD_PAYLOADS, ids=[p[0] for p in BAD_PAYLOADS])
def test_a_payload_sagemaker_would_refuse_fails_the_job_at_start(
    batch: Account, names: Callable[[str], str], count: str, why: str
) -> None:
    queue = names("q")
    make_queue(batch.client, queue, shares={"a": {}})
    body = payload().replace('"InstanceCount": 1', count)
    job = batch.client.submit_service_job(**job_request(queue, serviceRequestPayload=body))
    for _ in range(3):
        described = batch.client.describe_service_job(jobId=job["jobId"])
    assert described["status"] == "FAILED"
    assert described["statusReason"].startswith(
        "Received status from SageMaker: ValidationException"
    )
    assert why in described["statusReason"]
    assert batch.client.get_job_queue_snapshot(jobQueue=queue)["frontOfQueue"]["jobs"] == []


def test_a_stopping_condition_out_of_range_fails_the_job_at_start(
    batch: Account, names: Callable[[str], str]
) -> None:
    queue = names("q")
    make_queue(batch.client, queue, shares={"a": {}})
    body = payload().replace('"MaxRuntimeInSeconds": 300', '"MaxRuntimeInSeconds": 4294967296')
    job = batch.client.submit_service_job(**job_request(queue, serviceRequestPayload=body))
    for _ in range(3):
        described = batch.client.describe_service_job(jobId=job["jobId"])
    assert described["status"] == "FAILED"
    assert "StoppingCondition.MaxRuntimeInSeconds" in described["statusReason"]


# -- structures once stored as sent -------------------------------------------------------
ECHOED = [
    (
        "fairshare wrong type",
        {"fairsharePolicy": {"shareDecaySeconds": "3600"}},
        "fairsharePolicy.shareDecaySeconds",
    ),
    ("fairshare null", {"fairsharePolicy": {"computeReservation": None}}, "computeReservation"),
    ("fairshare unknown", {"fairsharePolicy": {"weights": {}}}, 'in fairsharePolicy: "weights"'),
    (
        "fairshare missing identifier",
        {"fairsharePolicy": {"shareDistribution": [{"weightFactor": 1.0}]}},
        'fairsharePolicy.shareDistribution[0]: "shareIdentifier"',
    ),
    (
        "fairshare decay range",
        {"fairsharePolicy": {"shareDecaySeconds": 604_801}},
        "fairsharePolicy.shareDecaySeconds must be between 0 and 604800",
    ),
    (
        "fairshare weight range",
        {"fairsharePolicy": {"shareDistribution": [{"shareIdentifier": "A", "weightFactor": 0}]}},
        "shareDistribution[0].weightFactor must be between",
    ),
    (
        "fairshare overlap",
        {
            "fairsharePolicy": {
                "shareDistribution": [{"shareIdentifier": "Team*"}, {"shareIdentifier": "TeamA"}]
            }
        },
        "overlaps 'Team*'",
    ),
    (
        "lower-case enum",
        {"quotaSharePolicy": {"idleResourceAssignmentStrategy": "fifo"}},
        "quotaSharePolicy.idleResourceAssignmentStrategy",
    ),
    ("quota policy null", {"quotaSharePolicy": None}, "quotaSharePolicy"),
]


@pytest.mark.parametrize(("extra", "member"), [c[1:] for c in ECHOED], ids=[c[0] for c in ECHOED])
def test_a_malformed_policy_is_refused_and_not_stored(
    batch: Account, names: Callable[[str], str], extra: dict[str, Any], member: str
) -> None:
    name = names("p")
    answer = raw(batch, "CreateSchedulingPolicy", {"name": name, **extra})
    assert_client_error(answer, member)
    listed = batch.client.list_scheduling_policies()["schedulingPolicies"]
    assert not [p for p in listed if p["arn"].endswith(f"/{name}")]


def test_a_well_formed_fairshare_policy_round_trips(
    batch: Account, names: Callable[[str], str]
) -> None:
    policy = {
        "shareDecaySeconds": 3600,
        "computeReservation": 50,
        "shareDistribution": [{"shareIdentifier": "TeamA", "weightFactor": 0.5}],
    }
    arn = batch.client.create_scheduling_policy(name=names("fs"), fairsharePolicy=policy)["arn"]
    answer = raw(batch, "DescribeSchedulingPolicies", {"arns": [arn]})
    assert answer.status == 200
    assert output_problems("DescribeSchedulingPolicies", answer.body) == []
    assert answer.body["schedulingPolicies"][0]["fairsharePolicy"] == policy


JOB_ECHOED = [
    (
        "retry not a value in any case",
        {"retryStrategy": {"attempts": 2, "evaluateOnExit": [{"action": "retries"}]}},
        "retryStrategy.evaluateOnExit[0].action",
    ),
    ("retry no attempts", {"retryStrategy": {}}, 'in retryStrategy: "attempts"'),
    ("retry unknown", {"retryStrategy": {"attempts": 1, "delay": 5}}, 'in retryStrategy: "delay"'),
    ("retry string", {"retryStrategy": {"attempts": "2"}}, "retryStrategy.attempts"),
    (
        "preemption string",
        {"preemptionConfiguration": {"preemptionRetriesBeforeTermination": "2"}},
        "preemptionConfiguration.preemptionRetriesBeforeTermination",
    ),
    ("preemption null", {"preemptionConfiguration": None}, "preemptionConfiguration"),
    (
        "timeout bool",
        {"timeoutConfig": {"attemptDurationSeconds": True}},
        "timeoutConfig.attemptDurationSeconds",
    ),
    (
        "timeout past int32",
        {"timeoutConfig": {"attemptDurationSeconds": 2**31}},
        "timeoutConfig.attemptDurationSeconds",
    ),
    ("priority float", {"schedulingPriority": 1.0}, "schedulingPriority"),
    ("tags not a map", {"tags": ["a"]}, "tags"),
    ("type lower-case", {"serviceJobType": "sagemaker_training"}, "serviceJobType"),
]


@pytest.mark.parametrize(
    ("extra", "member"), [c[1:] for c in JOB_ECHOED], ids=[c[0] for c in JOB_ECHOED]
)
def test_a_malformed_job_is_refused_and_not_stored(
    inproc: Account, extra: dict[str, Any], member: str
) -> None:
    make_queue(inproc.client, "q", shares={"a": {}})
    answer = raw(inproc, "SubmitServiceJob", job_request("q", **extra))
    assert_client_error(answer, member)
    listed = inproc.client.list_service_jobs(jobQueue="q", jobStatus="SUBMITTED")
    assert listed["jobSummaryList"] == []


@pytest.mark.parametrize("count", [2**31, 10**30])
def test_capacity_past_int32_is_refused(
    batch: Account, names: Callable[[str], str], count: int
) -> None:
    """boto3 sends these (it checks no maximum); the service refuses them."""
    with pytest.raises(batch.client.exceptions.ClientException, match="maxCapacity"):
        batch.client.create_service_environment(
            serviceEnvironmentName=names("big"),
            serviceEnvironmentType="SAGEMAKER_TRAINING",
            capacityLimits=[{"capacityUnit": TYPE, "maxCapacity": count}],
        )


def test_a_queue_order_entry_without_order_is_refused(
    batch: Account, names: Callable[[str], str]
) -> None:
    queue = names("q")
    make_queue(batch.client, queue)
    policy = batch.client.create_scheduling_policy(name=names("p"), quotaSharePolicy=POLICY)
    answer = raw(
        batch,
        "CreateJobQueue",
        {
            "jobQueueName": names("q2"),
            "priority": 1,
            "schedulingPolicyArn": policy["arn"],
            "serviceEnvironmentOrder": [{"serviceEnvironment": f"{queue}-env"}],
        },
    )
    assert_client_error(answer, 'serviceEnvironmentOrder[0]: "order"')


@pytest.mark.parametrize(
    "body",
    [b"[]", b'"x"', b"{", b'{"maxResults": 1} x', b'{"maxResults": Infinity}', b"\xff\xfe"],
)
def test_a_body_that_is_not_a_json_object_is_refused(batch: Account, body: bytes) -> None:
    answer = raw(batch, "ListSchedulingPolicies", body)
    assert answer.status == 400
    assert answer.message


# -- ARNs of another account, region or partition ----------------------------------------
@pytest.mark.parametrize(
    "prefix",
    [
        "arn:aws:batch:us-east-1:210987654321",
        "arn:aws:batch:eu-west-1:123456789012",
        "arn:aws-cn:batch:us-east-1:123456789012",
    ],
    ids=["account", "region", "partition"],
)
def test_an_arn_of_another_account_names_nothing(
    batch: Account, names: Callable[[str], str], prefix: str
) -> None:
    client = batch.client
    queue = names("q")
    arns = make_queue(client, queue, shares={"a": {}})
    job = client.submit_service_job(**job_request(queue))
    foreign = {key: value.replace(ACCOUNT, prefix) for key, value in arns.items()}
    foreign_job = job["jobArn"].replace(ACCOUNT, prefix)
    assert client.describe_job_queues(jobQueues=[foreign["queue"]])["jobQueues"] == []
    missing = client.exceptions.ClientException
    with pytest.raises(missing, match="does not exist"):
        client.update_job_queue(jobQueue=foreign["queue"], priority=2)
    with pytest.raises(missing, match="does not exist"):
        client.describe_service_job(jobId=foreign_job)
    with pytest.raises(missing, match="does not exist"):
        client.describe_quota_share(quotaShareArn=foreign["a"])
    with pytest.raises(missing, match="does not exist"):
        client.list_tags_for_resource(resourceArn=foreign["queue"])
    with pytest.raises(missing, match="does not exist"):
        client.list_tags_for_resource(resourceArn=foreign_job)
    assert client.describe_scheduling_policies(arns=[foreign["policy"]])["schedulingPolicies"] == []
    client.terminate_service_jobs(jobs=[foreign_job], reason="r")
    assert client.describe_service_job(jobId=job["jobId"])["status"] != "FAILED"


@pytest.mark.parametrize("value", ["\u00b2", "9" * 5000, "1e3", " 12"])
def test_a_created_at_filter_takes_ascii_digits_only(batch: Account, value: str) -> None:
    """'²'.isdigit() is true but int('²') fails: this answered 500 once."""
    filters = [{"name": "BEFORE_CREATED_AT", "values": [value]}]
    with pytest.raises(batch.client.exceptions.ClientException, match="epoch milliseconds"):
        batch.client.list_service_jobs(filters=filters)


@given(
    stored=st.lists(st.dictionaries(st.text(), st.integers() | st.text(), max_size=3), max_size=5),
    rest=st.dictionaries(st.text(), st.integers() | st.text() | st.none(), max_size=3),
)
def test_a_body_with_stored_items_is_the_json_a_client_parses(
    stored: list[dict[str, Any]], rest: dict[str, Any]
) -> None:
    from quotactl.emulator.wire import rest_json as wire

    members = {**rest, "jobSummaryList": wire.StoredJSON(json.dumps(i) for i in stored)}
    body = wire.ok(members, "rid").body
    assert json.loads(body) == wire.decoded(members) == {**rest, "jobSummaryList": stored}
