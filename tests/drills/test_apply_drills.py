"""Fault drills: apply converges through throttling, server errors and a SIGKILL half-way.

Each drill applies a 100-share stack (5 queues x 20 shares) to the embedded emulator and
checks what an operator would: the apply reports success, the account holds each share
exactly once, and a plan afterwards shows no changes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from quotactl.aws.session import Target, client
from tests.conftest import TEST_TIMING

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

QUEUES, SHARES = 5, 20
STATE = Path(".quotactl/emulator.db")


def write_stack(root: Path) -> Path:
    config = root / "configs"
    (config / "teams").mkdir(parents=True)
    lines = ["platform: {name: drill, region: us-east-1}", "environments:"]
    lines += [f"  - {{name: env{q}, capacity: {{ml.g5.xlarge: {SHARES}}}}}" for q in range(QUEUES)]
    lines += ["queues:"] + [f"  - {{name: queue{q}, environment: env{q}}}" for q in range(QUEUES)]
    (config / "platform.yaml").write_text("\n".join(lines) + "\n")
    for s in range(SHARES):
        shares = "\n".join(
            f"      - {{queue: queue{q}, capacity: {{ml.g5.xlarge: 1}}, sharing: lend}}"
            for q in range(QUEUES)
        )
        (config / "teams" / f"team{s}.yaml").write_text(
            f"teams:\n  - name: team{s}\n    tags: {{owner: team{s}}}\n    shares:\n{shares}\n"
        )
    return config


def live_shares() -> list[str]:
    batch = client(Target("local", STATE, timing=TEST_TIMING))
    names = []
    for q in range(QUEUES):
        pages = batch.get_paginator("list_quota_shares").paginate(jobQueue=f"queue{q}")
        names += [f"queue{q}/{s['quotaShareName']}" for page in pages for s in page["quotaShares"]]
    return names


@pytest.fixture
def stack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return write_stack(tmp_path)


@pytest.mark.slow
def test_apply_converges_under_throttling_and_server_errors(
    stack: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUOTACTL_EMULATOR_FAULTS", "throttle=0.2,error=0.05,seed=7")
    result = cli("apply", str(stack), "--auto-approve")
    assert result.exit_code == 0, result.stdout[-2000:] + result.stderr
    assert "Apply complete: 115 created" in result.stdout
    monkeypatch.delenv("QUOTACTL_EMULATOR_FAULTS")
    shares = live_shares()
    assert len(shares) == len(set(shares)) == QUEUES * SHARES
    assert cli("plan", str(stack), "--detailed-exitcode").exit_code == 0


def count_live_shares(batch: Any) -> int:
    """Shares that exist right now; queues not created yet hold none."""
    count = 0
    for q in range(QUEUES):
        try:
            count += len(batch.list_quota_shares(jobQueue=f"queue{q}")["quotaShares"])
        except batch.exceptions.ClientException:
            continue
    return count


def signal_apply_half_way(stack: Path, sig: signal.Signals) -> tuple[int, str]:
    """Start an apply, send ``sig`` once 30 shares are live; its exit status and stderr.

    Every call takes 300 ms, so 100 shares take seconds to create: the signal, sent as soon as
    30 exist (watched on the live account, not on the apply's output, which trails the
    creates in flight), lands half-way.
    """
    env = {**os.environ, "QUOTACTL_EMULATOR_FAULTS": "latency_ms=300", "NO_COLOR": "1"}
    argv = [sys.executable, "-m", "quotactl", "apply", str(stack), "--auto-approve"]
    with subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True
    ) as process:
        deadline = time.monotonic() + 60
        batch = client(
            Target("local", STATE, timing=TEST_TIMING)
        )  # one client: a poll is a few calls, not a setup
        while process.poll() is None and time.monotonic() < deadline:
            if count_live_shares(batch) >= 30:
                break
            time.sleep(0.02)
        process.send_signal(sig)
        _, stderr = process.communicate(timeout=30)
    return process.returncode, stderr


@pytest.mark.slow
def test_an_apply_killed_half_way_converges_when_run_again(stack: Path, cli: Cli) -> None:
    returncode, _ = signal_apply_half_way(stack, signal.SIGKILL)
    assert returncode == -signal.SIGKILL
    partial = live_shares()
    assert 30 <= len(partial) < QUEUES * SHARES, "the kill must land half-way"

    # The killed apply could not release the stack's lock: the next one is refused, naming it,
    # until force-unlock clears it.
    locked = cli("apply", str(stack), "--auto-approve")
    assert locked.exit_code == 1
    assert "error[state-locked]: stack drill is locked by" in locked.stderr
    assert "(apply, since" in locked.stderr
    assert len(live_shares()) == len(partial), "a refused apply changes nothing"
    unlocked = cli("force-unlock", str(stack), "--yes")
    assert unlocked.exit_code == 0, unlocked.stderr

    again = cli("apply", str(stack), "--auto-approve")
    assert again.exit_code == 0, again.stdout[-2000:] + again.stderr
    shares = live_shares()
    assert len(shares) == len(set(shares)) == QUEUES * SHARES
    assert cli("plan", str(stack), "--detailed-exitcode").exit_code == 0


@pytest.mark.slow
def test_ctrl_c_half_way_exits_130_says_so_and_a_rerun_converges(stack: Path, cli: Cli) -> None:
    returncode, stderr = signal_apply_half_way(stack, signal.SIGINT)
    assert returncode == 130, stderr
    assert "apply interrupted" in stderr
    assert "Traceback" not in stderr
    assert len(live_shares()) < QUEUES * SHARES, "the interrupt must land half-way"

    # The interrupted apply released its lock on the way out: a re-run needs no force-unlock.
    again = cli("apply", str(stack), "--auto-approve")
    assert again.exit_code == 0, again.stdout[-2000:] + again.stderr
    shares = live_shares()
    assert len(shares) == len(set(shares)) == QUEUES * SHARES
    assert cli("plan", str(stack), "--detailed-exitcode").exit_code == 0
