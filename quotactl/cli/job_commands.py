"""``jobs`` and ``job describe|cancel|priority|why|logs``: service jobs after submission."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from quotactl.api import JobStatus
from quotactl.cli.options import Duration, Output, OutputOption
from quotactl.errors import UsageError

if TYPE_CHECKING:
    from quotactl.cli.runtime import Runtime

job = typer.Typer(
    name="job",
    help="One service job: describe, cancel, priority, why, logs.",
    no_args_is_help=True,
)
JobArgument = Annotated[
    str, typer.Argument(metavar="ID", help="The job's name, ID or ARN.", show_default=False)
]
History = Annotated[
    Path | None,
    typer.Option(
        "--history",
        metavar="FILE",
        help="A ledger (quotactl history --out) to draw run times from for start estimates.",
    ),
]
DEFAULT_REASON = "Cancelled with quotactl job cancel"


def _runtime(ctx: typer.Context, output: Output | None = None) -> Runtime:
    from quotactl.cli.runtime import runtime_of

    return runtime_of(ctx, output)


def jobs(
    ctx: typer.Context,
    queue: Annotated[
        list[str] | None, typer.Option(metavar="QUEUE", help="Only this queue (repeatable).")
    ] = None,
    share: Annotated[
        str | None, typer.Option(metavar="SHARE", help="Only this quota share.")
    ] = None,
    status: Annotated[
        list[str] | None,
        typer.Option(
            metavar="STATUS",
            help="Only jobs in this status (repeatable).",
            autocompletion=lambda: [s.value for s in JobStatus],
        ),
    ] = None,
    since: Annotated[
        float | None, Duration("--since", help="Only jobs submitted this recently.")
    ] = None,
    wide: Annotated[
        bool,
        typer.Option(
            "--wide",
            help="Add priority and preemptions (one paced DescribeServiceJob per job).",
        ),
    ] = False,
    eta: Annotated[
        bool, typer.Option("--eta", help="Add when each waiting job is expected to start.")
    ] = False,
    history: History = None,
    output: OutputOption = Output.TEXT,
) -> None:
    """List service jobs of every status, newest first.

    Unlike ListServiceJobs without a status (RUNNING only), every status is listed unless
    --status says otherwise. The table shows what ListServiceJobs returns, as the pages
    arrive; --wide and -o json also describe each job. With --eta, each queue is run forward
    through the scheduler once for all its waiting jobs (the table then waits for the whole
    listing).
    """
    from quotactl import api

    runtime = _runtime(ctx, output)
    names = [s.value for s in JobStatus]
    wanted = list(dict.fromkeys(s.upper() for s in status or [])) or names
    unknown = [s for s in wanted if s not in names]
    if unknown:
        raise UsageError(
            f"--status {unknown[0]!r} is not a service job status",
            hint=f"use one of {', '.join(names)}",
        )
    with runtime.account() as account:
        rows = api.job_rows(
            account,
            queue,
            statuses=[JobStatus(s) for s in wanted],
            share=share,
            since=since,
            wide=wide or output is Output.JSON,  # the document has every job's figures
            eta=eta,
            history_file=history,
        )
        runtime.show(rows)  # the table's rows are drawn as the listing reads them


@job.command("describe")
def describe(ctx: typer.Context, ref: JobArgument, output: OutputOption = Output.TEXT) -> None:
    """Show one job, its preemptions and its SageMaker training job."""
    from quotactl import api

    runtime = _runtime(ctx, output)
    with runtime.account() as account:
        found = api.describe_job(account, ref)
    runtime.show(found)


@job.command("cancel")
def cancel(
    ctx: typer.Context,
    refs: Annotated[
        list[str],
        typer.Argument(metavar="ID", help="Jobs by name, ID or ARN.", show_default=False),
    ],
    reason: Annotated[
        str, typer.Option(metavar="REASON", help="Why (shown as the job's statusReason).")
    ] = DEFAULT_REASON,
    output: OutputOption = Output.TEXT,
) -> None:
    """Terminate jobs; their SageMaker training jobs stop too.

    Sends TerminateServiceJobs with up to 50 jobs per call.
    """
    from quotactl import api

    runtime = _runtime(ctx, output)
    with runtime.account() as account:
        result = api.cancel_jobs(account, refs, reason)
    runtime.show(result)


@job.command("priority")
def priority(
    ctx: typer.Context,
    ref: JobArgument,
    value: Annotated[
        int, typer.Argument(metavar="N", min=0, max=9999, help="The new priority, 0-9999.")
    ],
    output: OutputOption = Output.TEXT,
) -> None:
    """Change a job's priority; says which preemptions follow."""
    from quotactl import api

    runtime = _runtime(ctx, output)
    with runtime.account() as account:
        effect = api.set_priority(account, ref, value)
    runtime.show(effect)


@job.command("why")
def why(
    ctx: typer.Context,
    ref: JobArgument,
    history: History = None,
    output: OutputOption = Output.TEXT,
) -> None:
    """Explain why a job waits, when it is expected to start, and what preempted it."""
    from quotactl import api

    runtime = _runtime(ctx, output)
    with runtime.account() as account:
        answer = api.why(account, ref, history_file=history)
    runtime.show(answer)


@job.command("logs")
def logs(
    ctx: typer.Context,
    ref: JobArgument,
    follow: Annotated[
        bool, typer.Option("--follow", "-f", help="Keep printing until the job ends.")
    ] = False,
) -> None:
    """Print the job's training logs (CloudWatch, aws backend)."""
    from quotactl import api

    runtime = _runtime(ctx)
    with runtime.account() as account:
        found = api.job_logs(account, ref, follow=follow, sleep=runtime.sleep)
        runtime.show(found)  # the lines are read (and followed) as they are written


def register(app: typer.Typer) -> None:
    app.command("jobs")(jobs)
    app.add_typer(job)
