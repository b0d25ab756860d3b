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
        typer.Option("--read-only", help="Only what plan, export and status need (CI plan jobs)."),
    ] = False,
) -> None:
    """Print the IAM policy document quotactl needs, derived from the calls it makes.

    Resources are scoped to the config's platform.region and account_id. With no PATH it
    reads configs/ like every other command; where there is no configs/, the policy is for
    any region and account (said on stderr).
    """
    from quotactl.aws.permissions import policy_document
    from quotactl.cli.app import runtime_of
    from quotactl.cli.stack import load

    runtime = runtime_of(ctx)
    region, account = "*", "*"
    if paths or DEFAULT_CONFIG.is_dir():
        desired = load(runtime, paths or [DEFAULT_CONFIG]).desired
        region, account = desired.region, desired.account_id or "*"
    else:
        runtime.notice(
            f"quotactl: no {DEFAULT_CONFIG}/ here: the policy is for every region and account"
        )
    document = policy_document(region=region, account=account, read_only=read_only)
    runtime.stdout.write(json.dumps(document, indent=2) + "\n")


def register(app: typer.Typer) -> None:
    app.command("iam-policy")(iam_policy)
