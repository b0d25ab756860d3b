"""How ``trace export`` turns live jobs into trace rows, and sorts a history it cannot hold."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings, strategies as st

from quotactl.aws.responses import requested_seconds
from quotactl.core.engine import JobStatus
from quotactl.core.jobs.spec import DEFAULT_MAX_RUNTIME
from quotactl.core.resources.observed import LiveJob
from quotactl.core.simulate.export import (
    ExportTally,
    JobRow,
    job_row,
    sorted_rows,
    trace_of,
)

P5 = "ml.p5.48xlarge"


def job(status: JobStatus, **times: float | None) -> LiveJob:
    return LiveJob("j", "train", "q", "nlp", status, {P5: 2}, **times)  # type: ignore[arg-type]


def test_a_finished_job_runs_for_its_last_attempt() -> None:
    tally = ExportTally()
    row = job_row(
        job(JobStatus.SUCCEEDED, created_at=10, started_at=500, stopped_at=4100), None, 9e9, tally
    )
    assert row == (10, "q/nlp", P5, 2, 3600, 0, "train")
    assert (tally.lower_bounds, tally.upper_bounds) == (0, 0)


def test_a_running_job_gets_its_elapsed_time_as_a_lower_bound() -> None:
    tally = ExportTally()
    row = job_row(job(JobStatus.RUNNING, created_at=0, started_at=100), None, 700, tally)
    assert row is not None
    assert row[4] == 600
    assert tally.lower_bounds == 1


def test_a_queued_job_gets_the_run_time_it_asked_for_as_an_upper_bound() -> None:
    payload = json.dumps({"StoppingCondition": {"MaxRuntimeInSeconds": 7200}})
    tally = ExportTally()
    described = {"serviceRequestPayload": payload, "tags": {}}
    assert job_row(job(JobStatus.RUNNABLE, created_at=0), requested_seconds(described), 50, tally)
    tagged = {"serviceRequestPayload": payload, "tags": {"quotactl:duration": "30m"}}
    durations = [
        row[4]
        for detail in (described, tagged, None)
        if (
            row := job_row(
                job(JobStatus.RUNNABLE, created_at=0), requested_seconds(detail), 50, tally
            )
        )
    ]
    assert durations == [7200, 1800, DEFAULT_MAX_RUNTIME]
    assert tally.upper_bounds == 4


def test_jobs_that_never_ran_or_cannot_be_a_row_are_left_out_and_counted() -> None:
    tally = ExportTally()
    never = job(JobStatus.FAILED, created_at=0, stopped_at=5)
    several = LiveJob("k", "mixed", "q", "nlp", JobStatus.SUCCEEDED, {P5: 1, "ml.g5.xlarge": 1})
    nowhere = LiveJob("m", "plain", "q", None, JobStatus.SUCCEEDED, {P5: 1})
    assert [job_row(j, None, 0, tally) for j in (never, several, nowhere)] == [None] * 3
    assert dict(tally.left_out) == {
        "ended without starting": 1,
        "no single instance type": 1,
        "no quota share": 1,
    }


@settings(deadline=None, max_examples=25)
@given(st.lists(st.integers(0, 50), max_size=60), st.integers(1, 7))
def test_a_history_is_sorted_through_spill_files_whatever_its_order(
    times: list[int], chunk: int
) -> None:
    rows: list[JobRow] = [(float(t), "q/s", P5, 1, 1.0, 0, f"j{i:03}") for i, t in enumerate(times)]
    random.Random(len(rows)).shuffle(rows)
    assert list(sorted_rows(rows, chunk=chunk)) == sorted(rows, key=lambda r: (r[0], r[6]))


def test_trace_times_count_from_the_first_job() -> None:
    tally = ExportTally()
    rows: list[JobRow] = [(1000.0, "q/s", P5, 1, 5.0, 0, "b"), (400.0, "q/s", P5, 1, 5.0, 0, "a")]
    assert [(r[0], r[6], r[7]) for r in trace_of(rows, tally)] == [(0.0, "a", 2), (600.0, "b", 3)]
    assert (tally.rows, tally.first, tally.last) == (2, 400.0, 1000.0)
