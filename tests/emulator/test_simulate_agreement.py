"""`simulate` and the emulator give the same schedule: one trace replayed through both, every
job's attempts compared to the second (startedAt and stoppedAt, preemptions included).

The emulator gets the trace as a client would send it: each job submitted through boto3 at its
submit time, with its run time in the `quotactl:duration` tag, the clock moved on between
submissions as `local advance` does.

A job that can never run (MISCONFIGURATION) is terminated by the demo queue's
`runnable_timeout` in both, an hour after it was submitted, and the jobs behind it run then.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hypothesis import HealthCheck, example, given, settings, strategies as st

import quotactl
from quotactl import api
from quotactl.aws.session import Target, client, make_session
from quotactl.core.engine import TIMING
from quotactl.core.simulate.queues import queue_models
from quotactl.core.simulate.schedule import attempts
from quotactl.core.simulate.simulator import simulate
from quotactl.emulator import Emulator
from tests.conftest import TEST_TIMING
from tests.emulator.emulator_support import payload

if TYPE_CHECKING:
    from quotactl.core.simulate.trace import TraceRow

DEMO = Path(__file__).resolve().parents[2] / "configs" / "demo"
P5, G5 = "ml.p5.48xlarge", "ml.g5.12xlarge"
KINDS = (  # (share, instance type, most instances a job may ask for) in configs/demo
    ("nlp", P5, 3),
    ("research", P5, 2),  # a LEND share's limit: 3 would be MISCONFIGURATION
    ("research", G5, 3),
    ("vision-experiments", P5, 3),
    ("vision-experiments", G5, 3),
    ("ranking", G5, 3),
)
Schedule = dict[str, list[tuple[float | None, float | None]]]


def _payload(instance_type: str, count: int) -> str:
    return payload(instance_type, count, max_runtime=86400)


def _emulated(
    state: Path, rows: list[TraceRow], outcomes: dict[str, str] | None = None
) -> Schedule:
    """Replay ``rows`` through the emulator; every job's attempts, in trace seconds (and in
    ``outcomes`` each job's final status, ``TERMINATED`` for one its queue terminated)."""
    desired = api.load([DEMO]).desired
    with quotactl.connect("local", state=state) as account:
        result = api.apply(account, desired, show=lambda plan: None, approve=lambda plan: None)
        assert result is not None
        assert result.ok
    emulator = Emulator(state, timing=TIMING)  # the default, whatever the suite chose
    target = Target("local", state, timing=TEST_TIMING)
    batch = client(target, session=make_session(target, emulator=emulator))
    try:
        emulator.advance(60)  # nothing is due: the account settles
        start = _clock(emulator)
        ids: dict[str, str] = {}
        now = 0.0
        for submit_time, share, itype, count, duration, priority, name, _ in rows:
            if submit_time > now:
                emulator.advance(submit_time - now)
                now = submit_time
            out = batch.submit_service_job(
                jobName=name,
                jobQueue="training",
                serviceJobType="SAGEMAKER_TRAINING",
                serviceRequestPayload=_payload(itype, count),
                quotaShareName=share,
                schedulingPriority=priority,
                tags={"quotactl:duration": str(int(duration))},
            )
            ids[name] = out["jobId"]
        emulator.advance(10 * 86400)
        found: Schedule = {}
        for name, job_id in ids.items():
            job = batch.describe_service_job(jobId=job_id)
            found[name] = [
                (_seconds(a.get("startedAt"), start), _seconds(a.get("stoppedAt"), start))
                for a in job.get("attempts", [])
            ]
            if outcomes is not None:
                terminated = job.get("isTerminated") and job["status"] == "FAILED"
                outcomes[name] = "TERMINATED" if terminated else job["status"]
        return found
    finally:
        batch.close()
        emulator.close()


def _clock(emulator: Any) -> float:
    """The emulated time now, in epoch seconds."""
    with emulator.store.transaction(write=False) as tx:
        _, _, clock, _ = tx.account_row()
        return float(clock.at(emulator.wall()))


