"""The job commands over `quotactl local serve` as other tools see them: a SageMaker SDK
ModelTrainer submitted with `submit --trainer` (the SDK making no other AWS call), and the AWS
CLI reading back what quotactl submitted."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest

from quotactl.core.engine import TIMING
from quotactl.emulator import Emulator
from tests.conftest import TEST_TIMING
from tests.emulator.conftest import http_client
from tests.emulator.emulator_support import Served

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from tests.conftest import CliResult

CONFIG = """
platform: {name: serve-jobs, region: us-east-1}
environments: [{name: pool, capacity: {ml.g5.xlarge: 4}}]
queues: [{name: q, environment: pool}]
teams: [{name: a, shares: [{queue: q, capacity: {ml.g5.xlarge: 4}, sharing: reserve}]}]
"""
TRAINER = """
from sagemaker.core.training.configs import Compute, OutputDataConfig
from sagemaker.train.model_trainer import ModelTrainer

trainer = ModelTrainer(
    training_image="123456789012.dkr.ecr.us-east-1.amazonaws.com/train:latest",
    role="arn:aws:iam::123456789012:role/SageMakerRole",
    compute=Compute(instance_type="ml.g5.xlarge", instance_count=2),
    output_data_config=OutputDataConfig(s3_output_path="s3://bucket/output"),
    base_job_name="sdk",
)
"""
SPEC = """
image: 123456789012.dkr.ecr.us-east-1.amazonaws.com/train:1
instance_type: ml.g5.xlarge
instance_count: 2
role_arn: arn:aws:iam::123456789012:role/SageMaker
output_s3: s3://bucket/out/
queue: q
share: a
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("serve-jobs")
    server = Served(tmp / "state.db")
    (tmp / "config.yaml").write_text(CONFIG)
    from quotactl.cli.app import run

    assert (
        run(
            [
                "-q",
                "--endpoint-url",
                server.url,
                "apply",
                str(tmp / "config.yaml"),
                "--auto-approve",
            ]
        )
        == 0
    )
    yield server
    server.close()


def _env(served: Served) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "QUOTACTL_"))}
    env.update(
        AWS_ACCESS_KEY_ID="test",
        AWS_SECRET_ACCESS_KEY="test",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_CONFIG_FILE=os.devnull,
        AWS_SHARED_CREDENTIALS_FILE=os.devnull,
        # Any AWS call but Batch's would go here and fail: the SDK must make none.
        AWS_ENDPOINT_URL="http://127.0.0.1:9",
        SAGEMAKER_VALIDATE_ROLE="false",
        PYTHONWARNINGS="ignore",
    )
    return env


@pytest.mark.slow
def test_submit_trainer_sends_a_model_trainer_through_training_queue(
    served: Served, tmp_path: Path
) -> None:
    pytest.importorskip("sagemaker.train.aws_batch.training_queue")
    (tmp_path / "my_trainer.py").write_text(TRAINER)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "quotactl",
            "-q",
            "--endpoint-url",
            served.url,
            "submit",
            "--trainer",
            "my_trainer:trainer",
            "--queue",
            "q",
            "--share",
            "a",
            "--priority",
            "3",
            "--name",
            "from-sdk",
            "--preemption-retries",
            "1",
            "-o",
            "json",
        ],
        cwd=tmp_path,
        env=_env(served),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    (job,) = json.loads(result.stdout)["submitted"]
    assert (job["name"], job["queue"], job["share"]) == ("from-sdk", "q", "a")
    http = http_client(served.url)
    described = http.describe_service_job(jobId=job["job_id"])
    http.close()
    assert described["schedulingPriority"] == 3
    assert described["preemptionConfiguration"] == {"preemptionRetriesBeforeTermination": 1}
    payload = json.loads(described["serviceRequestPayload"])
    assert payload["AlgorithmSpecification"]["TrainingImage"].endswith("/train:latest")
    assert payload["ResourceConfig"]["InstanceCount"] == 2


