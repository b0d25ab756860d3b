"""``submit``: SageMaker Training jobs onto a quota share, from a job spec or a ModelTrainer."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from quotactl.cli.options import Duration, Output
from quotactl.errors import SubmitInterrupted, UsageError


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
    start_index: Annotated[
        int,
        typer.Option(
            metavar="N",
            min=1,
            help="Number the --count jobs' names from N (to continue a run that stopped).",
        ),
    ] = 1,
    preemption_retries: Annotated[
        int | None,
        typer.Option(metavar="N", min=0, help="Requeue after at most N preemptions, then fail."),
    ] = None,
    timeout: Annotated[
        float | None, Duration("--timeout", help="Stop an attempt after this long, e.g. 12h.")
    ] = None,
    tag: Annotated[
        list[str] | None, typer.Option(metavar="K=V", help="Tag the job (repeatable).")
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Say where it would run now; submit nothing.")
    ] = False,
    history: Annotated[
        Path | None,
        typer.Option(
            "--history",
            metavar="FILE",
            help="With --dry-run: a ledger (quotactl history --out) to draw run times from.",
        ),
    ] = None,
    trainer: Annotated[
        str | None,
        typer.Option(
            metavar="MODULE:ATTR",
            help="Submit a SageMaker SDK ModelTrainer through TrainingQueue (quotactl[sagemaker]).",
        ),
    ] = None,
    output: Annotated[
        Output, typer.Option("-o", "--output", help="Report as text or JSON.")
    ] = Output.TEXT,
) -> None:
    """Submit SageMaker Training jobs to a quota share.

    With --dry-run, say where the job would run now and when it would start, and submit
    nothing. The spec is checked
    first (FILE:LINE:COL errors; nothing is sent when it fails). On
    --backend aws the job's IAM role and output bucket must exist.
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of

    runtime = runtime_of(ctx, output)
    if timeout is not None and timeout < 1:
        raise UsageError("--timeout must be at least 1s")
    options = api.SubmitOptions(
        queue=queue,
        share=share,
        priority=priority,
        name=name,
        count=count,
        start_index=start_index,
        preemption_retries=preemption_retries,
        timeout_seconds=None if timeout is None else int(timeout),
        tags=_tags(tag or []),
    )
    if trainer is not None:
        if jobspec is not None or dry_run:
            raise UsageError("--trainer takes no JOBSPEC and no --dry-run")
        request = api.trainer_request(trainer, options)
        with runtime.account() as account:
            runtime.show(api.submit_trainer(account, request))
        return
    if jobspec is None:
        raise UsageError("give a JOBSPEC file (or --trainer MODULE:ATTR)")
    if history is not None and not dry_run:
        raise UsageError("--history is for --dry-run: it says when the job would start")
    spec = api.job_request(jobspec, options)
    with runtime.account() as account:
        if dry_run:
            runtime.show(api.preview(account, spec, clock=runtime.clock, history_file=history))
            return
        try:
            result = api.submit(account, spec, clock=runtime.clock)
        except SubmitInterrupted as stopped:  # the jobs that went through, then the error
            result = api.SubmitResult.cut_short(stopped)
    runtime.interrupts.finish()  # nothing is left to stop: let it be said in full
    runtime.show(result)


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
