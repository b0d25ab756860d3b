"""The GitOps workflow in configs/ci is valid YAML that runs the commands the README promises."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml


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


# -- the workflow's commands, run against the emulator ---------------------------------------

P5 = "ml.p5.48xlarge"


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def _steps(workflow: dict[str, Any], job: str) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = workflow["jobs"][job]["steps"]
    return steps


def _run_step(step: dict[str, Any], repo: Path, env: dict[str, str], values: dict[str, str]) -> int:
    """One `run:` step as GitHub runs it (bash -eo pipefail), the expressions of its `env:`
    filled in (a script holds none: values reach it through the environment)."""
    script = str(step["run"])
    assert "${{" not in script, script
    step_env = {}
    for name, text in step.get("env", {}).items():
        for expression, value in values.items():
            text = text.replace("${{ " + expression + " }}", value)
        step_env[name] = text
    assert not any("${{" in v for v in step_env.values()), step_env
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=repo,
        env={**env, **step_env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    print(done.stdout, done.stderr)  # shown when the test fails
    return done.returncode


def test_workflow_commands_run_end_to_end_on_the_emulator(repo_root: Path, tmp_path: Path) -> None:
    """A PR that moves two of nlp's instances to research while nlp's jobs run: the comment
    shows the plan, says the guard will refuse it, and shows the what-if on the exported
    history; the merge job's apply is refused, then goes through with the allow-disruption
    label."""
    workflow = yaml.safe_load(
        (repo_root / "configs" / "ci" / "quotactl-gitops.yml.example").read_text()
    )
    repo, runner = tmp_path / "repo", tmp_path / "runner"
    runner.mkdir()
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
        "QUOTACTL_PIP_SPEC": "",
        "QUOTACTL_TRACE": "",
        "QUOTACTL_PLAN_KEY": "the-ci-secret",  # plan.json is signed and checked, as in CI
        "RUNNER_TEMP": str(runner),
        "GITHUB_OUTPUT": str(runner / "output"),
        "GITHUB_STEP_SUMMARY": str(runner / "summary.md"),
    }
    assert workflow["env"]["QUOTACTL_PIP_SPEC"] == "${{ vars.QUOTACTL_PIP_SPEC }}"
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "base")
    base = _git(repo, "rev-parse", "HEAD")
    quotactl = [sys.executable, "-m", "quotactl"]
    run = functools.partial(subprocess.run, cwd=repo, env=env, check=True, capture_output=True)
    run([*quotactl, "apply", "configs", "--auto-approve"])
    _submit_and_run(Path(env["QUOTACTL_STATE"]), ["bert-1", "bert-2"])
    nlp = repo / "configs" / "teams" / "nlp.yaml"
    nlp.write_text(nlp.read_text().replace("{ml.p5.48xlarge: 4}", "{ml.p5.48xlarge: 2}"))
    research = repo / "configs" / "teams" / "research.yaml"  # the 2 instances move to research
    research.write_text(research.read_text().replace("ml.p5.48xlarge: 2,", "ml.p5.48xlarge: 4,"))
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "halve")

    values = {"github.event.pull_request.base.sha": base}
    plan_steps = [s for s in _steps(workflow, "plan") if "run" in s]
    assert plan_steps[0]["run"] == 'pip install "${QUOTACTL_PIP_SPEC:-.}"'
    for step in plan_steps[1:]:
        assert _run_step(step, repo, env, values) == 0, step.get("name")
    comment = (repo / "comment.md").read_text()
    assert comment.startswith("### quotactl plan for stack `demo`")
    assert "capacity[ml.p5.48xlarge]: 4 → 2" in comment
    assert "On merge, `quotactl apply` refuses this plan (`disruption-not-allowed`)" in comment
    assert "expose to preemption 1 running job(s)" in comment
    assert f"### quotactl what-if: `configs` against `{runner}/base/configs`" in comment
    assert "| `training/nlp` |" in comment
    assert (repo / "trace.csv").read_text().count("training/nlp") == 2
    assert (runner / "summary.md").read_text() == comment

    (apply_step,) = [s for s in _steps(workflow, "apply") if "quotactl apply" in s.get("run", "")]
    labels = "github.event.pull_request.labels.*.name"
    refused = {
        f"contains({labels}, 'quotactl:allow-delete')": "false",
        f"contains({labels}, 'quotactl:allow-disruption')": "false",
    }
    assert _run_step(apply_step, repo, env, refused) == 1
    allowed = {**refused, f"contains({labels}, 'quotactl:allow-disruption')": "true"}
    assert _run_step(apply_step, repo, env, allowed) == 0
    replan = run([*quotactl, "plan", "configs", "--detailed-exitcode"], check=False)
    assert replan.returncode == 0


def _submit_and_run(state: Path, names: list[str]) -> None:
    """nlp's jobs (2 p5 instances each), started one after the other, still running."""
    from quotactl.aws.session import Target, client
    from quotactl.emulator import Emulator

    batch = client(Target("local", state))
    for name in names:
        payload = {
            "TrainingJobName": name,
            "RoleArn": "arn:aws:iam::123456789012:role/training",
            "AlgorithmSpecification": {"TrainingImage": "image", "TrainingInputMode": "File"},
            "OutputDataConfig": {"S3OutputPath": "s3://bucket/out"},
            "ResourceConfig": {"InstanceType": P5, "InstanceCount": 2, "VolumeSizeInGB": 10},
            "StoppingCondition": {"MaxRuntimeInSeconds": 86400},
        }
        batch.submit_service_job(
            jobName=name,
            jobQueue="training",
            serviceJobType="SAGEMAKER_TRAINING",
            serviceRequestPayload=json.dumps(payload),
            quotaShareName="nlp",
        )
        with Emulator(state) as emulator:
            emulator.advance(600)
