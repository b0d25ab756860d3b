"""The policies a change adds, removes or alters, end to end on the emulator through the CLI:
apply records each window, budget and aging as tags on the account, so a plan made on a
Tuesday shows that a pull request edits the weekend window (before -> after, and when it next
takes effect), and a plan right after apply shows no change."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

P5 = "ml.p5.48xlarge"
TUESDAY = "2027-01-12T10:00:00Z"
APPLIED = f"""
platform: {{name: rec, region: us-east-1}}
environments:
  - name: pool
    capacity: {{{P5}: 16}}
queues:
  - name: training
    environment: pool
teams:
  - name: nlp
    budget: {{every: month, instance_hours: {{{P5}: 2000}}}}
    shares:
      - queue: training
        capacity: {{{P5}: 4}}
        sharing: lend_and_borrow
        borrow_limit: 100
        schedule:
          - name: weekend
            when: {{days: [sat, sun], timezone: Europe/Berlin}}
            capacity: {{{P5}: 8}}
          - name: nights
            when: {{days: [mon-fri], hours: "20:00-08:00"}}
            sharing: lend
"""
EDITED = f"""
platform: {{name: rec, region: us-east-1}}
environments:
  - name: pool
    capacity: {{{P5}: 16}}
queues:
  - name: training
    environment: pool
    aging: {{after: 4h, every: 1h, step: 2, max: 40}}
teams:
  - name: nlp
    budget: {{every: month, instance_hours: {{{P5}: 1500}}, over: hard}}
    shares:
      - queue: training
        capacity: {{{P5}: 4}}
        sharing: lend_and_borrow
        borrow_limit: 100
        schedule:
          - name: weekend
            when: {{days: [sat, sun], timezone: Europe/Berlin}}
            capacity: {{{P5}: 10}}
          - name: holidays
            when: {{dates: [2027-12-24/2027-12-26]}}
            enabled: false
"""


@dataclass(frozen=True)
class Account:
    """An emulated account whose clock reads a Tuesday, with a config file applied."""

    cli: Cli
    state: Path
    config: Path

    def run(self, *args: str) -> CliResult:
        return self.cli("--state", str(self.state), *args)

    def plan(self, *args: str) -> CliResult:
        return self.run("plan", str(self.config), *args)


@pytest.fixture
def applied(tmp_path: Path, cli: Cli) -> Account:
    """APPLIED applied on a Tuesday."""
    account = Account(cli, tmp_path / "state.db", tmp_path / "config.yaml")
    assert account.run("local", "reset", "--at", TUESDAY).exit_code == 0
    account.config.write_text(APPLIED)
    result = account.run("apply", str(account.config), "--auto-approve")
    assert result.exit_code == 0, result.stderr
    return account


def test_a_plan_right_after_apply_shows_no_change(applied: Account) -> None:
    result = applied.plan("--detailed-exitcode")
    assert result.exit_code == 0, result.stdout
    assert "No changes." in result.stdout
    assert "this change to the policies" not in result.stdout


def test_a_plan_on_a_tuesday_shows_each_policy_the_change_adds_removes_or_alters(
    applied: Account,
) -> None:
    applied.config.write_text(EDITED)
    result = applied.plan()
    assert result.exit_code == 0, result.stderr
    section = result.stdout.split("\n\n")[0]
    assert section == (
        "Policies at 2027-01-12T10:00Z:\n"
        "  no schedule window in force: every share has its own settings\n"
        "  next window change: 2027-01-15T23:00Z\n"
        "  this change to the policies:\n"
        "    share.training/nlp: window weekend altered, next in force "
        "Sat 2027-01-16 00:00 Europe/Berlin (2027-01-15T23:00Z) "
        "until Mon 2027-01-18 00:00 Europe/Berlin (2027-01-17T23:00Z)\n"
        f"        capacity: {{{P5}: 8}} → {{{P5}: 10}}\n"
        "    share.training/nlp: window holidays added, next in force 2027-12-24T00:00Z "
        "until 2027-12-27T00:00Z\n"
        "        order:    (none) → 2\n"
        "        dates:    (none) → 2027-12-24/2027-12-26\n"
        "        timezone: (none) → UTC\n"
        "        enabled:  (none) → false\n"
        "    share.training/nlp: window nights removed\n"
        "        order:    2 → (none)\n"
        "        days:     mon, tue, wed, thu, fri → (none)\n"
        "        hours:    20:00-08:00 → (none)\n"
        "        timezone: UTC → (none)\n"
        "        sharing:  lend → (none)\n"
        "    team.nlp: budget altered, next period from 2027-02-01T00:00Z\n"
        "        over:           soft → hard\n"
        f"        instance_hours: {{{P5}: 2000}} → {{{P5}: 1500}}\n"
        "    queue.training: aging added\n"
        "        after:   (none) → 14400\n"
        "        every:   (none) → 3600\n"
        "        step:    (none) → 2\n"
        "        max:     (none) → 40\n"
        "        preempt: (none) → false"
    )
    document = json.loads(applied.plan("-o", "json").stdout)
    changes = document["policies"]["changes"]
    weekend = changes[0]
    assert weekend == {
        "address": "share.training/nlp",
        "policy": "window weekend",
        "action": "altered",
        "fields": [{"field": "capacity", "before": f"{{{P5}: 8}}", "after": f"{{{P5}: 10}}"}],
        "next_start": "2027-01-15T23:00:00Z",
        "next_end": "2027-01-17T23:00:00Z",
        "timezone": "Europe/Berlin",
    }
    assert [(c["address"], c["policy"], c["action"]) for c in changes] == [
        ("share.training/nlp", "window weekend", "altered"),
        ("share.training/nlp", "window holidays", "added"),
        ("share.training/nlp", "window nights", "removed"),
        ("team.nlp", "budget", "altered"),
        ("queue.training", "aging", "added"),
    ]
    # applied, the records match the configuration again
    assert applied.run("apply", str(applied.config), "--auto-approve").exit_code == 0
    again = applied.plan("--detailed-exitcode")
    assert again.exit_code == 0, again.stdout
    assert "this change to the policies" not in again.stdout


def test_a_saved_plan_carries_the_policy_changes_and_applies(
    applied: Account, tmp_path: Path
) -> None:
    applied.config.write_text(EDITED)
    saved = tmp_path / "plan.json"
    assert applied.plan("--out", str(saved)).exit_code == 0
    document = json.loads(saved.read_text())
    assert len(document["policies"]["changes"]) == 5
    result = applied.run("apply", "--plan", str(saved), "--auto-approve")
    assert result.exit_code == 0, result.stderr
    assert applied.plan("--detailed-exitcode").exit_code == 0
