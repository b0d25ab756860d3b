"""Previews name the jobs the emulator then preempts, when jobs tie on priority and start.

Everything goes through the real CLI on one emulated account whose clock stands still while
jobs are submitted, so they share ``createdAt`` and ``scheduledAt`` to the millisecond: only
the documented tie-break (the job ID) can tell them apart, and every side must use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.cli.jobs_support import Jobs

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

P5 = "ml.p5.48xlarge"
STACK = """\
platform: {name: ties, region: us-east-1}
environments:
  - name: pool
    capacity: {ml.p5.48xlarge: 8}
queues:
  - name: training
    environment: pool
teams:
  - name: nlp
    shares:
      - queue: training
        capacity: {ml.p5.48xlarge: LIMIT}
        sharing: lend_and_borrow
  - name: research
    shares:
      - queue: training
        capacity: {ml.p5.48xlarge: 4}
        sharing: lend
"""
SPEC = """\
image: 123456789012.dkr.ecr.us-east-1.amazonaws.com/train:1
instance_type: ml.p5.48xlarge
role_arn: arn:aws:iam::123456789012:role/SageMaker
output_s3: s3://bucket/out/
max_runtime: 1d
queue: training
instance_count: COUNT
"""


def preempted(jobs: Jobs) -> set[str]:
    """The jobs the emulator has preempted at least once."""
    return {j["job_id"] for j in jobs.json("jobs")["jobs"] if j["preemptions"]}


@pytest.mark.parametrize("run", [1, 2, 3])
def test_dry_run_and_job_priority_name_the_victim_of_eight_tied_jobs(
    cli: Cli, tmp_path: Path, run: int
) -> None:
    """``submit --count 8`` with the clock stopped, then a priority-7 job: the dry-run's
    victim is the job the emulator preempts (three runs: new job IDs each time)."""
    jobs = Jobs(cli, tmp_path)
    jobs.apply()
    tied = jobs.submit("a", 1, "--count", "8")
    jobs.advance("0s")
    statuses = {j: jobs.status(j) for j in tied}
    assert sorted(statuses.values()).count("RUNNING") == 4  # 2 own + 2 borrowed
    spec = jobs.spec("urgent", 1)
    dry = jobs.json("submit", spec, "--share", "a", "--priority", "7", "--dry-run")
    assert dry["placement"] == "preempt"
    (urgent,) = [
        j["job_id"]
        for j in jobs.json("submit", spec, "--share", "a", "--priority", "7")["submitted"]
    ]
    jobs.advance("1s")
    assert {v["job_id"] for v in dry["victims"]} == preempted(jobs)
    assert jobs.status(urgent) == "RUNNING"

    # Raising a waiting job to 7 preempts one of the tied running jobs: the one it names.
    waiting = [j for j in tied if jobs.status(j) == "RUNNABLE"]
    before = preempted(jobs)
    change = jobs.json("job", "priority", waiting[0], "7")
    jobs.advance("1s")
    assert change["starts"] is True
    assert {v["job_id"] for v in change["preempts"]} == preempted(jobs) - before


def ties_stack(tmp_path: Path, limit: int) -> Path:
    config = tmp_path / "stack.yaml"
    config.write_text(STACK.replace("LIMIT", str(limit)))
    return config


def spec_file(tmp_path: Path, name: str, count: int) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(SPEC.replace("COUNT", str(count)))
    return str(path)


def lowered(cli: Cli, tmp_path: Path) -> tuple[Jobs, Path, dict[str, int]]:
    """nlp runs 4 jobs of one instance, submitted and started in the same millisecond (three
    at priority 0, one at 5); then its limit in the config goes from 4 to 2."""
    jobs = Jobs(cli, tmp_path)
    config = ties_stack(tmp_path, 4)
    assert jobs.run("apply", str(config), "--auto-approve").exit_code == 0
    priorities: dict[str, int] = {}
    for priority, count in ((0, 3), (5, 1)):
        spec = spec_file(tmp_path, f"nlp-{priority}", 1)
        found = jobs.json(
            "submit", spec, "--share", "nlp", "--priority", str(priority), "--count", str(count)
        )
        priorities.update({j["job_id"]: priority for j in found["submitted"]})
    jobs.advance("0s")
    assert {jobs.status(j) for j in priorities} == {"RUNNING"}
    ties_stack(tmp_path, 2)
    return jobs, config, priorities


def test_after_lowering_a_limit_plan_guard_dry_run_and_emulator_name_the_same_jobs(
    cli: Cli, tmp_path: Path
) -> None:
    jobs, config, priorities = lowered(cli, tmp_path)
    plan = jobs.json("plan", str(config))
    (share,) = [c for c in plan["changes"] if c["address"] == "share.training/nlp"]
    (impact,) = [i for i in share["impact"] if i["effect"] == "preemptible"]
    named = {j["id"] for j in impact["jobs"]}
    assert len(named) == 2
    assert {priorities[j] for j in named} == {0}  # the lowest priority goes first
    assert set(plan["disruption"]["job_ids"]) == named

    refused = jobs.run("apply", str(config), "--auto-approve")
    assert refused.exit_code == 1
    assert "error[disruption-not-allowed]" in refused.stderr
    for job_id in priorities:
        assert (job_id in refused.stderr) == (job_id in named), refused.stderr
    assert jobs.run("apply", str(config), "--auto-approve", "--allow-disruption").exit_code == 0

    # research takes its 4 instances back: 2 lent to nlp's excess are reclaimed.
    spec = spec_file(tmp_path, "survey", 4)
    dry = jobs.json("submit", spec, "--share", "research", "--dry-run")
    assert dry["placement"] == "preempt"
    assert {v["job_id"] for v in dry["victims"]} == named
    jobs.json("submit", spec, "--share", "research")
    jobs.advance("1s")
    assert preempted(jobs) == named


def test_the_disruption_error_names_the_job_that_is_then_reclaimed(
    cli: Cli, tmp_path: Path
) -> None:
    """Lowering nlp by one: the guard names one job, and it is the one research reclaims."""
    jobs, config, priorities = lowered(cli, tmp_path)
    config.write_text(config.read_text().replace(f"{P5}: 2}}", f"{P5}: 3}}", 1))
    refused = jobs.run("apply", str(config), "--auto-approve")
    assert refused.exit_code == 1
    assert "1 active job:" in refused.stderr
    (named,) = [j for j in priorities if j in refused.stderr]
    assert jobs.run("apply", str(config), "--auto-approve", "--allow-disruption").exit_code == 0
    jobs.json("submit", spec_file(tmp_path, "survey", 4), "--share", "research")
    jobs.advance("1s")
    assert preempted(jobs) == {named}
