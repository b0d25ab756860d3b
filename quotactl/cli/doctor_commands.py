"""``doctor``: is this machine ready to run quotactl (credentials, region, Batch, IAM, state)?"""

from __future__ import annotations

from typing import Annotated

import typer

from quotactl.cli.options import Output
from quotactl.errors import DoctorFailedError


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
    from quotactl.render.doctor import doctor_json, doctor_text

    runtime = runtime_of(ctx, output)
    checkup = api.doctor(
        runtime.backend,
        state=runtime.state_path,
        profile=runtime.profile,
        region=runtime.region,
        endpoint_url=runtime.endpoint_url,
    )
    if output is Output.JSON:
        runtime.write_json(doctor_json(checkup))
    else:
        runtime.stdout.write(doctor_text(checkup))
    if checkup.failed:
        names = ", ".join(c.name for c in checkup.failed)
        raise DoctorFailedError(
            f"{len(checkup.failed)} check{'' if len(checkup.failed) == 1 else 's'} failed: {names}",
            hint="each failed check above says what it found",
        )


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor)
