"""Synthetic workloads for a configuration: what ``quotactl trace generate`` writes.

The model, per enabled quota share, each share drawing from its own random stream seeded by
``(seed, queue, share)`` (so adding a share does not change the others' jobs):

* **Load.** The share's offered load ``rho`` (instance-hours asked per hour of its own limit,
  averaged over a week) is drawn once, uniformly from 0.2-1.2 (mean 0.7): the platform as a
  whole has room, some teams leave much of their share idle, and about one in five asks for
  more than it owns, which is the situation lending and borrowing exist for.
* **Arrivals.** A Poisson process whose rate follows the working week,
  ``rate(t) = base * (1 + 0.8 * cos(2 pi (t - peak) / 1 day)) * (0.3 on Saturday and Sunday)``,
  with the share's peak hour drawn from 11:00-17:00 (teams in different time zones). At a
  peak a team asks for up to 1.8 / 0.81 = 2.2 times its weekly mean: the busy afternoons and
  quiet nights that lending and borrowing exist for. ``base`` makes the expected demand
  ``mean rate * E[size] * E[duration]`` equal ``rho`` times the share's total limit.
* **Instance type.** One of the share's types, weighted by the share's limit for it.
* **Size.** 1, 2, 4, 8 or 16 instances with probabilities .55/.25/.12/.06/.02, restricted to
  at most half the share's own limit for the type (at least 1): a generated job is never
  misconfigured, and no single job needs the whole share (which, with strict order inside a
  share, would idle it while the job waits for every other job to finish).
* **Duration.** Log-normal, median 40 min, sigma 1.1 (mean about 73 min; one job in twenty
  runs longer than 4 h), clipped to 1 min-48 h.
* **Priority.** 0 (70 %), 5 (20 %), 10 (10 %).

Rows come out merged in submission order and are produced lazily: a million-job trace is
written without holding it in memory.
"""

from __future__ import annotations

import heapq
import math
import random
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from quotactl.core.engine import QueueModel, ShareModel
    from quotactl.core.simulate.trace import TraceRow

DAY = 86_400.0
SIZES = (1, 2, 4, 8, 16)
SIZE_WEIGHTS = (0.55, 0.25, 0.12, 0.06, 0.02)
MEDIAN_DURATION = 40 * 60.0
DURATION_SIGMA = 1.1
MIN_DURATION, MAX_DURATION = 60.0, 48 * 3600.0
PRIORITIES = (0, 5, 10)
PRIORITY_WEIGHTS = (0.7, 0.2, 0.1)
LOAD_RANGE = (0.2, 1.2)
DIURNAL_AMPLITUDE = 0.8
WEEKEND_FACTOR = 0.3
WEEK = 7 * DAY
_WEEK_MEAN = (5 + 2 * WEEKEND_FACTOR) / 7


@dataclass(frozen=True)
class ShareWorkload:
    """The drawn parameters of one share's workload (reported by ``trace generate``)."""

    queue: str
    share: str
    load: float
    jobs_per_hour: float
    peak_hour: float


def workloads(queues: Sequence[QueueModel], seed: int) -> list[ShareWorkload]:
    """The per-share parameters the generator will use for ``queues`` under ``seed``."""
    return [_Share(q, s.name, seed, len(queues) > 1).workload for q in queues for s in _enabled(q)]


def generate_trace(queues: Sequence[QueueModel], jobs: int, seed: int) -> Iterator[TraceRow]:
    """``jobs`` rows of synthetic workload for the enabled shares of ``queues``, in time order."""
    streams = [_Share(q, s.name, seed, len(queues) > 1).rows() for q in queues for s in _enabled(q)]
    return islice(heapq.merge(*streams), jobs)


def _enabled(queue: QueueModel) -> list[ShareModel]:
    return [s for s in queue.shares if s.enabled and any(v > 0 for v in s.limits.values())]


class _Share:
    """One share's random stream and drawn parameters."""

    def __init__(self, queue: QueueModel, share: str, seed: int, qualified: bool) -> None:
        spec = queue.share(share)
        self.rng = random.Random(f"{seed}/{queue.name}/{share}")
        self.ref = f"{queue.name}/{share}" if qualified else share
        self.name = share
        self.types = [t for t, n in spec.limits.items() if n > 0]
        self.type_weights = [spec.limits[t] for t in self.types]
        self.sizes = {t: [s for s in SIZES if s <= max(1, spec.limits[t] // 2)] for t in self.types}
        self.size_weights = {t: SIZE_WEIGHTS[: len(self.sizes[t])] for t in self.types}
        total_limit = sum(self.type_weights)
        mean_size = sum(
            w / total_limit * _mean(self.sizes[t], self.size_weights[t])
            for t, w in zip(self.types, self.type_weights, strict=True)
        )
        mean_duration = MEDIAN_DURATION * math.exp(DURATION_SIGMA**2 / 2)
        self.load = self.rng.uniform(*LOAD_RANGE)
        self.base_rate = self.load * total_limit / (mean_size * mean_duration * _WEEK_MEAN)
        self.peak = self.rng.uniform(11.0, 17.0) * 3600.0
        self.workload = ShareWorkload(
            queue.name, share, self.load, self.base_rate * 3600.0, self.peak / 3600.0
        )

    def rows(self) -> Iterator[TraceRow]:
        rng = self.rng
        top = self.base_rate * (1 + DIURNAL_AMPLITUDE)
        mu = math.log(MEDIAN_DURATION)
        t = 0.0
        number = 0
        while True:
            t += rng.expovariate(top)
            wave = 1 + DIURNAL_AMPLITUDE * math.cos(2 * math.pi * (t - self.peak) / DAY)
            if t % WEEK >= 5 * DAY:
                wave *= WEEKEND_FACTOR  # the trace starts on a Monday at midnight
            if rng.random() * (1 + DIURNAL_AMPLITUDE) > wave:
                continue  # thinning: fewer arrivals at night and at weekends
            itype = rng.choices(self.types, self.type_weights)[0]
            size = rng.choices(self.sizes[itype], self.size_weights[itype])[0]
            duration = min(MAX_DURATION, max(MIN_DURATION, rng.lognormvariate(mu, DURATION_SIGMA)))
            priority = rng.choices(PRIORITIES, PRIORITY_WEIGHTS)[0]
            number += 1
            yield (t, self.ref, itype, size, duration, priority, f"{self.name}-{number}", 0)


def _mean(values: Sequence[int], weights: Sequence[float]) -> float:
    return sum(v * w for v, w in zip(values, weights, strict=True)) / sum(weights)
