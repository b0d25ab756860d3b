"""``doctor`` and ``--version``: is this machine ready to run quotactl, and with what?

Each check passes, warns or fails, with one line saying what was found. ``doctor`` on the aws
backend looks at the credential chain (never printing a secret), the region, the Batch
endpoint and whether it answers, and asks IAM's policy simulator whether the caller may make
every call ``iam-policy`` grants; on the local backend it looks at the emulator's state file.
"""

from __future__ import annotations

import platform
import re
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from quotactl import __version__
from quotactl.core.checkup import Check, Checkup, Status

__all__ = ["Check", "Checkup", "doctor", "version_line", "versions"]

if TYPE_CHECKING:
    import boto3

    from quotactl.aws.session import Target

REGION = re.compile(r"^[a-z]{2}(-[a-z]+)+-[0-9]+$")


def versions() -> dict[str, str]:
    """quotactl's version and those it runs with, as ``--version`` prints them."""
    found = {
        "quotactl": __version__,
        "Python": platform.python_version(),
        platform.system() or "os": platform.release() or "unknown",
    }
    for package in ("boto3", "botocore"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = "missing"
    return found


def version_line() -> str:
    """``quotactl/0.1.0 Python/3.11.7 Linux/6.1.0 boto3/1.44.8 botocore/1.44.8``."""
    return " ".join(f"{name}/{version}" for name, version in versions().items())


def doctor(
    backend: str = "local",
    *,
    state: Path | str = Path(".quotactl") / "emulator.db",
    profile: str | None = None,
    region: str | None = None,
    endpoint_url: str | None = None,
) -> Checkup:
    """Check the machine for ``backend``; never raises for what it finds (a failed check)."""
    from quotactl.aws.session import Target

    target = Target(
        backend=backend,
        state_path=Path(state),
        profile=profile,
        region=region,
        endpoint_url=endpoint_url,
    )
    checkup = Checkup(backend)
    checkup.add("versions", "pass", version_line())
    if target.uses_emulator and not _check_state(checkup, target.state_path):
        return checkup
    session = _session(checkup, target)
    if session is None:
        return checkup
    if backend == "aws":
        if not _check_credentials(checkup, session):
            return checkup
    else:
        checkup.add("credentials", "pass", "none needed: the local backend signs with dummy keys")
    _check_region(checkup, target, session)
    reached = _check_batch(checkup, target, session)
    if reached:
        _check_governor(checkup, target, session)
    if backend == "aws":
        _check_endpoints(checkup, target, session)
    if reached and backend == "aws" and not endpoint_url:
        _check_permissions(checkup, target, session)
    return checkup


_UNREACHABLE: dict[str, tuple[Status, str]] = {
    "sts": ("fail", "the account guard cannot run: every aws-backend command fails"),
    "iam": ("warn", "submit cannot check the job's role"),
    "s3": ("warn", "submit cannot check the job's output bucket"),
    "sagemaker": ("warn", "job describe cannot show the training job"),
    "logs": ("warn", "job logs cannot read the training job's logs"),
}


def _check_endpoints(checkup: Checkup, target: Target, session: boto3.Session) -> None:
    """Every endpoint the aws backend will use besides Batch's, named and reached."""
    from quotactl.aws.diagnose import endpoints_reached

    for found in endpoints_reached(target, session):
        name = f"endpoint {found.service}"
        if found.seconds is not None:
            checkup.add(name, "pass", f"{found.endpoint} answered in {found.seconds * 1000:.0f} ms")
            continue
        level, consequence = _UNREACHABLE[found.service]
        checkup.add(name, level, f"{found.endpoint} unreachable ({found.problem}): {consequence}")


def _check_state(checkup: Checkup, path: Path) -> bool:
    from quotactl.aws.diagnose import state_file
    from quotactl.emulator.store.database import SCHEMA_VERSION

    found = state_file(path)
    where = str(path.resolve())
    if not found.exists:
        checkup.add(
            "emulator state",
            "warn",
            f"{where} does not exist yet: the first command creates it",
        )
        return False
    if found.problem is not None:
        checkup.add("emulator state", "fail", f"{where} cannot be read: {found.problem}")
        return False
    if found.version is not None and found.version > SCHEMA_VERSION:
        checkup.add(
            "emulator state",
            "fail",
            f"{where} has schema version {found.version}; this quotactl reads up to "
            f"{SCHEMA_VERSION} (upgrade quotactl, or `quotactl local reset`)",
        )
        return False
    note = "" if found.version == SCHEMA_VERSION else f" (upgraded to {SCHEMA_VERSION} on use)"
    checkup.add("emulator state", "pass", f"{where}, schema version {found.version}{note}")
    return True


def _session(checkup: Checkup, target: Target) -> boto3.Session | None:
    from quotactl.aws.session import make_session
    from quotactl.errors import QuotactlError

    try:
        return make_session(target)
    except QuotactlError as exc:
        checkup.add("credentials", "fail", exc.message)
        return None


def _check_credentials(checkup: Checkup, session: boto3.Session) -> bool:
    from quotactl.aws.diagnose import credentials

    found = credentials(session)
    if found is None:
        checkup.add(
            "credentials",
            "fail",
            "no AWS credentials found (environment, profile, SSO, container or instance role)",
        )
        return False
    checkup.add("credentials", "pass", f"from {found.source}, access key {found.masked_key}")
    return True


def _check_region(checkup: Checkup, target: Target, session: boto3.Session) -> None:
    chosen = target.region or session.region_name
    if not chosen:
        checkup.add(
            "region",
            "warn",
            "none set (--region, AWS_DEFAULT_REGION or the profile): commands use platform.region",
        )
    elif not REGION.match(chosen):
        checkup.add("region", "fail", f"{chosen!r} is not an AWS region name")
    else:
        checkup.add("region", "pass", chosen)


def _check_batch(checkup: Checkup, target: Target, session: boto3.Session) -> bool:
    from quotactl.aws.diagnose import batch_reachable
    from quotactl.errors import QuotactlError

    try:
        endpoint, seconds = batch_reachable(target, session)
    except (QuotactlError, Exception) as exc:
        checkup.add("batch", "fail", f"AWS Batch does not answer: {_first_line(exc)}")
        return False
    where = "the embedded emulator" if target.uses_emulator else endpoint
    checkup.add("endpoint", "pass", where)
    checkup.add("batch", "pass", f"DescribeJobQueues answered in {seconds * 1000:.0f} ms")
    return True


def _check_governor(checkup: Checkup, target: Target, session: boto3.Session) -> None:
    """Shares the governor holds changed past their ``until`` (a restore overdue: the governor
    stopped running). Said only where a governor has tagged shares; a read that fails says
    nothing (the batch check above speaks for the endpoint)."""
    from datetime import UTC, datetime

    from quotactl.aws.live import read_queues
    from quotactl.aws.session import client
    from quotactl.core.govern.readback import governance_of
    from quotactl.core.words import count_of

    try:
        queues = read_queues(client(target, "batch", session=session), statuses=())
    except Exception:
        return
    at = max((q.read_at for q in queues), default=0.0)
    governance = governance_of(queues, datetime.fromtimestamp(at, UTC))
    if not governance.governed:
        return
    overdue = governance.overdue
    if not overdue:
        checkup.add(
            "governor",
            "pass",
            f"{count_of(len(governance.governed), 'share')} held by a policy, none past its time",
        )
        return
    late = "; ".join(
        f"{row.address} ({row.policy}, due {row.until:%Y-%m-%dT%H:%MZ})"
        for row in overdue
        if row.until is not None
    )
    checkup.add(
        "governor",
        "warn",
        f"{count_of(len(overdue), 'restore')} overdue: {late}; is `quotactl govern` running? "
        "(a `govern --once` puts them back)",
    )


def _check_permissions(checkup: Checkup, target: Target, session: boto3.Session) -> None:
    from quotactl.aws.diagnose import commands_needing, denied_actions, required_actions

    try:
        principal, denied = denied_actions(target, session)
    except Exception as exc:
        checkup.add(
            "permissions",
            "warn",
            f"cannot simulate the IAM policy (needs iam:SimulatePrincipalPolicy): "
            f"{_first_line(exc)}",
        )
        return
    total = len(required_actions())
    if not denied:
        checkup.add("permissions", "pass", f"{principal} may make all {total} calls quotactl needs")
        return
    detail = "; ".join(f"{a} ({', '.join(commands_needing(a))})" for a in denied)
    checkup.add(
        "permissions",
        "fail",
        f"{principal} is denied {len(denied)} of {total} actions: {detail} "
        "(`quotactl iam-policy` prints the policy to attach)",
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]
