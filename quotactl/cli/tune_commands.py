"""``tune``: search changes to a queue's shares for the best objective on a trace.

The search is ``quotactl.core.tune`` behind ``quotactl.api.tune_and_write`` (which also writes
``--out``); this module reads the options, hands the progress bar to the search as its
callback, and shows the ``TuneRun`` it returns.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from quotactl.cli.options import (
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


def tune(
    ctx: typer.Context,
    trace: Annotated[
        Path,
        typer.Option(
            "--trace",
            metavar="FILE",
            help="The jobs to replay for every candidate (CSV with a header, or JSON Lines).",
            show_default=False,
        ),
    ],
    paths: PathsArgument = None,
    queue: Annotated[
        str | None,
        typer.Option(
            "--queue",
            metavar="QUEUE",
            help="The queue whose shares to tune (default: the config's only queue).",
            show_default=False,
        ),
    ] = None,
    objective: Annotated[
        str,
        typer.Option(
            "--objective",
            metavar="worst-p95|mean-p95|utilisation",
            help="What to minimise: the worst share's p95 wait, the mean of the shares' p95"
            " waits, or (maximised) the queue's utilisation.",
        ),
    ] = "worst-p95",
    vary: Annotated[
        str,
        typer.Option(
            "--vary",
            metavar="capacity,sharing,borrow_limit",
            help="What may change: instances moved between shares (each type's total kept),"
            " sharing strategies, borrow limits.",
        ),
    ] = "capacity,sharing,borrow_limit",
    fixed: Annotated[
        list[str] | None,
        typer.Option(
            "--fix",
            metavar="TEAM",
            help="Leave this team's shares as they are (repeatable).",
            show_default=False,
        ),
    ] = None,
    budget: Annotated[
        int,
        typer.Option("--budget", min=1, metavar="N", help="Distinct candidates to simulate."),
    ] = 50,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            metavar="N",
            help="Local worker processes [default: the core count].",
            show_default=False,
        ),
    ] = None,
    executor: Annotated[
        str | None,
        typer.Option(
            "--executor",
            metavar="dask://HOST:PORT",
            help="Simulate on this Dask cluster instead (the extra quotactl[dask]).",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", metavar="S", help="Same seed, same search.")] = 1,
    max_worse: Annotated[
        float,
        typer.Option(
            "--max-worse",
            min=0.0,
            metavar="PERCENT",
            help="No share's p95 wait may get worse than today's by more than this.",
        ),
    ] = 10.0,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="DIR",
            help="Write the best configuration here, in the same layout, comments kept.",
            show_default=False,
        ),
    ] = None,
    rules: RulesOption = None,
    override: OverrideOption = None,
    output: Annotated[
        ReportOutput,
        typer.Option(
            "-o", "--output", metavar="text|json|markdown", help="markdown is a PR comment."
        ),
    ] = ReportOutput.TEXT,
    report: Annotated[
        Path | None,
        typer.Option(
            "--report",
            metavar="FILE.html",
            help="Also write the search and the best change, before and after, as charts and"
            " tables in one self-contained HTML page.",
            show_default=False,
        ),
    ] = None,
    start: StartOption = None,
    no_govern: NoGovernOption = False,
    govern_every: GovernEveryOption = None,
    govern_allow_disruption: GovernAllowDisruptionOption = False,
) -> None:
    """Search changes to a queue's shares for the best objective, replaying a trace for each.

    Candidates move instances between shares (each instance type's total kept), switch
    sharing strategies and set borrow limits; every one is replayed by `simulate` on the same
    trace. Every soft and hard rule is a constraint no proposal breaks. The result is the
    front of objective against work lost, each as its changes to the config, as
    `simulate --compare`'s tables and verdict, and with every rule's result. The same seed
    gives the same search with any --workers or --executor. Ctrl-C stops it with the best
    found so far. With --report FILE.html the search (every candidate's objective, the
    front) and the best change over time, before and after, are drawn in one page that opens
    offline.

    The config's schedule windows, budgets and aging stay in force in every replay (the
    current config's and each candidate's), applied as `simulate` applies them, a cycle
    every --govern-every of the virtual clock from --start (--no-govern: without them); they
    are never varied, and --out writes them as they were.
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.support import load, write_report
    from quotactl.render.tune import TuneProgress

    runtime = runtime_of(ctx, output)
    request = api.tune_request(
        objective,
        vary,
        budget=budget,
        seed=seed,
        max_worse=max_worse,
        queue=queue,
        fixed=fixed or (),
        workers=workers,
        executor=executor,
        out=out,
        report=report,
        overrides=override or (),
        governing=governing(start, no_govern, govern_every, govern_allow_disruption),
    )
    loaded = load(runtime, paths)
    with TuneProgress(runtime.console(stderr=True), budget, objective, live=not runtime.quiet) as p:
        run = api.tune_and_write(
            loaded.desired,
            trace,
            request,
            paths=paths,
            rules=api.rules_for(loaded, rules),
            on_trial=p,
            notice=runtime.notice,
            timing=runtime.settings.timing,
        )
    runtime.show(run)
    if report is not None:
        write_report(runtime, report, api.report_page(run))
    if (written := run.written_notice()) is not None:
        runtime.notice(written)
    if (interrupted := run.interruption()) is not None:
        raise interrupted


def register(app: typer.Typer) -> None:
    app.command("tune")(tune)
