"""A run builds the click commands of the command it names only, and behaves the same.

``quotactl COMMAND ...`` turns only COMMAND (with its subcommands) into click commands; the
root's help, completion and anything that names no command see every command. What a user
sees must not depend on that: these tests run the CLI with each kind of command line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from quotactl.cli.app import app
from quotactl.cli.tree import command_tree

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

EVERY = set(command_tree(app, []).commands)


@pytest.mark.parametrize(
    ("args", "built"),
    [
        (["validate", "configs/demo"], {"validate"}),
        (["--backend", "local", "-q", "plan", "configs/demo"], {"plan"}),
        (["local", "serve", "--port", "0"], {"local"}),
        (["--state", "plan", "validate"], {"validate"}),  # "plan" names the state file here
        (["-h", "validate"], None),
        (["--help"], None),
        (["valdate"], None),
        ([], None),
    ],
)
def test_only_the_named_commands_branch_is_built(args: list[str], built: set[str] | None) -> None:
    assert set(command_tree(app, args).commands) == (built or EVERY)
    assert set(command_tree(app, args, completing=True).commands) == EVERY


def test_a_group_keeps_all_its_subcommands() -> None:
    full = command_tree(app, [])
    branch = command_tree(app, ["local", "serve"])
    assert set(branch.commands["local"].commands) == set(full.commands["local"].commands)


def test_a_root_option_whose_value_spells_a_command_reads_as_a_value(
    cli: Callable[..., CliResult], repo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo_root)
    result = cli("--state", "plan", "validate", "configs/demo")
    assert result.exit_code == 0, result.stderr
    assert "valid" in result.stdout


def test_root_help_before_a_command_still_lists_every_command(
    cli: Callable[..., CliResult],
) -> None:
    result = cli("-h", "validate")
    assert result.exit_code == 0
    for name in ("validate", "plan", "apply", "status", "local"):
        assert f"\n  {name} " in result.stdout


def test_a_mistyped_command_is_still_matched_against_every_command(
    cli: Callable[..., CliResult],
) -> None:
    result = cli("valdate", "configs")
    assert result.exit_code == 64
    assert "Did you mean 'validate'?" in result.stderr


def test_global_options_after_the_command_still_apply(
    cli: Callable[..., CliResult], repo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo_root)
    result = cli("validate", "configs/demo", "-o", "json", "--backend", "local")
    assert result.exit_code == 0, result.stderr
    assert '"format_version": "1"' in result.stdout
