"""The search: a seeded local search over ``Space``, proposing candidates in fixed batches.

Why a local search rather than a general optimiser: the space is discrete and structured
(instances moved between shares with each type's total kept, a strategy and a borrow limit per
share), so every move can stay inside it, where a sampler that draws each value on its own
would mostly propose configurations that break the totals and must be repaired. The moves are
what an administrator would try by hand, which makes each proposal easy to explain.

How it runs (``docs/tune.md`` has the reasoning):

1. The current configuration is the incumbent; it is simulated first, in the first batch
   with the first of its neighbours.
2. The incumbent's neighbours (``Space.neighbours``: big moves of instances first, halving
   level by level to one instance, and every strategy or borrow-limit switch of one share) are
   shuffled by the seeded generator and proposed ``BATCH`` at a time. When a batch holds a
   better candidate, the best of it becomes the incumbent.
3. When every neighbour at the finest level has been tried without a gain, the search
   restarts from the best of a batch of candidates, each a few random moves away from the
   best so far (iterated local search).
4. A space with no more candidates than the budget is tried in full, in a fixed order: the
   answer is then the exhaustive optimum.

A batch is proposed before any of its results is known and its results are told in proposal
order, so what is proposed next depends only on the seed and the results, never on how many
workers simulated them or in what order they finished. A configuration is simulated once:
trials are kept by fingerprint. Ctrl-C stops the search with the trials it has.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from quotactl.core.tune.objective import Objective, not_run, stranded, worsened
from quotactl.core.tune.result import Trial, TuneResult
from quotactl.core.tune.space import fingerprint

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.simulate.metrics import SimulationResult
    from quotactl.core.tune.space import Candidate, Space

BATCH = 8
"""Candidates proposed together: fixed, so the search is the same on any number of workers."""
KICKS = (2, 4)
"""The least and most random moves of a restart."""
RESTART_TRIES = 64


class Constraints(Protocol):
    """What makes a candidate unproposable: rules over the configuration and over its replay."""

    def before(self, desired: DesiredState) -> tuple[str, ...]: ...

    def after(self, desired: DesiredState, result: SimulationResult) -> tuple[str, ...]: ...


class Unconstrained:
    def before(self, desired: DesiredState) -> tuple[str, ...]:
        return ()

    def after(self, desired: DesiredState, result: SimulationResult) -> tuple[str, ...]:
        return ()


@dataclass(frozen=True)
class Settings:
    objective: Objective = Objective.WORST_P95
    budget: int = 50
    seed: int = 1
    max_worse: float = 10.0


def search(
    desired: DesiredState,
    space: Space,
    settings: Settings,
    evaluate: Callable[[Sequence[DesiredState]], Sequence[SimulationResult]],
    constraints: Constraints | None = None,
    on_trial: Callable[[Trial, Trial], None] | None = None,
) -> TuneResult:
    """Search ``space`` for the best configuration of ``desired`` within ``settings.budget``
    simulations; ``evaluate`` replays a batch of configurations (each with the policies it
    holds, as the executor was told to apply them), ``on_trial`` hears each trial with the best
    so far."""
    run = _Run(desired, space, settings, evaluate, constraints or Unconstrained(), on_trial)
    interrupted = False
    run.seen.add(fingerprint(space, space.current))
    try:
        if space.size(settings.budget) <= settings.budget:
            run.exhaust()
        else:
            run.descend()
    except KeyboardInterrupt:
        if not run.trials:
            raise
        interrupted = True
    return TuneResult(
        queue=space.queue,
        objective=settings.objective,
        seed=settings.seed,
        budget=settings.budget,
        space=space,
        current=run.trials[0],
        trials=tuple(run.trials),
        refused=run.refused,
        exhaustive=run.exhaustive,
        interrupted=interrupted,
    )


class _Run:
    def __init__(
        self,
        desired: DesiredState,
        space: Space,
        settings: Settings,
        evaluate: Callable[[Sequence[DesiredState]], Sequence[SimulationResult]],
        constraints: Constraints,
        on_trial: Callable[[Trial, Trial], None] | None,
    ) -> None:
        self.desired = desired
        self.space = space
        self.settings = settings
        self.evaluate = evaluate
        self.constraints = constraints
        self.on_trial = on_trial
        self.rng = random.Random(settings.seed)
        self.seen: set[str] = set()
        self.trials: list[Trial] = []
        self.refused = 0
        self.exhaustive = False
        self.best: Trial | None = None

    @property
    def left(self) -> int:
        return self.settings.budget - len(self.trials)

    def exhaust(self) -> None:
        self.exhaustive = True
        batch: list[Candidate] = [self.space.current]
        for candidate in self.space.points():
            if self._admit(candidate):
                batch.append(candidate)
            if len(batch) == BATCH:
                self.tell(batch)
                batch = []
        if batch:
            self.tell(batch)

    def descend(self) -> None:
        current = self.space.current
        level = 0
        pool: list[Candidate] | None = self.space.neighbours(current, level)
        assert pool is not None
        self.rng.shuffle(pool)
        # the first batch: the current configuration and the first of its neighbours
        told = self.tell([current, *self._take(pool, min(BATCH, self.left) - 1)])
        incumbent = told[0]
        if told[1:] and _merit(winner := min(told[1:], key=_merit)) < _merit(incumbent):
            incumbent, pool = winner, None
        while self.left > 0:
            if pool is None:
                pool = self.space.neighbours(incumbent.candidate, level)
                self.rng.shuffle(pool)
            batch = self._take(pool, min(BATCH, self.left))
            if batch:
                told = self.tell(batch)
                winner = min(told, key=_merit)
                if _merit(winner) < _merit(incumbent):
                    incumbent, pool = winner, None
                continue
            pool = None
            if level + 1 < self.space.levels:
                level += 1
                continue
            starts = self._restarts(min(BATCH, self.left))
            if not starts:
                return  # nothing new within reach: the reachable space is spent
            incumbent, level = min(self.tell(starts), key=_merit), 0

    def _take(self, pool: list[Candidate], n: int) -> list[Candidate]:
        batch: list[Candidate] = []
        while pool and len(batch) < n:
            candidate = pool.pop(0)
            if self._admit(candidate):
                batch.append(candidate)
        return batch

    def _admit(self, candidate: Candidate) -> bool:
        """Whether ``candidate`` is new and breaks no rule over the configuration (it is then
        marked seen, so it is never proposed again)."""
        key = fingerprint(self.space, candidate)
        if key in self.seen:
            return False
        self.seen.add(key)
        if self.constraints.before(self.space.apply(self.desired, candidate)):
            self.refused += 1
            return False
        return True

    def _restarts(self, n: int) -> list[Candidate]:
        """Up to ``n`` new candidates, each a few random moves away from the best so far."""
        assert self.best is not None
        found: list[Candidate] = []
        for _ in range(RESTART_TRIES):
            candidate = self.best.candidate
            for _ in range(self.rng.randint(*KICKS)):
                moves = self.space.neighbours(candidate, self.rng.randrange(self.space.levels))
                if moves:
                    candidate = self.rng.choice(moves)
            if self._admit(candidate):
                found.append(candidate)
                if len(found) == n:
                    break
        return found

    def tell(self, batch: Sequence[Candidate]) -> list[Trial]:
        """Simulate ``batch`` and record its trials in proposal order."""
        desireds = [self.space.apply(self.desired, c) for c in batch]
        results = self.evaluate(desireds)
        told = []
        queue, objective = self.space.queue, self.settings.objective
        for candidate, desired, result in zip(batch, desireds, results, strict=True):
            index = len(self.trials)
            violations = self.constraints.after(desired, result)
            if index == 0:  # every other candidate passed the static rules to be proposed
                violations = self.constraints.before(desired) + violations
            else:
                reference = self.trials[0].result
                violations += tuple(stranded(reference, result, queue))
                violations += tuple(worsened(reference, result, queue, self.settings.max_worse))
            key = fingerprint(self.space, candidate)
            self.seen.add(key)
            score = objective.score(result, queue)
            trial = Trial(
                index, candidate, key, desired, result, score, violations, not_run(result, queue)
            )
            self.trials.append(trial)
            told.append(trial)
            if self.best is None or _merit(trial) < _merit(self.best):
                self.best = trial
            if self.on_trial is not None:
                self.on_trial(trial, self.best)
        return told


def _merit(trial: Trial) -> tuple[bool, int, float, float, int, int]:
    """Feasible first, then the rank of ``Trial``."""
    return (not trial.feasible, *trial.rank)
