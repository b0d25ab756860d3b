"""The report of ``tune --report``: the search, and the best change before and after.

The search: every simulated candidate's objective in the order it was simulated (with the best
so far), and the front of objective against work lost. Then each proposal of the front with
its changes and ``simulate --compare``'s tables, and for the best one (the candidate ``--out``
writes) the pictures of ``simulate --compare --report``: utilisation, lending and preemptions
over time, per share its use against its limit and its waits, before and after.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from quotactl.core.simulate import instance_hours
from quotactl.core.tune import Objective
from quotactl.core.tune.run import TuneRun
from quotactl.render.mermaid import wait_unit
from quotactl.render.report.document import html
from quotactl.render.report.model import Chart, Kind, Report, Section, Series, Table
from quotactl.render.report.tables import from_rich
from quotactl.render.report.whatif import comparison_report
from quotactl.render.views import Screen, view

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.rules import RuleResult
    from quotactl.core.simulate import Comparison
    from quotactl.core.tune import Edit, Trial, TuneResult
    from quotactl.render.tune import Shown


def tune_report(
    result: TuneResult, shown: Shown, recorded: Comparison | None, *, trace: str
) -> Report:
    """The report of ``result``: ``shown`` are its proposals as ``tune`` prints them, and
    ``recorded`` the best one against the current configuration with timelines (None when no
    candidate beats the current)."""
    from quotactl.render.tune import nothing, summary

    scale = _Scale.of(result)
    sections = [_search(result, shown, scale)]
    for trial, changes, comparison, judged in shown:
        sections.append(_proposal(result, trial, changes, comparison, judged, recorded, trace))
    current = result.current
    lines = [
        f"Tuned {summary(result, trace)}",
        f"Current configuration: {result.objective.value} {result.objective.shown(current.score)},"
        f" work lost {instance_hours(current.work_lost)} instance-hours,"
        f" {current.result.preemptions:,} preemptions.",
        *(f"It breaks: {v}" for v in current.violations),
    ]
    if not shown:
        lines.append(nothing(result))
    return Report(title=f"quotactl tune: queue {result.queue}", lines=lines, sections=sections)


@view(TuneRun, "html")
def show_html(run: TuneRun, screen: Screen) -> None:
    screen.write(tune_html(run.result, run.proposals, run.recording, trace=run.trace))


def tune_html(result: TuneResult, shown: Shown, recorded: Comparison | None, *, trace: str) -> str:
    """``tune_report`` as the page ``tune --report`` writes."""
    return html(tune_report(result, shown, recorded, trace=trace))


class _Scale:
    """The objective as a chart's number: waits in minutes, hours or days, utilisation in %."""

    def __init__(self, objective: Objective, unit: str, per: float) -> None:
        self.objective, self.unit, self.per = objective, unit, per

    @classmethod
    def of(cls, result: TuneResult) -> _Scale:
        if result.objective is Objective.UTILISATION:
            return cls(result.objective, "% of claimed capacity", -0.01)
        finite = [t.score for t in result.trials if not math.isinf(t.score)]
        unit, per = wait_unit(finite)
        return cls(result.objective, unit, per)

    def value(self, score: float) -> float | None:
        return None if math.isinf(score) else score / self.per

    @property
    def title(self) -> str:
        return f"{self.objective.value} ({self.unit})"


def _search(result: TuneResult, shown: Shown, scale: _Scale) -> Section:
    from quotactl.render.tune import front_table

    tables = [from_rich(front_table(result, shown))] if shown else []
    return Section(
        "The search",
        tables=tables,
        charts=[_progress(result, scale), _front(result, scale)],
    )


