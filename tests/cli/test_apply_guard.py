"""The account guard through the CLI: --backend aws refuses a mismatched account (moto STS)."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

import pytest
from moto import mock_aws

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

MOTO_ACCOUNT = "123456789012"


@pytest.fixture
def aws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo_root: Path) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(key, "testing")
    for key in ("AWS_PROFILE", "AWS_ENDPOINT_URL_BATCH", "QUOTACTL_BACKEND"):
        monkeypatch.delenv(key, raising=False)
    shutil.copytree(repo_root / "configs" / "demo", tmp_path / "demo")
    with mock_aws():
        yield tmp_path / "demo"


def pin_account(config: Path, account: str) -> None:
    platform = config / "platform.yaml"
    text = platform.read_text().replace(
        "  region: us-east-1\n", f'  region: us-east-1\n  account_id: "{account}"\n'
    )
    platform.write_text(text)


def test_apply_on_aws_refuses_another_account_before_touching_anything(aws: Path, cli: Cli) -> None:
    pin_account(aws, "999999999999")
    result = cli("--backend", "aws", "apply", str(aws), "--auto-approve")
    assert result.exit_code == 1
    assert "error[account-mismatch]" in result.stderr
    assert "999999999999" in result.stderr
    assert MOTO_ACCOUNT in result.stderr
    assert "quotactl will perform" not in result.stdout  # refused before planning


def test_import_on_aws_refuses_another_account(aws: Path, cli: Cli) -> None:
    pin_account(aws, "999999999999")
    result = cli("--backend", "aws", "import", str(aws), "--auto-approve")
    assert result.exit_code == 1
    assert "error[account-mismatch]" in result.stderr


def test_local_backend_says_it_does_not_check_the_account(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo_root: Path, cli: Cli
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copytree(repo_root / "configs" / "demo", tmp_path / "demo")
    pin_account(tmp_path / "demo", "999999999999")
    result = cli("apply", "demo", "--dry-run")
    assert result.exit_code == 0
    result = cli("apply", "demo", "--auto-approve")
    assert result.exit_code == 0, result.stderr
    assert "account guard not checked on the local emulator" in result.stderr


def test_the_guard_and_the_backend_share_one_aws_session(
    aws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two sessions resolve credentials twice: an assume-role profile with MFA would ask
    for the code twice in one apply."""
    from quotactl.aws import session as sessions
    from quotactl.cli.runtime import Runtime

    made: list[object] = []
    real = sessions.botocore_session

    def counting(*args: object, **kwargs: object) -> object:
        made.append(args)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sessions, "botocore_session", counting)
    runtime = Runtime(backend="aws")
    account = runtime.connect("us-east-1")
    account.reach(MOTO_ACCOUNT)
    account.close()
    assert len(made) == 1
