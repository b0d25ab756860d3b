"""The README's quick start really ends with the `status` output the README shows."""

from __future__ import annotations

import re
import shutil
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    import pytest

    from tests.conftest import CliResult

QUICK_START = (
    "pip install . && quotactl apply configs/demo --auto-approve && quotactl submit "
    "configs/jobs/fine-tune.yaml --count 6 && quotactl local advance 10m && quotactl status"
)
AT = re.compile(r"at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def readme_status(readme: str) -> str:
    """The block after ``$ quotactl status`` in the README's status section."""
    block = readme.split("$ quotactl status\n", 1)[1].split("```", 1)[0]
    return block


def test_the_quick_start_ends_with_the_status_the_readme_shows(
    cli: Callable[..., CliResult],
    tmp_path: Path,
    repo_root: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    readme = (repo_root / "README.md").read_text(encoding="utf-8")
    assert QUICK_START in readme.split("## Quick start", 1)[1].split("```", 2)[1]
    shutil.copytree(repo_root / "configs", tmp_path / "configs")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "120")
    for args in (
        ("apply", "configs/demo", "--auto-approve"),
        ("submit", "configs/jobs/fine-tune.yaml", "--count", "6"),
        ("local", "advance", "10m"),
    ):
        result = cli("-q", *args)
        assert result.exit_code == 0, result.stderr
    status = cli("-q", "--no-color", "status")
    assert status.exit_code == 0, status.stderr
    shown = "\n".join(line.rstrip() for line in status.stdout.splitlines()).strip("\n")
    assert AT.sub("at T", shown) == AT.sub("at T", readme_status(readme).strip("\n"))
