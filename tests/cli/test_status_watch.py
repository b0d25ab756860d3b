"""`quotactl status --watch` in a pseudo-terminal, as a user at a terminal sees it.

The command runs as a real process on a pty (rich ``Live`` redraws in place there), against
an emulated account whose API fails a fifth of the requests (``QUOTACTL_EMULATOR_FAULTS``); a job
is submitted while it watches; then Ctrl-C is typed.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from typing import TYPE_CHECKING

import pytest

from quotactl.aws.session import Target, client
from tests.conftest import TEST_TIMING

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

TIMEOUT = 60.0
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
PAYLOAD = {
    "TrainingJobName": "watched",
    "AlgorithmSpecification": {"TrainingImage": "img", "TrainingInputMode": "File"},
    "ResourceConfig": {"InstanceType": "ml.p5.48xlarge", "InstanceCount": 1, "VolumeSizeInGB": 30},
    "RoleArn": "arn:aws:iam::123456789012:role/SageMaker",
    "StoppingCondition": {"MaxRuntimeInSeconds": 3600},
    "OutputDataConfig": {"S3OutputPath": "s3://bucket/out"},
}


class Terminal:
    """A process on a 160x60 pseudo-terminal; everything it writes is kept in ``seen``."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 60, 160, 0, 0))
        self.master = master
        self.process = subprocess.Popen(
            args,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
        )
        os.close(slave)
        self.seen = ""

    def read_until(self, done: Callable[[str], bool]) -> None:
        deadline = time.monotonic() + TIMEOUT
        while not done(self.seen):
            ended = self.process.poll() is not None
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                try:
                    self.seen += os.read(self.master, 65536).decode(errors="replace")
                    continue
                except OSError:  # the process has closed the terminal: all was read
                    ended = True
            if ended or time.monotonic() > deadline:
                raise AssertionError(f"gave up waiting; the terminal shows:\n{self.seen[-3000:]}")

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def finish(self) -> int:
        """The exit code once the process ends (killed if it does not within the timeout)."""
        try:
            code = self.process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        with contextlib.suppress(AssertionError):  # raised once everything written was read
            self.read_until(lambda _: False)
        os.close(self.master)
        return code


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_watch_refreshes_in_place_survives_faults_and_exits_on_ctrl_c(
    tmp_path: Path, cli: Callable[..., CliResult], repo_root: Path
) -> None:
    state = tmp_path / "state.db"
    applied = cli(
        "--state", str(state), "-q", "apply", str(repo_root / "configs" / "demo"), "--auto-approve"
    )
    assert applied.exit_code == 0, applied.stderr
    env = {
        **os.environ,
        "PYTHONPATH": str(repo_root),
        "TERM": "xterm-256color",
        "QUOTACTL_EMULATOR_FAULTS": "error=0.2,seed=11",
    }
    env.pop("NO_COLOR", None)
    env.pop("COLUMNS", None)
    terminal = Terminal(
        [
            sys.executable,
            "-m",
            "quotactl",
            "--state",
            str(state),
            "status",
            "--watch",
            "--interval",
            "0.3s",
        ],
        env,
    )
    try:
        # a good refresh, a failed one, and good ones after it
        terminal.read_until(
            lambda s: (
                "Since the last refresh" in s
                and "refresh failed at" in s
                and s.rfind("Since the last refresh") > s.find("refresh failed at")
            )
        )
        # the error line wraps at the terminal's width, and a redraw may put cursor codes in it
        shown = " ".join(ANSI.sub("", terminal.seen).split())
        assert "error[aws-error]" in shown
        # the next redraw may overwrite the end of the error line (after the operation's name
        # and the first words of the message, however long the name)
        assert "Internal server error" in shown
        assert "showing the view of" in shown or "nothing read yet" in shown
        # a job submitted meanwhile shows up as started
        client(Target("local", state, timing=TEST_TIMING)).submit_service_job(
            jobName="watched",
            jobQueue="training",
            serviceJobType="SAGEMAKER_TRAINING",
            serviceRequestPayload=json.dumps(PAYLOAD),
            quotaShareName="nlp",
        )
        terminal.read_until(lambda s: "1 started (watched)" in s)
        terminal.type("\x03")  # Ctrl-C
    finally:
        code = terminal.finish()
    assert code == 0
    assert "Traceback" not in terminal.seen
    assert "error[internal]" not in terminal.seen
    plain = ANSI.sub("", terminal.seen)
    assert plain.count("Queue training") >= 3  # redrawn in place, frame after frame
    assert plain.count("\x1b") == 0
    assert "\x1b[?25l" in terminal.seen  # Live hid the cursor while redrawing ...
    assert (
        "\x1b[?25h" in terminal.seen[terminal.seen.rfind("\x1b[?25l") :]
    )  # ... and shows it again


def test_watch_with_json_streams_one_document_per_refresh_until_interrupted(
    tmp_path: Path, cli: Callable[..., CliResult], repo_root: Path
) -> None:
    """Not on a terminal, `-o json --watch` is JSON Lines: each refresh one document."""
    state = tmp_path / "state.db"
    applied = cli(
        "--state", str(state), "-q", "apply", str(repo_root / "configs" / "demo"), "--auto-approve"
    )
    assert applied.exit_code == 0, applied.stderr
    env = {**os.environ, "PYTHONPATH": str(repo_root)}
    args = ["--state", str(state), "-q", "status", "--watch", "--interval", "0.2s", "-o", "json"]
    process = subprocess.Popen(
        [sys.executable, "-m", "quotactl", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert process.stdout is not None
    documents = [json.loads(process.stdout.readline()) for _ in range(3)]
    process.send_signal(signal.SIGINT)
    _, errors = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0
    assert "Traceback" not in errors
    assert [d["format_version"] for d in documents] == ["1", "1", "1"]
    assert {d["queues"][0]["name"] for d in documents} == {"training"}


@pytest.mark.parametrize("interval", ["0.1s", "soon", "-1"])
def test_a_bad_watch_interval_is_a_usage_error(
    cli: Callable[..., CliResult], tmp_path: Path, interval: str
) -> None:
    result = cli("--state", str(tmp_path / "s.db"), "status", "--watch", "--interval", interval)
    assert result.exit_code == 64
    assert "--interval" in result.stderr
