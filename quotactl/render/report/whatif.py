"""The report of ``simulate --report``: one run, or two compared (before and after).

Per queue: the text report's tables, utilisation over time, lent over time and preemptions over
time; per share: instances in use per instance type (own and borrowed stacked, the limit
drawn, and the other run's peak where two are compared) and the distribution of waits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from quotactl.core.durations import human_duration
from quotactl.core.simulate.judged import JudgedComparison, JudgedSimulation
from quotactl.core.simulate.timeline import WAIT_BINS
from quotactl.errors import InternalError
from quotactl.render.report.document import html
from quotactl.render.report.frame import Frame
from quotactl.render.report.model import Chart, Kind, Report, Section, Series, Table
from quotactl.render.report.tables import from_rich
from quotactl.render.views import Screen, view

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.simulate import Comparison, SimulationResult
    from quotactl.core.simulate.timeline import ShareTimeline, Timeline, UsageSeries

WAIT_LABELS = (
    "≤ 1 min",
    "1-10 min",
    "10 min-1 h",
    "1-6 h",
    "6 h-1 d",
    "1-7 d",
    "> 7 d",
    "never",  # every job counts: jobs that never started (terminated, or still waiting)
)
assert len(WAIT_LABELS) == len(WAIT_BINS) + 2
MOST_SERIES = 8
"""Lines drawn in a chart of one line per share: the largest seven and the others added up."""


@dataclass(frozen=True)
class _Run:
    label: str  # "" for a report of one run
    result: SimulationResult
    timeline: Timeline


def simulation_report(result: SimulationResult, *, trace: str, config: str) -> Report:
    """The report of one simulation of ``trace`` against ``config``."""
    from quotactl.render.simulate import headline, hours_table, queue_line, wait_table

    run = _Run("", result, _timeline(result))
    frame = Frame([run.timeline])
    sections = []
    for queue in result.queues:
        shares = [s for s in result.shares if s.queue == queue.queue]
        tables = [from_rich(wait_table(shares)), from_rich(hours_table(shares))]
        line = queue_line(queue.queue, queue.utilisation, queue.claimed).plain
        sections.append(_queue_section(queue.queue, [line], tables, [run], frame))
    return Report(
        title=f"quotactl simulate: {config}",
        lines=[headline(result, trace).plain, _resolution(frame)],
        sections=sections,
    )


def comparison_report(comparison: Comparison, *, trace: str) -> Report:
    """The report of a comparison: before (the reference) and after, on one time axis."""
    from quotactl.render.compare import headline, hours_table, queue_line, wait_table

    before, after = comparison.before, comparison.after
    runs = [
        _Run("before", before.result, _timeline(before.result)),
        _Run("after", after.result, _timeline(after.result)),
    ]
    frame = Frame([r.timeline for r in runs])
    sections = []
    for queue in comparison.queues:
        shares = [s for s in comparison.shares if s.queue == queue.queue]
        tables = [from_rich(wait_table(shares)), from_rich(hours_table(shares))]
        present = [r for r in runs if any(q.queue == queue.queue for q in r.result.queues)]
        sections.append(
            _queue_section(queue.queue, [queue_line(queue).plain], tables, present, frame)
        )
    return Report(
        title=f"quotactl what-if: {after.side.label} against {before.side.label}",
        lines=[
            headline(comparison, trace).plain,
            f"Before: {before.side.label}. After: {after.side.label}.",
            f"Verdict: {comparison.verdict}",
            _resolution(frame),
        ],
        sections=sections,
    )


def _timeline(result: SimulationResult) -> Timeline:
    if result.timeline is None:
        raise InternalError("the simulation was run without recording a timeline")
    return result.timeline


def _resolution(frame: Frame) -> str:
    return (
        f"Each point of a chart over time covers {human_duration(frame.seconds)}: instances in"
        " use are drawn at their highest (and lowest) within it, utilisation and lending as"
        " averages over it, preemptions as counts."
    )


def _queue_section(
    queue: str, lines: list[str], tables: list[Table], runs: Sequence[_Run], frame: Frame
) -> Section:
    charts = [_utilisation(queue, runs, frame)]
    lines = list(lines)
    for run in runs:
        for chart in (*_lent(queue, run, frame), _preemptions(queue, run, frame)):
            if chart.series:
                charts.append(chart)
            else:
                lines.append(chart.alt)
    names = list(
        dict.fromkeys(s.share for r in runs for s in r.timeline.shares if s.queue == queue)
    )
    shares = [_share_section(queue, name, runs, frame) for name in names]
    return Section(f"Queue {queue}", lines, tables, charts, shares)


def _utilisation(queue: str, runs: Sequence[_Run], frame: Frame) -> Chart:
    series = []
    for run in runs:
        result = next(q for q in run.result.queues if q.queue == queue)
        used = next(q.used for q in run.timeline.queues if q.queue == queue)
        claimed = sum(result.claimed.values())
        values = [100 * v for v in frame.averages(run.timeline, used, per=claimed)]
        series.append(Series(run.label or "utilisation", values, fill=len(runs) == 1))
    return _chart(
        f"{queue}: utilisation of claimed capacity over time",
        series,
        frame,
        y_title="% of claimed capacity (average)",
        unit="%",
        what="utilisation",
    )


def _lent(queue: str, run: _Run, frame: Frame) -> list[Chart]:
    """Per instance type, what each lending share lent: instances of two types do not add up."""
    lent: dict[str, list[Series]] = {}
    for share in _shares(run, queue):
        for usage in share.usage:
            if usage.lent and any(usage.lent):
                values = frame.averages(run.timeline, usage.lent)
                lent.setdefault(usage.instance_type, []).append(Series(share.share, values))
    when = f", {run.label}" if run.label else ""
    if not lent:
        return [
            _chart(
                f"{queue}: instances lent over time{when}", [], frame, y_title="", what="lending"
            )
        ]
    return [
        _chart(
            f"{queue}: {instance_type} lent over time{when}",
            series,
            frame,
            y_title="instances lent (average)",
            what="lending",
            most=MOST_SERIES,
        )
        for instance_type, series in sorted(lent.items())
    ]


def _preemptions(queue: str, run: _Run, frame: Frame) -> Chart:
    series = [
        Series(share.share, frame.sums(run.timeline, share.preemptions))
        for share in _shares(run, queue)
        if any(share.preemptions)
    ]
    title = f"{queue}: preemptions over time" + (f", {run.label}" if run.label else "")
    y_title = f"preemptions per {human_duration(frame.seconds)}"
    return _chart(
        title, series, frame, y_title=y_title, what="preemption", digits=0, most=MOST_SERIES
    )


def _share_section(queue: str, name: str, runs: Sequence[_Run], frame: Frame) -> Section:
    found = [(run, _share(run, queue, name)) for run in runs]
    present = [(run, share) for run, share in found if share is not None]
    last_run, last = present[-1]
    other = present[0] if len(present) > 1 else None
    charts = []
    for usage in last.usage:
        before = None
        if other is not None:
            before = next(
                (u for u in other[1].usage if u.instance_type == usage.instance_type), None
            )
        charts.append(_usage(queue, last, usage, last_run, before, other, frame))
    charts.append(_waits(queue, name, present))
    return Section(f"{queue}/{name}", charts=charts)


def _usage(
    queue: str,
    share: ShareTimeline,
    usage: UsageSeries,
    run: _Run,
    before: UsageSeries | None,
    other: tuple[_Run, ShareTimeline] | None,
    frame: Frame,
) -> Chart:
    high = frame.highs(run.timeline, usage.high)
    low = frame.lows(run.timeline, usage.low)
    own = [min(v, usage.limit) for v in high]
    series = [
        Series("borrowed", high, fill=True),
        Series("own", own, fill=True),
        Series("lowest in use", low),
        Series("limit", [float(usage.limit)] * len(high), dashed=True),
    ]
    if before is not None and other is not None:
        highest = frame.highs(other[0].timeline, before.high)
        series.append(Series(f"{other[0].label}: highest", highest, dashed=True))
    borrowed = max((v - usage.limit for v in high), default=0.0)
    when = f" ({run.label})" if run.label else ""
    alt = (
        f"{share.share} on {usage.instance_type}{when}: between {_n(min(low, default=0))} and"
        f" {_n(max(high, default=0))} instances in use against a limit of {usage.limit};"
        f" borrowed at most {_n(max(0.0, borrowed))}."
    )
    if before is not None and other is not None:
        alt += f" {other[0].label}: at most {_n(max(before.high, default=0))} in use."
    return Chart(
        title=f"{share.share}: {usage.instance_type} in use over time{when}",
        kind=Kind.LINES,
        x_labels=(),
        x=frame.x(),
        x_title=frame.x_title(),
        series=series,
        y_title="instances",
        alt=alt,
        figures=_figures(series, ""),
    )


def _waits(queue: str, name: str, present: Sequence[tuple[_Run, ShareTimeline]]) -> Chart:
    series = [
        Series(run.label or "jobs", [float(n) for n in share.waits]) for run, share in present
    ]
    parts = []
    for s in series:
        total = sum(v or 0 for v in s.values)
        never = int(s.values[-1] or 0)
        within = sum(v or 0 for v in s.values[:3])
        share_within = f"{within / total:.0%}" if total else "none"
        parts.append(
            f"{s.name}: {int(total) - never:,} jobs started, {never:,} never did,"
            f" {share_within} of all within an hour"
        )
    rows = [
        [label, *(f"{int(s.values[i] or 0):,}" for s in series)]
        for i, label in enumerate(WAIT_LABELS)
    ]
    figures = Table(
        "Jobs per wait", ["wait", *(s.name for s in series)], rows, [False, *([True] * len(series))]
    )
    return Chart(
        title=f"{name}: distribution of waits (first start - submit)",
        kind=Kind.BARS,
        x_labels=WAIT_LABELS,
        series=series,
        y_title="jobs",
        alt=f"Waits of {queue}/{name}: " + "; ".join(parts) + ".",
        figures=figures,
    )


def _chart(
    title: str,
    series: list[Series],
    frame: Frame,
    *,
    y_title: str,
    what: str,
    unit: str = "",
    digits: int = 1,
    most: int = 0,
) -> Chart:
    """A chart over time; with ``most``, the ``most - 1`` largest series (by their sum) are
    drawn and the others added up as one. Its text alternative names every series."""
    if not series:
        return Chart(title, Kind.LINES, (), (), y_title, f"{title}: no {what}.")
    alt = (
        "; ".join(
            f"{s.name}: from {_n(min(_v(s)), digits)}{unit} to {_n(max(_v(s)), digits)}{unit}"
            for s in series
        )
        + "."
    )
    return Chart(
        title=title,
        kind=Kind.LINES,
        x_labels=(),
        x=frame.x(),
        x_title=frame.x_title(),
        series=_largest(series, most) if most else series,
        y_title=y_title,
        alt=alt,
        figures=_figures(series, unit, digits),
    )


def _largest(series: list[Series], most: int) -> list[Series]:
    """The ``most - 1`` series of the largest sum, then the rest added up, where they are more
    than ``most``: a chart of twenty lines shows none of them."""
    if len(series) <= most:
        return series
    ranked = sorted(series, key=lambda s: -sum(_v(s)))
    drawn, rest = ranked[: most - 1], ranked[most - 1 :]
    added = [sum(v or 0.0 for v in point) for point in zip(*(s.values for s in rest), strict=True)]
    return [*drawn, Series(f"{len(rest)} other shares, added up", added)]


def _figures(series: Sequence[Series], unit: str, digits: int = 1) -> Table:
    rows = [
        [s.name, f"{_n(min(_v(s)), digits)}{unit}", f"{_n(max(_v(s)), digits)}{unit}"]
        for s in series
    ]
    return Table("Figures", ["series", "lowest", "highest"], rows, [False, True, True])


def _v(series: Series) -> list[float]:
    return [v for v in series.values if v is not None] or [0.0]


def _n(value: float, digits: int = 1) -> str:
    return f"{value:,.0f}" if digits == 0 or value == int(value) else f"{value:,.{digits}f}"


def _shares(run: _Run, queue: str) -> list[ShareTimeline]:
    return [s for s in run.timeline.shares if s.queue == queue]


def _share(run: _Run, queue: str, name: str) -> ShareTimeline | None:
    return next((s for s in _shares(run, queue) if s.share == name), None)


def _name(share: ShareTimeline, usage: UsageSeries, timeline: Timeline) -> str:
    several = sum(1 for s in timeline.shares if s.share == share.share for _ in s.usage) > 1
    return f"{share.share} ({usage.instance_type})" if several else share.share


@view(JudgedSimulation, "html")
def show_simulation_html(run: JudgedSimulation, screen: Screen) -> None:
    screen.write(simulation_html(run.result, trace=run.trace, config=run.config))


@view(JudgedComparison, "html")
def show_comparison_html(run: JudgedComparison, screen: Screen) -> None:
    screen.write(comparison_html(run.comparison, trace=run.trace))


def simulation_html(result: SimulationResult, *, trace: str, config: str) -> str:
    """``simulation_report`` as the page ``simulate --report`` writes."""
    return html(simulation_report(result, trace=trace, config=config))


def comparison_html(comparison: Comparison, *, trace: str) -> str:
    """``comparison_report`` as the page ``simulate --compare ... --report`` writes."""
    return html(comparison_report(comparison, trace=trace))
