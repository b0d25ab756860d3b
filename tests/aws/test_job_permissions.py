"""`iam-policy` grants what the job commands call, and `--read-only` exactly the reads."""

from __future__ import annotations

import inspect
import re

import botocore.session

import quotactl.aws.jobs
import quotactl.aws.live
import quotactl.aws.training
from quotactl.aws.permissions import OPERATIONS, READ_COMMANDS, policy_document


def _actions(document: dict[str, object]) -> set[str]:
    found: set[str] = set()
    for statement in document["Statement"]:  # type: ignore[attr-defined]
        action = statement["Action"]
        found |= {action} if isinstance(action, str) else set(action)
    return found


def test_every_operation_the_job_modules_call_is_in_the_table() -> None:
    session = botocore.session.get_session()
    known = {
        op
        for service in ("batch", "iam", "s3", "sagemaker", "logs")
        for op in session.get_service_model(service).operation_names
    }
    for module in (quotactl.aws.jobs, quotactl.aws.training, quotactl.aws.live):
        called = set(re.findall(r'"([A-Z][A-Za-z]+)"', inspect.getsource(module))) & known
        assert called <= set(OPERATIONS), module.__name__


def test_the_full_policy_grants_the_job_commands_calls() -> None:
    actions = _actions(policy_document(region="us-east-1", account="123456789012"))
    assert {
        "batch:SubmitServiceJob",
        "batch:TerminateServiceJob",  # TerminateServiceJobs is authorised as this, per job
        "batch:UpdateServiceJob",
        "iam:GetRole",
        "s3:ListBucket",  # HeadBucket is authorised as s3:ListBucket
        "sagemaker:DescribeTrainingJob",
        "logs:GetLogEvents",
        "logs:DescribeLogStreams",
    } <= actions


def test_read_only_covers_exactly_the_reads_of_the_read_commands() -> None:
    actions = _actions(policy_document(read_only=True))
    reads = {
        op.action
        for op in OPERATIONS.values()
        if not op.writes and READ_COMMANDS & set(op.commands)
    }
    assert actions == reads | {"sts:GetCallerIdentity"}
    assert {"batch:ListServiceJobs", "batch:DescribeServiceJob", "logs:GetLogEvents"} <= actions
    assert not actions & {
        "batch:SubmitServiceJob",
        "batch:TerminateServiceJob",
        "batch:UpdateServiceJob",
        "s3:ListBucket",  # submit's pre-flight: only a real submit makes it
    }
    # iam:GetRole is submit's pre-flight too, and doctor's (the role behind a session)
    assert "iam:GetRole" in actions


def test_job_logs_resources_are_the_training_job_log_group() -> None:
    document = policy_document(region="eu-west-1", account="123456789012")
    logs = next(s for s in document["Statement"] if s["Sid"] == "ReadTrainingJobLogs")
    assert logs["Resource"] == [
        "arn:aws:logs:eu-west-1:123456789012:log-group:/aws/sagemaker/TrainingJobs:*"
    ]
