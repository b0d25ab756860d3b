"""``govern``: enforce the configuration's schedules, budgets and aging on the account
(docs/govern.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from quotactl.cli.exitcodes import ExitCode
from quotactl.cli.options import Duration, Output, OutputOption, PathsArgument


def govern(
    ctx: typer.Context,
    paths: PathsArgument = None,
    once: Annotated[bool, typer.Option("--once", help="Run one cycle (the default).")] = False,
    every: Annotated[
        float | None,
        Duration("--every", help="Run a cycle every DURATION (5m) until SIGINT/SIGTERM."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the actions; take no lock, change nothing.")
    ] = False,
    allow_disruption: Annotated[
        bool,
        typer.Option(
            "--allow-disruption", help="Apply a lowering at once even if running jobs lose it."
        ),
    ] = False,
    detailed_exitcode: Annotated[
        bool,
        typer.Option(
            "--detailed-exitcode", help="Exit 2 when actions were applied, 4 when some blocked."
        ),
    ] = False,
    history: Annotated[
        list[Path] | None,
        typer.Option("--history", metavar="FILE", help="History ledgers budgets count too."),
    ] = None,
    log: Annotated[
        Path | None,
        typer.Option("--log", metavar="FILE", help="Append each action (JSON Lines) to FILE."),
    ] = None,
    lock_timeout: Annotated[
        float | None,
        Duration(
            "--lock-timeout",
            help="Wait this long for the stack lock [default: skip the cycle at once].",
        ),
    ] = None,
    output: OutputOption = Output.TEXT,
) -> None:
    """Apply the schedule windows, budgets and aging the configuration declares.

    Each cycle takes the stack lock (skipped when an apply holds it), reads the account,
    applies the actions due now (shown like a plan: what, why, which policy, until when) and
    logs each. Exit code 0 (1 if an action failed); with --detailed-exitcode, 2 when actions
    were applied and 4 when some were held back because they would disrupt running jobs.
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.support import load
    from quotactl.errors import UsageError

    runtime = runtime_of(ctx, output)
    if once and every is not None:
        raise UsageError("give --once or --every DURATION, not both")
    desired = load(runtime, paths).desired
    interrupts = runtime.interrupts
    interrupts.graceful = every is not None
    with runtime.account(desired.region) as account:
        run = api.govern(
            account,
            desired,
            every=every,
            stop=lambda: interrupts.stopping,
            sleep=runtime.sleep,
            dry_run=dry_run,
            allow_disruption=allow_disruption,
            log=log,
            history=history or (),
            lock_timeout=lock_timeout,
        )
        runtime.show(run)
    if detailed_exitcode and (run.blocked or run.applied):
        raise typer.Exit(ExitCode.SOME_BLOCKED if run.blocked else ExitCode.CHANGES_PRESENT)


def register(app: typer.Typer) -> None:
    app.command("govern")(govern)
