"""iam-policy is derived from the registered commands and the calls they really make.

- Every command quotactl registers is in the permissions table or declared offline, and the
  table names no command that does not exist: a new command fails here until it gets entries.
- iam-policy's help and output never mention a command that does not exist.
- Running each command against the emulator records the calls it makes: every one of them is
  granted to that command in the table (so ``--command X`` is enough to run X).
"""

from __future__ import annotations

import json
import re
import shutil
import time
from typing import TYPE_CHECKING, Any

import pytest
import typer

import quotactl.aws.calls
from quotactl.aws.backend import AwsBackend
from quotactl.aws.permissions import OFFLINE_COMMANDS, OPERATIONS, commands, read_only_commands
from quotactl.aws.session import Target, client
from quotactl.cli.app import app
from quotactl.core.apply.lock import LockInfo
from tests.cli.test_usage import leaf_commands
from tests.conftest import TEST_TIMING

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

REGISTERED = {" ".join(c) for c in leaf_commands(typer.main.get_command(app))}
GROUPS = {c.split()[0] for c in REGISTERED}
# Every command name quotactl has or is planned to have: any of these that is not registered
# must not appear in iam-policy's help or output.
VOCABULARY = {
    "validate", "schema", "plan", "apply", "export", "import", "status", "submit", "jobs",
    "job", "simulate", "trace", "local", "iam-policy", "force-unlock", "completion",
}  # fmt: skip


def test_the_table_and_the_registered_commands_agree() -> None:
    named = commands()
    assert named - REGISTERED == set(), "the table grants calls to commands that do not exist"
    assert set() == OFFLINE_COMMANDS - REGISTERED, "offline commands that do not exist"
    missing = REGISTERED - named - OFFLINE_COMMANDS
    assert missing == set(), f"commands without permission entries (or OFFLINE_COMMANDS): {missing}"
    assert named & OFFLINE_COMMANDS == set()


def mentioned(text: str) -> set[str]:
    words = set(re.findall(r"(?<![\w-])[a-z][a-z-]*(?![\w-])", text))
    return {w for w in words & VOCABULARY if w not in GROUPS and w not in REGISTERED}


def test_iam_policy_help_and_output_name_only_existing_commands(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    page = cli("iam-policy", "--help")
    assert page.exit_code == 0
    assert mentioned(page.stdout) == set()
    for args in ([], ["--read-only"], *(["--command", c] for c in sorted(commands()))):
        result = cli("iam-policy", *args)
        assert result.exit_code == 0, result.stderr
        assert mentioned(result.stdout + result.stderr) == set(), args
    unknown = cli("iam-policy", "--command", "nope")
    assert unknown.exit_code == 64
    assert "error[usage]: --command 'nope' is not a command that calls AWS" in unknown.stderr
    assert mentioned(unknown.stderr) == set()  # its hint lists only real commands


def actions_for(cli: Cli, *args: str) -> set[str]:
    result = cli("iam-policy", *args)
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    found: set[str] = set()
    for statement in document["Statement"]:
        action = statement["Action"]
        found.update([action] if isinstance(action, str) else action)
    return found


def test_read_only_is_the_commands_that_write_nothing(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    writes = {op.action for op in OPERATIONS.values() if op.writes}
    assert "plan" in read_only_commands()
    assert "apply" not in read_only_commands()
    assert not actions_for(cli, "--read-only") & writes
    assert actions_for(cli, "--command", "plan") <= actions_for(cli, "--read-only")


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The Batch operations every command run in this test calls, in order."""
    calls: list[str] = []
    real = quotactl.aws.calls._method

    def recording(operation: str) -> str:
        calls.append(operation)
        return real(operation)

    monkeypatch.setattr(quotactl.aws.calls, "_method", recording)
    return calls


def test_every_call_a_command_makes_is_granted_to_it(
    cli: Cli,
    recorded: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    repo_root: Path,
) -> None:
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "demo"
    shutil.copytree(repo_root / "configs" / "demo", config)
    made: dict[str, set[str]] = {}

    def run(command: str, *args: str) -> None:
        recorded.clear()
        result = cli(*command.split(), *args)
        assert result.exit_code == 0, (command, result.stderr)
        made.setdefault(command, set()).update(recorded)

    run("apply", str(config), "--auto-approve")
    run("plan", str(config))
    run("export")
    run("trace export", "--out", "trace.csv")
    run("status")
    run("jobs")
    (config / "teams" / "ranking.yaml").unlink()
    nlp = config / "teams" / "nlp.yaml"
    nlp.write_text(nlp.read_text().replace("{ml.p5.48xlarge: 4}", "{ml.p5.48xlarge: 2}"))
    run("plan", str(config), "--out", "plan.json")
    run("apply", "--plan", "plan.json", "--auto-approve", "--allow-delete")
    batch = client(Target("local", tmp_path / ".quotactl" / "emulator.db", timing=TEST_TIMING))
    batch.untag_resource(
        resourceArn=batch.describe_job_queues(jobQueues=["training"])["jobQueues"][0][
            "jobQueueArn"
        ],
        tagKeys=["quotactl:stack"],
    )
    run("import", str(config), "--auto-approve")
    now = time.time()
    store: Any = AwsBackend(batch).lock_store()
    store.create("demo", LockInfo("demo", "x", "ghost", "apply", now, now + 60).tags())
    run("force-unlock", str(config), "--yes")
    exercised = {"plan", "apply", "export", "import", "force-unlock", "trace export", "status"}
    assert exercised | {"jobs"} <= set(made) <= commands()
    for command, operations in made.items():
        ungranted = {op for op in operations if command not in OPERATIONS[op].commands}
        assert ungranted == set(), f"{command} calls {ungranted} without a grant"
