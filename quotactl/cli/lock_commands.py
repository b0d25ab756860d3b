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
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.stack import confirm, load, open_backend, reach
    from quotactl.core.apply.lock import force_unlock as clear
    from quotactl.core.apply.lock import held_by

    runtime = runtime_of(ctx)
    desired = load(runtime, paths).desired
    backend = open_backend(runtime, desired.region)
    reach(runtime, backend, desired.region, desired.account_id)
    store = backend.lock_store()
    info = held_by(store, desired.stack)
    console = runtime.console()
    if info is None:
        console.print(f"Stack {desired.stack!r} is not locked: nothing to do.", markup=False)
        return
    import time

    console.print(
        f"Stack {desired.stack!r} is locked by {info.describe(time.time())}.", markup=False
    )
    confirm(runtime, "Remove this lock?", auto_approve=auto_approve)
    clear(store, desired.stack)
    console.print(f"Removed the lock of stack {desired.stack!r}.", markup=False)


def register(app: typer.Typer) -> None:
    app.command("force-unlock")(force_unlock)
