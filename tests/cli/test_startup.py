"""Start-up stays light: `--help` imports no AWS, YAML, pydantic or rich code at all.

Each check runs a fresh interpreter (an in-process run would see modules other tests
imported) and lists which heavy top-level packages the command left in ``sys.modules``.
Running any command (even its --help) imports pydantic: typer 0.29 converts parameters with
pydantic adapters, so that cost is typer's, not ours.
"""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pathlib import Path

HEAVY = ("boto3", "botocore", "sagemaker", "pydantic", "yaml", "rich")
PROBE = f"""
import sys
from quotactl.cli.app import run
code = run(sys.argv[1:])
loaded = sorted({{name.split(".")[0] for name in sys.modules}} & set({HEAVY!r}))
print("exit=%d loaded=%s" % (code, ",".join(loaded)), file=sys.stderr)
"""


def _imports_after(argv: list[str], cwd: Path) -> tuple[int, set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    last = done.stderr.strip().splitlines()[-1]
    code, loaded = last.removeprefix("exit=").split(" loaded=")
    return int(code), set(filter(None, loaded.split(",")))


@pytest.mark.parametrize("argv", [["--help"], ["--version"]])
def test_top_level_help_imports_nothing_heavy(argv: list[str], repo_root: Path) -> None:
    code, loaded = _imports_after(argv, repo_root)
    assert code == 0
    assert loaded == set()


@pytest.mark.parametrize("command", ["validate", "schema"])
def test_command_help_imports_no_aws_yaml_or_rich(command: str, repo_root: Path) -> None:
    code, loaded = _imports_after([command, "--help"], repo_root)
    assert code == 0
    assert loaded <= {"pydantic"}


def test_validate_reads_botocores_sagemaker_model_but_imports_no_aws_code(
    repo_root: Path,
) -> None:
    """The instance-type list is read from botocore's model file without importing botocore
    (whose HTTP stack alone is a fifth of validate's time)."""
    code, loaded = _imports_after(["validate", "configs/demo"], repo_root)
    assert code == 0
    assert loaded == {"pydantic", "yaml"}


def test_validate_does_not_import_the_scheduling_engine(repo_root: Path) -> None:
    probe = (
        "import sys\nfrom quotactl.cli.app import run\ncode = run(sys.argv[1:])\n"
        "print('engine' if 'quotactl.core.engine' in sys.modules else 'no engine', "
        "file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, "validate", "configs/demo"],
        cwd=repo_root,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.stderr.strip().splitlines()[-1] == "no engine"
