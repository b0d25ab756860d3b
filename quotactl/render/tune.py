"""Views of a tune result: text for a terminal, markdown for a pull request, the JSON document.

Each configuration of the front is shown as its changes to the current configuration and as
``simulate --compare``'s tables and verdict (``quotactl/render/compare.py``). JSON
(``tune -o json``), format version 1::

    {
      "format_version": "1",
      "trace": "trace.csv", "queue": "training",
      "objective": "worst-p95" | "mean-p95" | "utilisation",
      "seed": 1, "budget": 50, "simulated": 50,
      "refused": 0,                 # candidates a rule refused before simulation
      "stranded": 0,                # simulated candidates refused: they strand work
      "exhaustive": false,          # every candidate of the space was simulated
      "interrupted": false,         # Ctrl-C ended the search early
      "current": TRIAL,
      "best": null | 12,            # the candidate --out writes (null: none beats the current)
      "front": [TRIAL + {"changes": [{"queue", "share", "team", "key", "before", "after"}],
                         "comparison": COMPARISON-DOCUMENT,
                         "rules": [{"name", "level", "check", "result", "message"}]}],
      "written": null | {"out": "DIR", "files": [...], "changed": [...]}
    }
    TRIAL = {"candidate": 0, "fingerprint": "…", "objective_value": 5400.0,
             "objective_shown": "1.5 h", "work_lost_instance_hours": 0.0, "preemptions": 0,
             "jobs_not_run": 0,    # the tuned queue's jobs never started or terminated unrun
             "violations": []}     # why a trial may not be proposed (rules, the guard, work
                                   # it strands: "strands work: ...")

``COMPARISON-DOCUMENT`` is ``simulate --compare -o json``'s whole document.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from quotactl.core.outputs import Output, ReportOutput
from quotactl.core.simulate import instance_hours
from quotactl.core.tune import Objective
from quotactl.core.tune.run import TuneRun
from quotactl.render.compare import comparison_document, comparison_markdown, print_comparison
from quotactl.render.markdown import code_span
from quotactl.render.rules import rules_json, rules_markdown, rules_text
from quotactl.render.simulate import FORMAT_VERSION
from quotactl.render.symbols import ARROW
from quotactl.render.views import Screen, view

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import TracebackType

    from rich.console import Console

    from quotactl.core.tune import Edit, Trial, TuneResult
    from quotactl.core.tune.run import Proposal

    Shown = Sequence[Proposal]
    """Each front trial with its changes, its comparison against the current config and
    every rule's result on it."""


class TuneProgress:
    """A progress bar of candidates simulated, with the best objective so far (terminals only)."""

    def __init__(self, console: Console, budget: int, objective: str, *, live: bool) -> None:
        self.objective = objective
        self.bar: Progress | None = None
        if live and console.is_terminal:
            self.bar = Progress(
                TextColumn("[bold]tune[/bold]"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.description}"),
                TimeElapsedColumn(),
                console=console,
                transient=True,
            )
            self.task = self.bar.add_task("", total=budget)

    def __enter__(self) -> TuneProgress:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self.bar is not None:
            self.bar.stop()

    def __call__(self, trial: Trial, best: Trial) -> None:
        """Hear of one more candidate simulated (``api.tune``'s ``on_trial``)."""
        self.told(trial, best, Objective(self.objective).shown(best.score))

    def told(self, trial: Trial, best: Trial, shown: str) -> None:
        if self.bar is not None:
            self.bar.update(
                self.task, advance=1, description=f"best {self.objective} {shown} (#{best.index})"
            )


@view(TuneRun, Output.JSON)
def show_json(run: TuneRun, screen: Screen) -> None:
    document = tune_json(run.result, run.proposals, trace=run.trace)
    if run.written is not None:
        document["written"] = {
            "out": str(run.written.out),
            "files": [str(f) for f in run.written.files],
            "changed": [str(f) for f in run.written.changed],
        }
    screen.write_json(document)


@view(TuneRun, Output.TEXT)
def show_text(run: TuneRun, screen: Screen) -> None:
    print_tune(screen.console(), run.result, run.proposals, trace=run.trace)


@view(TuneRun, ReportOutput.MARKDOWN)
def show_markdown(run: TuneRun, screen: Screen) -> None:
    screen.write(tune_markdown(run.result, run.proposals, trace=run.trace))


def tune_json(result: TuneResult, shown: Shown, *, trace: str) -> dict[str, object]:
    best = result.best
    return {
        "format_version": FORMAT_VERSION,
        "trace": trace,
        "queue": result.queue,
        "objective": result.objective.value,
        "seed": result.seed,
        "budget": result.budget,
        "simulated": len(result.trials),
        "refused": result.refused,
        "stranded": result.stranded,
        "exhaustive": result.exhaustive,
        "interrupted": result.interrupted,
        "current": _trial_json(result, result.current),
        "best": best.index if best is not None else None,
        "front": [
            {
                **_trial_json(result, trial),
                "changes": [
                    {
                        "queue": e.queue,
                        "share": e.share,
                        "team": e.team,
                        "key": e.key,
                        "before": e.before,
                        "after": e.after,
                    }
                    for e in changes
                ],
                "comparison": comparison_document(comparison, trace=trace, rules=judged),
                "rules": rules_json(judged),
            }
            for trial, changes, comparison, judged in shown
        ],
        "written": None,
    }


