"""``jobs`` and ``job describe|cancel|priority|why|logs``: service jobs after submission."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from quotactl.cli.config_commands import OutputFormat
from quotactl.errors import QuotactlError, UsageError

if TYPE_CHECKING:
    from quotactl.aws.jobs import JobsApi
    from quotactl.cli.runtime import Runtime
    from quotactl.core.jobs.records import JobDetail

job = typer.Typer(
    name="job",
    help="One service job: describe, cancel, priority, why, logs.",
    no_args_is_help=True,
)
JobArgument = Annotated[
    str, typer.Argument(metavar="ID", help="The job's name, ID or ARN.", show_default=False)
]
Output = Annotated[OutputFormat, typer.Option("-o", "--output", help="Report as text or JSON.")]
DEFAULT_REASON = "Cancelled with quotactl job cancel"


def _runtime(ctx: typer.Context) -> Runtime:
    from quotactl.cli.app import runtime_of

    return runtime_of(ctx)


def _api(runtime: Runtime) -> JobsApi:
    from quotactl.cli.job_support import open_jobs

    return open_jobs(runtime)


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
        typer.Option(metavar="STATUS", help="Only jobs in this status (repeatable)."),
    ] = None,
    since: Annotated[
        str | None, typer.Option(metavar="DURATION", help="Only jobs submitted this recently.")
    ] = None,
    output: Output = OutputFormat.TEXT,
) -> None:
    """List service jobs of every status, newest first.

    Unlike ListServiceJobs without a status (RUNNING only), every status is listed unless
    --status says otherwise.
    """
    from quotactl.cli.job_support import read_live
    from quotactl.core.durations import DurationError, parse_duration
    from quotactl.core.engine import JobStatus

    runtime = _runtime(ctx)
    names = [s.value for s in JobStatus]
    wanted = list(dict.fromkeys(s.upper() for s in status or [])) or names
    unknown = [s for s in wanted if s not in names]
    if unknown:
        raise UsageError(
            f"--status {unknown[0]!r} is not a service job status",
            hint=f"use one of {', '.join(names)}",
        )
    window = None
    if since is not None:
        try:
            window = parse_duration(since)
        except DurationError as exc:
            raise UsageError(f"--since: {exc}") from exc
    api = _api(runtime)
    try:
        queues = read_live(api, queue, [JobStatus(s) for s in wanted])
    finally:
        api.close()
    now = max((q.read_at for q in queues), default=0.0)
    found = [
        j
        for q in queues
        for j in q.jobs
        if (share is None or j.share == share)
        and (window is None or (j.created_at or 0.0) >= now - window)
    ]
    found.sort(key=lambda j: (-(j.created_at or 0.0), j.job_id))
    if output is OutputFormat.JSON:
        from quotactl.render.jobs_json import jobs_json

        runtime.stdout.write(jobs_json(found))
        return
    from quotactl.render.jobs import print_jobs

    print_jobs(runtime.console(), found, now)


@job.command("describe")
def describe(ctx: typer.Context, ref: JobArgument, output: Output = OutputFormat.TEXT) -> None:
    """Show one job, its preemptions and its SageMaker training job."""
    from quotactl.cli.job_support import read_live
    from quotactl.core.jobs.why import preemptions_of
    from quotactl.core.states import LISTED

    runtime = _runtime(ctx)
    api = _api(runtime)
    try:
        detail = api.resolve(ref)
        # The queue's jobs name who preempted it; the read also gives the account's clock.
        (live,) = read_live(api, [detail.job.queue], LISTED, details=False)
        history = preemptions_of(detail.job, live.jobs)
        now = max(detail.job.created_at or 0.0, live.read_at)
        training = _training_job(runtime, detail)
    finally:
        api.close()
    if output is OutputFormat.JSON:
        from quotactl.render.jobs_json import describe_json

        runtime.stdout.write(describe_json(detail, history, training))
        return
    from quotactl.render.jobs import print_job

    print_job(runtime.console(), detail, history, training, now)


def _training_job(runtime: Runtime, detail: JobDetail) -> dict[str, object] | None:
    """SageMaker's status of the latest attempt: DescribeTrainingJob on the aws backend; on
    the emulator (no SageMaker) AWS's documented mapping from the service job's status."""
    from quotactl.core.jobs.records import sagemaker_status

    name = detail.latest_training_job
    if name is None:
        return None
    if runtime.backend == "aws":
        from quotactl.aws.training import describe_training_job
        from quotactl.cli.job_support import aws_client

        found = describe_training_job(aws_client(runtime, "sagemaker"), name)
        if found is None:
            return {"name": name, "status": None, "secondary_status": None}
        return {"name": name, "status": found.status, "secondary_status": found.secondary_status}
    status, secondary = sagemaker_status(detail.job.status.value)
    return {"name": name, "status": status, "secondary_status": secondary}


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
    output: Output = OutputFormat.TEXT,
) -> None:
    """Terminate jobs; their SageMaker training jobs stop too.

    Sends TerminateServiceJobs with up to 50 jobs per call.
    """
    runtime = _runtime(ctx)
    api = _api(runtime)
    try:
        details = [api.resolve(r) for r in refs]
        ids = list(dict.fromkeys(d.job.job_id for d in details))
        errors = api.terminate(ids, reason)
    finally:
        api.close()
    failed = {e["job"] for e in errors}
    done = [i for i in ids if i not in failed]
    if output is OutputFormat.JSON:
        from quotactl.render.jobs_json import dump

        runtime.stdout.write(dump({"cancelled": done, "errors": errors}))
    else:
        names = {d.job.job_id: d.job.name for d in details}
        for job_id in done:
            print(f"cancelled {names[job_id]} ({job_id})", file=runtime.stdout)
    for error in errors:
        print(f"error: {error['job']}: {error['code']}: {error['message']}", file=runtime.stderr)
    if errors:
        raise QuotactlError(
            f"{len(errors)} of {len(ids)} jobs could not be cancelled", code="cancel-failed"
        )


@job.command("priority")
def priority(
    ctx: typer.Context,
    ref: JobArgument,
    value: Annotated[
        int, typer.Argument(metavar="N", min=0, max=9999, help="The new priority, 0-9999.")
    ],
    output: Output = OutputFormat.TEXT,
) -> None:
    """Change a job's priority; says which preemptions follow."""
    from quotactl.cli.job_support import read_live
    from quotactl.core.jobs.reprioritise import consequences

    runtime = _runtime(ctx)
    api = _api(runtime)
    try:
        detail = api.resolve(ref)
        if detail.job.is_final:
            raise QuotactlError(
                f"job {detail.job.name} is {detail.job.status.value}: its priority is final",
                code="job-finished",
            )
        (live,) = read_live(api, [detail.job.queue])
        effect = consequences(live, live.job(detail.job.job_id) or detail.job, value)
        api.update_priority(detail.job.job_id, value)
    finally:
        api.close()
    if output is OutputFormat.JSON:
        from quotactl.render.jobs_json import priority_json

        runtime.stdout.write(priority_json(effect))
        return
    from quotactl.render.jobs import print_priority

    print_priority(runtime.console(), effect)


