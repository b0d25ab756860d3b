"""Helpers for the job-command tests: a small quota-managed queue, job specs, the CLI in JSON.

The queue ``q`` has 5 x ml.g5.xlarge and three shares of that type:

- ``a``: LEND_AND_BORROW, limit 2, borrow limit 100 %, in-share preemption on;
- ``b``: LEND, limit 2;
- ``r``: RESERVE, limit 1.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import boto3

from tests.conftest import TEST_TIMING, emulator_variant

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

TYPE = "ml.g5.xlarge"
CONFIG = f"""
platform: {{name: jobs-test, region: us-east-1}}
environments:
  - name: pool
    capacity: {{{TYPE}: 5}}
queues:
  - name: q
    environment: pool
teams:
  - name: a
    shares:
      - queue: q
        capacity: {{{TYPE}: 2}}
        sharing: lend_and_borrow
        borrow_limit: 100
        in_share_preemption: true
  - name: b
    shares:
      - queue: q
        capacity: {{{TYPE}: 2}}
        sharing: lend
  - name: r
    shares:
      - queue: q
        capacity: {{{TYPE}: 1}}
        sharing: reserve
"""
SPEC = f"""
image: 123456789012.dkr.ecr.us-east-1.amazonaws.com/train:1
instance_type: {TYPE}
role_arn: arn:aws:iam::123456789012:role/SageMaker
output_s3: s3://bucket/out/
max_runtime: 1d
queue: q
"""


class Jobs:
    """The CLI on one emulated account (``--state``), with the queue above applied."""

    def __init__(self, cli: Callable[..., CliResult], tmp: Path, *extra: str) -> None:
        self.cli = cli
        self.tmp = tmp
        self.global_args = ["-q", "--state", str(tmp / "state.db"), *extra]
        (tmp / "config.yaml").write_text(CONFIG)

    def apply(self) -> None:
        result = self.run("apply", str(self.tmp / "config.yaml"), "--auto-approve")
        assert result.exit_code == 0, result.stderr

    def run(self, *args: str) -> CliResult:
        return self.cli(*self.global_args, *args)

    def ok(self, *args: str) -> CliResult:
        result = self.run(*args)
        assert result.exit_code == 0, f"{args}: {result.stderr}"
        return result

    def json(self, *args: str) -> Any:
        return json.loads(self.ok(*args, "-o", "json").stdout)

    def spec(self, file: str = "spec", count: int = 1, **extra: Any) -> str:
        path = self.tmp / f"{file}.yaml"
        lines = [SPEC, f"instance_count: {count}"]
        lines += [f"{key}: {json.dumps(value)}" for key, value in extra.items()]
        path.write_text("\n".join(lines) + "\n")
        return str(path)

    def submit(self, share: str, count: int = 1, *args: str, **extra: Any) -> list[str]:
        spec = self.spec(f"spec-{share}-{count}", count, **extra)
        found = self.json("submit", spec, "--share", share, *args)
        return [job["job_id"] for job in found["submitted"]]

    def advance(self, duration: str = "1m") -> None:
        self.ok("local", "advance", duration)

    def status(self, job_id: str) -> str:
        return str(self.json("job", "describe", job_id)["job"]["status"])


def batch_client(state: Path, faults: str | None = None) -> Any:
    """A boto3 Batch client on the same emulated account (in-process), with ``faults``."""
    from quotactl.aws.session import Target, client, make_session

    target = Target(backend="local", state_path=state, timing=TEST_TIMING, faults=faults)
    return client(target, session=make_session(target))


STATUSES = ["SUBMITTED", "RUNNABLE", "SCHEDULED", "STARTING", "RUNNING", "SUCCEEDED", "FAILED"]


def all_jobs(client: Any, queue: str = "q") -> list[dict[str, Any]]:
    """Every job of the queue, once each (a job may move on between two status listings).

    ListServiceJobs may lag SubmitServiceJob (the strict emulator leaves a new job out of the
    next listings, as AWS may), so the queue is listed as a user would check it: again until
    two listings in a row show the same jobs."""
    seen = _listed(client, queue)
    for _ in range(10):
        again = _listed(client, queue)
        if again.keys() == seen.keys():
            break
        seen = again
    return sorted(seen.values(), key=lambda j: j["jobId"])


def _listed(client: Any, queue: str) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for status in STATUSES:
        for job in client.list_service_jobs(jobQueue=queue, jobStatus=status)["jobSummaryList"]:
            found[job["jobId"]] = job
    return found


__all__ = ["CONFIG", "TYPE", "Jobs", "all_jobs", "batch_client", "boto3"]


def submit_service_job(
    state: Path,
    name: str,
    instances: int,
    share: str,
    *,
    queue: str = "training",
    instance_type: str = "ml.p5.48xlarge",
    max_runtime: int = 36_000,
    priority: int | None = None,
    tags: dict[str, str] | None = None,
) -> None:
    """SubmitServiceJob straight to the emulated account (as another team's tooling would)."""
    from tests.emulator.emulator_support import payload

    extra: dict[str, Any] = {"tags": tags} if tags else {}
    if priority is not None:
        extra["schedulingPriority"] = priority
    batch_client(state).submit_service_job(
        jobName=name,
        jobQueue=queue,
        serviceJobType="SAGEMAKER_TRAINING",
        serviceRequestPayload=payload(instance_type, instances, max_runtime),
        quotaShareName=share,
        **extra,
    )


def advance_clock(state: Path, seconds: float) -> None:
    """Move the emulated account's clock (``quotactl local advance``, in-process)."""
    from quotactl.emulator import Emulator

    with Emulator(state, timing=TEST_TIMING, variant=emulator_variant()) as emulator:
        emulator.advance(seconds)
