"""Which account and region calls reach: the identity a plan records and apply insists on.

On ``--backend aws`` it is STS GetCallerIdentity's account (asked even when
``platform.account_id`` is not set: a saved plan records it, and ``apply --plan`` refuses any
other). On the local backend, with or without ``--endpoint-url``, it is the emulated account
every emulator ARN carries. The region is the Batch client's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.apply.preconditions import Identity, check_expected_account
from quotactl.errors import BackendError

if TYPE_CHECKING:
    from mypy_boto3_sts import STSClient

    from quotactl.aws.session import Target

__all__ = ["caller_account", "check_account", "identity"]


def caller_account(sts_client: STSClient) -> str:
    """The account the credentials belong to."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        return str(sts_client.get_caller_identity()["Account"])
    except (ClientError, BotoCoreError) as exc:
        raise BackendError(
            f"cannot confirm which AWS account these credentials belong to: {exc}",
            hint="quotactl records the account a plan is for: it needs sts:GetCallerIdentity",
        ) from exc


def check_account(expected: str | None, sts_client: STSClient) -> str | None:
    """Refuse (``account-mismatch``) unless the caller is in ``expected``; None if unset."""
    if expected is None:
        return None
    actual = caller_account(sts_client)
    check_expected_account(expected, Identity(actual, "-"))
    return actual


def identity(target: Target, sts_client: STSClient | None, region: str) -> Identity:
    """The account and region that ``target``'s calls reach (``sts_client`` on aws only)."""
    if target.backend == "local":
        from quotactl.emulator.account.arns import Account

        return Identity(Account().account_id, region)
    assert sts_client is not None
    return Identity(caller_account(sts_client), region)
