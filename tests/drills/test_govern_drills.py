"""The governor killed mid-cycle (SIGKILL) converges when it runs again: every share the
window covers changed and tagged once, the log holding each action once, the next cycle
doing nothing. Every call takes 300 ms, so the kill lands between the writes of a cycle."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pytest

from tests.cli.jobs_support import batch_client
from tests.conftest import TEST_TIMING

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

TEAMS = 12
P5 = "ml.p5.48xlarge"
SATURDAY = datetime(2030, 1, 5, 1, 0, tzinfo=UTC)


def write_config(path: Path) -> None:
    lines = [
        "platform: {name: drill, region: us-east-1}",
        f"environments: [{{name: pool, capacity: {{{P5}: {2 * TEAMS}}}}}]",
        "queues: [{name: training, environment: pool}]",
        "teams:",
    ]
    for n in range(TEAMS):
        lines += [
            f"  - name: team{n}",
            "    shares:",
            f"      - queue: training\n        capacity: {{{P5}: 1}}\n        sharing: lend",
            "        schedule:",
            f"          - {{name: weekend, when: {{days: [sat, sun]}}, capacity: {{{P5}: 2}}}}",
        ]
    path.write_text("\n".join(lines) + "\n")


def shares(state: Path) -> dict[str, dict[str, Any]]:
    client = batch_client(state)
    found = {}
    for item in client.list_quota_shares(jobQueue="training")["quotaShares"]:
        found[item["quotaShareName"]] = client.describe_quota_share(
            quotaShareArn=item["quotaShareArn"]
        )
    return found


def tagged(state: Path) -> int:
    return sum("quotactl:governed" in s["tags"] for s in shares(state).values())


@pytest.mark.slow
def test_a_governor_killed_mid_cycle_converges_when_run_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli
) -> None:
    from quotactl.emulator import Emulator

    monkeypatch.chdir(tmp_path)
    state, config, log = tmp_path / "state.db", tmp_path / "config.yaml", tmp_path / "log.jsonl"
    write_config(config)
    with Emulator(state, timing=TEST_TIMING) as emulator:  # a Saturday: the window in force
        emulator.advance(SATURDAY.timestamp() - emulator.now())
    assert cli("-q", "--state", str(state), "apply", str(config), "--auto-approve").exit_code == 0

    env = {**os.environ, "QUOTACTL_EMULATOR_FAULTS": "latency_ms=300", "NO_COLOR": "1"}
    argv = [sys.executable, "-m", "quotactl", "--state", str(state), "govern", str(config)]
    with subprocess.Popen(
        [*argv, "--log", str(log)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
    ) as process:
        deadline = time.monotonic() + 120
        while process.poll() is None and time.monotonic() < deadline and tagged(state) < 2:
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=30)
    assert process.returncode == -signal.SIGKILL
    half_way = shares(state)
    assert sum(s["tags"].get("quotactl:governed") is not None for s in half_way.values()) > 0
    assert any(s["capacityLimits"][0]["maxCapacity"] == 1 for s in half_way.values())

    # Its lock is still valid for minutes: the next cycle is skipped, not queued, and says
    # whose lock it is; force-unlock (or the lock expiring: a dead governor's is taken over)
    # lets the next one run.
    skipped = cli("-q", "--state", str(state), "govern", str(config), "--log", str(log))
    assert skipped.exit_code == 0, skipped.stderr
    assert "skipped: stack drill is locked by" in skipped.stdout
    assert "(govern, since" in skipped.stdout
    unlocked = cli("-q", "--state", str(state), "force-unlock", str(config), "--yes")
    assert unlocked.exit_code == 0, unlocked.stderr
    again = cli("-q", "--state", str(state), "govern", str(config), "--log", str(log))
    assert again.exit_code == 0, again.stderr
    for name, share in shares(state).items():
        assert share["capacityLimits"] == [{"capacityUnit": P5, "maxCapacity": 2}], name
        assert share["tags"]["quotactl:governed"] == "schedule:weekend until=2030-01-07T00:00:00Z"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    addresses = [r["address"] for r in records]
    assert sorted(addresses) == sorted(f"share.training/team{n}" for n in range(TEAMS))
    assert {r["result"] for r in records} == {"applied"}
    last = cli("-q", "--state", str(state), "govern", str(config), "--detailed-exitcode")
    assert last.exit_code == 0, last.stdout
    assert "No actions" in last.stdout


@pytest.mark.slow
def test_sigterm_stops_govern_every_after_the_cycle_in_hand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli
) -> None:
    from quotactl.emulator import Emulator

    monkeypatch.chdir(tmp_path)
    state, config, log = tmp_path / "state.db", tmp_path / "config.yaml", tmp_path / "log.jsonl"
    write_config(config)
    with Emulator(state, timing=TEST_TIMING) as emulator:
        emulator.advance(SATURDAY.timestamp() - emulator.now())
    assert cli("-q", "--state", str(state), "apply", str(config), "--auto-approve").exit_code == 0

    env = {**os.environ, "QUOTACTL_EMULATOR_FAULTS": "latency_ms=300", "NO_COLOR": "1"}
    argv = [sys.executable, "-m", "quotactl", "-q", "--state", str(state), "govern", str(config)]
    with subprocess.Popen(
        [*argv, "--every", "5m", "--log", str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    ) as process:
        deadline = time.monotonic() + 120
        while process.poll() is None and time.monotonic() < deadline and tagged(state) < 2:
            time.sleep(0.02)
        process.send_signal(signal.SIGTERM)  # mid-cycle: it finishes the cycle, then stops
        stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr
    assert stdout.count("Governor cycle at") == 1
    assert stdout.count("      applied") == TEAMS
    assert tagged(state) == TEAMS
    assert len(log.read_text().splitlines()) == TEAMS
