"""Every AWS operation quotactl calls, with the IAM action and resources it needs.

The backend refuses to call an operation missing from ``OPERATIONS`` (``BatchCalls.call``),
so ``quotactl iam-policy`` — built from this table — always grants exactly what the code
uses, and each call only to the commands that make it. Resources are scoped by AWS Batch's
ARN formats; list and describe calls take ``*`` (AWS Batch does not scope them).
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


# Who makes which call, in one place: a command that calls AWS lists itself on each operation
# it makes (tests/aws/test_permissions.py fails for a registered command missing here, and for
# a name here that is no command). The stack lock (quotactl.aws.lock) is a scheduling policy:
# every command that writes creates, renews (TagResource) and deletes it.
_OBSERVE = ("plan", "apply", "export", "import")
_LOCKED = ("apply", "import")
_IDENTITY = ("plan", "apply", "import", "force-unlock")
"""STS tells the aws backend which account it reaches (a plan records it)."""

OPERATIONS: dict[str, Operation] = {
    op.name: op
    for op in (
        _batch("DescribeServiceEnvironments", (ANY,), False, *_OBSERVE),
        _batch("DescribeJobQueues", (ANY,), False, *_OBSERVE, "trace export"),
        _batch("ListSchedulingPolicies", (ANY,), False, *_OBSERVE, "force-unlock"),
        _batch("DescribeSchedulingPolicies", (ANY,), False, *_OBSERVE, "force-unlock"),
        _batch("ListQuotaShares", (ANY,), False, *_OBSERVE),
        _batch("DescribeQuotaShare", (ANY,), False, "apply"),
        _batch("ListTagsForResource", (ANY,), False, *_OBSERVE),
        _batch("ListServiceJobs", (ANY,), False, "plan", "apply", "trace export"),
        _batch("CreateServiceEnvironment", (ENVIRONMENT,), True, "apply"),
        _batch("UpdateServiceEnvironment", (ENVIRONMENT,), True, "apply"),
        _batch("DeleteServiceEnvironment", (ENVIRONMENT,), True, "apply"),
        _batch("CreateSchedulingPolicy", (POLICY,), True, *_LOCKED),
        _batch("DeleteSchedulingPolicy", (POLICY,), True, *_LOCKED, "force-unlock"),
        _batch("CreateJobQueue", (QUEUE, POLICY, ENVIRONMENT), True, "apply"),
        _batch("UpdateJobQueue", (QUEUE, POLICY, ENVIRONMENT), True, "apply"),
        _batch("DeleteJobQueue", (QUEUE,), True, "apply"),
        _batch("CreateQuotaShare", (QUEUE, SHARE), True, "apply"),
        _batch("UpdateQuotaShare", (SHARE,), True, "apply"),
        _batch("DeleteQuotaShare", (SHARE,), True, "apply"),
        _batch("TagResource", (ENVIRONMENT, POLICY, QUEUE, SHARE), True, *_LOCKED),
        _batch("UntagResource", (ENVIRONMENT, POLICY, QUEUE, SHARE), True, "apply"),
        _batch("DescribeServiceJob", (ANY,), False, "trace export"),
        _batch("GetJobQueueSnapshot", (QUEUE,), False, "trace export"),
        Operation("sts", "GetCallerIdentity", (ANY,), False, _IDENTITY),
    )
}

OFFLINE_COMMANDS = frozenset(
    {
        "validate",
        "schema",
        "iam-policy",
        "simulate",
        "trace generate",
        "local serve",
        "local advance",
        "local reset",
        "completion",
    }
)
"""Commands that make no AWS call (the emulator's own commands included): no permission."""


def commands() -> frozenset[str]:
    """Every command that calls AWS."""
    return frozenset(c for op in OPERATIONS.values() for c in op.commands)


def read_only_commands() -> frozenset[str]:
    """Commands none of whose calls writes (what a CI plan job runs)."""
    writers = {c for op in OPERATIONS.values() if op.writes for c in op.commands}
    return commands() - writers


def policy_document(
    *,
    region: str = "*",
    account: str = "*",
    read_only: bool = False,
    only: frozenset[str] | None = None,
) -> dict[str, Any]:
    """The least-privilege IAM policy for quotactl: every command's calls, or those of the
    read-only commands, or of the commands in ``only``."""
    wanted = only if only is not None else (read_only_commands() if read_only else commands())
    chosen = [op for op in OPERATIONS.values() if wanted & set(op.commands)]
    prefix = f"arn:aws:batch:{region}:{account}:"
    statements: list[dict[str, Any]] = []
    reads = sorted(o.action for o in chosen if not o.writes and o.service == "batch")
    if reads:
        statements.append(
            {"Sid": "ReadQuotaManagement", "Effect": "Allow", "Action": reads, "Resource": "*"}
        )
    by_resources: dict[tuple[str, ...], list[str]] = {}
    for op in chosen:
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
    if any(op.name == "CreateServiceEnvironment" for op in chosen):
        statements.append(
            {
                # A SAGEMAKER_TRAINING service environment needs AWS Batch's SageMaker
                # service-linked role; the first CreateServiceEnvironment creates it.
                "Sid": "CreateBatchSageMakerServiceLinkedRole",
                "Effect": "Allow",
                "Action": "iam:CreateServiceLinkedRole",
                "Resource": f"arn:aws:iam::{account}:role/aws-service-role/{SLR_SERVICE}/"
                + SLR_NAME,
                "Condition": {"StringEquals": {"iam:AWSServiceName": SLR_SERVICE}},
            }
        )
    if any(op.service == "sts" for op in chosen):
        statements.append(
            {
                "Sid": "AccountGuard",
                "Effect": "Allow",
                "Action": "sts:GetCallerIdentity",
                "Resource": "*",
            }
        )
    return {"Version": "2012-10-17", "Statement": statements}
