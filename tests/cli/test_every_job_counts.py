"""Every job counts: a change that leaves a team's jobs unable to run is named, judged and
refused as such, whatever the waits of the jobs that did start.

The README's demo on a generated trace (seed 3), and the configuration a naive search once
proposed: research cut to one ml.g5.12xlarge while some of its jobs need two. The demo queue
terminates such jobs after its runnable timeout (an hour), so research finishes fewer jobs.
"""

from __future__ import annotations

import csv
import json
import shutil
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

JOBS = 3000  # the 20,000 of the README show the same (453 jobs); 3,000 replay in seconds
RULE = """\
  - name: research-waits-at-most-4h
    level: soft
    check: max_wait
    team: research
    p95: 4h
"""


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, repo_root_module: Path) -> dict[str, Path]:
    """The demo config, the starving one (with a soft max_wait rule on research) and a trace."""
    from quotactl.cli.app import run

    folder = tmp_path_factory.mktemp("every-job")
    config = repo_root_module / "configs" / "demo"
    starved = folder / "starved"
    shutil.copytree(config, starved)
    research = starved / "teams" / "research.yaml"
    research.write_text(research.read_text().replace("ml.g5.12xlarge: 4}", "ml.g5.12xlarge: 1}"))
    vision = starved / "teams" / "vision.yaml"
    vision.write_text(vision.read_text().replace("ml.g5.12xlarge: 8}", "ml.g5.12xlarge: 11}"))
    rules = starved / "rules.yaml"
    rules.write_text(rules.read_text() + RULE)
    trace = folder / "trace.csv"
    generated = ["trace", "generate", str(config), "--jobs", str(JOBS), "--seed", "3"]
    assert run([*generated, "--out", str(trace)]) == 0
    return {"config": config, "starved": starved, "trace": trace}


@pytest.fixture(scope="module")
def repo_root_module() -> Path:
    from tests.conftest import REPO_ROOT

    return REPO_ROOT


def _too_big_for_one(trace: Path) -> int:
    """Research's jobs that need more than one ml.g5.12xlarge."""
    with trace.open() as f:
        return sum(
            1
            for row in csv.DictReader(f)
            if row["share"].endswith("research")
            and row["instance_type"] == "ml.g5.12xlarge"
            and int(row["count"]) > 1
        )


def test_compare_names_research_losing_with_the_jobs_it_no_longer_runs(
    cli: Cli, demo: dict[str, Path]
) -> None:
    lost = _too_big_for_one(demo["trace"])
    assert lost > 0
    args = ["simulate", str(demo["starved"]), "--trace", str(demo["trace"])]
    result = cli(*args, "--compare", str(demo["config"]))
    assert result.exit_code == 1  # the soft max_wait rule on research fails
    verdict = " ".join(result.stdout.split()).split("Verdict: ", 1)[1]
    assert verdict.startswith(f"team research LOSES ({lost:,} of its ")
    assert "jobs no longer run" in verdict.split(";")[0]
    assert "work not done" in verdict or "raises utilisation" in verdict
    row = next(line for line in result.stdout.splitlines() if line.startswith("research"))
    assert row.split()[1] == "loses"
    assert "\u2192 never" in row  # its p95 wait
    assert "FAIL       research-waits-at-most-4h" in result.stdout
    assert f"p95 never ({lost:,} jobs never started) > 4h" in " ".join(result.stdout.split())
    assert "rule-failed" in result.stderr


def test_json_counts_every_job_and_says_never_as_null(cli: Cli, demo: dict[str, Path]) -> None:
    lost = _too_big_for_one(demo["trace"])
    args = ["simulate", str(demo["starved"]), "--trace", str(demo["trace"]), "-o", "json"]
    document = json.loads(cli(*args, "--compare", str(demo["config"])).stdout)
    for run in (document["run"], document["baseline"]):
        for share in run["shares"]:
            jobs = share["jobs"]
            assert jobs["submitted"] == (
                jobs["finished"] + jobs["failed"] + jobs["terminated"] + jobs["stuck"]
            )
    research = next(s for s in document["run"]["shares"] if s["share"] == "research")
    assert research["jobs"]["terminated"] == lost
    assert (research["wait_seconds"]["p95"], research["wait_seconds"]["never_started"]) == (
        None,
        lost,
    )
    assert document["comparison"]["loses"][0] == "training/research"
    change = next(s for s in document["comparison"]["shares"] if s["share"] == "research")
    assert change["jobs_terminated"] == {"before": 0, "after": lost}
    assert change["wait_p95_seconds"]["after"] is None
    [rule] = [r for r in document["rules"] if r["name"] == "research-waits-at-most-4h"]
    assert rule["result"] == "fail"


def test_markdown_shows_terminated_and_never_started_per_share(
    cli: Cli, demo: dict[str, Path]
) -> None:
    lost = _too_big_for_one(demo["trace"])
    args = ["simulate", str(demo["starved"]), "--trace", str(demo["trace"]), "-o", "markdown"]
    out = cli(*args, "--override", "research-waits-at-most-4h").stdout
    assert "| terminated | never started |" in out
    [row] = [line for line in out.splitlines() if line.startswith("| `training/research`")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[3:5] == [f"{lost:,}", "0"]  # terminated, never started (still waiting)


def test_tune_never_proposes_a_configuration_that_runs_fewer_of_a_share_s_jobs(
    cli: Cli, demo: dict[str, Path]
) -> None:
    args = ["tune", str(demo["config"]), "--trace", str(demo["trace"]), "--budget", "50"]
    result = cli(*args, "--workers", "1", "-o", "json")
    document = json.loads(result.stdout)
    assert document["stranded"] > 0  # the search met such candidates and refused them
    stranding = [
        t for t in document.get("front", []) if any("strands work" in v for v in t["violations"])
    ]
    assert stranding == []
    assert document["front"]
    for trial in document["front"]:
        for share in trial["comparison"]["comparison"]["shares"]:
            finished = share["jobs_finished"]
            assert finished["after"] >= finished["before"], (trial["candidate"], share)
            assert share["outcome"] != "loses" or "no longer run" not in (share["reason"] or "")
