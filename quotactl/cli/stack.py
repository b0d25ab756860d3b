"""What plan, apply, import and export share: config, the backend, its identity, lock, approval.

Heavy modules (boto3 via ``quotactl.aws``, pydantic via ``quotactl.config``) are imported
inside the functions, so importing this module costs nothing at start-up.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from quotactl.errors import ApprovalRequiredError, NotConfirmedError, UsageError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.aws.backend import AwsBackend
    from quotactl.cli.runtime import Runtime
    from quotactl.config import LoadedConfig
    from quotactl.core.apply.flow import LockRequest
    from quotactl.core.apply.preconditions import Identity


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


def reach(
    runtime: Runtime, backend: AwsBackend, region: str | None, expected: str | None
) -> Identity:
    """The account and region ``backend`` reaches; ``platform.account_id`` (``expected``), when
    set, must be that account on the aws backend (the local emulator's account is fixed)."""
    from quotactl.aws.guard import identity
    from quotactl.aws.session import client
    from quotactl.core.apply.preconditions import check_expected_account

    target = runtime.target(region)
    session = runtime.session(target)
    sts = client(target, "sts", session=session) if target.backend == "aws" else None
    found = identity(target, sts, str(backend.api.client.meta.region_name))
    if expected is not None and target.backend == "local":
        runtime.notice("quotactl: account guard not checked on the local emulator")
    elif expected is not None:
        check_expected_account(expected, found)
    return found


def lock_request(
    runtime: Runtime, backend: AwsBackend, command: str, timeout: str | None
) -> LockRequest:
    """The stack lock for a writing command; ``timeout`` is ``--lock-timeout`` (a duration)."""
    import getpass
    import os
    import socket

    from quotactl.core.apply.flow import LockRequest
    from quotactl.core.durations import DurationError, parse_duration

    try:
        seconds = parse_duration(timeout or "0")
    except DurationError as exc:
        raise UsageError(f"--lock-timeout: {exc}") from None
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (some containers)
        user = "unknown"
    holder = f"{user}@{socket.gethostname()} pid {os.getpid()}"

    def warn(message: str) -> None:
        print(f"warning: {message}", file=runtime.stderr)

    return LockRequest(backend.lock_store(), holder, command, seconds, on_warning=warn)


def confirm(runtime: Runtime, question: str, *, auto_approve: bool) -> None:
    """Ask for ``yes`` on a terminal; refuse without one (CI) unless ``--auto-approve``."""
    if auto_approve:
        return
    if not runtime.stdin.isatty():
        raise ApprovalRequiredError(
            "no terminal to confirm on and --auto-approve not given: nothing was changed",
            hint="review the plan, then re-run with --auto-approve (or apply a saved --plan)",
        )
    print(f"\n{question}\n  Only 'yes' will be accepted.", file=runtime.stdout)
    print("  Enter a value: ", end="", file=runtime.stdout, flush=True)
    answer = runtime.stdin.readline().strip()
    if answer != "yes":
        raise NotConfirmedError("cancelled: the answer was not 'yes'; nothing was changed")


def report_calls(runtime: Runtime, backend: AwsBackend) -> None:
    """With --debug, the AWS API calls made, by operation, on stderr."""
    if runtime.debug:
        calls = backend.calls
        detail = ", ".join(f"{op} {n}" for op, n in sorted(calls.items()))
        print(f"quotactl: {sum(calls.values())} API calls ({detail})", file=runtime.stderr)
