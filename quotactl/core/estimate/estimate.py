"""When will each waiting job start: forward runs of the live queue through the engine.

Every unfinished job of the queue is loaded as it is now (active jobs hold their capacity,
queued ones wait in their share's order) with a run time from ``runtimes``: known durations
are used as they are; a job without one gets a draw from its share's history where there is
one, else its time limit. When no job needs a draw, one run is the answer: exact where every
duration is known (the emulator's own engine and timing, from the same state), an upper bound
where some are time limits. Otherwise ``runs`` Monte Carlo runs (seeded: the same state and
seed give the same estimate), and the p10, p50 and p90 of each job's start over them.

Jobs not yet submitted are not assumed: each estimate is for the queue as it is.
"""

from __future__ import annotations

import math
import time
from bisect import bisect_right
from dataclasses import dataclass, field, replace
from random import Random
from typing import TYPE_CHECKING, Any

from quotactl.core.engine import TIMING, Job
from quotactl.core.engine.model import public_values
from quotactl.core.estimate.forward import run
from quotactl.core.estimate.positions import positions
from quotactl.core.estimate.runtimes import Basis, known_run, time_limit
from quotactl.core.estimate.windows import match_windows
from quotactl.core.jobs.live import engine_job
from quotactl.core.states import JobStatus

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence

    from quotactl.core.engine import Timing
    from quotactl.core.estimate.runtimes import DurationSampler
    from quotactl.core.jobs.live import LiveQueue
    from quotactl.core.resources.observed import LiveJob

SEED = 0
"""The default seed of the Monte Carlo draws."""
JOB_RUNS = 30_000
"""Job-runs the Monte Carlo spends (runs x jobs), which bounds its cost: 200 runs of a queue
of up to 150 jobs, 30 of 1,000, 3 (the fewest) of 10,000 or more (each run costs about 0.15 s
of CPU at 10,000 jobs; docs/performance.md). Percentiles are nearest-rank: up to 10 runs,
p10 and p90 are the earliest and the latest start over the runs and p50 their median."""
MIN_RUNS, MAX_RUNS = 3, 200


@dataclass(frozen=True)
class Eta:
    """When a waiting job is expected to start (its ``startedAt``, epoch seconds): the p10,
    p50 and p90 over the runs (None where it did not start in enough of them: never, as far
    as the queue as it is goes), its places in line, and the weakest source among the run
    times that decide it."""

    p10: float | None
    p50: float | None
    p90: float | None
    position_in_share: int | None
    position_in_queue: int | None
    basis: Basis

    @property
    def exact(self) -> bool:
        return self.basis is Basis.KNOWN and self.p10 == self.p90


@dataclass(frozen=True)
class QueueEstimate:
    """The estimates of one queue's waiting jobs, and what they cost."""

    queue: str
    now: float
    etas: Mapping[str, Eta]
    runs: int
    seed: int
    seconds: float
    """Computation time (the reads before it not counted)."""
    history: bool
    """Whether any run time was drawn from a history."""


@dataclass(frozen=True)
class Estimates:
    """The estimates of one command, by job ID, and what they cost."""

    queues: tuple[QueueEstimate, ...] = ()
    calls: Mapping[str, int] = field(default_factory=dict)
    """Batch API calls the command's reads made, by operation (pages included)."""
    history: str | None = None
    """Where drawn run times came from: ``live`` (the SUCCEEDED jobs the account lists) or
    the ledger's path; None when nothing was drawn."""

    def eta(self, job_id: str) -> Eta | None:
        for queue in self.queues:
            found = queue.etas.get(job_id)
            if found is not None:
                return found
        return None

    @property
    def runs(self) -> int:
        return max((q.runs for q in self.queues), default=0)

    @property
    def seconds(self) -> float:
        return sum(q.seconds for q in self.queues)

    @property
    def seed(self) -> int:
        return self.queues[0].seed if self.queues else SEED


@dataclass
class _Plan:
    """One job of the runs: its engine record and how its run time is chosen."""

    job: Job
    fixed: float | None  # the run time when it is not drawn
    basis: Basis
    limit: float
    elapsed: float  # seconds a running job has run (draws are conditioned on it)
    fields: tuple[Any, ...] = ()  # the record's public fields: a fresh ``Job`` per run
    draws: Sequence[float] = ()  # the run times a draw picks from (conditioned on ``elapsed``)


