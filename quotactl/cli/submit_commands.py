"""``submit``: SageMaker Training jobs onto a quota share, from a job spec or a ModelTrainer."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from quotactl.cli.config_commands import OutputFormat
from quotactl.errors import UsageError

if TYPE_CHECKING:
    from quotactl.aws.jobs import JobsApi
    from quotactl.cli.runtime import Runtime
    from quotactl.core.jobs.spec import JobSpec, SubmitOptions


def submit(
    ctx: typer.Context,
    jobspec: Annotated[
        Path | None,
        typer.Argument(
            metavar="JOBSPEC",
            help="A job spec: friendly YAML, or a raw CreateTrainingJob request (YAML/JSON).",
            show_default=False,
        ),
    ] = None,
    queue: Annotated[
        str | None, typer.Option(metavar="QUEUE", help="Job queue (else the spec's queue).")
    ] = None,
    share: Annotated[
        str | None, typer.Option(metavar="SHARE", help="Quota share (else the spec's share).")
    ] = None,
    priority: Annotated[
        int | None,
        typer.Option(metavar="N", min=0, max=9999, help="Scheduling priority, 0-9999."),
    ] = None,
    name: Annotated[
        str | None, typer.Option(metavar="NAME", help="Job name (else the spec's, else dated).")
    ] = None,
    count: Annotated[
        int, typer.Option(metavar="N", min=1, max=1000, help="Submit N jobs (5 per second).")
    ] = 1,
    preemption_retries: Annotated[
        int | None,
        typer.Option(metavar="N", min=0, help="Requeue after at most N preemptions, then fail."),
    ] = None,
    timeout: Annotated[
        str | None,
        typer.Option(metavar="DURATION", help="Stop an attempt after this long, e.g. 12h."),
    ] = None,
    tag: Annotated[
        list[str] | None, typer.Option(metavar="K=V", help="Tag the job (repeatable).")
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Say where it would run now; submit nothing.")
    ] = False,
    trainer: Annotated[
        str | None,
        typer.Option(
            metavar="MODULE:ATTR",
            help="Submit a SageMaker SDK ModelTrainer through TrainingQueue (quotactl[sagemaker]).",
        ),
    ] = None,
    output: Annotated[
        OutputFormat, typer.Option("-o", "--output", help="Report as text or JSON.")
    ] = OutputFormat.TEXT,
) -> None:
    """Submit SageMaker Training jobs to a quota share.

    With --dry-run, say where the job would run now and submit nothing. The spec is checked
    first (FILE:LINE:COL errors; nothing is sent when it fails). On
    --backend aws the job's IAM role and output bucket must exist.
    """
    from quotactl.cli.runtime import runtime_of
    from quotactl.core.jobs.spec import SubmitOptions

    runtime = runtime_of(ctx)
    options = SubmitOptions(
        queue=queue,
        share=share,
        priority=priority,
        name=name,
        count=count,
        preemption_retries=preemption_retries,
        timeout_seconds=_timeout(timeout),
        tags=_tags(tag or []),
    )
    if trainer is not None:
        if jobspec is not None or dry_run:
            raise UsageError("--trainer takes no JOBSPEC and no --dry-run")
        from quotactl.cli.trainer import submit_trainer

        submit_trainer(runtime, trainer, options, output is OutputFormat.JSON)
        return
    if jobspec is None:
        raise UsageError("give a JOBSPEC file (or --trainer MODULE:ATTR)")
    from quotactl.config.jobspec import load_job_spec
    from quotactl.core.jobs.spec import resolve_target

    spec = load_job_spec(jobspec)
    target_queue, target_share = resolve_target(spec, options)
    from quotactl.cli.job_support import open_jobs

    api = open_jobs(runtime)
    try:
        if dry_run:
            _dry_run(runtime, api, spec, options, target_queue, target_share, output)
        else:
            _submit(runtime, api, spec, options, target_queue, target_share, output)
    finally:
        api.close()


def _dry_run(
    runtime: Runtime,
    api: JobsApi,
    spec: JobSpec,
    options: SubmitOptions,
    queue: str,
    share: str,
    output: OutputFormat,
) -> None:
    from quotactl.cli.job_support import read_live
    from quotactl.core.jobs.placement import preview
    from quotactl.core.jobs.spec import instance_of

    (live,) = read_live(api, [queue])
    instance_type, count = instance_of(spec)
    priority = options.priority if options.priority is not None else (spec.priority or 0)
    placement = preview(
        live, share=share, instance_type=instance_type, count=count, priority=priority
    )
    if output is OutputFormat.JSON:
        from quotactl.render.jobs_json import placement_json

        runtime.stdout.write(placement_json(placement))
        return
    from quotactl.render.jobs import print_placement

    names = {j.job_id: j.name for j in live.jobs}
    print_placement(runtime.console(), placement, queue=queue, share=share, names=names)


def _submit(
    runtime: Runtime,
    api: JobsApi,
    spec: JobSpec,
    options: SubmitOptions,
    queue: str,
    share: str,
    output: OutputFormat,
) -> None:
    import time
    import uuid

    from quotactl.cli.job_support import read_live
    from quotactl.core.jobs.placement import preview
    from quotactl.core.jobs.spec import instance_of, requests

    # Whether the share could ever run the job depends on the configuration only: no jobs.
    (live,) = read_live(api, [queue], statuses=(), details=False)
    instance_type, count = instance_of(spec)
    static = preview(live, share=share, instance_type=instance_type, count=count, priority=0)
    warnings: list[str] = []
    if static.placement == "misconfigured":
        warnings.append(
            f"the job will sit RUNNABLE on {queue}/{share} and never start: {static.status_reason}"
        )
    if runtime.backend == "aws":
        _preflight(runtime, spec)
    now = max(time.time(), live.read_at)
    batch = requests(spec, options, now=now, token=lambda: uuid.uuid4().hex)
    submitted = api.submit(batch)
    for warning in warnings:
        print(f"warning: {warning}", file=runtime.stderr)
    if output is OutputFormat.JSON:
        from quotactl.render.jobs_json import submitted_json

        runtime.stdout.write(submitted_json(submitted, warnings))
        return
    for job in submitted:
        print(
            f"submitted {job.name} ({job.job_id}) to {job.queue}/{job.share}", file=runtime.stdout
        )


def _preflight(runtime: Runtime, spec: JobSpec) -> None:
    from quotactl.aws.training import preflight
    from quotactl.cli.job_support import aws_client

    output_path = (spec.payload.get("OutputDataConfig") or {}).get("S3OutputPath")
    preflight(
        aws_client(runtime, "iam"),
        aws_client(runtime, "s3"),
        role_arn=spec.payload.get("RoleArn"),
        output_s3=output_path,
    )


def _timeout(text: str | None) -> int | None:
    if text is None:
        return None
    from quotactl.core.durations import DurationError, parse_duration

    try:
        seconds = parse_duration(text)
    except DurationError as exc:
        raise UsageError(f"--timeout: {exc}") from exc
    if seconds < 1:
        raise UsageError("--timeout must be at least 1s")
    return int(seconds)


def _tags(pairs: list[str]) -> dict[str, str]:
    tags: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--tag {pair!r} is not K=V", hint="e.g. --tag project=assistant")
        tags[key] = value
    return tags


def register(app: typer.Typer) -> None:
    app.command("submit")(submit)