@job.command("why")
def why(ctx: typer.Context, ref: JobArgument, output: Output = OutputFormat.TEXT) -> None:
    """Explain why a job waits and what preempted it."""
    from quotactl.cli.job_support import read_live
    from quotactl.core.jobs.why import explain
    from quotactl.core.states import LISTED

    runtime = _runtime(ctx)
    api = _api(runtime)
    try:
        detail = api.resolve(ref)
        (live,) = read_live(api, [detail.job.queue], LISTED)
    finally:
        api.close()
    answer = explain(live, live.job(detail.job.job_id) or detail.job)
    if output is OutputFormat.JSON:
        from quotactl.render.jobs_json import why_json

        runtime.stdout.write(why_json(answer))
        return
    from quotactl.render.jobs import print_why

    print_why(runtime.console(), answer)


@job.command("logs")
def logs(
    ctx: typer.Context,
    ref: JobArgument,
    follow: Annotated[
        bool, typer.Option("--follow", "-f", help="Keep printing until the job ends.")
    ] = False,
) -> None:
    """Print the job's training logs (CloudWatch, aws backend)."""
    runtime = _runtime(ctx)
    api = _api(runtime)
    try:
        detail = api.resolve(ref)
        if runtime.backend != "aws":
            raise QuotactlError(
                "the local emulator runs no containers, so its jobs write no logs",
                code="no-logs",
                hint="on --backend aws, job logs reads the training job's streams in "
                "/aws/sagemaker/TrainingJobs",
            )
        from quotactl.cli.job_logs import print_logs

        print_logs(runtime, api, detail, follow=follow)
    finally:
        api.close()


def register(app: typer.Typer) -> None:
    app.command("jobs")(jobs)
    app.add_typer(job)
