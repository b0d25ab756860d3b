"""The README's what-if example prints what the README shows.

The block after the commands is read from the README itself, so when the output changes on
purpose it is regenerated in one step: ``QUOTACTL_UPDATE_DOC_BLOCKS=1 python -m pytest
tests/cli/test_readme_whatif.py`` writes the command's real output into the README.
"""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    import pytest

    from tests.conftest import CliResult

GENERATE = "quotactl trace generate configs/demo --jobs 20000 --seed 3 --out trace.csv"
SIMULATE = "quotactl simulate configs/demo --trace trace.csv --baseline reserve"
COMMANDS = f"```sh\n{GENERATE}\n{SIMULATE}\n```\n\n```\n"


def shown_block(readme: str) -> str:
    """The output block that follows the what-if commands in the README."""
    assert COMMANDS in readme, "the README's what-if commands changed: update this test"
    return readme.split(COMMANDS, 1)[1].split("```", 1)[0]


def test_the_readme_what_if_prints_what_the_readme_shows(
    cli: Callable[..., CliResult],
    tmp_path: Path,
    repo_root: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    readme_path = repo_root / "README.md"
    readme = readme_path.read_text(encoding="utf-8")
    shown = shown_block(readme)
    shutil.copytree(repo_root / "configs", tmp_path / "configs")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.delenv("QUOTACTL_EMULATOR_TIMING")  # the timing a user gets, not the suite's
    generated = cli("-q", *GENERATE.split()[1:])
    assert generated.exit_code == 0, generated.stderr
    printed = cli("-q", "--no-color", *SIMULATE.split()[1:])
    assert printed.exit_code == 0, printed.stderr
    output = "\n".join(line.rstrip() for line in printed.stdout.splitlines()).strip("\n") + "\n"
    if os.environ.get("QUOTACTL_UPDATE_DOC_BLOCKS") == "1" and output != shown:
        readme_path.write_text(readme.replace(COMMANDS + shown, COMMANDS + output, 1))
        return
    assert output == shown
