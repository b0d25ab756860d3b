"""What ``tune`` minimises, and the guard that keeps every share's service.

Objectives, over the tuned queue's shares that took jobs in the trace (a share whose jobs
never started waits forever):

- ``worst-p95``: the largest p95 wait of any share (the default: the worst-served team);
- ``mean-p95``: the mean of the shares' p95 waits;
- ``utilisation``: the queue's utilisation of claimed capacity (maximised).

Every objective is turned into a *score*, lower is better. Every job counts, and the order of
merit is lexicographic: fewer jobs that never ran (never started, or terminated by the
queue's runnable timeout) first, then the score, so a search where every candidate strands
something still heads for the one that strands least; ties are broken by less work lost to
preemption, then fewer preemptions, then the earlier proposal.

tune never strands work: a candidate under which any share of the tuned queue finishes fewer
jobs than under the current configuration, leaves more of its jobs never run, or has more of
them misconfigured, is refused (``stranded``), with the reason, like a rule refusal.

The guard: no share's p95 wait may get worse than under the current configuration by more
than ``max_worse`` percent (default 10), with the one-second floor ``simulate --compare``
uses to call two waits equal. A change that helps one team by hurting another is a decision
for people, not for a search; ``--max-worse`` widens the guard.
"""

from __future__ import annotations

import math
from enum import StrEnum
from typing import TYPE_CHECKING

from quotactl.core.durations import human_duration
from quotactl.core.simulate.compare import no_longer_run

if TYPE_CHECKING:
    from quotactl.core.simulate.metrics import ShareResult, SimulationResult

WAIT_FLOOR = 1.0
"""Seconds within which two waits count as equal (as in ``simulate --compare``)."""


class Objective(StrEnum):
    WORST_P95 = "worst-p95"
    MEAN_P95 = "mean-p95"
    UTILISATION = "utilisation"

    def score(self, result: SimulationResult, queue: str) -> float:
        """Lower is better; ``inf`` when a share's jobs never start."""
        if self is Objective.UTILISATION:
            found = next((q for q in result.queues if q.queue == queue), None)
            value = found.utilisation if found is not None else None
            return -(value or 0.0)
        waits = [_p95(s) for s in _busy(result, queue)]
        if not waits:
            return 0.0
        if self is Objective.WORST_P95:
            return max(waits)
        return math.fsum(waits) / len(waits)

    def shown(self, score: float) -> str:
        """The score as a person reads it: a duration, or a percentage of capacity."""
        if self is Objective.UTILISATION:
            return f"{-score:.0%}"
        return "never" if math.isinf(score) else human_duration(score)


def _busy(result: SimulationResult, queue: str) -> list[ShareResult]:
    return [s for s in result.shares if s.queue == queue and s.submitted > 0]


def _p95(share: ShareResult) -> float:
    return share.wait.p95 if share.wait is not None else math.inf


def worsened(
    before: SimulationResult, after: SimulationResult, queue: str, max_worse: float
) -> list[str]:
    """The shares whose p95 wait ``after`` is worse than ``before`` by more than allowed."""
    old = {s.share: _p95(s) for s in _busy(before, queue)}
    found = []
    for share in _busy(after, queue):
        was, now = old.get(share.share, math.inf), _p95(share)
        if math.isinf(was) or now <= was + max(WAIT_FLOOR, was * max_worse / 100):
            continue
        found.append(
            f"{share.label}'s p95 wait gets worse by more than {max_worse:g}%:"
            f" {human_duration(was)} \u2192 "
            f"{'never' if math.isinf(now) else human_duration(now)}"
        )
    return found


STRANDS = "strands work: "
"""How a stranding refusal's reason begins (``TuneResult.stranded`` counts them)."""


def not_run(result: SimulationResult, queue: str) -> int:
    """Jobs of the tuned queue that never ran: never started, or terminated before running."""
    return sum(s.not_run for s in _busy(result, queue))


def stranded(before: SimulationResult, after: SimulationResult, queue: str) -> list[str]:
    """Why ``after`` strands work that ``before`` does: per share of ``queue``, jobs it no
    longer runs, or jobs it makes misconfigured."""
    old = {s.share: s for s in _busy(before, queue)}
    found = []
    for share in _busy(after, queue):
        was = old.get(share.share)
        if was is None:
            continue
        lost = no_longer_run(was, share)
        if lost:
            found.append(
                f"{STRANDS}{share.label} no longer runs {lost:,} of its {share.submitted:,}"
                f" jobs (finished {was.finished:,} \u2192 {share.finished:,})"
            )
        elif share.misconfigured > was.misconfigured:
            found.append(
                f"{STRANDS}{share.label} has {share.misconfigured - was.misconfigured:,} more"
                " misconfigured jobs (they can never run)"
            )
    return found
