"""Simulating traces: outcomes a platform admin reads off the report, on hand-checked traces.

The small trace below is worked out by hand in ``test_sharing_run_reports_...``: team alpha
(LEND_AND_BORROW, 2 instances) submits four one-hour jobs at 0 s, team beta (LEND, 2) one at
1800 s, and reclaims one of the two instances alpha borrowed from it. Rows with one submit
time keep their trace order, as the emulator keeps jobs submitted back to back: alpha's four
are submitted 1 ms apart (``MS``), so its figures miss whole hours by a few milliseconds.
"""

from __future__ import annotations

import io
import math
from dataclasses import replace

import pytest

from quotactl.core.engine import QueueModel, ShareModel
from quotactl.core.resources.desired import Strategy
from quotactl.core.simulate import (
    Replay,
    Side,
    SimulationResult,
    compare,
    generate_trace,
    human_duration,
    read_trace,
    simulate,
    summarise,
    write_trace,
)
from quotactl.core.simulate.schedule import attempts
from quotactl.errors import TraceError
from tests.conftest import TEST_TIMING

G5 = "ml.g5.12xlarge"
QUEUE = QueueModel(
    "q",
    {G5: 4},
    (
        ShareModel("a", {G5: 2}, Strategy.LEND_AND_BORROW, team="alpha"),
        ShareModel("b", {G5: 2}, Strategy.LEND, team="beta"),
    ),
)
TRACE = """submit_time,share,instance_type,count,duration
0,a,ml.g5.12xlarge,1,3600
0,a,ml.g5.12xlarge,1,3600
0,a,ml.g5.12xlarge,1,3600
0,a,ml.g5.12xlarge,1,3600
1800,b,ml.g5.12xlarge,1,3600
"""
MS = 0.001  # between rows with one submit time
STARTUP = TEST_TIMING.scheduled_seconds  # a wait ends when the attempt leaves SCHEDULED


def run(queues: list[QueueModel], text: str) -> SimulationResult:
    return summarise(simulate(queues, read_trace(io.StringIO(text), "t.csv"), "t.csv", TEST_TIMING))


def test_sharing_run_reports_borrowing_lending_and_the_reclaim() -> None:
    result = run([QUEUE], TRACE)
    alpha, beta = result.shares
    # 0, 1, 2, 3 ms: a1, a2 on alpha's own instances, a3, a4 on beta's idle ones. 1800 s:
    # beta's job reclaims one: a4 (the latest started) is preempted after 1800 s - 3 ms.
    # 3600 s: a1 ends and a4 restarts on alpha's own capacity (ends at 7200 s); a2 and a3 end
    # 1 and 2 ms later.
    assert (alpha.finished, alpha.preemptions) == (4, 1)
    assert alpha.preempted_hours == pytest.approx((1800 - 3 * MS) / 3600, rel=1e-12)
    assert alpha.wait is not None
    assert alpha.wait.p95 == 0.0
    # borrowed: 1 instance for 1 ms (a3 before a4), 2 until the reclaim, 1 until 3600 s, and
    # 1 for the 1 ms a2 runs beside a3 and the restarted a4
    borrowed = (MS + 2 * (1800 - 3 * MS) + 1800 + MS) / 3600
    used = (4 * 3600 + 1800 - 3 * MS) / 3600  # four full runs and a4's discarded attempt
    assert alpha.borrowed_hours == pytest.approx(borrowed, rel=1e-12)
    assert alpha.own_hours == pytest.approx(used - borrowed, rel=1e-12)
    assert (beta.own_hours, beta.borrowed_hours) == (1.0, 0.0)
    assert beta.lent_hours == pytest.approx(borrowed, rel=1e-12)
    assert alpha.lent_hours == 0.0
    # Until the last submission (1800 s) all 4 claimed instances were busy, but a2-a4 for the
    # 1, 2 and 3 ms before they were submitted.
    assert result.utilisation == pytest.approx((4 * 1800 - 6 * MS) / (4 * 1800), rel=1e-12)
    assert (result.window_seconds, result.end_seconds) == (1800.0, 7200.0)


def test_reserve_baseline_and_the_verdict_say_what_sharing_bought() -> None:
    sharing = run([QUEUE], TRACE)
    baseline = run([QUEUE.with_strategy(Strategy.RESERVE)], TRACE)
    alpha = baseline.shares[0]
    # Without sharing a3 and a4 wait for alpha's own instances (a1 and a2 end at 3600 s and
    # 1 ms after): an hour less the 2 ms each was submitted after a1; beta's sit idle.
    assert alpha.wait is not None
    assert alpha.wait.p50 == 0.0
    assert alpha.wait.p95 == pytest.approx(3600 - 2 * MS)
    assert baseline.utilisation == pytest.approx((2 * 1800 - MS) / (4 * 1800), rel=1e-12)
    reserve = Side("every share RESERVE", (QUEUE.with_strategy(Strategy.RESERVE),), "RESERVE")
    comparison = compare(Replay(reserve, baseline), Replay(Side("config", (QUEUE,)), sharing))
    assert comparison.verdict == (
        "sharing raises utilisation from 50% to 100%; team alpha gains (p95 wait 60 min → 0 s);"
        " no share loses; preemptions 0 → 1 (work lost 0.0 → 0.5 instance-hours)"
    )


