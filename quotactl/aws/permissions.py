"""Every AWS operation quotactl calls, with the IAM action and resources it needs.

The backend refuses to call an operation missing from ``OPERATIONS`` (``BatchCalls.call``),
so ``quotactl iam-policy`` — built from this table — always grants exactly what the code
uses, and each call only to the commands that make it. Resources are scoped by AWS Batch's
ARN formats; list and describe calls take ``*`` (AWS Batch does not scope them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

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
    implied: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Further (action, resources) AWS authorises on the call (a create that tags: TagResource
    on what it creates), in the same service."""
    narrowed: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(command, resources): a command that needs the call on fewer resources than
    ``resources`` (govern tags shares, jobs, queues and its lock, never environments)."""

    def resources_for(self, wanted: frozenset[str]) -> tuple[str, ...]:
        """The resources the ``wanted`` commands need this call on, in the table's order."""
        narrow = dict(self.narrowed)
        found: dict[str, None] = {}
        for command in self.commands:
            if command in wanted:
                found.update(dict.fromkeys(narrow.get(command, self.resources)))
        return tuple(r for r in (*self.resources, *found) if r in found) or self.resources

    @property
    def action(self) -> str:
        return f"{self.service}:{self.iam_action or self.name}"


def _batch(
    name: str,
    resources: tuple[str, ...],
    writes: bool,
    *commands: str,
    iam_action: str | None = None,
    implied: tuple[tuple[str, tuple[str, ...]], ...] = (),
    narrowed: tuple[tuple[str, tuple[str, ...]], ...] = (),
) -> Operation:
    return Operation("batch", name, resources, writes, commands, iam_action, implied, narrowed)


# Who makes which call, in one place: a command that calls AWS lists itself (its full name,
# e.g. "job cancel") on each operation it makes. tests/aws/test_permissions.py fails for a
# registered command missing here and for a name here that is no command, and checks that
# the calls each command really makes are granted to it. The stack lock (quotactl.aws.lock) is
# a scheduling policy: every command that writes config creates, renews and deletes it.
_OBSERVE = ("plan", "apply", "export", "import")
_LOCKED = ("apply", "import")
_IDENTITY = ("plan", "apply", "import", "force-unlock")
"""STS tells the aws backend which account it reaches (a plan records it)."""
_JOB = ("job describe", "job cancel", "job priority", "job why", "job logs")
_JOBS = ("submit", "jobs", *_JOB, "status")
_JOB_READS = ("submit", "jobs", *_JOB)
_JOB_LOGS = "log-group:/aws/sagemaker/TrainingJobs:*"
_RECORD = ("history", "usage", "metrics serve")
"""What happened: they read what status reads, and every job's history (read-only calls)."""
_GOVERN = ("govern",)
"""The governor reads what status and usage read, takes the stack lock, updates shares and
job priorities, and tags both (``quotactl:governed``, ``quotactl:budget``,
``quotactl:base-priority``) and the queues with aging (``quotactl:governor``, its last cycle)."""
_GOVERN_TAGS = (("govern", (POLICY, QUEUE, SHARE, JOB)),)