def estimate(
    live: LiveQueue,
    *,
    wanted: Collection[str] | None = None,
    history: DurationSampler | None = None,
    timing: Timing = TIMING,
    seed: int = SEED,
    runs: int | None = None,
) -> QueueEstimate:
    """The estimates of ``wanted`` (job IDs; None: every waiting job) in ``live``, read at
    ``live.read_at``. ``history`` draws run times for jobs without a known one."""
    started = time.process_time()
    now = live.read_at
    plans = [_plan(j, now, timing, history) for j in _unfinished(live)]
    plans.sort(key=lambda p: p.job.submitted_at)  # the order the engine loads them in
    match_windows(live.model, [p.job for p in plans], now)
    drawn = _prepare(plans, history)
    count = 1 if not drawn else (runs or max(MIN_RUNS, min(MAX_RUNS, JOB_RUNS // len(plans))))
    queued = [p.job.job_id for p in plans if not p.job.status.holds_capacity]
    targets = frozenset(queued if wanted is None else set(wanted) & set(queued))
    order = sorted(targets)
    rng = Random(seed)
    rows: list[list[float]] = []
    finishes: list[tuple[float, str]] = []
    lead = timing.scheduled_seconds
    for index in range(count):
        engine = run(live.model, _jobs(plans, rng), now, timing, targets)
        starts = engine.starts
        rows.append([starts[j] + lead if j in starts else math.inf for j in order])
        if index == 0:
            finishes = engine.finishes
    samples = (
        dict(zip(order, (sorted(c) for c in zip(*rows, strict=True)), strict=True)) if rows else {}
    )
    places = positions(live.model, [p.job for p in plans])
    bases = _bases(plans, finishes, dict(zip(order, rows[0], strict=True)))
    etas = {
        job_id: _eta(values, places.get(job_id), bases[job_id])
        for job_id, values in samples.items()
    }
    for p in plans:  # dispatched, not started yet: it starts when its SCHEDULED phase ends
        job = p.job
        if job.status is JobStatus.SCHEDULED and (wanted is None or job.job_id in wanted):
            at = job.status_since + timing.scheduled_seconds
            etas[job.job_id] = Eta(at, at, at, None, None, Basis.KNOWN)
    return QueueEstimate(
        live.name, now, etas, count, seed, time.process_time() - started, bool(drawn)
    )


def _unfinished(live: LiveQueue) -> list[LiveJob]:
    names = {s.name for s in live.shares}
    return [
        j for j in live.jobs if not j.is_final and j.share in names and j.instance_type is not None
    ]


def _plan(job: LiveJob, now: float, timing: Timing, history: DurationSampler | None) -> _Plan:
    record = engine_job(job, now)
    elapsed = 0.0
    if record.status is JobStatus.RUNNING and job.started_at is not None:
        # AWS's startedAt is the start of STARTING; the run counts from RUNNING
        record.status_since = job.started_at + timing.starting_seconds
        elapsed = max(0.0, now - record.status_since)
    limit = time_limit(job)
    known = known_run(job)
    if known is not None:
        return _Plan(record, known, Basis.KNOWN, limit, elapsed)
    if history is not None and job.share is not None and history.has(job.share):
        return _Plan(record, None, Basis.HISTORY, limit, elapsed)
    return _Plan(record, limit, Basis.TIME_LIMIT, limit, elapsed)


def _prepare(plans: list[_Plan], history: DurationSampler | None) -> int:
    """Once for every run: each record's fields, and what each draw picks from (one
    question to the history per share and age). Returns how many run times are drawn."""
    asked: dict[tuple[str, float], Sequence[float]] = {}
    drawn = 0
    for plan in plans:
        plan.fields = public_values(plan.job)
        if plan.fixed is None:
            assert history is not None
            key = (plan.job.share, plan.elapsed)
            found = asked.get(key)
            if found is None:
                found = asked[key] = history.longer_than(*key)
            plan.draws = found
            drawn += 1
    return drawn


def _jobs(plans: list[_Plan], rng: Random) -> list[Job]:
    """Fresh records for one run, each with its run time: fixed, or drawn (one
    ``rng.random()`` per drawn job, in the plans' order: the seed decides every run)."""
    random = rng.random
    jobs = []
    for plan in plans:
        job = Job(*plan.fields)
        if job.window is not None:
            job.window = job.window.copy()
        seconds = plan.fixed
        if seconds is None:
            draws = plan.draws
            # a draw never passes the time limit; with nothing to draw from, the limit
            seconds = min(draws[int(random() * len(draws))], plan.limit) if draws else plan.limit
        job.run_seconds = seconds if seconds > plan.elapsed else plan.elapsed
        jobs.append(job)
    return jobs


def _bases(
    plans: list[_Plan], finishes: list[tuple[float, str]], first_run: Mapping[str, float]
) -> dict[str, Basis]:
    """Per job: the weakest basis among the jobs that ended before it started (first run)."""
    basis = {p.job.job_id: int(p.basis) for p in plans}
    times: list[float] = []
    levels: list[int] = []
    weakest = 0
    for at, job_id in finishes:
        level = basis.get(job_id, 0)
        if level > weakest:
            weakest = level
        times.append(at)
        levels.append(weakest)
    out: dict[str, Basis] = {}
    for job_id, first in first_run.items():
        seen = bisect_right(times, first)
        out[job_id] = Basis(levels[seen - 1]) if seen else Basis.KNOWN
    return out


def _eta(values: list[float], place: tuple[int, int] | None, basis: Basis) -> Eta:
    if len(values) == 1:
        p10 = p50 = p90 = None if math.isinf(values[0]) else values[0]
    else:
        p10, p50, p90 = (_percentile(values, q) for q in (0.1, 0.5, 0.9))
    share_place, queue_place = place if place is not None else (None, None)
    return Eta(p10, p50, p90, share_place, queue_place, basis)


def _percentile(ordered: list[float], q: float) -> float | None:
    """Nearest-rank percentile of an ascending list; None where it is a run that never
    started the job."""
    if not ordered:
        return None
    value = ordered[max(0, math.ceil(q * len(ordered)) - 1)]
    return None if math.isinf(value) else value


def with_job(live: LiveQueue, job: LiveJob) -> LiveQueue:
    """The queue with one more job (a job being previewed)."""
    return replace(live, jobs=(*live.jobs, job))
