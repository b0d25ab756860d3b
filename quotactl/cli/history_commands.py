"""``history``: the live account's job attempts as a ledger file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from quotactl.cli.options import QueuesOption, SinceOption
from quotactl.core.words import count_of


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
    from quotactl.core.durations import parse_duration
    from quotactl.errors import UsageError

    runtime = runtime_of(ctx)
    try:
        look_back = parse_duration(since) if since is not None else None
    except ValueError as exc:
        raise UsageError(f"--since {since!r}: {exc}") from None
    with runtime.connect() as account:
        written = api.history(account, out, queues, since=look_back, append=append)
        calls = account.calls
        runtime.report_calls(account)
    detail = ", ".join(f"{op} {n}" for op, n in sorted(calls.items()))
    runtime.notice(
        f"quotactl: wrote {count_of(written.rows, 'attempt')} to {out}"
        f" ({written.added} new, {written.replaced} changed) from"
        f" {count_of(written.jobs, 'job')} read in {', '.join(written.queues)};"
        f" {count_of(sum(calls.values()), 'API call')} ({detail})"
    )
    if written.missing_attempts:
        runtime.notice(
            f"  warning: {count_of(written.missing_attempts, 'earlier attempt')} fell out of"
            " AWS's recent-attempts window and are not in the ledger"
        )
    if written.gone:
        runtime.notice(
            f"  {count_of(written.gone, 'unfinished job')} in the ledger no longer known to AWS:"
            " kept as they were"
        )


def register(app: typer.Typer) -> None:
    app.command("history")(history)
