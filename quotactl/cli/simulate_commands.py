"""``simulate``: replay a job trace against a config offline, or against two to compare them.

The work (reading the trace, the worker processes, the replays) is in ``quotactl.core.simulate``
behind ``quotactl.api.simulate_judged``; this module only reads options and shows the result.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated

import typer

from quotactl.cli.options import (
    Duration,
    GovernAllowDisruptionOption,
    GovernEveryOption,
    NoGovernOption,
    OverrideOption,
    PathsArgument,
    ReportOutput,
    RulesOption,
    StartOption,
    governing,
)
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
    horizon: Annotated[
        float | None,
        Duration(
            "--horizon",
            help="Replay this long after the last submission at most; jobs not finished by "
            "then count as stuck, and those that never started wait forever [default: 30d].",
        ),
    ] = None,
    start: StartOption = None,
    no_govern: NoGovernOption = False,
    govern_every: GovernEveryOption = None,
    govern_allow_disruption: GovernAllowDisruptionOption = False,
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

    The config's schedule windows, budgets and aging are applied as `quotactl govern` applies
    them, a cycle every --govern-every of the virtual clock from --start (--no-govern: without
    them); a job sent to a share while it is disabled is counted as refused.
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.support import load, write_report

    runtime = runtime_of(ctx, output)
    if baseline is not None and other is not None:
        raise UsageError("give --baseline reserve or --compare OTHER_PATH, not both")
    loaded = load(runtime, paths)
    chosen = api.rules_for(loaded, rules)
    api.check_overrides(override or (), chosen)  # before the replay, which may take a while
    if report is not None:
        api.check_report_path(report)
    run = api.simulate_judged(
        loaded.desired,
        trace,
        paths=paths,
        other=other,
        baseline=baseline is not None,
        rules=chosen,
        overrides=override or (),
        record=report is not None,
        notice=runtime.notice,
        timing=runtime.settings.timing,
        horizon=horizon,
        governing=governing(start, no_govern, govern_every, govern_allow_disruption),
    )
    runtime.show(run)
    if report is not None:
        write_report(runtime, report, api.report_page(run))
    if (failed := run.refusal()) is not None:
        raise failed


def register(app: typer.Typer) -> None:
    app.command("simulate")(simulate)
