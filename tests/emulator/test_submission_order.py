"""Jobs submitted back to back start in the order they were submitted.

Between two ``local advance`` the emulated clock stands still, so jobs submitted one after
the other would share a ``createdAt`` and be ordered by their random job IDs (for two jobs,
the later one first half the time). The emulator gives each submission a ``createdAt`` 1 ms
after the one before and moves its clock with it. Eight jobs in one share that holds one at
a time: with random IDs they would start in submission order once in 40,320 runs.
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING

from quotactl.emulator import Emulator
from tests.conftest import TEST_TIMING
from tests.emulator.emulator_support import make_queue, payload

if TYPE_CHECKING:
    from tests.emulator.conftest import Account

JOBS = 8


def test_jobs_submitted_back_to_back_start_in_submission_order(inproc: Account) -> None:
    batch = inproc.client
    make_queue(batch, "q", shares={"a": {"limit": 1}})
    ids = [
        batch.submit_service_job(
            jobName=f"job-{i}",
            jobQueue="q",
            serviceJobType="SAGEMAKER_TRAINING",
            serviceRequestPayload=payload(max_runtime=60),
            quotaShareName="a",
        )["jobId"]
        for i in range(JOBS)
    ]
    created = [batch.describe_service_job(jobId=j)["createdAt"] for j in ids]
    assert [b - a for a, b in pairwise(created)] == [1] * (JOBS - 1)
    with Emulator(inproc.state, timing=TEST_TIMING) as emulator:
        assert round(emulator.now() * 1000) >= created[-1]  # the clock moved with them
    inproc.advance(JOBS * 600)
    jobs = [batch.describe_service_job(jobId=j) for j in ids]
    assert [j["status"] for j in jobs] == ["SUCCEEDED"] * JOBS
    started = sorted(jobs, key=lambda j: j["startedAt"])
    assert [j["jobName"] for j in started] == [f"job-{i}" for i in range(JOBS)]
