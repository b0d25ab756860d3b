"""A ledger's rows gathered into jobs: when each job ran, when it waited, and its first start.

The times are epoch seconds. A job *runs* over ``[started_at, stopped_at)`` of each attempt
that started (an unfinished attempt runs on past any window); it *waits* from its submission
until it ends, except while it runs: so a job preempted and queued again waits from the
preempted attempt's stop to its next start, and a job cancelled while queued waits until its
cancellation.
"""

from __future__ import annotations

import itertools
import math
import operator
from typing import TYPE_CHECKING, NamedTuple

from quotactl.core.history.ledger import AttemptOutcome

if TYPE_CHECKING:
    from collections.abc import Iterable
    from datetime import datetime

    from quotactl.core.history.ledger import Attempt

OPEN = math.inf
"""The end of a spell that has not ended."""
_PREEMPTED = AttemptOutcome.PREEMPTED
_OPEN = frozenset({AttemptOutcome.RUNNING, AttemptOutcome.WAITING})


class JobRecord(NamedTuple):
    """One job of the ledger: who it belongs to, what it asked for, and when it ran and waited."""

    job_id: str
    queue: str
    share: str | None
    team: str | None
    instance_type: str | None
    instances: int
    priority: int
    submitted: float
    first_start: float | None
    runs: tuple[tuple[float, float], ...]
    waits: tuple[tuple[float, float], ...]
    preempted: tuple[tuple[float, float], ...]
    """(started, stopped) of each preempted attempt (started = stopped when it never started)."""


def job_records(attempts: Iterable[Attempt]) -> list[JobRecord]:
    """The ledger's rows as jobs, in submission order (a job's latest row names its team)."""
    by_job: dict[str, Attempt | list[Attempt]] = {}
    for row in attempts:
        found = by_job.get(row.job_id)
        if found is None:
            by_job[row.job_id] = row
        elif isinstance(found, list):
            found.append(row)
        else:  # a job's second row: its rows become a list
            by_job[row.job_id] = [found, row]
    records: list[JobRecord] = []
    add = records.append
    for item in by_job.values():
        if isinstance(item, list):
            add(_record(item if _in_order(item) else sorted(item, key=_attempt)))
        elif (started := item.started_at) is not None and item.outcome is not _PREEMPTED:
            add(_ran_once(item, started))  # most jobs: one attempt that started
        else:
            add(_record([item]))
    records.sort(key=_submitted)  # a sort of floats; then the ties, if any, by job
    if len(set(map(_submitted, records))) < len(records):
        records.sort(key=_submission_order)
    return records


_submitted = operator.itemgetter(7)
_submission_order = operator.itemgetter(7, 0)  # (submitted, job_id)


def _ran_once(row: Attempt, started: datetime) -> JobRecord:
    submitted = row.submitted_at.timestamp()
    start = started.timestamp()
    stop = row.stopped_at.timestamp() if row.stopped_at is not None else OPEN
    return _new(
        JobRecord,
        (
            row.job_id,
            row.queue,
            row.share,
            row.team,
            row.instance_type,
            row.count,
            row.priority,
            submitted,
            start,
            ((start, stop if stop > start else start),),
            ((submitted, start),) if start > submitted else (),
            (),
        ),
    )


_new = tuple.__new__
"""A ``JobRecord`` from its fields in order, without the keyword-argument ``__new__``."""


def _in_order(rows: list[Attempt]) -> bool:
    return all(a.attempt < b.attempt for a, b in itertools.pairwise(rows))


def _attempt(row: Attempt) -> int:
    return row.attempt


def _record(rows: list[Attempt]) -> JobRecord:
    """A job of several rows, or of one that never started or was preempted (a job of one
    row that started and was not preempted goes the short way, ``_ran_once``)."""
    last = rows[-1]
    submitted = rows[0].submitted_at.timestamp()
    runs: list[tuple[float, float]] = []
    preempted: list[tuple[float, float]] = []
    for row in rows:
        stop = row.stopped_at.timestamp() if row.stopped_at is not None else OPEN
        if row.started_at is not None:
            start = row.started_at.timestamp()
            runs.append((start, stop if stop > start else start))
        if row.outcome is _PREEMPTED and stop != OPEN:
            preempted.append((runs[-1][0] if row.started_at is not None else stop, stop))
    end = OPEN  # a RUNNING or WAITING last row: the job goes on
    if last.outcome not in _OPEN:
        ended = [stop for _, stop in runs] + [submitted]
        end = last.stopped_at.timestamp() if last.stopped_at is not None else max(ended)
    waits: list[tuple[float, float]] = []
    at = submitted
    for start, stop in runs if len(runs) < 2 else sorted(runs):
        if start > at:
            waits.append((at, min(start, end)))
        at = max(at, stop)
    if at < end:
        waits.append((at, end))
    return JobRecord(
        job_id=last.job_id,
        queue=last.queue,
        share=last.share,
        team=last.team,
        instance_type=last.instance_type,
        instances=last.count,
        priority=last.priority,
        submitted=submitted,
        first_start=min((s for s, _ in runs), default=None),
        runs=tuple(runs),
        waits=tuple((a, b) for a, b in waits if b > a),
        preempted=tuple(preempted),
    )
