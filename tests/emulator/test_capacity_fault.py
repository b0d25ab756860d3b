"""The ``capacity`` fault: SageMaker short of instances, as AWS Batch reports it. A start
fails back to RUNNABLE with AWS's ``CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY`` reason, Batch
tries again without using up ``retryStrategy``, keeps only the newest failed training job,
and the wait counts toward a queue's ``jobStateTimeLimitActions``. Through boto3."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from quotactl.emulator.faults import EVERY_TYPE, parse_faults
from quotactl.errors import UsageError
from tests.conftest import TEST_TIMING
from tests.emulator.emulator_support import TYPE, make_queue, payload

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from quotactl.emulator import Emulator

SHORT = "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY - Unable to provision requested compute resources"
P5 = "ml.p5.48xlarge"


@pytest.fixture
def account(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[Emulator, Any]]:
    from quotactl.aws.session import Target, client, make_session
    from quotactl.emulator import Emulator

    target = Target("local", tmp_path / "state.db", timing=TEST_TIMING)
    emulator = Emulator(target.state_path, faults=request.param, timing=TEST_TIMING)
    batch = client(
        target,
        session=make_session(target, emulator=emulator),
        retries={"total_max_attempts": 1},
    )
    make_queue(
        batch,
        "q",
        capacity={TYPE: 2, P5: 2},
        shares={"a": {"limit": 2}, "p": {"limit": 2, "instance_type": P5}},
    )
    yield emulator, batch
    batch.close()
    emulator.close()


def _submit(batch: Any, share: str = "a", instance_type: str = TYPE) -> str:
    job_id: str = batch.submit_service_job(
        jobName="job",
        jobQueue="q",
        serviceJobType="SAGEMAKER_TRAINING",
        serviceRequestPayload=payload(instance_type),
        quotaShareName=share,
        retryStrategy={"attempts": 1},
        tags={"quotactl:duration": "2m"},
    )["jobId"]
    return job_id


def _seen(batch: Any, job_id: str, reads: int = 4) -> list[tuple[str, str | None]]:
    found = [batch.describe_service_job(jobId=job_id) for _ in range(reads)]
    return [(j["status"], j.get("statusReason")) for j in found]


@pytest.mark.parametrize("account", ["capacity=1"], indirect=True)
def test_a_start_short_of_instances_goes_back_to_runnable_with_aws_reason(
    account: tuple[Emulator, Any],
) -> None:
    emulator, batch = account
    job_id = _submit(batch)
    assert _seen(batch, job_id) == [
        ("SUBMITTED", None),
        ("SCHEDULED", None),
        ("RUNNABLE", SHORT),
        ("RUNNABLE", SHORT),
    ]
    for _ in range(5):  # Batch keeps trying; retryStrategy.attempts=1 is never used up
        emulator.advance(61)
    described = batch.describe_service_job(jobId=job_id)
    assert (described["status"], described["statusReason"]) == ("RUNNABLE", SHORT)
    assert "isTerminated" not in described or described["isTerminated"] is False
    (attempt,) = described["attempts"]  # only the newest failed training job is kept
    assert attempt["statusReason"] == SHORT
    assert emulator.faults.injected["CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY"] == 6


@pytest.mark.parametrize("account", [f"capacity={P5}:1"], indirect=True)
def test_the_fault_can_name_one_instance_type(account: tuple[Emulator, Any]) -> None:
    emulator, batch = account
    g5 = _submit(batch)
    p5 = _submit(batch, "p", P5)
    emulator.advance(60)
    assert batch.describe_service_job(jobId=g5)["status"] == "RUNNING"
    assert batch.describe_service_job(jobId=p5)["statusReason"] == SHORT


@pytest.mark.parametrize("account", ["capacity=0.5,seed=7"], indirect=True)
def test_a_job_short_of_instances_starts_once_sagemaker_has_them(
    account: tuple[Emulator, Any],
) -> None:
    emulator, batch = account
    jobs = [_submit(batch) for _ in range(2)]
    for _ in range(20):
        emulator.advance(61)
    assert emulator.faults.injected["CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY"] >= 1
    assert [batch.describe_service_job(jobId=j)["status"] for j in jobs] == ["SUCCEEDED"] * 2


@pytest.mark.parametrize("account", ["capacity=1"], indirect=True)
def test_the_wait_for_instances_counts_toward_the_queue_time_limit(
    account: tuple[Emulator, Any],
) -> None:
    emulator, batch = account
    batch.update_job_queue(
        jobQueue="q",
        jobStateTimeLimitActions=[
            {
                "reason": "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY",
                "state": "RUNNABLE",
                "maxTimeSeconds": 600,
                "action": "TERMINATE",
            }
        ],
    )
    job_id = _submit(batch)
    _seen(batch, job_id)
    emulator.advance(590)  # RUNNABLE, retried every minute: each spell is short, the sum is not
    assert batch.describe_service_job(jobId=job_id)["status"] == "RUNNABLE"
    emulator.advance(20)
    ended = batch.describe_service_job(jobId=job_id)
    assert ended["status"] == "FAILED"
    assert ended["isTerminated"] is True
    assert ended["statusReason"] == (
        "Terminated by JobStateTimeLimit action due to reason: "
        "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY"
    )


@pytest.mark.parametrize(
    ("text", "everywhere", "p5"),
    [
        ("capacity=0.3", 0.3, 0.3),
        (f"capacity={P5}:0.5", 0.0, 0.5),
        (f"capacity=0.1,capacity={P5}:1,seed=3", 0.1, 1.0),
    ],
)
def test_capacity_faults_parse_per_instance_type(text: str, everywhere: float, p5: float) -> None:
    spec = parse_faults(text)
    assert spec.capacity_of(TYPE) == everywhere
    assert spec.capacity_of(P5) == p5
    assert dict(spec.capacity).get(EVERY_TYPE, 0.0) == everywhere


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("capacity=1.5", "between 0 and 1"),
        ("capacity=p5:0.5", "not a SageMaker instance type"),
        ("capacity=lots", "needs a probability"),
    ],
)
def test_a_bad_capacity_fault_is_a_usage_error(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_faults(text)
