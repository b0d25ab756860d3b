"""``iam-policy``: the least-privilege IAM policy for quotactl's commands."""

from __future__ import annotations

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
            "trace export, jobs, job describe/why/logs, submit --dry-run.",
        ),
    ] = False,
    command: Annotated[
        list[str] | None,
        typer.Option(
            "--command",
            metavar="COMMAND",
            help="Only what this command needs, e.g. --command apply, --command govern "
            "(repeatable).",
        ),
    ] = None,
    team: Annotated[
        str | None,
        typer.Option(
            "--team",
            metavar="TEAM",
            help="The policy for TEAM's training role instead: submit only to its own shares, "
            "at priorities up to its max_priority, and change no share.",
        ),
    ] = None,
) -> None:
    """Print the IAM policy document quotactl needs, derived from the calls it makes.

    Each call is granted only for the commands that make it; --command narrows the policy
    to some commands, --read-only to the commands that change nothing. --team prints the
    policy for a team's training role (its shares and max_priority from the config).

    Resources are scoped to the config's platform.region and account_id. With no PATH it
    reads configs/ like every other command; where there is no configs/, the policy is for
    any region and account (said on stderr).
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.support import load

    runtime = runtime_of(ctx)
    only = api.policy_commands(command)
    region, account, desired = "*", "*", None
    if paths or api.DEFAULT_CONFIG.is_dir():
        desired = load(runtime, paths or [api.DEFAULT_CONFIG]).desired
        region, account = desired.region, desired.account_id or "*"
    elif team is None:
        runtime.notice(
            f"quotactl: no {api.DEFAULT_CONFIG}/ here: the policy is for every region and account"
        )
    runtime.show(
        api.iam_policy(
            region=region,
            account=account,
            read_only=read_only,
            commands=only,
            team=team,
            desired=desired,
        )
    )


def register(app: typer.Typer) -> None:
    app.command("iam-policy")(iam_policy)
