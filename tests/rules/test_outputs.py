"""Every command that judges rules lists each rule's result in text, JSON and markdown, and
a failing command prints its whole output first; apply judges every rule again."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from quotactl.core.rules import Check
from tests.rules.test_levels import TRACE, write_config

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

RULES = """\
rules:
  - {name: owners, level: advisory, check: required_tags, keys: [owner]}
  - {name: reserve-cap, level: soft, check: max_reserve_fraction, value: 30}
  - {name: no-overcommit, level: hard, check: capacity_within_environment}
  - {name: ranking-wait, level: soft, check: max_wait, team: ranking, p95: 1h}
  - {name: calm, level: soft, check: max_preemptions, team: nlp, count: 10}
"""
STATIC = {"owners": "fail", "reserve-cap": "fail", "no-overcommit": "pass"}
OUTCOME = {"ranking-wait": "fail", "calm": "pass"}


@pytest.fixture
def config(tmp_path: Path) -> Path:
    where = write_config(tmp_path, Check.MAX_CAPACITY, "soft")
    (where / "rules.yaml").write_text(RULES)
    (tmp_path / "trace.csv").write_text(TRACE)
    return where


def results(document: str) -> dict[str, str]:
    return {r["name"]: r["result"] for r in json.loads(document)["rules"]}


def test_validate_lists_each_static_rule_in_text_and_json(cli: Cli, config: Path) -> None:
    text = cli("validate", str(config))
    assert text.exit_code == 1
    assert text.stdout.splitlines()[0].endswith(": valid")  # the whole output, then the error
    assert "Rules (3 rules: 1 pass, 2 fail):" in text.stdout
    for name in STATIC:
        assert f" {name} " in text.stdout
    assert "error[rule-failed]: 1 rule failed: reserve-cap (soft)" in text.stderr
    assert results(cli("validate", str(config), "-o", "json").stdout) == STATIC


def test_plan_lists_each_rule_in_text_json_and_markdown(
    cli: Cli, config: Path, tmp_path: Path
) -> None:
    state = ["-q", "--state", str(tmp_path / "db")]
    text = cli(*state, "plan", str(config))
    assert text.exit_code == 1
    assert "+ share.training/nlp will be created" in text.stdout
    assert "Rules (3 rules: 1 pass, 2 fail):" in text.stdout
    assert text.stdout.rstrip().endswith(
        "Plan: 6 to create, 0 to update, 0 to replace, 0 to delete."
    )
    document = cli(*state, "plan", str(config), "-o", "json")
    assert document.exit_code == 1
    assert results(document.stdout) == STATIC  # plan judges no outcome rule
    markdown = cli(*state, "plan", str(config), "-o", "markdown", "--override", "reserve-cap")
    assert markdown.exit_code == 0
    assert "| `reserve-cap` | soft | max_reserve_fraction | **overridden** |" in markdown.stdout
    assert "| `owners` | advisory | required_tags | **fail** |" in markdown.stdout
    assert "| `no-overcommit` | hard | capacity_within_environment | pass |" in markdown.stdout


@pytest.mark.parametrize("compare", [False, True])
def test_simulate_lists_each_outcome_rule_in_text_json_and_markdown(
    cli: Cli, config: Path, tmp_path: Path, compare: bool
) -> None:
    trace = str(tmp_path / "trace.csv")
    other = ["--compare", str(config)] if compare else []
    text = cli("simulate", str(config), "--trace", trace, *other)
    assert text.exit_code == 1
    assert "Rules (2 rules: 1 pass, 1 fail):" in text.stdout
    assert "FAIL       ranking-wait" in text.stdout
    assert "error[rule-failed]: 1 rule failed: ranking-wait (soft)" in text.stderr
    document = cli("simulate", str(config), "--trace", trace, *other, "-o", "json")
    assert document.exit_code == 1
    assert results(document.stdout) == OUTCOME
    markdown = cli(
        "simulate", str(config), "--trace", trace, *other, "-o", "markdown",
        "--override", "ranking-wait",
    )  # fmt: skip
    assert markdown.exit_code == 0
    assert "| `ranking-wait` | soft | max_wait | **overridden** |" in markdown.stdout
    assert "| `calm` | soft | max_preemptions | pass |" in markdown.stdout


def test_apply_refuses_a_failing_rule_and_changes_nothing(
    cli: Cli, config: Path, tmp_path: Path
) -> None:
    state = ["-q", "--state", str(tmp_path / "db")]
    refused = cli(*state, "apply", str(config), "--auto-approve")
    assert refused.exit_code == 1
    assert "error[rule-failed]: 1 rule failed: reserve-cap (soft)" in refused.stderr
    assert "Rules (3 rules" in refused.stdout  # the plan it refused, with every rule
    assert (
        cli(
            *state, "plan", str(config), "--detailed-exitcode", "--override", "reserve-cap"
        ).exit_code
        == 2
    )
    applied = cli(*state, "apply", str(config), "--auto-approve", "--override", "reserve-cap")
    assert applied.exit_code == 0, applied.stderr


def test_a_saved_plan_records_the_rules_and_apply_judges_them_again(
    cli: Cli, config: Path, tmp_path: Path
) -> None:
    state = ["-q", "--state", str(tmp_path / "db")]
    plan_file = tmp_path / "plan.json"
    saved = cli(*state, "plan", str(config), "--out", str(plan_file), "--override", "reserve-cap")
    assert saved.exit_code == 0
    document = json.loads(plan_file.read_text())
    assert document["overrides"] == ["reserve-cap"]
    assert [r["name"] for r in document["rule_definitions"]] == [
        "owners", "reserve-cap", "no-overcommit", "ranking-wait", "calm",
    ]  # fmt: skip
    assert {r["name"]: r["result"] for r in document["rules"]}["reserve-cap"] == "overridden"
    # apply takes no override from the file: accepting a soft rule is apply's own decision
    refused = cli(*state, "apply", "--plan", str(plan_file), "--auto-approve")
    assert refused.exit_code == 1
    assert "error[rule-failed]: 1 rule failed: reserve-cap (soft)" in refused.stderr
    hard = tmp_path / "hard.yaml"
    hard.write_text(
        "rules:\n  - {name: reserve-cap, level: hard, check: max_reserve_fraction, value: 30}\n"
    )
    stricter = cli(
        *state, "apply", "--plan", str(plan_file), "--auto-approve",
        "--override", "reserve-cap", "--rules", str(hard),
    )  # fmt: skip
    assert stricter.exit_code == 1
    assert "error[rule-failed]: 1 rule failed: reserve-cap (hard)" in stricter.stderr
    applied = cli(
        *state, "apply", "--plan", str(plan_file), "--auto-approve", "--override", "reserve-cap"
    )
    assert applied.exit_code == 0, applied.stderr


def test_rules_from_elsewhere_replace_the_configs_own(
    cli: Cli, config: Path, tmp_path: Path
) -> None:
    base = tmp_path / "base"
    base.mkdir()
    (base / "platform.yaml").write_text(
        "platform: {name: other, region: us-east-1}\n"
        "rules:\n  - {name: ranking-big, level: soft, check: min_capacity, team: ranking,"
        " capacity: {ml.p5.48xlarge: 8}}\n"
    )
    run = cli("validate", str(config), "--rules", str(base), "-o", "json")
    assert run.exit_code == 1
    assert results(run.stdout) == {"ranking-big": "fail"}
    gone = tmp_path / "gone.yaml"
    gone.write_text("rules:\n  - {name: vision, level: hard, check: max_capacity, team: vision,"
                    " capacity: {ml.p5.48xlarge: 1}}\n")  # fmt: skip
    run = cli("validate", str(config), "--rules", str(gone), "-o", "json")
    assert run.exit_code == 1
    (only,) = json.loads(run.stdout)["rules"]
    assert only["message"] == "team vision is not in the config"
