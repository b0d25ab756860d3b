"""Completion as a user gets it: the script ``quotactl completion bash|zsh`` prints, loaded
into the real shell, asked for the words that fit. Choices complete (``--status``,
``--backend``, ``-o``), and the global options are offered after a command too.

zsh's completion widgets only run inside its line editor, so the zsh test stands in for the
two builtins the script hands its answer to (``compdef``, ``_arguments``) and prints what
they receive; everything else is the script and zsh as they are. CI installs zsh
(``.ci/run``); without it locally the zsh cases are skipped.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from tests.conftest import REPO_ROOT

if TYPE_CHECKING:
    from pathlib import Path

CASES = [
    ("quotactl jobs --status R", {"RUNNABLE", "RUNNING"}),
    ("quotactl jobs --status ", {"SUBMITTED", "RUNNABLE", "RUNNING", "SUCCEEDED", "FAILED"}),
    ("quotactl --backend ", {"local", "aws"}),
    ("quotactl status --backend a", {"aws"}),
    ("quotactl status -o ", {"text", "json"}),
    ("quotactl simulate -o m", {"markdown"}),
    ("quotactl plan --qu", {"--quiet"}),
    ("quotactl job describe x --deb", {"--debug"}),
    ("quotactl local advance --sta", {"--state"}),
    ("quotactl pl", {"plan"}),
]


@pytest.fixture(scope="module")
def bin_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ``quotactl`` on PATH that runs this checkout, as the installed console script does."""
    path = tmp_path_factory.mktemp("bin")
    script = path / "quotactl"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m quotactl "$@"\n')
    script.chmod(0o755)
    return path


def _env(bin_dir: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(REPO_ROOT),
    }


def _bash(words: str, bin_dir: Path) -> set[str]:
    parts = words.split() + ([""] if words.endswith(" ") else [])
    array = " ".join(f"'{w}'" for w in parts)
    program = (
        "source <(quotactl completion bash)\n"
        f"COMP_WORDS=({array}); COMP_CWORD={len(parts) - 1}\n"
        "_quotactl_completion quotactl\n"
        "printf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", program],
        env=_env(bin_dir),
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO_ROOT,
    )
    return {line for line in done.stdout.splitlines() if line}


def _zsh(words: str, bin_dir: Path) -> set[str]:
    parts = words.split() + ([""] if words.endswith(" ") else [])
    array = " ".join(f"'{w}'" for w in parts)
    program = (
        "compdef() { : }\n"
        '_arguments() { print -r -- "$@" }\n'
        "source <(quotactl completion zsh)\n"
        f"words=({array}); CURRENT={len(parts)}\n"
        "_quotactl_completion\n"
    )
    done = subprocess.run(
        ["zsh", "-f", "-c", program],
        env=_env(bin_dir),
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO_ROOT,
    )
    # _arguments '*: :(("value":"help" ...))': each completion is a quoted word before its help
    return set(re.findall(r'"((?:[^"\\]|\\.)*)"(?::"(?:[^"\\]|\\.)*")?', done.stdout))


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize(("words", "expected"), CASES)
def test_bash_completes_commands_options_and_choices(
    bin_dir: Path, words: str, expected: set[str]
) -> None:
    got = _bash(words, bin_dir)
    assert expected <= got, got


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed (CI installs it)")
@pytest.mark.parametrize(("words", "expected"), CASES)
def test_zsh_completes_commands_options_and_choices(
    bin_dir: Path, words: str, expected: set[str]
) -> None:
    got = _zsh(words, bin_dir)
    assert expected <= got, got
