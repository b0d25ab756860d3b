"""``trace generate``, ``trace export`` and ``trace import``: job traces for ``simulate``."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated

import typer

from quotactl.cli.options import PathsArgument, QueuesOption, SinceOption
from quotactl.core.words import count_of

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
    from quotactl.core.durations import human_duration

    runtime = runtime_of(ctx)
    desired = load(runtime, paths).desired
    result = api.generate_trace(
        desired, jobs, out if out is not None else runtime.stdout, seed=seed
    )
    span = human_duration(result.last_submit)
    where = str(out) if out else "stdout"
    runtime.notice(f"quotactl: wrote {count_of(result.jobs, 'job')} over {span} to {where}")
    runtime.notice("  per share (times of day on the trace's clock, which starts at 00:00):")
    for w in result.workloads:
        runtime.notice(
            f"  {w.queue}/{w.share}: load {w.load:.2f} of its limit,"
            f" {w.jobs_per_hour:.1f} jobs/h on average, arrivals peak daily at"
            f" {_clock(w.peak_hour)}"
        )


def _clock(hour_of_day: float) -> str:
    """14.3 -> "14:18": an hour of the day as a time a person reads."""
    minutes = round(hour_of_day * 60) % (24 * 60)
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


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
    from quotactl.core.durations import human_duration, parse_duration
    from quotactl.errors import UsageError

    runtime = runtime_of(ctx)
    try:
        look_back = parse_duration(since) if since is not None else None
    except ValueError as exc:
        raise UsageError(f"--since {since!r}: {exc}") from None
    with runtime.connect() as account:
        found = api.export_trace(account, out, queues, since=look_back, priorities=priorities)
        runtime.report_calls(account)
    tally = found.tally
    span = human_duration((tally.last or 0.0) - (tally.first or 0.0))
    runtime.notice(
        f"quotactl: wrote {count_of(tally.rows, 'job')} from {', '.join(found.queues)}"
        f" (submissions over {span}) to {out}"
    )
    if tally.lower_bounds:
        runtime.notice(
            f"  {count_of(tally.lower_bounds, 'row')} {_are(tally.lower_bounds, 'a lower bound')}:"
            " jobs still running, with the"
            " time they have run so far"
        )
    if tally.upper_bounds:
        runtime.notice(
            f"  {count_of(tally.upper_bounds, 'row')} {_are(tally.upper_bounds, 'an upper bound')}:"
            " queued jobs, with the run time"
            " they asked for"
        )
    for reason, n in sorted(tally.left_out.items()):
        runtime.notice(f"  {count_of(n, 'job')} left out: {reason}")


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
    from quotactl.core.durations import human_duration
    from quotactl.core.simulate.public import parse_mapping
    from quotactl.errors import UsageError

    runtime = runtime_of(ctx)
    try:
        groups = parse_mapping(mapping)
    except ValueError as exc:
        raise UsageError(f"--map: {exc}") from None
    tally = api.import_trace(
        kind.value,
        source,
        groups,
        out,
        instance_type=instance_type,
        gpus_per_instance=gpus_per_instance,
    )
    runtime.notice(
        f"quotactl: wrote {count_of(tally.kept, 'job')} of {tally.read:,} from {source}"
        f" (submissions over {human_duration(tally.span)}) to {out}"
    )
    if tally.unmapped:
        named = ", ".join(f"{g} ({n:,})" for g, n in tally.unmapped.most_common(5))
        more = len(tally.unmapped) - 5
        rest = f" and {count_of(more, 'more group')}" if more > 0 else ""
        runtime.notice(
            f"  {count_of(sum(tally.unmapped.values()), 'job')} dropped: no --map for"
            f" {count_of(len(tally.unmapped), 'group')}: {named}{rest} (or --map '*=SHARE')"
        )
    for reason, n in sorted(tally.dropped.items()):
        runtime.notice(f"  {count_of(n, 'job')} dropped: {reason}")


def _are(n: int, what: str) -> str:
    """``is a lower bound`` or ``are lower bounds``."""
    return f"is {what}" if n == 1 else f"are {what.split(' ', 1)[1]}s"


def register(app: typer.Typer) -> None:
    app.add_typer(trace_app)
