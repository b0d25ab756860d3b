"""How long each job runs, as far as quotactl can know: the source of every duration.

A job's run time (its RUNNING phase, what the engine's ``Job.run_seconds`` counts) is, in
order of preference:

- **known**: its ``quotactl:duration`` tag (the emulator runs the job exactly that long), cut
  short by its ``MaxRuntimeInSeconds`` or attempt timeout as the emulator cuts it;
- **history**: drawn from the run times of the share's finished jobs (a ledger, or the jobs the
  account still lists), never longer than the job's time limit; for a job already running,
  only run times longer than what it has run so far are drawn (conditioned on its age);
- **time-limit**: its ``MaxRuntimeInSeconds`` (SageMaker's default of one day without one), or
  its attempt timeout if shorter: an upper bound, so an estimate built on it errs late.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING, Protocol

from quotactl.core.jobs.spec import DEFAULT_MAX_RUNTIME
from quotactl.core.states import JobStatus

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from random import Random

    from quotactl.core.resources.observed import LiveJob


class Basis(IntEnum):
    """Where a duration came from, weakest last: an estimate is as good as its weakest part."""

    KNOWN = 0
    HISTORY = 1
    TIME_LIMIT = 2

    @property
    def word(self) -> str:
        return ("known", "history", "time-limit")[self]


class DurationSampler(Protocol):
    """The run times a job of ``share`` is drawn from (each equally likely): those longer than
    ``elapsed`` (the seconds a running job has already run); empty when the share has no such
    history. A Monte Carlo asks once per job and draws from the answer in every run."""

    def longer_than(self, share: str, elapsed: float) -> Sequence[float]: ...

    def has(self, share: str) -> bool: ...


@dataclass(frozen=True)
class ShareHistory:
    """Past run times (seconds) per share: an empirical distribution to draw from."""

    runs: Mapping[str, Sequence[float]]
    """Per share, ascending."""

    @classmethod
    def of(cls, samples: Iterable[tuple[str, float]]) -> ShareHistory:
        """From ``(share, run seconds)`` pairs, in any order."""
        runs: dict[str, list[float]] = {}
        for share, seconds in samples:
            runs.setdefault(share, []).append(max(0.0, seconds))
        return cls({share: sorted(values) for share, values in runs.items()})

    def has(self, share: str) -> bool:
        return bool(self.runs.get(share))

    def longer_than(self, share: str, elapsed: float) -> Sequence[float]:
        values = self.runs.get(share) or ()
        first = bisect_right(values, elapsed)  # only run times longer than the job's age
        return values if first == 0 else values[first:]

    def draw(self, share: str, rng: Random, elapsed: float) -> float | None:
        """One run time longer than ``elapsed``, or None when the share has none."""
        return pick(self.longer_than(share, elapsed), rng)

    def __len__(self) -> int:
        return sum(len(v) for v in self.runs.values())


def pick(values: Sequence[float], rng: Random) -> float | None:
    """One of ``values``, each equally likely (one ``rng.random()``), or None if there are none."""
    return values[int(rng.random() * len(values))] if values else None


def live_history(jobs: Iterable[LiveJob], starting_seconds: float) -> ShareHistory:
    """The run times of the SUCCEEDED jobs a live queue lists: from ``startedAt`` (the start
    of STARTING) to ``stoppedAt``, less the STARTING phase of the timing model."""
    return ShareHistory.of(
        (job.share, job.stopped_at - job.started_at - starting_seconds)
        for job in jobs
        if job.status is JobStatus.SUCCEEDED
        and job.share is not None
        and job.started_at is not None
        and job.stopped_at is not None
    )


def time_limit(job: LiveJob) -> float:
    """The longest a job's attempt may run, and how long the emulator runs a job without the
    tag: its MaxRuntimeInSeconds (one day without one), or its attempt timeout if shorter."""
    base = job.max_runtime if job.max_runtime is not None else DEFAULT_MAX_RUNTIME
    return base if job.attempt_timeout is None else min(base, job.attempt_timeout)


def known_run(job: LiveJob) -> float | None:
    """The run time of a job with a ``quotactl:duration`` tag, cut short as the emulator
    cuts it (by MaxRuntimeInSeconds or the attempt timeout); None without the tag."""
    if job.duration is None:
        return None
    cuts = [s for s in (job.max_runtime, job.attempt_timeout) if s is not None]
    return min([job.duration, *cuts])
