"""Shell completion: the printed script loads, and the shell gets commands and options back."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from tests.conftest import REPO_ROOT

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]


def complete(words: str, shell: str = "bash") -> list[str]:
    """What the completion script would get back for the command line ``words``."""
    env = {
        **os.environ,
        "_QUOTACTL_COMPLETE": f"complete_{shell}",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split()) - 1),
        "_TYPER_COMPLETE_ARGS": words,
    }
    done = subprocess.run(
        [sys.executable, "-m", "quotactl"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO_ROOT,
    )
    return done.stdout.split()


def test_commands_complete_from_a_prefix() -> None:
    assert complete("quotactl pl") == ["plan"]
    assert "simulate" in complete("quotactl si")


def test_options_complete_after_a_command() -> None:
    assert complete("quotactl apply --allow-d") == ["--allow-delete", "--allow-disruption"]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_each_shell_gets_a_script_that_calls_quotactl_back(cli: Cli, shell: str) -> None:
    result = cli("completion", shell)
    assert result.exit_code == 0
    assert "_QUOTACTL_COMPLETE" in result.stdout
    assert result.stderr == ""


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_bash_script_is_valid_bash(cli: Cli) -> None:
    script = cli("completion", "bash").stdout
    checked = subprocess.run(["bash", "-n"], input=script, text=True, capture_output=True)
    assert checked.returncode == 0, checked.stderr


def test_an_unknown_shell_is_a_usage_error(cli: Cli) -> None:
    result = cli("completion", "tcsh")
    assert result.exit_code == 64
