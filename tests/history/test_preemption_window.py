"""A victim that takes the preemption window to stop shows up as a guarantee miss of exactly
that length with ``--grace 0``, and as none with the default grace.

The emulator models the window (a victim RUNNING with PREEMPTION_IN_PROGRESS before it stops)
once its timing has ``preemption_seconds``; until then this test is skipped."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from quotactl.core.engine.model import Timing, parse_timing
from quotactl.core.history.ledger import iso
from tests.history.scenario import Scenario

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

WINDOW = 20
STACK = """\
platform: {name: window, region: us-east-1}
environments:
  - {name: pool, capacity: {ml.p5.48xlarge: 8}}
queues:
  - {name: training, environment: pool}
teams:
  - name: red
    shares:
      - {name: a, queue: training, capacity: {ml.p5.48xlarge: 4}, sharing: lend_and_borrow}
  - name: blue
    shares:
      - {name: b, queue: training, capacity: {ml.p5.48xlarge: 4}, sharing: lend}
"""
pytestmark = pytest.mark.skipif(
    "preemption_seconds" not in {f.name for f in fields(Timing)},
    reason="the emulator has no preemption window yet",
)


def test_the_preemption_window_is_a_miss_of_its_length(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli
) -> None:
    monkeypatch.chdir(tmp_path)
    setting = f"scheduled=0,starting=0,preemption={WINDOW},termination=0"
    monkeypatch.setenv("QUOTACTL_EMULATOR_TIMING", setting)  # the CLI's emulator
    timing = parse_timing(setting)  # the scenario's own
    Path("stack.yaml").write_text(STACK)
    assert cli("apply", "stack.yaml", "--auto-approve").exit_code == 0
    scenario = Scenario(Path(".quotactl/emulator.db"), timing)
    scenario.submit("A1", "a", 8, 10)  # borrows all of b's capacity
    scenario.advance_to(0.5)
    scenario.submit("B1", "b", 4, 1)  # reclaims it: A1 takes the window to stop
    scenario.advance_to(2)
    window = ("--from", iso(scenario.at(0)), "--to", iso(scenario.at(2)))
    for grace, missed in (("0", WINDOW), ("5m", 0)):
        result = cli("usage", "stack.yaml", *window, "--grace", grace, "-o", "json")
        assert result.exit_code == 0, result.stderr
        b = next(r for r in json.loads(result.stdout)["rows"] if r["share"] == "b")
        assert abs(b["guarantee_miss_hours"] * 3600 - missed) < 0.01  # 6 decimals of an hour
        assert b["longest_miss_seconds"] == missed
