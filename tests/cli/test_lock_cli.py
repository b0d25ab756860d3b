"""The stack lock through the CLI, on the emulator: refuse, wait, stay invisible, force-unlock."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from quotactl.aws.backend import AwsBackend
from quotactl.aws.session import Target, client
from quotactl.core.apply.lock import LockInfo, StateLock, acquire, held_by
from tests.conftest import TEST_TIMING

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

STATE = Path(".quotactl/emulator.db")
HOLDER = "someone@elsewhere pid 42"


def store() -> Any:
    return AwsBackend(client(Target("local", STATE, timing=TEST_TIMING))).lock_store()


def hold(command: str = "apply") -> StateLock:
    """Take the demo stack's lock the way another apply would."""
    return acquire(store(), "demo", holder=HOLDER, command=command)


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo_root: Path) -> Path:
    monkeypatch.chdir(tmp_path)
    shutil.copytree(repo_root / "configs" / "demo", tmp_path / "demo")
    return tmp_path / "demo"


def shares() -> list[str]:
    batch = client(Target("local", STATE, timing=TEST_TIMING))
    try:
        found = batch.list_quota_shares(jobQueue="training")["quotaShares"]
    except batch.exceptions.ClientException:
        return []
    return sorted(s["quotaShareName"] for s in found)


def test_apply_refuses_at_once_while_another_holds_the_lock(demo: Path, cli: Cli) -> None:
    lock = hold()
    try:
        result = cli("apply", str(demo), "--auto-approve")
    finally:
        lock.release()
    assert result.exit_code == 1
    assert f"error[state-locked]: stack demo is locked by {HOLDER} (apply, since" in result.stderr
    assert "nothing was changed" in result.stderr
    assert shares() == []


def test_apply_waits_up_to_lock_timeout_and_runs_once_the_lock_is_free(
    demo: Path, cli: Cli
) -> None:
    lock = hold()
    threading.Timer(0.5, lock.release).start()
    result = cli("apply", str(demo), "--auto-approve", "--lock-timeout", "2m")
    assert result.exit_code == 0, result.stderr
    assert len(shares()) == 4
    assert held_by(store(), "demo") is None  # and it released its own lock


def test_the_lock_never_shows_in_plan_export_or_import(demo: Path, cli: Cli) -> None:
    assert cli("apply", str(demo), "--auto-approve").exit_code == 0
    lock = hold()
    try:
        plan = cli("plan", str(demo), "--detailed-exitcode")
        exported = cli("export")
        imported = cli("import", str(demo), "--auto-approve")
    finally:
        lock.release()
    assert plan.exit_code == 0, plan.stdout
    assert "quotactl-lock" not in exported.stdout
    assert exported.exit_code == 0
    assert imported.exit_code == 1  # import writes, so it takes the lock too
    assert "error[state-locked]" in imported.stderr


def test_force_unlock_asks_first_and_then_clears_a_dead_holders_lock(demo: Path, cli: Cli) -> None:
    now = time.time()  # a lock whose holder died: created, never renewed nor released
    assert store().create("demo", LockInfo("demo", "d1", HOLDER, "apply", now, now + 300).tags())
    refused = cli("force-unlock", str(demo))
    assert refused.exit_code == 1
    assert f"locked by {HOLDER}" in refused.stdout
    assert "error[approval-required]" in refused.stderr
    # the hint names force-unlock's own flag and what to check, not apply's --plan
    assert "hint: review that the holder above is dead" in refused.stderr
    assert "--auto-approve" in refused.stderr
    assert "--plan" not in refused.stderr
    assert held_by(store(), "demo") is not None
    cleared = cli("force-unlock", str(demo), "--yes")
    assert cleared.exit_code == 0, cleared.stderr
    assert "Removed the lock of stack 'demo'" in cleared.stdout
    assert held_by(store(), "demo") is None
    assert cli("apply", str(demo), "--auto-approve").exit_code == 0
    again = cli("force-unlock", str(demo), "-y")
    assert again.exit_code == 0
    assert "is not locked: nothing to do" in again.stdout


def test_an_interrupted_apply_releases_the_lock(
    demo: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from quotactl.core.apply import flow as applyflow

    def interrupted(*args: object, **kwargs: object) -> None:
        assert held_by(store(), "demo") is not None  # it held the lock when interrupted
        raise KeyboardInterrupt

    monkeypatch.setattr(applyflow, "apply", interrupted)
    result = cli("apply", str(demo), "--auto-approve")
    assert result.exit_code == 130
    assert held_by(store(), "demo") is None


def test_a_bad_lock_timeout_is_a_usage_error(demo: Path, cli: Cli) -> None:
    result = cli("apply", str(demo), "--lock-timeout", "soon")
    assert result.exit_code == 64
    assert "error[usage]: --lock-timeout: invalid duration 'soon'" in result.stderr


def test_a_dry_run_takes_no_lock(demo: Path, cli: Cli) -> None:
    lock = hold()
    try:
        result = cli("apply", str(demo), "--dry-run")
    finally:
        lock.release()
    assert result.exit_code == 0, result.stderr
    assert "Dry run: nothing was changed." in result.stderr
