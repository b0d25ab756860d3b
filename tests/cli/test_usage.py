"""Usage errors look like every other error, and global options work after any command.

Both behaviours are derived from the registered command tree, so a command added later gets
them (and is tested here) without a line of its own.
"""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

import pytest
import typer

from quotactl.cli.app import app
from quotactl.cli.argv import hoist_global_options

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]


def leaf_commands(group: object, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every runnable command path (``("local", "serve")``, ``("plan",)``...)."""
    found: list[tuple[str, ...]] = []
    for name, command in getattr(group, "commands", {}).items():
        path = (*prefix, name)
        inner = leaf_commands(command, path)
        found.extend(inner or [path])
    return found


COMMANDS = leaf_commands(typer.main.get_command(app))


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_an_unknown_option_is_a_usage_error_with_a_hint(cli: Cli, command: tuple[str, ...]) -> None:
    result = cli(*command, "--no-such-option")
    assert result.exit_code == 64
    assert result.stderr.startswith("error[usage]: no such option: --no-such-option\n")
    assert "\n  hint: " in result.stderr
    assert f"`quotactl {' '.join(command)} --help` shows the usage" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_global_options_are_accepted_after_every_command(
    cli: Cli, command: tuple[str, ...]
) -> None:
    result = cli(*command, "--help", "--no-color", "-q", "--backend", "local", "--debug")
    assert result.exit_code == 0, result.stderr
    assert "Usage:" in result.stdout


def test_a_misspelt_option_suggests_the_right_one(cli: Cli) -> None:
    result = cli("export", "--forc")
    assert result.exit_code == 64
    assert "error[usage]: no such option: --forc" in result.stderr
    assert "hint: did you mean --force?" in result.stderr


def test_a_bad_value_is_a_usage_error(cli: Cli) -> None:
    result = cli("plan", "-o", "yaml")
    assert result.exit_code == 64
    assert "error[usage]: invalid value for '-o' / '--output'" in result.stderr
    assert "hint: `quotactl plan --help` shows the usage" in result.stderr


def test_quiet_after_the_command_silences_the_local_notice(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo_root: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copytree(repo_root / "configs" / "demo", tmp_path / "demo")
    loud = cli("plan", "demo")
    quiet = cli("plan", "demo", "-q")
    assert "using the local emulator" in loud.stderr
    assert quiet.exit_code == 0
    assert quiet.stderr == ""
    assert quiet.stdout == loud.stdout


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["apply", "c", "-q"], ["-q", "apply", "c"]),
        (["apply", "c", "--state", "s.db"], ["--state", "s.db", "apply", "c"]),
        (["apply", "c", "--state=s.db"], ["--state=s.db", "apply", "c"]),
        (["--debug", "plan", "-o", "json", "-q"], ["--debug", "-q", "plan", "-o", "json"]),
        (["local", "advance", "1h", "-q"], ["-q", "local", "advance", "1h"]),
        (["plan", "--", "-q"], ["plan", "--", "-q"]),  # after --, a path named -q
        (["plan", "--out", "-q"], ["plan", "--out", "-q"]),  # the value of --out
        (["-q"], ["-q"]),
    ],
)
def test_global_options_move_before_the_command_only_where_they_are_global(
    argv: list[str], expected: list[str]
) -> None:
    assert hoist_global_options(argv, typer.main.get_command(app)) == expected
