"""The search: deterministic for a seed, each configuration simulated once, the exhaustive
optimum on a small space, totals kept by every move, and Ctrl-C keeping the best so far."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings, strategies as st

from quotactl.api.tuning import read_rows
from quotactl.config.load import load_config
from quotactl.core.engine import Timing
from quotactl.core.simulate import queue_models
from quotactl.core.tune import Knob, Settings, Space, fingerprint, replay, search
from tests.tune.support import write_config, write_trace

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.simulate import SimulationResult, TraceRow

TIMING = Timing()


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[DesiredState, list[TraceRow]]:
    folder = tmp_path_factory.mktemp("tune")
    desired = load_config([write_config(folder)]).desired
    return desired, read_rows(write_trace(folder / "t.csv", days=4))


class Counting:
    """An executor that replays in this process and counts what it was asked."""

    def __init__(self, rows: list[TraceRow]) -> None:
        self.rows = rows
        self.asked: list[DesiredState] = []

    def __call__(self, batch: Sequence[DesiredState]) -> list[SimulationResult]:
        self.asked += batch
        return [replay(tuple(queue_models(d)), self.rows, "t.csv", TIMING) for d in batch]


def test_same_seed_same_search_and_no_configuration_twice(
    setup: tuple[DesiredState, list[TraceRow]],
) -> None:
    desired, rows = setup
    space = Space.of(desired, "training")
    runs = []
    for _ in range(2):
        counting = Counting(rows)
        result = search(desired, space, Settings(budget=30, seed=7), counting)
        runs.append([t.fingerprint for t in result.trials])
        assert len(counting.asked) == len(result.trials) == 30
        assert len(set(runs[-1])) == 30
    assert runs[0] == runs[1]
    other = search(desired, space, Settings(budget=30, seed=8), Counting(rows))
    assert [t.fingerprint for t in other.trials] != runs[0]


def test_a_small_space_is_tried_in_full(setup: tuple[DesiredState, list[TraceRow]]) -> None:
    desired, rows = setup
    space = Space.of(desired, "training", vary=[Knob.CAPACITY])
    size = space.size(1000)
    assert size == 15  # 1..15 instances for research, the rest for nlp
    result = search(desired, space, Settings(budget=100), Counting(rows))
    assert result.exhaustive
    assert len(result.trials) == size
    every = {fingerprint(space, c) for c in space.points()}
    assert {t.fingerprint for t in result.trials} == every
    feasible = [t for t in result.trials if t.feasible and t.index > 0]
    assert result.best is min(feasible, key=lambda t: t.rank)


@settings(max_examples=40, deadline=None)
@given(level=st.integers(0, 4), walk=st.lists(st.integers(0, 10_000), max_size=6))
def test_every_move_keeps_the_totals_and_the_bounds(
    setup: tuple[DesiredState, list[TraceRow]], level: int, walk: list[int]
) -> None:
    desired, _ = setup
    space = Space.of(desired, "training")
    candidate = space.current
    for pick in walk:
        moves = space.neighbours(candidate, level)
        candidate = moves[pick % len(moves)]
        changed = space.apply(desired, candidate)
        ps = [s for s in changed.shares if s.queue == "training"]
        assert sum(s.capacity["ml.p5.48xlarge"] for s in ps) == 16
        assert all(1 <= s.capacity["ml.p5.48xlarge"] <= 16 for s in ps)
        assert all(s.strategy.borrows or s.borrow_limit == -1 for s in ps)
        assert queue_models(changed)


def test_ctrl_c_keeps_the_best_so_far(setup: tuple[DesiredState, list[TraceRow]]) -> None:
    desired, rows = setup
    counting = Counting(rows)

    def interrupted(batch: Sequence[DesiredState]) -> list[SimulationResult]:
        if len(counting.asked) >= 17:
            raise KeyboardInterrupt
        return counting(batch)

    result = search(desired, Space.of(desired, "training"), Settings(budget=50), interrupted)
    assert result.interrupted
    assert 0 < len(result.trials) < 50
    assert result.best is not None


def test_the_fixed_teams_and_the_rules_are_never_proposed(
    setup: tuple[DesiredState, list[TraceRow]],
) -> None:
    desired, rows = setup

    class KeepResearch:
        def before(self, changed: DesiredState) -> tuple[str, ...]:
            research = next(s for s in changed.shares if s.name == "research")
            return ("research below 6",) if research.capacity["ml.p5.48xlarge"] < 6 else ()

        def after(self, changed: DesiredState, result: SimulationResult) -> tuple[str, ...]:
            return ()

    space = Space.of(desired, "training")
    result = search(desired, space, Settings(budget=40), Counting(rows), KeepResearch())
    assert result.refused > 0
    for trial in result.trials:
        research = next(s for s in trial.desired.shares if s.name == "research")
        assert research.capacity["ml.p5.48xlarge"] >= 6
    fixed = Space.of(desired, "training", fixed=["research"])
    assert [s.spec.name for s in fixed.shares] == ["nlp"]
