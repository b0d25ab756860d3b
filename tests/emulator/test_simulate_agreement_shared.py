"""`simulate` and the emulator give the same schedule when job queues share an environment.

Two FIFO queues on one `NUM_INSTANCES` environment (one `maxCapacity`, the priority-10 queue
evaluated first) and a quota-share queue on its own environment, where borrowing and
reclaiming run with the default 20 s preemption window: one trace, submitted through boto3
at its submit times, and replayed by ``simulate``'s engine; every job's attempts agree to
the millisecond.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hypothesis import HealthCheck, example, given, settings, strategies as st

from quotactl.aws.session import Target, client, make_session
from quotactl.core.engine import TIMING, QueueModel, ShareModel
from quotactl.core.resources.desired import Strategy
from quotactl.core.simulate.schedule import attempts
from quotactl.emulator import Emulator
from tests.conftest import TEST_TIMING
from tests.emulator.emulator_support import TYPE, make_queue, payload
from tests.emulator.test_queues_as_aws import fifo_environment, fifo_queue
from tests.emulator.test_simulate_agreement import _clock, _rounded, _seconds

if TYPE_CHECKING:
    from quotactl.core.simulate.trace import TraceRow

UNITS = "NUM_INSTANCES"
POOL = "(queue)"  # the one share the engine gives a queue without quota shares
QUEUES = (
    QueueModel("low", {UNITS: 4}, (ShareModel(POOL, {UNITS: 4}),), environment="pool"),
    QueueModel(
        "high", {UNITS: 4}, (ShareModel(POOL, {UNITS: 4}),), environment="pool", priority=10
    ),
    QueueModel(
        "qm",
        {TYPE: 4},
        (
            ShareModel("a", {TYPE: 2}, Strategy.LEND),
            ShareModel("b", {TYPE: 2}, Strategy.LEND_AND_BORROW, borrow_limit=-1),
        ),
        environment="qm-env",
    ),
)
KINDS = (("low", POOL, 3), ("high", POOL, 3), ("qm", "a", 2), ("qm", "b", 4))
Schedule = dict[str, list[tuple[float | None, float | None]]]
Drawn = tuple[int, int, int, int]


def _emulated(state: Path, rows: list[TraceRow]) -> Schedule:
    emulator = Emulator(state, timing=TIMING)
    target = Target("local", state, timing=TEST_TIMING)
    batch = client(target, session=make_session(target, emulator=emulator))
    try:
        fifo_environment(batch, "pool", 4)
        fifo_queue(batch, "low", "pool", priority=1)
        fifo_queue(batch, "high", "pool", priority=10)
        make_queue(
            batch,
            "qm",
            capacity={TYPE: 4},
            shares={
                "a": {"limit": 2, "strategy": "LEND"},
                "b": {"limit": 2, "strategy": "LEND_AND_BORROW", "borrow": -1},
            },
        )
        emulator.advance(60)
        start = _clock(emulator)
        ids: dict[str, str] = {}
        now = 0.0
        for submit_time, ref, _, count, duration, _, name, _ in rows:
            if submit_time > now:
                emulator.advance(submit_time - now)
                now = submit_time
            queue, share = ref.split("/", 1)
            extra: dict[str, Any] = {} if share == POOL else {"quotaShareName": share}
            out = batch.submit_service_job(
                jobName=name,
                jobQueue=queue,
                serviceJobType="SAGEMAKER_TRAINING",
                serviceRequestPayload=payload(TYPE, count, max_runtime=86400),
                tags={"quotactl:duration": str(int(duration))},
                **extra,
            )
            ids[name] = out["jobId"]
        emulator.advance(10 * 86400)
        return {
            name: [
                (_seconds(a.get("startedAt"), start), _seconds(a.get("stoppedAt"), start))
                for a in batch.describe_service_job(jobId=job_id).get("attempts", [])
            ]
            for name, job_id in ids.items()
        }
    finally:
        batch.close()
        emulator.close()


def _simulated(rows: list[TraceRow]) -> Schedule:
    return {
        name: [(_rounded(a), _rounded(b)) for a, b in runs]
        for name, runs in attempts(QUEUES, iter(rows), "trace", TIMING).items()
    }


def _trace(drawn: list[Drawn]) -> list[TraceRow]:
    rows: list[TraceRow] = []
    at = 0.0
    for line, (gap, kind, count, duration) in enumerate(drawn, start=2):
        queue, share, most = KINDS[kind % len(KINDS)]
        at += gap
        unit = UNITS if share == POOL else TYPE
        rows.append(
            (at, f"{queue}/{share}", unit, min(count, most), float(duration), 0, f"j{line}", line)
        )
    return rows


# low fills the pool; high's jobs, submitted later, get every instance low's jobs free first;
# b borrows a's idle capacity and a reclaims it, through a 20 s preemption window
CROWDED: list[Drawn] = [
    (1, 0, 3, 600),
    (1, 0, 2, 600),
    (1, 1, 3, 900),
    (1, 0, 1, 300),
    (1, 3, 4, 3600),
    (200, 2, 2, 600),
]


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.integers(1, 400), st.integers(0, 3), st.integers(1, 4), st.integers(60, 1800)),
        min_size=4,
        max_size=25,
    )
)
@example(CROWDED)
def test_queues_on_one_environment_replay_alike_in_both(drawn: list[Drawn]) -> None:
    rows = _trace(drawn)
    with tempfile.TemporaryDirectory() as folder:
        emulated = _emulated(Path(folder) / "state.db", rows)
    assert emulated == _simulated(rows)


def test_the_crowded_trace_shares_the_pool_and_reclaims_through_a_window() -> None:
    rows = _trace(CROWDED)
    simulated = _simulated(rows)
    # high's 3-instance job waits for low's first jobs although low's 1-instance job came
    # later: the pool is full, and high (priority 10) is evaluated first when it frees
    (high,) = simulated["j4"]
    (first_low,) = simulated["j2"]
    assert high[0] is not None
    assert first_low[1] is not None
    assert high[0] >= first_low[1]
    # b's borrower is preempted 20 s after a's job arrives, and a's job starts then
    borrower, a_job = simulated["j6"], simulated["j7"]
    assert borrower[0][1] == rows[5][0] + 20.0
    assert a_job[0][0] == rows[5][0] + 20.0 + 120.0  # SCHEDULED for 120 s, then startedAt
    with tempfile.TemporaryDirectory() as folder:
        assert _emulated(Path(folder) / "state.db", rows) == simulated
