"""A replay ends at its horizon: ``--horizon`` after the last submission (30 days unless
told), or earlier when every job has finished. What has not finished then is stuck, and a job
that never started by then waits forever, in every wait figure.
"""

from __future__ import annotations

import io
import math

from hypothesis import given, settings, strategies as st

from quotactl.core.engine import QueueModel, ShareModel
from quotactl.core.resources.desired import Strategy
from quotactl.core.simulate import SimulationResult, read_trace, simulate, summarise
from tests.conftest import TEST_TIMING

G5 = "ml.g5.12xlarge"
DAY = 86400.0
# one instance, held by one job at a time
QUEUE = QueueModel("q", {G5: 1}, (ShareModel("a", {G5: 1}, Strategy.RESERVE, team="alpha"),))
HEADER = "submit_time,share,instance_type,count,duration\n"


def run(text: str, horizon: float | None = None) -> SimulationResult:
    """``text``'s rows replayed to ``horizon`` (None: the default)."""
    rows = read_trace(io.StringIO(HEADER + text), "t.csv")
    if horizon is None:
        return summarise(simulate([QUEUE], rows, "t.csv", TEST_TIMING))
    return summarise(simulate([QUEUE], rows, "t.csv", TEST_TIMING, horizon=horizon))


def test_a_job_longer_than_the_default_horizon_is_stuck_and_the_one_behind_never_starts() -> None:
    # a 40-day job from 0 s, a one-minute job behind it at 10 s: 30 days after the last
    # submission the first still runs and the second has not started
    result = run(f"0,a,{G5},1,{40 * DAY:.0f}\n10,a,{G5},1,60\n")
    (alpha,) = result.shares
    assert (alpha.submitted, alpha.finished, alpha.stuck, alpha.never_started) == (2, 0, 2, 1)
    assert alpha.wait is not None
    assert (alpha.wait.started, alpha.wait.p50, alpha.wait.p95) == (1, 0.0, math.inf)
    assert result.end_seconds == 10 + 30 * DAY
    assert alpha.own_hours == (10 + 30 * DAY) / 3600  # used until the horizon


def test_a_longer_horizon_lets_both_finish() -> None:
    result = run(f"0,a,{G5},1,{40 * DAY:.0f}\n10,a,{G5},1,60\n", horizon=60 * DAY)
    (alpha,) = result.shares
    assert (alpha.finished, alpha.stuck, alpha.never_started) == (2, 0, 0)
    assert alpha.wait is not None
    assert alpha.wait.p95 == 40 * DAY - 10
    assert result.end_seconds == 40 * DAY + 60


def test_a_short_horizon_counts_a_started_job_as_stuck_but_its_wait_as_finite() -> None:
    # 10 min from 0 s, 2 h from 10 s (starts at 600 s); an hour after 10 s the second runs
    result = run(f"0,a,{G5},1,600\n10,a,{G5},1,7200\n", horizon=3600)
    (alpha,) = result.shares
    assert (alpha.finished, alpha.stuck, alpha.never_started) == (1, 1, 0)
    assert alpha.wait is not None
    assert alpha.wait.p95 == 590.0
    assert result.end_seconds == 3610.0


jobs = st.lists(
    st.tuples(
        st.integers(0, 20_000),  # submit time
        st.sampled_from(["a", "b"]),
        st.integers(1, 3),  # instances (3 is more than a could ever hold: misconfigured)
        st.integers(1, 20_000),  # duration
        st.integers(0, 2),  # priority
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(jobs, st.integers(1, 40_000), st.sampled_from(list(Strategy)))
def test_every_job_is_counted_at_any_horizon_and_a_longer_one_finishes_no_fewer(
    drawn: list[tuple[int, str, int, int, int]], horizon: int, strategy: Strategy
) -> None:
    queue = QueueModel(
        "q",
        {G5: 4},
        (ShareModel("a", {G5: 2}, strategy), ShareModel("b", {G5: 2}, Strategy.LEND_AND_BORROW)),
    )
    text = "submit_time,share,instance_type,count,duration,priority\n" + "".join(
        f"{at},{share},{G5},{count},{duration},{priority}\n"
        for at, share, count, duration, priority in sorted(drawn)
    )

    def replay(until: float) -> SimulationResult:
        rows = read_trace(io.StringIO(text), "t.csv")
        return summarise(simulate([queue], rows, "t.csv", TEST_TIMING, horizon=until))

    short, long = replay(horizon), replay(10 * horizon)
    last = max(at for at, *_ in drawn)
    for result in (short, long):
        assert result.end_seconds <= last + 0.001 * len(drawn) + (
            horizon if result is short else 10 * horizon
        )
        for share in result.shares:
            assert share.submitted == share.finished + share.failed + share.terminated + share.stuck
            assert share.failed >= 0
            assert share.never_started <= share.stuck
            if share.wait is not None:
                assert share.wait.started + share.wait.never_started == share.submitted
    for before, after in zip(short.shares, long.shares, strict=True):
        assert after.finished >= before.finished
        assert after.never_started <= before.never_started
