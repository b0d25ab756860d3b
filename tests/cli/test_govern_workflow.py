"""The GitOps kit's govern job, GitHub's and GitLab's, run as written against the emulator:
each run is one ``govern --once`` cycle whose log grows beside the ledger, the ledger's jobs
count towards budgets, and a later run applies what came due since."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import yaml

from tests.cli.test_govern import CONFIG, P5, THURSDAY
from tests.cli.test_plan_ci_workflow import _run_step, _steps

if TYPE_CHECKING:
    from pathlib import Path


def test_the_govern_jobs_run_cycles_that_keep_one_log(repo_root: Path, tmp_path: Path) -> None:
    from quotactl.core.history.ledger import Attempt, write_ledger
    from quotactl.core.states import AttemptOutcome
    from quotactl.emulator import Emulator
    from tests.conftest import TEST_TIMING

    kit = repo_root / "configs" / "ci"
    github = yaml.safe_load((kit / "quotactl-gitops.yml.example").read_text())
    assert "*/10 * * * *" in [s["cron"] for s in github[True]["schedule"]]  # `on` reads as True
    steps = [s for s in _steps(github, "govern") if s.get("name", "").startswith("quotactl govern")]
    assert len(steps) == 1
    gitlab = yaml.safe_load((kit / "quotactl-gitops.gitlab-ci.yml.example").read_text())
    script = "\n".join(gitlab["govern"]["script"])

    repo = tmp_path / "repo"
    (repo / "configs").mkdir(parents=True)
    (repo / "configs" / "gov.yaml").write_text(CONFIG.replace("OVER", "soft"))
    state = tmp_path / "account.db"
    with Emulator(state, timing=TEST_TIMING) as emulator:
        emulator.advance(THURSDAY.timestamp() - emulator.now())
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "quotactl"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m quotactl "$@"\n')
    shim.chmod(0o755)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "QUOTACTL_"))},
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(repo_root),
        "QUOTACTL_BACKEND": "local",
        "QUOTACTL_STATE": str(state),
        "NO_COLOR": "1",
        "GITHUB_OUTPUT": str(tmp_path / "output"),
    }

    def quotactl(*args: str) -> None:
        command = [sys.executable, "-m", "quotactl", *args]
        subprocess.run(command, cwd=repo, env=env, check=True, capture_output=True)

    def log() -> list[dict[str, str]]:
        path = repo / "govern.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    quotactl("apply", "configs", "--auto-approve")
    assert _run_step(steps[0], repo, env, {}) == 0  # no ledger yet: nothing is due
    assert log() == []

    early = datetime(2030, 1, 3, 7, 0, tzinfo=UTC)
    done = Attempt(
        "gone-1", 1, "old", "training", "nlp", "nlp", P5, 1, 0,
        early, early, datetime(2030, 1, 3, 9, 30, tzinfo=UTC), AttemptOutcome.SUCCEEDED,
    )  # fmt: skip
    write_ledger(repo / "ledger.csv", [done])  # the nightly job's ledger: nlp used 2.5 of 2 h
    assert _run_step(steps[0], repo, env, {}) == 0
    assert [(r["policy"], r["address"], r["result"]) for r in log()] == [
        ("budget", "share.training/nlp", "applied")
    ]

    quotactl("local", "advance", "38h")  # Saturday 00:00: a new budget day, the weekend window
    assert _run_step(script, repo, env, {}) == 0  # GitLab's job: the same cycle, the same log
    assert [(r["at"], r["policy"], r["address"]) for r in log()[1:]] == [
        ("2030-01-05T00:00:00Z", "budget", "share.training/nlp"),
        ("2030-01-05T00:00:00Z", "schedule:weekend", "share.training/research"),
    ]
    assert {r["result"] for r in log()} == {"applied"}
    assert _run_step(steps[0], repo, env, {}) == 0  # the next run: nothing more to do
    assert len(log()) == 3