OPERATIONS: dict[str, Operation] = {
    op.name: op
    for op in (
        _batch(
            "DescribeServiceEnvironments",
            (ANY,),
            False,
            *_OBSERVE,
            "status",
            *_JOB_READS,
            *_RECORD,
            *_GOVERN,
            "doctor",
        ),
        _batch(
            "DescribeJobQueues",
            (ANY,),
            False,
            *_OBSERVE,
            "status",
            "trace export",
            *_JOB_READS,
            *_RECORD,
            "doctor",
            *_GOVERN,
        ),
        _batch("ListSchedulingPolicies", (ANY,), False, *_OBSERVE, "force-unlock", *_GOVERN),
        _batch(
            "DescribeSchedulingPolicies",
            (ANY,),
            False,
            *_OBSERVE,
            "force-unlock",
            "status",
            *_JOB_READS,
            *_RECORD,
            "trace export",
            *_GOVERN,
            "doctor",
        ),
        _batch(
            "ListQuotaShares",
            (ANY,),
            False,
            *_OBSERVE,
            "status",
            *_JOB_READS,
            *_RECORD,
            *_GOVERN,
            "doctor",
        ),
        _batch("DescribeQuotaShare", (ANY,), False, "apply"),
        _batch(
            "ListTagsForResource",
            (ANY,),
            False,
            *_OBSERVE,
            "status",
            *_JOB_READS,
            *_RECORD,
            *_GOVERN,
            "doctor",
        ),
        _batch(
            "ListServiceJobs",
            (ANY,),
            False,
            "plan",
            "apply",
            "trace export",
            *_JOBS,
            *_RECORD,
            *_GOVERN,
        ),
        _batch("CreateServiceEnvironment", (ENVIRONMENT,), True, "apply"),
        _batch("UpdateServiceEnvironment", (ENVIRONMENT,), True, "apply"),
        _batch("DeleteServiceEnvironment", (ENVIRONMENT,), True, "apply"),
        _batch("CreateSchedulingPolicy", (POLICY,), True, *_LOCKED, *_GOVERN),
        _batch("DeleteSchedulingPolicy", (POLICY,), True, *_LOCKED, "force-unlock", *_GOVERN),
        _batch("CreateJobQueue", (QUEUE, POLICY, ENVIRONMENT), True, "apply"),
        # the reference authorises UpdateJobQueue on the queue and its scheduling policy only
        _batch("UpdateJobQueue", (QUEUE, POLICY), True, "apply"),
        _batch("DeleteJobQueue", (QUEUE,), True, "apply"),
        _batch("CreateQuotaShare", (QUEUE, SHARE), True, "apply"),
        _batch("UpdateQuotaShare", (SHARE,), True, "apply", *_GOVERN),
        _batch("DeleteQuotaShare", (SHARE,), True, "apply"),
        _batch(
            "TagResource",
            (ENVIRONMENT, POLICY, QUEUE, SHARE, JOB),
            True,
            *_LOCKED,
            *_GOVERN,
            narrowed=(*((c, (ENVIRONMENT, POLICY, QUEUE, SHARE)) for c in _LOCKED), *_GOVERN_TAGS),
        ),
        _batch(
            "UntagResource",
            (ENVIRONMENT, POLICY, QUEUE, SHARE, JOB),
            True,
            "apply",
            *_GOVERN,
            narrowed=(("apply", (ENVIRONMENT, POLICY, QUEUE, SHARE)), ("govern", (SHARE, JOB))),
        ),
        # AWS authorises a submit on the queue, the service job it creates and the quota share
        # it names; a submit carrying tags (every one: quotactl:submit-token) on TagResource too
        _batch(
            "SubmitServiceJob",
            (QUEUE, SHARE, JOB),
            True,
            "submit",
            implied=(("TagResource", (JOB,)),),
        ),
        _batch("DescribeServiceJob", (ANY,), False, "trace export", *_JOBS, *_RECORD, *_GOVERN),
        _batch("UpdateServiceJob", (JOB,), True, "job priority", *_GOVERN),
        _batch("TerminateServiceJob", (JOB,), True, "job cancel"),
        # The bulk call is authorised as batch:TerminateServiceJob on each job: there is no
        # batch:TerminateServiceJobs IAM action (the Service Authorization Reference).
        _batch(
            "TerminateServiceJobs", (JOB,), True, "job cancel", iam_action="TerminateServiceJob"
        ),
        _batch("GetJobQueueSnapshot", (QUEUE,), False, *_JOBS, "trace export", *_RECORD, *_GOVERN),
        Operation("sts", "GetCallerIdentity", (ANY,), False, (*_IDENTITY, "doctor")),
        # submit's pre-flight on the aws backend: the job's role and output bucket exist;
        # doctor finds the role behind an assumed-role session, and asks IAM's simulator
        Operation("iam", "GetRole", ("role/*",), False, ("submit", "doctor")),
        Operation("iam", "SimulatePrincipalPolicy", ("role/*", "user/*"), False, ("doctor",)),
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

OFFLINE_COMMANDS = frozenset(
    {
        "validate",
        "schema",
        "fmt",
        "iam-policy",
        "simulate",
        "trace generate",
        "trace import",
        "tune",
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


READ_COMMANDS = read_only_commands()
"""The commands that change nothing: what ``iam-policy --read-only`` grants."""


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
    reads = sorted({o.action for o in chosen if not o.writes and o.service == "batch"})
    if reads:
        statements.append(
            {"Sid": "ReadQuotaManagement", "Effect": "Allow", "Action": reads, "Resource": "*"}
        )
    granted: dict[str, dict[str, None]] = {}  # action -> its resources, in the table's order
    for op in chosen:
        if op.writes and op.service == "batch":
            granted.setdefault(op.action, {}).update(dict.fromkeys(op.resources_for(wanted)))
            for action, implied in op.implied:
                granted.setdefault(f"{op.service}:{action}", {}).update(dict.fromkeys(implied))
    by_resources: dict[tuple[str, ...], list[str]] = {}
    for action, resources in granted.items():
        by_resources.setdefault(tuple(resources), []).append(action)
    for index, (arns, actions) in enumerate(sorted(by_resources.items()), start=1):
        statements.append(
            {
                "Sid": f"ManageQuotaManagement{index}",
                "Effect": "Allow",
                "Action": sorted(actions),
                "Resource": [prefix + r for r in arns],
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
    statements += _job_statements(chosen, region, account)
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


_ARN_PREFIX = {
    "iam": "arn:aws:iam::{account}:",
    "s3": "arn:aws:s3:::",
    "sagemaker": "arn:aws:sagemaker:{region}:{account}:",
    "logs": "arn:aws:logs:{region}:{account}:",
}
_JOB_SIDS = {
    "iam": "ReadRoles",
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


def team_policy_document(
    *,
    region: str = "*",
    account: str = "*",
    shares: Sequence[tuple[str, str]],
    max_priority: int | None = None,
) -> dict[str, Any]:
    """The policy for a team's training role: ``submit`` (and what it reads) only to the
    team's own ``shares`` ((queue, share) pairs), at a ``batch:SchedulingPriority`` up to
    ``max_priority`` (a submit that names none gets the queue's default); no change to any
    share, so a team cannot re-enable a share its budget disabled, nor untag the governor's
    tags. ``job priority`` is not granted: it would raise a priority past ``max_priority``."""
    prefix = f"arn:aws:batch:{region}:{account}:"
    queues = sorted({queue for queue, _ in shares})
    submit: dict[str, Any] = {
        "Sid": "SubmitToOwnShares",
        "Effect": "Allow",
        "Action": "batch:SubmitServiceJob",
        "Resource": [
            *(f"{prefix}job-queue/{queue}" for queue in queues),
            *(f"{prefix}job-queue/{queue}/quota-share/{share}" for queue, share in sorted(shares)),
            prefix + JOB,
        ],
    }
    if max_priority is not None:
        submit["Condition"] = {
            "NumericLessThanEqualsIfExists": {"batch:SchedulingPriority": str(max_priority)}
        }
    base = policy_document(region=region, account=account, only=frozenset({"submit"}))
    kept = [
        statement
        for statement in base["Statement"]
        if not {"batch:SubmitServiceJob", "batch:TagResource"} & set(_listed(statement["Action"]))
    ]
    tagging = {
        "Sid": "TagJobsOnSubmit",
        "Effect": "Allow",
        "Action": "batch:TagResource",
        "Resource": prefix + JOB,
    }
    deny = {
        "Sid": "NoShareChanges",
        "Effect": "Deny",
        "Action": ["batch:TagResource", "batch:UntagResource", "batch:UpdateQuotaShare"],
        "Resource": f"arn:aws:batch:{region}:{account}:{SHARE}",
    }
    return {"Version": "2012-10-17", "Statement": [*kept, submit, tagging, deny]}


def _listed(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)
