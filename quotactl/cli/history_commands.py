"""``history``: the live account's job attempts as a ledger file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from quotactl.cli.options import QueuesOption, SinceOption


def history(
    ctx: typer.Context,
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            metavar="FILE",
            help="Write the ledger here: CSV, or JSON Lines for a .jsonl name.",
            show_default=False,
        ),
    ],
    queues: QueuesOption = None,
    since: SinceOption = None,
    append: Annotated[
        bool,
        typer.Option(
            "--append",
            help="Merge into the ledger at --out: add new rows, replace changed ones, and read"
            " every unfinished job in it again. Running it twice adds nothing.",
        ),
    ] = False,
) -> None:
    """Write the live account's job attempts as a ledger: one row per attempt.

    Columns: job_id, attempt, name, queue, share, team, instance_type, count, priority,
    submitted_at, started_at, stopped_at, outcome (SUCCEEDED, FAILED, PREEMPTED, CANCELLED,
    RUNNING or WAITING). The file is replaced whole in one rename, so a scheduled job running
    `history --append` keeps a record longer than AWS keeps jobs.
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of

    runtime = runtime_of(ctx)
    with runtime.account() as account:
        written = api.history(account, out, queues, since=since, append=append)
    runtime.show(written)


def register(app: typer.Typer) -> None:
    app.command("history")(history)
