"""Every command's help, as a person reads it: a snapshot, metavars, whole summaries.

The snapshot (``help_snapshot.txt``) is every ``--help`` page at 80 columns. A change to any
help text fails here until the snapshot is regenerated with
``QUOTACTL_UPDATE_HELP_SNAPSHOT=1 python -m pytest tests/cli/test_help.py``, so help changes
are reviewed as text in the diff.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import typer

from quotactl.cli.app import app, run
from quotactl.cli.helptext import humanise

SNAPSHOT = Path(__file__).with_name("help_snapshot.txt")
PYTHON_TYPES = re.compile(r"<(?:list\[|str>|int|float|bool>|path>|text>|[a-z]+ range>)")


def command_paths() -> list[str]:
    root = typer.main.get_command(app)
    humanise(root)
    found: list[str] = []

    def walk(group: object, prefix: str) -> None:
        for name, sub in sorted(getattr(group, "commands", {}).items()):
            found.append(f"{prefix}{name}")
            walk(sub, f"{prefix}{name} ")

    walk(root, "")
    return found


def help_page(path: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert run([*path.split(), "--help"]) == 0, path
    return capsys.readouterr().out


@pytest.fixture(autouse=True)
def fixed_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")


def test_help_matches_the_snapshot(capsys: pytest.CaptureFixture[str]) -> None:
    pages = [f"$ quotactl --help\n{help_page('', capsys)}"]
    pages += [f"$ quotactl {p} --help\n{help_page(p, capsys)}" for p in command_paths()]
    text = "\n".join(pages)
    if os.environ.get("QUOTACTL_UPDATE_HELP_SNAPSHOT"):
        SNAPSHOT.write_text(text)
    assert text == SNAPSHOT.read_text(), "help changed: regenerate the snapshot (module docstring)"


@pytest.mark.parametrize("path", ["", *command_paths()])
def test_help_shows_no_python_type_names(path: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert PYTHON_TYPES.findall(help_page(path, capsys)) == []


@pytest.mark.parametrize("path", ["", *(p for p in command_paths() if " " not in p)])
def test_command_summaries_are_whole_sentences(
    path: str, capsys: pytest.CaptureFixture[str]
) -> None:
    page = help_page(path, capsys)
    listed = page.partition("\nCommands:\n")[2]
    lines = [line for line in listed.splitlines() if line.strip()]
    assert not any(line.rstrip().endswith("...") for line in lines), listed
    summaries = re.split(r"\n  (?=\S)", "\n" + listed)[1:]
    for summary in summaries:
        assert summary.rstrip().endswith((".", ")")), summary
