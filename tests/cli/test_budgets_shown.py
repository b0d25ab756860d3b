"""What the governor leaves on the account, as users see it: a share DISABLED by a hard
budget refuses `submit` at once (`budget-exceeded`), and `status`, `job why`, `usage`,
`doctor` and `metrics` show budgets, windows in force and overdue restores, read from the
shares' `quotactl:budget` and `quotactl:governed` tags (set here with boto3's tag_resource,
as the governor does)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from tests.cli.jobs_support import CONFIG, TYPE, Jobs, all_jobs, batch_client

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

RESETS = "2099-01-01T00:00:00Z"
PAST = "2000-01-01T00:00:00Z"


@pytest.fixture
def jobs(cli: Callable[..., CliResult], tmp_path: Path) -> Jobs:
    account = Jobs(cli, tmp_path)
    account.apply()
    return account


def share_arn(client: Any, name: str, queue: str = "q") -> str:
    for share in client.list_quota_shares(jobQueue=queue)["quotaShares"]:
        if share["quotaShareName"] == name:
            return str(share["quotaShareArn"])
    raise AssertionError(name)


def govern_budget(
    jobs: Jobs, share: str, *, over: str = "hard", used: str = "12", until: str = RESETS
) -> None:
    """What a governor cycle does to a share of a team over its budget."""
    client = batch_client(jobs.tmp / "state.db")
    arn = share_arn(client, share)
    if over == "hard":
        client.update_quota_share(quotaShareArn=arn, state="DISABLED")
    else:
        client.update_quota_share(
            quotaShareArn=arn, resourceSharingConfiguration={"strategy": "LEND"}
        )
    client.tag_resource(
        resourceArn=arn,
        tags={
            "quotactl:budget": f"{over} resets={RESETS} {TYPE}={used}/10",
            "quotactl:governed": f"budget until={until}",
        },
    )


def test_submit_to_a_share_disabled_by_a_hard_budget_is_refused_at_once(jobs: Jobs) -> None:
    govern_budget(jobs, "b")
    for dry in ((), ("--dry-run",)):
        result = jobs.run("submit", jobs.spec(), "--share", "b", *dry)
        assert result.exit_code == 1, result.stderr
        assert "budget-exceeded" in result.stderr
        assert "team b is over its hard budget" in result.stderr
        assert f"{TYPE} 12 of 10 h" in result.stderr
        assert "resets at 2099-01-01T00:00Z" in result.stderr
    assert all_jobs(batch_client(jobs.tmp / "state.db")) == []


def test_a_share_disabled_by_hand_is_still_share_disabled(jobs: Jobs) -> None:
    client = batch_client(jobs.tmp / "state.db")
    client.update_quota_share(quotaShareArn=share_arn(client, "b"), state="DISABLED")
    result = jobs.run("submit", jobs.spec(), "--share", "b", "-o", "json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["error"]["code"] == "share-disabled"


def govern_window(jobs: Jobs, share: str, until: str) -> None:
    """What a cycle does to a share while a window is in force: tags it with the window."""
    client = batch_client(jobs.tmp / "state.db")
    client.tag_resource(
        resourceArn=share_arn(client, share),
        tags={"quotactl:governed": f"schedule:weekend until={until}"},
    )


def test_status_shows_budgets_windows_in_force_and_overdue_restores(jobs: Jobs) -> None:
    govern_budget(jobs, "b", used="12.5")
    govern_window(jobs, "a", PAST)
    document = jobs.json("status")
    assert document["budgets"] == [
        {
            "team": "b",
            "instance_type": TYPE,
            "over": "hard",
            "used": 12.5,
            "limit": 10.0,
            "ratio": 1.25,
            "exceeded": True,
            "overshoot": 2.5,
            "resets": RESETS,
        }
    ]
    assert document["governed"] == [
        {
            "address": "share.q/a",
            "policy": "schedule:weekend",
            "until": PAST,
            "enabled": True,
            "overdue": True,
        },
        {
            "address": "share.q/b",
            "policy": "budget",
            "until": RESETS,
            "enabled": False,
            "overdue": False,
        },
    ]
    text = jobs.ok("status", "--no-color").stdout
    assert f"b {TYPE}: 12.5 of 10 h (125%), hard budget, over, over by 2.5 h" in text
    assert "share.q/b: budget until 2099-01-01T00:00Z" in text
    (overdue,) = [line for line in text.splitlines() if "OVERDUE" in line]
    assert "share.q/a: schedule:weekend until 2000-01-01T00:00Z" in overdue


def test_status_without_a_governor_shows_no_budget_section(jobs: Jobs) -> None:
    document = jobs.json("status")
    assert document["budgets"] == document["governed"] == []
    assert "Budgets" not in jobs.ok("status").stdout


def test_job_why_says_over_budget_when_a_budget_stopped_the_share_borrowing(jobs: Jobs) -> None:
    jobs.submit("a", 2)
    jobs.advance("2m")
    govern_budget(jobs, "a", over="soft")
    (waiting,) = jobs.submit("a", 1)
    jobs.advance("1m")
    wait = jobs.json("job", "why", waiting)["wait"]
    assert wait["code"] == "over-budget"
    assert "a is over its soft budget" in wait["message"]
    assert "until 2099-01-01T00:00Z" in wait["message"]
    status = jobs.json("status")
    (share,) = [s for s in status["queues"][0]["shares"] if s["name"] == "a"]
    assert share["head"]["wait_code"] == "over-budget"


def test_doctor_flags_a_restore_the_governor_did_not_make(jobs: Jobs) -> None:
    govern_window(jobs, "a", RESETS)
    checks = {c["name"]: c for c in jobs.json("doctor")["checks"]}
    assert checks["governor"]["status"] == "pass"
    govern_window(jobs, "a", PAST)
    result = jobs.run("doctor", "-o", "json")
    assert result.exit_code == 0, result.stderr
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["governor"]["status"] == "warn"
    assert "share.q/a (schedule:weekend, due 2000-01-01T00:00Z)" in checks["governor"]["message"]


def test_doctor_says_nothing_of_a_governor_where_none_runs(jobs: Jobs) -> None:
    checks = {c["name"] for c in jobs.json("doctor")["checks"]}
    assert "governor" not in checks


def test_openmetrics_exports_budget_ratios_governed_shares_and_overdue_restores(
    jobs: Jobs,
) -> None:
    govern_budget(jobs, "b", used="5")
    govern_window(jobs, "a", PAST)
    text = jobs.ok("status", "-o", "openmetrics").stdout
    assert f'quotactl_budget_used_ratio{{instance_type="{TYPE}",team="b"}} 0.5' in text
    assert f'quotactl_budget_limit_hours{{instance_type="{TYPE}",team="b"}} 10.0' in text
    assert 'quotactl_governed{policy="budget",queue="q",share="b"} 1.0' in text
    assert 'quotactl_governed{policy="schedule:weekend",queue="q",share="a"} 1.0' in text
    assert "quotactl_governor_overdue_restores 1.0" in text


BUDGETED = CONFIG.replace(
    "  - name: a\n",
    f"  - name: a\n    budget: {{every: month, instance_hours: {{{TYPE}: 10}}, over: soft}}\n",
)


def test_usage_shows_a_budgeted_teams_hours_of_its_budget(jobs: Jobs) -> None:
    config = jobs.tmp / "budgeted.yaml"
    config.write_text(BUDGETED)
    jobs.ok("apply", str(config), "--auto-approve")
    jobs.submit("a", 2)
    jobs.advance("1h")
    document = jobs.json("usage", str(config), "--since", "2h")
    (budget,) = document["budgets"]
    assert budget["team"] == "a"
    assert budget["instance_type"] == TYPE
    assert budget["over"] == "soft"
    assert budget["limit"] == 10
    assert 1.8 < budget["used"] <= 2.0  # two instances for about an hour
    assert budget["ratio"] == round(budget["used"] / 10, 4)
    assert budget["exceeded"] is False
    assert budget["resets"].endswith("-01T00:00:00Z")
    text = jobs.ok("usage", str(config), "--since", "2h").stdout
    assert "Budgets at" in text
    assert f"a {TYPE}: " in text
    assert "of 10 h" in text
    assert "soft budget, within" in text
