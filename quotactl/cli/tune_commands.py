"""``tune``: search changes to a queue's shares for the best objective on a trace.

The search is ``quotactl.core.tune`` behind ``quotactl.api.tune``; this module parses the
options, draws the progress bar and the result, and writes ``--out``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from quotactl.cli.options import PathsArgument, ReportOutput, RulesOption

if TYPE_CHECKING:
    from quotactl.core.tune import Knob


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
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.support import load
    from quotactl.core.tune import Objective, Settings
    from quotactl.errors import UsageError, WorkInterruptedError
    from quotactl.render.tune import TuneProgress, print_tune, tune_json, tune_markdown

    runtime = runtime_of(ctx, output)
    if workers is not None and executor is not None:
        raise UsageError("give --workers N or --executor dask://HOST:PORT, not both")
    try:
        goal = Objective(objective)
    except ValueError:
        raise UsageError(
            f"--objective {objective!r}: expected one of {', '.join(o.value for o in Objective)}"
        ) from None
    knobs = _knobs(vary)
    if out is not None:
        api.check_tuned_out(out)
    if report is not None:
        api.check_report_path(report)
    loaded = load(runtime, paths)
    chosen = api.rules_for(loaded, rules)
    settings = Settings(objective=goal, budget=budget, seed=seed, max_worse=max_worse)

    def unsorted(why: str) -> None:
        runtime.notice(f"quotactl: {why}: replaying the trace sorted by submit_time")

    progress = TuneProgress(
        runtime.console(stderr=True), budget, goal.value, live=not runtime.quiet
    )
    with progress:
        result = api.tune(
            loaded.desired,
            trace,
            settings,
            queue=queue,
            vary=knobs,
            fixed=fixed or (),
            workers=workers,
            executor=executor,
            rules=chosen,
            on_trial=lambda trial, best: progress.told(trial, best, goal.shown(best.score)),
            on_unsorted=unsorted,
            timing=runtime.settings.timing,
        )
    label = ", ".join(str(p) for p in paths) if paths else "configs"
    shown = [
        (
            t,
            api.tuned_edits(result, t),
            api.tuned_comparison(result, t, label=label),
            api.tuned_rules(chosen, t),
        )
        for t in result.proposals
    ]
    written = None
    if out is not None and result.best is not None:
        written = api.write_tuned(paths or [Path("configs")], result.best, out)
    name = str(trace)
    if output is ReportOutput.JSON:
        document = tune_json(result, shown, trace=name)
        if written is not None:
            document["written"] = {
                "out": str(written.out),
                "files": [str(f) for f in written.files],
                "changed": [str(f) for f in written.changed],
            }
        runtime.write_json(document)
    elif output is ReportOutput.MARKDOWN:
        runtime.stdout.write(tune_markdown(result, shown, trace=name))
    else:
        print_tune(runtime.console(), result, shown, trace=name)
    if report is not None:
        from quotactl.cli.support import write_report
        from quotactl.render.report.tuning import tune_html

        best = result.best
        recorded = None
        if best is not None:  # the search recorded nothing: the best and the current again
            recorded = api.tuned_recording(
                result, best, trace, label=label, timing=runtime.settings.timing
            )
        write_report(runtime, report, tune_html(result, shown, recorded, trace=name))
    if out is not None:
        if written is None:
            runtime.notice(f"quotactl: nothing written to {out}: no candidate beats the current")
        else:
            changed = ", ".join(str(f) for f in written.changed) or "none"
            runtime.notice(
                f"quotactl: wrote candidate {result.best.index if result.best else '?'}"
                f" to {out} ({len(written.files)} files; changed: {changed})"
            )
    if result.interrupted:
        raise WorkInterruptedError(
            f"tune interrupted after {len(result.trials)} of {budget} candidates:"
            " the result above is the best found so far",
            hint="re-run with the same --seed and a larger --budget to search further",
        )


def _knobs(text: str) -> tuple[Knob, ...]:
    from quotactl.core.tune import Knob
    from quotactl.errors import UsageError

    found = []
    for part in (p.strip() for p in text.split(",")):
        try:
            found.append(Knob(part.replace("-", "_")))
        except ValueError:
            raise UsageError(
                f"--vary {text!r}: {part!r} is not one of {', '.join(k.value for k in Knob)}"
            ) from None
    return tuple(dict.fromkeys(found))


def register(app: typer.Typer) -> None:
    app.command("tune")(tune)
