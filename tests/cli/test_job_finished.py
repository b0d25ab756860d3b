"""``job cancel`` of a job that has already finished says so (``job-finished``), in text and
JSON, and cancels the others it was given."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from tests.cli.jobs_support import Jobs

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult


@pytest.fixture
def jobs(cli: Callable[..., CliResult], tmp_path: Path) -> Jobs:
    jobs = Jobs(cli, tmp_path)
    jobs.apply()
    return jobs


def _finished(jobs: Jobs, how: str) -> str:
    """A job that is SUCCEEDED (``done``) or was cancelled before (``cancelled``)."""
    (job_id,) = jobs.submit("a", 1, "--name", f"was-{how}")
    if how == "done":
        jobs.advance("2d")
    else:
        jobs.ok("job", "cancel", job_id)
    return job_id


@pytest.mark.parametrize(("how", "status"), [("done", "SUCCEEDED"), ("cancelled", "FAILED")])
def test_cancel_of_a_finished_job_is_job_finished_in_text(
    jobs: Jobs, how: str, status: str
) -> None:
    job_id = _finished(jobs, how)
    assert jobs.status(job_id) == status
    result = jobs.run("job", "cancel", job_id)
    assert result.exit_code == 1
    assert not result.stdout.startswith("cancelled")
    assert result.stdout == f"was-{how} ({job_id}) had already finished: {status}\n"
    assert "error[job-finished]: the job had already finished" in result.stderr


@pytest.mark.parametrize("how", ["done", "cancelled"])
def test_cancel_of_a_finished_job_is_job_finished_in_json(jobs: Jobs, how: str) -> None:
    finished = _finished(jobs, how)
    (running,) = jobs.submit("b", 1)
    result = jobs.run("job", "cancel", finished, running, "-o", "json")
    assert result.exit_code == 1
    document = json.loads(result.stdout)  # one document: the report, then the error on stderr
    assert document["cancelled"] == [running]
    assert [f["job_id"] for f in document["finished"]] == [finished]
    assert "error[job-finished]: 1 of 2 jobs had already finished" in result.stderr
    assert jobs.status(running) == "FAILED"
