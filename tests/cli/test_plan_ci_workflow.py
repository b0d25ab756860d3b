"""The GitOps workflow in configs/ci is valid YAML that runs the commands the README promises."""

from __future__ import annotations

from typing import TYPE_CHECKING

import yaml

if TYPE_CHECKING:
    from pathlib import Path


def test_workflow_plans_on_pull_requests_and_applies_the_saved_plan_on_merge(
    repo_root: Path,
) -> None:
    text = (repo_root / "configs" / "ci" / "quotactl-gitops.yml.example").read_text()
    workflow = yaml.safe_load(text)
    jobs = workflow["jobs"]
    plan_steps = " ".join(str(s.get("run", "")) for s in jobs["plan"]["steps"])
    apply_steps = " ".join(str(s.get("run", "")) for s in jobs["apply"]["steps"])
    assert "quotactl plan configs/ --detailed-exitcode --out plan.json -o markdown" in plan_steps
    assert "quotactl apply --plan plan.json" in apply_steps
    assert "merged" in jobs["apply"]["if"]
    assert workflow["env"]["QUOTACTL_BACKEND"] == "aws"
