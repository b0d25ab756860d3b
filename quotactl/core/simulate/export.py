"""The live account's job history as a trace ``simulate`` replays (``trace export``).

One row per service job, in submission order, ``submit_time`` counted from the first job
exported. A job's ``duration`` is its run time: from the start of its last attempt to its end,
so preempted attempts are not counted (in the replay the job may or may not be preempted
again). Where the run time is not known yet:

- a job that holds instances (SCHEDULED, STARTING, RUNNING) gets the time it has run so far,
  a **lower bound**;
- a queued job (SUBMITTED, RUNNABLE, including one preempted and waiting to start again) gets
  the run time it asked for, an **upper bound**: its ``quotactl:duration`` tag, else its
  ``StoppingCondition.MaxRuntimeInSeconds``, else SageMaker's default of one day.

Left out, and counted: jobs that ended without ever starting (cancelled, or refused by
SageMaker), jobs without a quota share, and jobs that name no instance type or several (a
trace row has one). ``priority`` is only reported by DescribeServiceJob: it is 0 unless the
job was described (queued jobs always are; every job with ``--priorities``).

``sorted_rows`` puts any stream of rows in submission order with bounded memory (``spill``):
runs of ``CHUNK`` rows are sorted and spilled to temporary files, then merged.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from quotactl.core.jobs.spec import DEFAULT_MAX_RUNTIME
from quotactl.core.simulate import spill
from quotactl.core.states import QUEUED

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from quotactl.core.resources.observed import LiveJob
    from quotactl.core.simulate.trace import TraceRow

"""SageMaker's default ``StoppingCondition.MaxRuntimeInSeconds``: one day."""
CHUNK = 50_000
"""Rows sorted in memory at once; a longer history is merged from temporary files."""

JobRow = tuple[float, str, str, int, float, int, str]
"""(created_at epoch seconds, queue/share, instance type, count, duration, priority, name)."""


@dataclass
class ExportTally:
    """What an export wrote and left out, for the closing note."""

    rows: int = 0
    lower_bounds: int = 0
    upper_bounds: int = 0
    left_out: Counter[str] = field(default_factory=Counter)
    first: float | None = None
    last: float | None = None


def job_row(job: LiveJob, requested: float | None, now: float, tally: ExportTally) -> JobRow | None:
    """One job as a row (None when it is left out, with the reason counted in ``tally``).

    ``requested`` is the run time a queued job asked for (``quotactl.aws.responses.
    requested_seconds`` reads it from DescribeServiceJob); unknown, it is SageMaker's default."""
    if job.share is None:
        tally.left_out["no quota share"] += 1
        return None
    if len(job.instances) != 1:
        tally.left_out["no single instance type"] += 1
        return None
    ((itype, count),) = job.instances.items()
    if job.status.is_final:
        if job.started_at is None:
            tally.left_out["ended without starting"] += 1
            return None
        duration = max(0.0, (job.stopped_at or job.started_at) - job.started_at)
    elif job.status.holds_capacity:
        since = job.started_at if job.started_at is not None else job.scheduled_at
        duration = max(0.0, now - (since if since is not None else now))
        tally.lower_bounds += 1
    else:
        duration = requested if requested is not None else DEFAULT_MAX_RUNTIME
        tally.upper_bounds += 1
    created = job.created_at or 0.0
    return (
        created,
        f"{job.queue}/{job.share}",
        itype,
        count,
        duration,
        job.priority or 0,
        job.name,
    )


def needs_detail(job: LiveJob) -> bool:
    """Queued jobs: their requested run time is only in DescribeServiceJob."""
    return job.status in QUEUED and job.share is not None


def trace_of(rows: Iterable[JobRow], tally: ExportTally) -> Iterator[TraceRow]:
    """Rows in submission order as trace rows, times counted from the first one."""
    origin: float | None = None
    for line, (created, share, itype, count, duration, priority, name) in enumerate(
        sorted_rows(rows), start=2
    ):
        if origin is None:
            origin = tally.first = created
        tally.last = created
        tally.rows += 1
        yield (created - origin, share, itype, count, duration, priority, name, line)


def sorted_rows(rows: Iterable[JobRow], chunk: int = CHUNK) -> Iterator[JobRow]:
    """``rows`` by (created_at, name), holding at most ``chunk`` of them in memory."""
    return spill.sorted_rows(rows, _key, chunk=chunk)


def _key(row: JobRow) -> tuple[float, str]:
    return (row[0], row[6])
