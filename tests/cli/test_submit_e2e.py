"""`submit` end to end on the emulator: flags, --count, tags, client tokens, JSON, warnings,
and each `submit --dry-run` placement (own, borrow, preempt reclaim / in-share, wait,
misconfigured) checked against what the emulator then does."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING
from unittest.mock import ANY

import pytest

from quotactl.emulator import Emulator
from tests.cli.jobs_support import TYPE, Jobs, all_jobs, batch_client
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


def test_submit_sends_every_flag_in_the_request(jobs: Jobs) -> None:
    spec = jobs.spec("flags", 2, hyperparameters={"epochs": "3"}, tags={"team": "a"})
    out = jobs.json(
        "submit",
        spec,
        "--share",
        "a",
        "--priority",
        "7",
        "--name",
        "nightly",
        "--preemption-retries",
        "2",
        "--timeout",
        "12h",
        "--tag",
        "run=42",
        "--tag",
        "team=x",
    )
    assert out["format_version"] == "1"
    assert out["warnings"] == []
    (job,) = out["submitted"]
    assert (job["name"], job["queue"], job["share"]) == ("nightly", "q", "a")
    described = batch_client(jobs.tmp / "state.db").describe_service_job(jobId=job["job_id"])
    assert described["schedulingPriority"] == 7
    assert described["preemptionConfiguration"] == {"preemptionRetriesBeforeTermination": 2}
    assert described["timeoutConfig"] == {"attemptDurationSeconds": 43200}
    assert described["tags"] == {"team": "x", "run": "42", "quotactl:submit-token": ANY}
    payload = json.loads(described["serviceRequestPayload"])
    assert payload["ResourceConfig"] == {
        "InstanceType": TYPE,
        "InstanceCount": 2,
        "VolumeSizeInGB": 30,
    }
    assert payload["HyperParameters"] == {"epochs": "3"}
    assert payload["StoppingCondition"] == {"MaxRuntimeInSeconds": 86400}
    assert payload["TrainingJobName"] == "nightly"


def test_submit_count_names_jobs_and_gives_each_its_own_client_token(jobs: Jobs) -> None:
    ids = jobs.submit("b", 1, "--count", "3", "--name", "sweep")
    assert len(set(ids)) == 3
    client = batch_client(jobs.tmp / "state.db")
    names = sorted(j["jobName"] for j in all_jobs(client))
    assert names == ["sweep-1", "sweep-2", "sweep-3"]


def test_submit_keeps_to_aws_five_a_second_with_no_retry_to_hide_a_throttle(
    cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    Emulator(tmp_path / "state.db", timing=TEST_TIMING, variant="strict").close()  # 5 TPS on
    account = Jobs(cli, tmp_path, "--max-attempts", "1")
    account.apply()
    ids = account.submit("b", 1, "--count", "8", "--name", "paced")
    assert len(set(ids)) == 8


def test_text_output_names_each_submitted_job(jobs: Jobs) -> None:
    result = jobs.ok("submit", jobs.spec(), "--share", "b", "--name", "hello")
    assert result.stdout.startswith("submitted hello (")
    assert result.stdout.rstrip().endswith(") to q/b")


def test_queue_and_share_come_from_the_spec_unless_flags_say_otherwise(jobs: Jobs) -> None:
    spec = jobs.spec("defaults", share="r", priority=3, name="from-spec")
    (job,) = jobs.json("submit", spec)["submitted"]
    assert (job["share"], job["name"]) == ("r", "from-spec")
    (other,) = jobs.json("submit", spec, "--share", "b", "--name", "flag")["submitted"]
    assert (other["share"], other["name"]) == ("b", "flag")


def test_a_raw_payload_needs_queue_and_share_flags(jobs: Jobs, repo_root: Path) -> None:
    raw = str(repo_root / "configs" / "jobs" / "raw-payload.json")
    missing = jobs.run("submit", raw)
    assert missing.exit_code == 64
    assert "--queue and --share" in missing.stderr
    result = jobs.run("submit", raw, "--queue", "q", "--share", "a", "-o", "json")
    assert result.exit_code == 0, result.stderr
    (job,) = json.loads(result.stdout)["submitted"]
    assert job["name"] == "ranking-retrain"
    tags = batch_client(jobs.tmp / "state.db").describe_service_job(jobId=job["job_id"])["tags"]
    assert tags == {"tier": "production", "quotactl:submit-token": ANY}


def test_submit_warns_with_aws_reason_when_the_share_can_never_run_the_job(jobs: Jobs) -> None:
    result = jobs.run("submit", jobs.spec("big", 3), "--share", "r", "-o", "json")
    assert result.exit_code == 0
    out = json.loads(result.stdout)
    assert out["warnings"] == [
        "the job will sit RUNNABLE on q/r and never start: MISCONFIGURATION:"
        "QUOTA_MANAGEMENT_LIMIT_EXCEEDED - Job requirements exceed quota share capacity limits."
    ]
    assert "warning: the job will sit RUNNABLE" in result.stderr
    assert len(out["submitted"]) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--share", "nope"), "queue q has no quota share 'nope'"),
        (("--queue", "nope", "--share", "a"), "no job queue 'nope'"),
    ],
)
def test_submit_to_a_missing_share_or_queue_fails_and_submits_nothing(
    jobs: Jobs, args: tuple[str, ...], message: str
) -> None:
    result = jobs.run("submit", jobs.spec(), *args)
    assert result.exit_code == 1
    assert message in result.stderr
    assert all_jobs(batch_client(jobs.tmp / "state.db")) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--timeout", "soon"), "--timeout: invalid duration 'soon'"),
        (("--tag", "novalue"), "--tag 'novalue' is not K=V"),
        (("--priority", "10000"), "error[usage]: invalid value for '--priority'"),
        (("--count", "0"), "error[usage]: invalid value for '--count'"),
    ],
)
def test_bad_flags_are_usage_errors(jobs: Jobs, args: tuple[str, ...], message: str) -> None:
    result = jobs.run("submit", jobs.spec(), "--share", "a", *args)
    assert result.exit_code == 64
    assert message in result.stderr


# -- dry run ------------------------------------------------------------------------------


def _preview(jobs: Jobs, share: str, count: int = 1, *args: str) -> dict[str, object]:
    spec = jobs.spec(f"preview-{share}-{count}", count)
    client = batch_client(jobs.tmp / "state.db")
    before = {j["jobId"] for j in all_jobs(client)}
    out: dict[str, object] = jobs.json("submit", spec, "--share", share, "--dry-run", *args)
    assert {j["jobId"] for j in all_jobs(client)} == before  # nothing was submitted
    return out


def test_dry_run_own_then_the_job_runs_on_its_own_capacity(jobs: Jobs) -> None:
    out = _preview(jobs, "b")
    assert out["placement"] == "own"
    assert out["lenders"] == []
    assert out["victims"] == []
    (job,) = jobs.submit("b")
    jobs.advance()
    assert jobs.status(job) == "RUNNING"


def test_dry_run_borrow_names_the_lenders(jobs: Jobs) -> None:
    jobs.submit("a", 2)
    jobs.advance()
    out = _preview(jobs, "a")
    assert out["placement"] == "borrow"
    assert out["lenders"] == ["b"]
    (job,) = jobs.submit("a")
    jobs.advance()
    assert jobs.status(job) == "RUNNING"


def test_dry_run_preempt_reclaim_names_the_borrowing_victim(jobs: Jobs) -> None:
    jobs.submit("a", 2)
    jobs.advance("1s")  # distinct start times: the victim is the most recently started
    (borrower,) = jobs.submit("a", 2)
    jobs.advance()
    out = _preview(jobs, "b", 2)
    assert out["placement"] == "preempt"
    assert out["victims"] == [{"job_id": borrower, "share": "a", "kind": "reclaim"}]
    (job,) = jobs.submit("b", 2)
    jobs.advance()
    assert jobs.status(job) == "RUNNING"
    assert jobs.status(borrower) == "RUNNABLE"


def test_dry_run_preempt_in_share_names_the_lower_priority_victim(jobs: Jobs) -> None:
    jobs.submit("b", 2)
    # one emulated second apart: the emulator's clock stands still between advances, and
    # jobs submitted in the same instant are told apart by ID in a preview (not on AWS)
    low = jobs.submit("a", 1, "--priority", "1")
    jobs.advance("1s")
    low += jobs.submit("a", 1, "--priority", "1")
    jobs.advance()
    out = _preview(jobs, "a", 1, "--priority", "9")
    assert out["placement"] == "preempt"
    victims = out["victims"]
    assert isinstance(victims, list)
    assert len(victims) == 1
    assert victims[0]["kind"] == "in-share"
    assert victims[0]["job_id"] in low
    (job,) = jobs.submit("a", 1, "--priority", "9")
    jobs.advance()
    assert jobs.status(job) == "RUNNING"
    assert jobs.status(victims[0]["job_id"]) == "RUNNABLE"


def test_dry_run_wait_behind_names_the_jobs_ahead(jobs: Jobs) -> None:
    jobs.submit("r")
    (queued,) = jobs.submit("r")
    jobs.advance()
    out = _preview(jobs, "r")
    assert out["placement"] == "wait"
    assert out["wait_code"] == "behind"
    assert out["ahead"] == [queued]


def test_dry_run_wait_for_capacity_says_which(jobs: Jobs) -> None:
    jobs.submit("r")
    jobs.advance()
    out = _preview(jobs, "r")
    assert (out["placement"], out["wait_code"], out["ahead"]) == ("wait", "share-at-limit", [])
    (job,) = jobs.submit("r")
    jobs.advance()
    assert jobs.status(job) == "RUNNABLE"


def test_dry_run_misconfigured_gives_aws_reason(jobs: Jobs) -> None:
    out = _preview(jobs, "a", 5)
    assert out["placement"] == "misconfigured"
    assert out["status_reason"] == (
        "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED - Job requirements exceed quota "
        "share capacity limits and borrow limits."
    )
    (job,) = jobs.submit("a", 5)
    jobs.advance()
    reason = batch_client(jobs.tmp / "state.db").describe_service_job(jobId=job)["statusReason"]
    assert reason == out["status_reason"]


def test_dry_run_text_says_nothing_was_submitted(jobs: Jobs) -> None:
    result = jobs.ok("submit", jobs.spec(), "--share", "b", "--dry-run")
    assert result.stdout.splitlines()[0] == "Dry run: nothing was submitted to q/b."
    assert "placement: own" in result.stdout
