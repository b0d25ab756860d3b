"""``force-unlock``: clear the stack lock of an apply or import that died holding it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from quotactl.cli.options import PathsArgument

if TYPE_CHECKING:
    from quotactl.api import LockHolding


def force_unlock(
    ctx: typer.Context,
    paths: PathsArgument = None,
    auto_approve: Annotated[
        bool,
        typer.Option("--auto-approve", "--yes", "-y", help="Do not ask for confirmation."),
    ] = False,
) -> None:
    """Remove the stack's apply lock, left behind by an apply or import that died.

    Shows who holds it and asks first. Only for a holder that is gone: clearing the lock of a
    running apply lets a second one interleave with it.
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.support import confirm, load

    runtime = runtime_of(ctx)
    desired = load(runtime, paths).desired

    def review(holding: LockHolding) -> None:
        runtime.show(holding)
        confirm(
            runtime,
            "Remove this lock?",
            auto_approve=auto_approve,
            review="that the holder above is dead (an apply still running would lose its lock)",
        )

    with runtime.connect(desired.region) as account:
        result = api.unlock(account, desired, review=review, clock=runtime.clock)
    runtime.show(result)


def register(app: typer.Typer) -> None:
    app.command("force-unlock")(force_unlock)
