"""The one session factory: local is hermetic and in-process, an endpoint wins, aws uses
the standard chain; clients retry in botocore's standard mode."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import boto3
import pytest

from quotactl.aws.session import Target, client, make_session
from quotactl.emulator import Emulator
from quotactl.errors import QuotactlError, UsageError
from tests.conftest import TEST_TIMING

if TYPE_CHECKING:
    from collections.abc import Callable

    from botocore.client import BaseClient

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]


def test_local_ignores_the_users_aws_profile_and_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_PROFILE", "does-not-exist")
    monkeypatch.setenv("AWS_ENDPOINT_URL_BATCH", "http://127.0.0.1:9")
    target = Target("local", tmp_path / "s.db", timing=TEST_TIMING)
    emulator = Emulator(target.state_path, timing=TEST_TIMING)
    batch = client(target, session=make_session(target, emulator=emulator))
    try:
        assert batch.list_scheduling_policies()["schedulingPolicies"] == []
        assert batch.meta.region_name == "us-east-1"
        assert _retries(batch)["mode"] == "standard"
    finally:
        batch.close()
        emulator.close()
    assert target.state_path.exists()


def test_an_endpoint_url_wins_over_the_local_emulator(tmp_path: Path) -> None:
    target = Target(
        "local", tmp_path / "s.db", endpoint_url="http://127.0.0.1:8765", timing=TEST_TIMING
    )
    batch = client(target)
    try:
        assert batch.meta.endpoint_url == "http://127.0.0.1:8765"
        assert not target.state_path.exists()  # no emulator was attached
    finally:
        batch.close()


def test_aws_uses_the_named_profile_and_region(tmp_path: Path) -> None:
    with pytest.raises(QuotactlError) as raised:
        make_session(Target("aws", tmp_path / "s.db", profile="no-such-profile"))
    assert raised.value.code == "aws-profile"
    assert "'no-such-profile'" in raised.value.message
    session = make_session(Target("aws", tmp_path / "s.db", region="eu-west-1"))
    assert session.region_name == "eu-west-1"


@pytest.mark.parametrize(
    ("target", "says"),
    [
        (
            Target("local", Path("s.db"), endpoint_url="notaurl", timing=TEST_TIMING),
            "'notaurl' is not a URL",
        ),
        (Target("aws", Path("s.db"), region="x y"), "'x y' is not an AWS region name"),
    ],
)
def test_a_bad_endpoint_or_region_is_a_usage_error(target: Target, says: str) -> None:
    with pytest.raises(UsageError, match=says):
        client(target)


def test_retries_can_be_overridden(tmp_path: Path) -> None:
    target = Target(
        "local", tmp_path / "s.db", endpoint_url="http://127.0.0.1:8765", timing=TEST_TIMING
    )
    batch = client(target, retries={"mode": "legacy", "max_attempts": 2})
    try:
        assert _retries(batch)["mode"] == "legacy"
    finally:
        batch.close()


def _retries(batch: BaseClient) -> dict[str, object]:
    """The client's retry settings (botocore-stubs does not declare ``Config``'s attributes)."""
    retries: dict[str, object] = vars(batch.meta.config)["retries"]
    return retries


def test_aws_with_no_region_anywhere_is_a_usage_error_naming_the_three_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli
) -> None:
    for variable in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"):
        monkeypatch.delenv(variable, raising=False)
    (tmp_path / "config").write_text("[default]\n")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError) as raised:
        client(Target("aws", tmp_path / "s.db"))
    assert "--region" in str(raised.value.hint)
    result = cli("--backend", "aws", "jobs")
    assert result.exit_code == 64
    assert "error[usage]: no AWS region for the aws backend" in result.stderr
    for way in ("--region", "platform.region", "AWS_DEFAULT_REGION"):
        assert way in result.stderr
    # one of them is enough
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    assert client(Target("aws", tmp_path / "s.db")).meta.region_name == "eu-west-1"


def test_a_bad_region_hint_names_the_variable_botocore_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AWS_REGION", raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "not a region")
    (tmp_path / "config").write_text("[default]\n")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    with pytest.raises(UsageError) as raised:
        client(Target("aws", tmp_path / "s.db"))
    assert "'not a region' is not an AWS region name" in raised.value.message
    hint = str(raised.value.hint)
    assert "AWS_DEFAULT_REGION" in hint
    assert "AWS_REGION" not in hint.replace("AWS_DEFAULT_REGION", "")  # botocore reads no such
    # ... as botocore itself shows: AWS_REGION alone gives no region
    monkeypatch.delenv("AWS_DEFAULT_REGION")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    assert boto3.Session().region_name is None
