"""``simulate``: replay a job trace against a config offline, or against two to compare them.

The work (reading the trace, the worker processes, the replays) is in ``quotactl.core.simulate``;
this module only parses options and picks the view.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from quotactl.cli.options import PathsArgument
from quotactl.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Callable

    from quotactl.cli.runtime import Runtime

T = TypeVar("T")


class OutputFormat(enum.StrEnum):
    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"


class Baseline(enum.StrEnum):
    RESERVE = "reserve"


def simulate(
    ctx: typer.Context,
    trace: Annotated[
        Path,
        typer.Option(
            "--trace",
            metavar="FILE",
            help="The jobs to replay: CSV with a header, or JSON Lines.",
            show_default=False,
        ),
    ],
    paths: PathsArgument = None,
    baseline: Annotated[
        Baseline | None,
        typer.Option(
            "--baseline",
            metavar="reserve",
            help="Compare against the same config with every share RESERVE (what sharing buys).",
        ),
    ] = None,
    other: Annotated[
        Path | None,
        typer.Option(
            "--compare",
            metavar="OTHER_PATH",
            help="Compare against this config (e.g. the base branch's): before → after per share.",
            show_default=False,
        ),
    ] = None,
    output: Annotated[
        OutputFormat,
        typer.Option(
            "-o", "--output", metavar="text|json|markdown", help="markdown is a PR comment."
        ),
    ] = OutputFormat.TEXT,
) -> None:
    """Replay a job trace against the config offline: waits, borrowing, lending, preemption.

    The trace runs on a virtual clock through the same scheduling engine as the emulator, with
    no emulator state and no API call. With --compare OTHER_PATH (or --baseline reserve) the
    same trace also runs against the other config, and the report shows, per share, the
    before → after of waits, preemptions, work lost, borrowing and lending, and who gains and
    who loses.
    """
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.stack import load
    from quotactl.core.resources.desired import Strategy
    from quotactl.core.simulate import Side, compare, queue_models, run_both, run_one
    from quotactl.render.compare import render_comparison
    from quotactl.render.simulate import render_simulation

    runtime = runtime_of(ctx)
    if baseline is not None and other is not None:
        raise UsageError("give --baseline reserve or --compare OTHER_PATH, not both")
    label = ", ".join(str(p) for p in paths) if paths else "configs"
    queues = tuple(queue_models(load(runtime, paths).desired))
    name = str(trace)
    if baseline is None and other is None:
        result = _in_order(runtime, trace, lambda path: run_one(queues, path))
        render_simulation(runtime.console(), runtime.stdout, output, result, trace=name)
        return
    if other is not None:
        reference = Side(str(other), tuple(queue_models(load(runtime, [other]).desired)))
    else:
        reserved = tuple(q.with_strategy(Strategy.RESERVE) for q in queues)
        reference = Side("every share RESERVE", reserved, override="RESERVE")
    after_side = Side(label, queues)
    before, after = _in_order(runtime, trace, lambda path: run_both(reference, after_side, path))
    comparison = compare(before, after)
    render_comparison(runtime.console(), runtime.stdout, output, comparison, trace=name)


def _in_order(runtime: Runtime, trace: Path, replay: Callable[[Path], T]) -> T:
    """Replay ``trace``; one that is not in submission order is replayed sorted, with a note."""
    from quotactl.core.simulate.ordering import sorted_trace
    from quotactl.errors import TraceUnsorted

    try:
        return replay(trace)
    except TraceUnsorted as exc:
        runtime.notice(f"quotactl: {exc.message}: replaying the trace sorted by submit_time")
    with sorted_trace(trace) as ordered:
        return replay(ordered)


def register(app: typer.Typer) -> None:
    app.command("simulate")(simulate)
