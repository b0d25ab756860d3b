"""Helpers for emulator tests: build a quota-management queue, wait for statuses, payloads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from typing import TYPE_CHECKING, Any

from tests.conftest import TEST_TIMING, emulator_variant

if TYPE_CHECKING:
    from pathlib import Path

    from quotactl.emulator import Emulator

POLICY = {"idleResourceAssignmentStrategy": "FIFO"}
TYPE = "ml.g5.xlarge"


def payload(instance_type: str = TYPE, count: int = 1, max_runtime: int = 300) -> str:
    """A CreateTrainingJob request like the one the SageMaker SDK sends."""
    return json.dumps(
        {
            "TrainingJobName": "job",
            "AlgorithmSpecification": {"TrainingImage": "img", "TrainingInputMode": "File"},
            "ResourceConfig": {
                "InstanceType": instance_type,
                "InstanceCount": count,
                "VolumeSizeInGB": 30,
            },
            "RoleArn": "arn:aws:iam::123456789012:role/SageMaker",
            "StoppingCondition": {"MaxRuntimeInSeconds": max_runtime},
            "OutputDataConfig": {"S3OutputPath": "s3://bucket/out"},
        }
    )


def submit_request(name: str, queue: str = "q", share: str = "a") -> dict[str, Any]:
    """SubmitServiceJob's members for a job of ``payload()`` on a quota share."""
    return {
        "jobName": name,
        "jobQueue": queue,
        "serviceJobType": "SAGEMAKER_TRAINING",
        "serviceRequestPayload": payload(),
        "quotaShareName": share,
    }


def inprocess_client(state: Path) -> tuple[Emulator, Any]:
    """An Emulator on ``state`` and a boto3 Batch client it answers in-process (no retries)."""
    from quotactl.aws.session import Target, client, make_session
    from quotactl.emulator import Emulator

    target = Target("local", state, timing=TEST_TIMING)
    emulator = Emulator(state, timing=TEST_TIMING, variant=emulator_variant())
    session = make_session(target, emulator=emulator)
    return emulator, client(target, session=session, retries={"total_max_attempts": 1})


def wait_for(read: Any, want: str, key: str = "status", tries: int = 10) -> dict[str, Any]:
    """Poll ``read()`` until ``read()[key] == want`` (a client that really waits)."""
    seen = None
    for _ in range(tries):
        found: dict[str, Any] = read()
        seen = found.get(key)
        if seen == want:
            return found
    raise AssertionError(f"{key} stayed {seen!r}, wanted {want!r}")


def queue_status(client: Any, name: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = client.describe_job_queues(jobQueues=[name])["jobQueues"]
    return found[0] if found else {"status": "GONE"}


def environment_status(client: Any, name: str) -> dict[str, Any]:
    found = client.describe_service_environments(serviceEnvironments=[name])["serviceEnvironments"]
    return found[0] if found else {"status": "GONE"}


def make_queue(
    client: Any,
    name: str,
    *,
    capacity: dict[str, int] | None = None,
    shares: dict[str, dict[str, Any]] | None = None,
) -> dict[str, str]:
    """A policy, environment and queue, all VALID, then the shares (VALID); returns ARNs."""
    limits = [{"capacityUnit": u, "maxCapacity": n} for u, n in (capacity or {TYPE: 3}).items()]
    policy = client.create_scheduling_policy(name=f"{name}-quota", quotaSharePolicy=POLICY)
    client.create_service_environment(
        serviceEnvironmentName=f"{name}-env",
        serviceEnvironmentType="SAGEMAKER_TRAINING",
        capacityLimits=limits,
    )
    wait_for(lambda: environment_status(client, f"{name}-env"), "VALID")
    client.create_job_queue(
        jobQueueName=name,
        priority=1,
        schedulingPolicyArn=policy["arn"],
        serviceEnvironmentOrder=[{"order": 1, "serviceEnvironment": f"{name}-env"}],
        jobQueueType="SAGEMAKER_TRAINING",
    )
    queue = wait_for(lambda: queue_status(client, name), "VALID")
    arns = {"queue": queue["jobQueueArn"], "policy": policy["arn"]}
    for share, spec in (shares or {}).items():
        arn = create_share(client, name, share, **spec)
        arns[share] = arn
    for share in shares or {}:
        wait_for(lambda s=share: client.describe_quota_share(quotaShareArn=arns[s]), "VALID")
    return arns


def create_share(
    client: Any,
    queue: str,
    name: str,
    *,
    limit: int = 1,
    strategy: str = "RESERVE",
    borrow: int | None = None,
    preemption: str = "DISABLED",
    instance_type: str = TYPE,
) -> str:
    sharing: dict[str, Any] = {"strategy": strategy}
    if borrow is not None:
        sharing["borrowLimit"] = borrow
    arn: str = client.create_quota_share(
        quotaShareName=name,
        jobQueue=queue,
        capacityLimits=[{"capacityUnit": instance_type, "maxCapacity": limit}],
        resourceSharingConfiguration=sharing,
        preemptionConfiguration={"inSharePreemption": preemption},
    )["quotaShareArn"]
    return arn


class Served:
    """A `quotactl local serve` subprocess on a free loopback port, stopped on close()."""

    def __init__(
        self, state: Path, *extra: str, timeout: float = 30.0, stderr: Path | None = None
    ) -> None:
        """``stderr``: a file that receives the server's stderr (else it is discarded)."""
        self.state = state
        log = open(stderr, "w") if stderr is not None else None  # noqa: SIM115
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        env.pop("QUOTACTL_EMULATOR_FAULTS", None)
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "quotactl",
                "-q",
                "--state",
                str(state),
                "local",
                "serve",
                "--port",
                "0",
                *extra,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL if log is None else log,
            text=True,
            env=env,
        )
        if log is not None:
            log.close()  # the child holds its own copy
        timer = threading.Timer(timeout, self.process.kill)
        timer.start()
        try:
            assert self.process.stdout is not None
            self.url = ""
            for line in self.process.stdout:
                if line.startswith("export AWS_ENDPOINT_URL_BATCH="):
                    self.url = line.strip().split("=", 1)[1]
                    break
        finally:
            timer.cancel()
        if not self.url:
            self.close()
            raise RuntimeError("local serve did not start")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        if self.process.stdout is not None:
            self.process.stdout.close()
