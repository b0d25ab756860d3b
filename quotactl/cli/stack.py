"""What plan, apply, import and export share: config loading, the backend, the guard, approval.

Heavy modules (boto3 via ``quotactl.aws``, pydantic via ``quotactl.config``) are imported
inside the functions, so importing this module costs nothing at start-up.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from quotactl.errors import QuotactlError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.aws.backend import AwsBackend
    from quotactl.cli.runtime import Runtime
    from quotactl.config import LoadedConfig


def load(runtime: Runtime, paths: Sequence[Path] | None) -> LoadedConfig:
    """The configuration at ``paths`` (default ``configs/``); warnings go to stderr."""
    from quotactl.config import load_config

    loaded = load_config(list(paths or [Path("configs")]))
    for warning in loaded.warnings:
        runtime.notice(str(warning))
    return loaded


def open_backend(runtime: Runtime, region: str | None) -> AwsBackend:
    """The backend for the global options; ``region`` is the platform's (``--region`` wins)."""
    from quotactl.aws.backend import AwsBackend
    from quotactl.aws.session import client

    target = runtime.target(region)
    return AwsBackend(client(target, session=runtime.session(target)))


def guard_account(runtime: Runtime, account_id: str | None, region: str | None) -> None:
    """Refuse to write to any account but ``platform.account_id`` (the account guard)."""
    if account_id is None:
        return
    target = runtime.target(region)
    if target.backend != "aws" or target.endpoint_url:
        where = "the local emulator" if target.backend == "local" else "a custom endpoint"
        runtime.notice(f"quotactl: account guard not checked on {where}")
        return
    from quotactl.aws.guard import check_account
    from quotactl.aws.session import client

    check_account(account_id, client(target, "sts", session=runtime.session(target)))


def confirm(runtime: Runtime, question: str, *, auto_approve: bool) -> None:
    """Ask for ``yes`` on a terminal; refuse without one (CI) unless ``--auto-approve``."""
    if auto_approve:
        return
    if not sys.stdin.isatty():
        raise QuotactlError(
            "no terminal to confirm on and --auto-approve not given: nothing was changed",
            code="approval-required",
            hint="review the plan, then re-run with --auto-approve (or apply a saved --plan)",
        )
    print(f"\n{question}\n  Only 'yes' will be accepted.", file=runtime.stdout)
    print("  Enter a value: ", end="", file=runtime.stdout, flush=True)
    answer = sys.stdin.readline().strip()
    if answer != "yes":
        raise QuotactlError(
            "cancelled: the answer was not 'yes'; nothing was changed", code="cancelled"
        )


def report_calls(runtime: Runtime, backend: AwsBackend) -> None:
    """With --debug, the AWS API calls made, by operation, on stderr."""
    if runtime.debug:
        calls = backend.calls
        detail = ", ".join(f"{op} {n}" for op, n in sorted(calls.items()))
        print(f"quotactl: {sum(calls.values())} API calls ({detail})", file=runtime.stderr)
