"""docs/govern.md's what-a-window-does example prints what the page shows.

The block after the commands is read from the page, so when the output changes on purpose it
is regenerated in one step: ``QUOTACTL_UPDATE_DOC_BLOCKS=1 python -m pytest
tests/cli/test_govern_doc_figures.py`` writes the command's real output into the page.
"""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

from tests.cli.doc_blocks import shown_or_updated

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    import pytest

    from tests.conftest import CliResult

GENERATE = "quotactl trace generate configs/demo --jobs 20000 --seed 3 --out trace.csv"
SIMULATE = (
    "quotactl simulate nights --trace trace.csv --compare configs/demo --start 2026-12-07T00:00Z"
)
COMMANDS = f"```sh\n{GENERATE}\n{SIMULATE}\n```\n\n```\n"
SCHEDULE = """        schedule:
          - name: nights
            when: {hours: "20:00-08:00", timezone: Europe/Berlin}
            sharing: lend_and_borrow
            borrow_limit: 100
"""


def test_the_window_example_prints_what_the_page_shows(
    cli: Callable[..., CliResult],
    tmp_path: Path,
    repo_root: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    page_path = repo_root / "docs" / "govern.md"
    page = page_path.read_text(encoding="utf-8")
    assert f"```yaml\n{SCHEDULE}```" in page, "the page's window changed: update this test"
    assert COMMANDS in page, "the page's commands changed: update this test"
    shown = page.split(COMMANDS, 1)[1].split("```", 1)[0]
    shutil.copytree(repo_root / "configs", tmp_path / "configs")
    shutil.copytree(repo_root / "configs" / "demo", tmp_path / "nights")
    research = tmp_path / "nights" / "teams" / "research.yaml"
    text = research.read_text(encoding="utf-8")
    assert "        sharing: lend\n" in text
    research.write_text(
        text.replace("        sharing: lend\n", "        sharing: lend\n" + SCHEDULE)
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.delenv("QUOTACTL_EMULATOR_TIMING")  # the timing a user gets, not the suite's
    generated = cli("-q", *GENERATE.split()[1:])
    assert generated.exit_code == 0, generated.stderr
    printed = cli("-q", "--no-color", *SIMULATE.split()[1:])
    assert printed.exit_code == 0, printed.stderr
    output = "\n".join(line.rstrip() for line in printed.stdout.splitlines()).strip("\n") + "\n"
    shown_or_updated(page_path, page, COMMANDS, shown, output)
    assert "research            gains" in output
