"""The CLI's contract that every command shares: exit codes, usage errors, help, version."""

from __future__ import annotations

import pytest
import typer

from quotactl import __version__
from quotactl.cli.app import app, run
from quotactl.cli.exitcodes import ExitCode


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--version"]) == ExitCode.OK
    assert capsys.readouterr().out.startswith(f"quotactl/{__version__} ")


@pytest.mark.parametrize(
    "argv",
    [
        ["--no-such-option"],
        ["no-such-command"],
        ["--backend", "gcp", "validate"],
    ],
)
def test_usage_errors_exit_64_without_traceback(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(argv) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.strip(), "a usage error must say what was wrong"


def test_unknown_backend_names_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--backend", "gcp", "validate"]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "error[usage]: unknown backend 'gcp'" in err
    assert "local, aws" in err


def _commands(group: object, prefix: str = "") -> list[tuple[str, object]]:
    found: list[tuple[str, object]] = []
    for name, cmd in getattr(group, "commands", {}).items():
        found.append((f"{prefix}{name}", cmd))
        found.extend(_commands(cmd, f"{prefix}{name} "))
    return found


def test_every_command_has_help_text() -> None:
    root = typer.main.get_command(app)
    commands = _commands(root)
    assert commands, "quotactl registers no commands"
    missing = [name for name, cmd in commands if not (getattr(cmd, "help", None) or "").strip()]
    assert missing == []


def test_every_command_answers_help(capsys: pytest.CaptureFixture[str]) -> None:
    root = typer.main.get_command(app)
    for name, _ in _commands(root):
        assert run([*name.split(), "--help"]) == ExitCode.OK, name
        assert "Usage:" in capsys.readouterr().out
