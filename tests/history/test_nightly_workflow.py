"""The GitOps workflow's nightly history job: its ``history --append`` and ``usage`` steps,
run as written against the emulator, keep one ledger that a second night extends and does not
duplicate, and write last month's usage per team to the step summary."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING

import yaml

from tests.cli.test_plan_ci_workflow import _run_step, _steps

if TYPE_CHECKING:
    from pathlib import Path


def test_the_nightly_job_keeps_one_ledger(repo_root: Path, tmp_path: Path) -> None:
    workflow = yaml.safe_load(
        (repo_root / "configs" / "ci" / "quotactl-gitops.yml.example").read_text()
    )
    assert "schedule" in workflow[True]  # YAML reads the key `on` as True
    job = workflow["jobs"]["history"]
    assert "schedule" in job["if"]
    assert "pull_request" in workflow["jobs"]["plan"]["if"]  # the PR jobs skip the night
    steps = {s.get("name", ""): s["run"] for s in _steps(workflow, "history") if "run" in s}
    ours = [run for name, run in steps.items() if name.startswith(("quotactl history", "Last"))]
    assert len(ours) == 2
    repo = tmp_path / "repo"
    shutil.copytree(repo_root / "configs" / "demo", repo / "configs")
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
        "QUOTACTL_STATE": str(tmp_path / "account.db"),
        "NO_COLOR": "1",
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_OUTPUT": str(tmp_path / "output"),
    }
    quotactl = [sys.executable, "-m", "quotactl"]
    spec = str(repo_root / "configs" / "jobs" / "fine-tune.yaml")
    for args in (
        ["apply", "configs", "--auto-approve"],
        ["submit", spec, "--count", "6"],
        ["local", "advance", "10m"],
    ):
        subprocess.run([*quotactl, *args], cwd=repo, env=env, check=True, capture_output=True)
    for step in ours:
        assert _run_step(step, repo, env, {}) == 0
    first = (repo / "ledger.csv").read_text()
    rows = list(csv.DictReader(first.splitlines()))
    assert [r["outcome"] for r in rows] == ["RUNNING"] * 6
    subprocess.run(
        [*quotactl, "local", "advance", "7h"], cwd=repo, env=env, check=True, capture_output=True
    )
    for step in ours:  # the next night
        assert _run_step(step, repo, env, {}) == 0
    rows = list(csv.DictReader((repo / "ledger.csv").read_text().splitlines()))
    assert [r["outcome"] for r in rows] == ["SUCCEEDED"] * 6  # replaced, not added
    summary = (tmp_path / "summary.md").read_text()
    assert "| `nlp` | `ml.p5.48xlarge` |" in summary
