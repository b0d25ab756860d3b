"""An account that also holds a fair-share SageMaker queue (AWS supports them): the commands
that read every quota-managed queue by default leave it alone, and still work."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quotactl.aws.session import Target, client
from tests.cli.jobs_support import submit_service_job

if TYPE_CHECKING:
    from collections.abc import Callable

    import pytest

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

STATE = Path(".quotactl/emulator.db")
STACK = """\
platform: {name: mixed, region: us-east-1}
environments:
  - name: pool
    capacity: {ml.p5.48xlarge: 4}
queues:
  - name: training
    environment: pool
teams:
  - name: nlp
    shares:
      - queue: training
        capacity: {ml.p5.48xlarge: 2}
        sharing: reserve
"""


def fair_share_queue(batch: Any) -> None:
    """A NUM_INSTANCES environment and a fair-share queue on it, made outside quotactl."""
    batch.create_service_environment(
        serviceEnvironmentName="fair-pool",
        serviceEnvironmentType="SAGEMAKER_TRAINING",
        capacityLimits=[{"capacityUnit": "NUM_INSTANCES", "maxCapacity": 2}],
    )
    policy = batch.create_scheduling_policy(
        name="fair", fairsharePolicy={"shareDistribution": [{"shareIdentifier": "A"}]}
    )["arn"]
    for _ in range(5):  # until the environment is VALID (and listed)
        found = batch.describe_service_environments(serviceEnvironments=["fair-pool"])
        if [e["status"] for e in found["serviceEnvironments"]] == ["VALID"]:
            break
    batch.create_job_queue(
        jobQueueName="fair",
        priority=1,
        schedulingPolicyArn=policy,
        serviceEnvironmentOrder=[{"order": 1, "serviceEnvironment": "fair-pool"}],
        jobQueueType="SAGEMAKER_TRAINING",
    )
    payload = {
        "TrainingJobName": "f",
        "AlgorithmSpecification": {"TrainingImage": "img", "TrainingInputMode": "File"},
        "RoleArn": "arn:aws:iam::123456789012:role/r",
        "OutputDataConfig": {"S3OutputPath": "s3://b/o"},
        "ResourceConfig": {"InstanceType": "ml.g5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 1},
        "StoppingCondition": {"MaxRuntimeInSeconds": 600},
    }
    for _ in range(5):  # until the queue is VALID
        found = batch.describe_job_queues(jobQueues=["fair"])["jobQueues"]
        if [q["status"] for q in found] == ["VALID"]:
            break
    batch.submit_service_job(
        jobName="fair-job",
        jobQueue="fair",
        serviceJobType="SAGEMAKER_TRAINING",
        serviceRequestPayload=json.dumps(payload),
        shareIdentifier="A",
    )


def test_status_jobs_history_and_trace_export_leave_a_fair_share_queue_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli
) -> None:
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "stack.yaml"
    config.write_text(STACK)
    assert cli("apply", str(config), "--auto-approve").exit_code == 0
    submit_service_job(STATE, "quota-job", 1, "nlp")
    fair_share_queue(client(Target("local", STATE)))

    status = cli("status", "-o", "json")
    assert status.exit_code == 0, status.stderr
    assert "fair" not in {q["name"] for q in json.loads(status.stdout)["queues"]}

    jobs = cli("jobs", "-o", "json")
    assert jobs.exit_code == 0, jobs.stderr
    assert {j["name"] for j in json.loads(jobs.stdout)["jobs"]} == {"quota-job"}

    history = cli("history", "--out", str(tmp_path / "ledger.csv"))
    assert history.exit_code == 0, history.stderr
    assert "fair-job" not in (tmp_path / "ledger.csv").read_text()

    trace = cli("trace", "export", "--out", str(tmp_path / "trace.csv"))
    assert trace.exit_code == 0, trace.stderr
    assert "fair" not in (tmp_path / "trace.csv").read_text().replace("quota-job", "")
