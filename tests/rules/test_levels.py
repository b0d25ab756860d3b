"""Every check at every level, through the commands that judge it: an advisory rule is
reported and the command succeeds, a soft one fails it (``rule-failed``) unless overridden
by name, a hard one fails it whatever is overridden; text, JSON and markdown list each result.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from quotactl.core.rules import Check

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

BASE = """\
platform: {name: levels, region: us-east-1}
environments:
  - {name: gpu-pool, capacity: {ml.p5.48xlarge: 10}}
queues:
  - {name: training, environment: gpu-pool}
teams:
  - name: nlp
    tags: {owner: nlp-lead}
    shares:
      - {queue: training, capacity: {ml.p5.48xlarge: NLP}, sharing: lend_and_borrow}
  - name: research
    tags: {owner: research-lead}
    shares:
      - {queue: training, capacity: {ml.p5.48xlarge: 2}, sharing: lend}
  - name: ranking
    shares:
      - {queue: training, capacity: {ml.p5.48xlarge: RANKING}, sharing: reserve}
"""
TRACE = """\
submit_time,share,instance_type,count,duration
0,ranking,ml.p5.48xlarge,4,7200
0,ranking,ml.p5.48xlarge,4,7200
0,nlp,ml.p5.48xlarge,6,10800
600,research,ml.p5.48xlarge,2,3600
"""
JOB = """\
image: 123456789012.dkr.ecr.us-east-1.amazonaws.com/ranker:1.0
instance_type: ml.p5.48xlarge
instance_count: 4
role_arn: arn:aws:iam::123456789012:role/SageMakerTraining
output_s3: s3://bucket/ranking/
max_runtime: 6h
queue: training
share: ranking
"""
FAILING: dict[Check, str] = {
    Check.CAPACITY_WITHIN_ENVIRONMENT: "check: capacity_within_environment",
    Check.MIN_CAPACITY: "check: min_capacity, team: ranking, capacity: {ml.p5.48xlarge: 6}",
    Check.MAX_CAPACITY: "check: max_capacity, share: nlp, capacity: {ml.p5.48xlarge: 2}",
    Check.MAX_RESERVE_FRACTION: "check: max_reserve_fraction, value: 30",
    Check.MAX_BORROW_LIMIT: "check: max_borrow_limit, value: 100",
    Check.REQUIRED_TAGS: "check: required_tags, keys: [owner]",
    Check.MAX_DISRUPTION: "check: max_disruption, jobs: 0",
    Check.MAX_WAIT: "check: max_wait, team: ranking, p95: 1h",
    Check.MAX_PREEMPTIONS: "check: max_preemptions, team: nlp, count: 0",
}
"""Each check's parameters that the base configuration fails."""
OUTCOME = {Check.MAX_WAIT, Check.MAX_PREEMPTIONS}


def write_config(where: Path, check: Check, level: str, *, nlp: int = 4) -> Path:
    ranking = 4 if check is not Check.CAPACITY_WITHIN_ENVIRONMENT else 6
    config = where / "config"
    config.mkdir(exist_ok=True)
    text = BASE.replace("NLP", str(nlp)).replace("RANKING", str(ranking))
    (config / "platform.yaml").write_text(text)
    (config / "rules.yaml").write_text(
        f"rules:\n  - {{name: the-rule, level: {level}, {FAILING[check]}}}\n"
    )
    return config


def judge(cli: Cli, tmp_path: Path, check: Check, level: str, *extra: str) -> CliResult:
    """The command that judges ``check``, on a config that fails it, with ``-o json``."""
    state = str(tmp_path / "emulator.db")
    config = write_config(tmp_path, check, level)
    if check in OUTCOME:
        trace = tmp_path / "trace.csv"
        trace.write_text(TRACE)
        return cli("simulate", str(config), "--trace", str(trace), "-o", "json", *extra)
    if check is Check.MAX_DISRUPTION:
        if not (tmp_path / "emulator.db").exists():  # ranking runs a job on its 4 instances
            (tmp_path / "job.yaml").write_text(JOB)
            assert (
                cli("-q", "--state", state, "apply", str(config), "--auto-approve").exit_code == 0
            )
            assert cli("-q", "--state", state, "submit", str(tmp_path / "job.yaml")).exit_code == 0
            assert cli("-q", "--state", state, "local", "advance", "10m").exit_code == 0
        platform = config / "platform.yaml"  # ranking halved: its job becomes preemptible
        halved = platform.read_text().replace("4}, sharing: reserve", "2}, sharing: reserve")
        platform.write_text(halved)
        return cli("-q", "--state", state, "plan", str(config), "-o", "json", *extra)
    return cli("validate", str(config), "-o", "json", *extra)


def result_of(run: CliResult) -> dict[str, str]:
    (only,) = json.loads(run.stdout)["rules"]
    assert only["name"] == "the-rule"
    return dict(only)


@pytest.mark.parametrize("check", list(Check))
def test_an_advisory_rule_is_reported_and_the_command_succeeds(
    check: Check, cli: Cli, tmp_path: Path
) -> None:
    run = judge(cli, tmp_path, check, "advisory")
    assert run.exit_code == 0, run.stderr
    assert result_of(run)["result"] == "fail"
    assert result_of(run)["level"] == "advisory"
    assert result_of(run)["check"] == check.value


@pytest.mark.parametrize("check", list(Check))
def test_a_soft_rule_fails_the_command_unless_overridden(
    check: Check, cli: Cli, tmp_path: Path
) -> None:
    run = judge(cli, tmp_path, check, "soft")
    assert run.exit_code == 1
    assert "error[rule-failed]: 1 rule failed: the-rule (soft)" in run.stderr
    assert "--override the-rule" in run.stderr
    assert result_of(run)["result"] == "fail"
    accepted = judge(cli, tmp_path, check, "soft", "--override", "the-rule")
    assert accepted.exit_code == 0, accepted.stderr
    assert result_of(accepted)["result"] == "overridden"


@pytest.mark.parametrize("check", list(Check))
def test_a_hard_rule_fails_the_command_even_when_overridden(
    check: Check, cli: Cli, tmp_path: Path
) -> None:
    for extra in ((), ("--override", "the-rule")):
        run = judge(cli, tmp_path, check, "hard", *extra)
        assert run.exit_code == 1
        assert "error[rule-failed]: 1 rule failed: the-rule (hard)" in run.stderr
        assert "a hard rule cannot be overridden" in run.stderr
        assert result_of(run)["result"] == "fail"


@pytest.mark.parametrize("check", sorted(set(Check) - OUTCOME - {Check.MAX_DISRUPTION}))
def test_plan_judges_the_static_checks_too(check: Check, cli: Cli, tmp_path: Path) -> None:
    config = write_config(tmp_path, check, "soft")
    state = str(tmp_path / "emulator.db")
    run = cli("-q", "--state", state, "plan", str(config), "-o", "json")
    assert run.exit_code == 1
    assert result_of(run)["result"] == "fail"


def test_a_passing_rule_passes_at_every_level(cli: Cli, tmp_path: Path) -> None:
    for level in ("advisory", "soft", "hard"):
        config = write_config(tmp_path, Check.MAX_CAPACITY, level, nlp=2)
        run = cli("validate", str(config), "-o", "json")
        assert run.exit_code == 0
        assert result_of(run)["result"] == "pass"


def test_an_override_that_names_no_rule_is_refused(cli: Cli, tmp_path: Path) -> None:
    run = judge(cli, tmp_path, Check.MAX_CAPACITY, "soft", "--override", "the-rul")
    assert run.exit_code == 1
    assert "error[not-found]: --override names no rule: the-rul" in run.stderr
