"""What ``quotactl doctor`` asks of the AWS side: where the credentials come from, which
endpoint Batch is, whether it answers, and what IAM's policy simulator says of quotactl's calls.

Credentials are never returned: only where they come from and the access key masked to its
last four characters (as ``aws configure list`` shows them).
"""

from __future__ import annotations

import dataclasses
import sqlite3
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from quotactl.aws.permissions import OPERATIONS, policy_document

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    import boto3

    from quotactl.aws.session import Target

CREDENTIAL_SOURCES = {
    "env": "environment variables",
    "shared-credentials-file": "the shared credentials file",
    "config-file": "the AWS config file",
    "assume-role": "an assumed role (profile)",
    "assume-role-with-web-identity": "a web identity role (OIDC)",
    "sso": "IAM Identity Center (SSO)",
    "container-role": "the container's role",
    "iam-role": "the instance's role",
    "explicit": "explicit keys",
}


@dataclass(frozen=True)
class Credentials:
    """Where the credentials were found, and the access key masked."""

    source: str
    masked_key: str


def credentials(session: boto3.Session) -> Credentials | None:
    """The session's credentials, described; None when the chain finds none."""
    found = session.get_credentials()
    if found is None:
        return None
    method = str(getattr(found, "method", "") or "unknown")
    key = found.access_key or ""
    return Credentials(CREDENTIAL_SOURCES.get(method, method), mask(key))


def mask(key: str) -> str:
    """``AKIA************WXYZ``: the last four characters, as the AWS CLI shows a key."""
    if len(key) <= 4:
        return "*" * len(key)
    return "*" * (len(key) - 4) + key[-4:]


def batch_reachable(target: Target, session: boto3.Session) -> tuple[str, float]:
    """Batch's endpoint URL, and the seconds one cheap read (DescribeJobQueues) took there.

    Raises ``BotoCoreError``/``ClientError`` when it does not answer.
    """
    from quotactl.aws.session import client

    batch = client(target, "batch", session=session, retries={"total_max_attempts": 1})
    started = time.monotonic()
    batch.describe_job_queues(maxResults=1)
    return str(batch.meta.endpoint_url), time.monotonic() - started


OTHER_SERVICES = ("sts", "iam", "s3", "sagemaker", "logs")
"""The services the aws backend calls besides Batch: STS (the account guard), IAM and S3
(submit's pre-flight), SageMaker (``job describe``) and CloudWatch Logs (``job logs``)."""


@dataclass(frozen=True)
class Reach:
    """One endpoint the aws backend uses, and whether it answered an HTTP request."""

    service: str
    endpoint: str
    seconds: float | None  # None: unreachable
    problem: str = ""


PROBE = "quotactl-doctor-probe"
"""The name doctor's probes ask for: nothing needs to exist by it."""


def endpoints_reached(target: Target, session: boto3.Session) -> list[Reach]:
    """Each endpoint of ``OTHER_SERVICES`` (as botocore resolves it: the region, and
    ``AWS_ENDPOINT_URL_<SERVICE>``), reached with one read that quotactl's IAM policy grants,
    all at once, each one attempt bounded to seconds. Any answer of the service counts, an
    error too (no such role, access denied): reaching, not permission, is checked here."""
    from concurrent.futures import ThreadPoolExecutor

    from botocore.exceptions import ClientError

    from quotactl.aws.account import PROBE_CONNECT_TIMEOUT, PROBE_READ_TIMEOUT
    from quotactl.aws.session import client
    from quotactl.aws.training import LOG_GROUP

    bounded = dataclasses.replace(
        target, connect_timeout=PROBE_CONNECT_TIMEOUT, read_timeout=PROBE_READ_TIMEOUT
    )
    once: Any = {"total_max_attempts": 1}
    sts = client(bounded, "sts", session=session, retries=once)
    iam = client(bounded, "iam", session=session, retries=once)
    s3 = client(bounded, "s3", session=session, retries=once)
    sagemaker = client(bounded, "sagemaker", session=session, retries=once)
    logs = client(bounded, "logs", session=session, retries=once)
    probes: list[tuple[str, Any, Callable[[], object]]] = [
        ("sts", sts, sts.get_caller_identity),
        ("iam", iam, lambda: iam.get_role(RoleName=PROBE)),
        ("s3", s3, lambda: s3.head_bucket(Bucket=PROBE)),
        ("sagemaker", sagemaker, lambda: sagemaker.describe_training_job(TrainingJobName=PROBE)),
        ("logs", logs, lambda: logs.describe_log_streams(logGroupName=LOG_GROUP, limit=1)),
    ]

    def reach(probe: tuple[str, Any, Callable[[], object]]) -> Reach:
        service, api, call = probe
        url = str(api.meta.endpoint_url)
        started = time.monotonic()
        try:
            call()
        except ClientError:
            pass  # the service answered
        except Exception as exc:
            return Reach(service, url, None, str(exc).strip() or type(exc).__name__)
        return Reach(service, url, time.monotonic() - started)

    with ThreadPoolExecutor(max_workers=len(probes)) as pool:
        return list(pool.map(reach, probes))


