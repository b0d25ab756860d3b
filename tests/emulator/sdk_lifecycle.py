"""Run by test_sdk_flow.py in a subprocess: a quota-managed queue's whole life, driven the way
the SageMaker SDK's users drive AWS, against `quotactl local serve` (AWS_ENDPOINT_URL_BATCH).

S3, STS and IAM are moto's, in this process, and the caller is an assumed role (as in a CI
job): the SDK resolves its execution role from the caller and uploads the trainer's source
code to its default bucket. Every Batch call goes over HTTP to the served account. Prints one
JSON object of what it saw. A separate process because the SDK's imports raise warnings of
their own, and the test suite turns warnings into errors.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import TYPE_CHECKING, Any

import boto3
from moto import mock_aws

if TYPE_CHECKING:
    from collections.abc import Callable

REGION = "us-west-2"
INSTANCE = "ml.m5.2xlarge"
TRUST = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Effect": "Allow",
            "Principal": {"Service": "sagemaker.amazonaws.com"},
            "Action": "sts:AssumeRole",
        }
    ],
}


def assume_a_role() -> str:
    """Become an assumed role of moto's account, as a CI job is; returns the caller's ARN."""
    role = boto3.client("iam", region_name=REGION).create_role(
        RoleName="TrainingPipeline", AssumeRolePolicyDocument=json.dumps(TRUST)
    )["Role"]["Arn"]
    sts = boto3.client("sts", region_name=REGION)
    keys = sts.assume_role(RoleArn=role, RoleSessionName="ci")["Credentials"]
    os.environ["AWS_ACCESS_KEY_ID"] = keys["AccessKeyId"]
    os.environ["AWS_SECRET_ACCESS_KEY"] = keys["SecretAccessKey"]
    os.environ["AWS_SESSION_TOKEN"] = keys["SessionToken"]
    boto3.setup_default_session()  # forget the credentials the first clients resolved
    return str(boto3.client("sts", region_name=REGION).get_caller_identity()["Arn"])


def wait_for(read: Callable[[], dict[str, Any] | None], status: str, state: str) -> list[str]:
    """Poll until the resource is ``status``/``state`` (or gone, for DELETED); the statuses seen."""
    seen: list[str] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = read()
        now = "DELETED" if found is None else f"{found['status']}/{found['state']}"
        if not seen or seen[-1] != now:
            seen.append(now)
        if now == ("DELETED" if status == "DELETED" else f"{status}/{state}"):
            return seen
        time.sleep(0.05)
    raise TimeoutError(f"still {seen[-1]} after 60 s, waiting for {status}/{state}")


def first(items: list[dict[str, Any]]) -> dict[str, Any] | None:
    return items[0] if items else None


def build(batch: Any, name: str) -> dict[str, Any]:
    """Service environment, quota-share policy, queue and one RESERVE share, each waited for."""
    limits = [{"maxCapacity": 10, "capacityUnit": INSTANCE}]
    environment = batch.create_service_environment(
        serviceEnvironmentName=f"{name}-env",
        serviceEnvironmentType="SAGEMAKER_TRAINING",
        capacityLimits=limits,
    )
    policy = batch.create_scheduling_policy(
        name=f"{name}-policy", quotaSharePolicy={"idleResourceAssignmentStrategy": "FIFO"}
    )
    batch.create_job_queue(
        jobQueueName=name,
        priority=1,
        computeEnvironmentOrder=[],
        serviceEnvironmentOrder=[
            {"order": 1, "serviceEnvironment": environment["serviceEnvironmentArn"]}
        ],
        jobQueueType="SAGEMAKER_TRAINING",
        schedulingPolicyArn=policy["arn"],
    )
    queue_seen = wait_for(
        lambda: first(batch.describe_job_queues(jobQueues=[name])["jobQueues"]), "VALID", "ENABLED"
    )
    share = batch.create_quota_share(
        quotaShareName=f"{name}-share",
        jobQueue=name,
        capacityLimits=limits,
        resourceSharingConfiguration={"strategy": "RESERVE"},
        preemptionConfiguration={"inSharePreemption": "DISABLED"},
        state="ENABLED",
    )
    share_seen = wait_for(
        lambda: batch.describe_quota_share(quotaShareArn=share["quotaShareArn"]), "VALID", "ENABLED"
    )
    return {
        "environment": environment["serviceEnvironmentName"],
        "policy": policy["arn"],
        "share": share["quotaShareArn"],
        "share_name": f"{name}-share",
        "seen": {"queue": queue_seen, "share": share_seen},
    }


def submit_and_follow(name: str, share: str) -> dict[str, Any]:
    """A ModelTrainer through TrainingQueue: submit, describe, re-prioritise, end, wait, list."""
    from sagemaker.core.helper.session_helper import Session
    from sagemaker.train.aws_batch.training_queue import TrainingQueue
    from sagemaker.train.configs import Compute, SourceCode
    from sagemaker.train.model_trainer import ModelTrainer

    trainer = ModelTrainer(
        sagemaker_session=Session(boto_session=boto3.Session(region_name=REGION)),
        training_image="763104351884.dkr.ecr.us-west-2.amazonaws.com/pytorch-training:2.0.0-cpu-py310",
        source_code=SourceCode(command="echo 'training'"),
        compute=Compute(instance_type=INSTANCE),
        base_job_name="lifecycle",
    )
    queue = TrainingQueue(queue_name=name)
    job = queue.submit(
        training_job=trainer,
        inputs=None,
        job_name="lifecycle-job",
        retry_config={
            "attempts": 1,
            "evaluateOnExit": [
                {
                    "action": "Retry",
                    "onStatusReason": "Received status from SageMaker: AlgorithmError: *",
                },
                {"action": "EXIT", "onStatusReason": "*"},
            ],
        },
        priority=1,
        tags={"team": "research"},
        quota_share_name=share,
        preemption_config={"preemptionRetriesBeforeTermination": 0},
    )
    described = job.describe()
    updated = job.update(2)
    reprioritised = job.describe()
    job.terminate()
    ended = job.wait(timeout=120)
    return {
        "first_status": described["status"],
        "stored_retry": described["retryStrategy"],
        "tags": described.get("tags"),
        "share": described.get("quotaShareName"),
        "preemption": described.get("preemptionConfiguration"),
        "update_arn_matches": updated["jobArn"] == job.job_arn,
        "priority": reprioritised["schedulingPriority"],
        "final": [ended["status"], ended.get("isTerminated")],
        "by_name": listed(
            lambda: job.job_arn in [j.job_arn for j in queue.list_jobs(job.job_name)]
        ),
        "by_status": listed(
            lambda: job.job_name in [j.job_name for j in queue.list_jobs(status="FAILED")]
        ),
        "payload_role": json.loads(ended["serviceRequestPayload"])["RoleArn"],
    }


def listed(found: Callable[[], bool]) -> bool:
    """Whether a listing shows the job, asked again a few times as a user would: a listing may
    lag the submit on AWS (and under the strict emulator, for a fixed number of reads)."""
    return any(found() for _ in range(5))


def tear_down(batch: Any, name: str, built: dict[str, Any]) -> dict[str, list[str]]:
    """Disable and delete everything, waiting for each to be gone."""
    share = built["share"]

    def read_share() -> dict[str, Any] | None:
        try:
            return dict(batch.describe_quota_share(quotaShareArn=share))
        except batch.exceptions.ClientException as error:
            if "does not exist" in str(error):
                return None
            raise

    def read_queue() -> dict[str, Any] | None:
        return first(batch.describe_job_queues(jobQueues=[name])["jobQueues"])

    def read_environment() -> dict[str, Any] | None:
        found = batch.describe_service_environments(serviceEnvironments=[built["environment"]])
        return first(found["serviceEnvironments"])

    seen: dict[str, list[str]] = {}
    batch.update_quota_share(quotaShareArn=share, state="DISABLED")
    seen["share disabled"] = wait_for(read_share, "VALID", "DISABLED")
    batch.delete_quota_share(quotaShareArn=share)
    seen["share deleted"] = wait_for(read_share, "DELETED", "DISABLED")
    batch.update_job_queue(jobQueue=name, state="DISABLED")
    seen["queue disabled"] = wait_for(read_queue, "VALID", "DISABLED")
    batch.delete_job_queue(jobQueue=name)
    seen["queue deleted"] = wait_for(read_queue, "DELETED", "DISABLED")
    batch.delete_scheduling_policy(arn=built["policy"])
    batch.update_service_environment(serviceEnvironment=built["environment"], state="DISABLED")
    seen["environment disabled"] = wait_for(read_environment, "VALID", "DISABLED")
    batch.delete_service_environment(serviceEnvironment=built["environment"])
    seen["environment deleted"] = wait_for(read_environment, "DELETED", "DISABLED")
    seen["policies left"] = [
        p["arn"] for p in batch.list_scheduling_policies()["schedulingPolicies"]
    ]
    return seen


def main(name: str) -> None:
    with mock_aws():
        caller = assume_a_role()
        batch = boto3.client("batch", region_name=REGION)
        built = build(batch, name)
        followed = submit_and_follow(name, built["share_name"])
        removed = tear_down(batch, name, built)
    print(
        json.dumps({"caller": caller, "built": built["seen"], "job": followed, "removed": removed})
    )


if __name__ == "__main__":
    main(sys.argv[1])
