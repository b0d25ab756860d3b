"""One rule for every path a command reads or writes: a path that is a directory, a device or
missing is ``io-error`` naming what it is, and nothing is written anywhere (no ``.partial``
file beside the target, no file in its directory)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.conftest import REPO_ROOT

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

DEMO = str(REPO_ROOT / "configs" / "demo")
SPEC = str(REPO_ROOT / "configs" / "jobs" / "fine-tune.yaml")
KINDS = {"directory": "is a directory", "device": "is a device", "missing": "does not exist"}

# (command line with {} for the path, what the path is called in the message)
READERS = {
    "validate": (["validate", "{}"], "config path"),
    "plan": (["plan", "{}"], "config path"),
    "apply": (["apply", "{}", "--auto-approve"], "config path"),
    "apply --plan": (["apply", "--plan", "{}", "--auto-approve"], "plan file"),
    "submit": (["submit", "{}"], "job spec"),
    "submit --dry-run": (["submit", "{}", "--dry-run"], "job spec"),
    "simulate --trace": (["simulate", DEMO, "--trace", "{}"], "trace file"),
    "simulate --compare": (
        ["simulate", DEMO, "--trace", "trace.csv", "--compare", "{}"],
        "config path",
    ),
    "trace generate": (["trace", "generate", "{}", "--jobs", "1"], "config path"),
    "iam-policy": (["iam-policy", "{}"], "config path"),
    "force-unlock": (["force-unlock", "{}", "--yes"], "config path"),
    "import": (["import", "{}", "--auto-approve"], "config path"),
}
WRITERS = {
    "plan --out": (["plan", DEMO, "--out", "{}"], "plan file"),
    "trace generate --out": (
        ["trace", "generate", DEMO, "--jobs", "5", "--out", "{}"],
        "trace file",
    ),
    "trace export --out": (["trace", "export", "--out", "{}"], "trace file"),
}


def path_of(kind: str, folder: Path) -> str:
    if kind == "directory":
        (folder / "target").mkdir()
        return str(folder / "target")
    if kind == "device":
        return "/dev/null"
    return str(folder / "missing" if kind == "missing" else folder)


def listing(folder: Path) -> list[str]:
    return sorted(
        str(p.relative_to(folder)) for p in folder.rglob("*") if ".quotactl" not in str(p)
    )


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli) -> Path:
    monkeypatch.chdir(tmp_path)
    assert cli("trace", "generate", DEMO, "--jobs", "3", "--out", "trace.csv").exit_code == 0
    return tmp_path


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("command", sorted(READERS))
def test_every_path_read_that_is_no_file_is_an_io_error_naming_it(
    command: str, kind: str, workdir: Path, cli: Cli
) -> None:
    if kind == "directory" and READERS[command][1] == "config path":
        pytest.skip("a config path may be a directory")
    argv, what = READERS[command]
    path = path_of(kind, workdir)
    before = listing(workdir)
    result = cli(*[a.replace("{}", path) for a in argv])
    assert result.exit_code == 1, result.stderr
    assert f"error[io-error]: {what} {path} {KINDS[kind]}" in result.stderr
    assert "Traceback" not in result.stderr
    assert listing(workdir) == before


@pytest.mark.parametrize("kind", ["directory", "device", "no parent"])
@pytest.mark.parametrize("command", sorted(WRITERS))
def test_every_path_written_that_is_no_file_is_an_io_error_and_nothing_is_written(
    command: str, kind: str, workdir: Path, cli: Cli
) -> None:
    argv, what = WRITERS[command]
    path = str(workdir / "no" / "such.json") if kind == "no parent" else path_of(kind, workdir)
    before = listing(workdir)
    result = cli(*[a.replace("{}", path) for a in argv])
    assert result.exit_code == 1, result.stderr
    if kind == "no parent":
        assert f"error[io-error]: cannot write {what} {path}: directory" in result.stderr
    else:
        assert f"error[io-error]: {what} {path} {KINDS[kind]}, not a file" in result.stderr
    assert "error[internal]" not in result.stderr
    assert listing(workdir) == before
    assert Path("/dev/null").is_char_device()


@pytest.mark.parametrize("kind", ["file", "device"])
def test_export_out_that_is_no_directory_is_an_io_error(kind: str, workdir: Path, cli: Cli) -> None:
    path = "/dev/null" if kind == "device" else "trace.csv"
    result = cli("export", "--out", path)
    assert result.exit_code == 1, result.stderr
    assert f"error[io-error]: --out {path} is a {kind}, not a directory" in result.stderr


def test_a_write_that_fails_half_way_leaves_the_old_file_and_no_temporary(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from quotactl.core.files import replacing

    target = workdir / "kept.txt"
    target.write_text("old")

    def interrupted_write() -> None:
        with replacing(target, "test file") as out:
            out.write("new, half")
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        interrupted_write()
    assert target.read_text() == "old"
    assert sorted(p.name for p in workdir.iterdir() if p.name.startswith(".kept")) == []
