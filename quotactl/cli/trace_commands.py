"""``trace generate`` and ``trace export``: job traces for ``quotactl simulate``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TextIO

import typer

from quotactl.cli.options import PathsArgument
from quotactl.errors import QuotactlError

if TYPE_CHECKING:
    from collections.abc import Iterator

    from quotactl.core.engine import QueueModel
    from quotactl.core.simulate import TraceRow

trace_app = typer.Typer(
    name="trace",
    help="Job traces for `quotactl simulate`: synthetic ones, or the live account's history.",
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
    from quotactl.cli.app import runtime_of
    from quotactl.cli.stack import load
    from quotactl.core.simulate import (
        generate_trace,
        human_duration,
        queue_models,
        workloads,
        write_trace,
    )

    runtime = runtime_of(ctx)
    queues = [q for q in queue_models(load(runtime, paths).desired) if _has_jobs(q)]
    if not queues:
        raise QuotactlError(
            "the configuration has no enabled quota share to generate jobs for",
            code="nothing-to-generate",
        )
    last = [0.0]

    def rows() -> Iterator[TraceRow]:
        for row in generate_trace(queues, jobs, seed):
            last[0] = row[0]
            yield row

    if out is None:
        written = write_trace(rows(), runtime.stdout)
    else:
        with open_for_writing(out) as stream:
            written = write_trace(rows(), stream)
    span = human_duration(last[0])
    where = str(out) if out else "stdout"
    runtime.notice(f"quotactl: wrote {written:,} jobs over {span} to {where}")
    for w in workloads(queues, seed):
        runtime.notice(
            f"  {w.queue}/{w.share}: load {w.load:.2f} of its limit,"
            f" {w.jobs_per_hour:.1f} jobs/h on average, busiest at {w.peak_hour:04.1f} h"
        )


def open_for_writing(path: Path) -> TextIO:
    try:
        return path.open("w", encoding="utf-8", newline="")
    except OSError as exc:
        raise QuotactlError(f"cannot write {path}: {exc.strerror}", code="io-error") from None


def _has_jobs(queue: QueueModel) -> bool:
    return any(s.enabled and any(n > 0 for n in s.limits.values()) for s in queue.shares)


def register(app: typer.Typer) -> None:
    app.add_typer(trace_app)
