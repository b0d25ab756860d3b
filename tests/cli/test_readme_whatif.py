"""The README's what-if example prints what the README shows.

The block after the commands is read from the README itself, so when the output changes on
purpose it is regenerated in one step: ``QUOTACTL_UPDATE_DOC_BLOCKS=1 python -m pytest
tests/cli/test_readme_whatif.py`` writes the command's real output into the README.
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
    shown_or_updated(readme_path, readme, COMMANDS, shown, output)


REVIEW_START = "> ### quotactl what-if: `configs` against `base/configs`\n"
REVIEW_END = "> Queue `training`: "
COMPARE = "quotactl simulate configs --trace trace.csv --compare base/configs -o markdown"
CHANGE = (  # the README's change: one p5 from nlp to research, vision's borrowing capped at 50%
    ("nlp.yaml", "capacity: {ml.p5.48xlarge: 4}", "capacity: {ml.p5.48xlarge: 3}"),
    (
        "research.yaml",
        "capacity: {ml.p5.48xlarge: 2, ml.g5.12xlarge: 4}",
        "capacity: {ml.p5.48xlarge: 3, ml.g5.12xlarge: 4}",
    ),
    ("vision.yaml", "borrow_limit: unlimited", "borrow_limit: 50"),
)


def review_block(readme: str) -> str:
    """The README's quoted what-if comment, from its heading to its utilisation line."""
    assert REVIEW_START in readme, "the README's review example changed: update this test"
    rest = readme.split(REVIEW_START, 1)[1]
    head, tail = rest.split(REVIEW_END, 1)
    return REVIEW_START + head + REVIEW_END + tail.split("\n", 1)[0] + "\n"


def test_the_readme_review_comment_shows_what_the_command_prints(
    cli: Callable[..., CliResult],
    tmp_path: Path,
    repo_root: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    readme_path = repo_root / "README.md"
    readme = readme_path.read_text(encoding="utf-8")
    shown = review_block(readme)
    shutil.copytree(repo_root / "configs" / "demo", tmp_path / "base" / "configs")
    shutil.copytree(repo_root / "configs" / "demo", tmp_path / "configs")
    for name, before, after in CHANGE:
        path = tmp_path / "configs" / "teams" / name
        text = path.read_text()
        assert before in text
        path.write_text(text.replace(before, after))
    shutil.copytree(repo_root / "configs", tmp_path / "repo-configs")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("QUOTACTL_EMULATOR_TIMING")
    generated = cli("-q", *GENERATE.replace("configs/demo", "repo-configs/demo").split()[1:])
    assert generated.exit_code == 0, generated.stderr
    printed = cli("-q", *COMPARE.split()[1:])
    assert printed.exit_code == 0, printed.stderr
    lines = printed.stdout.split("\n")
    end = next(i for i, line in enumerate(lines) if line.startswith("Queue `training`: "))
    output = "".join(f"> {line}\n" if line else ">\n" for line in lines[: end + 1])
    shown_or_updated(readme_path, readme, "", shown, output)
