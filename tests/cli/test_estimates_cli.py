"""When a waiting job will start, as `job why`, `jobs --eta` and `submit --dry-run` say it.

The queue of ``jobs_support``: share ``r`` (RESERVE, 1 x ml.g5.xlarge) runs one job at a time,
so its second and third jobs wait, and every duration is known (the `quotactl:duration` tag).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import pytest

from tests.cli.jobs_support import Jobs

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult


@pytest.fixture
def jobs(cli: Callable[..., CliResult], tmp_path: Path) -> Jobs:
    account = Jobs(cli, tmp_path)
    account.apply()
    return account


ETA_FIELDS = {"p10", "p50", "p90", "position_in_share", "position_in_queue", "basis"}


def _queue(jobs: Jobs) -> list[str]:
    ids = []
    for minutes in (10, 20, 30):
        (job_id,) = jobs.submit("r", 1, "--tag", f"quotactl:duration={minutes}m")
        jobs.advance("1s")
        ids.append(job_id)
    return ids


def _at(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def test_job_why_says_when_a_waiting_job_starts_and_it_does(jobs: Jobs) -> None:
    _, second, third = _queue(jobs)
    text = jobs.ok("job", "why", third).stdout
    assert "eta: expected to start in 30m" in text  # 10m + 20m, from a second later
    assert "2nd in share r, 2nd in queue q" in text
    assert "every run time it waits on is known" in text
    assert "DescribeServiceJob" in text  # the calls it read with
    document = jobs.json("job", "why", third)
    eta = document["eta"]
    assert set(eta) == ETA_FIELDS
    assert eta["p10"] == eta["p50"] == eta["p90"]
    assert (eta["position_in_share"], eta["position_in_queue"], eta["basis"]) == (2, 2, "known")
    assert document["estimate"]["runs"] == 1
    assert document["estimate"]["new_jobs"] == "not assumed"
    jobs.advance("2h")
    started = jobs.json("job", "describe", third)["job"]["started_at"]
    assert abs(_at(started) - _at(eta["p50"])) < 1.0
    assert jobs.json("job", "why", second)["eta"] is None  # it has run: no estimate


def test_jobs_eta_adds_a_column_from_one_estimate_of_the_queue(jobs: Jobs) -> None:
    first, second, third = _queue(jobs)
    text = jobs.ok("jobs", "--eta").stdout
    header = text.splitlines()[0]
    assert header.split()[-1] == "ETA"
    assert "ETA: estimated by 1 run of the queue" in text
    document = jobs.json("jobs", "--eta")
    etas = {j["job_id"]: j["eta"] for j in document["jobs"]}
    assert etas[first] is None
    assert set(etas[second]) == set(etas[third]) == ETA_FIELDS
    assert etas[second]["position_in_share"] == 1
    assert etas[third]["position_in_share"] == 2
    assert _at(etas[third]["p50"]) - _at(etas[second]["p50"]) == pytest.approx(1200, abs=1)
    assert document["estimate"]["api_calls"]["DescribeServiceJob"] >= 3
    plain = jobs.json("jobs")
    assert "estimate" not in plain
    assert all("eta" not in j for j in plain["jobs"])


def test_a_dry_run_says_when_the_previewed_job_would_start(jobs: Jobs) -> None:
    _queue(jobs)
    spec = jobs.spec("preview", 1)
    document = jobs.json("submit", spec, "--share", "r", "--dry-run")
    assert document["placement"] == "wait"
    eta = document["eta"]
    assert set(eta) == ETA_FIELDS
    assert eta["position_in_share"] == 3
    assert eta["basis"] == "known"
    text = jobs.ok("submit", spec, "--share", "r", "--dry-run").stdout
    assert "eta: expected to start in 1h" in text  # 10m + 20m + 30m, from a second later
    several = jobs.json("submit", spec, "--share", "r", "--dry-run", "--count", "2")
    first, second = (j["eta"] for j in several["jobs"])
    assert first["position_in_share"] == 3
    assert second["position_in_share"] == 4
    assert second["p50"] > first["p50"]  # behind the first: its run time is one day


def test_history_needs_a_ledger_and_a_dry_run(jobs: Jobs, tmp_path: Path) -> None:
    _, _, third = _queue(jobs)
    missing = jobs.run("job", "why", third, "--history", str(tmp_path / "none.csv"))
    assert missing.exit_code != 0
    assert "none.csv" in missing.stderr
    spec = jobs.spec("preview", 1)
    alone = jobs.run("submit", spec, "--share", "r", "--history", str(tmp_path / "l.csv"))
    assert alone.exit_code == 64
    assert "--dry-run" in alone.stderr
