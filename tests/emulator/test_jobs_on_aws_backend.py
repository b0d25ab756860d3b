"""The job commands on --backend aws: Batch is a `quotactl local serve` (--endpoint-url), IAM,
S3, SageMaker and CloudWatch Logs are moto. Covers submit's pre-flight, `job describe`
reading the training job from SageMaker, and `job logs` (also --follow)."""

from __future__ import annotations

import contextlib
import json
import time
from typing import TYPE_CHECKING, Any

import boto3
import pytest
from moto import mock_aws

from quotactl.aws.training import LOG_GROUP, LogReader, follow
from quotactl.emulator import Emulator
from tests.conftest import TEST_TIMING
from tests.emulator.emulator_support import Served

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from tests.conftest import CliResult

ROLE = "arn:aws:iam::123456789012:role/SageMakerTraining"
CONFIG = """
platform: {name: aws-jobs, region: us-east-1}
environments: [{name: pool, capacity: {ml.g5.xlarge: 4}}]
queues: [{name: q, environment: pool}]
teams: [{name: a, shares: [{queue: q, capacity: {ml.g5.xlarge: 4}, sharing: reserve}]}]
"""
SPEC = f"""
image: 123456789012.dkr.ecr.us-east-1.amazonaws.com/train:1
instance_type: ml.g5.xlarge
role_arn: {ROLE}
output_s3: s3://training-output/runs/
max_runtime: 1h
queue: q
share: a
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("aws-jobs")
    server = Served(tmp / "state.db")
    (tmp / "config.yaml").write_text(CONFIG)
    from quotactl.cli.app import run

    code = run(
        ["-q", "--endpoint-url", server.url, "apply", str(tmp / "config.yaml"), "--auto-approve"]
    )
    assert code == 0
    yield server
    server.close()


@pytest.fixture
def aws(
    served: Served,
    cli: Callable[..., CliResult],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Callable[..., CliResult]]:
    """quotactl --backend aws with Batch at the served emulator and everything else on moto."""
    for key in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    (tmp_path / "spec.yaml").write_text(SPEC)
    monkeypatch.chdir(tmp_path)
    with mock_aws():
        yield lambda *args: cli(
            "-q",
            "--backend",
            "aws",
            "--region",
            "us-east-1",
            "--endpoint-url",
            served.url,
            *args,
        )


def _role() -> None:
    boto3.client("iam", region_name="us-east-1").create_role(
        RoleName="SageMakerTraining", AssumeRolePolicyDocument=json.dumps({"Statement": []})
    )


def _bucket() -> None:
    boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="training-output")


def _jobs(served: Served, name: str) -> list[str]:
    from tests.emulator.conftest import http_client

    http = http_client(served.url)
    found = http.list_service_jobs(jobQueue="q", filters=[{"name": "JOB_NAME", "values": [name]}])
    http.close()
    return [j["jobId"] for j in found["jobSummaryList"]]


@pytest.mark.parametrize(
    ("make", "missing"),
    [
        ((_bucket,), f"role {ROLE}: no such role"),
        ((_role,), "output bucket s3://training-output: no such bucket"),
        ((), f"role {ROLE}: no such role; output bucket s3://training-output: no such bucket"),
    ],
)
def test_preflight_refuses_a_missing_role_or_bucket_and_submits_nothing(
    aws: Callable[..., CliResult],
    served: Served,
    make: tuple[Callable[[], None], ...],
    missing: str,
) -> None:
    for step in make:
        step()
    name = f"pre-{len(make)}-{make[0].__name__ if make else 'none'}"
    result = aws("submit", "spec.yaml", "--name", name)
    assert result.exit_code == 1
    assert f"error[preflight-failed]: pre-flight failed, nothing was submitted: {missing}" in (
        result.stderr
    )
    assert _jobs(served, name) == []


def test_preflight_passes_when_role_and_bucket_exist(
    aws: Callable[..., CliResult], served: Served
) -> None:
    _role()
    _bucket()
    result = aws("submit", "spec.yaml", "--name", "preflight-ok", "-o", "json")
    assert result.exit_code == 0, result.stderr
    (job,) = json.loads(result.stdout)["submitted"]
    assert _jobs(served, "preflight-ok") == [job["job_id"]]


def _running_job(aws: Callable[..., CliResult], served: Served, name: str) -> dict[str, Any]:
    _role()
    _bucket()
    result = aws("submit", "spec.yaml", "--name", name, "-o", "json")
    assert result.exit_code == 0, result.stderr
    (job,) = json.loads(result.stdout)["submitted"]
    with Emulator(served.state, timing=TEST_TIMING) as emulator:
        emulator.advance(120)
    out = json.loads(aws("job", "describe", job["job_id"], "-o", "json").stdout)["job"]
    assert out["status"] == "RUNNING"
    return dict(out)


def test_job_describe_reads_the_training_job_status_from_sagemaker(
    aws: Callable[..., CliResult], served: Served
) -> None:
    job = _running_job(aws, served, "described")
    training = job["training_job"]["name"]
    assert job["training_job"]["status"] is None  # SageMaker has no such job yet
    sagemaker = boto3.client("sagemaker", region_name="us-east-1")
    sagemaker.create_training_job(
        TrainingJobName=training,
        AlgorithmSpecification={"TrainingImage": "img", "TrainingInputMode": "File"},
        RoleArn=ROLE,
        OutputDataConfig={"S3OutputPath": "s3://training-output/runs/"},
        ResourceConfig={"InstanceType": "ml.g5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 30},
        StoppingCondition={"MaxRuntimeInSeconds": 3600},
    )
    truth = sagemaker.describe_training_job(TrainingJobName=training)
    result = aws("job", "describe", job["job_id"], "-o", "json")
    found = json.loads(result.stdout)["job"]["training_job"]
    assert found == {
        "name": training,
        "status": truth["TrainingJobStatus"],
        "secondary_status": truth["SecondaryStatus"],
    }


def _log(training: str, *lines: tuple[int, str]) -> None:
    logs = boto3.client("logs", region_name="us-east-1")
    with contextlib.suppress(logs.exceptions.ResourceAlreadyExistsException):
        logs.create_log_group(logGroupName=LOG_GROUP)
    stream = f"{training}/algo-1-1700000000"
    with contextlib.suppress(logs.exceptions.ResourceAlreadyExistsException):
        logs.create_log_stream(logGroupName=LOG_GROUP, logStreamName=stream)
    logs.put_log_events(
        logGroupName=LOG_GROUP,
        logStreamName=stream,
        logEvents=[{"timestamp": t, "message": m} for t, m in lines],
    )


def test_job_logs_prints_the_training_jobs_streams(
    aws: Callable[..., CliResult], served: Served
) -> None:
    job = _running_job(aws, served, "logged")
    training = job["training_job"]["name"]
    start = (int(time.time()) - 60) * 1000  # CloudWatch refuses events older than 14 days
    _log(training, (start, "epoch 1 loss 0.9"), (start + 1000, "epoch 2 loss 0.5"))
    _log("someone-else", (start + 500, "not mine"))
    result = aws("job", "logs", "logged")
    assert result.exit_code == 0, result.stderr
    clock = [time.strftime("%H:%M:%S", time.gmtime(t / 1000)) for t in (start, start + 1000)]
    assert result.stdout.splitlines() == [
        f"{clock[0]} algo-1-1700000000 epoch 1 loss 0.9",
        f"{clock[1]} algo-1-1700000000 epoch 2 loss 0.5",
    ]
    with Emulator(served.state, timing=TEST_TIMING) as emulator:
        emulator.advance(7200)  # past max_runtime: the job ends
    followed = aws("job", "logs", "logged", "--follow")
    assert followed.exit_code == 0, followed.stderr
    assert followed.stdout == result.stdout  # it returns once the job has ended


def test_follow_polls_until_the_job_ends_without_sleeping() -> None:
    with mock_aws():
        now = int(time.time()) * 1000
        _log("tj", (now, "first"))
        reader = LogReader(boto3.client("logs", region_name="us-east-1"), "tj")
        polls: list[float] = []
        state = {"done": False}

        def sleep(seconds: float) -> None:
            polls.append(seconds)
            if len(polls) == 1:
                _log("tj", (now + 1, "second"))
            else:
                _log("tj", (now + 2, "last words"))
                state["done"] = True

        lines = [line.message for line in follow(reader, lambda: state["done"], sleep=sleep)]
    assert lines == ["first", "second", "last words"]
    assert polls == [5.0, 5.0]
