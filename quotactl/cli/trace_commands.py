"""``trace generate``, ``trace export`` and ``trace import``: job traces for ``simulate``."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated

import typer

from quotactl.cli.options import PathsArgument, QueuesOption, SinceOption

trace_app = typer.Typer(
    name="trace",
    help="Job traces for `quotactl simulate`: synthetic ones, the live account's history, or"
    " public cluster traces.",
    no_args_is_help=True,
)


@trace_app.command("generate")
def generate(
    ctx: typer.Context,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs", min=1, metavar="N", help="How many jobs to write.", show_default=False
        ),
    ],
    paths: PathsArgument = None,
    seed: Annotated[int, typer.Option("--seed", metavar="S", help="Same seed, same trace.")] = 1,
    out: Annotated[
        Path | None,
        typer.Option("--out", metavar="FILE", help="Write here instead of stdout."),
    ] = None,
) -> None:
    """Write a synthetic trace for the config's enabled shares (CSV, in submission order).

    Each share gets its own load (0.2-1.2 of its limit), arrivals that follow a working week,
    job sizes that fit it, log-normal durations and a few priorities; the model is documented
    in quotactl/core/simulate/generate.py. The trace is streamed, so a million jobs is fine.
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.support import load

    runtime = runtime_of(ctx)
    desired = load(runtime, paths).desired
    result = api.generate_trace(
        desired, jobs, out if out is not None else runtime.stdout, seed=seed
    )
    runtime.show(result)


@trace_app.command("export")
def export(
    ctx: typer.Context,
    out: Annotated[
        Path,
        typer.Option("--out", metavar="FILE", help="Write the trace here.", show_default=False),
    ],
    queues: QueuesOption = None,
    since: SinceOption = None,
    priorities: Annotated[
        bool,
        typer.Option(
            "--priorities",
            help="Read every job's priority (one DescribeServiceJob call per job).",
        ),
    ] = False,
) -> None:
    """Write the live account's job history as a trace that `quotactl simulate` replays.

    Every job of every status, in submission order; a job's duration is the run time of its
    last attempt. Jobs still running get the time they have run so far (a lower bound), queued
    ones the run time they asked for (an upper bound); the closing note counts both.
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of

    runtime = runtime_of(ctx)
    with runtime.account() as account:
        found = api.export_trace(account, out, queues, since=since, priorities=priorities)
    runtime.show(found)


class ImportFormat(enum.StrEnum):
    SWF = "swf"
    PHILLY = "philly"
    HELIOS = "helios"
    ALIBABA_PAI = "alibaba-pai"
    ALIBABA_OPENB = "alibaba-openb"


@trace_app.command("import")
def import_(
    ctx: typer.Context,
    source: Annotated[
        Path,
        typer.Argument(
            metavar="FILE",
            help="The public trace (for alibaba-pai: pai_job_table.csv, or its directory).",
            show_default=False,
        ),
    ],
    kind: Annotated[
        ImportFormat,
        typer.Option(
            "--format",
            metavar="swf|philly|helios|alibaba-pai|alibaba-openb",
            help="The trace's format.",
            show_default=False,
        ),
    ],
    mapping: Annotated[
        list[str],
        typer.Option(
            "--map",
            metavar="GROUP=SHARE",
            help="Jobs of this group (virtual cluster, user or QoS, by format) go to this"
            " share; '*=SHARE' takes every other group (repeatable).",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path,
        typer.Option("--out", metavar="FILE", help="Write the trace here.", show_default=False),
    ],
    instance_type: Annotated[
        str,
        typer.Option("--instance-type", metavar="T", help="The instance type jobs ask for."),
    ] = "ml.p5.48xlarge",
    gpus_per_instance: Annotated[
        int,
        typer.Option(
            "--gpus-per-instance",
            min=1,
            metavar="N",
            help="GPUs of one instance: a job asks for ceil(gpus / N) instances.",
        ),
    ] = 8,
) -> None:
    """Turn a public cluster trace into a trace that `quotactl simulate` and `tune` replay.

    The Standard Workload Format, Microsoft Philly, SenseTime Helios, Alibaba PAI (2020) and
    Alibaba openb (2023): each job's group is mapped to a share, its GPUs to instances, its
    duration is from its recorded start to its end. Jobs of unmapped groups, jobs with no GPU
    and jobs with no recorded run are dropped, and the closing note counts them.
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of

    runtime = runtime_of(ctx)
    imported = api.import_trace(
        kind.value,
        source,
        api.trace_mapping(mapping),
        out,
        instance_type=instance_type,
        gpus_per_instance=gpus_per_instance,
    )
    runtime.show(imported)


def register(app: typer.Typer) -> None:
    app.add_typer(trace_app)
