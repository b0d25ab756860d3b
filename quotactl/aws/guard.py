"""The account guard: with ``platform.account_id`` set, writing commands refuse any other account.

Checked with STS GetCallerIdentity, only where it protects something real: ``--backend aws``
against AWS's own Batch endpoint. With ``--endpoint-url`` the Batch endpoint is not AWS, so
STS would describe the credentials, not the account being written, and the local backend is
a fixed emulated account; both skip the check (the CLI says so on stderr).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.errors import QuotactlError

if TYPE_CHECKING:
    from mypy_boto3_sts import STSClient


class AccountMismatchError(QuotactlError):
    code = "account-mismatch"


def caller_account(sts_client: STSClient) -> str:
    """The account the credentials belong to."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        return str(sts_client.get_caller_identity()["Account"])
    except (ClientError, BotoCoreError) as exc:
        raise QuotactlError(
            f"cannot confirm which AWS account these credentials belong to: {exc}",
            code="aws-error",
            hint="the account guard (platform.account_id) needs sts:GetCallerIdentity",
        ) from exc


def check_account(expected: str | None, sts_client: STSClient) -> str | None:
    """Refuse (``account-mismatch``) unless the caller is in ``expected``; None if unset."""
    if expected is None:
        return None
    actual = caller_account(sts_client)
    if actual != expected:
        raise AccountMismatchError(
            f"these credentials are for account {actual}, "
            f"but platform.account_id is {expected}: nothing was changed",
            hint="switch profile (--profile / AWS_PROFILE) or fix platform.account_id",
        )
    return actual