def _seconds(value: Any, start: float) -> float | None:
    if value is None:
        return None
    return round(int(value) / 1000 - start, 3)  # epoch milliseconds


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _simulated(rows: list[TraceRow]) -> Schedule:
    queues = queue_models(api.load([DEMO]).desired)
    return {
        name: [(_rounded(a), _rounded(b)) for a, b in runs]
        for name, runs in attempts(queues, iter(rows), "trace", TIMING).items()
    }


Drawn = tuple[int, tuple[str, str], int, int, int]


def _row(kind: tuple[str, str, int]) -> st.SearchStrategy[Drawn]:
    return st.tuples(
        st.integers(1, 600),  # seconds after the previous submission
        st.just(kind[:2]),
        st.integers(1, kind[2]),  # instances
        st.integers(60, 3600),  # duration
        st.integers(0, 3),  # priority
    )


row_st = st.sampled_from(KINDS).flatmap(_row)
# nlp borrows every idle p5 of research and vision; research takes its own back 100 s later
RECLAIM: list[Drawn] = [
    (1, ("nlp", P5), 3, 3600, 1),
    (1, ("nlp", P5), 3, 3600, 2),
    (1, ("nlp", P5), 2, 3600, 2),
    (100, ("research", P5), 2, 600, 0),
]


def _trace(drawn: list[Drawn]) -> list[TraceRow]:
    rows: list[TraceRow] = []
    at = 0.0
    for line, (gap, (share, itype), count, duration, priority) in enumerate(drawn, start=2):
        at += gap
        rows.append((at, share, itype, count, float(duration), priority, f"j{line}", line))
    return rows


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(row_st, min_size=5, max_size=40))
@example(RECLAIM)
def test_the_emulator_runs_a_trace_exactly_as_simulate_replays_it(drawn: list[Drawn]) -> None:
    rows = _trace(drawn)
    with tempfile.TemporaryDirectory() as folder:
        emulated = _emulated(Path(folder) / "state.db", rows)
    assert emulated == _simulated(rows)


@settings(max_examples=25, deadline=None)
@given(st.lists(row_st, min_size=1, max_size=12))
@example(RECLAIM)
def test_simulate_waits_are_the_first_starts_of_the_attempts(drawn: list[Drawn]) -> None:
    """A wait is the first attempt that started (left SCHEDULED) minus the submission: an
    attempt preempted while SCHEDULED, in its window too, never started and counts none."""
    rows = _trace(drawn)
    queues = queue_models(api.load([DEMO]).desired)
    submitted = {row[6]: (row[1], row[0]) for row in rows}
    expected: dict[str, list[float]] = {}
    for name, runs in attempts(queues, iter(rows), "trace", TIMING).items():
        starts = [start for start, _ in runs if start is not None]
        if starts:
            share, at = submitted[name]
            expected.setdefault(share, []).append(round(starts[0] - at, 6))
    totals = simulate(queues, iter(rows), "trace", TIMING)
    reported = {
        raw.share.name: sorted(round(w, 6) for w in raw.waits)
        for shares in totals.shares
        for raw in shares
        if raw.waits
    }
    assert reported == {share: sorted(waits) for share, waits in expected.items()}


def test_a_reclaim_is_the_same_preemption_in_both() -> None:
    """The example above, spelled out: nlp's lowest-priority job is preempted at the same
    second in both, and runs again when capacity is back."""
    rows = _trace(RECLAIM)
    with tempfile.TemporaryDirectory() as folder:
        emulated = _emulated(Path(folder) / "state.db", rows)
    assert len(emulated["j2"]) == 2  # preempted once, then run again
    # chosen when research's job arrives (at 103 s), it stops when its 20 s window ends
    assert emulated["j2"][0][1] == 103.0 + 20.0
    assert emulated == _simulated(rows)