def _progress(result: TuneResult, scale: _Scale) -> Chart:
    """Each candidate's objective in the order simulated, and the best so far."""
    kept = [t for t in result.trials if t.feasible]
    refused = [t for t in result.trials if not t.feasible]
    best: list[float] = []
    lowest = math.inf
    for trial in result.trials:
        if trial.feasible:
            lowest = min(lowest, trial.score)
        best.append(lowest)
    series = [
        Series("best so far", [scale.value(s) for s in best], x=_indices(result.trials)),
        _dots("kept every rule and every share's service", kept, scale),
    ]
    if refused:
        series.append(_dots("refused: breaks a rule or worsens a share", refused, scale))
    never = sum(1 for t in result.trials if math.isinf(t.score))
    first = result.current
    winner = result.best
    alt = (
        f"{len(result.trials):,} candidates simulated, the current configuration first"
        f" ({result.objective.value} {result.objective.shown(first.score)}); {len(refused):,}"
        " refused for breaking a rule or serving a share worse"
    )
    if never:
        alt += f"; {never:,} left a share's jobs never started (not drawn)"
    alt += (
        f"; the best, candidate {winner.index}, reaches {result.objective.shown(winner.score)}."
        if winner is not None
        else "; none beats the current configuration."
    )
    return Chart(
        title=f"{result.objective.value} of each candidate, in the order simulated",
        kind=Kind.LINES,
        x_labels=(),
        series=series,
        y_title=scale.title,
        alt=alt,
        x_title="candidate (0: the current configuration)",
        figures=_every_trial(result),
    )


def _front(result: TuneResult, scale: _Scale) -> Chart:
    """The front of objective against work lost, among every kept candidate."""
    front = sorted(result.front, key=lambda t: (t.work_lost, t.score))
    on_front = {t.index for t in front}
    others = [t for t in result.trials if t.feasible and t.index > 0 and t.index not in on_front]
    series = [
        Series(
            "the front",
            [scale.value(t.score) for t in front],
            x=[t.work_lost for t in front],
            dots=True,
        )
    ]
    if others:
        series.append(_dots("other kept candidates", others, scale, x="work lost"))
    series.append(_dots("the current configuration", [result.current], scale, x="work lost"))
    if result.best is not None:
        series.append(_dots("the best (--out writes it)", [result.best], scale, x="work lost"))
    points = "; ".join(
        f"candidate {t.index}: {result.objective.shown(t.score)},"
        f" {instance_hours(t.work_lost)} instance-hours lost"
        for t in front
    )
    alt = (
        f"The front of {result.objective.value} against work lost: {points or 'empty'}."
        f" The current configuration: {result.objective.shown(result.current.score)},"
        f" {instance_hours(result.current.work_lost)} instance-hours lost."
    )
    return Chart(
        title=f"The front: {result.objective.value} against work lost",
        kind=Kind.LINES,
        x_labels=(),
        series=series,
        y_title=scale.title,
        alt=alt,
        x_title="work lost to preemption (instance-hours)",
    )


def _dots(name: str, trials: Sequence[Trial], scale: _Scale, *, x: str = "index") -> Series:
    drawn = [t for t in trials if not math.isinf(t.score)]
    xs = _indices(drawn) if x == "index" else [t.work_lost for t in drawn]
    return Series(name, [scale.value(t.score) for t in drawn], dots=True, line=False, x=xs)


def _indices(trials: Sequence[Trial]) -> list[float]:
    return [float(t.index) for t in trials]


def _every_trial(result: TuneResult) -> Table:
    rows = [
        [
            str(t.index),
            result.objective.shown(t.score),
            instance_hours(t.work_lost),
            f"{t.result.preemptions:,}",
            "; ".join(t.violations) or "kept",
        ]
        for t in result.trials
    ]
    return Table(
        "Every candidate simulated",
        ["candidate", result.objective.value, "work lost", "preemptions", "rules and service"],
        rows,
        [True, True, True, True, False],
    )


def _proposal(
    result: TuneResult,
    trial: Trial,
    changes: Sequence[Edit],
    comparison: Comparison,
    judged: Sequence[RuleResult],
    recorded: Comparison | None,
    trace: str,
) -> Section:
    from quotactl.render.compare import hours_table, queue_line, wait_table
    from quotactl.render.rules import rules_plain
    from quotactl.render.tune import edit_line

    best = trial is result.best
    title = f"Candidate {trial.index}" + (" (the best: --out writes it)" if best else "")
    lines = [f"Change: {edit_line(e)}" for e in changes]
    rules = [line.strip() for line in rules_plain(judged).splitlines() if line.strip()]
    if best and recorded is not None:
        drawn = comparison_report(recorded, trace=trace)
        return Section(title, [*lines, *drawn.lines, *rules], sections=drawn.sections)
    lines += [f"Verdict: {comparison.verdict}", *rules]
    tables: list[Table] = []
    for queue in comparison.queues:
        shares = [s for s in comparison.shares if s.queue == queue.queue]
        lines.append(queue_line(queue).plain)
        tables += [from_rich(wait_table(shares)), from_rich(hours_table(shares))]
    return Section(title, lines, tables)