def test_misconfigured_job_is_reported_stuck_and_blocks_its_share() -> None:
    text = TRACE.splitlines()[0] + "\n0,b,ml.g5.12xlarge,3,60\n5,b,ml.g5.12xlarge,1,60\n"
    result = run([QUEUE], text)
    beta = result.shares[1]
    assert (beta.submitted, beta.finished, beta.stuck, beta.misconfigured) == (2, 0, 2, 1)
    # neither started: both wait forever, and count
    assert beta.wait is not None
    assert (beta.wait.started, beta.wait.never_started, beta.wait.p95) == (0, 2, math.inf)
    assert (beta.never_started, beta.terminated, beta.failed) == (2, 0, 0)


def test_a_queue_runnable_timeout_terminates_a_misconfigured_job_and_frees_its_share() -> None:
    """As the emulator does: the misconfigured job is terminated an hour after it was
    submitted, and the job behind it runs."""
    queue = replace(
        QUEUE, time_limits=(("MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED", 3600),)
    )
    text = TRACE.splitlines()[0] + "\n0,b,ml.g5.12xlarge,3,60\n5,b,ml.g5.12xlarge,1,60\n"
    beta = run([queue], text).shares[1]
    assert (beta.submitted, beta.finished, beta.terminated, beta.stuck) == (2, 1, 1, 0)
    assert beta.wait is not None
    # the second job starts when the first is gone: 3600 - 5 s after its submission
    assert (beta.wait.started, beta.wait.never_started) == (1, 1)
    assert beta.wait.mean == pytest.approx(3595 + STARTUP)
    assert beta.wait.p50 == pytest.approx(3595 + STARTUP)
    assert beta.wait.p95 == math.inf


@pytest.mark.parametrize(
    ("share", "message"),
    [
        ("gamma", "t.csv:2: no quota share 'gamma' in the configuration"),
        ("q/retired", "t.csv:2: quota share q/retired is disabled"),
    ],
)
def test_rows_for_unknown_or_disabled_shares_are_trace_errors(share: str, message: str) -> None:
    queue = QueueModel("q", {G5: 4}, (*QUEUE.shares, ShareModel("retired", {G5: 1}, enabled=False)))
    text = f"submit_time,share,instance_type,count,duration\n0,{share},{G5},1,60\n"
    with pytest.raises(TraceError) as caught:
        run([queue], text)
    assert caught.value.message.startswith(message)
    if share == "gamma":
        assert caught.value.hint == "shares are q/a, q/b, q/retired"


def test_queues_are_independent_and_need_qualified_share_names() -> None:
    other = QueueModel("eval", {G5: 1}, (ShareModel("a", {G5: 1}, Strategy.LEND_AND_BORROW),))
    text = "submit_time,share,instance_type,count,duration\n0,q/a,ml.g5.12xlarge,2,60\n"
    text += "0,eval/a,ml.g5.12xlarge,1,60\n"
    result = run([QUEUE, other], text)
    assert [(s.queue, s.share, s.finished) for s in result.shares] == [
        ("q", "a", 1),
        ("q", "b", 0),
        ("eval", "a", 1),
    ]
    # the second row is submitted 1 ms after the first: a 1 ms window, in which q/a's job
    # held 2 of q's 4 claimed instances and eval's had not started
    assert [q.utilisation for q in result.queues] == [pytest.approx(0.5), 0.0]
    with pytest.raises(TraceError, match="no quota share 'a'"):
        run([QUEUE, other], text.replace("q/a", "a"))


def test_generated_workload_balances_its_books() -> None:
    out = io.StringIO()
    write_trace(generate_trace([QUEUE], 3000, seed=5), out)
    result = run([QUEUE], out.getvalue())
    assert sum(s.finished for s in result.shares) == 3000
    borrowed = sum(s.borrowed_hours for s in result.shares)
    lent = sum(s.lent_hours for s in result.shares)
    assert borrowed > 0
    assert lent == pytest.approx(borrowed)
    used = sum(s.own_hours + s.borrowed_hours for s in result.shares)
    assert used <= 4 * result.end_seconds / 3600
    assert result.utilisation is not None
    assert 0 < result.utilisation <= 1


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (0, "0 s"),
        (89, "89 s"),
        (90, "2 min"),
        (5399, "90 min"),
        (5400, "1.5 h"),
        (172_799, "48.0 h"),
        (172_800, "2.0 d"),
        (8_640_000, "100 d"),
        (152_686_080, "1,767 d"),
    ],
)
def test_durations_read_at_a_glance(seconds: float, shown: str) -> None:
    assert human_duration(seconds) == shown


def test_rows_with_one_submit_time_keep_their_trace_order() -> None:
    """Two jobs at one trace time queue behind another in a share that holds one at a time:
    the row first in the trace starts first, whatever the names (the job ID, which orders jobs
    submitted in one millisecond), because it is submitted 1 ms before the other, as the
    emulator does."""
    queue = QueueModel("q", {G5: 1}, (ShareModel("a", {G5: 1}, Strategy.RESERVE),))
    text = "submit_time,share,instance_type,count,duration,name\n0,a,ml.g5.12xlarge,1,60,j\n"
    text += "10,a,ml.g5.12xlarge,1,60,zz-first\n10,a,ml.g5.12xlarge,1,60,aa-second\n"
    runs = attempts([queue], read_trace(io.StringIO(text), "t.csv"), "t.csv", TEST_TIMING)
    assert runs == {"j": [(0.0, 60.0)], "zz-first": [(60.0, 120.0)], "aa-second": [(120.0, 180.0)]}
    (a,) = run([queue], text).shares
    assert a.wait is not None  # aa-second waited from 10.001 s to 120 s
    assert a.wait.max == pytest.approx(120 - 10 - MS)
