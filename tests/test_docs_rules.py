"""docs/rules.md's examples run as written and print what the page shows.

Each ``console`` block runs in a fresh directory holding ``platform.yaml`` (the page's base
configuration) and the files the page writes out (blocks whose first line is ``# file:
NAME``) since the previous console block; its commands run in order on a fresh emulator.
A command's output on the page (stdout and stderr, without the local emulator's notice) must
be exactly what it prints, ending with ``[exit N]``; ``...`` stands for output not shown.
``QUOTACTL_UPDATE_DOCS=1`` writes the outputs into the page instead.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pytest

from quotactl.cli.app import run
from tests.conftest import REPO_ROOT

if TYPE_CHECKING:
    from pathlib import Path

PAGE = REPO_ROOT / "docs" / "rules.md"
FENCE = re.compile(r"^```([a-z]*)\n(.*?)^```\n", re.M | re.S)
FILE = "# file: "
NOTICE = "quotactl: using the local emulator"
SETUP_COMMANDS = ("apply", "submit", "local")
"""Commands whose output (times, job IDs) is not shown on the page."""


@dataclass
class Example:
    files: dict[str, str]
    commands: list[str] = field(default_factory=list)
    span: tuple[int, int] = (0, 0)
    shown: str = ""


def examples(text: str) -> list[Example]:
    found: list[Example] = []
    base: dict[str, str] = {}
    pending: dict[str, str] = {}
    for match in FENCE.finditer(text):
        body = match.group(2)
        if body.startswith(FILE):
            name, _, content = body.partition("\n")
            pending[name.removeprefix(FILE).strip()] = content
            if name.strip() == FILE + "platform.yaml" and not base:
                base = {"platform.yaml": content}
        elif match.group(1) == "console":
            commands = [line[2:] for line in body.splitlines() if line.startswith("$ ")]
            example = Example({**base, **pending}, commands, match.span(2), body)
            found.append(example)
            pending = {}
    return found


def output_of(example: Example, where: Path) -> str:
    for name, content in example.files.items():
        (where / name).parent.mkdir(parents=True, exist_ok=True)
        (where / name).write_text(content)
    state = str(where / "emulator.db")
    lines: list[str] = []
    for command in example.commands:
        args = shlex.split(command)[1:]
        both = io.StringIO()  # one stream, as a terminal shows them
        with contextlib.redirect_stdout(both), contextlib.redirect_stderr(both):
            code = run(["--state", state, *args])
        printed = [
            line.rstrip() for line in both.getvalue().splitlines() if not line.startswith(NOTICE)
        ]
        shown = ["..."] if args[0] in SETUP_COMMANDS else printed
        lines += [f"$ {command}", *shown, f"[exit {int(code)}]"]
    return "\n".join(lines) + "\n"


EXAMPLES = examples(PAGE.read_text())


def test_the_page_has_an_example_for_every_check() -> None:
    from quotactl.core.rules import Check

    text = PAGE.read_text()
    assert [check.value for check in Check if f"### `{check.value}`" not in text] == []
    assert len(EXAMPLES) >= len(Check)


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_the_example_prints_what_the_page_shows(
    index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "100")
    example = EXAMPLES[index]
    printed = output_of(example, tmp_path)
    if os.environ.get("QUOTACTL_UPDATE_DOCS"):
        text = PAGE.read_text()
        start, end = examples(text)[index].span
        PAGE.write_text(text[:start] + printed + text[end:])
        return
    assert printed == example.shown
    assert "[exit 1]" in printed or "[exit 0]" in printed
