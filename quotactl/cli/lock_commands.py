"""``force-unlock``: clear the stack lock of an apply or import that died holding it."""

from __future__ import annotations

from typing import Annotated

import typer

from quotactl.cli.options import PathsArgument


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
    console = runtime.console()
    with runtime.connect(desired.region) as account:
        account.reach(desired.account_id)
        info = api.lock_holder(account, desired.stack)
        if info is None:
            console.print(f"Stack {desired.stack!r} is not locked: nothing to do.", markup=False)
            return
        console.print(
            f"Stack {desired.stack!r} is locked by {info.describe(runtime.clock())}.",
            markup=False,
        )
        confirm(
            runtime,
            "Remove this lock?",
            auto_approve=auto_approve,
            review="that the holder above is dead (an apply still running would lose its lock)",
        )
        api.force_unlock(account, desired.stack)
    console.print(f"Removed the lock of stack {desired.stack!r}.", markup=False)


def register(app: typer.Typer) -> None:
    app.command("force-unlock")(force_unlock)
