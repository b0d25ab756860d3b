"""``iam-policy``: the least-privilege IAM policy for quotactl's commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from quotactl.cli.options import PathsArgument

DEFAULT_CONFIG = Path("configs")


def iam_policy(
    ctx: typer.Context,
    paths: PathsArgument = None,
    read_only: Annotated[
        bool,
        typer.Option(
            "--read-only",
            help="Only what the commands that change nothing need: plan, export, status, "
            "trace export, jobs, job describe/why/logs, submit --dry-run.",
        ),
    ] = False,
    command: Annotated[
        list[str] | None,
        typer.Option(
            "--command",
            metavar="COMMAND",
            help="Only what this command needs, e.g. --command apply (repeatable).",
        ),
    ] = None,
) -> None:
    """Print the IAM policy document quotactl needs, derived from the calls it makes.

    Each call is granted only for the commands that make it; --command narrows the policy
    to some commands, --read-only to the commands that change nothing.

    Resources are scoped to the config's platform.region and account_id. With no PATH it
    reads configs/ like every other command; where there is no configs/, the policy is for
    any region and account (said on stderr).
    """
    from quotactl.aws.permissions import OFFLINE_COMMANDS, commands, policy_document
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.stack import load
    from quotactl.errors import UsageError

    runtime = runtime_of(ctx)
    only = None
    if command:
        unknown = [c for c in command if c not in commands()]
        if unknown:
            offline = [c for c in unknown if c in OFFLINE_COMMANDS]
            why = "makes no AWS call" if offline == unknown else "is not a command that calls AWS"
            raise UsageError(
                f"--command {unknown[0]!r} {why}",
                hint="choose from: " + ", ".join(sorted(commands())),
            )
        only = frozenset(command)
    region, account = "*", "*"
    if paths or DEFAULT_CONFIG.is_dir():
        desired = load(runtime, paths or [DEFAULT_CONFIG]).desired
        region, account = desired.region, desired.account_id or "*"
    else:
        runtime.notice(
            f"quotactl: no {DEFAULT_CONFIG}/ here: the policy is for every region and account"
        )
    document = policy_document(region=region, account=account, read_only=read_only, only=only)
    runtime.stdout.write(json.dumps(document, indent=2) + "\n")


def register(app: typer.Typer) -> None:
    app.command("iam-policy")(iam_policy)
