"""Every AWS operation quotactl calls, with the IAM action and resources it needs.

The backend refuses to call an operation missing from ``OPERATIONS`` (``AwsBackend._call``),
so ``quotactl iam-policy`` — built from this table — always grants exactly what the code
uses. Resource scoping follows AWS Batch's ARN formats; list and describe calls take
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
    iam_action: str | None = None
    """The IAM action when it is not named after the operation (S3 HeadBucket: ListBucket)."""

    @property
    def action(self) -> str:
        return f"{self.service}:{self.iam_action or self.name}"


def _batch(name: str, resources: tuple[str, ...], writes: bool, *commands: str) -> Operation:
    return Operation("batch", name, resources, writes, commands)


_MANAGE = ("apply", "import")
_READ = ("plan", "apply", "export", "import")
_JOBS = ("submit", "jobs", "job", "status")
_JOB_READS = ("submit", "jobs", "job")
READ_COMMANDS = frozenset(
    {
        "plan",
        "export",
        "status",
        "trace export",
        "jobs",
        "job describe",
        "job why",
        "job logs",
        "submit --dry-run",
    }
)
"""The commands that change nothing: what ``iam-policy --read-only`` grants."""
_JOB_LOGS = "log-group:/aws/sagemaker/TrainingJobs:*"

OPERATIONS: dict[str, Operation] = {
    op.name: op
    for op in (
        _batch("DescribeServiceEnvironments", (ANY,), False, *_READ, "status", *_JOB_READS),
        _batch("DescribeJobQueues", (ANY,), False, *_READ, "status", "trace export", *_JOB_READS),
        _batch("ListSchedulingPolicies", (ANY,), False, *_READ),
        _batch("DescribeSchedulingPolicies", (ANY,), False, *_READ),
        _batch("ListQuotaShares", (ANY,), False, *_READ, "status", *_JOB_READS),
        _batch("DescribeQuotaShare", (ANY,), False, *_READ),
        _batch("ListTagsForResource", (ANY,), False, *_READ, "status"),
        _batch("ListServiceJobs", (ANY,), False, "plan", "apply", "trace export", *_JOBS),
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
        _batch("DescribeServiceJob", (ANY,), False, "trace export", *_JOBS),
        _batch("UpdateServiceJob", (JOB,), True, "job priority"),
        _batch("TerminateServiceJob", (JOB,), True, "job cancel"),
        # The bulk call is authorised as batch:TerminateServiceJob on each job (AWS's docs).
        _batch("TerminateServiceJobs", (JOB,), True, "job cancel"),
        _batch("GetJobQueueSnapshot", (QUEUE,), False, "status", "job", "trace export"),
        Operation("sts", "GetCallerIdentity", (ANY,), False, ("plan", "apply", "import")),
        # submit's pre-flight on the aws backend: the job's role and output bucket exist
        Operation("iam", "GetRole", ("role/*",), False, ("submit",)),
        Operation("s3", "HeadBucket", ("*",), False, ("submit",), iam_action="ListBucket"),
        # job describe / job logs: the service job's SageMaker training job and its logs
        Operation(
            "sagemaker",
            "DescribeTrainingJob",
            ("training-job/*",),
            False,
            ("job describe", "job logs"),
        ),
        Operation("logs", "DescribeLogStreams", (_JOB_LOGS,), False, ("job logs",)),
        Operation("logs", "GetLogEvents", (_JOB_LOGS,), False, ("job logs",)),
    )
}


def policy_document(
    *, region: str = "*", account: str = "*", read_only: bool = False
) -> dict[str, Any]:
    """The least-privilege IAM policy for quotactl (``read_only``: the commands in
    ``READ_COMMANDS``, which change nothing)."""
    prefix = f"arn:aws:batch:{region}:{account}:"
    statements: list[dict[str, Any]] = []
    granted = [
        o
        for o in OPERATIONS.values()
        if not read_only or (not o.writes and READ_COMMANDS & set(o.commands))
    ]
    reads = sorted(o.action for o in granted if not o.writes and o.service == "batch")
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
    statements += _job_statements(granted, region, account)
    statements.append(
        {
            "Sid": "AccountGuard",
            "Effect": "Allow",
            "Action": "sts:GetCallerIdentity",
            "Resource": "*",
        }
    )
    return {"Version": "2012-10-17", "Statement": statements}


_ARN_PREFIX = {
    "iam": "arn:aws:iam::{account}:",
    "s3": "arn:aws:s3:::",
    "sagemaker": "arn:aws:sagemaker:{region}:{account}:",
    "logs": "arn:aws:logs:{region}:{account}:",
}
_JOB_SIDS = {
    "iam": "SubmitPreflightRole",
    "s3": "SubmitPreflightBucket",
    "sagemaker": "ReadTrainingJobs",
    "logs": "ReadTrainingJobLogs",
}


def _job_statements(granted: list[Operation], region: str, account: str) -> list[dict[str, Any]]:
    """The non-Batch calls of the job commands, one statement per service."""
    out: list[dict[str, Any]] = []
    for service, sid in _JOB_SIDS.items():
        ops = [o for o in granted if o.service == service]
        if not ops:
            continue
        prefix = _ARN_PREFIX[service].format(region=region, account=account)
        resources = sorted({prefix + r for o in ops for r in o.resources})
        out.append(
            {
                "Sid": sid,
                "Effect": "Allow",
                "Action": sorted({o.action for o in ops}),
                "Resource": resources,
            }
        )
    return out
