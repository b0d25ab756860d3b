"""``quotactl fmt``: rewrites what is not in the canonical layout and says which files;
``--check`` writes nothing and exits 3 (as ``terraform fmt -check``); ``--diff`` shows how."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

from quotactl.cli.exitcodes import ExitCode

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

UNFORMATTED = """\
# the team that trains language models
teams:
  - shares:
      - queue: 'training'   # the demo queue
        capacity:
          ml.p5.48xlarge: 4
        sharing: lend
    name: "nlp"
"""
# An end-of-line comment keeps its column.
FORMATTED = """\
# the team that trains language models
teams:
  - name: nlp
    shares:
      - queue: training     # the demo queue
        capacity: {ml.p5.48xlarge: 4}
        sharing: lend
"""


def _tree(root: Path) -> tuple[Path, Path]:
    done, todo = root / "platform.yaml", root / "teams" / "nlp.yaml"
    todo.parent.mkdir(parents=True)
    done.write_text("platform:\n  name: demo\n  region: us-east-1\n")
    todo.write_text(UNFORMATTED)
    return done, todo


def test_fmt_rewrites_the_files_that_need_it_and_lists_them(
    cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    done, todo = _tree(tmp_path)
    before = done.read_text()
    result = cli("fmt", str(tmp_path))
    assert result.exit_code == ExitCode.OK, result.stderr
    assert result.stdout.splitlines() == [str(todo)]
    assert todo.read_text() == FORMATTED
    assert done.read_text() == before
    again = cli("fmt", str(tmp_path))
    assert (again.exit_code, again.stdout) == (ExitCode.OK, "")


def test_fmt_check_writes_nothing_lists_the_files_and_exits_3(
    cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    _, todo = _tree(tmp_path)
    result = cli("fmt", "--check", str(tmp_path))
    assert result.exit_code == 3
    assert ExitCode.FILES_WOULD_CHANGE.value == 3
    assert result.stdout.splitlines() == [str(todo)]
    assert todo.read_text() == UNFORMATTED
    assert cli("fmt", str(todo)).exit_code == ExitCode.OK
    assert cli("fmt", "--check", str(tmp_path)).exit_code == ExitCode.OK


def test_fmt_diff_prints_a_unified_diff_that_patch_applies(
    cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    _, todo = _tree(tmp_path)
    result = cli("fmt", "--check", "--diff", str(todo))
    assert result.exit_code == ExitCode.FILES_WOULD_CHANGE
    assert result.stdout.startswith(f"--- {todo} (original)\n+++ {todo} (formatted)\n@@ ")
    assert "-  - shares:\n" in result.stdout
    assert "+  - name: nlp\n" in result.stdout
    assert todo.read_text() == UNFORMATTED
    patch = shutil.which("patch")
    if patch is not None:
        import subprocess

        copy = tmp_path / "copy.yaml"
        copy.write_text(UNFORMATTED)
        subprocess.run([patch, "-s", str(copy)], input=result.stdout, text=True, check=True)
        assert copy.read_text() == FORMATTED


def test_fmt_on_the_repository_configs_changes_nothing(
    cli: Callable[..., CliResult], repo_root: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "configs"
    shutil.copytree(repo_root / "configs", copy)
    result = cli("fmt", "--check", str(copy))
    assert (result.exit_code, result.stdout) == (ExitCode.OK, "")


def test_fmt_on_broken_yaml_is_config_invalid_at_its_position_and_writes_nothing(
    cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("teams:\n  - name: [unclosed\n")
    result = cli("fmt", str(bad))
    assert result.exit_code == ExitCode.ERROR
    assert f"{bad}:3:1: error:" in result.stderr or f"{bad}:2:" in result.stderr
    assert "error[config-invalid]" in result.stderr
    assert bad.read_text() == "teams:\n  - name: [unclosed\n"