def _trial_json(result: TuneResult, trial: Trial) -> dict[str, object]:
    score = trial.score
    value: float | None = None if math.isinf(score) else round(score, 4)
    if value is not None and result.objective.value == "utilisation":
        value = round(-score, 4)
    return {
        "candidate": trial.index,
        "fingerprint": trial.fingerprint,
        "objective_value": value,
        "objective_shown": result.objective.shown(score),
        "work_lost_instance_hours": round(trial.work_lost, 3),
        "preemptions": trial.result.preemptions,
        "jobs_not_run": trial.not_run,
        "violations": list(trial.violations),
    }


def print_tune(console: Console, result: TuneResult, shown: Shown, *, trace: str) -> None:
    console.print(_headline(result, trace))
    current = result.current
    console.print(
        f"Current configuration: {result.objective.value} {result.objective.shown(current.score)},"
        f" work lost {instance_hours(current.work_lost)} instance-hours,"
        f" {current.result.preemptions:,} preemptions"
    )
    for violation in current.violations:
        console.print(Text(f"  breaks: {violation}", style="yellow"))
    if not shown:
        console.print()
        console.print(Text(nothing(result), style="bold"))
        return
    console.print()
    console.print(front_table(result, shown))
    for trial, changes, comparison, judged in shown:
        console.print()
        best = " (the best: --out writes it)" if trial is result.best else ""
        console.print(Text.assemble((f"Candidate {trial.index}", "bold"), best))
        for e in changes:
            console.print(f"  {edit_line(e)}")
        console.print()
        print_comparison(console, comparison, trace=trace)
        if judged:
            console.print()
            console.print(rules_text(judged), end="")


def tune_markdown(result: TuneResult, shown: Shown, *, trace: str) -> str:
    lines = [
        f"## quotactl tune: queue {code_span(result.queue)}",
        "",
        f"Tuned {summary(result, trace)}",
        "",
    ]
    if not shown:
        lines += [f"**{nothing(result)}**", ""]
        return "\n".join(lines)
    lines += [
        f"| candidate | {result.objective.value} | work lost (inst-h) | preemptions | changes |",
        "|--:|--:|--:|--:|---|",
    ]
    for trial, changes, _, _ in shown:
        mark = " (best)" if trial is result.best else ""
        lines.append(
            f"| {trial.index}{mark} | {result.objective.shown(trial.score)}"
            f" | {instance_hours(trial.work_lost)} | {trial.result.preemptions:,}"
            f" | {'; '.join(code_span(edit_line(e)) for e in changes)} |"
        )
    lines.append("")
    for trial, changes, comparison, judged in shown:
        lines += [f"#### Candidate {trial.index}", ""]
        lines += [f"- {code_span(edit_line(e))}" for e in changes]
        lines += ["", comparison_markdown(comparison, trace=trace), *rules_markdown(judged)]
    return "\n".join(lines)


def front_table(result: TuneResult, shown: Shown) -> Table:
    table = Table(
        title="The front: objective against work lost, best first",
        title_justify="left",
        box=None,
        pad_edge=False,
    )
    table.add_column("candidate", justify="right")
    table.add_column(result.objective.value, justify="right")
    table.add_column("work lost", justify="right")
    table.add_column("preemptions", justify="right")
    table.add_column("changes", overflow="fold")
    for trial, changes, _, _ in shown:
        table.add_row(
            f"{trial.index}{' *' if trial is result.best else ''}",
            result.objective.shown(trial.score),
            instance_hours(trial.work_lost),
            f"{trial.result.preemptions:,}",
            "; ".join(edit_line(e) for e in changes),
        )
    return table


def edit_line(e: Edit) -> str:
    return f"{e.queue}/{e.share} {e.key}: {e.before} {ARROW} {e.after}"


def _headline(result: TuneResult, trace: str) -> Text:
    return Text.assemble(("Tuned ", "bold"), summary(result, trace))


def summary(result: TuneResult, trace: str) -> str:
    parts = [
        f"queue {result.queue} on {result.current.result.jobs:,} jobs from {trace}:"
        f" {len(result.trials):,} of a budget of {result.budget:,} candidates simulated"
        f" (objective {result.objective.value}, seed {result.seed})"
    ]
    if result.exhaustive:
        parts.append("every candidate of the space was tried: this is the exhaustive optimum")
    if result.refused:
        parts.append(f"{result.refused:,} candidates refused by rules before simulation")
    if result.stranded:
        parts.append(
            f"{result.stranded:,} refused because they strand work (a share would run fewer of"
            " its jobs than today)"
        )
    if result.interrupted:
        parts.append("interrupted: the best found so far")
    return "; ".join(parts) + "."


def nothing(result: TuneResult) -> str:
    if result.front:
        return "No candidate beats the current configuration: keep it."
    return (
        "No candidate keeps every rule and every share's service: keep the current configuration."
    )
