"""A recorded simulation's timeline: the series a report draws agree with the run's totals.

The hand-checked trace of ``test_simulation.py`` (alpha borrows two of beta's instances at
0 s, its four jobs 1 ms apart as rows with one submit time are, beta reclaims one at 1800 s),
then random traces: recording changes no result, the
instance-seconds per interval add up to what the run used and lent, every preemption and
started job is counted once, and no interval's peak exceeds what the share could hold.
"""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings, strategies as st

from quotactl.core.engine import QueueModel, ShareModel
from quotactl.core.resources.desired import Strategy
from quotactl.core.simulate import SimulationResult, read_trace, simulate, summarise
from quotactl.core.simulate.metrics import HOUR
from quotactl.core.simulate.timeline import WAIT_BINS, Timeline, wait_histogram
from tests.conftest import TEST_TIMING

G5, P5 = "ml.g5.12xlarge", "ml.p5.48xlarge"
QUEUE = QueueModel(
    "q",
    {G5: 4},
    (
        ShareModel("a", {G5: 2}, Strategy.LEND_AND_BORROW, team="alpha"),
        ShareModel("b", {G5: 2}, Strategy.LEND, team="beta"),
    ),
)
TRACE = "submit_time,share,instance_type,count,duration\n" + "".join(
    [*(["0,a,ml.g5.12xlarge,1,3600\n"] * 4), "1800,b,ml.g5.12xlarge,1,3600\n"]
)


def run(queues: list[QueueModel], text: str, *, record: bool) -> SimulationResult:
    rows = read_trace(io.StringIO(text), "t.csv")
    return summarise(simulate(queues, rows, "t.csv", TEST_TIMING, record=record))


def timeline(result: SimulationResult) -> Timeline:
    assert result.timeline is not None
    return result.timeline


def test_the_hand_checked_trace_draws_the_borrowing_and_the_reclaim() -> None:
    result = run([QUEUE], TRACE, record=True)
    drawn = timeline(result)
    alpha, beta = drawn.shares
    (a_usage,) = alpha.usage
    (b_usage,) = beta.usage
    # alpha held 4 (2 own, 2 borrowed) until 1800 s, then 3; nothing after 7200 s
    assert (a_usage.limit, max(a_usage.high), min(a_usage.low)) == (2, 4, 0)
    at = int(900 // drawn.width)
    assert a_usage.high[at] == a_usage.low[at] == 4
    assert sum(alpha.preemptions) == 1
    assert sum(beta.preemptions) == 0
    # lent (worked out in test_simulation.py): 1.5 h but for 4 ms of one instance
    assert sum(b_usage.lent) / HOUR == beta_lent(result)
    assert beta_lent(result) == pytest.approx((1.5 * HOUR - 0.004) / HOUR, rel=1e-12)
    assert not any(a_usage.lent)  # LEND_AND_BORROW lends too, but alpha never sat idle
    assert alpha.waits == (4, 0, 0, 0, 0, 0, 0, 0)  # the last bin: never started
    used = sum(drawn.queues[0].used) / HOUR
    assert used == sum(s.own_hours + s.borrowed_hours for s in result.shares)
    assert used == pytest.approx(5.5 - 0.003 / HOUR)  # a4's first attempt began 3 ms late
    assert drawn.end == 7200.0


def beta_lent(result: SimulationResult) -> float:
    return next(s.lent_hours for s in result.shares if s.share == "b")


def test_a_run_without_recording_has_no_timeline_and_the_same_results() -> None:
    plain = run([QUEUE], TRACE, record=False)
    recorded = run([QUEUE], TRACE, record=True)
    assert plain.timeline is None
    assert (plain.shares, plain.queues) == (recorded.shares, recorded.queues)


def test_the_wait_histogram_puts_each_wait_in_one_bin() -> None:
    waits = sorted([0.0, 60.0, 61.0, 3600.0, 86400.0 * 8, *WAIT_BINS])
    counts = wait_histogram(waits, never=2)
    assert len(counts) == len(WAIT_BINS) + 2
    assert sum(counts) == len(waits) + 2
    assert counts[0] == 3  # 0 s, 60 s and the edge 60 s: "at most a minute"
    assert counts[-2] == 1  # eight days
    assert counts[-1] == 2  # never started: every job counts


jobs = st.lists(
    st.tuples(
        st.integers(0, 200_000),  # submit time
        st.sampled_from(["a", "b", "c"]),
        st.sampled_from([G5, P5]),
        st.integers(1, 3),
        st.integers(1, 30_000),  # duration
        st.integers(0, 3),  # priority
    ),
    min_size=1,
    max_size=80,
)
shares = st.lists(st.sampled_from(list(Strategy)), min_size=3, max_size=3)


@settings(max_examples=40, deadline=None)
@given(jobs, shares)
def test_recorded_series_add_up_to_the_totals(
    rows: list[tuple[int, str, str, int, int, int]], strategies: list[Strategy]
) -> None:
    queue = QueueModel(
        "q",
        {G5: 6, P5: 3},
        tuple(
            ShareModel(name, {G5: 2, P5: 1}, strategy, in_share_preemption=name == "c")
            for name, strategy in zip("abc", strategies, strict=True)
        ),
    )
    text = "submit_time,share,instance_type,count,duration,priority\n" + "".join(
        f"{t},{s},{i},{n},{d},{p}\n" for t, s, i, n, d, p in sorted(rows)
    )
    plain = run([queue], text, record=False)
    recorded = run([queue], text, record=True)
    assert (plain.shares, plain.queues) == (recorded.shares, recorded.queues)
    drawn = timeline(recorded)
    used = sum(drawn.queues[0].used) / HOUR
    assert abs(used - sum(s.own_hours + s.borrowed_hours for s in recorded.shares)) < 1e-6
    for share, result in zip(drawn.shares, recorded.shares, strict=True):
        assert sum(share.preemptions) == result.preemptions
        started = result.wait.started if result.wait else 0
        assert sum(share.waits) == started + result.not_run  # every job counts
        lent = sum(sum(u.lent) for u in share.usage) / HOUR
        assert abs(lent - result.lent_hours) < 1e-6
        for usage in share.usage:
            assert len(usage.low) == len(usage.high) == len(drawn.queues[0].used)
            assert all(0 <= lo <= hi for lo, hi in zip(usage.low, usage.high, strict=True))
            assert max(usage.high) <= (6 if usage.instance_type == G5 else 3)
