"""Where AWS's documentation departs from the model's letter, the emulated account follows
AWS: enum values AWS matches in any case, ``onStatusReason``'s only wildcard (a trailing
``*``), no empty ``tags`` map, statusReasons in AWS's words (never a Python repr), and
``isTerminated`` on a job whose preemption budget is used up. Through boto3, in process and
over ``local serve``; the AWS CLI where it shows."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from typing import TYPE_CHECKING, Any

import pytest

from tests.emulator.emulator_support import TYPE, make_queue, payload

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.emulator.conftest import Account
    from tests.emulator.emulator_support import Served

MAX_RUNTIME = "Received status from SageMaker: MaxRuntimeExceeded"
REPR = re.compile(r"\w+(Error|Exception|Problem)\(")


def _submit(client: Any, queue: str, name: str = "job", **extra: Any) -> dict[str, Any]:
    found: dict[str, Any] = client.submit_service_job(
        jobName=name,
        jobQueue=queue,
        serviceJobType="SAGEMAKER_TRAINING",
        serviceRequestPayload=extra.pop("body", payload()),
        quotaShareName="a",
        **extra,
    )
    return found


def _describe(client: Any, job: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = client.describe_service_job(jobId=job["jobId"])
    return found


def _too_long(client: Any, queue: str, rules: list[dict[str, str]]) -> dict[str, Any]:
    """A job whose attempt outlives MaxRuntimeInSeconds (300 s), with two attempts."""
    return _submit(
        client,
        queue,
        tags={"quotactl:duration": "1h"},
        retryStrategy={"attempts": 2, "evaluateOnExit": rules},
    )


@pytest.mark.parametrize("action", ["Exit", "exit", "eXiT"])
def test_evaluate_on_exit_action_is_matched_in_any_case_and_kept_as_aws_spells_it(
    batch: Account, names: Callable[[str], str], action: str
) -> None:
    client, queue = batch.client, names("q")
    make_queue(client, queue, shares={"a": {}})
    job = _too_long(client, queue, [{"action": action, "onStatusReason": MAX_RUNTIME + "*"}])
    assert _describe(client, job)["retryStrategy"]["evaluateOnExit"][0]["action"] == "EXIT"
    batch.advance(301)
    assert _describe(client, job)["status"] == "FAILED"  # EXIT: not retried


def test_retry_in_title_case_retries_as_retry_does(
    batch: Account, names: Callable[[str], str]
) -> None:
    client, queue = batch.client, names("q")
    make_queue(client, queue, shares={"a": {}})
    job = _too_long(client, queue, [{"action": "Retry", "onStatusReason": "*"}])
    batch.advance(301)
    described = _describe(client, job)
    assert described["status"] in ("RUNNABLE", "SCHEDULED", "STARTING", "RUNNING")
    assert described["retryStrategy"]["evaluateOnExit"] == [
        {"action": "RETRY", "onStatusReason": "*"}
    ]


def test_an_action_that_is_no_value_in_any_case_is_still_refused(inproc: Account) -> None:
    make_queue(inproc.client, "q", shares={"a": {}})
    with pytest.raises(inproc.client.exceptions.ClientException, match="valid values: RETRY"):
        _too_long(inproc.client, "q", [{"action": "Retries", "onStatusReason": "*"}])


@pytest.mark.parametrize(
    ("pattern", "exits"),
    [
        (MAX_RUNTIME + "*", True),  # the start matches
        (MAX_RUNTIME + ": Training job runtime exceeded MaxRuntimeInSeconds", True),  # exact
        ("*MaxRuntimeExceeded*", False),  # a leading * is an ordinary character
        ("Received status from SageMaker: Max*Exceeded*", False),  # so is one in the middle
        ("Received status from SageMaker: MaxRuntimeExceede?*", False),  # ? is no wildcard
        (MAX_RUNTIME, False),  # without the *, the whole reason must match
    ],
)
def test_on_status_reason_matches_exactly_or_by_its_start_before_a_trailing_star(
    inproc: Account, pattern: str, exits: bool
) -> None:
    make_queue(inproc.client, "q", shares={"a": {}})
    job = _too_long(inproc.client, "q", [{"action": "EXIT", "onStatusReason": pattern}])
    inproc.advance(301)
    status = _describe(inproc.client, job)["status"]
    assert (status == "FAILED") is exits, status


def test_describe_responses_leave_out_tags_when_there_are_none(
    batch: Account, names: Callable[[str], str]
) -> None:
    client, queue = batch.client, names("q")
    arns = make_queue(client, queue, shares={"a": {}})
    job = _submit(client, queue)
    assert "tags" not in _describe(client, job)
    assert "tags" not in client.describe_job_queues(jobQueues=[queue])["jobQueues"][0]
    environments = client.describe_service_environments(serviceEnvironments=[f"{queue}-env"])
    assert "tags" not in environments["serviceEnvironments"][0]
    assert "tags" not in client.describe_quota_share(quotaShareArn=arns["a"])
    policies = client.describe_scheduling_policies(arns=[arns["policy"]])["schedulingPolicies"]
    assert "tags" not in policies[0]
    tagged = _submit(client, queue, name="tagged", tags={"team": "a"})
    assert _describe(client, tagged)["tags"] == {"team": "a"}


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        "{}",
        json.dumps({"ResourceConfig": {"InstanceType": TYPE}}),
        json.dumps({"ResourceConfig": {"InstanceType": TYPE, "InstanceCount": 2**31}}),
        json.dumps({"ResourceConfig": {"InstanceType": TYPE, "InstanceCount": "2"}}),
    ],
)
def test_a_payload_sagemaker_refuses_fails_the_job_in_words_not_a_python_repr(
    inproc: Account, body: str
) -> None:
    make_queue(inproc.client, "q", shares={"a": {}})
    job = _submit(inproc.client, "q", body=body)
    inproc.advance(1)
    failed = _describe(inproc.client, job)
    assert failed["status"] == "FAILED"
    reason = failed["statusReason"]
    assert reason.startswith("Received status from SageMaker: ValidationException: ")
    assert not REPR.search(reason), reason
    assert "('" not in reason


def test_a_job_failed_when_its_preemption_budget_is_used_up_is_terminated(
    batch: Account, names: Callable[[str], str]
) -> None:
    client, queue = batch.client, names("q")
    make_queue(client, queue, capacity={TYPE: 1}, shares={"a": {"preemption": "ENABLED"}})
    low = _submit(
        client,
        queue,
        name="low",
        schedulingPriority=1,
        preemptionConfiguration={"preemptionRetriesBeforeTermination": 0},
    )
    batch.advance(60)
    assert _describe(client, low)["status"] == "RUNNING"
    _submit(client, queue, name="high", schedulingPriority=9)
    batch.advance(60)
    failed = _describe(client, low)
    assert failed["status"] == "FAILED"
    assert failed["isTerminated"] is True
    listed = client.list_service_jobs(jobQueue=queue, jobStatus="FAILED")["jobSummaryList"]
    assert [j.get("isTerminated") for j in listed if j["jobId"] == low["jobId"]] == [True]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("aws") is None, reason="the AWS CLI (`aws`) is not installed")
def test_the_aws_cli_submits_a_title_case_action_and_reads_it_back(
    served: Served, names: Callable[[str], str], tmp_path: Any
) -> None:
    from tests.emulator.conftest import http_client

    queue = names("q")
    make_queue(http_client(served.url), queue, shares={"a": {}})
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "QUOTACTL_"))}
    env.update(
        AWS_ACCESS_KEY_ID="test",
        AWS_SECRET_ACCESS_KEY="test",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_CONFIG_FILE=os.devnull,
        AWS_SHARED_CREDENTIALS_FILE=os.devnull,
    )

    def aws(*args: str) -> dict[str, Any]:
        result = subprocess.run(
            ["aws", "batch", *args, "--endpoint-url", served.url, "--output", "json"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        found: dict[str, Any] = json.loads(result.stdout)
        return found

    job = aws(
        "submit-service-job",
        "--job-name",
        "cli",
        "--job-queue",
        queue,
        "--service-job-type",
        "SAGEMAKER_TRAINING",
        "--service-request-payload",
        payload(),
        "--quota-share-name",
        "a",
        "--retry-strategy",
        json.dumps({"attempts": 2, "evaluateOnExit": [{"action": "Retry", "onStatusReason": "*"}]}),
    )
    described = aws("describe-service-job", "--job-id", job["jobId"])
    assert described["retryStrategy"]["evaluateOnExit"][0]["action"] == "RETRY"
    assert "tags" not in described