def required_actions() -> list[str]:
    """Every IAM action quotactl's commands need: the actions of ``iam-policy``'s policy."""
    actions: set[str] = set()
    for statement in policy_document()["Statement"]:
        granted = statement["Action"]
        actions.update([granted] if isinstance(granted, str) else granted)
    return sorted(actions)


def commands_needing(action: str) -> list[str]:
    """The commands that make the calls ``action`` allows."""
    found = {
        c
        for op in OPERATIONS.values()
        if op.action == action or action in {f"{op.service}:{a}" for a, _ in op.implied}
        for c in op.commands
    }
    if action == "iam:CreateServiceLinkedRole":
        found.add("apply")
    return sorted(found)


def denied_actions(target: Target, session: boto3.Session) -> tuple[str, list[str]]:
    """The caller's IAM principal, and which of ``required_actions`` IAM's policy simulator
    (SimulatePrincipalPolicy) says it may not call. Raises botocore errors."""
    from quotactl.aws.session import client

    sts = client(target, "sts", session=session)
    iam = client(target, "iam", session=session)
    principal = principal_arn(str(sts.get_caller_identity()["Arn"]), iam)
    denied: list[str] = []
    paginator = iam.get_paginator("simulate_principal_policy")
    for page in paginator.paginate(PolicySourceArn=principal, ActionNames=required_actions()):
        for result in page["EvaluationResults"]:
            if result["EvalDecision"] != "allowed":
                denied.append(result["EvalActionName"])
    return principal, sorted(denied)


def principal_arn(caller: str, iam: object) -> str:
    """The IAM ARN the simulator takes for STS's caller ARN: an assumed role's session
    (``arn:aws:sts::1:assumed-role/R/s``) is its role (``arn:aws:iam::1:role/PATH/R``)."""
    parts = caller.split(":", 5)
    if len(parts) == 6 and parts[2] == "sts" and parts[5].startswith("assumed-role/"):
        role = parts[5].split("/")[1]
        try:
            return str(iam.get_role(RoleName=role)["Role"]["Arn"])  # type: ignore[attr-defined]
        except Exception:  # no iam:GetRole: the role without its path
            return f"arn:aws:iam::{parts[4]}:role/{role}"
    return caller


@dataclass(frozen=True)
class StateFile:
    """The emulator's state file as found on disk."""

    exists: bool
    version: int | None = None
    problem: str | None = None


def state_file(path: Path) -> StateFile:
    """Whether the state file exists and opens, and its schema version; read-only."""
    if not path.exists():
        return StateFile(exists=False)
    if not path.is_file():
        return StateFile(exists=True, problem="it is not a file")
    try:
        with open(path, "rb") as handle:
            handle.read(16)
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            db.execute("PRAGMA quick_check(1)").fetchall()
        finally:
            db.close()
    except (OSError, sqlite3.Error) as exc:
        return StateFile(exists=True, problem=str(exc))
    return StateFile(exists=True, version=version)
