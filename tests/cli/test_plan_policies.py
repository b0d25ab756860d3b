"""plan in time, end to end on the emulator: ``plan --at`` plans against the schedule window in
force then, the plan shows a policies section, and a saved plan goes stale when the windows
it recorded are no longer in force."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

NLP = Path("configs/demo/teams/nlp.yaml")
WEEKEND = """\
        schedule:
          - name: weekend
            when: {days: [sat, sun], timezone: Europe/Berlin}
            in_share_preemption: false
"""
SATURDAY = "2027-01-09T10:00Z"
TUESDAY = "2027-01-12T10:00Z"


@pytest.fixture
def scheduled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo_root: Path, cli: Cli) -> Path:
    """The demo applied (without windows), then a weekend window added to nlp's share."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(repo_root / "configs" / "demo", tmp_path / "configs" / "demo")
    result = cli("apply", "configs/demo", "--auto-approve")
    assert result.exit_code == 0, result.stderr
    NLP.write_text(NLP.read_text() + WEEKEND)
    return tmp_path


def test_plan_at_a_weekend_instant_plans_the_weekend_window(scheduled: Path, cli: Cli) -> None:
    result = cli("plan", "configs/demo", "--at", SATURDAY, "--detailed-exitcode")
    assert result.exit_code == 2, result.stderr
    assert result.stdout.startswith(
        "Policies at 2027-01-09T10:00Z:\n"
        "  share.training/nlp: window weekend in force\n"
        "  next window change: 2027-01-10T23:00Z\n"  # Monday 00:00 in Berlin
    )
    assert "~ share.training/nlp will be updated in place" in result.stdout
    assert "in_share_preemption: true → false" in " ".join(result.stdout.split())


def test_plan_at_a_weekday_names_the_next_window_and_the_window_the_change_adds(
    scheduled: Path, cli: Cli
) -> None:
    result = cli("plan", "configs/demo", "--at", TUESDAY, "--detailed-exitcode")
    assert result.exit_code == 2, result.stderr
    assert result.stdout.startswith(
        "Policies at 2027-01-12T10:00Z:\n"
        "  no schedule window in force: every share has its own settings\n"
        "  next window change: 2027-01-15T23:00Z\n"  # Saturday 00:00 in Berlin
        "  this change to the policies:\n"
        "    share.training/nlp: window weekend added, next in force "
        "Sat 2027-01-16 00:00 Europe/Berlin (2027-01-15T23:00Z) "
        "until Mon 2027-01-18 00:00 Europe/Berlin (2027-01-17T23:00Z)\n"
    )
    document = json.loads(cli("plan", "configs/demo", "--at", TUESDAY, "-o", "json").stdout)
    policies = document["policies"]
    assert {k: policies[k] for k in ("at", "windows", "budgets", "next_change")} == {
        "at": "2027-01-12T10:00:00Z",
        "windows": [],
        "budgets": [],
        "next_change": "2027-01-15T23:00:00Z",
    }
    assert [(c["address"], c["policy"], c["action"]) for c in policies["changes"]] == [
        ("share.training/nlp", "window weekend", "added")
    ]
    markdown = cli("plan", "configs/demo", "--at", SATURDAY, "-o", "markdown").stdout
    assert (
        "**Policies at 2027-01-09T10:00Z:**\n\n- share.training/nlp: window weekend in force\n"
        in (markdown)
    )


def test_a_saved_plan_for_windows_no_longer_in_force_is_stale(scheduled: Path, cli: Cli) -> None:
    past = "2026-01-03T10:00Z"  # a Saturday before any day this test runs
    made = cli("plan", "configs/demo", "--at", past, "--out", "weekend.json")
    assert made.exit_code == 0, made.stderr
    saved = json.loads(Path("weekend.json").read_text())
    assert saved["policies"]["windows"] == [{"address": "share.training/nlp", "window": "weekend"}]
    result = cli("apply", "--plan", "weekend.json", "--auto-approve")
    assert result.exit_code == 1
    assert (
        "error[plan-stale]: the saved plan is stale: the policies in force when it was made "
        "(2026-01-03T10:00Z) changed at 2026-01-04T23:00Z; nothing was changed"
    ) in result.stderr
    ahead = cli("plan", "configs/demo", "--at", "2099-01-03T10:00Z", "--out", "ahead.json")
    assert ahead.exit_code == 0, ahead.stderr
    early = cli("apply", "--plan", "ahead.json", "--auto-approve")
    assert early.exit_code == 1
    assert (
        "it was made for the policies in force at 2099-01-03T10:00Z, which is still to come"
    ) in early.stderr


def test_a_plan_made_now_applies_and_a_bad_at_is_a_usage_error(scheduled: Path, cli: Cli) -> None:
    assert cli("plan", "configs/demo", "--out", "now.json").exit_code == 0
    result = cli("apply", "--plan", "now.json", "--auto-approve")
    assert result.exit_code == 0, result.stderr
    bad = cli("plan", "configs/demo", "--at", "next saturday")
    assert bad.exit_code == 64
    assert "--at 'next saturday' is not an ISO 8601 time" in bad.stderr
