"""``doctor``: is this machine ready to run quotactl (credentials, region, Batch, IAM, state)?"""

from __future__ import annotations

from typing import Annotated

import typer

from quotactl.cli.options import Output


def doctor(
    ctx: typer.Context,
    output: Annotated[
        Output, typer.Option("-o", "--output", help="Report as text or JSON.")
    ] = Output.TEXT,
) -> None:
    """Check this machine: versions, credentials, region, endpoint, Batch, IAM, state.

    On --backend aws: where the credentials come from (never printed; the access key is
    masked), the region, the Batch endpoint and whether it answers, and whether IAM's policy
    simulator allows every call iam-policy grants. On the local backend: the emulator's state
    file (exists, readable, schema version). Each check passes, warns or fails; exit code 1
    when one fails.
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of

    runtime = runtime_of(ctx, output)
    checkup = api.doctor(
        runtime.backend,
        state=runtime.state_path,
        profile=runtime.profile,
        region=runtime.region,
        endpoint_url=runtime.endpoint_url,
    )
    runtime.show(checkup)


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor)
