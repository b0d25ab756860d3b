"""The rehearsal: `--backend aws --endpoint-url <local serve>` (with AWS_ENDPOINT_URL_STS pointed
at it too) runs the production path end to end, and the checks that cannot reach a service
say so, in seconds, instead of blaming the job's role or bucket."""

from __future__ import annotations

import json
import shutil
import time
from typing import TYPE_CHECKING

import pytest

from tests.emulator.emulator_support import Served

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

REFUSED = "http://127.0.0.1:9"
"""An endpoint nothing listens on (the discard port): connections are refused at once."""


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo_root: Path) -> Iterator[str]:
    shutil.copytree(repo_root / "configs", tmp_path / "configs")
    monkeypatch.chdir(tmp_path)
    server = Served(tmp_path / "state.db")
    try:
        for key, value in {
            "AWS_ACCESS_KEY_ID": "rehearsal",
            "AWS_SECRET_ACCESS_KEY": "rehearsal",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_ENDPOINT_URL_STS": server.url,
            "AWS_ENDPOINT_URL_IAM": REFUSED,
            "AWS_ENDPOINT_URL_S3": REFUSED,
            "AWS_ENDPOINT_URL_SAGEMAKER": REFUSED,
            "AWS_ENDPOINT_URL_CLOUDWATCH_LOGS": REFUSED,
            "AWS_CONFIG_FILE": str(tmp_path / "none"),
            "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"),
        }.items():
            monkeypatch.setenv(key, value)
        monkeypatch.delenv("AWS_PROFILE", raising=False)
        yield server.url
    finally:
        server.close()


def test_the_production_path_runs_against_local_serve(served: str, cli: Cli) -> None:
    aws = ("--backend", "aws", "--endpoint-url", served)
    plan = cli(*aws, "plan", "configs/demo")
    assert plan.exit_code == 0, plan.stderr
    applied = cli(*aws, "apply", "configs/demo", "--auto-approve")
    assert applied.exit_code == 0, applied.stderr

    started = time.monotonic()
    submitted = cli(
        *aws, "submit", "configs/jobs/fine-tune.yaml", "--queue", "training", "--share", "nlp"
    )
    took = time.monotonic() - started
    assert submitted.exit_code == 0, submitted.stderr
    # IAM and S3 cannot be reached: a warning each, never "no such role", and in seconds
    assert f"could not check: {REFUSED} unreachable" in submitted.stderr
    assert "no such" not in submitted.stderr
    assert took < 10, took

    status = cli(*aws, "status", "-o", "json")
    assert status.exit_code == 0, status.stderr
    assert [q["name"] for q in json.loads(status.stdout)["queues"]] == ["training"]
    jobs = cli(*aws, "jobs", "-o", "json")
    assert jobs.exit_code == 0, jobs.stderr
    assert [j["name"] for j in json.loads(jobs.stdout)["jobs"]] == ["llm-finetune"]
    history = cli(*aws, "history", "--out", "ledger.csv")
    assert history.exit_code == 0, history.stderr


def test_doctor_names_and_reaches_every_endpoint(served: str, cli: Cli) -> None:
    found = cli("--backend", "aws", "--endpoint-url", served, "doctor")
    lines = found.stdout.splitlines()
    assert any(line.split()[:3] == ["pass", "endpoint", "sts"] for line in lines), found.stdout
    for service in ("iam", "s3", "sagemaker", "logs"):
        (line,) = [x for x in lines if x.split()[1:3] == ["endpoint", service]]
        assert line.startswith("warn"), line
        assert f"{REFUSED} unreachable" in line, line
