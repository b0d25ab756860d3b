"""Views of what the ``trace`` commands wrote: a summary on stderr once the file is whole
(``-q`` hides it)."""

from __future__ import annotations

from quotactl.core.durations import human_duration
from quotactl.core.outputs import Output
from quotactl.core.simulate.written import ExportedTrace, GeneratedTrace, ImportedTrace
from quotactl.core.words import count_of
from quotactl.render.views import Screen, view


@view(GeneratedTrace, Output.TEXT)
def show_generated(result: GeneratedTrace, screen: Screen) -> None:
    span = human_duration(result.last_submit)
    screen.notice(f"quotactl: wrote {count_of(result.jobs, 'job')} over {span} to {result.to}")
    screen.notice("  per share (times of day on the trace's clock, which starts at 00:00):")
    for w in result.workloads:
        screen.notice(
            f"  {w.queue}/{w.share}: load {w.load:.2f} of its limit,"
            f" {w.jobs_per_hour:.1f} jobs/h on average, arrivals peak daily at"
            f" {_clock(w.peak_hour)}"
        )


def _clock(hour_of_day: float) -> str:
    """14.3 -> "14:18": an hour of the day as a time a person reads."""
    minutes = round(hour_of_day * 60) % (24 * 60)
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


@view(ExportedTrace, Output.TEXT)
def show_exported(result: ExportedTrace, screen: Screen) -> None:
    tally = result.tally
    span = human_duration((tally.last or 0.0) - (tally.first or 0.0))
    screen.notice(
        f"quotactl: wrote {count_of(tally.rows, 'job')} from {', '.join(result.queues)}"
        f" (submissions over {span}) to {result.out}"
    )
    if tally.lower_bounds:
        screen.notice(
            f"  {count_of(tally.lower_bounds, 'row')} {_are(tally.lower_bounds, 'a lower bound')}:"
            " jobs still running, with the"
            " time they have run so far"
        )
    if tally.upper_bounds:
        screen.notice(
            f"  {count_of(tally.upper_bounds, 'row')} {_are(tally.upper_bounds, 'an upper bound')}:"
            " queued jobs, with the run time"
            " they asked for"
        )
    for reason, n in sorted(tally.left_out.items()):
        screen.notice(f"  {count_of(n, 'job')} left out: {reason}")


def _are(n: int, what: str) -> str:
    """``is a lower bound`` or ``are lower bounds``."""
    return f"is {what}" if n == 1 else f"are {what.split(' ', 1)[1]}s"


@view(ImportedTrace, Output.TEXT)
def show_imported(result: ImportedTrace, screen: Screen) -> None:
    tally = result.tally
    screen.notice(
        f"quotactl: wrote {count_of(tally.kept, 'job')} of {tally.read:,} from {result.source}"
        f" (submissions over {human_duration(tally.span)}) to {result.out}"
    )
    if tally.unmapped:
        named = ", ".join(f"{g} ({n:,})" for g, n in tally.unmapped.most_common(5))
        more = len(tally.unmapped) - 5
        rest = f" and {count_of(more, 'more group')}" if more > 0 else ""
        screen.notice(
            f"  {count_of(sum(tally.unmapped.values()), 'job')} dropped: no --map for"
            f" {count_of(len(tally.unmapped), 'group')}: {named}{rest} (or --map '*=SHARE')"
        )
    for reason, n in sorted(tally.dropped.items()):
        screen.notice(f"  {count_of(n, 'job')} dropped: {reason}")
