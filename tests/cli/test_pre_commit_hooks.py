"""The hooks of ``.pre-commit-hooks.yaml``, run by pre-commit itself against a scratch
repository whose ``.pre-commit-config.yaml`` names this checkout, as a team that adds them
would: pre-commit installs quotactl from this checkout into the hooks' own environment once,
and the second run reuses it."""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import TYPE_CHECKING

import pytest

from tests.conftest import REPO_ROOT

if TYPE_CHECKING:
    from pathlib import Path

PRE_COMMIT = shutil.which("pre-commit")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        PRE_COMMIT is None and not os.environ.get("CI"),
        reason="pre-commit is not installed (the test extra has it; CI always runs this)",
    ),
]
VALID = "platform:\n  name: demo\n  region: us-east-1\n"
UNFORMATTED = "platform:\n  region: us-east-1\n  name: 'demo'\n"


GIT = ["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci"]


@pytest.fixture(scope="module")
def hooks_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This checkout as one commit, its uncommitted changes included, and that commit."""
    clone = tmp_path_factory.mktemp("hooks") / "quotactl"
    subprocess.run(["git", "clone", "-q", str(REPO_ROOT), str(clone)], check=True)
    diff = subprocess.run(
        ["git", "diff", "HEAD", "--binary"], cwd=REPO_ROOT, capture_output=True, check=True
    ).stdout
    if diff:
        subprocess.run(["git", "apply", "--whitespace=nowarn"], cwd=clone, input=diff, check=True)
        subprocess.run([*GIT, "commit", "-qam", "working tree"], cwd=clone, check=True)
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True, check=True
    )
    return clone, head.stdout.strip()


def _repository(root: Path, files: dict[str, str], hooks: tuple[Path, str]) -> Path:
    """A platform repository with ``files`` that uses both hooks from ``hooks``."""
    repo = root / "platform-repo"
    source, rev = hooks
    files = {
        ".pre-commit-config.yaml": (
            f"repos:\n  - repo: {source}\n    rev: {rev}\n"
            "    hooks:\n      - id: quotactl-fmt\n      - id: quotactl-validate\n"
        ),
        **files,
    }
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    subprocess.run([*GIT, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*GIT, "commit", "-qm", "configs"], cwd=repo, check=True)
    return repo


def _run(repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """Every hook on every file; ``home`` is pre-commit's cache of hook environments."""
    assert PRE_COMMIT is not None, "CI must install pre-commit (the test extra)"
    environ = {**os.environ, "NO_COLOR": "1", "PRE_COMMIT_HOME": str(home)}
    environ.pop("PYTHONPATH", None)  # the hook runs the quotactl pre-commit installed
    return subprocess.run(
        [PRE_COMMIT, "run", "--all-files", "--color", "never"],
        cwd=repo,
        env=environ,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_the_hooks_format_configs_and_stop_a_commit_of_an_invalid_one(
    tmp_path: Path, hooks_repo: tuple[Path, str]
) -> None:
    invalid = UNFORMATTED + "queues:\n  - name: training\n    environment: 'nowhere'\n"
    repo = _repository(tmp_path, {"configs/platform.yaml": invalid}, hooks_repo)
    home = tmp_path / "pre-commit-home"
    first = _run(repo, home)
    assert first.returncode == 1, first.stdout + first.stderr
    fmt, validate = first.stdout.split("quotactl validate", 1)
    assert "quotactl fmt" in fmt
    assert "files were modified by this hook" in fmt
    assert (
        "configs/platform.yaml:6:18: error: queue 'training': environment 'nowhere' is not"
        in validate
    )
    formatted = VALID + "queues:\n  - name: training\n    environment: nowhere\n"
    assert (repo / "configs/platform.yaml").read_text() == formatted
    (repo / "configs/platform.yaml").write_text(VALID)
    second = _run(repo, home)
    assert second.returncode == 0, second.stdout + second.stderr
    assert second.stdout.count("Passed") == 2
