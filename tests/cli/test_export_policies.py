"""``export`` gives the policies back from their records on the account: a share's own
settings (not the window's in force), its schedule, the team's budget, the queue's aging, so
a plan on the export shows no change, also while a window is in force; a record it cannot
read, or a governed share with no record, is a warning."""

from __future__ import annotations

from typing import TYPE_CHECKING

import yaml

from tests.cli.jobs_support import batch_client
from tests.cli.test_plan_policy_changes import APPLIED, P5, TUESDAY, Account

if TYPE_CHECKING:
    from pathlib import Path

    from tests.conftest import CliResult

WITH_AGING = APPLIED.replace(
    "    environment: pool\n",
    "    environment: pool\n    aging: {after: 4h, every: 1h, step: 2, max: 40}\n",
    1,
)


def _account(tmp_path: Path, cli: object, config: str) -> Account:
    account = Account(cli, tmp_path / "state.db", tmp_path / "config.yaml")  # type: ignore[arg-type]
    assert account.run("local", "reset", "--at", TUESDAY).exit_code == 0
    account.config.write_text(config)
    _ok(account.run("apply", str(account.config), "--auto-approve"))
    return account


def _ok(result: CliResult) -> CliResult:
    assert result.exit_code == 0, result.stderr
    return result


def test_an_export_while_a_window_is_in_force_gives_back_the_base_and_plans_no_change(
    tmp_path: Path, cli: object
) -> None:
    account = _account(tmp_path, cli, WITH_AGING)
    _ok(account.run("local", "advance", "4d"))  # Saturday 10:00 UTC: the weekend window
    applied = _ok(account.run("apply", str(account.config), "--auto-approve"))
    assert "capacity[ml.p5.48xlarge]: 4 → 8" in " ".join(applied.stdout.split()), applied.stdout
    out = tmp_path / "exported"
    exported = _ok(account.run("export", "--out", str(out)))
    assert "warning" not in exported.stderr
    team = yaml.safe_load((out / "teams" / "nlp.yaml").read_text())["teams"][0]
    share = team["shares"][0]
    assert share["capacity"] == {P5: 4}  # the base, not the window's 8
    assert share["sharing"] == "lend_and_borrow"
    assert [w["name"] for w in share["schedule"]] == ["weekend", "nights"]
    assert share["schedule"][0] == {
        "name": "weekend",
        "when": {"days": ["sat", "sun"], "timezone": "Europe/Berlin"},
        "capacity": {P5: 8},
    }
    assert team["budget"] == {
        "every": "month",
        "instance_hours": {P5: 2000},
        "counts": "used",
        "over": "soft",
    }
    platform = yaml.safe_load((out / "platform.yaml").read_text())
    assert platform["queues"][0]["aging"] == {
        "after": 14400,
        "every": 3600,
        "step": 2,
        "max": 40,
        "preempt": False,
    }
    planned = account.run("plan", str(out), "--detailed-exitcode")
    assert planned.exit_code == 0, planned.stdout
    assert "share.training/nlp: window weekend in force" in planned.stdout


def test_an_unreadable_record_and_a_governed_share_without_records_are_warnings(
    tmp_path: Path, cli: object
) -> None:
    long_window = (
        "          - name: holidays\n"
        "            when: {dates: ["
        + ", ".join(f"2027-12-{d:02d}" for d in range(1, 25))
        + "]}\n            enabled: false\n"
    )
    account = _account(tmp_path, cli, APPLIED + long_window)
    client = batch_client(account.state)
    share = client.list_quota_shares(jobQueue="training")["quotaShares"][0]
    arn = share["quotaShareArn"]
    tags = client.list_tags_for_resource(resourceArn=arn)["tags"]
    assert tags["quotactl:window:holidays"].startswith("sha256=")
    exported = _ok(account.run("export"))
    assert "share.training/nlp: the record of its window holidays cannot be read back" in " ".join(
        exported.stderr.split()
    )
    # as an older quotactl left it: no records, a window in force by the governor
    client.untag_resource(resourceArn=arn, tagKeys=[k for k in tags if k.startswith("quotactl:w")])
    client.untag_resource(resourceArn=arn, tagKeys=["quotactl:base", "quotactl:budget-rule"])
    client.tag_resource(
        resourceArn=arn, tags={"quotactl:governed": "schedule:weekend until=2027-01-17T23:00:00Z"}
    )
    older = _ok(account.run("export"))
    assert (
        "share.training/nlp: schedule:weekend is in force and the share has no record of its "
        "base settings (applied by an older quotactl): the settings exported are the policy's"
    ) in " ".join(older.stderr.split())
