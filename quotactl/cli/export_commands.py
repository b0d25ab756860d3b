"""``export`` and ``import``: live -> config files, and adopting live resources into a stack."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from quotactl.cli.options import LockTimeoutOption, PathsArgument

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.api import ObservedResource


def export(
    ctx: typer.Context,
    queue: Annotated[
        list[str] | None,
        typer.Option(
            "--queue",
            metavar="QUEUE",
            help="Export this queue (repeatable) [default: every quota queue].",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="DIR",
            help="Write platform.yaml and teams/<team>.yaml here [default: one file on stdout].",
        ),
    ] = None,
    stack: Annotated[
        str | None,
        typer.Option(
            "--stack",
            metavar="NAME",
            help="platform.name [default: the resources' quotactl:stack tag].",
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option("--force", help="Write into a non-empty --out, removing stale team files."),
    ] = False,
) -> None:
    """Write config YAML from the live account; a plan on it shows no change.

    --out refuses a non-empty directory unless --force (which also removes team files of
    teams that no longer exist).
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of

    runtime = runtime_of(ctx)
    with runtime.account() as account:
        exported = api.export_config(
            account, queue, stack=stack, region=runtime.region, out=out, force=force
        )
    runtime.show(exported)


def import_(
    ctx: typer.Context,
    paths: PathsArgument = None,
    auto_approve: Annotated[
        bool, typer.Option("--auto-approve", help="Do not ask for confirmation.")
    ] = False,
    lock_timeout: LockTimeoutOption = None,
) -> None:
    """Adopt live resources that config names but no stack owns, by tagging them.

    Shows what would be tagged with quotactl:stack and asks first; resources owned by
    another stack are refused. Run plan afterwards to see any remaining differences.
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.support import confirm, load
    from quotactl.render.adopt import ImportProgress

    runtime = runtime_of(ctx)
    desired = load(runtime, paths).desired
    progress = ImportProgress(runtime.console(), desired.stack)

    def review(found: Sequence[ObservedResource]) -> None:
        progress.review(found)
        confirm(
            runtime,
            "Import these resources?",
            auto_approve=auto_approve,
            review="the resources listed above",
        )

    with runtime.account(desired.region) as account:
        imported = api.import_stack(
            account,
            desired,
            review=review,
            on_imported=progress.imported,
            lock_timeout=lock_timeout or 0.0,
            on_lock_warning=runtime.warn,
        )
    runtime.show(imported)


def register(app: typer.Typer) -> None:
    app.command()(export)
    app.command("import")(import_)
