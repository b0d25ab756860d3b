"""`quotactl local serve` as other tools see it: the SageMaker SDK, and `local advance` run
from another process on the same state file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.emulator.conftest import http_client
from tests.emulator.emulator_support import Served, make_queue, payload

HERE = Path(__file__).parent


def quotactl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quotactl", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.slow
def test_local_advance_from_another_process_moves_the_served_jobs(tmp_path: Path) -> None:
    state = tmp_path / "state.db"
    server = Served(state)
    http = http_client(server.url)
    try:
        make_queue(http, "q", shares={"a": {}})
        job = http.submit_service_job(
            jobName="long",
            jobQueue="q",
            serviceJobType="SAGEMAKER_TRAINING",
            serviceRequestPayload=payload(max_runtime=7200),
            quotaShareName="a",
            tags={"quotactl:duration": "90m"},
        )
        for _ in range(4):
            http.describe_service_job(jobId=job["jobId"])
        assert http.describe_service_job(jobId=job["jobId"])["status"] == "RUNNING"
        moved = quotactl("--state", str(state), "local", "advance", "1h")
        assert moved.returncode == 0, moved.stderr
        assert "(+1h)" in moved.stdout
        assert http.describe_service_job(jobId=job["jobId"])["status"] == "RUNNING"
        assert quotactl("--state", str(state), "local", "advance", "30m").returncode == 0
        assert http.describe_service_job(jobId=job["jobId"])["status"] == "SUCCEEDED"
    finally:
        http.close()
        server.close()


@pytest.mark.slow
def test_the_sagemaker_sdk_submits_lists_updates_and_terminates(tmp_path: Path) -> None:
    pytest.importorskip("sagemaker.train.aws_batch.training_queue")
    server = Served(tmp_path / "state.db")
    http = http_client(server.url)
    try:
        make_queue(http, "sdkq", shares={"team-a": {}})
        env = {
            **os.environ,
            "AWS_ENDPOINT_URL_BATCH": server.url,
            "AWS_ENDPOINT_URL": "http://127.0.0.1:9",  # any other AWS call fails at once
            "AWS_ACCESS_KEY_ID": "local",
            "AWS_SECRET_ACCESS_KEY": "local",
            "AWS_DEFAULT_REGION": "us-east-1",
            "SAGEMAKER_VALIDATE_ROLE": "false",
        }
        run = subprocess.run(
            [sys.executable, str(HERE / "sdk_scenario.py"), "sdkq", "team-a"],
            capture_output=True,
            text=True,
            timeout=180,
            env=env,
            check=False,
        )
        assert run.returncode == 0, run.stderr[-3000:]
        seen = json.loads(run.stdout.strip().splitlines()[-1])
    finally:
        http.close()
        server.close()
    assert seen["statuses"] == ["SUBMITTED", "SCHEDULED", "STARTING", "RUNNING"]
    assert seen["listed"] == [seen["arn"]]
    assert seen["priority"] == 7
    assert seen["final"] == ["FAILED", "finished with it", True]
    assert seen["payload"]["ResourceConfig"]["InstanceType"] == "ml.g5.xlarge"
    assert seen["payload"]["OutputDataConfig"]["S3OutputPath"] == "s3://bucket/output"
