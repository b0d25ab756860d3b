"""What a search found: every trial in proposal order, the front, and the best.

A plain value: the CLI renders it, a report can read it, and it holds nothing but data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from quotactl.core.tune.objective import STRANDS

if TYPE_CHECKING:
    from collections.abc import Iterable

    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.simulate.metrics import SimulationResult
    from quotactl.core.tune.objective import Objective
    from quotactl.core.tune.space import Candidate, Space


@dataclass(frozen=True)
class Trial:
    """One simulated candidate; ``index`` is its place in proposal order (0: the current)."""

    index: int
    candidate: Candidate
    fingerprint: str
    desired: DesiredState
    result: SimulationResult
    score: float
    violations: tuple[str, ...] = ()
    """Why the candidate may not be proposed: a rule it breaks, a share it serves worse, work
    it strands."""
    not_run: int = 0
    """Jobs of the tuned queue that never ran (never started, or terminated unrun)."""

    @property
    def feasible(self) -> bool:
        return not self.violations

    @property
    def work_lost(self) -> float:
        """Instance-hours of work preemption discarded, over the whole run."""
        return self.result.preempted_hours

    @property
    def stranding(self) -> bool:
        """Refused because it strands work (a share runs fewer of its jobs)."""
        return any(v.startswith(STRANDS) for v in self.violations)

    @property
    def rank(self) -> tuple[int, float, float, int, int]:
        """The order of merit: jobs never run, then the score, then work lost, then
        preemptions, then proposal order."""
        return (
            self.not_run,
            self.score,
            round(self.work_lost, 6),
            self.result.preemptions,
            self.index,
        )


@dataclass(frozen=True)
class TuneResult:
    queue: str
    objective: Objective
    seed: int
    budget: int
    space: Space
    current: Trial
    trials: tuple[Trial, ...]
    """Every simulated candidate in proposal order, the current configuration first."""
    refused: int
    """Candidates a rule refused before any simulation (not counted in the budget)."""
    exhaustive: bool
    """The space was small enough to try every candidate."""
    interrupted: bool

    @property
    def stranded(self) -> int:
        """Simulated candidates refused because they strand work."""
        return sum(1 for t in self.trials if t.index > 0 and t.stranding)

    @property
    def front(self) -> tuple[Trial, ...]:
        """The feasible trials no other beats on both the objective and the work lost, best
        first; the current configuration is left out."""
        return pareto(t for t in self.trials if t.feasible and t.index > 0)

    @property
    def proposals(self) -> tuple[Trial, ...]:
        """The front's trials worth proposing: each beats the current configuration on the
        objective or on work lost (every one, when the current configuration breaks a rule)."""
        now = self.current
        return tuple(
            t
            for t in self.front
            if not now.feasible or t.rank[:2] < now.rank[:2] or t.rank[2] < now.rank[2]
        )

    @property
    def best(self) -> Trial | None:
        """The front's best by the objective (ties: less work lost), if it beats today's (or
        today's breaks a rule)."""
        front = self.front
        if not front:
            return None
        if self.current.feasible and front[0].rank[:4] >= self.current.rank[:4]:
            return None
        return front[0]


def pareto(trials: Iterable[Trial]) -> tuple[Trial, ...]:
    """Non-dominated trials on (score, work lost), by rank; of equal points, the earliest."""
    ordered = sorted(trials, key=lambda t: t.rank)
    front: list[Trial] = []
    for trial in ordered:
        if front and round(trial.work_lost, 6) >= round(front[-1].work_lost, 6):
            continue  # no better on work lost than one at least as good on the objective
        front.append(trial)
    return tuple(front)
