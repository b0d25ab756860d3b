"""``quotactl doctor`` and ``--version``: what a user sees about their machine, on the local
emulator and on an AWS account (moto's STS, IAM and Batch; moto has no IAM policy simulator,
so ``iam_simulator`` gives moto one that evaluates the role's attached policies)."""

from __future__ import annotations

import json
import platform
import re
import sqlite3
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

import boto3
import botocore
import pytest
from moto import mock_aws
from moto.core.responses import ActionResult
from moto.iam.responses import IamResponse

from quotactl import __version__
from quotactl.aws.diagnose import mask, required_actions

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from tests.conftest import CliResult

SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE"
TRUST = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}],
    }
)


def _simulate_principal_policy(self: IamResponse) -> ActionResult:
    """IAM's SimulatePrincipalPolicy for a role: an action is allowed when an Allow statement
    of one of its policies names it (wildcards as IAM reads them), else implicitly denied."""
    role = self.backend.get_role(self._get_param("PolicySourceArn").rsplit("/", 1)[-1])
    documents = list(role.policies.values()) + [
        v.document for p in role.managed_policies.values() for v in p.versions if v.is_default
    ]
    allowed: list[str] = []
    for document in documents:
        for statement in json.loads(document)["Statement"]:
            if statement["Effect"] == "Allow":
                actions = statement["Action"]
                allowed += [actions] if isinstance(actions, str) else actions
    results = [
        {
            "EvalActionName": action,
            "EvalResourceName": "*",
            "EvalDecision": "allowed"
            if any(fnmatchcase(action.lower(), a.lower()) for a in allowed)
            else "implicitDeny",
        }
        for action in self._get_param("ActionNames", [])
    ]
    return ActionResult({"EvaluationResults": results, "IsTruncated": False})


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """An AWS account (moto) with credentials in the environment, as CI has them."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_BATCH"):
        monkeypatch.delenv(name, raising=False)
    with mock_aws():
        yield


@pytest.fixture
def iam_simulator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        IamResponse, "simulate_principal_policy", _simulate_principal_policy, raising=False
    )


def _assume(policy: dict[str, Any] | None) -> None:
    """Credentials of a role carrying ``policy`` in the environment (as an OIDC job has)."""
    iam = boto3.client("iam")
    iam.create_role(RoleName="quotactl-ci", Path="/ci/", AssumeRolePolicyDocument=TRUST)
    if policy is not None:
        iam.put_role_policy(
            RoleName="quotactl-ci", PolicyName="quotactl", PolicyDocument=json.dumps(policy)
        )
    credentials = boto3.client("sts").assume_role(
        RoleArn="arn:aws:iam::123456789012:role/ci/quotactl-ci", RoleSessionName="doctor"
    )["Credentials"]
    import os

    os.environ["AWS_ACCESS_KEY_ID"] = credentials["AccessKeyId"]  # the fixture restores them
    os.environ["AWS_SECRET_ACCESS_KEY"] = credentials["SecretAccessKey"]
    os.environ["AWS_SESSION_TOKEN"] = credentials["SessionToken"]


def _checks(result: CliResult) -> dict[str, dict[str, str]]:
    document = json.loads(result.stdout)
    assert document["format_version"] == "1"
    return {c["name"]: c for c in document["checks"]}


def test_version_is_one_line_of_quotactl_python_os_boto3_and_botocore(
    cli: Callable[..., CliResult],
) -> None:
    result = cli("--version")
    assert result.exit_code == 0
    line = result.stdout.strip()
    assert "\n" not in line
    assert line.startswith(f"quotactl/{__version__} Python/{platform.python_version()} ")
    assert f"boto3/{boto3.__version__}" in line
    assert line.endswith(f"botocore/{botocore.__version__}")


def test_doctor_on_a_new_directory_warns_that_the_state_file_is_not_there_yet(
    cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    state = tmp_path / "emulator.db"
    result = cli("--state", str(state), "doctor")
    assert result.exit_code == 0, result.stderr
    assert re.search(
        rf"^warn  emulator state  {re.escape(str(state))} does not exist", result.stdout, re.M
    )
    assert not state.exists(), "doctor must not create the state file"


def test_doctor_on_a_used_emulator_passes_every_check(
    cli: Callable[..., CliResult], tmp_path: Path, repo_root: Path
) -> None:
    state = tmp_path / "emulator.db"
    assert (
        cli(
            "--state", str(state), "-q", "apply", str(repo_root / "configs/demo"), "--auto-approve"
        ).exit_code
        == 0
    )
    result = cli("--state", str(state), "doctor", "-o", "json")
    assert result.exit_code == 0, result.stderr
    checks = _checks(result)
    assert {c["status"] for c in checks.values()} == {"pass"}
    assert "schema version" in checks["emulator state"]["message"]
    assert checks["endpoint"]["message"] == "the embedded emulator"


def test_doctor_fails_on_a_state_file_that_is_not_a_database(
    cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    state = tmp_path / "emulator.db"
    state.write_text("not sqlite, just text that is long enough to be read as a header\n" * 10)
    result = cli("--state", str(state), "doctor")
    assert result.exit_code == 1
    assert re.search(r"^fail  emulator state", result.stdout, re.M)
    assert "error[doctor-failed]: 1 check failed: emulator state" in result.stderr


def test_doctor_fails_on_a_state_file_from_a_newer_quotactl(
    cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    state = tmp_path / "emulator.db"
    with sqlite3.connect(state) as db:
        db.execute("PRAGMA user_version = 999")
    result = cli("--state", str(state), "doctor", "-o", "json")
    assert result.exit_code == 1
    assert "schema version 999" in _checks(result)["emulator state"]["message"]


@pytest.mark.usefixtures("aws", "iam_simulator")
def test_doctor_on_aws_names_the_credential_source_and_never_prints_the_secret(
    cli: Callable[..., CliResult],
) -> None:
    _assume(
        {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}],
        }
    )
    import os

    key = os.environ["AWS_ACCESS_KEY_ID"]
    result = cli("--backend", "aws", "doctor")
    assert result.exit_code == 0, result.stdout + result.stderr
    everything = result.stdout + result.stderr
    assert os.environ["AWS_SECRET_ACCESS_KEY"] not in everything
    assert key not in everything
    assert f"from environment variables, access key {mask(key)}" in result.stdout
    assert re.search(r"^pass  region +us-east-1$", result.stdout, re.M)
    assert re.search(
        r"^pass  endpoint +https://batch\.us-east-1\.amazonaws\.com$", result.stdout, re.M
    )
    assert re.search(
        rf"^pass  permissions +arn:aws:iam::123456789012:role/ci/quotactl-ci may make all "
        rf"{len(required_actions())} calls",
        result.stdout,
        re.M,
    )


@pytest.mark.usefixtures("aws", "iam_simulator")
def test_doctor_on_aws_fails_naming_each_denied_action_and_the_commands_it_breaks(
    cli: Callable[..., CliResult],
) -> None:
    reads = {"Effect": "Allow", "Action": ["batch:Describe*", "batch:List*"], "Resource": "*"}
    _assume({"Version": "2012-10-17", "Statement": [reads]})
    result = cli("--backend", "aws", "doctor", "-o", "json")
    assert result.exit_code == 1
    permissions = _checks(result)["permissions"]
    assert permissions["status"] == "fail"
    assert "batch:CreateQuotaShare (apply)" in permissions["message"]
    assert "batch:SubmitServiceJob (submit)" in permissions["message"]
    assert "batch:ListQuotaShares" not in permissions["message"]
    assert "error[doctor-failed]: 1 check failed: permissions" in result.stderr


@pytest.mark.usefixtures("aws")
def test_doctor_on_aws_without_credentials_fails_at_the_credentials(
    cli: Callable[..., CliResult], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    result = cli("--backend", "aws", "doctor")
    assert result.exit_code == 1
    assert re.search(r"^fail  credentials +no AWS credentials found", result.stdout, re.M)


@pytest.mark.usefixtures("aws")
def test_doctor_warns_when_the_policy_cannot_be_simulated(cli: Callable[..., CliResult]) -> None:
    result = cli("--backend", "aws", "doctor", "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert _checks(result)["permissions"]["status"] == "warn"


def test_the_simulated_actions_are_those_iam_policy_grants(
    cli: Callable[..., CliResult], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("iam-policy")
    granted: set[str] = set()
    for statement in json.loads(result.stdout)["Statement"]:
        action = statement["Action"]
        granted |= {action} if isinstance(action, str) else set(action)
    assert set(required_actions()) == granted
