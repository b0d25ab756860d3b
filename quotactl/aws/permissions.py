"""Every AWS operation quotactl calls, with the IAM action and resources it needs.

The backend refuses to call an operation missing from ``OPERATIONS`` (``AwsBackend._call``),
so ``quotactl iam-policy`` — built from this table — always grants exactly what the code
uses. Resource scoping follows the ARN formats of reference §1; list and describe calls take
``*`` (AWS Batch does not scope them to resources).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ENVIRONMENT = "service-environment/*"
POLICY = "scheduling-policy/*"
QUEUE = "job-queue/*"
SHARE = "job-queue/*/quota-share/*"
JOB = "service-job/*"
ANY = "*"

SLR_SERVICE = "sagemaker-queuing.batch.amazonaws.com"
SLR_NAME = "AWSServiceRoleForAWSBatchWithSagemaker"


@dataclass(frozen=True)
class Operation:
    """One API operation: who calls it, and what IAM must allow for it."""

    service: str
    name: str
    resources: tuple[str, ...]
    writes: bool
    commands: tuple[str, ...]

    @property
    def action(self) -> str:
        return f"{self.service}:{self.name}"


def _batch(name: str, resources: tuple[str, ...], writes: bool, *commands: str) -> Operation:
    return Operation("batch", name, resources, writes, commands)


_MANAGE = ("apply", "import")
_READ = ("plan", "apply", "export", "import")
_JOBS = ("submit", "jobs", "job", "status")

OPERATIONS: dict[str, Operation] = {
    op.name: op
    for op in (
        _batch("DescribeServiceEnvironments", (ANY,), False, *_READ, "status"),
        _batch("DescribeJobQueues", (ANY,), False, *_READ, "status"),
        _batch("ListSchedulingPolicies", (ANY,), False, *_READ),
        _batch("DescribeSchedulingPolicies", (ANY,), False, *_READ),
        _batch("ListQuotaShares", (ANY,), False, *_READ, "status"),
        _batch("DescribeQuotaShare", (ANY,), False, *_READ),
        _batch("ListTagsForResource", (ANY,), False, *_READ, "status"),
        _batch("ListServiceJobs", (ANY,), False, "plan", "apply", *_JOBS),
        _batch("CreateServiceEnvironment", (ENVIRONMENT,), True, "apply"),
        _batch("UpdateServiceEnvironment", (ENVIRONMENT,), True, "apply"),
        _batch("DeleteServiceEnvironment", (ENVIRONMENT,), True, "apply"),
        _batch("CreateSchedulingPolicy", (POLICY,), True, "apply"),
        _batch("DeleteSchedulingPolicy", (POLICY,), True, "apply"),
        _batch("CreateJobQueue", (QUEUE, POLICY, ENVIRONMENT), True, "apply"),
        _batch("UpdateJobQueue", (QUEUE, POLICY, ENVIRONMENT), True, "apply"),
        _batch("DeleteJobQueue", (QUEUE,), True, "apply"),
        _batch("CreateQuotaShare", (QUEUE, SHARE), True, "apply"),
        _batch("UpdateQuotaShare", (SHARE,), True, "apply"),
        _batch("DeleteQuotaShare", (SHARE,), True, "apply"),
        _batch("TagResource", (ENVIRONMENT, POLICY, QUEUE, SHARE), True, *_MANAGE),
        _batch("UntagResource", (ENVIRONMENT, POLICY, QUEUE, SHARE), True, *_MANAGE),
        _batch("SubmitServiceJob", (QUEUE,), True, "submit"),
        _batch("DescribeServiceJob", (ANY,), False, *_JOBS),
        _batch("UpdateServiceJob", (JOB,), True, "job"),
        _batch("TerminateServiceJob", (JOB,), True, "job"),
        _batch("GetJobQueueSnapshot", (QUEUE,), False, "status", "job"),
        Operation("sts", "GetCallerIdentity", (ANY,), False, ("plan", "apply", "import")),
    )
}


def policy_document(
    *, region: str = "*", account: str = "*", read_only: bool = False
) -> dict[str, Any]:
    """The least-privilege IAM policy for quotactl (``read_only``: plan and export only)."""
    prefix = f"arn:aws:batch:{region}:{account}:"
    statements: list[dict[str, Any]] = []
    reads = sorted(o.action for o in OPERATIONS.values() if not o.writes and o.service == "batch")
    statements.append(
        {"Sid": "ReadQuotaManagement", "Effect": "Allow", "Action": reads, "Resource": "*"}
    )
    if not read_only:
        by_resources: dict[tuple[str, ...], list[str]] = {}
        for op in OPERATIONS.values():
            if op.writes and op.service == "batch":
                by_resources.setdefault(op.resources, []).append(op.action)
        for index, (resources, actions) in enumerate(sorted(by_resources.items()), start=1):
            statements.append(
                {
                    "Sid": f"ManageQuotaManagement{index}",
                    "Effect": "Allow",
                    "Action": sorted(actions),
                    "Resource": [prefix + r for r in resources],
                }
            )
        statements.append(
            {
                # A SAGEMAKER_TRAINING service environment needs AWS Batch's SageMaker
                # service-linked role; the first CreateServiceEnvironment creates it (ref §1.3).
                "Sid": "CreateBatchSageMakerServiceLinkedRole",
                "Effect": "Allow",
                "Action": "iam:CreateServiceLinkedRole",
                "Resource": f"arn:aws:iam::{account}:role/aws-service-role/{SLR_SERVICE}/"
                + SLR_NAME,
                "Condition": {"StringEquals": {"iam:AWSServiceName": SLR_SERVICE}},
            }
        )
    statements.append(
        {
            "Sid": "AccountGuard",
            "Effect": "Allow",
            "Action": "sts:GetCallerIdentity",
            "Resource": "*",
        }
    )
    return {"Version": "2012-10-17", "Statement": statements}
