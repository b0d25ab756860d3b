"""``iam-policy``: the least-privilege IAM policy for quotactl's commands."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from quotactl.cli.options import PathsArgument


def iam_policy(
    ctx: typer.Context,
    paths: PathsArgument = None,
    read_only: Annotated[
        bool,
        typer.Option(
            "--read-only",
            help="Only what the commands that change nothing need: plan, export, status, "
            "jobs, job describe/why/logs, submit --dry-run.",
        ),
    ] = False,
) -> None:
    """Print the IAM policy document quotactl needs, derived from the calls it makes.

    With a config PATH, resources are scoped to its platform.region and account_id.
    """
    from quotactl.aws.permissions import policy_document
    from quotactl.cli.app import runtime_of
    from quotactl.cli.stack import load

    runtime = runtime_of(ctx)
    region, account = "*", "*"
    if paths:
        desired = load(runtime, paths).desired
        region, account = desired.region, desired.account_id or "*"
    document = policy_document(region=region, account=account, read_only=read_only)
    runtime.stdout.write(json.dumps(document, indent=2) + "\n")


def register(app: typer.Typer) -> None:
    app.command("iam-policy")(iam_policy)
