"""The SageMaker SDK's flow, end to end, against `quotactl local serve --speed 60` with the
emulator's default timing: what the SDK's own integration test does against AWS.

A quota-managed queue is built and waited for; a ModelTrainer goes through
``TrainingQueue.submit`` with a retry strategy (an ``action`` in mixed case, which AWS accepts),
a priority, tags, a quota share and a preemption configuration; the job is described right
after the submit (still being provisioned, as on AWS), re-prioritised, terminated, waited for
and listed by name and by status; then everything is disabled and deleted. S3, STS and IAM are
moto's and the caller is an assumed role, as in a CI job.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.emulator.emulator_support import Served

HERE = Path(__file__).parent


@pytest.mark.slow
def test_the_sdk_flow_runs_end_to_end_at_sixty_times_speed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("QUOTACTL_EMULATOR_TIMING")  # the default timing, as a user has it
    server = Served(tmp_path / "state.db", "--speed", "60")
    try:
        env = {
            **os.environ,
            "AWS_ENDPOINT_URL_BATCH": server.url,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-west-2",
            "SAGEMAKER_VALIDATE_ROLE": "false",  # moto has no IAM policy simulator
        }
        env.pop("AWS_SESSION_TOKEN", None)
        run = subprocess.run(
            [sys.executable, str(HERE / "sdk_lifecycle.py"), "sdk-flow"],
            capture_output=True,
            text=True,
            env=env,
            timeout=240,
            check=False,
        )
    finally:
        server.close()
    assert run.returncode == 0, run.stderr[-3000:]
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert ":assumed-role/TrainingPipeline/ci" in seen["caller"]
    assert seen["built"]["queue"][-1] == "VALID/ENABLED"
    assert seen["built"]["share"][-1] == "VALID/ENABLED"
    job = seen["job"]
    assert job["first_status"] in {"SUBMITTED", "RUNNABLE", "SCHEDULED"}
    # "Retry" is accepted (AWS: the values aren't case sensitive) and kept as the model spells it
    assert [rule["action"] for rule in job["stored_retry"]["evaluateOnExit"]] == ["RETRY", "EXIT"]
    assert job["tags"] == {"team": "research"}
    assert job["share"] == "sdk-flow-share"
    assert job["preemption"] == {"preemptionRetriesBeforeTermination": 0}
    assert job["update_arn_matches"] is True
    assert job["priority"] == 2
    assert job["final"] == ["FAILED", True]
    assert job["by_name"] is True
    assert job["by_status"] is True
    assert job["payload_role"].endswith(":role/TrainingPipeline")  # resolved from the caller
    removed = seen["removed"]
    for resource in ("share", "queue", "environment"):
        assert removed[f"{resource} disabled"][-1] == "VALID/DISABLED"
        assert removed[f"{resource} deleted"][-1] == "DELETED"
    assert removed["policies left"] == []
