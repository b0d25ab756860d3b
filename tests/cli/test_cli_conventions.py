"""Conventions every command keeps, tried through the CLI as a user meets them."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from quotactl.cli.app import run
from quotactl.cli.runtime import Runtime
from tests.conftest import REPO_ROOT

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

DEMO = str(REPO_ROOT / "configs" / "demo")


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["plan", "/nonexistent", "-o", "json"], "io-error"),
        (["simulate", DEMO, "--trace", "/nonexistent", "--output=json"], "io-error"),
        (["validate", "/nonexistent", "-ojson"], "io-error"),
    ],
)
def test_a_failure_with_json_output_prints_one_error_document(
    cli: Cli, args: list[str], code: str
) -> None:
    result = cli(*args)
    assert result.exit_code == 1
    document = json.loads(result.stdout)  # exactly one document, nothing else on stdout
    assert document["format_version"] == "1"
    assert document["error"]["code"] == code
    assert document["error"]["message"]
    assert f"error[{code}]" in result.stderr


def test_an_invalid_config_with_json_output_lists_its_diagnostics(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("platform: {name: demo, region: us-east-1, typo: 1}\n")
    result = cli("validate", str(tmp_path), "-o", "json")
    document = json.loads(result.stdout)
    assert document["error"]["code"] == "config-invalid"
    assert document["valid"] is False
    [diagnostic] = document["diagnostics"]
    assert (diagnostic["line"], diagnostic["severity"]) == (1, "error")


def test_without_json_output_a_failure_leaves_stdout_empty(cli: Cli) -> None:
    result = cli("plan", "/nonexistent")
    assert result.exit_code == 1
    assert result.stdout == ""


def test_error_lines_say_error_as_warning_lines_say_warning(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("platform: {name: demo, region: us-east-1, typo: 1}\n")
    result = cli("validate", str(tmp_path))
    assert f"{tmp_path / 'c.yaml'}:1:43: error: " in result.stderr


def test_a_closed_pipe_ends_quietly_with_exit_0(tmp_path: Path) -> None:
    """More output than a pipe holds, read one line of: the writer meets a closed pipe."""
    command = (
        f"{sys.executable} -m quotactl trace generate {DEMO} --jobs 200000 | head -1; "
        'echo "exit=${PIPESTATUS[0]}"'
    )
    done = subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    assert done.stdout.splitlines()[-1] == "exit=0"
    assert done.stderr == ""


def test_the_local_notice_names_the_state_file_by_its_absolute_path(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("--state", "here.db", "export")
    assert f"state {tmp_path / 'here.db'})" in result.stderr


def test_a_state_file_in_a_missing_directory_is_refused_and_nothing_is_created(
    cli: Cli, tmp_path: Path
) -> None:
    state = tmp_path / "no" / "such" / "emulator.db"
    result = cli("--state", str(state), "plan", DEMO)
    assert result.exit_code == 1
    assert "error[emulator-state]" in result.stderr
    assert not (tmp_path / "no").exists()


def test_the_default_state_directory_is_created(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli("plan", DEMO).exit_code == 0
    assert (tmp_path / ".quotactl" / "emulator.db").is_file()


def test_iam_policy_reads_configs_by_default(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    unscoped = cli("iam-policy")
    assert unscoped.exit_code == 0
    assert "no configs/ here" in unscoped.stderr
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "p.yaml").write_text(
        'platform: {name: demo, region: eu-west-1, account_id: "111122223333"}\n'
    )
    scoped = cli("iam-policy")
    assert scoped.exit_code == 0, scoped.stderr
    assert "arn:aws:batch:eu-west-1:111122223333:" in scoped.stdout


def test_an_unsorted_trace_is_replayed_sorted_with_a_note(cli: Cli, tmp_path: Path) -> None:
    header = "submit_time,share,instance_type,count,duration,priority,name\n"
    rows = [
        "0,nlp,ml.p5.48xlarge,4,3600,0,a\n",
        "10.5,nlp,ml.p5.48xlarge,4,600,0,b\n",
        "10.5,research,ml.p5.48xlarge,2,60,3,c\n",
        "7200,nlp,ml.p5.48xlarge,8,60,0,d\n",
    ]
    ordered, shuffled = tmp_path / "ordered.csv", tmp_path / "shuffled.csv"
    ordered.write_text(header + "".join(rows))
    shuffled.write_text(header + "".join([rows[3], rows[1], rows[0], rows[2]]))

    expected = cli("simulate", DEMO, "--trace", str(ordered), "-o", "json")
    result = cli("simulate", DEMO, "--trace", str(shuffled), "-o", "json")

    assert result.exit_code == 0, result.stderr
    assert "shuffled.csv:3: submit_time 10.5 is earlier than the row before (7200)" in result.stderr
    assert "replaying the trace sorted by submit_time" in result.stderr
    got, want = json.loads(result.stdout), json.loads(expected.stdout)
    assert got.pop("trace") != want.pop("trace")  # only the file name differs
    assert got == want


def test_trace_generate_says_at_what_time_of_day_arrivals_peak(cli: Cli, tmp_path: Path) -> None:
    result = cli("trace", "generate", DEMO, "--jobs", "5", "--out", str(tmp_path / "t.csv"))
    assert result.exit_code == 0
    assert "times of day on the trace's clock" in result.stderr
    peaks = [line.rsplit(" ", 1)[1] for line in result.stderr.splitlines() if "peak daily" in line]
    assert peaks
    assert all(len(p) == 5 and p[2] == ":" for p in peaks), peaks


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_an_injected_runtime_gets_every_stream_and_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing reads the process's own stdin, stdout, stderr or argv behind the Runtime."""
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    runtime = Runtime(stdout=out, stderr=err, stdin=_Terminal("no\n"), environ={"NO_COLOR": "1"})
    assert run(["apply", DEMO], runtime) == 1
    assert "Only 'yes' will be accepted." in out.getvalue()
    assert "error[cancelled]" in err.getvalue()
    assert runtime.color is False


def test_debug_sends_the_traceback_to_the_runtimes_stderr() -> None:
    err = io.StringIO()
    assert run(["--debug", "plan", "/nonexistent"], Runtime(stderr=err)) == 1
    assert "Traceback (most recent call last)" in err.getvalue()
    assert "error[io-error]" in err.getvalue()
