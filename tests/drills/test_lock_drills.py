"""Concurrency drill: two applies of different configs of one stack, started at the same moment.

Ten trials, each two real ``quotactl apply`` processes on one emulated account (every call
slowed to 20 ms so that they overlap). The lock must make them serial: never both succeed
while overlapping (the refused one says ``state-locked``), and afterwards live matches exactly
the config of the apply that ran last, by a plan showing no change.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

TRIALS = 10
TEAMS = 4


def write_config(root: Path, capacity: int) -> Path:
    config = root / f"config-{capacity}"
    config.mkdir()
    teams = "\n".join(
        f"  - name: team{t}\n    shares:\n"
        f"      - {{queue: q, capacity: {{ml.g5.xlarge: {capacity}}}, sharing: lend}}"
        for t in range(TEAMS)
    )
    (config / "stack.yaml").write_text(
        "platform: {name: drill, region: us-east-1}\n"
        f"environments:\n  - {{name: env, capacity: {{ml.g5.xlarge: {TEAMS * capacity}}}}}\n"
        "queues:\n  - {name: q, environment: env}\n"
        f"teams:\n{teams}\n"
    )
    return config


@pytest.mark.slow
def test_two_concurrent_applies_never_interleave(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli
) -> None:
    monkeypatch.chdir(tmp_path)
    configs = [write_config(tmp_path, 1), write_config(tmp_path, 2)]
    env = {**os.environ, "NO_COLOR": "1", "QUOTACTL_EMULATOR_FAULTS": "latency_ms=20"}
    outcomes: list[tuple[int, int]] = []
    for trial in range(TRIALS):
        order = configs if trial % 2 == 0 else configs[::-1]
        argv = [[sys.executable, "-m", "quotactl", "apply", str(c), "--auto-approve", "-q"]
                for c in order]  # fmt: skip
        processes = [
            subprocess.Popen(a, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            for a in argv
        ]
        finished: dict[int, float] = {}
        results: dict[int, tuple[int, str]] = {}
        while len(results) < 2:
            for index, process in enumerate(processes):
                if index not in results and process.poll() is not None:
                    finished[index] = time.monotonic()
                    _, stderr = process.communicate()
                    results[index] = (process.returncode, stderr)
            time.sleep(0.01)
        codes = (results[0][0], results[1][0])
        outcomes.append(codes)
        assert set(codes) <= {0, 1}, results
        assert 0 in codes, f"trial {trial}: neither apply succeeded: {results}"
        for code, stderr in results.values():
            if code == 1:
                assert "error[state-locked]: stack drill is locked by" in stderr, stderr
        # Live is exactly the config of the apply that ran (finished) last among the winners.
        winners = [i for i in (0, 1) if results[i][0] == 0]
        last = max(winners, key=lambda i: finished[i])
        check = cli("plan", str(order[last]), "--detailed-exitcode", "-q")
        assert check.exit_code == 0, f"trial {trial}: live matches neither config\n{check.stdout}"
        other = cli("plan", str(order[1 - last]), "--detailed-exitcode", "-q")
        assert other.exit_code == 2  # and not the other one (they differ)
    print(f"outcomes (exit codes per trial): {outcomes}")
    refused = sum(1 for codes in outcomes if 1 in codes)
    assert refused >= 1, f"the applies never overlapped, so nothing was tested: {outcomes}"
