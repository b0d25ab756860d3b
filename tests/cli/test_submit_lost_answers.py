"""A submit whose answer is lost is safe under either reading of AWS's clientToken text.

AWS's idempotency docs say a repeated client token is answered with the first job; the model
text of SubmitServiceJob says the repeat "is rejected". botocore retries a lost answer with the
same token, so under the second reading the retry fails although the job is queued. quotactl
finds such a job by its ``quotactl:submit-token`` tag: no duplicate, no queued job reported as
failed, no hint that submits it again.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from quotactl.core.jobs.spec import SUBMIT_TOKEN_TAG
from quotactl.emulator import Emulator
from quotactl.emulator.faults import parse_faults
from quotactl.errors import UsageError
from tests.cli.jobs_support import Jobs, all_jobs, batch_client
from tests.conftest import TEST_TIMING

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult


@pytest.fixture
def jobs(cli: Callable[..., CliResult], tmp_path: Path) -> Jobs:
    account = Jobs(cli, tmp_path)
    account.apply()
    return account


@pytest.mark.parametrize("reading", ["reject_repeated_token=1,", "", "strict"])
def test_every_second_answer_lost_gives_exactly_the_jobs_asked_for(
    jobs: Jobs, monkeypatch: pytest.MonkeyPatch, reading: str
) -> None:
    if reading == "strict":  # the repeat rejected, the listing that finds the job lagging
        Emulator(jobs.tmp / "state.db", timing=TEST_TIMING, variant="strict").close()
        reading = ""
    monkeypatch.setenv("QUOTACTL_EMULATOR_FAULTS", f"{reading}lose_every=2")
    result = jobs.run(
        "submit", jobs.spec(), "--share", "a", "--count", "6", "--name", "n", "-o", "json"
    )
    assert result.exit_code == 0, result.stderr
    listed = json.loads(result.stdout)["submitted"]
    monkeypatch.delenv("QUOTACTL_EMULATOR_FAULTS")
    client = batch_client(jobs.tmp / "state.db")
    existing = all_jobs(client)
    assert len(existing) == 6
    assert sorted(j["job_id"] for j in listed) == sorted(j["jobId"] for j in existing)
    assert [j["name"] for j in listed] == [f"n-{i}" for i in range(1, 7)]
    tokens = {
        client.describe_service_job(jobId=j["jobId"])["tags"][SUBMIT_TOKEN_TAG] for j in existing
    }
    assert len(tokens) == 6


def test_a_job_that_cannot_be_found_is_unconfirmed_and_never_resubmitted(
    jobs: Jobs, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every answer lost: the job is queued but no answer can say so, and listings that lag
    # the submit by more reads than submit looks for it leave no lookup that can
    monkeypatch.setenv(
        "QUOTACTL_EMULATOR_FAULTS", "reject_repeated_token=1,lose_every=1,list_lag=20"
    )
    monkeypatch.setattr("quotactl.aws.jobs.FIND_WAITS", (0.0, 0.0, 0.0))
    result = jobs.run("submit", jobs.spec(), "--share", "a", "--count", "3", "--name", "n")
    assert result.exit_code == 1
    assert "error[submit-unconfirmed]" in result.stderr
    assert "could not confirm that job 'n-1' was submitted" in result.stderr
    assert "quotactl jobs --queue q" in result.stderr
    # the hint sends only the jobs after it, under their own names
    assert "--name n --count 2 --start-index 2" in result.stderr
    assert "--start-index 1" not in result.stderr
    monkeypatch.delenv("QUOTACTL_EMULATOR_FAULTS")
    current = batch_client(jobs.tmp / "state.db", faults="list_lag=0")  # listings caught up
    assert [j["jobName"] for j in all_jobs(current)] == ["n-1"]


@pytest.mark.parametrize(
    "text",
    [
        "lose_answer=2",
        "lose_every=-1",
        "lose_every=1.5",
        "reject_repeated_token=x",
        "list_lag=-1",
        "list_lag=0.5",
    ],
)
def test_bad_lost_answer_faults_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError):
        parse_faults(text)
