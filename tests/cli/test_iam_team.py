"""`iam-policy --team T`: the policy for a team's training role, from the config's shares and
`max_priority`; `iam-policy --command govern`: what the governor needs."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    import pytest

    from tests.conftest import CliResult


def test_a_teams_role_submits_to_its_shares_only_up_to_its_max_priority(
    cli: Callable[..., CliResult], repo_root: Path
) -> None:
    config = str(repo_root / "configs" / "examples" / "governed")
    result = cli("iam-policy", "--team", "research", config)
    assert result.exit_code == 0, result.stderr
    statements = {s["Sid"]: s for s in json.loads(result.stdout)["Statement"]}
    submit = statements["SubmitToOwnShares"]
    assert submit["Resource"] == [
        "arn:aws:batch:us-east-1:*:job-queue/training",
        "arn:aws:batch:us-east-1:*:job-queue/training/quota-share/research",
        "arn:aws:batch:us-east-1:*:service-job/*",
    ]
    assert submit["Condition"] == {
        "NumericLessThanEqualsIfExists": {"batch:SchedulingPriority": "100"}
    }
    denied = statements["NoShareChanges"]
    assert denied["Effect"] == "Deny"
    assert "batch:UpdateQuotaShare" in denied["Action"]
    assert "batch:TagResource" in denied["Action"]


def test_a_team_without_max_priority_has_no_priority_condition(
    cli: Callable[..., CliResult], repo_root: Path
) -> None:
    config = str(repo_root / "configs" / "examples" / "governed")
    result = cli("iam-policy", "--team", "nlp", config)
    assert result.exit_code == 0, result.stderr
    (submit,) = [
        s for s in json.loads(result.stdout)["Statement"] if s["Sid"] == "SubmitToOwnShares"
    ]
    assert "Condition" not in submit
    assert "job-queue/training/quota-share/nlp" in submit["Resource"][1]


def test_an_unknown_team_names_the_teams(cli: Callable[..., CliResult], repo_root: Path) -> None:
    config = str(repo_root / "configs" / "examples" / "governed")
    result = cli("iam-policy", "--team", "vision", config)
    assert result.exit_code != 0
    assert "no team 'vision'" in result.stderr
    assert "nlp, research" in result.stderr


def test_govern_is_granted_share_and_job_updates(
    cli: Callable[..., CliResult], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("iam-policy", "--command", "govern")
    assert result.exit_code == 0, result.stderr
    actions = {
        action
        for statement in json.loads(result.stdout)["Statement"]
        for action in (
            [statement["Action"]] if isinstance(statement["Action"], str) else statement["Action"]
        )
    }
    assert {"batch:UpdateQuotaShare", "batch:UpdateServiceJob", "batch:UntagResource"} <= actions
    assert "batch:CreateQuotaShare" not in actions
