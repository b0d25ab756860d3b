"""``simulate``: replay a job trace against a config offline, or against two to compare them.

The work (reading the trace, the worker processes, the replays) is in ``quotactl.core.simulate``
behind ``quotactl.api.simulate``; this module only parses options and picks the view.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated

import typer

from quotactl.cli.options import OverrideOption, PathsArgument, ReportOutput, RulesOption
from quotactl.errors import UsageError


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
        ReportOutput,
        typer.Option(
            "-o", "--output", metavar="text|json|markdown", help="markdown is a PR comment."
        ),
    ] = ReportOutput.TEXT,
    override: OverrideOption = None,
    rules: RulesOption = None,
    report: Annotated[
        Path | None,
        typer.Option(
            "--report",
            metavar="FILE.html",
            help="Also write the charts and tables as one self-contained HTML page.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Replay a job trace against the config offline: waits, borrowing, lending, preemption.

    The trace runs on a virtual clock through the same scheduling engine as the emulator, with
    no emulator state and no API call. With --compare OTHER_PATH (or --baseline reserve) the
    same trace also runs against the other config, and the report shows, per share, the
    before → after of waits, preemptions, work lost, borrowing and lending, and who gains and
    who loses. The max_wait and max_preemptions rules are judged on the config's run (the
    config under review, with --compare): a failing soft rule needs --override NAME. With
    --report FILE.html the same run is also drawn over time (in use, borrowed, lent,
    utilisation, preemptions, waits) in one page that opens offline.
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.support import load, write_report
    from quotactl.core.rules import check_overrides, refusal
    from quotactl.render.compare import render_comparison
    from quotactl.render.simulate import render_simulation

    runtime = runtime_of(ctx, output)
    if baseline is not None and other is not None:
        raise UsageError("give --baseline reserve or --compare OTHER_PATH, not both")
    label = ", ".join(str(p) for p in paths) if paths else "configs"
    loaded = load(runtime, paths)
    desired = loaded.desired
    chosen = api.rules_for(loaded, rules)
    overrides = override or ()
    check_overrides(overrides, chosen)  # before the replay, which may take a while
    name = str(trace)
    if report is not None:
        api.check_report_path(report)
    record = report is not None

    def unsorted(why: str) -> None:
        runtime.notice(f"quotactl: {why}: replaying the trace sorted by submit_time")

    if baseline is None and other is None:
        result = api.simulate(
            desired, trace, on_unsorted=unsorted, record=record, timing=runtime.settings.timing
        )
        judged = api.judge_simulation(chosen, desired, result, overrides).results
        console = runtime.console()
        render_simulation(console, runtime.stdout, output, result, trace=name, rules=judged)
        if report is not None:
            from quotactl.render.report.whatif import simulation_html

            write_report(runtime, report, simulation_html(result, trace=name, config=label))
    else:
        reference = None if other is None else (str(other), load(runtime, [other]).desired)
        comparison = api.simulate_compare(
            desired,
            trace,
            label=label,
            other=reference,
            on_unsorted=unsorted,
            record=record,
            timing=runtime.settings.timing,
        )
        after = comparison.after.result
        judged = api.judge_simulation(chosen, desired, after, overrides).results
        render_comparison(
            runtime.console(), runtime.stdout, output, comparison, trace=name, rules=judged
        )
        if report is not None:
            from quotactl.render.report.whatif import comparison_html

            write_report(runtime, report, comparison_html(comparison, trace=name))
    runtime.json_written = output is ReportOutput.JSON  # the report holds the rules' results
    failed = refusal(judged)
    if failed is not None:
        raise failed


def register(app: typer.Typer) -> None:
    app.command("simulate")(simulate)
