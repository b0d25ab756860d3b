"""The GitOps workflow in configs/ci is valid YAML that runs the commands the README promises."""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import TEST_TIMING


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


def _fill(text: str, values: dict[str, str]) -> str:
    for expression, value in values.items():
        text = text.replace("${{ " + expression + " }}", value)
    # an output no step set is empty, as on GitHub (the artifact upload does not run here)
    text = re.sub(r"\$\{\{ steps\.[\w-]+\.outputs\.[\w-]+ \}\}", "", text)
    assert "${{" not in text, text
    return text


def _run_step(
    step: dict[str, Any] | str, repo: Path, env: dict[str, str], values: dict[str, str]
) -> int:
    """One `run:` step as GitHub runs it (bash -eo pipefail), the expressions of its `env:`
    filled in (a script holds none: values reach it through the environment); what it writes
    to GITHUB_OUTPUT becomes ``steps.ID.outputs.KEY``."""
    step = {"run": step} if isinstance(step, str) else step
    script = str(step["run"])
    assert "${{" not in script, script
    output = Path(env["GITHUB_OUTPUT"])
    output.write_text("")
    step_env = {k: _fill(str(v), values) for k, v in (step.get("env") or {}).items()}
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=repo,
        env={**env, **step_env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    print(done.stdout, done.stderr)  # shown when the test fails
    if "id" in step:
        for line in output.read_text().splitlines():
            key, _, value = line.partition("=")
            values[f"steps.{step['id']}.outputs.{key}"] = value
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
    rule = "  - {name: research-cap, level: soft, check: max_capacity, team: research,"
    rule += " capacity: {ml.p5.48xlarge: 2}}\n"
    rules = repo / "configs" / "rules.yaml"
    rules.write_text(rules.read_text() + rule)
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
    rules.write_text(rules.read_text().replace(rule, ""))  # the base branch's rule still holds
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "halve")

    labels = "github.event.pull_request.labels.*.name"
    values = {"github.event.pull_request.base.sha": base, f"toJSON({labels})": "[]"}
    plan_steps = [s for s in _steps(workflow, "plan") if "run" in s]
    assert plan_steps[0]["run"] == 'pip install "${QUOTACTL_PIP_SPEC:-.}"'
    failing = {"quotactl validate", "Fail on an error or a failed rule (after the comment)"}
    for step in plan_steps[1:]:
        name = step.get("name") or step["run"].split(" configs/")[0]
        assert _run_step(step, repo, env, values) == (1 if name in failing else 0), name
    comment = (repo / "comment.md").read_text()
    assert "**Rules failed: `research-cap` (soft)**" in comment
    assert "A failed soft rule is accepted by the label `quotactl:override-research-cap`" in comment
    (runner / "base").rename(runner / "base-1")
    _git(repo, "worktree", "prune")
    values[f"toJSON({labels})"] = '["quotactl:override-research-cap"]'
    (runner / "summary.md").write_text("")
    for step in plan_steps[1:]:
        assert _run_step(step, repo, env, values) == 0, step.get("name")
    comment = (repo / "comment.md").read_text()
    assert "| `research-cap` | soft | max_capacity | **overridden** |" in comment
    assert comment.startswith("### quotactl plan for stack `demo`")
    assert "capacity[ml.p5.48xlarge]: 4 → 2" in comment
    assert "On merge, `quotactl apply` refuses this plan (`disruption-not-allowed`)" in comment
    assert "expose to preemption 1 running job(s)" in comment
    assert f"### quotactl what-if: `configs` against `{runner}/base/configs`" in comment
    assert "| `training/nlp` |" in comment
    assert (repo / "trace.csv").read_text().count("training/nlp") == 2
    assert (runner / "summary.md").read_text() == comment
    assert "```mermaid\nxychart-beta" in comment  # the p95 waits, before and after
    report = (repo / "whatif.html").read_text()  # attached as an artifact, linked when it is
    assert report.startswith("<!DOCTYPE html>")
    assert "training/nlp" in report
    (upload,) = [s for s in _steps(workflow, "plan") if s.get("id") == "whatif-report"]
    assert upload["with"]["path"] == "whatif.html"
    guard = next(s for s in _steps(workflow, "plan") if "WHATIF_REPORT_URL" in s.get("env", {}))
    assert "steps.whatif-report.outputs.artifact-url" in guard["env"]["WHATIF_REPORT_URL"]

    (apply_step,) = [s for s in _steps(workflow, "apply") if "quotactl apply" in s.get("run", "")]
    refused = {
        **values,
        f"contains({labels}, 'quotactl:allow-delete')": "false",
        f"contains({labels}, 'quotactl:allow-disruption')": "false",
    }
    for attempt in (1, 2, 3):  # each apply step adds the base branch's worktree afresh
        (runner / "base").rename(runner / f"base-apply-{attempt}")
        _git(repo, "worktree", "prune")
        if attempt == 1:
            assert _run_step(apply_step, repo, env, refused) == 1  # the disruption guard
        elif attempt == 2:
            unlabelled = {**refused, f"toJSON({labels})": "[]"}
            unlabelled[f"contains({labels}, 'quotactl:allow-disruption')"] = "true"
            assert _run_step(apply_step, repo, env, unlabelled) == 1  # research-cap
        else:
            allowed = {**refused, f"contains({labels}, 'quotactl:allow-disruption')": "true"}
            assert _run_step(apply_step, repo, env, allowed) == 0
    replan = run([*quotactl, "plan", "configs", "--detailed-exitcode"], check=False)
    assert replan.returncode == 0


def _submit_and_run(state: Path, names: list[str]) -> None:
    """nlp's jobs (2 p5 instances each), started one after the other, still running."""
    from quotactl.aws.session import Target, client
    from quotactl.emulator import Emulator

    batch = client(Target("local", state, timing=TEST_TIMING))
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
        with Emulator(state, timing=TEST_TIMING) as emulator:
            emulator.advance(600)