MISCONFIGURED_KINDS = (  # asking for more than the share could ever hold
    ("research", P5, 3),  # research LENDs: 3 p5 is over its limit of 2
    ("ranking", G5, 9),
)
row_or_misconfigured_st = st.one_of(row_st, st.sampled_from(MISCONFIGURED_KINDS).flatmap(_row))
# research's 3-instance job can never run; its next job waits for the queue's runnable
# timeout (an hour), then runs; nlp's is untouched
BLOCKED: list[Drawn] = [
    (1, ("research", P5), 3, 600, 0),
    (10, ("research", P5), 1, 600, 0),
    (10, ("nlp", P5), 1, 600, 0),
]


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(row_or_misconfigured_st, min_size=3, max_size=25))
@example(BLOCKED)
def test_a_misconfigured_job_is_terminated_by_the_runnable_timeout_in_both(
    drawn: list[Drawn],
) -> None:
    rows = _trace(drawn)
    outcomes: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as folder:
        emulated = _emulated(Path(folder) / "state.db", rows, outcomes)
    assert {n: a for n, a in emulated.items() if a} == _simulated(rows)
    queues = queue_models(api.load([DEMO]).desired)
    totals = simulate(queues, iter(rows), "trace", TIMING)
    shares = {raw.share.name: raw for per_queue in totals.shares for raw in per_queue}
    share_of = {row[6]: row[1] for row in rows}
    for share, raw in shares.items():
        mine = [outcomes[n] for n, s in share_of.items() if s == share]
        assert raw.terminated == mine.count("TERMINATED")
        assert raw.finished == mine.count("SUCCEEDED")
        assert raw.stuck == 0  # nothing is left waiting: the timeout ends every blocked job


def test_a_blocked_share_runs_again_an_hour_after_its_misconfigured_job() -> None:
    rows = _trace(BLOCKED)
    outcomes: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as folder:
        emulated = _emulated(Path(folder) / "state.db", rows, outcomes)
    assert outcomes == {"j2": "TERMINATED", "j3": "SUCCEEDED", "j4": "SUCCEEDED"}
    assert emulated["j2"] == []
    # j3 (submitted at 11 s) is SCHEDULED when j2 is terminated at 1 + 3600 s, starts 120 s on
    assert emulated["j3"][0][0] == 1.0 + 3600.0 + 120.0
    assert {n: a for n, a in emulated.items() if a} == _simulated(rows)


def test_a_job_described_right_after_submit_is_still_being_provisioned(tmp_path: Path) -> None:
    """Start-up takes emulated time, as on AWS while SageMaker provisions the instances."""
    rows: list[TraceRow] = [(0.0, "nlp", P5, 1, 600.0, 0, "first", 2)]
    emulated = _emulated(tmp_path / "state.db", rows)
    [(started, stopped)] = emulated["first"]
    assert started == 120.0  # SCHEDULED for 120 s: startedAt is when it goes STARTING
    assert stopped == 120.0 + 30.0 + 600.0  # STARTING for 30 s, then 600 s of running


# two jobs of research's at one trace time, behind one that holds its two p5: the row first in
# the trace is named to sort last, so only the order of submission puts it first
SAME_TIME: list[TraceRow] = [
    (1.0, "research", P5, 2, 600.0, 0, "j2", 2),
    (10.0, "research", P5, 2, 600.0, 0, "z-first", 3),
    (10.0, "research", P5, 2, 600.0, 0, "a-second", 4),
]


def test_jobs_at_one_trace_time_start_in_trace_order_in_both(tmp_path: Path) -> None:
    emulated = _emulated(tmp_path / "state.db", SAME_TIME)
    simulated = _simulated(SAME_TIME)
    # j2 holds research's p5s from 1 s (started at 121 s) to 751 s; then z-first, SCHEDULED
    # for 120 s and STARTING for 30 s before its 600 s; then a-second
    assert simulated["z-first"] == [(871.0, 1501.0)]
    assert simulated["a-second"] == [(1621.0, 2251.0)]
    assert emulated == simulated
