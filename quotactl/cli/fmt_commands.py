"""``fmt``: rewrite config files in the canonical layout, or check that they are."""

from __future__ import annotations

from typing import Annotated

import typer

from quotactl.cli.exitcodes import ExitCode
from quotactl.cli.options import PathsArgument


def fmt(
    ctx: typer.Context,
    paths: PathsArgument = None,
    check: Annotated[
        bool,
        typer.Option(
            "--check", help="Write nothing; list the files that would change and exit 3 if any."
        ),
    ] = False,
    diff: Annotated[
        bool, typer.Option("--diff", help="Print a unified diff of each change.")
    ] = False,
) -> None:
    """Rewrite config files in the canonical layout, keeping every comment and anchor.

    Keys in the schema's order, two-space indentation, capacity, tags and reasons in flow
    style when they fit, quotes only where YAML needs them (account_id always). Prints each
    file it changes; formatting a formatted file changes nothing.
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of

    runtime = runtime_of(ctx)
    result = api.fmt(paths, check=check, diff=diff)
    runtime.show(result)
    if check and result.changed:
        raise typer.Exit(ExitCode.FILES_WOULD_CHANGE)


def register(app: typer.Typer) -> None:
    app.command("fmt")(fmt)
