"""`jobs` and `job describe|cancel|priority|why|logs` end to end on the emulator, with each
wait code of `job why` and both kinds of preemption in its history."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.cli.jobs_support import TYPE, Jobs, batch_client

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult


@pytest.fixture
def jobs(cli: Callable[..., CliResult], tmp_path: Path) -> Jobs:
    account = Jobs(cli, tmp_path)
    account.apply()
    return account


def _ids(listed: dict[str, list[dict[str, str]]]) -> list[str]:
    return [j["job_id"] for j in listed["jobs"]]


def test_jobs_lists_every_status_newest_first_and_filters(jobs: Jobs) -> None:
    (done,) = jobs.submit("r", 1, "--name", "first")
    jobs.ok("job", "cancel", done)
    jobs.advance("1s")
    (waiting,) = jobs.submit("b", 3, "--name", "never")  # misconfigured: stays RUNNABLE
    jobs.advance("5s")  # AWS's Date header, the time of a read, has whole seconds
    (running,) = jobs.submit("a", 1, "--name", "runs")
    jobs.advance()
    listed = jobs.json("jobs")
    assert _ids(listed) == [running, waiting, done]
    first = listed["jobs"][0]
    assert set(first) == {
        "job_id",
        "job_arn",
        "name",
        "queue",
        "share",
        "status",
        "status_reason",
        "priority",
        "instance_type",
        "instance_count",
        "created_at",
        "started_at",
        "stopped_at",
        "attempts",
        "preemptions",
    }
    assert (first["status"], first["instance_type"], first["instance_count"]) == (
        "RUNNING",
        TYPE,
        1,
    )
    assert first["created_at"].endswith("Z")
    assert first["stopped_at"] is None
    assert (first["attempts"], first["preemptions"]) == (1, 0)
    assert _ids(jobs.json("jobs", "--status", "FAILED")) == [done]
    assert _ids(jobs.json("jobs", "--status", "failed", "--status", "RUNNABLE")) == [waiting, done]
    assert _ids(jobs.json("jobs", "--share", "a")) == [running]
    assert _ids(jobs.json("jobs", "--queue", "q", "--since", "63s")) == [running]
    text = jobs.ok("jobs").stdout
    header = text.splitlines()[0].split()
    assert header[:5] == ["NAME", "JOB", "ID", "QUEUE/SHARE", "STATUS"]
    assert "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED" in text
    assert text.rstrip().endswith("3 jobs")


@pytest.mark.slow
def test_jobs_pages_through_more_than_one_page(jobs: Jobs) -> None:
    jobs.submit("b", 1, "--count", "105", "--name", "many")
    listed = jobs.json("jobs", "--share", "b", "--status", "RUNNABLE", "--status", "RUNNING")
    assert len(listed["jobs"]) == 105
    assert len({j["name"] for j in listed["jobs"]}) == 105


def test_jobs_rejects_an_unknown_status(jobs: Jobs) -> None:
    result = jobs.run("jobs", "--status", "DONE")
    assert result.exit_code == 64
    assert "'DONE' is not a service job status" in result.stderr


def test_job_describe_by_name_id_and_arn(jobs: Jobs) -> None:
    (job_id,) = jobs.submit("a", 1, "--name", "described", "--tag", "k=v")
    jobs.advance()
    by_name = jobs.json("job", "describe", "described")["job"]
    by_id = jobs.json("job", "describe", job_id)["job"]
    by_arn = jobs.json("job", "describe", by_id["job_arn"])["job"]
    assert by_name["job_id"] == by_id["job_id"] == by_arn["job_id"] == job_id
    assert by_id["payload"]["ResourceConfig"]["InstanceType"] == TYPE
    token = by_id["tags"].pop("quotactl:submit-token")  # submit finds a lost answer's job by it
    assert token
    assert by_id["tags"] == {"k": "v"}
    assert by_id["preemption_history"] == []
    training = by_id["training_job"]
    assert training["name"].startswith("AWSBatchdescribed")
    assert (training["status"], training["secondary_status"]) == ("InProgress", "Training")
    text = jobs.ok("job", "describe", "described").stdout
    assert "InProgress / Training" in text
    assert "k=v" in text


def test_job_describe_finds_a_job_by_name_right_after_its_submit(
    jobs: Jobs, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ListServiceJobs lags SubmitServiceJob by more reads than one look for the name makes
    monkeypatch.setenv("QUOTACTL_EMULATOR_FAULTS", "list_lag=4")
    (job_id,) = jobs.submit("a", 1, "--name", "fresh")
    assert jobs.json("job", "describe", "fresh")["job"]["job_id"] == job_id


def test_job_describe_unknown_and_ambiguous_names(jobs: Jobs) -> None:
    missing = jobs.run("job", "describe", "nobody")
    assert missing.exit_code == 1
    assert "error[not-found]: no service job named 'nobody'" in missing.stderr
    jobs.submit("a", 1, "--name", "twin", "--count", "1")
    jobs.submit("b", 1, "--name", "twin")
    twice = jobs.run("job", "describe", "twin")
    assert twice.exit_code == 1
    assert "error[ambiguous-job]: 2 service jobs are named 'twin'" in twice.stderr


def test_job_cancel_terminates_every_job_named(jobs: Jobs) -> None:
    ids = jobs.submit("b", 1, "--count", "3", "--name", "bulk")  # batches of 50: test_jobs_api
    client = batch_client(jobs.tmp / "state.db")
    out = jobs.json("job", "cancel", *ids[1:], "--reason", "sweep over")
    assert sorted(out["cancelled"]) == sorted(ids[1:])
    assert (out["errors"], out["finished"]) == ([], [])
    described = client.describe_service_job(jobId=ids[-1])
    assert (described["status"], described["statusReason"], described["isTerminated"]) == (
        "FAILED",
        "sweep over",
        True,
    )
    text = jobs.ok("job", "cancel", "bulk-1")
    assert text.stdout == f"cancelled bulk-1 ({ids[0]})\n"


def test_job_priority_reports_the_in_share_preemption_it_triggers(jobs: Jobs) -> None:
    jobs.submit("b", 2)
    (low,) = jobs.submit("a", 2, "--priority", "1")
    jobs.advance("1s")
    (waiting,) = jobs.submit("a", 1, "--priority", "0")
    jobs.advance()
    assert jobs.status(waiting) == "RUNNABLE"
    out = jobs.json("job", "priority", waiting, "5")
    assert (out["priority_before"], out["priority"]) == (0, 5)
    assert out["preempts"] == [{"job_id": low, "share": "a", "kind": "in-share", "by_job": waiting}]
    assert out["starts"] is True
    jobs.advance()
    assert jobs.status(waiting) == "RUNNING"
    assert jobs.status(low) == "RUNNABLE"


def test_job_priority_says_when_nothing_follows(jobs: Jobs) -> None:
    (job,) = jobs.submit("b", 1)
    jobs.advance()
    result = jobs.ok("job", "priority", job, "42")
    assert "0 \u2192 42" in result.stdout or "\u2013 \u2192 42" in result.stdout
    assert "No preemption follows" in result.stdout
    assert (
        batch_client(jobs.tmp / "state.db").describe_service_job(jobId=job)["schedulingPriority"]
        == 42
    )


def test_job_logs_on_the_emulator_says_it_runs_no_containers(jobs: Jobs) -> None:
    (job,) = jobs.submit("b", 1)
    result = jobs.run("job", "logs", job)
    assert result.exit_code == 1
    assert "error[no-logs]: the local emulator runs no containers" in result.stderr
    assert "/aws/sagemaker/TrainingJobs" in result.stderr
    assert jobs.run("job", "logs", "nobody").exit_code == 1


# -- job why --------------------------------------------------------------------------------


def _wait(jobs: Jobs, job: str) -> dict[str, object]:
    out = jobs.json("job", "why", job)
    assert out["job_id"] == job
    wait = out["wait"]
    assert isinstance(wait, dict)
    return wait


def test_why_misconfigured(jobs: Jobs) -> None:
    (job,) = jobs.submit("r", 2)
    jobs.advance()
    wait = _wait(jobs, job)
    assert wait["code"] == "misconfigured"
    assert str(wait["status_reason"]).startswith("MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT")


def test_why_share_at_limit_and_behind(jobs: Jobs) -> None:
    jobs.submit("r")
    jobs.advance("1s")
    (head,) = jobs.submit("r")
    jobs.advance("1s")
    (second,) = jobs.submit("r")
    jobs.advance()
    assert _wait(jobs, head)["code"] == "share-at-limit"
    behind = _wait(jobs, second)
    assert (behind["code"], behind["ahead"]) == ("behind", [head])
    text = jobs.ok("job", "why", second).stdout
    assert "wait: behind" in text
    assert head in text


def test_why_borrow_limit(jobs: Jobs) -> None:
    jobs.submit("a", 2)
    jobs.submit("a", 2)  # borrows b's 2: the borrow limit (100 % of 2) is used up
    jobs.advance("1s")
    (job,) = jobs.submit("a", 1)
    jobs.advance()
    assert _wait(jobs, job)["code"] == "borrow-limit"


def test_why_no_idle_capacity(jobs: Jobs) -> None:
    jobs.submit("b", 2)
    jobs.submit("a", 2)
    jobs.advance("1s")
    (job,) = jobs.submit("a", 1)
    jobs.advance()
    assert _wait(jobs, job)["code"] == "no-idle-capacity"


def test_why_running_has_no_wait(jobs: Jobs) -> None:
    (job,) = jobs.submit("b", 1)
    jobs.advance()
    out = jobs.json("job", "why", job)
    assert (out["status"], out["wait"], out["preemptions"]) == ("RUNNING", None, [])


def test_why_names_the_reclaiming_share_and_job(jobs: Jobs) -> None:
    jobs.submit("a", 2)
    jobs.advance("1s")
    (borrower,) = jobs.submit("a", 2)
    jobs.advance("1m")
    (reclaimer,) = jobs.submit("b", 2, "--name", "reclaimer")
    jobs.advance()
    out = jobs.json("job", "why", borrower)
    assert out["status"] == "RUNNABLE"
    (preemption,) = out["preemptions"]
    assert (preemption["kind"], preemption["by_share"], preemption["by_job"]) == (
        "reclaim",
        "b",
        reclaimer,
    )
    assert preemption["at"].endswith("Z")
    assert "Cross-share preemption" in preemption["status_reason"]
    history = jobs.json("job", "describe", borrower)["job"]["preemption_history"]
    assert history == out["preemptions"]
    text = jobs.ok("job", "why", borrower).stdout
    assert "reclaimed by share b for reclaimer" in text


def test_why_names_the_higher_priority_job_of_an_in_share_preemption(jobs: Jobs) -> None:
    jobs.submit("b", 2)
    (low,) = jobs.submit("a", 2, "--priority", "1")
    jobs.advance("1m")
    (high,) = jobs.submit("a", 1, "--priority", "9", "--name", "urgent")
    jobs.advance()
    out = jobs.json("job", "why", low)
    (preemption,) = out["preemptions"]
    assert (preemption["kind"], preemption["by_share"], preemption["by_job"]) == (
        "in-share",
        "a",
        high,
    )
    assert "in-share  by higher-priority urgent" in jobs.ok("job", "why", low).stdout
