"""``jobs`` and ``job describe|cancel|priority|why|logs``: service jobs after submission."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from quotactl.cli.options import Output, OutputOption
from quotactl.core.states import JobStatus as JOB_STATUSES
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
            autocompletion=lambda: [s.value for s in JOB_STATUSES],
        ),
    ] = None,
    since: Annotated[
        str | None, typer.Option(metavar="DURATION", help="Only jobs submitted this recently.")
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
    from quotactl.cli.support import duration
    from quotactl.core.engine import JobStatus

    runtime = _runtime(ctx, output)
    names = [s.value for s in JobStatus]
    wanted = list(dict.fromkeys(s.upper() for s in status or [])) or names
    unknown = [s for s in wanted if s not in names]
    if unknown:
        raise UsageError(
            f"--status {unknown[0]!r} is not a service job status",
            hint=f"use one of {', '.join(names)}",
        )
    window = None if since is None else duration("--since", since)
    json = output is Output.JSON
    with runtime.connect() as account:
        listing = api.stream_jobs(
            account,
            queue,
            statuses=[JobStatus(s) for s in wanted],
            share=share,
            since=window,
            wide=wide or json,
        )
        if json:
            from quotactl.render.jobs_json import jobs_json

            listed = list(listing)
            estimates = api.estimate_jobs(account, queue, history_file=history) if eta else None
            runtime.stdout.write(jobs_json(listed, estimates))
            runtime.report_calls(account)
            return
        from quotactl.render.jobs import print_jobs

        if eta:  # the estimate runs the whole queue forward: list it first
            listed = list(listing)
            estimates = api.estimate_jobs(account, queue, history_file=history)
            print_jobs(runtime.console(), listed, listing.now, wide=wide, estimates=estimates)
        else:
            print_jobs(runtime.console(), listing, lambda: listing.now, wide=wide)
        runtime.report_calls(account)


@job.command("describe")
def describe(ctx: typer.Context, ref: JobArgument, output: OutputOption = Output.TEXT) -> None:
    """Show one job, its preemptions and its SageMaker training job."""
    from quotactl import api

    runtime = _runtime(ctx, output)
    with runtime.connect() as account:
        found = api.describe_job(account, ref)
    if output is Output.JSON:
        from quotactl.render.jobs_json import describe_json

        runtime.stdout.write(describe_json(found.detail, found.preemptions, found.training_job))
        return
    from quotactl.render.jobs import print_job

    print_job(runtime.console(), found.detail, found.preemptions, found.training_job, found.now)


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
    with runtime.connect() as account:
        effect = api.set_priority(account, ref, value)
    if output is Output.JSON:
        from quotactl.render.jobs_json import priority_json

        runtime.stdout.write(priority_json(effect))
        return
    from quotactl.render.jobs import print_priority

    print_priority(runtime.console(), effect)


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
    with runtime.connect() as account:
        answer = api.why(account, ref, history_file=history)
    if output is Output.JSON:
        from quotactl.render.jobs_json import why_json

        runtime.stdout.write(why_json(answer.why, answer.estimates))
        return
    from quotactl.render.jobs import print_why

    print_why(runtime.console(), answer.why, answer.estimates, answer.now)


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
        if not found.attempts:
            name = found.detail.job.name
            runtime.notice(f"quotactl: {name} has not started: no training job, no logs")
            return
        runtime.show(found)  # the lines are read (and followed) as they are written


def register(app: typer.Typer) -> None:
    app.command("jobs")(jobs)
    app.add_typer(job)