def test_submit_trainer_without_the_sdk_says_how_to_install_it(
    cli: Callable[..., CliResult], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in [m for m in sys.modules if m.split(".")[0] == "sagemaker"] + ["sagemaker"]:
        monkeypatch.setitem(sys.modules, name, None)
    result = cli(
        "--state",
        str(tmp_path / "s.db"),
        "submit",
        "--trainer",
        "x:y",
        "--queue",
        "q",
        "--share",
        "a",
    )
    assert result.exit_code == 1
    assert "error[sagemaker-sdk-missing]" in result.stderr
    assert "pip install 'quotactl[sagemaker]'" in result.stderr


def _aws(served: Served, *args: str) -> Any:
    result = subprocess.run(
        ["aws", "batch", *args, "--endpoint-url", served.url, "--output", "json"],
        env=_env(served),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("aws") is None, reason="the AWS CLI (`aws`) is not installed")
def test_the_aws_cli_agrees_with_what_quotactl_submitted_and_reports(
    served: Served, tmp_path: Path
) -> None:
    (tmp_path / "spec.yaml").write_text(SPEC)

    def quotactl(*args: str) -> Any:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "quotactl",
                "-q",
                "--endpoint-url",
                served.url,
                *args,
                "-o",
                "json",
            ],
            cwd=tmp_path,
            env=_env(served),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    (job,) = quotactl(
        "submit", "spec.yaml", "--name", "cli-check", "--priority", "4", "--tag", "k=v"
    )["submitted"]
    with Emulator(served.state, timing=TEST_TIMING) as emulator:
        emulator.advance(60)
    described = _aws(served, "describe-service-job", "--job-id", job["job_id"])
    mine = quotactl("job", "describe", job["job_id"])["job"]
    assert described["jobArn"] == mine["job_arn"] == job["job_arn"]
    assert described["jobName"] == mine["name"] == "cli-check"
    assert described["quotaShareName"] == mine["share"] == "a"
    assert described["status"] == mine["status"] == "RUNNING"
    assert described["schedulingPriority"] == mine["priority"] == 4
    assert described["tags"] == mine["tags"]
    assert {k: v for k, v in mine["tags"].items() if k != "quotactl:submit-token"} == {"k": "v"}
    assert json.loads(described["serviceRequestPayload"]) == mine["payload"]
    listed = _aws(served, "list-service-jobs", "--job-queue", "q", "--job-status", "RUNNING")
    theirs = {j["jobId"]: j for j in listed["jobSummaryList"]}
    ours = {j["job_id"]: j for j in quotactl("jobs", "--status", "RUNNING")["jobs"]}
    assert set(theirs) == set(ours)
    for job_id, item in theirs.items():
        usage = {u["capacityUnit"]: u["quantity"] for u in item["capacityUsage"]}
        assert usage == {ours[job_id]["instance_type"]: ours[job_id]["instance_count"]}
        assert item["jobName"] == ours[job_id]["name"]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("aws") is None, reason="the AWS CLI (`aws`) is not installed")
def test_a_job_is_provisioned_in_emulated_time_before_it_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Right after the submit the AWS CLI sees the job waiting or SCHEDULED, as on AWS while
    SageMaker launches its instances; STARTING 120 s later; RUNNING once 150 s have passed."""
    monkeypatch.delenv("QUOTACTL_EMULATOR_TIMING")  # the default timing, in every process
    (tmp_path / "config.yaml").write_text(CONFIG)
    served = Served(tmp_path / "state.db")
    try:
        _provisioned(served, tmp_path)
    finally:
        served.close()


def _provisioned(served: Served, tmp_path: Path) -> None:
    from quotactl.cli.app import run

    applied = ["-q", "--endpoint-url", served.url, "apply", str(tmp_path / "config.yaml")]
    assert run([*applied, "--auto-approve"]) == 0
    job = _aws(
        served,
        "submit-service-job",
        "--job-name",
        "provisioned",
        "--job-queue",
        "q",
        "--service-job-type",
        "SAGEMAKER_TRAINING",
        "--quota-share-name",
        "a",
        "--service-request-payload",
        json.dumps(
            {
                "TrainingJobName": "provisioned",
                "AlgorithmSpecification": {"TrainingImage": "img", "TrainingInputMode": "File"},
                "ResourceConfig": {
                    "InstanceType": "ml.g5.xlarge",
                    "InstanceCount": 1,
                    "VolumeSizeInGB": 30,
                },
                "RoleArn": "arn:aws:iam::123456789012:role/SageMaker",
                "StoppingCondition": {"MaxRuntimeInSeconds": 3600},
                "OutputDataConfig": {"S3OutputPath": "s3://bucket/out"},
            }
        ),
    )

    def status() -> str:
        described = _aws(served, "describe-service-job", "--job-id", job["jobId"])
        return str(described["status"])

    assert status() in {"SUBMITTED", "RUNNABLE", "SCHEDULED"}
    assert status() == "SCHEDULED"  # the clock stands still: it stays provisioning
    with Emulator(served.state, timing=TIMING) as emulator:
        emulator.advance(119)
    assert status() == "SCHEDULED"
    with Emulator(served.state, timing=TIMING) as emulator:
        emulator.advance(1)
    assert status() == "STARTING"
    with Emulator(served.state, timing=TIMING) as emulator:
        emulator.advance(30)
    assert status() == "RUNNING"
